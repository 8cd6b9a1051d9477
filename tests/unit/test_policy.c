/* test_policy.c - the policies' decisions on hand-made candidates, the
 * EAMC scores and the predicted wait of the partition view. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "metasched/core/candidates.h"
#include "metasched/core/engine.h"
#include "metasched/core/policy.h"
#include "metasched/core/score.h"
#include "tests/testutil.h"

/* Two partitions, two frequencies each (1 and 2 GHz, nominal 2 GHz). */
static const char conf_text[]
    = "[architecture a]\ncores_per_node = 4\n"
      "frequencies_khz = 1000000, 2000000\nnominal_khz = 2000000\n"
      "idle_power_w = 50\n"
      "[cluster c]\nbackend = simulated\n"
      "[partition c/p1]\narchitecture = a\nnodes = 10\n"
      "[partition c/p2]\narchitecture = a\nnodes = 10\npower_cap_w = 700\n";

static ms_siteconf_t *
load_conf (void)
{
    ms_siteconf_t *conf;
    ms_error_t err;
    ck_assert_msg (
        clusterconf_parse (conf_text, strlen (conf_text), "t", &conf, &err)
            == 0,
        "%s", err.text);
    return conf;
}

/* Candidates of a 1-node job: (part, f GHz, T s, P W). */
static void
cand (ms_cands_t *cs, size_t part, double ghz, double t, double p)
{
    ms_cand_t *c;
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? cs->cap * 2 : 8;
        cs->c = realloc (cs->c, cs->cap * sizeof (*cs->c));
    }
    c = &cs->c[cs->n++];
    memset (c, 0, sizeof (*c));
    c->part = part;
    c->f_khz = (uint32_t)(ghz * 1e6);
    c->fi = ghz < 1.5 ? 0 : 1;
    c->t = c->t_hi = t;
    c->p = p;
    c->e = c->e_hi = t * p;
}

/* p1: 2 GHz 100 s 400 W (40 kJ), 1 GHz 110 s 300 W (33 kJ);
 * p2: 2 GHz 150 s 400 W (60 kJ), 1 GHz 250 s 250 W (62.5 kJ). */
static void
two_parts (ms_cands_t *cs)
{
    cs->n = 0;
    cand (cs, 0, 2, 100, 400);
    cand (cs, 0, 1, 110, 300);
    cand (cs, 1, 2, 150, 400);
    cand (cs, 1, 1, 250, 250);
}

START_TEST (test_eamc_scores)
{
    /* Equation 6.4 as doc/architecture.md "Policies" writes it:
     * (E/Emin)^2 + (w T/Tmin)^2. */
    ck_assert (fabs (score_eamc_dist (40, 33, 100, 100, 1)
                     - ((40.0 / 33) * (40.0 / 33) + 1))
               < 1e-12);
    ck_assert (
        fabs (score_eamc_dist (33, 33, 110, 100, 1.5) - (1 + 1.65 * 1.65))
        < 1e-12);
    ck_assert (
        fabs (score_eamc_part_eff (60, 33, 150, 100, 1) - (60.0 / 33 + 1.5))
        < 1e-12);
    ck_assert (fabs (score_metasched (40, 33, 200, 100, 0.25)
                     - (0.25 * 40 / 33 + 0.75 * 2))
               < 1e-12);
}
END_TEST

START_TEST (test_fopt_and_optimal_partition)
{
    ms_cands_t cs = { 0 };
    size_t best[2];
    two_parts (&cs);
    /* p1: 2 GHz -> (40/33)^2 + 1 = 2.469; 1 GHz -> 1 + 1.1^2 = 2.21: 1 GHz.
     * p2: 2 GHz -> 1 + 1 = 2; 1 GHz -> 1.085 + 2.78: 2 GHz. */
    score_eamc_fopt (&cs, 2, 1, best);
    ck_assert_uint_eq (best[0], 1);
    ck_assert_uint_eq (best[1], 2);
    /* part_eff: p1 33/33 + 110/110 = 2; p2 60/33 + 150/110 = 3.18. */
    ck_assert_uint_eq (policy_optimal_partition (&cs, 2), 0);
    /* With t_weight 3 on p1 the time term wins: 2 GHz. */
    score_eamc_fopt (&cs, 2, 3, best);
    ck_assert_uint_eq (best[0], 0);
    /* both weights in one pass: the indices of the two calls */
    size_t fopt[2], wfopt[2];
    ck_assert_uint_eq (policy_optimal_wfopt (&cs, 2, 3, fopt, wfopt), 0);
    ck_assert_uint_eq (fopt[0], 1);
    ck_assert_uint_eq (fopt[1], 2);
    ck_assert_uint_eq (wfopt[0], best[0]);
    ck_assert_uint_eq (wfopt[1], best[1]);
    candidates_free (&cs);
}
END_TEST

static void
decide (ms_polkind_t k, const ms_cands_t *cs, ms_decision_t *d,
        void (*tweak) (ms_policy_t *))
{
    ms_siteconf_t *conf = load_conf ();
    ms_view_t *v = view_new (conf);
    ms_policy_t pol;
    policy_init (&pol, k);
    if (tweak)
        tweak (&pol);
    policy_decide (&pol, conf, cs, v, d);
    view_free (v);
    clusterconf_free (conf);
}

START_TEST (test_baselines)
{
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    two_parts (&cs);

    /* base: the optimal partition (p1) at nominal, alone. */
    decide (POL_BASE, &cs, &d, NULL);
    ck_assert_uint_eq (d.n, 1);
    ck_assert_uint_eq (d.c[0].cand, 0);
    /* min_runtime: 2 GHz on both, equal priority, configuration order. */
    decide (POL_MIN_RUNTIME, &cs, &d, NULL);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].cand, 0);
    ck_assert_uint_eq (d.c[1].cand, 2);
    ck_assert_int_eq (d.c[0].nice, 0);
    ck_assert_int_eq (d.c[1].nice, 0);
    /* min_energy: 1 GHz on p1 (33 kJ), 2 GHz on p2 (60 < 62.5 kJ). */
    decide (POL_MIN_ENERGY, &cs, &d, NULL);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].cand, 1);
    ck_assert_uint_eq (d.c[1].cand, 2);
    /* ear_min_energy, theta 0.1: 110 s <= 1.1 * 100 s is allowed. */
    decide (POL_EAR_MIN_ENERGY, &cs, &d, NULL);
    ck_assert_uint_eq (d.c[0].cand, 1);
    candidates_free (&cs);
}
END_TEST

