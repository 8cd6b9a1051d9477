#!/bin/sh
#SBATCH -o /tmp/x-%j
#SBATCH --time=90:30
#SBATCH -c 4
echo hi
