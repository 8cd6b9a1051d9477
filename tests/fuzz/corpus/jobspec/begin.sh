#!/bin/sh
#SBATCH --begin=now+2hours
#SBATCH --begin 16:00:30
#SBATCH --begin=2026-12-24T08:00
#SBATCH --begin=tomorrow
srun ./md
