#!/bin/bash
# An operator's urgent job (only operators may set a priority).
#SBATCH --job-name=urgent-fix
#SBATCH --priority=TOP
#SBATCH -n 1
#SBATCH -t 15
./repair_index