static void
theta_small (ms_policy_t *p)
{
    p->theta = 0.05;
}

START_TEST (test_ear_theta_bound)
{
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    two_parts (&cs);
    /* theta 0.05: 110 s > 105 s, so p1 stays at 2 GHz. */
    decide (POL_EAR_MIN_ENERGY, &cs, &d, theta_small);
    ck_assert_uint_eq (d.c[0].cand, 0);
    candidates_free (&cs);
}
END_TEST

START_TEST (test_eamc_priorities)
{
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    two_parts (&cs);

    /* Reorder: p1 first (part_eff 2 < 3.18), equal priority. */
    decide (POL_EAMC_REORDER, &cs, &d, NULL);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert_int_eq (d.c[0].rank, 0);
    ck_assert_int_eq (d.c[1].nice, d.c[0].nice);
    /* PriorityInc: the second choice one class lower. */
    decide (POL_EAMC_PRIO, &cs, &d, NULL);
    ck_assert_int_eq (d.c[0].nice, 0);
    ck_assert_int_eq (d.c[1].nice, MS_NICE_STEP);
    /* PriorityInc-V: 3.18 > 1.35 * 2, so p2 goes to the bottom. */
    decide (POL_EAMC_PRIO_V, &cs, &d, NULL);
    ck_assert_int_gt (d.c[1].nice, MS_NICE_STEP);
    /* A close second (p2 at 2 GHz 105 s, 1 GHz 300 s) stays in class 1. */
    cs.c[2].t = cs.c[2].t_hi = 105;
    cs.c[2].e = cs.c[2].e_hi = 105 * 400;
    decide (POL_EAMC_PRIO_V, &cs, &d, NULL);
    ck_assert_int_eq (d.c[1].nice, MS_NICE_STEP);
    candidates_free (&cs);
}
END_TEST

static void
w_energy_1 (ms_policy_t *p)
{
    p->w_energy = 1;
    p->max_slowdown = 1.05;
}

static void
no_caps (ms_policy_t *p)
{
    p->w_energy = 1;
    p->power_caps = false;
}

START_TEST (test_metasched_caps)
{
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    two_parts (&cs);
    /* Energy only, but a 5% slowdown cap: 1 GHz on p1 (110 s) is out. */
    decide (POL_METASCHED, &cs, &d, w_energy_1);
    ck_assert_uint_ge (d.n, 1);
    ck_assert_uint_eq (d.c[0].cand, 0);
    /* p2 draws less (300 W, same time): the better candidate, but its
     * power cap is 700 W with 10 idle nodes at 50 W, and one busy node
     * makes 750 W: p2 is no candidate. */
    cs.n = 0;
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 1, 2, 100, 300);
    decide (POL_METASCHED, &cs, &d, w_energy_1);
    ck_assert_uint_eq (d.n, 1);
    ck_assert_uint_eq (d.c[0].part, 0);
    /* Without the cap p2 wins. */
    decide (POL_METASCHED, &cs, &d, no_caps);
    ck_assert_uint_eq (d.c[0].part, 1);
    candidates_free (&cs);
}
END_TEST

START_TEST (test_metasched_wait)
{
    ms_siteconf_t *conf = load_conf ();
    ms_view_t *v = view_new (conf);
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_policy_t pol;

    /* p1 is full for 10000 s. p2 runs the job in 150 s, beyond the 1.3
     * slowdown cap against p1's 100 s, but it would end long before p1
     * could start it: p2 is allowed. With siblings (the default), the
     * first choice is the best partition at equal waits, p1, and p2 gets
     * a sibling that takes the job if p2 starts it first; with one entry
     * (sibling_slack 0) the job waits where it goes, so p2 wins on
     * response. */
    view_run_start (v, 0, 1, 10, 10000, 400);
    ck_assert (fabs (view_predicted_wait (v, 0, 1, 0) - 10000) < 1e-9);
    ck_assert (view_predicted_wait (v, 1, 1, 0) == 0);
    two_parts (&cs);
    for (size_t i = 0; i < cs.n; i++)
        cs.c[i].w = view_predicted_wait (v, cs.c[i].part, 1, 0);
    policy_init (&pol, POL_METASCHED);
    pol.w_energy = 0.2;
    pol.max_slowdown = 1.3;
    pol.power_caps = false;
    policy_decide (&pol, conf, &cs, v, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert_uint_eq (d.c[1].part, 1);
    pol.sibling_slack = 0;
    policy_decide (&pol, conf, &cs, v, &d);
    ck_assert_uint_eq (d.n, 1);
    ck_assert_uint_eq (d.c[0].part, 1);
    candidates_free (&cs);
    view_free (v);
    clusterconf_free (conf);
}
END_TEST

/* metasched's nice with siblings: a first choice that leads the next
 * partition by pref_margin (0.2) or more at nice 0, a closer one by the
 * margin it lacks, siblings behind by the margin plus their loss; one
 * entry alone at 0. Energy and time weigh half each, no caps: a candidate
 * of T and E = 400 T scores T / 100 against p1's 100 s. */
START_TEST (test_metasched_preference)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_policy_t pol;

    policy_init (&pol, POL_METASCHED);
    ck_assert (fabs (pol.pref_margin - 0.2) < 1e-12);
    pol.power_caps = false;
    /* p2 at 125 s scores 1.25: a lead of 0.25 */
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 1, 2, 125, 400);
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert_int_eq (d.c[0].nice, 0);
    ck_assert_int_eq (d.c[1].nice, (int)lround ((0.2 + 0.25) * MS_NICE_STEP));
    /* p2 at 105 s: a lead of 0.05, 0.15 short of the margin */
    cs.c[1].t = cs.c[1].t_hi = 105;
    cs.c[1].e = cs.c[1].e_hi = 105 * 400;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert_int_eq (d.c[0].nice, (int)lround (0.15 * MS_NICE_STEP));
    ck_assert_int_eq (d.c[1].nice, (int)lround (0.25 * MS_NICE_STEP));
    /* a tie: both at the margin */
    cs.c[1].t = cs.c[1].t_hi = 100;
    cs.c[1].e = cs.c[1].e_hi = 100 * 400;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_int_eq (d.c[0].nice, (int)lround (0.2 * MS_NICE_STEP));
    ck_assert_int_eq (d.c[1].nice, d.c[0].nice);
    /* one entry (no siblings) a close 0.05 ahead: nothing takes it
     * elsewhere, nice 0 */
    cs.c[1].t = cs.c[1].t_hi = 105;
    cs.c[1].e = cs.c[1].e_hi = 105 * 400;
    pol.sibling_slack = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 1);
    ck_assert_int_eq (d.c[0].nice, 0);
    /* margin 0: first choices at 0, siblings by their loss alone */
    pol.sibling_slack = INFINITY;
    pol.pref_margin = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_int_eq (d.c[0].nice, 0);
    ck_assert_int_eq (d.c[1].nice, (int)lround (0.05 * MS_NICE_STEP));
    /* the other policies never hold a first choice back */
    ms_policy_t e;
    policy_init (&e, POL_EAMC_PRIO_V);
    ck_assert (e.first_age == 0);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* A sibling on a busy partition (its predicted wait over half the job's
 * runtime there) is held back by its loss times the first choice's
 * runtime; on a free one it may start at once; first choices never wait.
 * The window policy holds its siblings the same way. */
