# gnuplot steady.gp: steady.png from steady-paired.dat (seed, LinuxReno, tcp_av)
set terminal pngcairo size 640,560 noenhanced
set output 'steady.png'
set title "802.11g uplink, 5 flows, NRT 80 %: rate in [10 s, 30 s), one point a seed"
set xlabel 'LinuxReno as the target, Mbit/s'
set ylabel 'tcp_av as the target, Mbit/s'
set xrange [0:8]; set yrange [0:8]; set size square; set grid
plot 'steady-paired.dat' using 2:3 with points pt 7 ps 0.8 title 'seed', x with lines dt 2 title 'equal'
