#!/bin/sh
#SBATCH --job-name=g16-opt
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=32
#SBATCH --mem=120GB
#SBATCH --time=5-00:00:00
#SBATCH --tmp=800gb
#SBATCH --licenses=gaussian:1
#SBATCH --output=%x.log
g16 < input.com > output.log
