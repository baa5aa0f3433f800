# gnuplot profile.gp: profile.png from profile.dat (until_s, tcp_av MB,
# LinuxReno MB, paired difference MB, its standard error, seeds)
set terminal pngcairo size 720,720 noenhanced
set output 'profile.png'
set multiplot layout 2,1 title "802.11g uplink, 5 flows, NRT 80 %, seeds 1-40: what the target's receiver read by time t"
set xrange [0:22]; set grid; set key left top
set ylabel 'received, MB (mean of 40 seeds)'
plot 'profile.dat' using 1:2 with linespoints pt 7 title 'tcp_av', \
     'profile.dat' using 1:3 with linespoints pt 5 title 'LinuxReno'
set xlabel 't, s (the sources stop 1 s before it)'
set ylabel 'tcp_av - LinuxReno, MB (paired, +- 1 SE)'
set yrange [-1.6:0.4]
plot 'profile.dat' using 1:4:5 with yerrorlines pt 7 title 'paired difference', 0 with lines dt 2 notitle
unset multiplot