START_TEST (test_metasched_sibling_hold)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    const ms_cands_t *cp[1] = { &cs };
    int nodes[1] = { 1 };
    ms_decision_t d;
    ms_window_stats_t st;
    ms_policy_t pol, e;

    policy_init (&pol, POL_METASCHED);
    ck_assert (pol.sibling_hold == 1 && pol.hold_busy == 0.5);
    pol.power_caps = false;
    /* p2 at 125 s scores 1.25: a loss of 0.25 */
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 1, 2, 125, 400);
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert (d.c[0].hold_s == 0 && d.c[1].hold_s == 0);
    /* a queue of other jobs' siblings there does not make it busy */
    cs.c[1].w = 1000;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert (d.c[1].hold_s == 0);
    /* p2 busy: its running jobs keep the nodes 100 s, against 62.5 s
     * (half of 125) */
    cs.c[1].w = cs.c[1].ws = 100;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.c[1].part, 1);
    ck_assert (fabs (d.c[1].hold_s - 0.25 * 100) < 1e-9);
    ck_assert (d.c[0].hold_s == 0);
    pol.sibling_hold = 2;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert (fabs (d.c[1].hold_s - 2 * 0.25 * 100) < 1e-9);
    /* the window policy's sibling: the same */
    policy_decide_window (&pol, conf, cp, nodes, 1, NULL, 0, &d, &st);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert (d.c[0].hold_s == 0);
    ck_assert (fabs (d.c[1].hold_s - 2 * 0.25 * 100) < 1e-9);
    /* not busy: 60 s of wait is under half of 125 s */
    cs.c[1].w = cs.c[1].ws = 60;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert (d.c[1].hold_s == 0);
    /* busy too: the first choices queued there would keep the whole
     * partition 100 s */
    cs.c[1].wf = 100;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert (fabs (d.c[1].hold_s - 2 * 0.25 * 100) < 1e-9);
    /* the first choice's own wait holds nothing */
    cs.c[0].w = cs.c[0].ws = cs.c[0].wf = 1000;
    cs.c[1].w = cs.c[1].ws = 100;
    pol.sibling_hold = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert (d.c[0].hold_s == 0 && d.c[1].hold_s == 0);
    /* the other policies never hold an entry */
    policy_init (&e, POL_EAMC_PRIO_V);
    ck_assert (e.sibling_hold == 0);
    policy_decide (&e, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert (d.c[0].hold_s == 0 && d.c[1].hold_s == 0);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* The drain price: a partition that alone runs some jobs (captive_rate)
 * charges each candidate lambda (n / N) T^2 / 2 seconds of their wait,
 * in the partition ranking and in the clock choice; not where another of
 * the job's partitions is one that other jobs depend on
 * (restricted_rate), nor at drain_weight 0. */
START_TEST (test_metasched_drain)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_policy_t pol;

    policy_init (&pol, POL_METASCHED);
    ck_assert (pol.drain_weight == 1);
    pol.power_caps = false;
    /* p1 100 s, p2 105 s at the same power: p1 scores 1, p2 1.05 */
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 1, 2, 105, 400);
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.c[0].part, 0);
    /* captive jobs on p1 at 0.04 a second: the 1-node job of 100 s adds
     * 0.04 * (1 / 10) * 100^2 / 2 = 20 s of their wait there, and p1
     * scores 0.5 + 0.5 * 120 / 100 = 1.1 */
    pol.captive_rate[0] = 0.04;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 1);
    ck_assert_uint_eq (d.c[1].part, 0);
    /* a tenth of the rate: 2 s, p1 scores 1.01 and is first again */
    pol.captive_rate[0] = 0.004;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.c[0].part, 0);
    pol.captive_rate[0] = 0.04;
    /* weight 0: no price */
    pol.drain_weight = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.c[0].part, 0);
    pol.drain_weight = 1;
    /* p2 serves jobs that p1 cannot run: moving there would delay them */
    pol.restricted_rate[1] = 0.01;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.c[0].part, 0);
    pol.restricted_rate[1] = 0;
    /* the clock on p1 alone: 2 GHz (40 kJ, 100 s) scores 0.5 * 40 / 33 +
     * 0.5 = 1.106, 1 GHz (33 kJ, 110 s) 1.05; at 0.2 captive jobs a
     * second they add 100 s and 121 s: 1.606 against 1.655 */
    cs.n = 0;
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 0, 1, 110, 300);
    pol.captive_rate[0] = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 1);
    ck_assert_uint_eq (cs.c[d.c[0].cand].f_khz, 1000000);
    pol.captive_rate[0] = 0.2;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (cs.c[d.c[0].cand].f_khz, 2000000);
    /* the other policies have no price */
    ms_policy_t e;
    policy_init (&e, POL_EAMC_PRIO_V);
    ck_assert (e.drain_weight == 0);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* The shared wait: wait_share of the job's least predicted wait counts
 * in its response term on every partition alike, so a slower clock costs
 * less where the job waits long anyway; none where it starts at once. */
