/* test_sim_gpu.c - GPU jobs: clusters.conf's GPU keys and their errors, a
 * GPU job's candidates (only where its GPUs are, with their busy power),
 * and whole simulated runs with GPU jobs (doc/examples/sim-gpu.conf's
 * site): every GPU job runs where GPUs are, the invariants hold, and the
 * GPU energy and utilization follow their definitions. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "metasched/sim/simulate.h"
#include "partitions/slurmrest.h"
#include "predictor/predictor.h"
#include "tests/simworld.h"
#include "tests/testutil.h"

static const char site[] = SIMWORLD_GPU_SITE;

static void
world_init (world_t *w)
{
    world_init_site (w, site, "gpu");
}

START_TEST (test_conf_keys)
{
    ms_siteconf_t *c;
    ms_error_t err;
    const ms_partconf_t *p;
    char bad[2048];

    ck_assert (clusterconf_parse (site, strlen (site), "gpu", &c, &err) == 0);
    p = clusterconf_partition (c, "gpu", "a100");
    ck_assert (p);
    ck_assert_int_eq (p->gpus_per_node, 4);
    ck_assert_str_eq (p->gpu_model, "a100");
    ck_assert (p->gpu_idle_power_w == 50 && p->gpu_busy_power_w == 300);
    ck_assert_int_eq (clusterconf_partition (c, "cpu", "batch")->gpus_per_node,
                      0);
    ck_assert_int_eq (candidates_max_gpus (c), 4);
    clusterconf_free (c);

    /* a model without GPUs, busy below idle, a count out of range */
    snprintf (bad, sizeof (bad), "%s", site);
    strcat (bad, "[partition cpu/x]\narchitecture = skx8168\nnodes = 2\n"
                 "gpu_model = h100\n");
    ck_assert (clusterconf_parse (bad, strlen (bad), "bad", &c, &err) < 0);
    ck_assert_msg (strstr (err.text, "bad:") && strstr (err.text, "cpu/x")
                       && strstr (err.text, "need gpus_per_node"),
                   "%s", err.text);
    snprintf (bad, sizeof (bad), "%s", site);
    strcat (bad, "[partition cpu/x]\narchitecture = skx8168\nnodes = 2\n"
                 "gpus_per_node = 2\ngpu_idle_power_w = 90\n"
                 "gpu_busy_power_w = 80\n");
    ck_assert (clusterconf_parse (bad, strlen (bad), "bad", &c, &err) < 0);
    ck_assert_msg (strstr (err.text, "below gpu_idle_power_w"), "%s",
                   err.text);
    snprintf (bad, sizeof (bad), "%s", site);
    strcat (bad, "[partition cpu/x]\narchitecture = skx8168\nnodes = 2\n"
                 "gpus_per_node = 65\n");
    ck_assert (clusterconf_parse (bad, strlen (bad), "bad", &c, &err) < 0);
    ck_assert_msg (strstr (err.text, "gpus_per_node"), "%s", err.text);
}
END_TEST

START_TEST (test_candidates)
{
    world_t w;
    ms_cands_t cs = { 0 }, all = { 0 };
    size_t a100 = 1, v100 = 2;

    world_init (&w);
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &all);
    ck_assert_uint_gt (all.n, 0);
    /* a CPU job keeps every candidate */
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_gpus (w.conf, 2, 0, &cs);
    ck_assert_uint_eq (cs.n, all.n);
    /* 2 GPUs per node: both GPU partitions, with the GPUs' busy power */
    candidates_gpus (w.conf, 2, 2, &cs);
    ck_assert_uint_gt (cs.n, 0);
    for (size_t i = 0; i < cs.n; i++) {
        const ms_cand_t *c = &cs.c[i];
        const ms_cand_t *o = NULL;
        double busy = c->part == a100 ? 300 : 220;
        ck_assert (c->part == a100 || c->part == v100);
        for (size_t k = 0; k < all.n; k++)
            if (all.c[k].part == c->part && all.c[k].fi == c->fi)
                o = &all.c[k];
        ck_assert (o);
        ck_assert (fabs (c->p - (o->p + 2 * busy)) < 1e-9);
        ck_assert (fabs (c->e - c->p * c->t * 2) < 1e-6 * c->e);
        ck_assert (c->e_hi >= c->e);
    }
    /* 4: the a100 partition only; 5: nowhere */
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_gpus (w.conf, 2, 4, &cs);
    ck_assert_uint_gt (cs.n, 0);
    for (size_t i = 0; i < cs.n; i++)
        ck_assert_uint_eq (cs.c[i].part, a100);
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_gpus (w.conf, 2, 5, &cs);
    ck_assert_uint_eq (cs.n, 0);
    candidates_free (&cs);
    candidates_free (&all);
    world_fini (&w);
}
END_TEST

