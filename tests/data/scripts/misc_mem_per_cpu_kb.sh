#!/bin/bash
#SBATCH --mem-per-cpu=524288K
#SBATCH --ntasks=4
#SBATCH --time=1:00
#SBATCH --acctg-freq=energy=30
#SBATCH --profile=energy
./bench
