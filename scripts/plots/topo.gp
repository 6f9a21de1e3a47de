# The topology sweep's figures (scripts/tc-topo, experiment topo):
#   kind 'matrix':  data: sender receiver value; one cell per measured pair
#                   (blank: not measured), n PUs a side, values printed
#                   in the cells when labels is 1
#   kind 'classes': data: i "class" then 8 metrics, each median low high:
#                   jam_lat local, jam_lat injected, put_lat, floor_lat (ns),
#                   jam_rate local, jam_rate injected, put_rate, floor_rate
#                   (M msg/s); two panels, a point per class (no lines:
#                   categories), bars: the 95% interval
# Variables: term, out, width, height, kind, data, figtitle, subtitle,
#            n, labels, cblabel, nclass, c1..c4 (palette colours)
load plotdir.'/common.gp'
if (kind eq 'matrix') {
    set title figtitle."\n{/*0.8 ".subtitle."}" font ',11'
    set xlabel 'sender PU (client)'
    set ylabel 'receiver PU (server, runs the jam)'
    set xrange [-0.5:n-0.5]
    set yrange [-0.5:n-0.5]
    set size ratio -1
    set grid noxtics noytics nomxtics nomytics
    if (n <= 16) { set xtics 1; set ytics 1 }
    set palette defined (0 '#ffffcc', 1 '#fd8d3c', 2 '#800026')
    set cblabel cblabel
    set rmargin 12
    unset key
    if (labels) {
        plot data using 1:2:(0.5):(0.5):3 with boxxyerror fill solid 1.0 noborder lc palette z, \
             data using 1:2:(sprintf('%.0f', $3)) with labels font ',8'
    } else {
        plot data using 1:2:(0.5):(0.5):3 with boxxyerror fill solid 1.0 noborder lc palette z
    }
} else {
    set multiplot layout 2,1 title figtitle."\n{/*0.8 ".subtitle."}" font ',11'
    set xrange [-0.5:nclass-0.5]
    # a point on the border is hard to read: room above and below
    set offsets 0, 0, graph 0.08, graph 0.08
    set pointsize 1.2
    set xtics rotate by -15 font ',9'
    set key title 'median; bars: 95% interval' font ',8'
    set ylabel 'p50 one-way latency (ns)'
    set title 'latency by class of pair' font ',10'
    plot data using ($1-0.15):3:4:5:xtic(2) with yerrorbars pt 7 lc rgb c1 title 'jam, local', \
         data using ($1-0.05):6:7:8 with yerrorbars pt 5 lc rgb c2 title 'jam, injected', \
         data using ($1+0.05):9:10:11 with yerrorbars pt 9 lc rgb c3 title 'raw put (reference)', \
         data using ($1+0.15):12:13:14 with yerrorbars pt 11 lc rgb c4 title 'floor (reference)'
    set ylabel 'message rate (M msg/s)'
    set title 'message rate by class of pair' font ',10'
    plot data using ($1-0.15):15:16:17:xtic(2) with yerrorbars pt 7 lc rgb c1 title 'jam, local', \
         data using ($1-0.05):18:19:20 with yerrorbars pt 5 lc rgb c2 title 'jam, injected', \
         data using ($1+0.05):21:22:23 with yerrorbars pt 9 lc rgb c3 title 'raw put (reference)', \
         data using ($1+0.15):24:25:26 with yerrorbars pt 11 lc rgb c4 title 'floor (reference)'
    unset multiplot
}
