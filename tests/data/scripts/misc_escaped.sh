#!/bin/bash
#SBATCH --comment=run\ with\ escaped\ spaces
#SBATCH --job-name="a#b"          # '#' inside quotes is kept
#SBATCH --time=10
echo ok
