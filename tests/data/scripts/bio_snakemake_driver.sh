#!/bin/bash
#SBATCH --job-name=snakemake
#SBATCH --time=3-00:00:00
#SBATCH --mem=4G
#SBATCH --cpus-per-task=1
#SBATCH --output=snakemake-%j.log
#SBATCH --mail-type=ALL
#SBATCH --mail-user=lab@example.org
snakemake --profile slurm -j 100
