/* plot.h - the simulator's plots, rendered by gnuplot to PNG and SVG
 * (doc/architecture.md "Simulator"): energy against mean response for every
 * policy and the energy-weight sweep (the Pareto front), and utilization over
 * time.
 *
 * The data files and the gnuplot scripts are written first, so a user can
 * edit and re-render them; gnuplot runs without a shell. When gnuplot is
 * missing, the functions say so (return 1) and never fail the run.
 */
#ifndef MS_PLOT_H
#define MS_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "metasched/common/error.h"
#include "metasched/sim/metrics.h"

/* Energy (job energy, GJ) against mean response (h): one point per row of
 * pols, and a line through the sweep rows. Writes DIR/pareto.dat,
 * DIR/pareto.gp and renders DIR/pareto.png and DIR/pareto.svg. Returns 0,
 * 1 when gnuplot was not found (files written, no images), -1 on error. */
int plot_pareto (const char *dir, const char *title, const ms_summary_t *pols,
                 size_t npols, const ms_summary_t *sweep, size_t nsweep,
                 ms_error_t *errp);

/* Utilization over time: series[k] is nbins * nparts values (bin-major)
 * for the run labelled labels[k]; one panel per partition, each with a
 * faint raw line and a bold moving average per run. */
int plot_utilization (const char *dir, const char *title,
                      const ms_siteconf_t *conf, const char *const *labels,
                      const double *const *series, size_t nruns, size_t nbins,
                      double t0, const double *binw, ms_error_t *errp);

/* Render a plot whose commands are in DIR/plot_file (data files beside it)
 * to DIR/BASE.png and DIR/BASE.svg: writes DIR/BASE.gp, which sets each
 * terminal and loads plot_file, and runs gnuplot on it (no shell). Returns
 * 0, 1 when gnuplot was not found (files written, no images), -1 on error.
 * Other parts (metasched report) draw their own plots with it. */
/* Create (truncate) dir/name for writing; NULL with errp naming the path. */
FILE *plot_file_open (const char *dir, const char *name, ms_error_t *errp);
/* Close a file of plot_file_open, reporting a failed write. */
int plot_file_close (FILE *f, const char *dir, const char *name,
                     ms_error_t *errp);

int plot_render (const char *dir, const char *base, const char *plot_file,
                 ms_error_t *errp);

/* Where a point's label goes: to its right, left, above or below. */
typedef enum {
    PLOT_LABEL_RIGHT = 0,
    PLOT_LABEL_LEFT,
    PLOT_LABEL_ABOVE,
    PLOT_LABEL_BELOW
} plot_label_pos_t;

/* Place the labels text[i] of the points (lx[i], ly[i]) of a plot whose
 * axes span [x0, x1] and [y0, y1] on PLOT_AREA_W x PLOT_AREA_H pixels, so
 * that, as far as the four places allow, no label covers another label,
 * one of the nm markers (mx, my) or one of the labelled points, and none
 * leaves the plot; labels are placed in order, each at the first place
 * that covers least. pos gets nl places. */
#define PLOT_AREA_W 560.0
#define PLOT_AREA_H 520.0
void plot_place_labels (const double *lx, const double *ly,
                        const char *const *text, size_t nl, const double *mx,
                        const double *my, size_t nm, double x0, double x1,
                        double y0, double y1, plot_label_pos_t *pos);

#endif /* MS_PLOT_H */
