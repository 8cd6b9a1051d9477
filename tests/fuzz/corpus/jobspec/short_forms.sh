#!/bin/bash
#SBATCH -N2 -n8 -c4 -t60 -Aphysics -qdebug -Jshort-forms
#SBATCH -o%j.out -e%j.err
#SBATCH -G2 -Cskylake -x node7
./run
