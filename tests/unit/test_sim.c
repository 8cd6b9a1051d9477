/* test_sim.c - whole simulated runs: the invariants on every run (no
 * partition over-allocated, start >= submit, every job ends once, energy
 * >= the idle floor), determinism, the workload generator and the trace
 * conversion, app assignment, and the built-in configurations. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metasched/sim/plot.h"
#include "metasched/sim/seeds.h"
#include "metasched/sim/simulate.h"
#include "metasched/common/util.h"
#include "predictor/predictor.h"
#include "tests/simworld.h"
#include "tests/testutil.h"

typedef struct {
    world_t site; /* tests/simworld.h: the site, predictor and table */
    ms_workload_t *wl;
    ms_simsetup_t su;
} simrun_t;

/* The embedded default, with a small generated workload. */
static void
run_init (simrun_t *w, size_t njobs, uint64_t seed)
{
    const char *text = simulate_builtin_config ("default");
    ms_error_t err;
    ms_genparams_t gp;
    double wts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

    memset (w, 0, sizeof (*w));
    ck_assert (text);
    world_init_site (&w->site, text, "default");
    ck_assert_uint_eq (w->site.tab->napps, 8);
    workload_gen_defaults (&gp);
    gp.seed = seed;
    gp.njobs = njobs;
    gp.mean_interarrival_s = 100;
    gp.max_nodes = 96;
    ck_assert (workload_generate (&gp, &w->wl, &err) == 0);
    workload_assign_apps (w->wl, wts, 8, seed);
    simulate_setup_init (&w->su);
    w->su.conf = w->site.conf;
    w->su.tab = w->site.tab;
    w->su.wl = w->wl;
    w->su.seed = seed;
}

static void
run_fini (simrun_t *w)
{
    workload_free (w->wl);
    world_fini (&w->site);
}

/* The invariants of a finished run, checked from the job records. */
static void
check_invariants (const simrun_t *w, const ms_jobrec_t *recs,
                  const ms_summary_t *s)
{
    size_t done = 0;
    for (size_t i = 0; i < w->wl->njobs; i++) {
        const ms_jobrec_t *r = &recs[i];
        if (r->rejected)
            continue;
        ck_assert_int_eq (r->starts, 1);
        ck_assert_int_eq (r->ends, 1);
        ck_assert (r->start >= r->submit);
        ck_assert (r->end >= r->start);
        ck_assert (r->energy_j >= 0);
        ck_assert_uint_lt (r->part, w->site.conf->nparts);
        done++;
    }
    ck_assert_uint_eq (done, s->done);
    ck_assert_uint_gt (done, 0);
    /* No partition over-allocated: also checked on every start inside the
     * simulator; utilization can then not pass 1. */
    for (size_t p = 0; p < w->site.conf->nparts; p++)
        ck_assert (s->util[p] >= 0 && s->util[p] <= 1 + 1e-9);
    /* Busy nodes draw more than idle ones in these profiles: the system
     * energy is at least the idle floor. */
    ck_assert (s->system_energy_j
               >= metrics_idle_floor (w->site.conf, s->makespan) * (1 - 1e-12));
    ck_assert (s->job_energy_j > 0);
    ck_assert (s->mean_bsld >= 1);
}

START_TEST (test_every_policy_invariants)
{
    simrun_t w;
    ms_jobrec_t *recs;
    ms_error_t err;

    run_init (&w, 400, 7);
    recs = ms_xcalloc (w.wl->njobs, sizeof (*recs));
    for (int k = 0; k < POL_NKINDS; k++) {
        ms_policy_t pol;
        ms_summary_t s;
        policy_init (&pol, (ms_polkind_t)k);
        ck_assert_msg (simulate_run (&w.su, &pol, recs, &s, &err) == 0,
                       "%s: %s", pol.label, err.text);
        check_invariants (&w, recs, &s);
        /* base sends every job to its optimal partition. */
        if (k == POL_BASE)
            ck_assert (fabs (s.opt_share - 1) < 1e-12);
    }
    free (recs);
    run_fini (&w);
}
END_TEST

START_TEST (test_backfill_variants)
{
    simrun_t w;
    ms_jobrec_t *recs;
    ms_error_t err;
    ms_summary_t s[3];

    run_init (&w, 300, 3);
    recs = ms_xcalloc (w.wl->njobs, sizeof (*recs));
    for (int b = SIM_EASY; b <= SIM_CONSERVATIVE; b++) {
        ms_policy_t pol;
        policy_init (&pol, POL_BASE);
        w.su.backfill = (sim_backfill_t)b;
        ck_assert_msg (simulate_run (&w.su, &pol, recs, &s[b], &err) == 0, "%s",
                       err.text);
        check_invariants (&w, recs, &s[b]);
    }
    /* Backfilling cannot make the mean wait worse than strict FCFS on the
     * same jobs here (a loaded single-partition policy). */
    ck_assert (s[SIM_EASY].mean_wait <= s[SIM_FCFS].mean_wait);
    free (recs);
    run_fini (&w);
}
END_TEST

START_TEST (test_deterministic)
{
    simrun_t w1, w2;
    ms_jobrec_t *r1, *r2;
    ms_summary_t s1, s2;
    ms_policy_t pol;
    ms_error_t err;

    run_init (&w1, 300, 11);
    run_init (&w2, 300, 11);
    r1 = ms_xcalloc (w1.wl->njobs, sizeof (*r1));
    r2 = ms_xcalloc (w2.wl->njobs, sizeof (*r2));
    ck_assert_uint_eq (w1.wl->njobs, w2.wl->njobs);
    ck_assert (!memcmp (w1.wl->jobs, w2.wl->jobs,
                        w1.wl->njobs * sizeof (*w1.wl->jobs)));
    for (int k = 0; k < POL_NKINDS; k++) {
        policy_init (&pol, (ms_polkind_t)k);
        ck_assert (simulate_run (&w1.su, &pol, r1, &s1, &err) == 0);
        ck_assert (simulate_run (&w2.su, &pol, r2, &s2, &err) == 0);
        ck_assert (!memcmp (r1, r2, w1.wl->njobs * sizeof (*r1)));
        ck_assert (s1.job_energy_j == s2.job_energy_j);
        ck_assert (s1.mean_response == s2.mean_response);
    }
    free (r1);
    free (r2);
    run_fini (&w1);
    run_fini (&w2);
    /* Another seed, another workload. */
    run_init (&w1, 300, 11);
    run_init (&w2, 300, 12);
    ck_assert (memcmp (w1.wl->jobs, w2.wl->jobs,
                       w1.wl->njobs * sizeof (*w1.wl->jobs)));
    run_fini (&w1);
    run_fini (&w2);
}
END_TEST