START_TEST (test_metasched_wait_share)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_policy_t pol;

    policy_init (&pol, POL_METASCHED);
    ck_assert (pol.wait_share == 0.02);
    pol.power_caps = false;
    /* p1: 2 GHz 100 s 400 W (40 kJ), 1 GHz 125 s 300 W (37.5 kJ): with no
     * wait 2 GHz scores 0.5 * 40 / 37.5 + 0.5 = 1.033, 1 GHz 0.5 + 0.625 */
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 0, 1, 125, 300);
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 1);
    ck_assert_uint_eq (cs.c[d.c[0].cand].f_khz, 2000000);
    /* a predicted wait of 100,000 s: 2,000 s of it count on both, and 1
     * GHz scores 0.5 + 0.5 * 2125 / 2100 = 1.006 against 1.033 */
    for (size_t i = 0; i < cs.n; i++)
        cs.c[i].w = 100000;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (cs.c[d.c[0].cand].f_khz, 1000000);
    /* a share of 0: the clock of a job that starts at once */
    pol.wait_share = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (cs.c[d.c[0].cand].f_khz, 2000000);
    /* the other policies count no wait this way */
    ms_policy_t e;
    policy_init (&e, POL_EAMC_PRIO_V);
    ck_assert (e.wait_share == 0 && e.sibling_ahead == 0);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* A sibling goes ahead (nice 0, unheld) when its partition's running jobs
 * let it start within sibling_ahead of its runtime and it would end
 * before the first choice's running jobs let the first choice start. */
START_TEST (test_metasched_sibling_ahead)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_policy_t pol;

    policy_init (&pol, POL_METASCHED);
    ck_assert (pol.sibling_ahead == 0.25);
    pol.power_caps = false;
    /* p1 100 s, p2 120 s at 400 W: p2 is a sibling 20% behind, on a busy
     * partition (its first choices queued for 500 s) */
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 1, 2, 120, 400);
    cs.c[1].w = cs.c[1].wf = 500;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert_uint_eq (d.c[1].part, 1);
    ck_assert_int_gt (d.c[1].nice, 0);
    ck_assert (d.c[1].hold_s > 0);
    /* p1's running jobs free its nodes only in 1000 s (its predicted
     * wait too); p2's are free: the sibling would end at 120 s */
    cs.c[0].ws = cs.c[0].w = 1000;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert_uint_eq (d.c[1].part, 1);
    ck_assert_int_eq (d.c[1].nice, 0);
    ck_assert (d.c[1].hold_s == 0);
    /* p2's nodes free in 30 s (a quarter of 120 s): still ahead; in 31 s
     * not; nor when it would end after p1's nodes free */
    cs.c[1].ws = 30;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_int_eq (d.c[1].nice, 0);
    cs.c[1].ws = 31;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_int_gt (d.c[1].nice, 0);
    cs.c[1].ws = 0;
    cs.c[0].ws = 119;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_int_gt (d.c[1].nice, 0);
    /* 0 turns it off */
    cs.c[0].ws = cs.c[0].w = 1000;
    pol.sibling_ahead = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_int_gt (d.c[1].nice, 0);
    ck_assert (d.c[1].hold_s > 0);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* A sibling whose loss outweighs stake_margin times the first choice's
 * predicted wait waits for it, idle as the sibling's partition may be
 * (rank.c, sibling_staked). */
START_TEST (test_metasched_stake)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_policy_t pol;

    policy_init (&pol, POL_METASCHED);
    ck_assert (pol.stake_margin == 3);
    pol.power_caps = false;
    /* p1 100 s at 400 W (40 kJ) waits 20 s; p2 125 s at 600 W (75 kJ) is
     * idle. p2's key: 0.5 x 75/40 + 0.5 x 125/100 = 1.5625 against 1; a
     * unit of key is worth 100 s / 0.5 of response: the stake is 112.5 s,
     * over 3 x 20 s */
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 1, 2, 125, 600);
    cs.c[0].w = cs.c[0].ws = 20;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert_uint_eq (d.c[0].part, 0);
    ck_assert_uint_eq (d.c[1].part, 1);
    ck_assert_int_gt (d.c[1].nice, 0);
    ck_assert (fabs (d.c[1].hold_s - 20) < 1e-9);
    /* a first choice 40 s away: 3 x 40 s is over the stake, the sibling
     * may take p2's idle nodes at once */
    cs.c[0].w = cs.c[0].ws = 40;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert_uint_eq (d.n, 2);
    ck_assert (d.c[1].hold_s == 0);
    /* 0 turns it off */
    cs.c[0].w = cs.c[0].ws = 20;
    pol.stake_margin = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert (d.c[1].hold_s == 0);
    /* so does sibling_hold 0, which holds no sibling */
    pol.stake_margin = 3;
    pol.sibling_hold = 0;
    policy_decide (&pol, conf, &cs, NULL, &d);
    ck_assert (d.c[1].hold_s == 0);
    /* the other policies hold nothing this way */
    ms_policy_t e;
    policy_init (&e, POL_EAMC_PRIO_V);
    ck_assert (e.stake_margin == 0);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* The jobs seen, for the drain price: a job only one partition can run
 * and that needs over half of it is captive there; one that some
 * partition cannot run is restricted on those that can; the rates are the
 * counts over the time from the first job to the last, at least a day. */
