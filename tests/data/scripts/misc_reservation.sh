#!/bin/bash
#SBATCH --reservation=training_2024
#SBATCH --time=01:00:00
#SBATCH --ntasks=2
#SBATCH --no-requeue
#SBATCH --chdir=/home/student/course
./exercise
