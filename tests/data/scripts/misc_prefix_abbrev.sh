#!/bin/bash
#SBATCH --job=abbrev
#SBATCH --ntasks-per-n=2
#SBATCH --nodes=1
#SBATCH --time=10
./x
