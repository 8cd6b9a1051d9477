#!/bin/bash
#SBATCH --job-name=lammps
#SBATCH --ntasks=128
#SBATCH --mincpus=32
#SBATCH --time=10:00:00
#SBATCH --ntasks-per-core=1
#SBATCH --threads-per-core=1
#SBATCH --output=lmp-%j.out
srun lmp -in in.melt
