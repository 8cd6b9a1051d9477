#!/bin/tcsh
#SBATCH --get-user-env=60L
#SBATCH --ntasks=1
#SBATCH --time=2:00:00
#SBATCH --no-kill
#SBATCH --wait-all-nodes=1
./legacy_csh_job
