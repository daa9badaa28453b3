# fusion-quality.gp — how far greedy fusion is from the ILP: the cost model's
# objective of each greedy schedule divided by the best ILP schedule's of the region
# (over every ILP strategy, experiments/sweep.sh); filled points where that ILP
# schedule is proven optimal, open points where it is only the best found.
# gnuplot -e "out='results'" experiments/plots/fusion-quality.gp
if (!exists("out")) out = "results"
data = out."/fusion-quality.csv"
set datafile separator ","
set key top left box opaque font ",9"
set xlabel "kernel invocations per region (log scale)"
set ylabel "greedy objective / best ILP objective"
set grid lc rgb "#dddddd"
stats data using 1 nooutput
set xrange [STATS_min * 0.85 : STATS_max * 1.15]
set logscale x
set xtics (5, 10, 15, 20, 30, 40, 60, 80, 100, 150, 200, 300, 500)
set yrange [0.95:*]
set offsets 0, 0, graph 0.05, 0
set title "Greedy fusion against the best ILP schedule (same cost model; synthetic regions)"
sel(strat, proven) = (strcol(4) eq strat && (strcol(9) eq "optimal") == proven) ? $13 : 1/0
set terminal svg size 900,520 dynamic font "sans,11"
set output out."/fusion-quality.svg"
plot \
  data using ($1 * 0.97):(sel("greedy-down", 1)) with points pt 7 ps 0.7 lc rgb "#2ca02c" title "greedy-down (ILP proven optimal)", \
  data using ($1 * 0.97):(sel("greedy-down", 0)) with points pt 6 ps 0.7 lc rgb "#2ca02c" title "greedy-down (ILP not proven)", \
  data using ($1 * 1.03):(sel("greedy-up", 1)) with points pt 5 ps 0.6 lc rgb "#8c564b" title "greedy-up (ILP proven optimal)", \
  data using ($1 * 1.03):(sel("greedy-up", 0)) with points pt 4 ps 0.6 lc rgb "#8c564b" title "greedy-up (ILP not proven)", \
  1 with lines dt 2 lc rgb "#888888" title "as good as the ILP"
set terminal pngcairo size 900,520 font "sans,10"
set output out."/fusion-quality.png"
replot
