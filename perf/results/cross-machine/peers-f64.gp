# Written by pspmv report; render with: gnuplot peers-f64.gp
set terminal pngcairo size 1764,760 noenhanced font ",11"
if (!exists("out")) out = 'peers-f64.png'
set output out
set title "pspmv's best plan over the best peer on each machine, f64 (> 1: pspmv faster; log scale)"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 nomirror
set key outside below center horizontal
set grid ytics
set ylabel "best peer time / pspmv time"
set logscale y
set ytics ("1" 1, "2" 2)
set yrange [0.512962:3.54905]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb "#333333" front
plot 'peers-f64.dat' using 2:xtic(1) title columnheader(2) lc rgb "#0072B2", '' using 3 title columnheader(3) lc rgb "#E69F00", '' using 4 title columnheader(4) lc rgb "#009E73"
