#!/bin/bash
#SBATCH -J fluent
#SBATCH -N 4 --ntasks-per-node=32
#SBATCH -t 1-00:00:00
#SBATCH -L ansys_hpc:128
#SBATCH --mem=180G
#SBATCH --nodelist=cfd[01-04]
fluent 3ddp -g -t128 -i run.jou