START_TEST (test_generator_model)
{
    ms_genparams_t gp;
    ms_workload_t *wl;
    ms_error_t err;
    double mn = 0, mr = 0;

    workload_gen_defaults (&gp);
    gp.njobs = 20000;
    gp.mean_nodes = 8;
    gp.max_nodes = 1000;
    gp.mean_runtime_s = 3600;
    gp.max_runtime_s = 1e6;
    gp.min_runtime_s = 1;
    ck_assert (workload_generate (&gp, &wl, &err) == 0);
    ck_assert_uint_eq (wl->njobs, 20000);
    ck_assert (wl->jobs[0].submit == 0);
    for (size_t i = 0; i < wl->njobs; i++) {
        const ms_wjob_t *j = &wl->jobs[i];
        ck_assert (j->nodes >= 1 && j->nodes <= 1000);
        ck_assert (j->req_time >= j->runtime);
        if (i)
            ck_assert (j->submit >= wl->jobs[i - 1].submit);
        mn += j->nodes;
        mr += j->runtime;
    }
    mn /= wl->njobs;
    mr /= wl->njobs;
    /* The lognormal means, within sampling and rounding error. */
    ck_assert_msg (fabs (mn - 8) < 0.8, "mean nodes %g", mn);
    ck_assert_msg (fabs (mr - 3600) < 200, "mean runtime %g", mr);
    /* The arrival rate: 20000 jobs at 300 s on average. */
    ck_assert (fabs (wl->jobs[wl->njobs - 1].submit / 20000 - 300) < 20);
    workload_free (wl);
    gp.njobs = 0;
    ck_assert_int_eq (workload_generate (&gp, &wl, &err), -1);
}
END_TEST

START_TEST (test_swf_workload_and_apps)
{
    const char *text
        = "; MaxProcs: 64\n"
          "1 100 0 50 8 -1 -1 8 100 -1 1 1 1 3 -1 -1 -1 -1\n"
          "2 110 0 -1 8 -1 -1 8 100 -1 1 1 1 3 -1 -1 -1 -1\n" /* no runtime */
          "3 120 0 60 9 -1 -1 9 100 -1 1 1 1 3 -1 -1 -1 -1\n"
          "4 130 0 70 640 -1 -1 640 100 -1 1 1 1 5 -1 -1 -1 -1\n"
          "5 105 0 70 -1 -1 -1 3 100 -1 1 1 1 5 -1 -1 -1 -1\n";
    swf_trace_t *t;
    ms_workload_t *wl;
    ms_error_t err;
    double wts[4] = { 1, 1, 1, 1 };

    ck_assert (swf_parse (text, strlen (text), "t", 0, &t, &err) == 0);
    ck_assert (workload_from_swf (t, 4, 16, 1, &wl, &err) == 0);
    ck_assert_uint_eq (wl->njobs, 4);
    ck_assert_uint_eq (wl->dropped, 1);
    ck_assert_uint_eq (wl->clipped, 1);
    /* Sorted by submit, from 0; processors to nodes by 4 per node. */
    ck_assert_int_eq (wl->jobs[0].trace_id, 1);
    ck_assert (wl->jobs[0].submit == 0);
    ck_assert_int_eq (wl->jobs[0].nodes, 2);
    ck_assert_int_eq (wl->jobs[1].trace_id, 5); /* requested 3 procs */
    ck_assert_int_eq (wl->jobs[1].nodes, 1);
    ck_assert_int_eq (wl->jobs[2].nodes, 3);  /* 9 procs: 3 nodes */
    ck_assert_int_eq (wl->jobs[3].nodes, 16); /* clipped */
    /* Same executable, same app. */
    workload_assign_apps (wl, wts, 4, 99);
    ck_assert_int_eq (wl->jobs[0].app, wl->jobs[2].app);
    ck_assert_int_eq (wl->jobs[1].app, wl->jobs[3].app);
    workload_free (wl);
    /* Replicated: twice the jobs, the copy after the trace's span. */
    ck_assert (workload_from_swf (t, 4, 16, 2, &wl, &err) == 0);
    ck_assert_uint_eq (wl->njobs, 8);
    ck_assert (wl->jobs[4].submit == 31);
    workload_free (wl);
    swf_free (t);
}
END_TEST

START_TEST (test_app_proportions)
{
    ms_genparams_t gp;
    ms_workload_t *wl;
    ms_error_t err;
    double wts[3] = { 0.5, 0.33, 0.17 };
    size_t cnt[3] = { 0 };

    workload_gen_defaults (&gp);
    gp.njobs = 30000;
    ck_assert (workload_generate (&gp, &wl, &err) == 0);
    workload_assign_apps (wl, wts, 3, 5);
    for (size_t i = 0; i < wl->njobs; i++)
        cnt[wl->jobs[i].app]++;
    for (int a = 0; a < 3; a++)
        ck_assert_msg (fabs ((double)cnt[a] / wl->njobs - wts[a]) < 0.015,
                       "app %d: %zu", a, cnt[a]);
    workload_free (wl);
}
END_TEST

START_TEST (test_builtin_configs_match_examples)
{
    static const char *const names[] = { "default", "eamc", "kth", "curie" };
    for (size_t i = 0; i < 4; i++) {
        char path[4096], *buf;
        size_t len;
        ms_error_t err;
        ms_siteconf_t *conf;
        const char *text = simulate_builtin_config (names[i]);
        snprintf (path, sizeof (path), "%s/doc/examples/sim-%s.conf",
                  test_srcdir (), names[i]);
        ck_assert_msg (ms_read_file (path, 1 << 20, &buf, &len, &err) == 0,
                       "%s", err.text);
        ck_assert_msg (text && !strcmp (buf, text),
                       "%s differs from the built-in text", path);
        free (buf);
        ck_assert_msg (
            clusterconf_parse (text, strlen (text), names[i], &conf, &err) == 0,
            "%s", err.text);
        ck_assert_uint_ge (conf->nparts, 2);
        clusterconf_free (conf);
    }
    ck_assert (simulate_builtin_config ("nope") == NULL);
}
END_TEST

/* With ../shared/data: the EAMC node models; STREAM favours p2 and the
 * seven other apps p1, as the EAMC chapter states. */
