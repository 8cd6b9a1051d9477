#!/bin/bash
#SBATCH --job-name=bwa-align
#SBATCH --array=1-96
#SBATCH --cpus-per-task=16
#SBATCH --mem=48G
#SBATCH --time=06:00:00
#SBATCH --partition=bigmem
#SBATCH --account=genomics
#SBATCH --output=align/%A_%a.out
#SBATCH --mail-type=ARRAY_TASKS,FAIL
#SBATCH --mail-user=bioinf@example.org
sample=$(sed -n "${SLURM_ARRAY_TASK_ID}p" samples.txt)
bwa mem -t 16 ref.fa "$sample"_1.fq "$sample"_2.fq > "$sample".sam
