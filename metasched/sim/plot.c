/* plot.c - gnuplot renderings (see plot.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metasched/sim/plot.h"

/* Run `gnuplot SCRIPT` in dir; 0 ok, 1 gnuplot missing, -1 failed. */
static int
run_gnuplot (const char *dir, const char *script, ms_error_t *errp)
{
    pid_t pid;
    int status;

    fflush (NULL);
    if ((pid = fork ()) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "fork: %s", strerror (errno));
    if (pid == 0) {
        if (chdir (dir) < 0)
            _exit (126);
        execlp ("gnuplot", "gnuplot", script, (char *)NULL);
        _exit (127);
    }
    if (waitpid (pid, &status, 0) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "waitpid: %s", strerror (errno));
    if (WIFEXITED (status) && WEXITSTATUS (status) == 127)
        return 1;
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        return ms_err (errp, MS_ERR_SYSTEM,
                       "%s/%s: gnuplot failed (status "
                       "%d)",
                       dir, script, status);
    return 0;
}

FILE *
plot_file_open (const char *dir, const char *name, ms_error_t *errp)
{
    char path[4096];
    FILE *f;
    snprintf (path, sizeof (path), "%s/%s", dir, name);
    if (!(f = fopen (path, "w")))
        ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    return f;
}

int
plot_file_close (FILE *f, const char *dir, const char *name, ms_error_t *errp)
{
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s/%s: %s", dir, name,
                       strerror (errno));
    return 0;
}

/* The two terminals every plot is rendered to. */
static void
terminals (FILE *g, const char *base, const char *plotcmd_file)
{
    fprintf (g,
             "set terminal pngcairo size 1000,650 noenhanced\n"
             "set output '%s.png'\nload '%s'\n"
             "set terminal svg size 1000,650 noenhanced\n"
             "set output '%s.svg'\nload '%s'\n",
             base, plotcmd_file, base, plotcmd_file);
}

/* How a row is drawn in the Pareto plot: a family colour and a point
 * type per policy, so every EAMC variant is told apart in the key. */
typedef struct {
    const char *color;
    int pt;
    double ps; /* point size */
} mark_t;

static mark_t
pareto_mark (const char *label)
{
    /* EAMC's variants: one colour per kind, the t_weight by the shape
     * (1: square, 1.5: triangle, others: pentagon). */
    static const struct {
        const char *prefix, *color;
    } eamc[] = { { "eamc_priority_inc_v-", "#7b3294" },
                 { "eamc_priority_inc-", "#d7191c" },
                 { "eamc_reorder-", "#fdae61" } };
    mark_t m = { "#666666", 6, 1.8 };
    for (size_t i = 0; i < sizeof (eamc) / sizeof (eamc[0]); i++) {
        size_t n = strlen (eamc[i].prefix);
        if (!strncmp (label, eamc[i].prefix, n)) {
            const char *tw = label + n;
            m.color = eamc[i].color;
            m.pt = !strcmp (tw, "1") ? 5 : !strcmp (tw, "1.5") ? 9 : 15;
            /* PriorityInc and PriorityInc-V often decide alike: the first,
             * drawn before and larger, stays a ring around the second */
            if (i == 1)
                m.ps = 2.7;
            return m;
        }
    }
    if (!strncmp (label, "metasched_window", 16)) {
        m.color = "#0571b0";
        m.pt = 13; /* filled diamond */
    } else if (!strncmp (label, "metasched", 9)) {
        m.color = "#0571b0";
        m.pt = 7; /* filled circle */
    } else if (!strcmp (label, "min_runtime"))
        m.pt = 4; /* open square */
    else if (!strcmp (label, "base"))
        m.pt = 8; /* open triangle */
    else if (!strcmp (label, "min_energy"))
        m.pt = 10; /* open down triangle */
    else if (!strncmp (label, "ear_min_energy", 14))
        m.pt = 12; /* open diamond */
    return m;
}

