#!/bin/bash
# A coupled run: the solver on two nodes, the I/O server on one small
# task with more memory; one heterogeneous job so both start together.
#SBATCH --job-name=coupled
#SBATCH --account=physics
#SBATCH --time=00:30:00
#SBATCH --nodes=2 --ntasks-per-node=4
#SBATCH --mem=1G
#SBATCH hetjob
#SBATCH --ntasks=1 --cpus-per-task=2
#SBATCH packjob
#SBATCH -n 1
srun --het-group=0 ./solver : --het-group=1 ./ioserver
