/* plot.c - gnuplot renderings (see plot.h). */
#include "config.h"

#include <errno.h>
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
    mark_t m = { "#666666", 6 };
    for (size_t i = 0; i < sizeof (eamc) / sizeof (eamc[0]); i++) {
        size_t n = strlen (eamc[i].prefix);
        if (!strncmp (label, eamc[i].prefix, n)) {
            const char *tw = label + n;
            m.color = eamc[i].color;
            m.pt = !strcmp (tw, "1") ? 5 : !strcmp (tw, "1.5") ? 9 : 15;
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

/* The weight of a sweep row, from its label "metasched-wX". */
static const char *
sweep_weight (const char *label)
{
    const char *w = strrchr (label, '-');
    return w ? w + 1 : label;
}

int
plot_pareto (const char *dir, const char *title, const ms_summary_t *pols,
             size_t npols, const ms_summary_t *sweep, size_t nsweep,
             ms_error_t *errp)
{
    FILE *d, *g;
    double *r = calloc (npols + nsweep + 1, sizeof (double)), med, xmax = 0,
           xmin = 1e300;
    size_t n = 0;

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
            if (r[i] > xmax)
                xmax = r[i];
            if (r[i] < xmin)
                xmin = r[i];
        }
    free (r);

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
             "font ',9' spacing 1.1 samplen 1 width -2\n"
             "set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n",
             title);
    if (n && xmax > xmin)
        fprintf (g, "set xrange [%.4f:%.4f]\n", xmin - 0.08 * (xmax - xmin),
                 xmax + 0.08 * (xmax - xmin));
    fprintf (g, "plot ");
    for (size_t i = 0; i < npols; i++) {
        mark_t m = pareto_mark (pols[i].label);
        double rh = pols[i].mean_response / 3600;
        char off[96] = "";
        if (n && xmax > xmin && rh > xmax + 0.08 * (xmax - xmin))
            snprintf (off, sizeof (off), ": %.2f h, %.2f GJ, off the axis",
                      rh, pols[i].job_energy_j / 1e9);
        fprintf (g,
                 "%s'pareto.dat' index %zu using 2:3 with points pt %d ps 1.8 "
                 "lc rgb '%s' title '%s%s'",
                 i ? ", \\\n     " : "", i, m.pt, m.color, pols[i].label,
                 off);
    }
    if (nsweep)
        fprintf (g,
                 "%s'pareto.dat' index %zu using 2:3 with linespoints pt 6 "
                 "ps 1.2 lw 2 lc rgb '#92c5de' title 'metasched sweep (w_E at "
                 "each point)', \\\n"
                 "     '' index %zu using 2:3:1 with labels left offset 0.8,0 "
                 "font ',8' tc rgb '#0571b0' notitle",
                 npols ? ", \\\n     " : "", npols, npols);
    fprintf (g, "\n");
    fclose (g);
    if (!(g = plot_file_open (dir, "pareto.gp", errp)))
        return -1;
    terminals (g, "pareto", "pareto-plot.gp");
    fclose (g);
    return run_gnuplot (dir, "pareto.gp", errp);
}

int
plot_utilization (const char *dir, const char *title, const ms_siteconf_t *conf,
                  const char *const *labels, const double *const *series,
                  size_t nruns, size_t nbins, double t0, const double *binw,
                  ms_error_t *errp)
{
    FILE *d, *g;
    size_t np = conf->nparts, col;

    if (!(d = plot_file_open (dir, "utilization.dat", errp)))
        return -1;
    for (size_t k = 0; k < nruns; k++) {
        fprintf (d, "# %s: time_days", labels[k]);
        for (size_t p = 0; p < np; p++)
            fprintf (d, " %s", conf->parts[p].name);
        fputc ('\n', d);
        for (size_t b = 0; b < nbins; b++) {
            fprintf (d, "%.4f", (b + 0.5) * binw[k] / 86400);
            for (size_t p = 0; p < np; p++)
                fprintf (d, " %.4f", 100 * series[k][b * np + p]);
            fputc ('\n', d);
        }
        fprintf (d, "\n\n");
    }
    fclose (d);
    if (!(g = plot_file_open (dir, "utilization-plot.gp", errp)))
        return -1;
    fprintf (g,
             "set title '%s'\nset xlabel 'time since the first submit "
             "(days)'\nset ylabel 'utilization (%%)'\nset yrange [0:105]\n"
             "set grid\nset key outside right top\nplot ",
             title);
    col = 0;
    for (size_t k = 0; k < nruns; k++)
        for (size_t p = 0; p < np; p++) {
            fprintf (g,
                     "%s'utilization.dat' index %zu using 1:%zu with lines "
                     "lw 1.5 dt %zu title '%s %s'",
                     col ? ", \\\n     " : "", k, p + 2, k + 1, labels[k],
                     conf->parts[p].name);
            col++;
        }
    fprintf (g, "\n");
    fclose (g);
    if (!(g = plot_file_open (dir, "utilization.gp", errp)))
        return -1;
    terminals (g, "utilization", "utilization-plot.gp");
    fclose (g);
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
