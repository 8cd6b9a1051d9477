#!/bin/bash
#SBATCH --job-name=hparam-sweep
#SBATCH --array=0-63%8
#SBATCH --gpus=1
#SBATCH --cpus-per-gpu=6
#SBATCH --mem-per-gpu=40G
#SBATCH --time=04:00:00
#SBATCH --output=sweep/%A_%a.out
#SBATCH --requeue
#SBATCH --signal=B:USR1@120
python sweep.py --index "$SLURM_ARRAY_TASK_ID"
