set title 'kth: 28467 jobs'
set xlabel 'mean response time (h)'
set ylabel 'job energy (GJ)'
set grid
set key outside right top
plot 'pareto.dat' index 0 using 2:3:1 with labels left offset 0.6,0.3 font ',8' notitle, \
     '' index 0 using 2:3 with points pt 7 ps 1.3 title 'policies', \
     '' index 1 using 2:3 with linespoints pt 6 lw 2 title 'metasched, energy weight sweep'
