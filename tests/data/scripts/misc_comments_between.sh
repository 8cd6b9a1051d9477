#!/bin/bash

# Resources -----------------------------------------------
#SBATCH --ntasks=1            # one task
#SBATCH --time=10:00          # ten minutes

    # an indented comment does not end the directives
#SBATCH --mem=512             # MiB
## #SBATCH --partition=debug  (disabled)
#SBATCHED notes are not directives

echo start
#SBATCH --time=99:00:00
