/* bench_predictor.c - predictor throughput, printed against the targets of
 * issue 3 (never asserted):
 *   projection: the full candidate table for 10,000 jobs x 3 architectures
 *               x 20 frequencies, target <= 20 ms on one core;
 *   fitting:    1,000,000 learning runs to all coefficient sets, <= 2 s.
 * Self-contained: three 20-frequency archs (p1, p2, p3, 1.2..3.1 GHz) with
 * a smooth synthetic EAR model, the Table 6.1 apps, and synthetic runs.
 *
 * Usage: bench_predictor [JOBS [RUNS]]
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/util.h"
#include "predictor/predictor.h"

#define NF 20

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of this process: with other work on the machine, the wall
 * clock also counts the time the bench waits for a core. */
static double
cpu_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void
die (const ms_error_t *e)
{
    fprintf (stderr, "bench_predictor: %s\n", e->text);
    exit (1);
}

/* EAR text for one arch: nominal row from smooth coefficients (shaped like
 * the eamc-2hw ones), other pairs "0 0 0", the diagonal the identity. */
static char *
model_text (int which, double skew)
{
    size_t cap = NF * NF * 64, len = 0;
    char *t = ms_xmalloc (cap);
    for (int ref = 0; ref < NF; ref++)
        for (int f = 0; f < NF; f++) {
            double r = (1.2 + 0.1 * f) / 3.1, c[3];
            if (ref == f || ref != NF - 1) {
                len += (size_t)snprintf (t + len, cap - len, ref == f ? "1 0 0\n"
                                                                      : "0 0 0\n");
                continue;
            }
            if (which == 'P') {
                c[0] = 0.40 + 0.60 * r * r * skew;
                c[1] = 0.30 * (1 - r);
                c[2] = 12.0 * (1 - r);
            } else {
                c[0] = 0.70 + 0.30 * r;
                c[1] = -0.004 * (1 - r);
                c[2] = 0.10 * (1 - r) * skew;
            }
            len += (size_t)snprintf (t + len, cap - len, "%.9g %.9g %.9g\n", c[0],
                                     c[1], c[2]);
        }
    return t;
}

static predictor_t *
setup (void)
{
    predictor_t *p = predictor_new ();
    uint32_t f[NF];
    ms_error_t e;
    const char *names[3] = { "p1", "p2", "p3" };

    for (int i = 0; i < NF; i++)
        f[i] = 1200000 + 100000 * (uint32_t)i;
    for (int k = 0; k < 3; k++) {
        char *tp = model_text ('P', 1 + 0.05 * k), *tt = model_text ('T', 1 + 0.1 * k);
        if (predictor_add_arch (p, names[k], 40, f, NF, f[NF - 1], 90, &e) < 0
            || predictor_parse_ear_coeffs (p, names[k], 'P', tp, strlen (tp), "P", &e) < 0
            || predictor_parse_ear_coeffs (p, names[k], 'T', tt, strlen (tt), "T", &e) < 0)
            die (&e);
        free (tp);
        free (tt);
    }
    if (predictor_load_table61 (p, "p1", "p2", "p3", &e) < 0)
        die (&e);
    return p;
}

static void
bench_projection (size_t njobs)
{
    predictor_t *p = setup ();
    const char *arch[3] = { "p1", "p2", "p3" };
    pred_estimate_t *tab = ms_xmalloc (njobs * 3 * NF * sizeof (*tab));
    const char **app = ms_xmalloc (njobs * sizeof (*app));
    double *nodes = ms_xmalloc (njobs * sizeof (double));
    double best = INFINITY, best1 = INFINITY, bestc = INFINITY, sum = 0;
    double cpu = INFINITY, cpu1 = INFINITY, cpuc = INFINITY, c0;
    pred_estimate_t per_app[8][3][NF];
    ms_error_t e;
    unsigned long seed = 12345;

    for (size_t j = 0; j < njobs; j++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        app[j] = predictor_eamc_apps[(seed >> 33) % 8];
        nodes[j] = (double)(1 + (seed >> 40) % 64);
    }
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now ();
        c0 = cpu_now ();
        for (size_t j = 0; j < njobs; j++)
            for (int a = 0; a < 3; a++) {
                size_t n;
                if (predictor_estimate_all (p, app[j], arch[a], nodes[j],
                                            &tab[(j * 3 + (size_t)a) * NF], NF, &n,
                                            &e) < 0)
                    die (&e);
            }
        best = fmin (best, now () - t0);
        cpu = fmin (cpu, cpu_now () - c0);
        t0 = now ();
        c0 = cpu_now ();
        for (size_t j = 0; j < njobs; j++)
            for (int a = 0; a < 3; a++)
                for (int k = 0; k < NF; k++)
                    if (predictor_estimate (p, app[j], arch[a], 1200000 + 100000 * (uint32_t)k,
                                            nodes[j], &tab[(j * 3 + (size_t)a) * NF + (size_t)k],
                                            &e) < 0)
                        die (&e);
        best1 = fmin (best1, now () - t0);
        cpu1 = fmin (cpu1, cpu_now () - c0);
        /* As the scheduling core builds it (metasched/core/candidates.c): T and P
         * depend on the app and architecture only, so estimate each (app,
         * arch) once for one node and fill every job's row from that, E
         * scaled by its node count. The cache is rebuilt in every round. */
        t0 = now ();
        c0 = cpu_now ();
        for (int i = 0; i < 8; i++)
            for (int a = 0; a < 3; a++) {
                size_t n;
                if (predictor_estimate_all (p, predictor_eamc_apps[i], arch[a], 1.0,
                                            per_app[i][a], NF, &n, &e) < 0)
                    die (&e);
            }
        for (size_t j = 0; j < njobs; j++) {
            size_t i = 0;
            while (i < 7 && app[j] != predictor_eamc_apps[i])
                i++;
            for (int a = 0; a < 3; a++) {
                pred_estimate_t *row = &tab[(j * 3 + (size_t)a) * NF];
                for (int k = 0; k < NF; k++) {
                    row[k] = per_app[i][a][k];
                    row[k].energy_j *= nodes[j];
                    row[k].energy_lo *= nodes[j];
                    row[k].energy_hi *= nodes[j];
                }
            }
        }
        bestc = fmin (bestc, now () - t0);
        cpuc = fmin (cpuc, cpu_now () - c0);
    }
    for (size_t i = 0; i < njobs * 3 * NF; i++)
        sum += tab[i].energy_j;
    printf ("projection: %zu jobs x 3 archs x %d freqs = %zu estimates (T, P, E "
            "with 90%% intervals)\n", njobs, NF, njobs * 3 * NF);
    printf ("  predictor_estimate_all: %.2f ms, %.1f ns per estimate; target 20 ms "
            "for 10,000 jobs: ratio %.2f\n", 1e3 * best,
            1e9 * best / (double)(njobs * 3 * NF), best * 1e3 / 20 * 10000 / (double)njobs);
    printf ("  predictor_estimate (one frequency per call): %.2f ms, %.1f ns per "
            "estimate (ratio %.2f)\n", 1e3 * best1,
            1e9 * best1 / (double)(njobs * 3 * NF), best1 * 1e3 / 20 * 10000 / (double)njobs);
    printf ("  cached per (app, arch), as the scheduling core builds its table: "
            "%.2f ms, %.1f ns per estimate; target 20 ms: ratio %.2f\n", 1e3 * bestc,
            1e9 * bestc / (double)(njobs * 3 * NF), bestc * 1e3 / 20 * 10000 / (double)njobs);
    printf ("  CPU time (best of 5): estimate_all %.2f ms, estimate %.2f ms, "
            "cached %.2f ms\n", 1e3 * cpu, 1e3 * cpu1, 1e3 * cpuc);
    printf ("  (checksum %.6g)\n", sum);
    free (tab);
    free (app);
    free (nodes);
    predictor_free (p);
}

