# programs-objective.gp — the cost model's objective of each program x scheduler point
# against its measured median seconds (experiments/programs.sh: programs-objective.csv),
# log-log, one colour per program; rho = Spearman's rank correlation over all points
# (programs-summary.txt), passed with -e.
# gnuplot -e "out='results'; rho='0.5'" experiments/plots/programs-objective.gp
if (!exists("out")) out = "results"
if (!exists("rho")) rho = "?"
data = out."/programs-objective.csv"
set datafile separator ","
set key outside right font ",9"
set logscale xy
set grid lc rgb "#dddddd"
set xlabel "cost model objective (sum over the program's regions)"
set ylabel "median seconds (C back end)"
set title "Objective against measured time, all program x scheduler points (Spearman rho = ".rho.")"
# shq quotes the file for the shell, whatever characters the output folder's path holds
shq(s) = strstrt(s, "'") ? s[1:strstrt(s, "'") - 1]."'\\''".shq(s[strstrt(s, "'") + 1:]) : s
progs = system("awk -F, 'NR > 1 && !s[$1]++ { printf \"%s \", $1 }' '".shq(data)."'")
set terminal svg size 900,520 dynamic noenhanced font "sans,11"
set output out."/programs-objective.svg"
plot for [i = 1:words(progs)] data using (strcol(1) eq word(progs, i) ? $3 : 1/0):4 \
  with points pt (i <= 8 ? 7 : 5) lc i ps 0.8 title word(progs, i)
set terminal pngcairo noenhanced size 900,520 font "sans,10"
set output out."/programs-objective.png"
replot
