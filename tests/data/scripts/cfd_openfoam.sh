#!/bin/bash
#SBATCH --job-name=motorbike
#SBATCH --nodes=2
#SBATCH --ntasks=96
#SBATCH --time=04:00:00
#SBATCH --mem-per-cpu=1950M
#SBATCH --exclude=node[013-015],node042
#SBATCH --output=foam.%j.log
srun simpleFoam -parallel
