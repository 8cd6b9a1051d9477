#!/bin/bash
#SBATCH --nodes=1 --ntasks=4 --mem=2g --time=0-00:20:00 --account=teach
#SBATCH --mail-type=FAIL --mail-user=student@example.edu --requeue
./homework
