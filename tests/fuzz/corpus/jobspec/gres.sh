#!/bin/bash
#SBATCH --gres=gpu:a100:1,nvme:1
#SBATCH --gres-flags=enforce-binding
#SBATCH --mem=64gb
#SBATCH --tmp=200G
#SBATCH --time=30
#SBATCH --job-name="llm inference"
python serve.py
