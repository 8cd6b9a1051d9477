#!/bin/bash
#SBATCH --job-name=from-windows
#SBATCH --time=00:05:00
#SBATCH --mem=1G
echo done
