# greedy-scale.gp — how the greedy strategies' time grows with the region: solve
# seconds against kernel invocations, log-log, one region per size and generator
# family (experiments/sweep.sh, greedy-scale.csv), with lines of slope 1 and 2 for
# reference (linear and quadratic growth).
# gnuplot -e "out='results'" experiments/plots/greedy-scale.gp
if (!exists("out")) out = "results"
data = out."/greedy-scale.csv"
set datafile separator ","
set key top left box opaque font ",9"
set xlabel "kernel invocations per region (log scale)"
set ylabel "greedy solve seconds (log scale)"
set grid lc rgb "#dddddd"
set logscale xy
stats data using 2 nooutput
xmin = STATS_min
xmax = STATS_max
stats data using 4 nooutput
ymin = STATS_min > 0 ? STATS_min : 1e-6
ymax = STATS_max
set xrange [xmin * 0.8 : xmax * 1.25]
set yrange [ymin * 0.5 : ymax * 2]
set format y "%g"
set xtics (50, 100, 300, 1000, 3000, 10000, 30000)
set title "Greedy fusion time against region size (synthetic regions, one per size and family)"
# one series: its rows alone, so that linespoints joins them (an undefined value
# between two rows would break the line); shq quotes the file for the shell, whatever
# characters the output folder's path holds
shq(s) = strstrt(s, "'") ? s[1:strstrt(s, "'") - 1]."'\\''".shq(s[strstrt(s, "'") + 1:]) : s
rows(fam, strat) = sprintf("< awk -F, '$1 == \"%s\" && $3 == \"%s\"' '%s'", fam, strat, shq(data))
# reference lines from twice the fastest time at the smallest size
t0 = ymin * 2
lin(x) = t0 * (x / xmin)
quad(x) = t0 * (x / xmin) ** 2
fams = "random chain siblings diamond trap"
cols = "#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e"
set terminal svg size 900,560 dynamic font "sans,11"
set output out."/greedy-scale.svg"
plot \
  for [q = 1:5] rows(word(fams, q), "greedy-down") using 2:4 with linespoints pt 7 ps 0.7 lw 1.5 \
    lc rgb word(cols, q) title word(fams, q)." greedy-down", \
  for [q = 1:5] rows(word(fams, q), "greedy-up") using 2:4 with linespoints pt 6 ps 0.7 lw 1.5 dt 2 \
    lc rgb word(cols, q) title word(fams, q)." greedy-up", \
  lin(x) with lines dt 3 lc rgb "#888888" title "slope 1 (linear)", \
  quad(x) with lines dt 4 lc rgb "#bbbbbb" title "slope 2 (quadratic)"
set terminal pngcairo size 900,560 font "sans,10"
set output out."/greedy-scale.png"
replot
