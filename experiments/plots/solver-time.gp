# solver-time.gp — paper Figure 7: ILP scheduling time against invocations per region.
# Top: the median solve time of each ILP strategy and solver (solver-summary.csv, made
# by experiments/sweep.sh), greedy for reference, the 1 s mark and the time limit;
# bottom: the fraction of regions each one proved optimal within the limit.
# gnuplot -e "out='results'; tl=10" experiments/plots/solver-time.gp
if (!exists("out")) out = "results"
if (!exists("tl")) tl = 10
data = out."/solver-summary.csv"
set datafile separator ","

array S[10] = ["ilp-glpk", "ilp-cbc", "ilp-mono-glpk", "ilp-mono-cbc", "ilp-lazy-glpk", "ilp-lazy-cbc", \
              "ilp-decomp-glpk", "ilp-decomp-cbc", "ilp-cg-glpk", "ilp-cg-cbc"]
array T[10] = ["ilp, GLPK", "ilp, CBC", "ilp-mono, GLPK", "ilp-mono, CBC", "ilp-lazy, GLPK", "ilp-lazy, CBC", \
              "ilp-decomp, GLPK", "ilp-decomp, CBC", "ilp-cg, GLPK", "ilp-cg, CBC"]
array C[10] = ["#1f77b4", "#1f77b4", "#9467bd", "#9467bd", "#ff7f0e", "#ff7f0e", "#d62728", "#d62728", "#2ca02c", "#2ca02c"]
# GLPK: solid lines, filled points; CBC: dashed lines, open points.
dash(i) = (i % 2) ? 1 : 2
ptype(i) = (i % 2) ? 7 : 6
# Strategies side by side at one size: a small multiplicative shift on the log x axis.
jit(i) = $1 * (1 + 0.012 * (i - 5.5))
# Medians below the CSV's microsecond resolution are drawn at 1 µs.
med(st) = (strcol(2) eq st) ? ($4 > 1e-6 ? $4 : 1e-6) : 1/0
# The proven fraction, lines offset by at most ±0.03 so equal ones stay visible.
frac(st, i) = (strcol(2) eq st && $3 > 0) ? $6 / $3 + 0.006 * (i - 5.5) : 1/0

# Both panels share the x range (the sizes measured, a little room either side) and
# the margins, so their x axes line up; the key sits in the right margin.
stats data using 1 nooutput
set xrange [STATS_min * 0.85 : STATS_max * 1.15]
set lmargin at screen 0.09
set rmargin at screen 0.77
set logscale x
set xtics (5, 10, 15, 20, 30, 40, 60, 80, 100, 150, 200, 300, 500)
set grid xtics ytics mytics lc rgb "#dddddd"

do for [term = 1:2] {
  if (term == 1) {
    set terminal svg size 900,820 dynamic font "sans,11"
    set output out."/solver-time.svg"
  } else {
    set terminal pngcairo size 900,820 font "sans,10"
    set output out."/solver-time.png"
  }
  set multiplot
  set size 1, 0.66
  set origin 0, 0.34
  set logscale y
  set format y "10^{%L}"
  set yrange [1e-6:*]
  set key at screen 0.99, screen 0.96 right top box opaque font ",9"
  set xlabel ""
  set ylabel "median solve time (s)"
  set title sprintf("Fusion scheduling time vs region size (synthetic regions, time limit %g s)", tl)
  plot for [i = 1:10] data using (jit(i)):(med(S[i])) with linespoints lw 1.5 dt dash(i) pt ptype(i) ps 0.7 \
         lc rgb C[i] title T[i], \
       data using 1:(med("greedy-down")) with linespoints lw 1 pt 1 ps 0.6 lc rgb "#2ca02c" title "greedy-down", \
       data using 1:(med("greedy-up")) with linespoints lw 1 pt 2 ps 0.6 lc rgb "#8c564b" title "greedy-up", \
       1 with lines dt 3 lw 1.5 lc rgb "#555555" title "1 s", \
       tl with lines dt 4 lw 1.5 lc rgb "#000000" title sprintf("limit %g s", tl)
  set size 1, 0.34
  set origin 0, 0
  unset logscale y
  set format y "%g"
  set yrange [-0.05:1.05]
  set ytics 0, 0.25, 1
  set xlabel "kernel invocations per region (log scale)"
  set ylabel "proven optimal"
  set title "Fraction of regions proven optimal within the limit (lines drawn up to 0.03 apart)"
  set key off
  plot for [i = 1:10] data using (jit(i)):(frac(S[i], i)) with linespoints lw 1.5 dt dash(i) pt ptype(i) \
         ps 0.7 lc rgb C[i] notitle
  unset multiplot
  unset output
  set ytics autofreq
  set yrange [*:*]
}
