#!/bin/bash
#SBATCH --job-name="su2 wing study"   # quoted name with spaces
#SBATCH --output='out dir/%x-%j.txt'
#SBATCH --ntasks 64 --time 3:00:00
#SBATCH --account 'aero'
mpirun SU2_CFD wing.cfg
