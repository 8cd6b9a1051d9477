#!/usr/bin/env bash
#SBATCH -N 4 -n 16 --gpus-per-task=1 --cpus-per-task=12   # one GPU a task
#SBATCH --exclusive
#SBATCH --time 1-12
#SBATCH -A ai4science -q normal
#SBATCH --hint=nomultithread
srun --cpu-bind=cores python jax_run.py
