#!/bin/bash
# Run in a folder below the one it was submitted from.
#SBATCH -J relative-dir
#SBATCH -D runs/case01
#SBATCH -o slurm-%j.out
#SBATCH -t 30
./run_case
