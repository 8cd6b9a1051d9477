/* test_sim_mold.c - moldable jobs (msbatch -N MIN-MAX): a candidate's node
 * count from the app's speedup model (candidates_mold) and its time and
 * energy at that count, and whole simulated runs with moldable jobs under
 * every policy: each job runs once on a count within its range, no
 * partition ever holds more nodes than it has, a job's runtime on the
 * home architecture at nominal frequency is its runtime on its minimum
 * scaled by Amdahl's law, its energy is its nodes' power over its run,
 * and under metasched some jobs take more than their minimum. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/sim/simulate.h"
#include "predictor/predictor.h"
#include "predictor/speedup.h"
#include "tests/simworld.h"
#include "tests/testutil.h"

static const char site[]
    = "[architecture skx8168]\n"
      "cores_per_node = 48\nfrequencies_khz = 1200000-2700000/100000\n"
      "nominal_khz = 2700000\nidle_power_w = 110\n"
      "[architecture clx6254]\n"
      "cores_per_node = 36\nfrequencies_khz = 1200000-3100000/100000\n"
      "nominal_khz = 3100000\nidle_power_w = 100\n"
      "[architecture skx6148]\n"
      "cores_per_node = 40\nfrequencies_khz = 1000000-2400000/100000\n"
      "nominal_khz = 2400000\nidle_power_w = 90\n"
      "[cluster a]\nbackend = simulated\n"
      "[partition a/p1]\narchitecture = skx8168\nnodes = 12\n"
      "[cluster b]\nbackend = simulated\n"
      "[partition b/p2]\narchitecture = clx6254\nnodes = 6\n"
      "[partition b/p3]\narchitecture = skx6148\nnodes = 16\n"
      "max_nodes = 3\n";

static void
world_init (world_t *w)
{
    world_init_site (w, site, "mold");
}

/* Amdahl with serial fraction s, exact runs at 1, 2, 4 and 8 nodes. */
static void
exact_model (double s, ms_speedup_t *sp)
{
    int nodes[4] = { 1, 2, 4, 8 };
    double t[4];
    ms_error_t err;
    for (int k = 0; k < 4; k++)
        t[k] = 1000 * (s + (1 - s) / nodes[k]);
    ck_assert_msg (speedup_fit (nodes, t, 4, sp, &err) == 0, "%s", err.text);
}

START_TEST (test_candidates)
{
    world_t w;
    ms_cands_t base = { 0 }, cs = { 0 };
    ms_speedup_t sp;

    world_init (&w);
    exact_model (0.05, &sp);
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &base);
    ck_assert_uint_gt (base.n, 0);
    for (size_t i = 0; i < base.n; i++)
        ck_assert_int_eq (base.c[i].nodes, 2);

    /* no model: every candidate keeps the minimum */
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_mold (w.tab, 0, 2, 8, 0.0, NULL, 0, &cs);
    for (size_t i = 0; i < cs.n; i++) {
        ck_assert_int_eq (cs.c[i].nodes, 2);
        ck_assert (cs.c[i].t == base.c[i].t && cs.c[i].e == base.c[i].e);
    }

    /* response only (w_e 0, no wait): the most nodes each partition
     * allows (12, 6, and p3's max_nodes 3), time and energy of that count */
    predtab_set_speedup (w.tab, 0, &sp);
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_mold (w.tab, 0, 2, 8, 0.0, NULL, 0, &cs);
    ck_assert_uint_eq (cs.n, base.n);
    for (size_t i = 0; i < cs.n; i++) {
        const ms_cand_t *c = &cs.c[i], *b = &base.c[i];
        int want = c->part == 0 ? 8 : c->part == 1 ? 6 : 3;
        double r = speedup_time (&sp, want, NULL, NULL)
                   / speedup_time (&sp, 2, NULL, NULL);
        ck_assert_int_eq (c->nodes, want);
        ck_assert (fabs (c->t - b->t * r) <= 1e-9 * b->t);
        ck_assert (fabs (c->e - c->p * c->t * want) <= 1e-9 * c->e);
        ck_assert (c->e_hi >= c->e);
        ck_assert (c->p == b->p);
    }
    /* energy only: under Amdahl n T(n) grows with n, so the minimum */
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_mold (w.tab, 0, 2, 8, 1.0, NULL, 0, &cs);
    for (size_t i = 0; i < cs.n; i++)
        ck_assert_int_eq (cs.c[i].nodes, 2);
    /* a fixed job (max <= min) is left alone */
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_mold (w.tab, 0, 2, 2, 0.0, NULL, 0, &cs);
    for (size_t i = 0; i < cs.n; i++)
        ck_assert_int_eq (cs.c[i].nodes, 2);
    candidates_free (&cs);
    candidates_free (&base);
    world_fini (&w);
}
END_TEST

typedef struct {
    double t;
    int delta;
} ev_t;

static int
ev_cmp (const void *a, const void *b)
{
    const ev_t *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->delta - y->delta; /* ends before starts at the same time */
}

