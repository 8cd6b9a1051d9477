#!/bin/bash
#SBATCH -J bert-finetune
#SBATCH -G1
#SBATCH -c 8
#SBATCH --mem=32G
#SBATCH -t 08:00:00
#SBATCH -A nlp
#SBATCH -o %x_%j.log
python finetune.py
