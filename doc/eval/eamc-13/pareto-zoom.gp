set terminal pngcairo size 1000,650 noenhanced
set output 'pareto-zoom.png'
load 'pareto-zoom-plot.gp'
set terminal svg size 1000,650 noenhanced
set output 'pareto-zoom.svg'
load 'pareto-zoom-plot.gp'
