# Written by pspmv compare; render with: gnuplot breakeven-f64.gp
set terminal pngcairo size 1600,800 noenhanced font ",11"
if (!exists("out")) out = 'breakeven-f64.png'
set output out
set title "Calls after which a plan repays its analysis, f64 on OpenMP (no bar: repaid at once, or never)"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 nomirror
set key outside right top
set grid ytics
set ylabel "break-even calls (log scale)"
set yrange [0.5:*]
set logscale y
plot for [i=2:4] 'breakeven-f64.dat' using i:xtic(1) title columnheader(i)
