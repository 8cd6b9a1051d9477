#!/bin/bash -l
#SBATCH --job-name nf-head
#SBATCH --time 7-00:00:00
#SBATCH --mem 8G
#SBATCH --cpus-per-task 2
#SBATCH --qos long
#SBATCH --get-user-env
nextflow run nf-core/rnaseq -profile slurm
