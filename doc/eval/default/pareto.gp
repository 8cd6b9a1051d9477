set terminal pngcairo size 1000,650 noenhanced
set output 'pareto.png'
load 'pareto-plot.gp'
set terminal svg size 1000,650 noenhanced
set output 'pareto.svg'
load 'pareto-plot.gp'
