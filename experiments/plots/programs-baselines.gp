# programs-baselines.gp — compiled Nessie against the hand-written C + OpenMP baselines
# (experiments/programs.sh: programs-baselines.csv): median seconds of Nessie unfused and
# of its best fused schedule, each divided by the baseline's, log scale (1 = as fast as
# hand-written). Both sides time the same computation, inputs built outside the timed
# part (bench_timed's time(...), the baselines' own timer; experiments/README.md).
# gnuplot -e "out='results'" experiments/plots/programs-baselines.gp
if (!exists("out")) out = "results"
data = out."/programs-baselines.csv"
set datafile separator ","
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left box opaque font ",9"
set grid ytics lc rgb "#dddddd"
set xtics rotate by -30 font ",9" nomirror
set logscale y
set ylabel "Nessie median seconds / hand-written C median seconds"
set title "Compiled Nessie (C back end) against hand-written C + OpenMP"
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#666666"
set terminal svg size 900,520 dynamic noenhanced font "sans,11"
set output out."/programs-baselines.svg"
stats data skip 1 using 0 nooutput
set xrange [-0.6 : STATS_records - 0.4]
plot data skip 1 using 7:xtic(1) lc rgb "#7f7f7f" title "Nessie unfused", \
     data skip 1 using 8 lc rgb "#d62728" title "Nessie, best fused schedule"
set terminal pngcairo noenhanced size 900,520 font "sans,10"
set output out."/programs-baselines.png"
replot