START_TEST (test_jobmix)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_jobmix_t m;
    ms_policy_t pol;

    policy_init (&pol, POL_METASCHED);
    jobmix_init (&m);
    jobmix_apply (&m, conf, &pol);
    ck_assert (pol.captive_rate[0] == 0 && pol.restricted_rate[0] == 0);
    /* 6 of p1's 10 nodes, p1 alone (two clocks): captive and restricted */
    cand (&cs, 0, 2, 100, 400);
    cand (&cs, 0, 1, 110, 300);
    jobmix_add (&m, conf, &pol, &cs, 6, 1000);
    /* 5 nodes, p1 alone: restricted, not over half */
    jobmix_add (&m, conf, &pol, &cs, 5, 2000);
    /* both partitions: neither */
    cand (&cs, 1, 2, 150, 400);
    jobmix_add (&m, conf, &pol, &cs, 6, 3000);
    jobmix_apply (&m, conf, &pol);
    ck_assert (fabs (pol.captive_rate[0] - 1.0 / 86400) < 1e-15);
    ck_assert (fabs (pol.restricted_rate[0] - 2.0 / 86400) < 1e-15);
    ck_assert (pol.captive_rate[1] == 0 && pol.restricted_rate[1] == 0);
    ck_assert (fabs (pol.ref_nodes - 17.0 / 3) < 1e-12); /* mean width */
    /* two days from the first job to the last */
    jobmix_add (&m, conf, &pol, &cs, 1, 1000 + 2 * 86400);
    jobmix_apply (&m, conf, &pol);
    ck_assert (fabs (pol.captive_rate[0] - 1.0 / (2 * 86400)) < 1e-15);
    ck_assert (fabs (pol.restricted_rate[0] - 2.0 / (2 * 86400)) < 1e-15);
    /* no candidate at all: nothing counted */
    cs.n = 0;
    jobmix_add (&m, conf, &pol, &cs, 8, 1000 + 2 * 86400);
    jobmix_apply (&m, conf, &pol);
    ck_assert (fabs (pol.captive_rate[0] - 1.0 / (2 * 86400)) < 1e-15);
    jobmix_free (&m);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* The calibration of the energy odds: jobs of one front (100 s at 400 W,
 * 110 s at 330 W, 130 s at 250 W) have their energy-delay choice at
 * 110 s and their energy-delay^1.5 choice at 100 s, so the margins turn
 * from runtime's to energy's where the score's choice turns from 100 s to
 * 110 s: odds w/(1-w) with w * 40/32.5 + (1-w) = w * 36.3/32.5 + (1-w) *
 * 1.1, that is 0.1 * 32.5 / 3.7. The policy's odds are cal_lean times
 * that, from the 64th job kept on; cal_lean 0 turns it off; a job with
 * one candidate is not kept. */
START_TEST (test_jobmix_calibrate)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_jobmix_t m;
    ms_policy_t pol;
    double em, tm, want = 0.1 * 32500 / 3700;

    policy_init (&pol, POL_METASCHED);
    ck_assert (pol.cal_lean == 1.2 && pol.width_exp == 1);
    jobmix_init (&m);
    jobmix_apply (&m, conf, &pol);
    ck_assert (pol.odds_scale == 0); /* no job yet */
    cand (&cs, 0, 2, 100, 400);
    jobmix_add (&m, conf, &pol, &cs, 4, 0);
    ck_assert_uint_eq (m.nring, 0); /* one candidate: nothing to choose */
    cand (&cs, 0, 1.6, 110, 330);
    cand (&cs, 1, 1.2, 130, 250);
    cand (&cs, 1, 1, 140, 260); /* slower and hungrier: not on the front */
    for (int k = 0; k < 63; k++)
        jobmix_add (&m, conf, &pol, &cs, 4, k);
    jobmix_apply (&m, conf, &pol);
    ck_assert (pol.odds_scale == 0); /* 63 jobs: not calibrated yet */
    for (int k = 63; k < 100; k++)
        jobmix_add (&m, conf, &pol, &cs, 4, k);
    ck_assert_uint_eq (m.nring, 100);
    jobmix_apply (&m, conf, &pol);
    ck_assert_msg (fabs (m.scale / want - 1) < 1e-6, "scale %g, want %g",
                   m.scale, want);
    ck_assert (fabs (pol.odds_scale - 1.2 * m.scale) < 1e-12);
    /* just above, the jobs take 110 s: energy margin 0, runtime -10% */
    ck_assert_uint_eq (jobmix_margins (&m, &pol, want * 1.001, &em, &tm), 100);
    ck_assert (fabs (em) < 1e-6 && fabs (tm + 0.1) < 1e-6);
    /* just below, 100 s: runtime margin 0, energy 40/36.3 - 1 over */
    jobmix_margins (&m, &pol, want / 1.001, &em, &tm);
    ck_assert (fabs (em - (1 - 40000.0 / 36300)) < 1e-6 && fabs (tm) < 1e-6);
    /* off */
    pol.cal_lean = 0;
    jobmix_apply (&m, conf, &pol);
    ck_assert (pol.odds_scale == 0);
    /* other policies are not calibrated */
    policy_init (&pol, POL_EAMC_PRIO_V);
    jobmix_apply (&m, conf, &pol);
    ck_assert (pol.odds_scale == 0);
    jobmix_free (&m);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* Jobs whose fastest candidate is their energy-delay and
 * energy-delay^1.5 choice alike: below the odds at which they turn to
 * their lean candidate (3.75) both margins are 0, above it energy leads.
 * The scale is the middle (log) of that range, from the bisection's
 * low end e^-8, not the low end itself (the odds nearly 0: every job at
 * its fastest whatever its energy). */
