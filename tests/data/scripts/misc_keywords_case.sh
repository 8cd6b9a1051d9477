#!/bin/bash
# Keywords as users write them: sbatch compares them without regard to case.
#SBATCH --job-name=mixed-case
#SBATCH --ntasks=4
#SBATCH --time=0-04:00:00
#SBATCH --mail-type=Begin,End,Fail
#SBATCH --mail-user=someone@example.org
#SBATCH --open-mode=Append
#SBATCH --signal=b:usr1@300
#SBATCH --kill-on-invalid-dep=Yes
#SBATCH --exclusive=User
#SBATCH --requeue=EXPEDITE
#SBATCH --get-user-env=30l
module load openmpi
srun ./solver input.dat
