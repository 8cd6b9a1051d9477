set title 'curie: 29998 jobs: around the EAMC PriorityInc rows and metasched'
set xlabel 'mean response time (h)'
set ylabel 'job energy (GJ)'
set grid
set key outside right center vertical Left reverse box opaque font ',9' spacing 1.1 samplen 1 width -2
set xrange [1.9638:2.0188]
set yrange [2556.8356:2641.1494]
set object 1 rect from graph 0, graph 0 to first 1.9756, first 2590.3921 fc rgb '#d9f0d3' fs solid 1.0 noborder behind
set label 1 'eamc_reorder-1' at 2.0092,2587.0057 left offset 0.8,0 font ',8' tc rgb '#fdae61' front
set label 2 'eamc_reorder-1.5' at 1.9770,2628.0191 left offset 0.8,0 font ',8' tc rgb '#fdae61' front
set label 3 'eamc_priority_inc-1' at 2.0088,2589.5030 right offset -0.8,0 font ',8' tc rgb '#d7191c' front
set label 4 'eamc_priority_inc-1.5' at 1.9756,2627.0971 center offset 0,-0.9 font ',8' tc rgb '#d7191c' front
set label 5 'eamc_priority_inc_v-1' at 2.0086,2590.3921 center offset 0,0.9 font ',8' tc rgb '#7b3294' front
set label 6 'eamc_priority_inc_v-1.5' at 1.9756,2627.0532 center offset 0,0.9 font ',8' tc rgb '#7b3294' front
set label 7 'metasched-w0.5' at 1.9738,2573.5899 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 8 'metasched_window-w0.5' at 1.9854,2570.8879 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 9 'w0.2' at 1.9689,2631.0947 right offset -0.8,0 font ',8' tc rgb '#0571b0' front
set label 10 'w0.4' at 1.9707,2585.5091 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
set label 11 'w0.6' at 1.9789,2560.8952 left offset 0.8,0 font ',8' tc rgb '#0571b0' front
plot 'pareto.dat' index 12 using 2:3 with linespoints pt 6 ps 1.2 lw 2 lc rgb '#92c5de' title 'metasched sweep (w_E at each point)', \
     'pareto.dat' index 4 using 2:3 with points pt 5 ps 1.8 lc rgb '#fdae61' title 'eamc_reorder-1', \
     'pareto.dat' index 5 using 2:3 with points pt 9 ps 1.8 lc rgb '#fdae61' title 'eamc_reorder-1.5', \
     'pareto.dat' index 6 using 2:3 with points pt 5 ps 2.7 lc rgb '#d7191c' title 'eamc_priority_inc-1', \
     'pareto.dat' index 7 using 2:3 with points pt 9 ps 2.7 lc rgb '#d7191c' title 'eamc_priority_inc-1.5', \
     'pareto.dat' index 8 using 2:3 with points pt 5 ps 1.8 lc rgb '#7b3294' title 'eamc_priority_inc_v-1', \
     'pareto.dat' index 9 using 2:3 with points pt 9 ps 1.8 lc rgb '#7b3294' title 'eamc_priority_inc_v-1.5', \
     'pareto.dat' index 10 using 2:3 with points pt 7 ps 1.8 lc rgb '#0571b0' title 'metasched-w0.5', \
     'pareto.dat' index 11 using 2:3 with points pt 13 ps 1.8 lc rgb '#0571b0' title 'metasched_window-w0.5', \
     keyentry with boxes fs solid 1.0 noborder fc rgb '#d9f0d3' title 'better on both than PriorityInc-V'