START_TEST (test_eamc_models_optimal_partition)
{
    const char *text = simulate_builtin_config ("eamc");
    char dir[4096];
    ms_siteconf_t *conf;
    predictor_t *pred = predictor_new ();
    ms_predtab_t *tab;
    ms_cands_t cs = { 0 };
    ms_error_t err;

    snprintf (dir, sizeof (dir), "%s/profiles/eamc-2hw", test_shared_data ());
    ck_assert (clusterconf_parse (text, strlen (text), "eamc", &conf, &err)
               == 0);
    ck_assert_msg (predictor_load_eamc2hw (pred, dir, &err) == 0, "%s",
                   err.text);
    ck_assert_msg (predtab_build (pred, conf, &tab, &err) == 0, "%s", err.text);
    for (size_t a = 0; a < tab->napps; a++) {
        const ms_predent_t *ref = predtab_get (tab, a, 0, tab->nominal[0]);
        candidates_build (tab, a, 0, 1, ref->t, NULL, 0, &cs);
        ck_assert_uint_eq (policy_optimal_partition (&cs, 2),
                           strcmp (tab->apps[a], "STREAM") ? 0 : 1);
    }
    candidates_free (&cs);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
}
END_TEST

/* A site from a cluster configuration's text whose architectures carry
 * Table 6.1's models (p1 on arch1, p3 on arch3 when not NULL), its
 * predictor and prediction table; returns the index of lu.C. */
static int
table61_site (const char *text, const char *arch1, const char *arch3,
              ms_siteconf_t **confp, predictor_t **predp, ms_predtab_t **tabp)
{
    ms_error_t err;
    int app;

    ck_assert (clusterconf_parse (text, strlen (text), "t", confp, &err) == 0);
    *predp = predictor_new ();
    for (size_t i = 0; i < (*confp)->narchs; i++) {
        const ms_arch_t *a = &(*confp)->archs[i];
        ck_assert (predictor_add_arch (*predp, a->name, a->cores_per_node,
                                       a->freqs_khz, a->nfreqs, a->nominal_khz,
                                       a->idle_power_w, &err)
                   == 0);
    }
    ck_assert (predictor_load_table61 (*predp, arch1, NULL, arch3, &err) == 0);
    ck_assert (predtab_build (*predp, *confp, tabp, &err) == 0);
    app = predtab_app_index (*tabp, "lu.C");
    ck_assert_int_ge (app, 0);
    return app;
}

/* Two simulated clusters of one skx8168 partition each, alpha/batch of
 * alpha_nodes nodes and beta/compute of 10, the Table 6.1 models; returns
 * the index of lu.C. */
static int
two_clusters (int alpha_nodes, ms_siteconf_t **confp, predictor_t **predp,
              ms_predtab_t **tabp)
{
    char text[512];

    snprintf (text, sizeof (text),
              "[architecture skx8168]\ncores_per_node = 48\n"
              "frequencies_khz = 1200000-2700000/100000\n"
              "nominal_khz = 2700000\nidle_power_w = 110\n"
              "[cluster alpha]\nbackend = simulated\n"
              "[partition alpha/batch]\narchitecture = skx8168\nnodes = %d\n"
              "[cluster beta]\nbackend = simulated\n"
              "[partition beta/compute]\narchitecture = skx8168\nnodes = 10\n",
              alpha_nodes);
    return table61_site (text, "skx8168", NULL, confp, predp, tabp);
}

/* Job id of a hand-made workload (trace id the same, user 1, executable
 * unknown): submitted at sub s, of nodes nodes, running rt s, with the
 * limit lim s. */
static ms_wjob_t
hand_job (uint64_t id, double sub, int nodes, double rt, double lim, int app)
{
    return (ms_wjob_t){ .id = id,
                        .trace_id = (int64_t)id,
                        .submit = sub,
                        .nodes = nodes,
                        .runtime = rt,
                        .req_time = lim,
                        .user = 1,
                        .exe = -1,
                        .app = app };
}

/* A hand-made workload of n jobs on the site of table61_site, in su with
 * the simulator's defaults. */
static void
hand_run (ms_simsetup_t *su, ms_workload_t *wl, ms_wjob_t *jobs, size_t n,
          const ms_siteconf_t *conf, const ms_predtab_t *tab)
{
    wl->jobs = jobs;
    wl->njobs = n;
    wl->dropped = wl->clipped = 0;
    simulate_setup_init (su);
    su->conf = conf;
    su->tab = tab;
    su->wl = wl;
}

/* Re-routing (doc/architecture.md "Policies"): a job queued behind a long job
 * on beta while alpha frees up early (its job ends at 2000 s, long before its
 * 100000 s limit) is cancelled and submitted to alpha at the first check after
 * it has waited reroute_after_s (3600 s; checks every 600 s: at 4200 s). Two
 * partitions of the same architecture, so only the predicted waits differ;
 * energy weight 0: nominal frequency, no noise. */
START_TEST (test_reroute)
{
    ms_siteconf_t *conf;
    predictor_t *pred;
    ms_predtab_t *tab;
    ms_workload_t wl;
    ms_wjob_t jobs[3];
    ms_jobrec_t recs[3];
    ms_simsetup_t su;
    ms_policy_t pol;
    ms_summary_t sum;
    ms_error_t err;
    int app;

    app = two_clusters (10, &conf, &pred, &tab);
    memset (jobs, 0, sizeof (jobs));
    jobs[0] = hand_job (1, 0, 10, 2000, 100000, app);
    jobs[1] = hand_job (2, 1, 10, 50000, 60000, app);
    jobs[2] = hand_job (3, 2, 10, 100, 200, app);
    hand_run (&su, &wl, jobs, 3, conf, tab);
    policy_init (&pol, POL_METASCHED);
    pol.w_energy = 0;
    pol.sibling_slack = 0;
    pol.reroute_after_s = 3600;
    ck_assert_msg (simulate_run (&su, &pol, recs, &sum, &err) == 0, "%s",
                   err.text);
    ck_assert_uint_eq (sum.rerouted, 1);
    ck_assert_uint_eq (recs[0].part, 0);
    ck_assert (recs[0].end == 2000);
    ck_assert_uint_eq (recs[1].part, 1);
    ck_assert_uint_eq (recs[2].part, 0);
    ck_assert (recs[2].start == 4200);
    /* Without re-routing it waits for the long job on beta. */
    pol.reroute_after_s = 0;
    ck_assert (simulate_run (&su, &pol, recs, &sum, &err) == 0);
    ck_assert_uint_eq (sum.rerouted, 0);
    ck_assert_uint_eq (recs[2].part, 1);
    ck_assert (recs[2].start >= 50001);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
}
END_TEST

