#!/bin/bash
#SBATCH -N 8
#SBATCH --ntasks-per-node=64
#SBATCH --ntasks-per-socket=32
#SBATCH --sockets-per-node=2
#SBATCH --cores-per-socket=32
#SBATCH --time=20:00:00
#SBATCH --contiguous
srun ./nek5000
