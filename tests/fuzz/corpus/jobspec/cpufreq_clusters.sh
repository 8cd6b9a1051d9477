#!/bin/sh
#SBATCH -M alpha,beta --cpu-freq=low-2400000:OnDemand
#SBATCH --signal=BR:usr2@45 --mail-type=begin,bogus,End
#SBATCH --priority=TOP --nodes=-4 --output=None
#SBATCH --account=#PROJECT
#SBATCH -N 2 "" -N 3
true
