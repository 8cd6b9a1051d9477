/* bench_decide.c - the cost of metaschedd's decisions: one full cycle's
 * candidates_build + policy_decide (the daemon's and the simulator's
 * code) over 10,000 queued jobs on the test bed's three clusters, each
 * decision entering the view as the daemon's does, per job and in total;
 * beside it the time of one slurmrestd submit on the test bed (a tiny job,
 * cancelled at once). Target: a decision under 1% of one submit. Prints
 * figures, never fails on time. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/core/candidates.h"
#include "metasched/core/policy.h"
#include "partitions/clusterconf.h"
#include "partitions/slurmrest.h"
#include "predictor/predictor.h"
#include "tests/testbed_env.h"

#define NJOBS 10000

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main (void)
{
    char why[256];
    ms_siteconf_t *site;
    predictor_t *pred;
    ms_predtab_t *tab;
    ms_view_t *view;
    ms_policy_t pol;
    ms_cands_t cs = { 0 };
    ms_decision_t dec;
    ms_error_t e;
    double t0, dt, sub = -1;
    size_t decided = 0;

    if (testbed_env_load (why, sizeof (why)) < 0) {
        printf ("bench_decide: no test bed (%s)\n", why);
        return 0;
    }
    if (clusterconf_load (getenv ("MS_CLUSTERS_CONF"), &site, &e) < 0) {
        fprintf (stderr, "bench_decide: %s\n", e.text);
        return 1;
    }
    pred = predictor_new ();
    for (size_t a = 0; a < site->narchs; a++) {
        const ms_arch_t *ar = &site->archs[a];
        pred_signature_t sig = { 0 };
        sig.runtime_s = 3600.0 * 3100000 / ar->nominal_khz;
        sig.power_w = 2.5 * ar->idle_power_w;
        sig.nodes = 1;
        if (predictor_add_arch (pred, ar->name, ar->cores_per_node,
                                ar->freqs_khz, ar->nfreqs, ar->nominal_khz,
                                ar->idle_power_w, &e)
                < 0
            || predictor_set_signature (pred, "unknown", ar->name, &sig, &e)
                   < 0) {
            fprintf (stderr, "bench_decide: %s\n", e.text);
            return 1;
        }
    }
    if (predtab_build (pred, site, &tab, &e) < 0) {
        fprintf (stderr, "bench_decide: %s\n", e.text);
        return 1;
    }
    policy_init (&pol, POL_METASCHED);
    view = view_new (site);
    t0 = now ();
    for (size_t j = 0; j < NJOBS; j++) {
        size_t home = 0;
        int nodes = 1 + (int)(j % 2);
        candidates_build (tab, 0, home, nodes, 600.0 + (double)(j % 50) * 60,
                          view, (double)time (NULL), &cs);
        policy_decide (&pol, site, &cs, view, &dec);
        if (dec.n) {
            const ms_cand_t *c = &cs.c[dec.c[0].cand];
            view_pending_add (view, c->part, 0, nodes, c->t, 0, 0);
            decided++;
        }
    }
    dt = now () - t0;

    /* one real submit through slurmrestd (alpha), then cancel it */
    {
        const ms_clusterconf_t *cl = &site->clusters[0];
        ms_backend_t *b;
        const char *env[] = { "PATH=/usr/bin:/bin", NULL };
        ms_job_request_t req;
        uint64_t id;
        memset (&req, 0, sizeof (req));
        req.user = getenv ("MS_TEST_USER");
        req.name = "bench-decide";
        req.partition = site->parts[0].name;
        req.time_limit_min = 1;
        req.environment = env;
        req.cwd = "/tmp";
        req.std_out = "/dev/null";
        req.nodes = 1;
        req.script = "#!/bin/sh\ntrue\n";
        if (slurmrest_from_conf (cl, &b, &e) == 0) {
            double s0 = now ();
            int n = 0;
            for (int i = 0; i < 5; i++) {
                if (backend_submit (b, &req, &id, &e) < 0)
                    break;
                n++;
                backend_cancel (b, id, &e);
            }
            if (n)
                sub = 0;
            s0 = now ();
            for (int i = 0; i < n; i++) {
                double a = now ();
                if (backend_submit (b, &req, &id, &e) < 0)
                    break;
                sub += now () - a;
                backend_cancel (b, id, &e);
            }
            if (n)
                sub /= n;
            (void)s0;
            backend_destroy (b);
        }
    }
    printf ("decisions: %d queued jobs, %zu placed, on %zu partitions of "
            "%zu clusters\n",
            NJOBS, decided, site->nparts, site->nclusters);
    printf ("  total %.3f s, per job %.1f us\n", dt, dt / NJOBS * 1e6);
    if (sub > 0)
        printf ("one slurmrestd submit: %.2f ms; a decision is %.3f%% of it "
                "(target < 1%%)\n",
                sub * 1e3, dt / NJOBS / sub * 100);
    else
        printf ("one slurmrestd submit: not measured (%s)\n", e.text);
    candidates_free (&cs);
    view_free (view);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (site);
    return 0;
}
