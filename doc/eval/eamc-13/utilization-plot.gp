set title 'eamc: 5000 jobs'
set xlabel 'time since the first submit (days)'
set ylabel 'utilization (%)'
set yrange [0:105]
set grid
set key outside right top
plot 'utilization.dat' index 0 using 1:2 with lines lw 1.5 dt 1 title 'min_runtime p1', \
     'utilization.dat' index 0 using 1:3 with lines lw 1.5 dt 1 title 'min_runtime p2', \
     'utilization.dat' index 1 using 1:2 with lines lw 1.5 dt 2 title 'metasched-w0.5 p1', \
     'utilization.dat' index 1 using 1:3 with lines lw 1.5 dt 2 title 'metasched-w0.5 p2'
