# Written by pspmv compare; render with: gnuplot floor-f64.gp
set terminal pngcairo size 1600,800 noenhanced font ",11"
if (!exists("out")) out = 'floor-f64.png'
set output out
set title "Time over the bandwidth floor, f64 on OpenMP (1 = at the floor; lower is better)"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 nomirror
set key outside right top
set grid ytics
set ylabel "median time / floor time"
set yrange [0:*]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2
plot for [i=2:8] 'floor-f64.dat' using i:xtic(1) title columnheader(i)
