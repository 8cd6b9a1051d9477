set title 'kth: 28467 jobs'
set xlabel 'time since the first submit (days)'
set ylabel 'utilization (%)'
set yrange [0:105]
set grid
set key outside right top
plot 'utilization.dat' index 0 using 1:2 with lines lw 1.5 dt 1 title 'min_runtime batch', \
     'utilization.dat' index 0 using 1:3 with lines lw 1.5 dt 1 title 'min_runtime compute', \
     'utilization.dat' index 0 using 1:4 with lines lw 1.5 dt 1 title 'min_runtime short', \
     'utilization.dat' index 1 using 1:2 with lines lw 1.5 dt 2 title 'metasched-w0.5 batch', \
     'utilization.dat' index 1 using 1:3 with lines lw 1.5 dt 2 title 'metasched-w0.5 compute', \
     'utilization.dat' index 1 using 1:4 with lines lw 1.5 dt 2 title 'metasched-w0.5 short'