START_TEST (test_runs)
{
    world_t w;
    ms_workload_t *wl;
    ms_genparams_t gp;
    ms_simsetup_t su;
    ms_jobrec_t *recs;
    ms_error_t err;
    double wts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    size_t ngpu;

    world_init (&w);
    workload_gen_defaults (&gp);
    gp.njobs = 300;
    gp.mean_interarrival_s = 300;
    gp.mean_nodes = 3;
    gp.max_nodes = 64;
    ck_assert (workload_generate (&gp, &wl, &err) == 0);
    workload_assign_apps (wl, wts, 8, 3);
    ngpu = workload_assign_gpus (wl, 0.3, 4, 16, 3);
    /* about 30% (binomial, 300 jobs: within 5 SDs) */
    ck_assert_msg (ngpu > 60 && ngpu < 120, "%zu GPU jobs", ngpu);
    for (size_t i = 0; i < wl->njobs; i++)
        if (wl->jobs[i].gpus)
            ck_assert (wl->jobs[i].gpus <= 4 && wl->jobs[i].nodes <= 16);
    simulate_setup_init (&su);
    su.conf = w.conf;
    su.tab = w.tab;
    su.wl = wl;
    su.seed = 3;
    recs = ms_xcalloc (wl->njobs, sizeof (*recs));
    for (int k = 0; k < POL_NKINDS; k++) {
        ms_policy_t pol;
        ms_summary_t s;
        double gbusy[3] = { 0 }, gidle = 0, e_gpu = 0;
        policy_init (&pol, (ms_polkind_t)k);
        ck_assert_msg (simulate_run (&su, &pol, recs, &s, &err) == 0, "%s: %s",
                       pol.label, err.text);
        ck_assert_uint_eq (s.rejected, 0);
        ck_assert_uint_eq (s.done, wl->njobs);
        ck_assert (s.gpus);
        for (size_t i = 0; i < wl->njobs; i++) {
            const ms_jobrec_t *r = &recs[i];
            const ms_partconf_t *pc = &w.conf->parts[r->part];
            ck_assert_int_eq (r->starts, 1);
            ck_assert_int_eq (r->ends, 1);
            ck_assert (r->start >= r->submit);
            ck_assert_int_eq (r->gpus, wl->jobs[i].gpus);
            /* a GPU job runs only where its GPUs are, and draws their
             * busy power besides its nodes' */
            ck_assert_int_ge (pc->gpus_per_node, r->gpus);
            ck_assert (r->energy_j >= r->gpus * r->nodes * pc->gpu_busy_power_w
                                          * (r->end - r->start)
                                      * (1 - 1e-9));
            gbusy[r->part] += r->gpus * r->nodes * (r->end - r->start);
        }
        /* GPU energy and utilization by their definitions */
        for (size_t p = 0; p < 3; p++) {
            const ms_partconf_t *pc = &w.conf->parts[p];
            double cap = pc->gpus_per_node * pc->nodes * s.makespan;
            if (!pc->gpus_per_node) {
                ck_assert (s.gpu_util[p] == 0);
                continue;
            }
            ck_assert (fabs (s.gpu_util[p] - gbusy[p] / cap) < 1e-9);
            ck_assert (s.gpu_util[p] >= 0 && s.gpu_util[p] <= 1 + 1e-9);
            e_gpu += gbusy[p] * pc->gpu_busy_power_w
                     + (cap - gbusy[p]) * pc->gpu_idle_power_w;
            gidle += (cap - gbusy[p]) * pc->gpu_idle_power_w;
        }
        ck_assert (fabs (s.gpu_energy_j - e_gpu) <= 1e-9 * e_gpu);
        /* the idle GPUs' energy is in the system energy, above the nodes'
         * idle floor */
        ck_assert (s.system_energy_j
                   >= (metrics_idle_floor (w.conf, s.makespan) + gidle)
                          * (1 - 1e-12));
    }
    free (recs);
    workload_free (wl);
    world_fini (&w);
}
END_TEST

