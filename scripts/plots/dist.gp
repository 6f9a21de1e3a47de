# Latency distribution of one sweep point (Figs. 11-12): latency against
# 1/(1-p) on a log axis, one panel per payload, one line per series.
# Same files and variables as figure.gp; x is 1/(1-p) computed by tc-plot.
load plotdir.'/common.gp'
set multiplot layout nrows,ncols title figtitle."\n{/*0.8 ".subtitle."}" font ',12'
do for [k=1:npanels] {
    unset label
    set ytics autofreq
    set autoscale
    nblocks = 0; bars = 0; logy = 10; ptitle = ''; ylabel = ''; pyfmt = '%g'
    # tc-plot's .set bounds x by the sample count: with n samples the highest
    # percentile they resolve is 1 - 1/n (x = n); it also sets the ticks up to it
    set xtics ('50' 2, '90' 10, '99' 100, '99.9' 1000, '99.99' 1e4, '99.999' 1e5, '99.9999' 1e6)
    set key title '' font ',8'
    load sprintf('%s-%d.set', data, k)
    set title ptitle font ',10'
    set xlabel xlabel
    set ylabel ylabel
    set logscale x 10
    set logscale y 10
    set format y pyfmt
    if (nblocks == 0) {
        unset logscale
        set format x '%g'
        set label 1 'no distribution' at graph 0.5,0.5 center
        plot [1:10][1:10] NaN notitle
    } else {
        f = sprintf('%s-%d.dat', data, k)
        plot for [i=0:nblocks-1] f index i using 1:2 with lines ls (101+i) title titles[i+1]
    }
}
unset multiplot