static int
dbl_cmp (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Pixel sizes at the Pareto plot's fonts and point sizes. */
#define LABEL_CHAR_W 5.5 /* a character of the labels' font (8 pt) */
#define LABEL_H 11.0
#define LABEL_GAP 9.0 /* between a point and its label ("offset 0.8,0") */
/* how far above or below its point a label's middle is drawn: "offset
 * 0,0.9" counts in the terminal's characters, not the label's font */
#define LABEL_VOFF 18.0
#define MARKER_HALF 9.0 /* half a policy's marker (point size 1.8) */
#define POINT_HALF 5.0  /* half a sweep point (point size 1.2) */

typedef struct {
    double x0, x1, y0, y1;
} box_t;

static double
box_overlap (box_t a, box_t b)
{
    double w = (a.x1 < b.x1 ? a.x1 : b.x1) - (a.x0 > b.x0 ? a.x0 : b.x0);
    double h = (a.y1 < b.y1 ? a.y1 : b.y1) - (a.y0 > b.y0 ? a.y0 : b.y0);
    return w > 0 && h > 0 ? w * h : 0;
}

static box_t
box_around (double x, double y, double half)
{
    box_t b = { x - half, x + half, y - half, y + half };
    return b;
}

/* The box of a label of width w beside the point (x, y), in pixels. */
static box_t
label_box (double x, double y, double w, plot_label_pos_t where)
{
    box_t b;
    switch (where) {
    case PLOT_LABEL_LEFT:
        b = (box_t){ x - LABEL_GAP - w, x - LABEL_GAP, y - LABEL_H / 2,
                     y + LABEL_H / 2 };
        break;
    case PLOT_LABEL_ABOVE:
        b = (box_t){ x - w / 2, x + w / 2, y + LABEL_VOFF - LABEL_H / 2,
                     y + LABEL_VOFF + LABEL_H / 2 };
        break;
    case PLOT_LABEL_BELOW:
        b = (box_t){ x - w / 2, x + w / 2, y - LABEL_VOFF - LABEL_H / 2,
                     y - LABEL_VOFF + LABEL_H / 2 };
        break;
    default:
        b = (box_t){ x + LABEL_GAP, x + LABEL_GAP + w, y - LABEL_H / 2,
                     y + LABEL_H / 2 };
    }
    return b;
}

void
plot_place_labels (const double *lx, const double *ly, const char *const *text,
                   size_t nl, const double *mx, const double *my, size_t nm,
                   double x0, double x1, double y0, double y1,
                   plot_label_pos_t *pos)
{
    double sx = x1 > x0 ? PLOT_AREA_W / (x1 - x0) : 0;
    double sy = y1 > y0 ? PLOT_AREA_H / (y1 - y0) : 0;
    box_t *placed = calloc (nl + 1, sizeof (box_t));
    box_t area = { 0, PLOT_AREA_W, 0, PLOT_AREA_H };

    for (size_t i = 0; i < nl; i++) {
        double px = (lx[i] - x0) * sx, py = (ly[i] - y0) * sy;
        double w = strlen (text[i]) * LABEL_CHAR_W, best = -1;
        pos[i] = PLOT_LABEL_RIGHT;
        for (int k = PLOT_LABEL_RIGHT; k <= PLOT_LABEL_BELOW; k++) {
            box_t b = label_box (px, py, w, (plot_label_pos_t)k);
            /* what leaves the plot counts as covered */
            double c = (b.x1 - b.x0) * (b.y1 - b.y0) - box_overlap (b, area);
            for (size_t m = 0; m < nm; m++)
                c += box_overlap (b,
                                  box_around ((mx[m] - x0) * sx,
                                              (my[m] - y0) * sy, MARKER_HALF));
            for (size_t j = 0; j < nl; j++)
                c += box_overlap (b,
                                  box_around ((lx[j] - x0) * sx,
                                              (ly[j] - y0) * sy, POINT_HALF));
            for (size_t j = 0; placed && j < i; j++)
                c += box_overlap (b, placed[j]);
            if (best < 0 || c < best) {
                best = c;
                pos[i] = (plot_label_pos_t)k;
            }
        }
        if (placed)
            placed[i] = label_box (px, py, w, pos[i]);
    }
    free (placed);
}

/* The weight of a sweep row, from its label "metasched-wX". */
static const char *
sweep_weight (const char *label)
{
    const char *w = strrchr (label, '-');
    return w ? w + 1 : label;
}

/* The rows the zoom is about: EAMC's PriorityInc variants (the anchors)
 * and metasched's own rows. */
static bool
zoom_row (const char *label)
{
    return !strncmp (label, "eamc_priority_inc", 17)
           || !strncmp (label, "metasched", 9);
}

/* The zoomed Pareto plot (pareto-zoom-plot.gp over pareto.dat): the box
 * around the anchors and metasched's rows, every point in it named beside
 * it, and shaded the corner that has less job energy and a lower mean
 * response than every PriorityInc-V row. Returns 0, 1 when there is
 * nothing to zoom on (fewer than two such rows), -1 on error. */
static int
plot_pareto_zoom (const char *dir, const char *title, const ms_summary_t *pols,
                  size_t npols, const ms_summary_t *sweep, size_t nsweep,
                  ms_error_t *errp)
{
    double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
    double vx = 1e300, vy = 1e300, x0, x1, y0, y1, pad;
    size_t nz = 0, nl = 0;
    double *lx, *ly;
    const char **tx, **tc;
    plot_label_pos_t *pos;
    FILE *g;
    static const char *const just[]
        = { "left offset 0.8,0", "right offset -0.8,0", "center offset 0,0.9",
            "center offset 0,-0.9" };

    for (size_t i = 0; i < npols; i++) {
        double x = pols[i].mean_response / 3600, y = pols[i].job_energy_j / 1e9;
        if (!zoom_row (pols[i].label))
            continue;
        nz++;
        xmin = x < xmin ? x : xmin;
        xmax = x > xmax ? x : xmax;
        ymin = y < ymin ? y : ymin;
        ymax = y > ymax ? y : ymax;
        if (!strncmp (pols[i].label, "eamc_priority_inc_v-", 20)) {
            vx = x < vx ? x : vx;
            vy = y < vy ? y : vy;
        }
    }
    if (nz < 2)
        return 1;
    /* a quarter of the span on each side, and at least 1% of the values,
     * so that rows that decide alike do not fill the plot */
    pad = 0.25 * (xmax - xmin);
    if (pad < 0.005 * xmax)
        pad = 0.005 * xmax;
    x0 = xmin - pad;
    x1 = xmax + pad;
    pad = 0.25 * (ymax - ymin);
    if (pad < 0.005 * ymax)
        pad = 0.005 * ymax;
    y0 = ymin - pad;
    y1 = ymax + pad;

    lx = calloc (npols + nsweep + 1, sizeof (double));
    ly = calloc (npols + nsweep + 1, sizeof (double));
    tx = calloc (npols + nsweep + 1, sizeof (char *));
    tc = calloc (npols + nsweep + 1, sizeof (char *));
    pos = calloc (npols + nsweep + 1, sizeof (*pos));
    if (!lx || !ly || !tx || !tc || !pos) {
        free (lx);
        free (ly);
        free (tx);
        free (tc);
        free (pos);
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    }
    /* every point inside the box is named: the rows by their labels, the
     * sweep by its weights */
    for (size_t i = 0; i < npols + nsweep; i++) {
        const ms_summary_t *r = i < npols ? &pols[i] : &sweep[i - npols];
        double x = r->mean_response / 3600, y = r->job_energy_j / 1e9;
        bool same = false;
        if (x < x0 || x > x1 || y < y0 || y > y1)
            continue;
        /* a sweep point that is a row's own (metasched at the default
         * weight) is named once, by the row */
        for (size_t j = 0; i >= npols && j < npols; j++)
            if (pols[j].mean_response == r->mean_response
                && pols[j].job_energy_j == r->job_energy_j)
                same = true;
        if (same)
            continue;
        lx[nl] = x;
        ly[nl] = y;
        tx[nl] = i < npols ? r->label : sweep_weight (r->label);
        tc[nl] = i < npols ? pareto_mark (r->label).color : "#0571b0";
        nl++;
    }
    plot_place_labels (lx, ly, tx, nl, lx, ly, nl, x0, x1, y0, y1, pos);

    if (!(g = plot_file_open (dir, "pareto-zoom-plot.gp", errp))) {
        free (lx);
        free (ly);
        free (tx);
        free (tc);
        free (pos);
        return -1;
    }
    fprintf (g,
             "set title '%s: around the EAMC PriorityInc rows and "
             "metasched'\n"
             "set xlabel 'mean response time (h)'\n"
             "set ylabel 'job energy (GJ)'\n"
             "set grid\n"
             "set key outside right center vertical Left reverse box opaque "
             "font ',9' spacing 1.1 samplen 1 width -2\n"
             "set xrange [%.4f:%.4f]\nset yrange [%.4f:%.4f]\n",
             title, x0, x1, y0, y1);
    if (vx < 1e300)
        fprintf (g,
                 "set object 1 rect from graph 0, graph 0 to first %.4f, "
                 "first %.4f fc rgb '#d9f0d3' fs solid 1.0 noborder behind\n",
                 vx, vy);
    for (size_t i = 0; i < nl; i++)
        fprintf (g,
                 "set label %zu '%s' at %.4f,%.4f %s font ',8' tc rgb '%s' "
                 "front\n",
                 i + 1, tx[i], lx[i], ly[i], just[pos[i]], tc[i]);
    /* the sweep's line, and the rows inside the box (in the key too) */
    fprintf (g, "plot ");
    if (nsweep)
        fprintf (g,
                 "'pareto.dat' index %zu using 2:3 with linespoints pt 6 ps "
                 "1.2 lw 2 lc rgb '#92c5de' title 'metasched sweep (w_E at "
                 "each point)'",
                 npols);
    for (size_t i = 0, first = !nsweep; i < npols; i++) {
        mark_t m = pareto_mark (pols[i].label);
        double x = pols[i].mean_response / 3600;
        double y = pols[i].job_energy_j / 1e9;
        if (x < x0 || x > x1 || y < y0 || y > y1)
            continue;
        fprintf (g,
                 "%s'pareto.dat' index %zu using 2:3 with points pt %d ps "
                 "%.1f lc rgb '%s' title '%s'",
                 first ? "" : ", \\\n     ", i, m.pt, m.ps, m.color,
                 pols[i].label);
        first = 0;
    }
    if (vx < 1e300)
        fprintf (g,
                 ", \\\n     keyentry with boxes fs solid 1.0 noborder "
                 "fc rgb '#d9f0d3' title 'better on both than PriorityInc-V'");
    fprintf (g, "\n");
    free (lx);
    free (ly);
    free (tx);
    free (tc);
    free (pos);
    if (plot_file_close (g, dir, "pareto-zoom-plot.gp", errp) < 0)
        return -1;
    return plot_render (dir, "pareto-zoom", "pareto-zoom-plot.gp", errp);
}

/* The Pareto plot's axes: the response axis ends a little past the
 * points within twice the median response (xmin..xmax of those; n points
 * in all); ranges when both axes' ranges x0..x1, y0..y1 are set. */
typedef struct {
    double xmin, xmax, x0, x1, y0, y1;
    size_t n;
    bool ranges;
} pareto_axes_t;

static int
pareto_axes (const ms_summary_t *pols, size_t npols, const ms_summary_t *sweep,
             size_t nsweep, pareto_axes_t *ax, ms_error_t *errp)
{
    double *r = calloc (npols + nsweep + 1, sizeof (double)), med, ymin = 1e300,
           ymax = -1e300;
    size_t n = 0;

    memset (ax, 0, sizeof (*ax));
    ax->xmin = 1e300;
    if (!r)
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    /* The response axis ends a little past the points within twice the
     * median response; a policy far beyond (base on a loaded site) is
     * named in the key with its figures instead of squeezing the rest
     * into a corner. */
    for (size_t i = 0; i < npols; i++)
        r[n++] = pols[i].mean_response / 3600;
    for (size_t i = 0; i < nsweep; i++)
        r[n++] = sweep[i].mean_response / 3600;
    qsort (r, n, sizeof (double), dbl_cmp);
    med = n ? r[n / 2] : 0;
    for (size_t i = 0; i < n; i++)
        if (r[i] <= 2 * med) {
            if (r[i] > ax->xmax)
                ax->xmax = r[i];
            if (r[i] < ax->xmin)
                ax->xmin = r[i];
        }
    free (r);
    ax->n = n;
    /* Both axes' ranges are set here, so that the sweep's labels can be
     * placed where they cover nothing (plot_place_labels). */
    ax->ranges = n && ax->xmax > ax->xmin;
    if (ax->ranges) {
        ax->x0 = ax->xmin - 0.08 * (ax->xmax - ax->xmin);
        ax->x1 = ax->xmax + 0.08 * (ax->xmax - ax->xmin);
        for (size_t i = 0; i < npols + nsweep; i++) {
            const ms_summary_t *s = i < npols ? &pols[i] : &sweep[i - npols];
            double e = s->job_energy_j / 1e9;
            if (s->mean_response / 3600 > ax->x1)
                continue;
            if (e < ymin)
                ymin = e;
            if (e > ymax)
                ymax = e;
        }
        if (!(ymax > ymin)) {
            ymin -= 1;
            ymax += 1;
        }
        ax->y0 = ymin - 0.08 * (ymax - ymin);
        ax->y1 = ymax + 0.08 * (ymax - ymin);
    }
    return 0;
}

/* Each sweep weight beside its point, where it covers no marker, point
 * or other label, into the plot script g. */
static int
pareto_labels (FILE *g, const ms_summary_t *pols, size_t npols,
               const ms_summary_t *sweep, size_t nsweep,
               const pareto_axes_t *ax, ms_error_t *errp)
{
    double *lx = calloc (nsweep + npols + 1, sizeof (double));
    double *ly = calloc (nsweep + npols + 1, sizeof (double));
    const char **tx = calloc (nsweep + 1, sizeof (char *));
    plot_label_pos_t *pos = calloc (nsweep + 1, sizeof (*pos));
    static const char *const just[]
        = { "left offset 0.8,0", "right offset -0.8,0", "center offset 0,0.9",
            "center offset 0,-0.9" };
    if (!lx || !ly || !tx || !pos) {
        free (lx);
        free (ly);
        free (tx);
        free (pos);
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    }
    for (size_t i = 0; i < nsweep; i++) {
        lx[i] = sweep[i].mean_response / 3600;
        ly[i] = sweep[i].job_energy_j / 1e9;
        tx[i] = sweep_weight (sweep[i].label);
    }
    for (size_t i = 0; i < npols; i++) {
        lx[nsweep + i] = pols[i].mean_response / 3600;
        ly[nsweep + i] = pols[i].job_energy_j / 1e9;
    }
    if (ax->ranges)
        plot_place_labels (lx, ly, tx, nsweep, lx + nsweep, ly + nsweep, npols,
                           ax->x0, ax->x1, ax->y0, ax->y1, pos);
    for (size_t i = 0; i < nsweep; i++)
        fprintf (g,
                 "set label %zu '%s' at %.4f,%.4f %s font ',8' "
                 "tc rgb '#0571b0' front\n",
                 i + 1, tx[i], lx[i], ly[i], just[pos[i]]);
    free (lx);
    free (ly);
    free (tx);
    free (pos);
    return 0;
}

int
plot_pareto (const char *dir, const char *title, const ms_summary_t *pols,
             size_t npols, const ms_summary_t *sweep, size_t nsweep,
             ms_error_t *errp)
{
    FILE *d, *g;
    pareto_axes_t ax;
    int rc, rz;

    if (pareto_axes (pols, npols, sweep, nsweep, &ax, errp) < 0)
        return -1;
    if (!(d = plot_file_open (dir, "pareto.dat", errp)))
        return -1;
    fprintf (d, "# one block per policy, then the sweep (weight as label)\n"
                "# policy  mean_response_h  job_energy_GJ  system_energy_GJ\n");
    for (size_t i = 0; i < npols; i++)
        fprintf (d, "\"%s\" %.4f %.4f %.4f\n\n\n", pols[i].label,
                 pols[i].mean_response / 3600, pols[i].job_energy_j / 1e9,
                 pols[i].system_energy_j / 1e9);
    for (size_t i = 0; i < nsweep; i++)
        fprintf (d, "\"%s\" %.4f %.4f %.4f\n", sweep_weight (sweep[i].label),
                 sweep[i].mean_response / 3600, sweep[i].job_energy_j / 1e9,
                 sweep[i].system_energy_j / 1e9);
    fclose (d);
    if (!(g = plot_file_open (dir, "pareto-plot.gp", errp)))
        return -1;
    fprintf (g,
             "set title '%s'\n"
             "set xlabel 'mean response time (h)'\n"
             "set ylabel 'job energy (GJ)'\n"
             "set grid\n"
             "set key outside right center vertical Left reverse box opaque "
             "font ',9' spacing 1.1 samplen 1 width -2\n",
             title);
    if (ax.ranges)
        fprintf (g, "set xrange [%.4f:%.4f]\nset yrange [%.4f:%.4f]\n", ax.x0,
                 ax.x1, ax.y0, ax.y1);
    else
        fprintf (g, "set offsets graph 0.05, graph 0.05, graph 0.05, graph "
                    "0.05\n");
    if (nsweep
        && pareto_labels (g, pols, npols, sweep, nsweep, &ax, errp) < 0) {
        fclose (g);
        return -1;
    }
    fprintf (g, "plot ");
    for (size_t i = 0; i < npols; i++) {
        mark_t m = pareto_mark (pols[i].label);
        double rh = pols[i].mean_response / 3600;
        char off[96] = "";
        if (ax.n && ax.xmax > ax.xmin
            && rh > ax.xmax + 0.08 * (ax.xmax - ax.xmin))
            snprintf (off, sizeof (off), ": %.2f h, %.2f GJ, off the axis", rh,
                      pols[i].job_energy_j / 1e9);
        fprintf (g,
                 "%s'pareto.dat' index %zu using 2:3 with points pt %d ps %.1f "
                 "lc rgb '%s' title '%s%s'",
                 i ? ", \\\n     " : "", i, m.pt, m.ps, m.color, pols[i].label,
                 off);
    }
    if (nsweep)
        fprintf (g,
                 "%s'pareto.dat' index %zu using 2:3 with linespoints pt 6 "
                 "ps 1.2 lw 2 lc rgb '#92c5de' title 'metasched sweep (w_E at "
                 "each point)'",
                 npols ? ", \\\n     " : "", npols);
    fprintf (g, "\n");
    fclose (g);
    if (!(g = plot_file_open (dir, "pareto.gp", errp)))
        return -1;
    terminals (g, "pareto", "pareto-plot.gp");
    fclose (g);
    rc = run_gnuplot (dir, "pareto.gp", errp);
    if (rc < 0)
        return rc;
    rz = plot_pareto_zoom (dir, title, pols, npols, sweep, nsweep, errp);
    return rz < 0 ? -1 : rc;
}

/* A centred moving average of one partition's column of a run's bins:
 * each bin's share is the mean of the bins within half a window of it,
 * which keeps the level and the trend and drops the bin-to-bin noise
 * that made the raw lines of several runs unreadable over each other. */
static double
util_smoothed (const double *series, size_t nbins, size_t np, size_t p,
               size_t b, size_t half)
{
    size_t lo = b >= half ? b - half : 0;
    size_t hi = b + half < nbins ? b + half : nbins - 1;
    double sum = 0;

    for (size_t i = lo; i <= hi; i++)
        sum += series[i * np + p];
    return sum / (double)(hi - lo + 1);
}

/* One panel per partition (small multiples), stacked, on one time axis:
 * in each, a run's raw bins as a faint line and their moving average as a
 * bold line of the same colour, so runs are told apart at a glance. The
 * key sits once, beside the top panel. */
int
plot_utilization (const char *dir, const char *title, const ms_siteconf_t *conf,
                  const char *const *labels, const double *const *series,
                  size_t nruns, size_t nbins, double t0, const double *binw,
                  ms_error_t *errp)
{
    static const char *const colors[]
        = { "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9" };
    const size_t ncolors = sizeof (colors) / sizeof (colors[0]);
    FILE *d, *g;
    size_t np = conf->nparts;
    /* half a window: about 1/25 of the span on each side */
    size_t half = nbins >= 50 ? nbins / 50 : 1;
    double top, height, bottom_margin = 0.08, top_margin = 0.07;

    if (!(d = plot_file_open (dir, "utilization.dat", errp)))
        return -1;
    for (size_t k = 0; k < nruns; k++) {
        fprintf (d, "# %s: time_days", labels[k]);
        for (size_t p = 0; p < np; p++)
            fprintf (d, " %s", conf->parts[p].name);
        for (size_t p = 0; p < np; p++)
            fprintf (d, " %s_smoothed", conf->parts[p].name);
        fputc ('\n', d);
        for (size_t b = 0; b < nbins; b++) {
            fprintf (d, "%.4f", (b + 0.5) * binw[k] / 86400);
            for (size_t p = 0; p < np; p++)
                fprintf (d, " %.4f", 100 * series[k][b * np + p]);
            for (size_t p = 0; p < np; p++)
                fprintf (
                    d, " %.4f",
                    100 * util_smoothed (series[k], nbins, np, p, b, half));
            fputc ('\n', d);
        }
        fprintf (d, "\n\n");
    }
    if (plot_file_close (d, dir, "utilization.dat", errp) < 0)
        return -1;
    if (!(g = plot_file_open (dir, "utilization-plot.gp", errp)))
        return -1;
    fprintf (g,
             "set multiplot title '%s: utilization per partition (bold: "
             "moving average over %zu bins of %.2f h)'\n"
             "set yrange [0:105]\nset ytics 0,25,100\nset grid\n"
             "set xrange [0:*]\nset autoscale xfixmax\n"
             "set lmargin at screen 0.08\nset rmargin at screen 0.78\n",
             title, 2 * half + 1, nruns ? binw[0] / 3600 : 0.0);
    height = (1.0 - bottom_margin - top_margin) / (double)(np ? np : 1);
    for (size_t p = 0; p < np; p++) {
        top = 1.0 - top_margin - height * (double)p;
        fprintf (g,
                 "set tmargin at screen %.4f\nset bmargin at screen %.4f\n"
                 "set ylabel '%s (%%)'\n",
                 top, top - height + 0.012, conf->parts[p].name);
        if (p + 1 < np)
            fprintf (g, "set format x ''\nunset xlabel\n");
        else
            fprintf (g, "set format x '%%g'\n"
                        "set xlabel 'time since the first submit (days)'\n");
        if (p == 0)
            fprintf (g, "set key outside right top vertical\n");
        else
            fprintf (g, "unset key\n");
        fprintf (g, "plot ");
        for (size_t k = 0; k < nruns; k++) {
            const char *c = colors[k % ncolors];
            fprintf (g,
                     "%s'utilization.dat' index %zu using 1:%zu with lines "
                     "lw 1 lc rgb '#b0%s' notitle, \\\n     "
                     "'utilization.dat' index %zu using 1:%zu with lines "
                     "lw 2.5 lc rgb '%s' title '%s'",
                     k ? ", \\\n     " : "", k, p + 2, c + 1, k, np + p + 2, c,
                     labels[k]);
        }
        fprintf (g, "\n");
    }
    fprintf (g, "unset multiplot\n");
    if (plot_file_close (g, dir, "utilization-plot.gp", errp) < 0)
        return -1;
    if (!(g = plot_file_open (dir, "utilization.gp", errp)))
        return -1;
    terminals (g, "utilization", "utilization-plot.gp");
    if (plot_file_close (g, dir, "utilization.gp", errp) < 0)
        return -1;
    (void)t0;
    return run_gnuplot (dir, "utilization.gp", errp);
}

int
plot_render (const char *dir, const char *base, const char *plot_file,
             ms_error_t *errp)
{
    char name[512];
    FILE *g;

    snprintf (name, sizeof (name), "%s.gp", base);
    if (!(g = plot_file_open (dir, name, errp)))
        return -1;
    terminals (g, base, plot_file);
    if (fclose (g) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s/%s: %s", dir, name,
                       strerror (errno));
    return run_gnuplot (dir, name, errp);
}
