# gnuplot paired.gp: paired.png from paired-60.dat and paired-80.dat
# (seed, LinuxReno AVR, tcp_av AVR)
set terminal pngcairo size 1100,560 noenhanced
set output 'paired.png'
set multiplot layout 1,2 title "802.11g uplink, 5 flows: 20 s AVR, a point a seed (1-80 filled, 81-160 open)"
set xlabel 'LinuxReno as the target, AVR'
set ylabel 'tcp_av as the target, AVR'
set size square; set grid; set key left top
set title 'NRT 60 %'
set xrange [0:0.6]; set yrange [0:0.6]
plot 'paired-60.dat' every ::0::79 using 2:3 with points pt 7 ps 0.7 title 'seeds 1-80', \
     'paired-60.dat' every ::80::159 using 2:3 with points pt 6 ps 0.7 title 'seeds 81-160', \
     x with lines dt 2 title 'equal'
set title 'NRT 80 %'
set xrange [0:0.4]; set yrange [0:0.4]
plot 'paired-80.dat' every ::0::79 using 2:3 with points pt 7 ps 0.7 title 'seeds 1-80', \
     'paired-80.dat' every ::80::159 using 2:3 with points pt 6 ps 0.7 title 'seeds 81-160', \
     x with lines dt 2 title 'equal'
unset multiplot
