#!/bin/bash
#SBATCH --job-name=lu
#SBATCH -N 4
#SBATCH --ntasks=192 # c
#SBATCH -t 1-02:30
#SBATCH --export=NONE,A=1,B
#SBATCH --app lu.C
#SBATCH --exclusive
srun ./lu
