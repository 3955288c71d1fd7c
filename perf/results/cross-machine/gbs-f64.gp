# Written by pspmv report; render with: gnuplot gbs-f64.gp
set terminal pngcairo size 1764,760 noenhanced font ",11"
if (!exists("out")) out = 'gbs-f64.png'
set output out
set title "SpMV bandwidth of pspmv's best plan, f64, per machine (higher is better)"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 nomirror
set key outside below center horizontal
set grid ytics
set ylabel "GB/s (log scale)"
set logscale y
set yrange [0.146506:211.565]
plot 'gbs-f64.dat' using 2:xtic(1) title columnheader(2) lc rgb "#0072B2", '' using 3 title columnheader(3) lc rgb "#E69F00", '' using 4 title columnheader(4) lc rgb "#009E73"
