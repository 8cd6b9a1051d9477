set multiplot title 'kth: 28467 jobs: utilization per partition (bold: moving average over 9 bins of 39.95 h)'
set yrange [0:105]
set ytics 0,25,100
set grid
set xrange [0:*]
set autoscale xfixmax
set lmargin at screen 0.08
set rmargin at screen 0.78
set tmargin at screen 0.9300
set bmargin at screen 0.6587
set ylabel 'batch (%)'
set format x ''
unset xlabel
set key outside right top vertical
plot 'utilization.dat' index 0 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     'utilization.dat' index 0 using 1:5 with lines lw 2.5 lc rgb '#0072b2' title 'min_runtime', \
     'utilization.dat' index 1 using 1:2 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     'utilization.dat' index 1 using 1:5 with lines lw 2.5 lc rgb '#d55e00' title 'metasched-w0.5'
set tmargin at screen 0.6467
set bmargin at screen 0.3753
set ylabel 'compute (%)'
set format x ''
unset xlabel
unset key
plot 'utilization.dat' index 0 using 1:3 with lines lw 1 lc rgb '#b00072b2' notitle, \
     'utilization.dat' index 0 using 1:6 with lines lw 2.5 lc rgb '#0072b2' title 'min_runtime', \
     'utilization.dat' index 1 using 1:3 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     'utilization.dat' index 1 using 1:6 with lines lw 2.5 lc rgb '#d55e00' title 'metasched-w0.5'
set tmargin at screen 0.3633
set bmargin at screen 0.0920
set ylabel 'short (%)'
set format x '%g'
set xlabel 'time since the first submit (days)'
unset key
plot 'utilization.dat' index 0 using 1:4 with lines lw 1 lc rgb '#b00072b2' notitle, \
     'utilization.dat' index 0 using 1:7 with lines lw 2.5 lc rgb '#0072b2' title 'min_runtime', \
     'utilization.dat' index 1 using 1:4 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     'utilization.dat' index 1 using 1:7 with lines lw 2.5 lc rgb '#d55e00' title 'metasched-w0.5'
unset multiplot
