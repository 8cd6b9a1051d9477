#!/bin/bash
#SBATCH --gres=gpu:v100:2
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=10
#SBATCH --mem-per-cpu=4000
#SBATCH --time=12:00:00
#SBATCH --constraint=v100-32g
python3 train.py