START_TEST (test_jobmix_calibrate_tie)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_jobmix_t m;
    ms_policy_t pol;
    double em, tm, want = exp ((-8 + log (3.75)) / 2);

    policy_init (&pol, POL_METASCHED);
    jobmix_init (&m);
    cand (&cs, 0, 2, 100, 400); /* 40 kJ */
    cand (&cs, 0, 1, 125, 300); /* 37.5 kJ, 1.25 times slower */
    for (int k = 0; k < 100; k++)
        jobmix_add (&m, conf, &pol, &cs, 4, k);
    jobmix_apply (&m, conf, &pol);
    ck_assert_msg (fabs (m.scale / want - 1) < 1e-5, "scale %g, want %g",
                   m.scale, want);
    jobmix_margins (&m, &pol, m.scale, &em, &tm);
    ck_assert (em == 0 && tm == 0);
    jobmix_margins (&m, &pol, 3.75 * 1.001, &em, &tm);
    ck_assert (fabs (em - (1 - 37500.0 / 40000)) < 1e-9
               && fabs (tm + 0.25) < 1e-9);
    jobmix_free (&m);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* The lean of the calibrated odds follows the observed waits: cal_lean
 * (1.2) before any job is seen to end; cal_lean_idle (0.95) where the
 * jobs ran without waiting; halfway where waits are half of
 * MS_LEAN_WAIT_FULL of the response; cal_lean from that share on, however
 * long they wait; the older jobs weigh 1 - 1/MS_MIX_OBS less a job; a
 * negative or non-finite time is not counted; cal_lean_idle 0 keeps
 * cal_lean. The policy's odds are the lean times the scale. */
START_TEST (test_jobmix_lean)
{
    ms_siteconf_t *conf = load_conf ();
    ms_jobmix_t m;
    ms_policy_t pol;
    double half = MS_LEAN_WAIT_FULL / 2, k = 1 - 1.0 / MS_MIX_OBS;

    policy_init (&pol, POL_METASCHED);
    ck_assert (pol.cal_lean == 1.2 && pol.cal_lean_idle == 0.95);
    jobmix_init (&m);
    ck_assert (jobmix_lean (&m, &pol) == 1.2);
    jobmix_observe (&m, -1, 100);
    jobmix_observe (&m, 10, NAN);
    jobmix_observe (&m, INFINITY, 10);
    ck_assert (m.nseen == 0 && jobmix_lean (&m, &pol) == 1.2);
    jobmix_observe (&m, 0, 3600);
    ck_assert (m.nseen == 1 && jobmix_lean (&m, &pol) == 0.95);
    /* a share of half the full one: halfway */
    jobmix_free (&m);
    jobmix_init (&m);
    jobmix_observe (&m, half * 1000, (1 - half) * 1000);
    ck_assert_msg (fabs (jobmix_lean (&m, &pol) - (0.95 + 1.2) / 2) < 1e-12,
                   "lean %.15g", jobmix_lean (&m, &pol));
    /* a second job: the first weighs k */
    jobmix_observe (&m, 0, 1000);
    ck_assert (fabs (m.wait_sum - k * half * 1000) < 1e-9
               && fabs (m.run_sum - (k * (1 - half) * 1000 + 1000)) < 1e-9);
    ck_assert (fabs (jobmix_lean (&m, &pol)
                     - (0.95
                        + 0.25 * (m.wait_sum / (m.wait_sum + m.run_sum))
                              / MS_LEAN_WAIT_FULL))
               < 1e-12);
    /* waits of days: cal_lean, no more */
    jobmix_observe (&m, 86400 * 3, 60);
    ck_assert (jobmix_lean (&m, &pol) == 1.2);
    /* the odds: the lean times the calibrated scale */
    m.scale = 2;
    jobmix_apply (&m, conf, &pol);
    ck_assert (fabs (pol.odds_scale - 2 * 1.2) < 1e-12);
    jobmix_free (&m);
    jobmix_init (&m);
    jobmix_observe (&m, 0, 600);
    m.scale = 2;
    jobmix_apply (&m, conf, &pol);
    ck_assert (fabs (pol.odds_scale - 2 * 0.95) < 1e-12);
    pol.cal_lean_idle = 0;
    jobmix_apply (&m, conf, &pol);
    ck_assert (fabs (pol.odds_scale - 2 * 1.2) < 1e-12);
    jobmix_free (&m);
    clusterconf_free (conf);
}
END_TEST

START_TEST (test_view_wait)
{
    ms_siteconf_t *conf = load_conf ();
    ms_view_t *v = view_new (conf);

    /* 10 nodes: jobs of 4 nodes ending at 100 and 6 ending at 50. */
    view_run_start (v, 0, 1, 4, 100, 300);
    view_run_start (v, 0, 2, 6, 50, 300);
    ck_assert_int_eq (view_busy (v, 0), 10);
    /* 5 nodes free at 50 (the 6-node job ends first). */
    ck_assert (view_predicted_wait (v, 0, 5, 0) == 50);
    ck_assert (view_predicted_wait (v, 0, 8, 0) == 100);
    ck_assert (view_predicted_wait (v, 0, 8, 30) == 70);
    /* 2000 node-seconds queued: 200 s on 10 nodes dominates. */
    view_pending_add (v, 0, 0, 10, 200, 0, 0);
    ck_assert (view_predicted_wait (v, 0, 5, 0) == 200);
    /* the shadow time alone leaves the queue out */
    ck_assert (view_shadow_wait (v, 0, 5, 0) == 50);
    ck_assert (view_shadow_wait (v, 0, 8, 30) == 70);
    view_pending_remove (v, 0, 0, 10, 200);
    view_run_end (v, 0, 2);
    ck_assert (view_predicted_wait (v, 0, 6, 0) == 0);
    /* Power: 4 nodes at 300 W and 6 idle at 50 W. */
    ck_assert (fabs (view_power (v, 0) - (1200 + 300)) < 1e-9);
    view_free (v);
    clusterconf_free (conf);
}
END_TEST

