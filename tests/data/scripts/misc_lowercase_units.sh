#!/bin/bash
#SBATCH --mem=1500m
#SBATCH --tmp=10g
#SBATCH --time=5-0
#SBATCH -n 1
./tool
