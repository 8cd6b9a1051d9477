set terminal pngcairo size 1000,650 noenhanced
set output 'utilization.png'
load 'utilization-plot.gp'
set terminal svg size 1000,650 noenhanced
set output 'utilization.svg'
load 'utilization-plot.gp'
