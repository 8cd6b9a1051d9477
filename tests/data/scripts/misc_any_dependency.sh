#!/bin/bash
#SBATCH --dependency=afterok:700?afternotok:701
#SBATCH --time=5
echo cleanup
