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
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
if (what eq "time") {
  set ylabel "median seconds / unfused median seconds"
  set title "Run time of each fused schedule relative to unfused (C back end; 1 = as unfused)"
} else {
  set ylabel "kernel bytes allocated / unfused"
  set title "Bytes allocated by kernels, each fused schedule relative to unfused (C back end)"
}
set terminal svg size 900,520 dynamic font "sans,11"
set output out."/programs-".what.".svg"
plot data using 2:xtic(1) lc rgb "#2ca02c" title "greedy-down", \
     '' using 3 lc rgb "#8c564b" title "greedy-up", \
     '' using 4 lc rgb "#1f77b4" title "ilp (GLPK)", \
     '' using 5 lc rgb "#17becf" title "ilp (CBC)", \
     '' using 6 lc rgb "#d62728" title "ilp-cg", \
     1 with lines dt 2 lc rgb "#888888" notitle
set terminal pngcairo size 900,520 font "sans,10"
set output out."/programs-".what.".png"
replot
