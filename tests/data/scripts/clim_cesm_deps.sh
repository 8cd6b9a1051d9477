#!/bin/bash
#SBATCH -J cesm-archive
#SBATCH -d afterany:5001
#SBATCH -t 02:00:00
#SBATCH -n 1
#SBATCH --mem=2G
./case.st_archive
