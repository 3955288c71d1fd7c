# Written by pspmv compare; render with: gnuplot gbs-f64.gp
set terminal pngcairo size 1600,800 noenhanced font ",11"
if (!exists("out")) out = 'gbs-f64.png'
set output out
set title "SpMV bandwidth, f64 on OpenMP (minimum bytes / median time; higher is better)"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 nomirror
set key outside right top
set grid ytics
set ylabel "GB/s"
set yrange [0:*]
plot for [i=2:9] 'gbs-f64.dat' using i:xtic(1) title columnheader(i)
