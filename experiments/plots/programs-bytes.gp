# programs-bytes.gp — bytes allocated by the kernels of each fused schedule relative to
# the unfused program (experiments/programs.sh: programs-bytes.csv); the same plot as
# programs-time.gp over another column.
# gnuplot -e "out='results'" experiments/plots/programs-bytes.gp
if (!exists("out")) out = "results"
what = "bytes"
load "experiments/plots/programs-time.gp"
