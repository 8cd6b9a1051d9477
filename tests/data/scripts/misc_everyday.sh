#!/bin/bash
#SBATCH --job-name=sim
#SBATCH --account=physics
#SBATCH --mem=4G
#SBATCH --mail-type=END
#SBATCH --array=1-10
#SBATCH --time=01:00:00
srun ./a.out