/* The drain price end to end: alpha (20 nodes) alone runs the 20-node
 * jobs. One came at 0 s (a rate of one a day: the span's floor); a
 * 10-node job of 10,000 s that runs alike on alpha and beta comes at
 * 200 s, and on alpha it would add (1 / 86400) (10 / 20) 10000^2 / 2 =
 * 289 s to the next 20-node job's wait: it goes to beta, and the 20-node
 * job of 300 s starts at once on alpha. Without the price the tie goes to
 * alpha and that job waits for it. One entry per job, the nominal clock,
 * no noise. */
START_TEST (test_drain_price)
{
    ms_siteconf_t *conf;
    predictor_t *pred;
    ms_predtab_t *tab;
    ms_workload_t wl;
    ms_wjob_t jobs[3];
    ms_jobrec_t recs[3];
    ms_simsetup_t su;
    ms_policy_t pol;
    ms_summary_t sum;
    ms_error_t err;
    int app;

    app = two_clusters (20, &conf, &pred, &tab);
    memset (jobs, 0, sizeof (jobs));
    jobs[0] = hand_job (1, 0, 20, 100, 2 * 100, app);
    jobs[1] = hand_job (2, 200, 10, 10000, 2 * 10000, app);
    jobs[2] = hand_job (3, 300, 20, 100, 2 * 100, app);
    hand_run (&su, &wl, jobs, 3, conf, tab);
    su.noise_t = 0;
    su.exact_estimates = true;
    policy_init (&pol, POL_METASCHED);
    pol.w_energy = 0;
    pol.sibling_slack = 0;
    pol.reroute_after_s = 0;
    ck_assert (pol.drain_weight == 1);
    ck_assert_msg (simulate_run (&su, &pol, recs, &sum, &err) == 0, "%s",
                   err.text);
    ck_assert_uint_eq (recs[0].part, 0);
    ck_assert_uint_eq (recs[1].part, 1);
    ck_assert (recs[1].start == 200);
    ck_assert_uint_eq (recs[2].part, 0);
    ck_assert_msg (recs[2].start == 300, "the 20-node job started at %.0f s",
                   recs[2].start);
    /* without the price */
    pol.drain_weight = 0;
    ck_assert (simulate_run (&su, &pol, recs, &sum, &err) == 0);
    ck_assert_uint_eq (recs[1].part, 0);
    ck_assert_uint_eq (recs[2].part, 0);
    ck_assert_msg (recs[2].start >= 10200, "the 20-node job started at %.0f s",
                   recs[2].start);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
}
END_TEST

/* metasched's first choices by preference: a job nearly tied between two
 * partitions waits on its first behind jobs that can run only there (nice
 * pref_margin of a step against 0), until it has waited first_age
 * predicted runtimes; then age order puts it first. alpha has 20 nodes,
 * beta 10 of the same architecture, so a 10-node job ties and a 20-node
 * one fits only alpha. */
START_TEST (test_preference_and_age)
{
    enum { NW = 10, NJ = NW + 3 };
    ms_siteconf_t *conf;
    predictor_t *pred;
    ms_predtab_t *tab;
    ms_workload_t wl;
    ms_wjob_t jobs[NJ];
    ms_jobrec_t recs[NJ];
    ms_simsetup_t su;
    ms_policy_t pol;
    ms_summary_t sum;
    ms_error_t err;
    int app;

    app = two_clusters (20, &conf, &pred, &tab);
    memset (jobs, 0, sizeof (jobs));
    /* a 20-node job on alpha and a 10-node one for days (it ties, alpha
     * is busy: it starts on beta), then the tied job, then 20-node jobs
     * of 1000 s that keep alpha busy */
    jobs[0] = hand_job (1, 0, 20, 1000, 2 * 1000, app);
    jobs[1] = hand_job (2, 0, 10, 1000000, 2 * 1000000, app);
    jobs[2] = hand_job (3, 1, 10, 1000, 2 * 1000, app);
    for (int k = 0; k < NW; k++)
        jobs[3 + k] = hand_job (4 + k, 2 + k, 20, 1000, 2 * 1000, app);
    hand_run (&su, &wl, jobs, NJ, conf, tab);
    su.noise_t = 0;
    su.exact_estimates = true; /* predicted from the true runtimes */
    policy_init (&pol, POL_METASCHED);
    pol.w_energy = 0; /* the nominal frequency, where the runtime is */
    pol.reroute_after_s = 0;
    /* the 20-node jobs are alpha's captive jobs: without this the drain
     * price would tip the tie to beta (test_drain_price) */
    pol.drain_weight = 0;
    ck_assert (pol.pref_margin > 0 && pol.first_age > 0);

    /* Held behind the 20-node jobs until it has waited first_age runtimes
     * (checked every reroute_period_s), then first at alpha's next free
     * moment: the 20-node jobs end every 1000 s. */
    ck_assert_msg (simulate_run (&su, &pol, recs, &sum, &err) == 0, "%s",
                   err.text);
    ck_assert_uint_eq (recs[1].part, 1);
    ck_assert_uint_eq (recs[2].part, 0);
    ck_assert (recs[2].start >= 1 + pol.first_age * 1000);
    ck_assert_msg (recs[2].start
                       <= 1 + pol.first_age * 1000 + su.reroute_period_s
                              + 1000,
                   "the tied job started at %.0f s", recs[2].start);
    ck_assert (recs[3].start < recs[2].start);
    ck_assert (recs[3 + NW - 1].start > recs[2].start);
    /* Never lifted: it waits for every 20-node job. */
    pol.first_age = 0;
    ck_assert (simulate_run (&su, &pol, recs, &sum, &err) == 0);
    ck_assert_uint_eq (recs[2].part, 0);
    for (int k = 0; k < NW; k++)
        ck_assert (recs[2].start >= recs[3 + k].end);
    /* No preference: first choices all at nice 0, age order at once. */
    pol.pref_margin = 0;
    ck_assert (simulate_run (&su, &pol, recs, &sum, &err) == 0);
    ck_assert (recs[2].start == 1000);
    ck_assert (recs[3].start > recs[2].start);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
}
END_TEST