/* slurmrestd's node answers name a node's GPUs and the ones jobs hold in
 * gres text, in the shapes the releases use. */
START_TEST (test_gres_count)
{
    ck_assert_int_eq (slurmrest_gres_count ("gpu:2", "gpu"), 2);
    ck_assert_int_eq (slurmrest_gres_count ("gpu:0", "gpu"), 0);
    ck_assert_int_eq (slurmrest_gres_count ("gpu:a100:4(S:0-1)", "gpu"), 4);
    ck_assert_int_eq (slurmrest_gres_count ("gpu:(null):2(IDX:0-1)", "gpu"), 2);
    ck_assert_int_eq (slurmrest_gres_count ("gpu:tesla:1,gpu:a100:2", "gpu"), 3);
    ck_assert_int_eq (slurmrest_gres_count ("nvme:1,gpu:2(IDX:0,1)", "gpu"), 2);
    ck_assert_int_eq (slurmrest_gres_count ("gpu:2(IDX:0,1),nvme:3", "nvme"), 3);
    ck_assert_int_eq (slurmrest_gres_count ("gpu", "gpu"), 1);
    ck_assert_int_eq (slurmrest_gres_count ("gpus:4", "gpu"), 0);
    ck_assert_int_eq (slurmrest_gres_count ("", "gpu"), 0);
    ck_assert_int_eq (slurmrest_gres_count (NULL, "gpu"), 0);
    ck_assert_int_eq (slurmrest_gres_count ("gpu:x2", "gpu"), -1);
    ck_assert_int_eq (slurmrest_gres_count ("gpu:a100:", "gpu"), -1);
}
END_TEST

/* A job's GPUs per node from any of sbatch's ways to ask. */
START_TEST (test_gpus_per_node)
{
    static const struct {
        const char *args;
        int nodes, want;
        const char *type;
    } cases[] = {
        { "", 1, 0, "" },
        { "--gpus-per-node=2", 4, 2, "" },
        { "--gres=gpu:a100:3", 2, 3, "a100" },
        { "--gres=nvme:1,gpu:2", 1, 2, "" },
        { "--gres=nvme:1", 1, 0, "" },
        { "--gpus=5", 2, 3, "" },
        { "-G v100:4", 4, 1, "v100" },
        { "--gpus-per-task=1 --ntasks-per-node=4", 2, 4, "" },
        { "--gpus-per-task=2 --ntasks=3", 2, 4, "" },
        { "--gpus-per-task=1", 1, 1, "" },
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        ms_jobspec_t js;
        ms_error_t err;
        char buf[128], *argv[8], *save = NULL;
        int argc = 1, argi = 1;
        const char *type = "?";
        argv[0] = (char *)"msbatch";
        snprintf (buf, sizeof (buf), "%s", cases[i].args);
        for (char *t = strtok_r (buf, " ", &save); t && argc < 7;
             t = strtok_r (NULL, " ", &save))
            argv[argc++] = t;
        argv[argc] = NULL;
        jobspec_init (&js);
        ck_assert_msg (jobspec_parse_args (&js, argc, argv, &argi, &err) == 0,
                       "%s: %s", cases[i].args, err.text);
        ck_assert_msg (jobspec_gpus_per_node (&js, cases[i].nodes, &type)
                           == cases[i].want,
                       "%s on %d nodes: %d GPUs per node, not %d",
                       cases[i].args, cases[i].nodes,
                       jobspec_gpus_per_node (&js, cases[i].nodes, NULL),
                       cases[i].want);
        ck_assert_str_eq (type, cases[i].type);
        jobspec_free (&js);
    }
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("sim_gpu");
    TCase *tc = tcase_create ("gpu");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_conf_keys);
    tcase_add_test (tc, test_candidates);
    tcase_add_test (tc, test_runs);
    tcase_add_test (tc, test_gres_count);
    tcase_add_test (tc, test_gpus_per_node);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
