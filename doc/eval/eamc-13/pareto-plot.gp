set title 'eamc: 5000 jobs'
set xlabel 'mean response time (h)'
set ylabel 'job energy (GJ)'
set grid
set key outside right center vertical Left reverse box opaque font ',9' spacing 1.1 samplen 1 width -2
set xrange [10.7590:36.0140]
set yrange [398.2702:458.4569]
set label 1 'w0' at 12.5007,444.2628 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 2 'w0.2' at 13.7156,425.1976 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 3 'w0.4' at 15.3894,416.4017 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 4 'w0.5' at 15.6725,414.0963 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 5 'w0.6' at 16.2909,411.9030 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 6 'w0.8' at 18.4247,406.7642 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 7 'w0.9' at 20.1480,404.0894 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 8 'w1' at 22.1925,402.4210 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
plot 'pareto.dat' index 0 using 2:3 with points pt 8 ps 1.8 lc rgb '#666666' title 'base: 55.65 h, 429.49 GJ, off the axis', \
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