/* A sibling held back on a busy partition (rank.c, hold_sibling): lu.C
 * prefers alpha's Platinum 8168 to gamma's Gold 6148 (Table 6.1 p1 and
 * p3, 10 nodes each). A keeps alpha busy for a day; B comes at 1 s and
 * takes gamma at once (free: its sibling there is not held), runs 300 s
 * at home (about 360 s there) but asks 20,000. J comes at 2 s: alpha
 * busy, gamma predicted busy for far longer than half J's runtime there,
 * so J's sibling on gamma waits out its hold: it does not take gamma's
 * nodes when B ends early, and starts there after its hold, long before A
 * ends. With sibling_hold 0 it takes them the moment B ends. */
START_TEST (test_sibling_hold)
{
    ms_siteconf_t *conf;
    predictor_t *pred;
    ms_predtab_t *tab;
    ms_workload_t wl;
    ms_wjob_t jobs[3];
    ms_jobrec_t recs[3];
    ms_simsetup_t su;
    ms_policy_t pol;
    ms_summary_t sum;
    ms_error_t err;
    const char *text
        = "[architecture skx8168]\ncores_per_node = 48\n"
          "frequencies_khz = 1200000-2700000/100000\n"
          "nominal_khz = 2700000\nidle_power_w = 110\n"
          "[architecture skx6148]\ncores_per_node = 40\n"
          "frequencies_khz = 1000000-2400000/100000\n"
          "nominal_khz = 2400000\nidle_power_w = 90\n"
          "[cluster alpha]\nbackend = simulated\n"
          "[partition alpha/batch]\narchitecture = skx8168\nnodes = 10\n"
          "[cluster gamma]\nbackend = simulated\n"
          "[partition gamma/short]\narchitecture = skx6148\nnodes = 10\n";
    int app;

    app = table61_site (text, "skx8168", "skx6148", &conf, &pred, &tab);
    memset (jobs, 0, sizeof (jobs));
    jobs[0] = hand_job (1, 0, 10, 86400, 2 * 86400, app);
    jobs[1] = hand_job (2, 1, 10, 300, 20000, app);
    jobs[2] = hand_job (3, 2, 10, 2000, 4000, app);
    hand_run (&su, &wl, jobs, 3, conf, tab);
    su.noise_t = 0;
    policy_init (&pol, POL_METASCHED);
    pol.reroute_after_s = 0;
    ck_assert_msg (simulate_run (&su, &pol, recs, &sum, &err) == 0, "%s",
                   err.text);
    ck_assert_uint_eq (recs[0].part, 0);
    ck_assert_uint_eq (recs[1].part, 1);
    ck_assert (recs[1].start == 1);
    ck_assert_uint_eq (recs[2].part, 1);
    ck_assert_msg (recs[2].start > recs[1].end && recs[2].start < recs[0].end,
                   "J started at %.0f s (B ended at %.0f s)", recs[2].start,
                   recs[1].end);
    pol.sibling_hold = 0;
    ck_assert (simulate_run (&su, &pol, recs, &sum, &err) == 0);
    ck_assert_uint_eq (recs[2].part, 1);
    ck_assert (recs[2].start == recs[1].end);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
}
END_TEST

/* --seeds lists: numbers and ranges in order, each seed once; a bad
 * token, a reversed range, a seed twice or too many refused. */
START_TEST (test_seeds_parse)
{
    uint64_t *v = NULL;
    size_t n = 0;
    ms_error_t e;
    const char *bad[] = { "", "x", "1-", "-3", "5-1", "1,,2", "1.5", "+2",
                          "1,2,1", "3-6,5", "1-1000000", NULL };

    ck_assert_int_eq (seeds_parse ("1,3,10-12", &v, &n, &e), 0);
    ck_assert_uint_eq (n, 5);
    ck_assert (v[0] == 1 && v[1] == 3 && v[2] == 10 && v[3] == 11
               && v[4] == 12);
    free (v);
    ck_assert_int_eq (seeds_parse ("7-7", &v, &n, &e), 0);
    ck_assert (n == 1 && v[0] == 7);
    free (v);
    for (int i = 0; bad[i]; i++) {
        ck_assert_msg (seeds_parse (bad[i], &v, &n, &e) < 0, "'%s'", bad[i]);
        ck_assert (v == NULL && n == 0);
        ck_assert_msg (strstr (e.text, "--seeds") != NULL, "%s", e.text);
    }
}
END_TEST

/* Rows over seeds: mean and sample sd per row; against a reference, the
 * differences paired seed by seed; a reference no row has is refused with
 * the rows there are. */
START_TEST (test_seeds_stats)
{
    ms_seedruns_t *r = seedruns_new ();
    ms_summary_t a, b;
    ms_seedstat_t *st = NULL;
    ms_seedpair_t *pr = NULL;
    size_t n, np;
    ms_error_t e;
    /* seed s: ref energy 100 s, response 10; x: energy 90 s + 10 (s - 1),
     * response 11 - s */
    for (int s = 1; s <= 3; s++) {
        memset (&a, 0, sizeof (a));
        memset (&b, 0, sizeof (b));
        snprintf (a.label, sizeof (a.label), "ref");
        a.job_energy_j = 100.0 * s;
        a.mean_response = 10;
        a.killed = (size_t)s;
        snprintf (b.label, sizeof (b.label), "x");
        b.job_energy_j = 90.0 * s + 10 * (s - 1);
        b.mean_response = 11 - s;
        seedruns_add (r, (uint64_t)s, "policy", &a);
        seedruns_add (r, (uint64_t)s, "policy", &b);
    }
    /* x only on seed 9: not paired */
    b.job_energy_j = 1;
    seedruns_add (r, 9, "sweep", &b);
    n = seedruns_stats (r, &st);
    ck_assert_uint_eq (n, 3);
    ck_assert_str_eq (st[0].label, "ref");
    ck_assert_uint_eq (st[0].n, 3);
    ck_assert (fabs (st[0].job_energy_j - 200) < 1e-9);
    ck_assert (fabs (st[0].job_energy_sd - 100) < 1e-9);
    ck_assert (fabs (st[0].killed - 2) < 1e-9);
    ck_assert (fabs (st[1].response_s - 9) < 1e-9);
    ck_assert (fabs (st[1].response_sd - 1) < 1e-9);
    ck_assert_str_eq (st[2].group, "sweep");
    ck_assert (isnan (st[2].job_energy_sd));
    free (st);
    ck_assert_int_eq (seedruns_versus (r, "ref", &pr, &np, &e), 0);
    ck_assert_uint_eq (np, 2);
    ck_assert_str_eq (pr[0].label, "x");
    ck_assert_uint_eq (pr[0].n, 3);
    /* energy: -10%, -5%, -3.33%; response: 0%, -10%, -20% */
    ck_assert (fabs (pr[0].d_energy - (-10 - 5 - 10.0 / 3) / 3) < 1e-9);
    ck_assert (fabs (pr[0].d_response - (-10)) < 1e-9);
    ck_assert (fabs (pr[0].d_response_sd - 10) < 1e-9);
    ck_assert_uint_eq (pr[0].both_lower, 2);
    ck_assert_uint_eq (pr[1].n, 0); /* the sweep row shares no seed */
    free (pr);
    ck_assert_int_lt (seedruns_versus (r, "nosuch", &pr, &np, &e), 0);
    ck_assert_msg (strstr (e.text, "'nosuch' (the rows: ref, x)") != NULL,
                   "%s", e.text);
    seedruns_free (r);
}
END_TEST

