# Written by pspmv report; render with: gnuplot speedup-f64.gp
set terminal pngcairo size 1476,760 noenhanced font ",11"
if (!exists("out")) out = 'speedup-f64.png'
set output out
set title "Speedup of each machine over H200 Xeon host, pspmv's best plan, f64 (> 1: faster; log scale)"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 nomirror
set key outside below center horizontal
set grid ytics
set ylabel "reference time / machine time"
set logscale y
set ytics ("0.02" 0.02, "0.05" 0.05, "0.1" 0.1, "0.2" 0.2, "0.5" 0.5, "1" 1, "2" 2)
set yrange [0.0122948:3.36762]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb "#333333" front
plot 'speedup-f64.dat' using 2:xtic(1) title columnheader(2) lc rgb "#0072B2", '' using 3 title columnheader(3) lc rgb "#009E73"
