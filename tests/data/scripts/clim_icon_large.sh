#!/bin/bash
#SBATCH --job-name=icon-r2b9
#SBATCH --nodes=64-128
#SBATCH --ntasks-per-node=128
#SBATCH --time=08:00:00
#SBATCH --time-min=04:00:00
#SBATCH --exclusive
#SBATCH --account=bb1234
srun ./icon