START_TEST (test_runs)
{
    world_t w;
    ms_workload_t *wl;
    ms_genparams_t gp;
    ms_simsetup_t su;
    ms_jobrec_t *recs;
    ms_error_t err;
    double wts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, serial[8];
    size_t nmold;
    ev_t *ev;

    world_init (&w);
    workload_gen_defaults (&gp);
    gp.njobs = 400;
    gp.mean_interarrival_s = 240;
    gp.mean_nodes = 2;
    gp.max_nodes = 6;
    ck_assert (workload_generate (&gp, &wl, &err) == 0);
    workload_assign_apps (wl, wts, 8, 5);
    nmold = workload_assign_moldable (wl, 0.4, 1, 16, 16, 5);
    /* about 40% (binomial, 400 jobs: within 5 SDs) */
    ck_assert_msg (nmold > 110 && nmold < 210, "%zu moldable jobs", nmold);
    for (size_t i = 0; i < wl->njobs; i++)
        if (wl->jobs[i].nodes_max)
            ck_assert (wl->jobs[i].nodes == 1 && wl->jobs[i].nodes_max == 16);
    for (size_t a = 0; a < w.tab->napps; a++) {
        ms_speedup_t sp;
        serial[a] = 0.02 + 0.03 * (double)a;
        exact_model (serial[a], &sp);
        predtab_set_speedup (w.tab, a, &sp);
    }
    simulate_setup_init (&su);
    su.conf = w.conf;
    su.tab = w.tab;
    su.wl = wl;
    su.seed = 5;
    su.serial = serial;
    recs = ms_xcalloc (wl->njobs, sizeof (*recs));
    ev = ms_xcalloc (2 * wl->njobs, sizeof (*ev));
    for (int k = 0; k < POL_NKINDS; k++) {
        ms_policy_t pol;
        ms_summary_t s;
        size_t wider = 0;
        double esum = 0;
        policy_init (&pol, (ms_polkind_t)k);
        if (k == POL_METASCHED || k == POL_METASCHED_WINDOW) {
            pol.w_energy = 0.2;
            policy_relabel (&pol);
        }
        ck_assert_msg (simulate_run (&su, &pol, recs, &s, &err) == 0, "%s: %s",
                       pol.label, err.text);
        ck_assert_uint_eq (s.rejected, 0);
        ck_assert_uint_eq (s.done, wl->njobs);
        for (size_t p = 0; p < w.conf->nparts; p++) {
            size_t ne = 0;
            int busy = 0;
            for (size_t i = 0; i < wl->njobs; i++)
                if (recs[i].part == p) {
                    ev[ne++] = (ev_t){ recs[i].start, recs[i].nodes };
                    ev[ne++] = (ev_t){ recs[i].end, -recs[i].nodes };
                }
            qsort (ev, ne, sizeof (*ev), ev_cmp);
            for (size_t e = 0; e < ne; e++) {
                busy += ev[e].delta;
                ck_assert_msg (busy <= w.conf->parts[p].nodes,
                               "%s: %d nodes busy on %s of %d", pol.label,
                               busy, w.conf->parts[p].name,
                               w.conf->parts[p].nodes);
            }
        }
        for (size_t i = 0; i < wl->njobs; i++) {
            const ms_jobrec_t *r = &recs[i];
            const ms_wjob_t *j = &wl->jobs[i];
            const ms_partconf_t *pc = &w.conf->parts[r->part];
            const ms_arch_t *ar = &w.conf->archs[pc->arch];
            int hi = j->nodes_max ? j->nodes_max : j->nodes;
            double run = r->end - r->start, pw;
            ck_assert_int_eq (r->starts, 1);
            ck_assert_int_eq (r->ends, 1);
            ck_assert (r->start >= r->submit);
            ck_assert_msg (r->nodes >= j->nodes && r->nodes <= hi,
                           "%s: job %zu on %d nodes, range %d-%d", pol.label,
                           i + 1, r->nodes, j->nodes, hi);
            ck_assert_int_le (r->nodes, pc->nodes);
            if ((pc->limits.set & MS_LIM_MAX_NODES))
                ck_assert_int_le (r->nodes, pc->limits.max_nodes);
            /* the truth: Amdahl's law from the minimum, exact where the
             * workload's runtime is the truth itself */
            if (pc->arch == w.conf->parts[0].arch
                && r->f_khz == ar->nominal_khz && !r->killed) {
                double s0 = serial[j->app];
                double want = j->runtime * (s0 + (1 - s0) / r->nodes)
                              / (s0 + (1 - s0) / j->nodes);
                ck_assert_msg (fabs (run - want) <= 1e-6 * want + 1e-6,
                               "%s: job %zu ran %.3f s on %d nodes, Amdahl "
                               "says %.3f",
                               pol.label, i + 1, run, r->nodes, want);
            }
            /* energy: its nodes' power (above idle) over its run */
            pw = run > 0 ? r->energy_j / (r->nodes * run) : ar->idle_power_w;
            ck_assert_msg (run <= 0 || pw >= ar->idle_power_w * 0.5,
                           "%s: job %zu drew %.1f W per node", pol.label,
                           i + 1, pw);
            esum += r->energy_j;
            wider += r->nodes > j->nodes;
        }
        ck_assert (fabs (esum - s.job_energy_j) <= 1e-9 * s.job_energy_j);
        if (k == POL_METASCHED || k == POL_METASCHED_WINDOW)
            ck_assert_msg (wider > 0, "%s: no moldable job above its minimum",
                           pol.label);
        else
            ck_assert_msg (wider == 0, "%s: %zu jobs above their minimum",
                           pol.label, wider);
    }
    free (ev);
    free (recs);
    workload_free (wl);
    world_fini (&w);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("sim_mold");
    TCase *tc = tcase_create ("mold");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_candidates);
    tcase_add_test (tc, test_runs);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
