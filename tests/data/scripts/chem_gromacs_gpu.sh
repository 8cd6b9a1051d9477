#!/bin/bash
#SBATCH --job-name=gmx-md
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=4
#SBATCH --cpus-per-task=16
#SBATCH --gpus-per-task=1
#SBATCH --gpu-bind=closest
#SBATCH --time=23:59:00
#SBATCH --account=biophys --qos=normal
srun gmx_mpi mdrun -deffnm md -nb gpu -pme gpu
