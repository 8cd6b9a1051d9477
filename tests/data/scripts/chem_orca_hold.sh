#!/bin/bash
#SBATCH --job-name=orca-ccsd
#SBATCH --hold
#SBATCH --ntasks=16
#SBATCH --mem-per-cpu=7500
#SBATCH --time=3-00
#SBATCH --comment="CCSD(T) benchmark set 3"
orca input.inp > output.out
