# Common setup for every Two-Chains figure (loaded by figure.gp and dist.gp).
# Variables from tc-plot: term ('png' or 'svg'), out, width, height.
if (term eq 'svg') {
    set terminal svg size width,height dynamic enhanced font 'Helvetica,11' background rgb 'white'
} else {
    set terminal pngcairo size width,height enhanced font 'Helvetica,10' background rgb 'white'
}
set output out
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1, lc rgb '#eeeeee' lw 0.5
set border lw 1
set key top left font ',8' samplen 2.5 spacing 0.9 opaque box lc rgb '#cccccc'
set tics nomirror out scale 0.6
set border 3
set pointsize 0.7
set bars small
