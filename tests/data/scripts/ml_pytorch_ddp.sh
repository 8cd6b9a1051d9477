#!/bin/bash
#SBATCH --job-name=resnet50-ddp
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=a100:4
#SBATCH --cpus-per-task=8
#SBATCH --mem=0
#SBATCH --time=2-00:00:00
#SBATCH --account=ml-lab
#SBATCH --qos=gpu_long
#SBATCH --output=logs/%x-%j.out
#SBATCH --error=logs/%x-%j.err
#SBATCH --mail-type=END,FAIL
#SBATCH --mail-user=alice@example.org

module load cuda/12.2 python/3.11
srun python train.py --epochs 90
