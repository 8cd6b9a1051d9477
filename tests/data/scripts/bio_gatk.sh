#!/bin/bash
#SBATCH -J gatk_hc
#SBATCH -c 4
#SBATCH --mem-per-cpu=8G
#SBATCH -t 2-00:00
#SBATCH -o gatk_%j.out
#SBATCH -e gatk_%j.err
#SBATCH --export=NONE,JAVA_OPTS=-Xmx30g
gatk HaplotypeCaller -R ref.fa -I in.bam -O out.vcf
