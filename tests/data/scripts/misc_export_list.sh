#!/bin/bash
#SBATCH --export=ALL,OMP_NUM_THREADS=8,MKL_NUM_THREADS=8
#SBATCH --ntasks=1 --cpus-per-task=8
#SBATCH --time=00:10:00
./omp_prog
