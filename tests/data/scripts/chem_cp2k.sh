#!/bin/bash
#SBATCH -N 8 --ntasks-per-node=64 -c 2
#SBATCH --time=12:00:00
#SBATCH --distribution=block:block
#SBATCH --hint=nomultithread
#SBATCH --mem-bind=local
#SBATCH -A chem
srun cp2k.psmp -i input.inp
