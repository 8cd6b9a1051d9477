set title 'default: 2000 jobs'
set xlabel 'mean response time (h)'
set ylabel 'job energy (GJ)'
set grid
set key outside right center vertical Left reverse box opaque font ',9' spacing 1.1 samplen 1 width -2
set xrange [1.2039:2.7597]
set yrange [18.6799:22.3071]
set label 1 'w0' at 1.3112,20.8555 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 2 'w0.2' at 1.3234,19.9370 right offset -0.8,0 font ',8' tc rgb '#0571b0' front
set label 3 'w0.4' at 1.3378,19.6614 right offset -0.8,0 font ',8' tc rgb '#0571b0' front
set label 4 'w0.5' at 1.3431,19.5595 right offset -0.8,0 font ',8' tc rgb '#0571b0' front
set label 5 'w0.6' at 1.3484,19.4015 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 6 'w0.8' at 1.4089,19.1632 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 7 'w0.9' at 1.4514,18.9301 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 8 'w1' at 1.6496,19.1403 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
plot 'pareto.dat' index 0 using 2:3 with points pt 8 ps 1.8 lc rgb '#666666' title 'base: 6.22 h, 20.21 GJ, off the axis', \
     'pareto.dat' index 1 using 2:3 with points pt 4 ps 1.8 lc rgb '#666666' title 'min_runtime', \
     'pareto.dat' index 2 using 2:3 with points pt 10 ps 1.8 lc rgb '#666666' title 'min_energy', \
     'pareto.dat' index 3 using 2:3 with points pt 12 ps 1.8 lc rgb '#666666' title 'ear_min_energy-0.1', \
     'pareto.dat' index 4 using 2:3 with points pt 5 ps 1.8 lc rgb '#fdae61' title 'eamc_reorder-1', \
     'pareto.dat' index 5 using 2:3 with points pt 9 ps 1.8 lc rgb '#fdae61' title 'eamc_reorder-1.5', \
     'pareto.dat' index 6 using 2:3 with points pt 5 ps 2.7 lc rgb '#d7191c' title 'eamc_priority_inc-1', \
     'pareto.dat' index 7 using 2:3 with points pt 9 ps 2.7 lc rgb '#d7191c' title 'eamc_priority_inc-1.5', \
     'pareto.dat' index 8 using 2:3 with points pt 5 ps 1.8 lc rgb '#7b3294' title 'eamc_priority_inc_v-1', \
     'pareto.dat' index 9 using 2:3 with points pt 9 ps 1.8 lc rgb '#7b3294' title 'eamc_priority_inc_v-1.5', \
     'pareto.dat' index 10 using 2:3 with points pt 7 ps 1.8 lc rgb '#0571b0' title 'metasched-w0.5', \
     'pareto.dat' index 11 using 2:3 with points pt 13 ps 1.8 lc rgb '#0571b0' title 'metasched_window-w0.5', \
     'pareto.dat' index 12 using 2:3 with linespoints pt 6 ps 1.2 lw 2 lc rgb '#92c5de' title 'metasched sweep (w_E at each point)'
