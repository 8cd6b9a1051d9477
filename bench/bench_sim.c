/* bench_sim.c - speed of the simulator with every policy on the KTH-SP2
 * trace (28k jobs) and on the trace replicated 1, 2, 4, 8 and 10 times,
 * against the targets of issue 4 (each policy on KTH-SP2 in at most 0.5 s;
 * 10x, 285k jobs, in at most 5 s). Prints figures and ratios and the peak
 * memory; never fails on time.
 *
 * Usage: bench_sim [SHARED_DATA_DIR] (default ../shared/data)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "metasched/sim/simulate.h"
#include "metasched/common/util.h"
#include "predictor/predictor.h"

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long
peak_kb (void)
{
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int
main (int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "../shared/data";
    const char *text = simulate_builtin_config ("kth");
    char path[4096];
    ms_siteconf_t *conf;
    predictor_t *pred = predictor_new ();
    ms_predtab_t *tab;
    swf_trace_t *t;
    ms_error_t err;
    double wts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    static const size_t reps[] = { 1, 2, 4, 8, 10 };

    snprintf (path, sizeof (path), "%s/traces/KTH-SP2-1996-2.1-cln.swf.gz",
              data);
    if (swf_load (path, 0, &t, &err) < 0) {
        fprintf (stderr, "bench_sim: %s (give the shared data directory)\n",
                 err.text);
        return 77;
    }
    if (clusterconf_parse (text, strlen (text), "kth", &conf, &err) < 0)
        goto fail;
    for (size_t i = 0; i < conf->narchs; i++)
        if (predictor_add_arch (
                pred, conf->archs[i].name, conf->archs[i].cores_per_node,
                conf->archs[i].freqs_khz, conf->archs[i].nfreqs,
                conf->archs[i].nominal_khz, conf->archs[i].idle_power_w, &err)
            < 0)
            goto fail;
    if (predictor_load_table61 (pred, "skx8168", "clx6254", "skx6148", &err) < 0
        || predtab_build (pred, conf, &tab, &err) < 0)
        goto fail;

    printf ("bench_sim: KTH-SP2 on the kth configuration (3 clusters), EASY "
            "backfill\n\n");
    printf ("%-8s %-24s %9s %9s %9s %9s %10s\n", "copies", "policy", "jobs",
            "wall_s", "target_s", "ratio", "jobs/s");
    for (size_t r = 0; r < sizeof (reps) / sizeof (reps[0]); r++) {
        ms_workload_t *wl;
        ms_simsetup_t su;
        ms_jobrec_t *recs;
        if (workload_from_swf (t, 1, 100, reps[r], &wl, &err) < 0)
            goto fail;
        workload_assign_apps (wl, wts, 8, 1);
        simulate_setup_init (&su);
        su.conf = conf;
        su.tab = tab;
        su.wl = wl;
        recs = ms_xcalloc (wl->njobs, sizeof (*recs));
        for (int k = 0; k < POL_NKINDS; k++) {
            ms_policy_t pol;
            ms_summary_t s;
            double t0, dt, target;
            /* Every policy once at 1x; the baseline and the default at the
             * larger sizes, to see the growth. */
            if (reps[r] > 1 && k != POL_MIN_RUNTIME && k != POL_METASCHED)
                continue;
            policy_init (&pol, (ms_polkind_t)k);
            t0 = now ();
            if (simulate_run (&su, &pol, recs, &s, &err) < 0)
                goto fail;
            dt = now () - t0;
            target = reps[r] == 1 ? 0.5 : 0.5 * reps[r];
            printf ("%-8zu %-24s %9zu %9.3f %9.2f %9.2f %10.0f\n", reps[r],
                    pol.label, wl->njobs, dt, target, dt / target,
                    wl->njobs / dt);
        }
        free (recs);
        workload_free (wl);
    }
    printf ("\ntargets: 0.5 s per policy at 1x; 5 s at 10x (285k jobs); "
            "ratio = wall / target (<= 1 meets it)\n");
    printf ("peak memory (ru_maxrss): %ld KiB\n", peak_kb ());
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
    swf_free (t);
    return 0;
fail:
    fprintf (stderr, "bench_sim: %s\n", err.text);
    return 1;
}