/* The sweep's labels in the Pareto plot cover no marker, no other label
 * and stay in the plot when a place beside their point allows it. */
START_TEST (test_plot_labels)
{
    /* axes [0, 1] x [0, 1] on PLOT_AREA_W x PLOT_AREA_H pixels */
    double px = 1 / PLOT_AREA_W, py = 1 / PLOT_AREA_H;
    double lx[2], ly[2], mx[1], my[1];
    const char *tx[2] = { "w0.5", "w0.6" };
    plot_label_pos_t pos[2];

    /* alone in the middle: to the right */
    lx[0] = 0.5;
    ly[0] = 0.5;
    plot_place_labels (lx, ly, tx, 1, NULL, NULL, 0, 0, 1, 0, 1, pos);
    ck_assert_int_eq (pos[0], PLOT_LABEL_RIGHT);
    /* a policy's marker 20 px to its right: elsewhere */
    mx[0] = 0.5 + 20 * px;
    my[0] = 0.5;
    plot_place_labels (lx, ly, tx, 1, mx, my, 1, 0, 1, 0, 1, pos);
    ck_assert_int_ne (pos[0], PLOT_LABEL_RIGHT);
    /* at the right edge: not out of the plot */
    lx[0] = 1 - 5 * px;
    plot_place_labels (lx, ly, tx, 1, NULL, NULL, 0, 0, 1, 0, 1, pos);
    ck_assert_int_eq (pos[0], PLOT_LABEL_LEFT);
    /* two points 8 px apart, one above the other: the second label does
     * not go where the first is */
    lx[0] = lx[1] = 0.5;
    ly[0] = 0.5;
    ly[1] = 0.5 - 8 * py;
    plot_place_labels (lx, ly, tx, 2, NULL, NULL, 0, 0, 1, 0, 1, pos);
    ck_assert_int_eq (pos[0], PLOT_LABEL_RIGHT);
    ck_assert_int_ne (pos[1], PLOT_LABEL_RIGHT);
    ck_assert_int_ne (pos[1], PLOT_LABEL_ABOVE);
}
END_TEST

/* The metric definitions of doc/architecture.md "Simulator" on two
 * hand-computed jobs on the default configuration (alpha/batch: 128 nodes at 110 W idle, beta: 96 at
 * 100 W, gamma: 96 at 90 W). */
START_TEST (test_metrics_definitions)
{
    const char *text = simulate_builtin_config ("default");
    ms_siteconf_t *conf;
    ms_error_t err;
    ms_jobrec_t r[3];
    ms_summary_t s;
    double util[4 * 3], t0, bw;

    ck_assert (clusterconf_parse (text, strlen (text), "d", &conf, &err) == 0);
    memset (r, 0, sizeof (r));
    /* Job 1: submit 0, start 100, end 1100, 2 nodes on alpha at 2.7 GHz,
     * 300 W per node. Job 2: submit 50, start 50, end 55 (5 s), 1 node on
     * beta at 1.5 GHz, 200 W; not on its optimal partition. Job 3:
     * rejected. */
    r[0] = (ms_jobrec_t){ .submit = 0, .start = 100, .end = 1100, .nodes = 2,
                          .part = 0, .opt_part = 0, .f_khz = 2700000,
                          .energy_j = 300.0 * 2 * 1000, .starts = 1,
                          .ends = 1 };
    r[1] = (ms_jobrec_t){ .submit = 50, .start = 50, .end = 55, .nodes = 1,
                          .part = 1, .opt_part = 0, .f_khz = 1500000,
                          .energy_j = 200.0 * 5, .starts = 1, .ends = 1 };
    r[2] = (ms_jobrec_t){ .submit = 60, .nodes = 1, .part = SIZE_MAX,
                          .opt_part = SIZE_MAX, .rejected = true };
    memset (&s, 0, sizeof (s));
    metrics_summarize (conf, r, 3, &s);
    ck_assert_uint_eq (s.done, 2);
    ck_assert_uint_eq (s.rejected, 1);
    /* wait (100 + 0) / 2; response (1100 + 5) / 2. */
    ck_assert (fabs (s.mean_wait - 50) < 1e-9);
    ck_assert (fabs (s.mean_response - 552.5) < 1e-9);
    /* bounded slowdown: max (1, 1100 / 1000) and max (1, 5 / max (5, 10)). */
    ck_assert (fabs (s.mean_bsld - (1.1 + 1) / 2) < 1e-9);
    ck_assert (fabs (s.makespan - 1100) < 1e-9);
    ck_assert (fabs (s.job_energy_j - 601000) < 1e-6);
    /* Idle: every node over the makespan less the busy node-seconds. */
    double idle = (128 * 1100 - 2000) * 110.0 + (96 * 1100 - 5) * 100.0
                  + 96 * 1100 * 90.0;
    ck_assert (fabs (s.idle_energy_j - idle) < 1e-3);
    ck_assert (fabs (s.system_energy_j - (601000 + idle)) < 1e-3);
    ck_assert (fabs (s.edp - s.system_energy_j * 1100) < 1);
    ck_assert (fabs (s.mean_ghz - 2.1) < 1e-9);
    ck_assert (fabs (s.opt_share - 0.5) < 1e-9);
    ck_assert (fabs (s.util[0] - 2000.0 / (128 * 1100)) < 1e-12);
    ck_assert (fabs (s.util[1] - 5.0 / (96 * 1100)) < 1e-12);
    ck_assert (s.util[2] == 0);
    /* Over 4 bins of 275 s, alpha is busy with 2 nodes from 100 s on. */
    metrics_utilization_series (conf, r, 3, 4, util, &t0, &bw);
    ck_assert (t0 == 0 && fabs (bw - 275) < 1e-9);
    ck_assert (fabs (util[0 * 3 + 0] - 2 * 175.0 / (275 * 128)) < 1e-12);
    ck_assert (fabs (util[3 * 3 + 0] - 2.0 / 128) < 1e-12);
    ck_assert (fabs (util[0 * 3 + 1] - 5.0 / (275 * 96)) < 1e-12);
    clusterconf_free (conf);
}
END_TEST

