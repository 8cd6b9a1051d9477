#!/bin/bash
#SBATCH --job-name=long-train
#SBATCH --time=24:00:00
#SBATCH --gpus-per-node=4
#SBATCH --nodes=1
#SBATCH --signal=USR1@600
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=train.out
trap 'scontrol requeue $SLURM_JOB_ID' USR1
python train.py --resume &
wait
