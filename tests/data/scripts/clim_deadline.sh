#!/bin/bash
#SBATCH --job-name=forecast-00z
#SBATCH --begin=now+1hour
#SBATCH --deadline=now+6hours
#SBATCH --time=90
#SBATCH --nice=50
#SBATCH -N 2
srun ./forecast