/* Plots: data and scripts always; images with gnuplot; without it the
 * call says so (1) and fails nothing. */
START_TEST (test_plots)
{
    char dir[] = "/tmp/ms-test-plot-XXXXXX", path[256];
    ms_summary_t rows[2];
    ms_error_t err;
    const char *old = getenv ("PATH");
    char *saved = old ? strdup (old) : NULL;
    struct stat st;
    int rc;

    ck_assert (mkdtemp (dir));
    memset (rows, 0, sizeof (rows));
    strcpy (rows[0].label, "a");
    rows[0].mean_response = 3600;
    rows[0].job_energy_j = 2e9;
    strcpy (rows[1].label, "b");
    rows[1].mean_response = 7200;
    rows[1].job_energy_j = 1e9;
    setenv ("PATH", "/nonexistent", 1);
    ck_assert_int_eq (plot_pareto (dir, "t", rows, 2, rows, 2, &err), 1);
    if (saved)
        setenv ("PATH", saved, 1);
    snprintf (path, sizeof (path), "%s/pareto.dat", dir);
    ck_assert_int_eq (stat (path, &st), 0);
    ck_assert_int_gt (st.st_size, 0);
    snprintf (path, sizeof (path), "%s/pareto.png", dir);
    ck_assert_int_ne (stat (path, &st), 0);
    rc = plot_pareto (dir, "t", rows, 2, rows, 2, &err);
    ck_assert_msg (rc >= 0, "%s", err.text);
    if (rc == 0) {
        ck_assert_int_eq (stat (path, &st), 0);
        ck_assert_int_gt (st.st_size, 0);
        snprintf (path, sizeof (path), "%s/pareto.svg", dir);
        ck_assert_int_eq (stat (path, &st), 0);
    }
    /* no anchor and no metasched row: nothing to zoom on */
    snprintf (path, sizeof (path), "%s/pareto-zoom-plot.gp", dir);
    ck_assert_int_ne (stat (path, &st), 0);
    static const char *const names[]
        = { "pareto.dat", "pareto.gp", "pareto-plot.gp", "pareto.png",
            "pareto.svg" };
    for (size_t i = 0; i < 5; i++) {
        snprintf (path, sizeof (path), "%s/%s", dir, names[i]);
        unlink (path);
    }
    rmdir (dir);
    free (saved);
}
END_TEST

static char *
slurp (const char *path)
{
    FILE *f = fopen (path, "r");
    char *buf = calloc (1, 65536);
    size_t n;

    ck_assert (f && buf);
    n = fread (buf, 1, 65535, f);
    buf[n] = '\0';
    fclose (f);
    return buf;
}

/* Utilization: one panel per partition (small multiples), each with every
 * run's raw bins (faint, untitled) and their moving average (bold, titled
 * once per run), the key in the first panel only; the data file carries
 * the averages beside the raw values, and a flat series stays flat. */
START_TEST (test_plot_utilization)
{
    const char *text = simulate_builtin_config ("default");
    const char *labels[2] = { "min_runtime", "metasched-w0.5" };
    char dir[] = "/tmp/ms-test-util-XXXXXX", path[256], *gp, *dat, *at;
    ms_siteconf_t *conf;
    ms_error_t err;
    enum { NB = 100 };
    double *series[2], binw[2] = { 3600, 3600 }, v;
    size_t np, plots = 0, keys = 0, titled = 0;
    int rc;

    ck_assert (clusterconf_parse (text, strlen (text), "d", &conf, &err) == 0);
    np = conf->nparts;
    ck_assert_uint_ge (np, 2);
    for (size_t k = 0; k < 2; k++) {
        series[k] = calloc (NB * np, sizeof (double));
        ck_assert (series[k]);
        for (size_t b = 0; b < NB; b++)
            for (size_t p = 0; p < np; p++) /* noise on part 0, flat else */
                series[k][b * np + p] = p == 0 ? (b % 2 ? 0.9 : 0.1) : 0.5;
    }
    ck_assert (mkdtemp (dir));
    rc = plot_utilization (dir, "t", conf, labels,
                           (const double *const *)series, 2, NB, 0, binw, &err);
    ck_assert_msg (rc >= 0, "%s", err.text);
    snprintf (path, sizeof (path), "%s/utilization-plot.gp", dir);
    gp = slurp (path);
    ck_assert (strstr (gp, "set multiplot"));
    for (at = gp; (at = strstr (at, "\nplot ")); at++)
        plots++;
    ck_assert_uint_eq (plots, np);
    for (at = gp; (at = strstr (at, "set key outside")); at++)
        keys++;
    ck_assert_uint_eq (keys, 1);
    for (at = gp; (at = strstr (at, " title 'min_runtime'")); at++)
        titled++;
    ck_assert_uint_eq (titled, np);
    for (size_t p = 0; p < np; p++) {
        char yl[160];
        snprintf (yl, sizeof (yl), "set ylabel '%s (%%)'", conf->parts[p].name);
        ck_assert_msg (strstr (gp, yl), "no panel for %s", conf->parts[p].name);
    }
    snprintf (path, sizeof (path), "%s/utilization.dat", dir);
    dat = slurp (path);
    ck_assert (strstr (dat, "_smoothed"));
    /* the middle bin of the first run: part 0 raw is 10% or 90%, its
     * average over 5 bins 42% or 58%; the flat parts stay at 50% */
    {
        const char *line = dat;
        for (int l = 0; l < 1 + NB / 2; l++)
            line = strchr (line, '\n') + 1;
        char *end;
        strtod (line, &end); /* time */
        for (size_t c = 0; c < 2 * np; c++) {
            v = strtod (end, &end);
            if (c >= np)
                ck_assert_msg (fabs (v - 50) < 10, "column %zu: %g", c, v);
            else if (c > 0)
                ck_assert (fabs (v - 50) < 1e-6);
            else
                ck_assert (fabs (v - 10) < 1e-6 || fabs (v - 90) < 1e-6);
        }
    }
    static const char *const names[]
        = { "utilization.dat", "utilization.gp", "utilization-plot.gp",
            "utilization.png", "utilization.svg" };
    for (size_t i = 0; i < 5; i++) {
        snprintf (path, sizeof (path), "%s/%s", dir, names[i]);
        unlink (path);
    }
    rmdir (dir);
    free (gp);
    free (dat);
    free (series[0]);
    free (series[1]);
    clusterconf_free (conf);
}
END_TEST

