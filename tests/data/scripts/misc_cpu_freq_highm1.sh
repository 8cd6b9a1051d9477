#!/bin/bash
# Pinned below turbo so the nodes stay within their power cap.
#SBATCH --job-name=stream
#SBATCH --nodes=1
#SBATCH --exclusive
#SBATCH --cpu-freq=HighM1
#SBATCH --time=00:20:00
srun ./stream
