#!/bin/bash
#SBATCH --array=0-999:10
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --mem=3500M
#SBATCH --time=0:45:00
#SBATCH -o blast-%a.out
for i in $(seq "$SLURM_ARRAY_TASK_ID" $((SLURM_ARRAY_TASK_ID+9))); do blastp -query q$i.fa; done