/* A row of the Pareto plot: its label, mean response (h), job energy
 * (GJ). */
static void
set_row (ms_summary_t *r, const char *label, double h, double gj)
{
    snprintf (r->label, sizeof (r->label), "%s", label);
    r->mean_response = h * 3600;
    r->job_energy_j = gj * 1e9;
}

/* The zoom around the anchors and metasched: every row in its box named,
 * a row far away left out, the sweep point that is metasched's own row
 * named once, and the corner better than every PriorityInc-V row shaded
 * up to the fastest and the leanest of them. */
START_TEST (test_plot_zoom)
{
    char dir[] = "/tmp/ms-test-zoom-XXXXXX", path[256];
    ms_summary_t rows[4], sweep[2];
    ms_error_t err;
    char *gp;
    int rc;

    ck_assert (mkdtemp (dir));
    memset (rows, 0, sizeof (rows));
    memset (sweep, 0, sizeof (sweep));
    set_row (&rows[0], "min_runtime", 3, 900);
    set_row (&rows[1], "eamc_priority_inc_v-1", 2.53, 725);
    set_row (&rows[2], "eamc_priority_inc_v-1.5", 2.49, 735);
    set_row (&rows[3], "metasched-w0.5", 2.52, 720);
    sweep[0] = rows[3];
    set_row (&sweep[1], "metasched-w0.4", 2.50, 726);
    rc = plot_pareto (dir, "t", rows, 4, sweep, 2, &err);
    ck_assert_msg (rc >= 0, "%s", err.text);
    snprintf (path, sizeof (path), "%s/pareto-zoom-plot.gp", dir);
    gp = slurp (path);
    ck_assert_ptr_nonnull (
        strstr (gp, "rect from graph 0, graph 0 to first 2.4900, first "
                    "725.0000"));
    ck_assert_ptr_nonnull (strstr (gp, "'eamc_priority_inc_v-1' at"));
    ck_assert_ptr_nonnull (strstr (gp, "'eamc_priority_inc_v-1.5' at"));
    ck_assert_ptr_nonnull (strstr (gp, "'metasched-w0.5' at"));
    ck_assert_ptr_nonnull (strstr (gp, "'w0.4' at"));
    ck_assert_ptr_null (strstr (gp, "'w0.5' at"));
    ck_assert_ptr_null (strstr (gp, "min_runtime"));
    free (gp);
    if (rc == 0) {
        struct stat st;
        snprintf (path, sizeof (path), "%s/pareto-zoom.png", dir);
        ck_assert_int_eq (stat (path, &st), 0);
        ck_assert_int_gt (st.st_size, 0);
    }
    static const char *const names[]
        = { "pareto.dat",          "pareto.gp",       "pareto-plot.gp",
            "pareto.png",          "pareto.svg",      "pareto-zoom.gp",
            "pareto-zoom-plot.gp", "pareto-zoom.png", "pareto-zoom.svg" };
    for (size_t i = 0; i < 9; i++) {
        snprintf (path, sizeof (path), "%s/%s", dir, names[i]);
        unlink (path);
    }
    ck_assert_int_eq (rmdir (dir), 0);
}
END_TEST

/* The simulated jobs' user names and comments (ms_prefix_ll) are what
 * snprintf "%s%lld" writes, truncation and its return value included. */
START_TEST (test_prefix_ll)
{
    static const long long vs[]
        = { 0, 7, -1, 10, 123456789, LLONG_MAX, LLONG_MIN };
    static const char *const ps[] = { "", "user", "metasched:" };
    static const size_t sizes[] = { 0, 1, 3, 5, 9, 32 };

    for (size_t i = 0; i < sizeof (vs) / sizeof (vs[0]); i++)
        for (size_t j = 0; j < 3; j++)
            for (size_t k = 0; k < sizeof (sizes) / sizeof (sizes[0]); k++) {
                char a[40], b[40];
                memset (a, 'x', sizeof (a));
                memset (b, 'x', sizeof (b));
                size_t n = ms_prefix_ll (a, sizes[k], ps[j], vs[i]);
                int m = snprintf (b, sizes[k], "%s%lld", ps[j], vs[i]);
                ck_assert_uint_eq (n, (size_t)m);
                ck_assert_msg (!memcmp (a, b, sizeof (a)), "%s%lld in %zu",
                               ps[j], vs[i], sizes[k]);
            }
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("sim");
    TCase *tc = tcase_create ("runs");

    tcase_set_timeout (tc, 600);
    tcase_add_test (tc, test_every_policy_invariants);
    tcase_add_test (tc, test_backfill_variants);
    tcase_add_test (tc, test_deterministic);
    tcase_add_test (tc, test_generator_model);
    tcase_add_test (tc, test_swf_workload_and_apps);
    tcase_add_test (tc, test_app_proportions);
    tcase_add_test (tc, test_builtin_configs_match_examples);
    tcase_add_test (tc, test_reroute);
    tcase_add_test (tc, test_preference_and_age);
    tcase_add_test (tc, test_sibling_hold);
    tcase_add_test (tc, test_metrics_definitions);
    tcase_add_test (tc, test_plots);
    tcase_add_test (tc, test_plot_labels);
    tcase_add_test (tc, test_plot_zoom);
    tcase_add_test (tc, test_plot_utilization);
    tcase_add_test (tc, test_drain_price);
    tcase_add_test (tc, test_seeds_parse);
    tcase_add_test (tc, test_seeds_stats);
    tcase_add_test (tc, test_prefix_ll);
    if (test_shared_data ())
        tcase_add_test (tc, test_eamc_models_optimal_partition);
    else
        printf ("# shared data absent: the EAMC node models are not "
                "checked\n");
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
