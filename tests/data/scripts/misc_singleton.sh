#!/bin/bash
#SBATCH --job-name=nightly-sync
#SBATCH --dependency=singleton
#SBATCH --time=30:00
#SBATCH --begin=tomorrow
rsync -a src/ dst/
