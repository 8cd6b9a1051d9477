#!/bin/bash
#SLURM --time=20
#SBATCH --ntasks=1
#SBATCH --parsable
./legacy
