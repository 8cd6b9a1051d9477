#!/bin/bash
# A site template with the blanks left empty.
#SBATCH --job-name=template
#SBATCH --account=#ACCOUNT
#SBATCH --mail-user=
#SBATCH --mail-type=NONE
#SBATCH --output=    # default: slurm-%j.out
#SBATCH --constraint=""
#SBATCH --nodes=1
#SBATCH --time=00:10:00
hostname
