set title 'eamc: 5000 jobs: around the EAMC PriorityInc rows and metasched'
set xlabel 'mean response time (h)'
set ylabel 'job energy (GJ)'
set grid
set key outside right center vertical Left reverse box opaque font ',9' spacing 1.1 samplen 1 width -2
set xrange [14.4680:17.7626]
set yrange [409.5529:436.8134]
set object 1 rect from graph 0, graph 0 to first 16.0847, first 421.6822 fc rgb '#d9f0d3' fs solid 1.0 noborder behind
set label 1 'eamc_priority_inc-1' at 17.2135,421.6822 right offset -0.8,0 font ',8' tc rgb '#d7191c' front
set label 2 'eamc_priority_inc-1.5' at 16.0847,432.2700 left offset 0.8,0 font ',8' tc rgb '#d7191c' front
set label 3 'eamc_priority_inc_v-1' at 17.2135,421.6822 center offset 0,0.9 font ',8' tc rgb '#7b3294' front
set label 4 'eamc_priority_inc_v-1.5' at 16.0847,432.2700 right offset -0.8,0 font ',8' tc rgb '#7b3294' front
set label 5 'metasched-w0.5' at 15.6725,414.0963 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 6 'metasched_window-w0.5' at 15.0171,415.7175 center offset 0,-0.9 font ',8' tc rgb '#0571b0' front
set label 7 'w0.4' at 15.3894,416.4017 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 8 'w0.6' at 16.2909,411.9030 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
plot 'pareto.dat' index 12 using 2:3 with linespoints pt 6 ps 1.2 lw 2 lc rgb '#92c5de' title 'metasched sweep (w_E at each point)', \
     'pareto.dat' index 6 using 2:3 with points pt 5 ps 2.7 lc rgb '#d7191c' title 'eamc_priority_inc-1', \
     'pareto.dat' index 7 using 2:3 with points pt 9 ps 2.7 lc rgb '#d7191c' title 'eamc_priority_inc-1.5', \
     'pareto.dat' index 8 using 2:3 with points pt 5 ps 1.8 lc rgb '#7b3294' title 'eamc_priority_inc_v-1', \
     'pareto.dat' index 9 using 2:3 with points pt 9 ps 1.8 lc rgb '#7b3294' title 'eamc_priority_inc_v-1.5', \
     'pareto.dat' index 10 using 2:3 with points pt 7 ps 1.8 lc rgb '#0571b0' title 'metasched-w0.5', \
     'pareto.dat' index 11 using 2:3 with points pt 13 ps 1.8 lc rgb '#0571b0' title 'metasched_window-w0.5', \
     keyentry with boxes fs solid 1.0 noborder fc rgb '#d9f0d3' title 'better on both than PriorityInc-V'
