#!/bin/bash
# Written for one cluster of a multi-cluster site.
#SBATCH -M beta
#SBATCH --job-name=on-beta
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --time=02:00:00
srun ./app
