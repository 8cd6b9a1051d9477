#!/bin/bash
#SBATCH --job-name=merge-vcf
#SBATCH --dependency=afterok:1201:1202:1203
#SBATCH --kill-on-invalid-dep=yes
#SBATCH --time=01:00:00
#SBATCH --mem=16G
bcftools merge *.vcf.gz -o merged.vcf.gz
