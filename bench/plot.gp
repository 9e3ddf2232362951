# bench/plot.gp: seconds per stage against thunks, log-log, one panel per profile.
# bench/run calls
#   gnuplot -e "datafiles='build/bench/time-per-size-synthetic.dat ...'; titles='synthetic ...'; outfile='bench/time-per-size.png'; ncols=N; nthunky=T" bench/plot.gp
# Each data file (one profile, its panel titled by the word of titles in the
# same place) has a header line (thunks, then one name per stage) and one
# row per size; "?" marks a stage that failed or was not run. Columns 2 to
# T+1 are thunky's stages, the rest (to column N) baselines, drawn dashed.
if (!exists("datafiles")) datafiles = "build/bench/time-per-size-synthetic.dat"
if (!exists("titles")) titles = "synthetic"
if (!exists("outfile")) outfile = "bench/time-per-size.png"
if (!exists("ncols")) ncols = 2
npanels = words(datafiles)

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1100,700*npanels enhanced font "DejaVu Sans,10"
} else {
  set terminal png size 1100,700*npanels
}
set output outfile

set datafile missing "?"
set key autotitle columnhead
set key outside right top noenhanced
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "thunks"
set ylabel "seconds (median wall time, process start included)"
set grid xtics ytics mxtics mytics
set mxtics 10
set mytics 10

# The first nthunky stages are thunky's, drawn solid; the baselines after
# them dashed.
if (!exists("nthunky")) nthunky = ncols - 1

array solid[12] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", \
                   "#e377c2", "#17becf", "#bcbd22", "#000000", "#7f7f7f", "#393b79"]
array dashed[6] = ["#555555", "#999999", "#b07aa1", "#59a14f", "#4e79a7", "#f28e2b"]

set multiplot layout npanels,1
do for [k=1:npanels] {
  datafile = word(datafiles, k)
  set title sprintf("thunky: time per stage against executable size, %s profile", word(titles, k)) noenhanced
  plot for [i=2:nthunky+1] datafile using 1:i with linespoints linewidth 2 pointsize 0.8 \
         linecolor rgb solid[(i - 2) % 12 + 1] pointtype (i - 2) % 12 + 1, \
       for [i=nthunky+2:ncols] datafile using 1:i with linespoints dashtype 2 linewidth 1.5 \
         pointsize 0.8 linecolor rgb dashed[(i - nthunky - 2) % 6 + 1] pointtype (i - nthunky - 2) % 6 + 4
}
unset multiplot
