# A paper figure: a grid of panels (rows: metrics, columns: jams, or the
# columns of the definition, or one panel), each panel's data and settings
# written by scripts/tc-plot:
#   <data>-<k>.dat  one gnuplot data block per series: x y ylow yhigh
#   <data>-<k>.set  panel settings: ptitle, ylabel, logy, nblocks, bars,
#                   array titles[nblocks], line styles 101.. (dashed: reference),
#                   the x axis (pxlabel, plogx, lines, its range and ticks),
#                   reference lines (nrefs, refy[], reftitles[]), a y range
# Variables: term, out, width, height, data, npanels, nrows, ncols,
#            figtitle, subtitle, xlabel, logx, xfmt
load plotdir.'/common.gp'
set multiplot layout nrows,ncols title figtitle."\n{/*0.8 ".subtitle."}" font ',12'
do for [k=1:npanels] {
    unset label
    unset logscale
    set autoscale
    set xtics autofreq
    set ytics autofreq
    nblocks = 0; bars = 0; logy = 0; ptitle = ''; ylabel = ''; ymin = NaN
    pxlabel = xlabel; plogx = logx; lines = 1; pyfmt = '%g'
    nrefs = 0; array refy[1] = [NaN]; array reftitles[1] = [""]
    set key title '' font ',8'
    load sprintf('%s-%d.set', data, k)
    set title ptitle font ',10'
    set xlabel pxlabel
    set ylabel ylabel
    if (plogx > 0) { set logscale x plogx; set format x xfmt } else { set format x '%g' }
    if (logy > 0) { set logscale y logy; set format y pyfmt } else { set format y '%g' }
    if (nblocks == 0) {
        unset logscale
        set format x '%g'
        set xtics autofreq
        set label 1 'no data: skipped or not run on this platform' at graph 0.5,0.5 center
        plot [1:2][0:1] NaN notitle
    } else {
        f = sprintf('%s-%d.dat', data, k)
        if (bars && lines) {
            plot for [i=0:nblocks-1] f index i using 1:2:3:4 with yerrorlines ls (101+i) title titles[i+1], \
                 for [j=1:nrefs] refy[j] with lines ls 99 title reftitles[j]
        }
        if (bars && !lines) {
            plot for [i=0:nblocks-1] f index i using 1:2:3:4 with yerrorbars ls (101+i) title titles[i+1], \
                 for [j=1:nrefs] refy[j] with lines ls 99 title reftitles[j]
        }
        if (!bars && lines) {
            plot for [i=0:nblocks-1] f index i using 1:2 with linespoints ls (101+i) title titles[i+1], \
                 for [j=1:nrefs] refy[j] with lines ls 99 title reftitles[j]
        }
        if (!bars && !lines) {
            plot for [i=0:nblocks-1] f index i using 1:2 with points ls (101+i) title titles[i+1], \
                 for [j=1:nrefs] refy[j] with lines ls 99 title reftitles[j]
        }
    }
}
unset multiplot
