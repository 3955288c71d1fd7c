# Written by pspmv report; render with: gnuplot floor-f64.gp
set terminal pngcairo size 1764,760 noenhanced font ",11"
if (!exists("out")) out = 'floor-f64.png'
set output out
set title "Fraction of each machine's own bandwidth floor reached by pspmv, f64 (1 = at the floor)"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 nomirror
set key outside below center horizontal
set grid ytics
set ylabel "floor time / pspmv time"
set yrange [0:30.5112]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb "#333333" front
plot 'floor-f64.dat' using 2:xtic(1) title columnheader(2) lc rgb "#0072B2", '' using 3 title columnheader(3) lc rgb "#E69F00", '' using 4 title columnheader(4) lc rgb "#009E73"
