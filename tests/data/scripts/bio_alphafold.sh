#!/bin/bash
#SBATCH --job-name=alphafold
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --mem=85g
#SBATCH --time=10:00:00
#SBATCH --constraint="a100|h100"
#SBATCH --tmp=500G
run_alphafold.sh --fasta_paths=query.fasta
