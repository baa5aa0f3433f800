# gnuplot profile.gp: profile.png from profile.dat (until_s, tcp_av MB,
# LinuxReno MB, the target's paired difference MB and its standard error,
# seeds, the competitors' together and its SE, all five flows' and its SE)
set terminal pngcairo size 720,720 noenhanced
set output 'profile.png'
set multiplot layout 2,1 title "802.11g uplink, 5 flows, NRT 80 %, seeds 1-40: received by time t"
set xrange [0:22]; set grid; set key left top
set ylabel "the target's receiver, MB (mean)"
plot 'profile.dat' using 1:2 with linespoints pt 7 title 'tcp_av as the target', \
     'profile.dat' using 1:3 with linespoints pt 5 title 'LinuxReno as the target'
set xlabel 't, s (the sources stop 1 s before it)'
set ylabel 'tcp_av run - LinuxReno run, MB (+- 1 SE)'
set yrange [-1.6:1.6]; set key right top
plot 'profile.dat' using 1:4:5 with yerrorlines pt 7 title 'the target', \
     'profile.dat' using 1:7:8 with yerrorlines pt 5 title 'the 4 competitors together', \
     'profile.dat' using 1:9:10 with yerrorlines pt 9 title 'all 5 flows', \
     0 with lines dt 2 notitle
unset multiplot
