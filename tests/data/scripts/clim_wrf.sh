#!/bin/bash
#SBATCH --job-name=wrf
#SBATCH --nodes=16
#SBATCH --ntasks-per-node=128
#SBATCH --time=06:00:00
#SBATCH --account=climate
#SBATCH --qos=regular
#SBATCH --constraint=cpu
#SBATCH --mail-type=BEGIN,END
#SBATCH --mail-user=wrf-runs@example.org
#SBATCH --wckey=wrf-2024
srun ./wrf.exe
