# A paper figure: a grid of panels (rows: metrics, columns: jams or one panel),
# each panel's data and settings written by scripts/tc-plot:
#   <data>-<k>.dat  one gnuplot data block per series: x y ylow yhigh
#   <data>-<k>.set  panel settings: ptitle, ylabel, logy, nblocks, bars,
#                   array titles[nblocks], line styles 101.. (dashed: reference)
# Variables: term, out, width, height, data, npanels, nrows, ncols,
#            figtitle, subtitle, xlabel, logx, xfmt
load plotdir.'/common.gp'
set multiplot layout nrows,ncols title figtitle."\n{/*0.8 ".subtitle."}" font ',12'
do for [k=1:npanels] {
    unset label
    unset logscale
    set autoscale
    nblocks = 0; bars = 0; logy = 0; ptitle = ''; ylabel = ''; ymin = NaN
    set key title '' font ',8'
    load sprintf('%s-%d.set', data, k)
    set title ptitle font ',10'
    set xlabel xlabel
    set ylabel ylabel
    if (logx > 0) { set logscale x logx; set format x xfmt } else { set format x '%g' }
    if (logy > 0) { set logscale y logy; set format y '%g' } else { set format y '%g' }
    if (nblocks == 0) {
        unset logscale
        set format x '%g'
        set label 1 'no data: skipped or not run on this platform' at graph 0.5,0.5 center
        plot [1:2][0:1] NaN notitle
    } else {
        f = sprintf('%s-%d.dat', data, k)
        if (bars) {
            plot for [i=0:nblocks-1] f index i using 1:2:3:4 with yerrorlines ls (101+i) title titles[i+1]
        } else {
            plot for [i=0:nblocks-1] f index i using 1:2 with linespoints ls (101+i) title titles[i+1]
        }
    }
}
unset multiplot
