#!/bin/bash
#SBATCH --dependency=after:900+10
#SBATCH --time=15
#SBATCH --mail-type=time_limit_80
echo monitor