/* The reservation ahead of a job under EASY backfill (view_reservation):
 * 10 nodes, 4 running to 100 and 2 to 300, 4 free. */
START_TEST (test_view_reservation)
{
    ms_siteconf_t *conf = load_conf ();
    ms_view_t *v = view_new (conf);
    ms_resv_t r;

    view_run_start (v, 0, 1, 4, 100, 300);
    view_run_start (v, 0, 2, 2, 300, 300);
    /* nothing queued: nothing holds a job back */
    view_reservation (v, 0, 2, 0, &r);
    ck_assert (!r.set && resv_wait (&r, 1e6) == 0);
    /* an 8-node entry does not fit the 4 free nodes: it starts at 100,
     * when the 4-node job ends, with no node beside it */
    view_pending_add (v, 0, 7, 8, 500, 0, 0);
    view_reservation (v, 0, 2, 0, &r);
    ck_assert (r.set && r.start == 100);
    /* a 2-node job that ends before 100 backfills */
    ck_assert (resv_wait (&r, 50) == 0);
    /* one that runs past it waits for the 2-node job's end at 300 */
    ck_assert (resv_wait (&r, 200) == 300);
    /* a 4-node job waits for the entry's end, 100 + 500 */
    view_reservation (v, 0, 4, 0, &r);
    ck_assert (resv_wait (&r, 200) == 600);
    /* later on, the same ends are nearer */
    view_reservation (v, 0, 2, 40, &r);
    ck_assert (r.start == 60 && resv_wait (&r, 200) == 260);
    /* a job wider than the free nodes waits for its own shadow time */
    view_reservation (v, 0, 5, 0, &r);
    ck_assert (!r.set);
    /* an entry held (begin time) or behind at a sibling's nice holds no
     * reservation for a job at nice 0 */
    view_pending_remove (v, 0, 7, 8, 500);
    view_pending_add (v, 0, 8, 8, 500, 0, 1000);
    view_pending_add (v, 0, 9, 8, 500, MS_NICE_STEP, 0);
    view_reservation (v, 0, 2, 0, &r);
    ck_assert (!r.set);
    /* taken back to nice 0, the sibling holds it */
    view_pending_renice (v, 0, 9, 0);
    view_reservation (v, 0, 2, 0, &r);
    ck_assert (r.set && resv_wait (&r, 200) == 300);
    /* the first choices queued (nice 0 or less, eligible now): the
     * reniced entry, 8 x 500 node-seconds over 10 nodes; the held one
     * once eligible (at 1000); a sibling's never */
    view_pending_add (v, 0, 11, 10, 500, MS_NICE_STEP, 0);
    ck_assert (fabs (view_first_drain (v, 0, 0) - 400) < 1e-9);
    ck_assert (fabs (view_first_drain (v, 0, 1000) - 800) < 1e-9);
    view_pending_remove (v, 0, 11, 10, 500);
    /* a 6-node entry leaves 2 nodes beside it at 100: a 2-node job
     * starts now whatever its runtime */
    view_pending_remove (v, 0, 9, 8, 500);
    view_pending_add (v, 0, 10, 6, 500, 0, 0);
    view_reservation (v, 0, 2, 0, &r);
    ck_assert (!r.set && resv_wait (&r, 1e6) == 0);
    view_reservation (v, 0, 3, 0, &r);
    ck_assert (r.set && resv_wait (&r, 200) == 300);
    view_free (v);
    clusterconf_free (conf);
}
END_TEST

/* The wait for power under p2's cap of 700 W: 10 idle nodes draw 500 W,
 * so jobs may draw 200 W above idle. */
START_TEST (test_view_power_wait)
{
    ms_siteconf_t *conf = load_conf ();
    ms_view_t *v = view_new (conf);

    /* 2 nodes at 100 W until 100 (100 W above idle), 1 at 150 W until 200
     * (100 W): no room left. */
    view_run_start (v, 1, 1, 2, 100, 100);
    view_run_start (v, 1, 2, 1, 200, 150);
    ck_assert (view_power_wait (v, 1, 1, 100, 0) == 100);
    ck_assert (view_power_wait (v, 1, 1, 200, 0) == 200);
    ck_assert (view_power_wait (v, 1, 1, 200, 150) == 50);
    /* More than the cap allows at all: it waits until all have ended. */
    ck_assert (view_power_wait (v, 1, 1, 1000, 0) == 200);
    /* No cap on p1. */
    view_run_start (v, 0, 3, 10, 500, 1000);
    ck_assert (view_power_wait (v, 0, 1, 1000, 0) == 0);
    /* Room again when the first ends. */
    view_run_end (v, 1, 1);
    ck_assert (view_power_wait (v, 1, 1, 100, 0) == 0);
    /* A cap changed by the settings counts at once. */
    conf->parts[1].power_cap_w = 600;
    ck_assert (view_power_wait (v, 1, 1, 100, 0) == 200);
    view_free (v);
    clusterconf_free (conf);
}
END_TEST

/* Time limits: the user's own at home nominal; elsewhere the predicted
 * ratio times exp (limit_z * sqrt (sd_pred^2 + job_sd^2)), never below the
 * user's limit. */
/* A partition's max_time: the scaled limit stops there, and a candidate
 * whose upper bound does not fit is dropped. */
/* The maximum of candidate i's partition in clusters.conf. */
#define M(i) engine_part_max_s (conf, cs.c[i].part)

