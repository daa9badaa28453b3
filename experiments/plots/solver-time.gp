# solver-time.gp — paper Figure 7: ILP solve time against kernels per region, one
# series per solver and chain length, greedy strategies for reference.
# gnuplot -e "out='results'" experiments/plots/solver-time.gp
if (!exists("out")) out = "results"
data = out."/solver-time.csv"
set datafile separator ","
set key top left box opaque font ",9"
set logscale y
set format y "10^{%L}"
set xlabel "kernel invocations per region"
set ylabel "scheduler time (s)"
set grid ytics mytics xtics lc rgb "#dddddd"
set title "Fusion scheduling time vs region size (synthetic regions; points: regions)"
sel(strat, ch) = (strcol(4) eq strat && $2 == ch && $6 > 0) ? $6 : 1/0
gsel(strat) = (strcol(4) eq strat && $6 > 0) ? $6 : 1/0
jit(ch) = $1 + (ch == 2 ? -0.6 : ch == 4 ? 0 : 0.6)
set terminal svg size 900,560 dynamic font "sans,11"
set output out."/solver-time.svg"
plot \
  data using (jit(2)):(sel("ilp-glpk", 2)) with points pt 7 ps 0.6 lc rgb "#1f77b4" title "ilp, GLPK, chain 2", \
  data using (jit(4)):(sel("ilp-glpk", 4)) with points pt 9 ps 0.7 lc rgb "#4a98c9" title "ilp, GLPK, chain 4", \
  data using (jit(8)):(sel("ilp-glpk", 8)) with points pt 5 ps 0.6 lc rgb "#94c4df" title "ilp, GLPK, chain 8", \
  data using (jit(2)):(sel("ilp-cbc", 2)) with points pt 6 ps 0.7 lc rgb "#d62728" title "ilp, CBC, chain 2", \
  data using (jit(4)):(sel("ilp-cbc", 4)) with points pt 8 ps 0.8 lc rgb "#e3595a" title "ilp, CBC, chain 4", \
  data using (jit(8)):(sel("ilp-cbc", 8)) with points pt 4 ps 0.7 lc rgb "#f0a0a0" title "ilp, CBC, chain 8", \
  data using 1:(gsel("ilp-lazy-glpk")) with points pt 13 ps 0.8 lc rgb "#9467bd" title "ilp-lazy, GLPK", \
  data using 1:(gsel("ilp-lazy-cbc")) with points pt 12 ps 0.8 lc rgb "#ff7f0e" title "ilp-lazy, CBC", \
  data using 1:(gsel("greedy-down")) with points pt 1 ps 0.6 lc rgb "#2ca02c" title "greedy-down", \
  data using 1:(gsel("greedy-up")) with points pt 2 ps 0.6 lc rgb "#8c564b" title "greedy-up", \
  1 with lines dt 2 lc rgb "#888888" title "1 s"
set terminal pngcairo size 900,560 font "sans,10"
set output out."/solver-time.png"
replot
