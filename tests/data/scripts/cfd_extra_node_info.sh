#!/bin/bash
#SBATCH -B 2:16:1
#SBATCH -n 32
#SBATCH -t 120
#SBATCH --spread-job
#SBATCH --use-min-nodes
srun ./solver
