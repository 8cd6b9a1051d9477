#!/bin/bash
#SBATCH -J vasp_relax
#SBATCH -N 4
#SBATCH --ntasks-per-node=48
#SBATCH -t 48:00:00
#SBATCH -A chem-dft
#SBATCH --exclusive
#SBATCH --switches=1@01:00:00
#SBATCH -o vasp.%j.out
module load vasp/6.4
srun vasp_std
