#!/bin/bash
#SBATCH --job-name=io-bound
#SBATCH --ntasks=8
#SBATCH --cpu-freq=1200000-2000000:OnDemand
#SBATCH --time=06:00:00
srun ./postprocess
