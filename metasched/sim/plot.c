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

int
plot_pareto (const char *dir, const char *title, const ms_summary_t *pols,
             size_t npols, const ms_summary_t *sweep, size_t nsweep,
             ms_error_t *errp)
{
    FILE *d, *g;

    if (!(d = plot_file_open (dir, "pareto.dat", errp)))
        return -1;
    fprintf (d, "# policy  mean_response_h  job_energy_GJ  system_energy_GJ\n");
    for (size_t i = 0; i < npols; i++)
        fprintf (d, "\"%s\" %.4f %.4f %.4f\n", pols[i].label,
                 pols[i].mean_response / 3600, pols[i].job_energy_j / 1e9,
                 pols[i].system_energy_j / 1e9);
    fprintf (d, "\n\n");
    for (size_t i = 0; i < nsweep; i++)
        fprintf (d, "\"%s\" %.4f %.4f %.4f\n", sweep[i].label,
                 sweep[i].mean_response / 3600, sweep[i].job_energy_j / 1e9,
                 sweep[i].system_energy_j / 1e9);
    fclose (d);
    if (!(g = plot_file_open (dir, "pareto-plot.gp", errp)))
        return -1;
    fprintf (g,
             "set title '%s'\n"
             "set xlabel 'mean response time (h)'\n"
             "set ylabel 'job energy (GJ)'\n"
             "set grid\nset key outside right top\n"
             "plot 'pareto.dat' index 0 using 2:3:1 with labels left offset "
             "0.6,0.3 font ',8' notitle, \\\n"
             "     '' index 0 using 2:3 with points pt 7 ps 1.3 title "
             "'policies', \\\n"
             "     '' index 1 using 2:3 with linespoints pt 6 lw 2 title "
             "'metasched, energy weight sweep'\n",
             title);
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
