# programs-time.gp — each fused scheduler's median run time on each NESL benchmark
# program, relative to the unfused program (--scheduler=none) of the same run
# (experiments/programs.sh: programs-time.csv; below 1 = faster than unfused).
# gnuplot -e "out='results'" experiments/plots/programs-time.gp
if (!exists("out")) out = "results"
if (!exists("what")) what = "time"
data = out."/programs-".what.".csv"
set datafile separator ","
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top right box opaque font ",9"
set grid ytics lc rgb "#dddddd"
set xtics rotate by -30 font ",9" nomirror
set yrange [0:1.1<*]
set offsets 0, 0, graph 0.05, 0
if (what eq "time") {
  set ylabel "median seconds / unfused median seconds"
  set title "Run time of each fused schedule relative to unfused (C back end; 1 = as unfused)"
} else {
  set ylabel "kernel bytes allocated / unfused"
  set title "Bytes allocated by kernels, each fused schedule relative to unfused (C back end)"
}
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#666666"
set terminal svg size 900,520 dynamic noenhanced font "sans,11"
set output out."/programs-".what.".svg"
stats data skip 1 using 0 nooutput
set xrange [-0.6 : STATS_records - 0.4]
plot data skip 1 using 2:xtic(1) lc rgb "#2ca02c" title "greedy-down", \
     data skip 1 using 3 lc rgb "#8c564b" title "greedy-up", \
     data skip 1 using 4 lc rgb "#1f77b4" title "ilp (GLPK)", \
     data skip 1 using 5 lc rgb "#17becf" title "ilp (CBC)", \
     data skip 1 using 6 lc rgb "#d62728" title "ilp-cg"
set terminal pngcairo noenhanced size 900,520 font "sans,10"
set output out."/programs-".what.".png"
replot
