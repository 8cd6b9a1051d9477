#!/bin/bash
#SBATCH --job-name=perf-gov
#SBATCH --ntasks=32
#SBATCH --cpu-freq=high-high:Performance
#SBATCH --time=03:00:00
srun ./lbm