static void
bench_fit (size_t target_runs)
{
    predictor_t *truth = setup (), *fit;
    const char *arch[3] = { "p1", "p2", "p3" };
    pred_run_t *all = NULL;
    size_t nall = 0, napps = 250, rpf;
    double t0, t_ols, t_rob, c0, c_ols;
    ms_error_t e;
    uint32_t f[NF];

    rpf = target_runs / (3 * NF * napps);
    if (rpf < 1)
        rpf = 1;
    for (int a = 0; a < 3; a++) {
        pred_run_t *r;
        size_t n;
        if (predictor_synth_apps (truth, arch[a], napps - 8, 0.3, 10 + a, &e) < 0
            || predictor_synth_runs (truth, arch[a], rpf, 0.03, 20 + a, &r, &n, &e) < 0)
            die (&e);
        all = ms_xrealloc (all, (nall + n) * sizeof (*all));
        memcpy (all + nall, r, n * sizeof (*r));
        nall += n;
        free (r);
    }
    for (int i = 0; i < NF; i++)
        f[i] = 1200000 + 100000 * (uint32_t)i;
    fit = predictor_new ();
    for (int a = 0; a < 3; a++)
        predictor_add_arch (fit, arch[a], 40, f, NF, f[NF - 1], 90, NULL);
    t0 = now ();
    c0 = cpu_now ();
    if (predictor_fit (fit, all, nall, PRED_FIT_OLS, &e) < 0)
        die (&e);
    t_ols = now () - t0;
    c_ols = cpu_now () - c0;
    printf ("fitting: %zu runs (3 archs x %d freqs x %zu apps x %zu runs), all "
            "%d pairs per arch\n", nall, NF, napps, rpf, NF * NF);
    printf ("  least squares: %.3f s (CPU %.3f s), %.0f runs/s; target 2 s: "
            "ratio %.2f\n", t_ols, c_ols, (double)nall / t_ols,
            t_ols / 2 * 1e6 / (double)nall);
    predictor_free (fit);

    /* robust fit on a tenth of the runs (every 10th), per run rows */
    {
        size_t n = 0;
        pred_run_t *sub = ms_xmalloc ((nall / 10 + 1) * sizeof (*sub));
        for (size_t i = 0; i < nall; i += 10)
            sub[n++] = all[i];
        fit = predictor_new ();
        for (int a = 0; a < 3; a++)
            predictor_add_arch (fit, arch[a], 40, f, NF, f[NF - 1], 90, NULL);
        t0 = now ();
        if (predictor_fit (fit, sub, n, PRED_FIT_ROBUST, &e) < 0)
            die (&e);
        t_rob = now () - t0;
        printf ("  robust (gsl_multifit_robust): %zu runs in %.3f s, %.0f runs/s\n",
                n, t_rob, (double)n / t_rob);
        predictor_free (fit);
        free (sub);
    }
    free (all);
    predictor_free (truth);
}

int
main (int argc, char **argv)
{
    size_t jobs = argc > 1 ? strtoul (argv[1], NULL, 10) : 10000;
    size_t runs = argc > 2 ? strtoul (argv[2], NULL, 10) : 1000000;
    bench_projection (jobs ? jobs : 10000);
    bench_fit (runs ? runs : 1000000);
    return 0;
}
