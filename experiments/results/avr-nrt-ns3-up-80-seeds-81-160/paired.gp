# gnuplot paired.gp: paired.png from paired.dat (seed, LinuxReno AVR, tcp_av AVR)
set terminal pngcairo size 640,560 noenhanced
set output 'paired.png'
set title "802.11g uplink, 5 flows, NRT 80 %: 20 s AVR, a point a seed"
set xlabel 'LinuxReno as the target, AVR'
set ylabel 'tcp_av as the target, AVR'
set xrange [0:0.4]; set yrange [0:0.4]; set size square; set grid; set key left top
plot 'paired.dat' every ::0::79 using 2:3 with points pt 7 ps 0.8 title 'seeds 1-80', \
     'paired.dat' every ::80::159 using 2:3 with points pt 6 ps 0.8 title 'seeds 81-160', \
     x with lines dt 2 title 'equal'
