# fusion-quality.gp — how far greedy fusion is from the ILP optimum: the cost
# model's objective of each greedy schedule divided by the ILP's, per region.
# gnuplot -e "out='results'" experiments/plots/fusion-quality.gp
if (!exists("out")) out = "results"
data = out."/fusion-quality.csv"
set datafile separator ","
set key top left box opaque font ",9"
set xlabel "kernel invocations per region"
set ylabel "greedy objective / best ILP objective"
set grid lc rgb "#dddddd"
set yrange [0.95:*]
set offsets 0, 0, graph 0.05, 0
set title "Greedy fusion against the best ILP schedule (same cost model; synthetic regions)"
sel(strat) = (strcol(4) eq strat) ? $13 : 1/0
set terminal svg size 900,520 dynamic font "sans,11"
set output out."/fusion-quality.svg"
plot \
  data using ($1 - 0.4):(sel("greedy-down")) with points pt 7 ps 0.7 lc rgb "#2ca02c" title "greedy-down", \
  data using ($1 + 0.4):(sel("greedy-up")) with points pt 5 ps 0.6 lc rgb "#8c564b" title "greedy-up", \
  1 with lines dt 2 lc rgb "#888888" title "optimal"
set terminal pngcairo size 900,520 font "sans,10"
set output out."/fusion-quality.png"
replot
