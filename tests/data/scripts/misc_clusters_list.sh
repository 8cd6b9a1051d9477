#!/bin/bash
#SBATCH --clusters=alpha,gamma
#SBATCH --job-name=either
#SBATCH -n 16
#SBATCH -t 1:00:00
srun ./app
