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
# The key sits outside the plot, right of it (it covers no data), in a right
# margin tc-plot sizes for the figure's longest title (keymargin, characters):
# the same for every panel, so the panels of a column line up. A panel with
# error bars says in its key's title what they span (set in its .set file).
set key outside right top vertical font ',8' samplen 2.5 spacing 0.9 box lc rgb '#cccccc'
if (!exists('keymargin')) { keymargin = 0 }
if (keymargin > 0) { set rmargin keymargin }
set tics nomirror out scale 0.6
# one left margin (characters) for every panel: the panels of a column align
# whatever their tick labels' widths
set lmargin 12
set border 3
set pointsize 0.7
set bars small
# a bound the paper gives, drawn across a panel (a .set's refy[])
set style line 99 lc rgb '#444444' dt 3 lw 1.2
