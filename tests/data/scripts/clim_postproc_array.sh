#!/bin/bash
#SBATCH --array=1979-2020
#SBATCH --job-name=era5-post
#SBATCH --time=00:30:00
#SBATCH --mem=8G
#SBATCH --output=post_%A_%a.out
#SBATCH --open-mode=truncate
cdo yearmean era5_${SLURM_ARRAY_TASK_ID}.nc out_${SLURM_ARRAY_TASK_ID}.nc