START_TEST (test_max_time)
{
    static const char text[]
        = "[architecture a]\ncores_per_node = 4\n"
          "frequencies_khz = 1000000, 2000000\nnominal_khz = 2000000\n"
          "idle_power_w = 50\n"
          "[cluster c]\nbackend = simulated\n"
          "[partition c/p1]\narchitecture = a\nnodes = 10\n"
          "[partition c/p2]\narchitecture = a\nnodes = 10\nmax_time = 2\n";
    ms_siteconf_t *conf;
    ms_error_t err;
    ms_cands_t cs = { 0 };
    ms_policy_t pol;

    ck_assert_msg (clusterconf_parse (text, strlen (text), "t", &conf, &err)
                       == 0,
                   "%s", err.text);
    two_parts (&cs);
    policy_init (&pol, POL_METASCHED);
    pol.job_sd = 0.05;
    pol.limit_z = 4;
    /* p2 at 1 GHz: 100 s * 2.5 * exp (0.2) = 305 s, over p2's 120 s: the
     * limit stops at 120 s. */
    ck_assert (engine_limit (&pol, conf, 0, 100, 100, &cs.c[3], M (3)) == 120);
    /* A user's limit over the maximum stays (the partition refuses it;
     * candidates_limits drops such candidates). */
    ck_assert (engine_limit (&pol, conf, 0, 200, 100, &cs.c[3], M (3)) == 200);
    /* p1 has no maximum: 100 * 1.1 * exp (0.2). */
    ck_assert (fabs (engine_limit (&pol, conf, 0, 100, 100, &cs.c[1], M (1))
                     - 110 * exp (0.2))
               < 1e-9);
    /* Dropped: p2 at 1 GHz (305 s > 120 s); p2 at 2 GHz is the home's
     * architecture at nominal (the user's 100 s) and stays. */
    engine_fit_limits (&pol, conf, 0, 100, 100, NULL, &cs);
    ck_assert_uint_eq (cs.n, 3);
    for (size_t i = 0; i < cs.n; i++)
        ck_assert (!(cs.c[i].part == 1 && cs.c[i].f_khz == 1000000));
    /* When none fits (the user asked for p2), none is dropped. */
    cs.n = 0;
    cand (&cs, 1, 1, 250, 250);
    engine_fit_limits (&pol, conf, 0, 100, 100, NULL, &cs);
    ck_assert_uint_eq (cs.n, 1);
    /* No user limit: nothing is dropped. */
    two_parts (&cs);
    engine_fit_limits (&pol, conf, 0, 0, 100, NULL, &cs);
    ck_assert_uint_eq (cs.n, 4);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

START_TEST (test_entry_limit)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_policy_t pol;
    double l, want;

    two_parts (&cs);
    policy_init (&pol, POL_METASCHED);
    pol.job_sd = 0.05;
    pol.limit_z = 4;
    /* Home p1 at nominal (2 GHz): base 100 s, the user's 120 s stands. */
    ck_assert (engine_limit (&pol, conf, 0, 120, 100, &cs.c[0], M (0)) == 120);
    /* p1 at 1 GHz, no predictor interval: 120 * 1.1 * exp (4 * 0.05). */
    l = engine_limit (&pol, conf, 0, 120, 100, &cs.c[1], M (1));
    want = 120 * 1.1 * exp (0.2);
    ck_assert_msg (fabs (l - want) < 1e-9, "%g != %g", l, want);
    /* A 90% interval of +10% joins the job's spread. */
    cs.c[1].t_hi = 110 * 1.1;
    l = engine_limit (&pol, conf, 0, 120, 100, &cs.c[1], M (1));
    want = 120 * 1.1
           * exp (4 * sqrt (pow (log (1.1) / 1.6448536269514722, 2) + 0.0025));
    ck_assert_msg (fabs (l - want) < 1e-9, "%g != %g", l, want);
    /* Faster than home: never below the user's limit. */
    cs.c[3].t = cs.c[3].t_hi = 50;
    ck_assert (engine_limit (&pol, conf, 0, 120, 100, &cs.c[3], M (3)) == 120);
    /* The same architecture at nominal on another partition: the user's. */
    ck_assert (engine_limit (&pol, conf, 0, 120, 100, &cs.c[2], M (2)) == 120);
    /* Scaling off, or no user limit. */
    pol.scale_limits = false;
    ck_assert (engine_limit (&pol, conf, 0, 120, 100, &cs.c[1], M (1)) == 120);
    ck_assert (engine_limit (&pol, conf, 0, 0, 100, &cs.c[1], M (1)) == 0);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

START_TEST (test_kind_names)
{
    for (int k = 0; k < POL_NKINDS; k++) {
        ms_polkind_t back;
        ck_assert_int_eq (policy_kind_parse (policy_kind_name (k), &back), 0);
        ck_assert_int_eq (back, k);
    }
    ms_polkind_t x;
    ck_assert_int_eq (policy_kind_parse ("nope", &x), -1);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("policy");
    TCase *tc = tcase_create ("decisions");

    tcase_add_test (tc, test_eamc_scores);
    tcase_add_test (tc, test_fopt_and_optimal_partition);
    tcase_add_test (tc, test_baselines);
    tcase_add_test (tc, test_ear_theta_bound);
    tcase_add_test (tc, test_eamc_priorities);
    tcase_add_test (tc, test_metasched_caps);
    tcase_add_test (tc, test_metasched_wait);
    tcase_add_test (tc, test_metasched_preference);
    tcase_add_test (tc, test_metasched_sibling_hold);
    tcase_add_test (tc, test_metasched_drain);
    tcase_add_test (tc, test_metasched_wait_share);
    tcase_add_test (tc, test_metasched_sibling_ahead);
    tcase_add_test (tc, test_metasched_stake);
    tcase_add_test (tc, test_jobmix);
    tcase_add_test (tc, test_jobmix_calibrate);
    tcase_add_test (tc, test_jobmix_calibrate_tie);
    tcase_add_test (tc, test_jobmix_lean);
    tcase_add_test (tc, test_view_wait);
    tcase_add_test (tc, test_view_reservation);
    tcase_add_test (tc, test_view_power_wait);
    tcase_add_test (tc, test_max_time);
    tcase_add_test (tc, test_entry_limit);
    tcase_add_test (tc, test_kind_names);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
