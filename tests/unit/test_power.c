/* test_power.c - power budgets (core/power.c): the text form and its
 * errors, the schedule, the rule that keeps predicted power under every
 * budget, and simulated runs under a site budget (sim/powertrace.c). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/core/policy.h"
#include "metasched/core/power.h"
#include "metasched/sim/powertrace.h"
#include "metasched/sim/simulate.h"
#include "metasched/sim/workload.h"
#include "tests/simworld.h"
#include "tests/testutil.h"

/* alpha 128 x 110 W, beta 96 x 100 W, gamma 96 x 90 W idle */
#define IDLE_ALPHA 14080.0
#define IDLE_SITE (14080.0 + 9600.0 + 8640.0)

static ms_siteconf_t *
site (void)
{
    const char *text = simulate_builtin_config ("default");
    ms_siteconf_t *conf;
    ms_error_t err;
    ck_assert (clusterconf_parse (text, strlen (text), "default", &conf, &err)
               == 0);
    return conf;
}

static void
parse_ok (const ms_siteconf_t *conf, const char *spec, ms_budgets_t *bs)
{
    ms_error_t err;
    memset (bs, 0, sizeof (*bs));
    ck_assert_msg (power_budgets_parse (spec, "b.conf", conf, 0, bs, &err)
                       == 0,
                   "%s: %s", spec, err.text);
}

START_TEST (test_parse)
{
    ms_siteconf_t *conf = site ();
    ms_budgets_t bs, back;
    char text[2048];

    parse_ok (conf,
              "site 700kW\n"
              "alpha 250 kW from 14:00 until 18:00   # the afternoon\n"
              "beta 90000 from +2h; gamma 1.5MW from 2026-11-28T14:00 until "
              "2026-11-28T18:30:15\n"
              "\n"
              "site 600kw from 22:00 until 06:00\n",
              &bs);
    ck_assert_uint_eq (bs.n, 5);
    ck_assert (bs.b[0].scope == MS_POWER_SITE && bs.b[0].win == MS_BW_ALWAYS);
    ck_assert_double_eq (bs.b[0].watts, 700e3);
    ck_assert (bs.b[1].scope == 0 && bs.b[1].win == MS_BW_DAILY);
    ck_assert_double_eq (bs.b[1].watts, 250e3);
    ck_assert_double_eq (bs.b[1].from, 14 * 3600);
    ck_assert_double_eq (bs.b[1].until, 18 * 3600);
    ck_assert (bs.b[2].scope == 1 && bs.b[2].win == MS_BW_ABS);
    ck_assert_double_eq (bs.b[2].from, 7200);
    ck_assert (isinf (bs.b[2].until));
    ck_assert_double_eq (bs.b[3].watts, 1.5e6);
    ck_assert_double_eq (bs.b[3].from, 1795874400.0); /* 2026-11-28 14:00Z */
    ck_assert_double_eq (bs.b[3].until - bs.b[3].from, 4 * 3600 + 30 * 60 + 15);
    ck_assert_uint_eq (bs.b[4].line, 5);

    /* the least of the budgets that cover t; the night window wraps */
    ck_assert_double_eq (power_budget_at (&bs, MS_POWER_SITE, 0), 600e3);
    ck_assert_double_eq (power_budget_at (&bs, MS_POWER_SITE, 12 * 3600),
                         700e3);
    ck_assert_double_eq (power_budget_at (&bs, MS_POWER_SITE, 23 * 3600),
                         600e3);
    ck_assert_double_eq (power_budget_at (&bs, 0, 15 * 3600), 250e3);
    ck_assert (isinf (power_budget_at (&bs, 0, 18 * 3600)));
    ck_assert_double_eq (power_budget_at (&bs, 0, 86400 + 15 * 3600), 250e3);
    ck_assert (isinf (power_budget_at (&bs, 1, 7199)));
    ck_assert_double_eq (power_budget_at (&bs, 1, 7200), 90000);
    ck_assert (isinf (power_budget_at (&bs, 2, 0)));
    /* its changes */
    ck_assert_double_eq (power_budget_next (&bs, MS_POWER_SITE, 0), 6 * 3600);
    ck_assert_double_eq (power_budget_next (&bs, MS_POWER_SITE, 6 * 3600),
                         22 * 3600);
    ck_assert_double_eq (power_budget_next (&bs, 1, 0), 7200);
    ck_assert (isinf (power_budget_next (&bs, 1, 7200)));
    ck_assert (power_budget_has (&bs, 2) && power_budget_has (&bs, 0));

    /* written back, the text reads as the same budgets */
    power_budgets_format (&bs, conf, text, sizeof (text));
    parse_ok (conf, text, &back);
    ck_assert_uint_eq (back.n, bs.n);
    for (size_t i = 0; i < bs.n; i++) {
        ck_assert_uint_eq (back.b[i].scope, bs.b[i].scope);
        ck_assert_int_eq (back.b[i].win, bs.b[i].win);
        ck_assert_double_eq (back.b[i].watts, bs.b[i].watts);
        ck_assert_double_eq (back.b[i].from, bs.b[i].from);
        ck_assert_double_eq (back.b[i].until, bs.b[i].until);
    }
    power_budgets_free (&back);
    power_budgets_free (&bs);
    clusterconf_free (conf);
}
END_TEST

START_TEST (test_parse_errors)
{
    static const struct {
        const char *spec, *msg;
    } cases[] = {
        { "site", "b.conf:1: 'site': SCOPE WATTS [from TIME] [until TIME]: "
                  "no watts" },
        { "delta 5kW", "b.conf:1: 'delta 5kW': scope: 'site' or a cluster "
                       "(alpha, beta, gamma), not 'delta'" },
        { "site 5kJ", "b.conf:1: 'site 5kJ': watts: unknown unit 'kJ'" },
        { "site 5 kJ", "b.conf:1: 'site 5 kJ': 'from' or 'until' expected, "
                       "not 'kJ'" },
        { "site -5", "watts: more than 0 and at most 1e12 W, not '-5'" },
        { "site 0W", "watts: more than 0" },
        { "site nan", "watts: a number with W, kW or MW, not 'nan'" },
        { "site 1e13", "watts: more than 0 and at most 1e12 W" },
        { "site 5kW from 25:00", "from: HH:MM[:SS] (every day), "
                                 "YYYY-MM-DDTHH:MM[:SS] (UTC) or "
                                 "+N[s|m|h|d], not '25:00'" },
        { "site 5kW from 14:00 until 14:00", "an empty window" },
        { "site 5kW from 14:00 until +2h",
          "'from' and 'until' must both be times of day or both absolute" },
        { "site 5kW until 18:00 from 14:00", "'from' goes before 'until'" },
        { "site 5kW from 2026-02-31T00:00", "not '2026-02-31T00:00'" },
        { "site 5kW from 2026-01-02T00:00 until 2026-01-01T00:00",
          "'until' must come after 'from'" },
        { "site 5kW at 14:00", "'from' or 'until' expected, not 'at'" },
        { "site 5kW from", "'from' needs a time" },
        { "site 5kW from 10:00 from 11:00", "'from' given twice" },
        { "site 5kW from +2y", "not '+2y'" },
        { "site 5kW from 1 2 3 4 5 6", "too many words" },
        { "\n\nsite 5kW\nalpha x", "b.conf:4: 'alpha x': watts:" },
        { "site 5kW; alpha 7 W; beta oops", "b.conf:1: 'beta oops': watts" },
        { "site 5kW\x01", "a control or non-ASCII byte (0x01)" },
    };
    ms_siteconf_t *conf = site ();
    char longer[700];

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        ms_budgets_t bs;
        ms_error_t err;
        /* a budget read before stays as it was */
        parse_ok (conf, "gamma 1kW", &bs);
        ck_assert_msg (power_budgets_parse (cases[i].spec, "b.conf", conf, 0,
                                            &bs, &err)
                           < 0,
                       "accepted: %s", cases[i].spec);
        ck_assert_int_eq (err.kind, MS_ERR_INPUT);
        ck_assert_msg (strstr (err.text, cases[i].msg), "'%s': got '%s'",
                       cases[i].spec, err.text);
        ck_assert_uint_eq (bs.n, 1);
        ck_assert_uint_eq (bs.b[0].scope, 2);
        power_budgets_free (&bs);
    }
    memset (longer, 'x', sizeof (longer) - 1);
    longer[sizeof (longer) - 1] = '\0';
    {
        ms_budgets_t bs = { NULL, 0 };
        ms_error_t err;
        ck_assert (power_budgets_parse (longer, "b.conf", conf, 0, &bs, &err)
                   < 0);
        ck_assert_msg (strstr (err.text, "b.conf:1: 'xxxx")
                           && strstr (err.text, "an entry of over 511"),
                       "%s", err.text);
    }
    clusterconf_free (conf);
}
END_TEST

/* A running entry of `watts` on cluster from 0 to end. */
static void
run (ms_power_t *pw, uint64_t job, size_t cluster, double watts, double end)
{
    power_add (pw, job, job, cluster, watts, end, 0, 0);
    power_start (pw, job, cluster, job, 0);
}

START_TEST (test_rule)
{
    ms_siteconf_t *conf = site ();
    ms_budgets_t bs;
    ms_power_t *pw;
    ms_powerwhy_t why;
    size_t over;

    parse_ok (conf, "site 40kW; alpha 20kW", &bs);
    pw = power_new (conf, &bs);
    ck_assert_double_eq_tol (power_draw (pw, MS_POWER_SITE), IDLE_SITE, 1e-6);
    ck_assert_double_eq_tol (power_draw (pw, 0), IDLE_ALPHA, 1e-6);
    /* under both */
    ck_assert (power_fits (pw, 0, 5000, 0, 100, NULL));
    /* over alpha's: refused, naming it; beta has room under the site's */
    ck_assert (!power_fits (pw, 0, 6000, 0, 100, &why));
    ck_assert_uint_eq (why.scope, 0);
    ck_assert_double_eq (why.budget, 20000);
    ck_assert_double_eq_tol (why.draw, IDLE_ALPHA + 6000, 1e-6);
    ck_assert (power_fits (pw, 1, 6000, 0, 100, NULL));

    /* a running job counts until its predicted end (upper bound) */
    run (pw, 1, 1, 6000, 1000);
    ck_assert_double_eq_tol (power_draw (pw, MS_POWER_SITE), IDLE_SITE + 6000,
                             1e-6);
    ck_assert (!power_fits (pw, 1, 2000, 0, 10, &why));
    ck_assert_uint_eq (why.scope, MS_POWER_SITE);
    ck_assert_double_eq (power_fit_time (pw, 1, 2000, 500, 0), 1000);
    ck_assert_double_eq_tol (power_draw_at (pw, MS_POWER_SITE, 1000, 0),
                             IDLE_SITE, 1e-6);
    /* past its predicted end, still running: it still counts now */
    ck_assert_double_eq_tol (power_draw (pw, MS_POWER_SITE), IDLE_SITE + 6000,
                             1e-6);

    /* a job's entries on two clusters (siblings) count once on the site:
     * the larger */
    power_add (pw, 2, 7, 0, 1000, 100, 0, 0);
    power_add (pw, 2, 7, 2, 1500, 100, 0, 0);
    ck_assert_uint_eq (power_ntracked (pw), 3);
    ck_assert_double_eq_tol (power_draw (pw, MS_POWER_SITE),
                             IDLE_SITE + 6000 + 1500, 1e-6);
    ck_assert_double_eq_tol (power_draw (pw, 0), IDLE_ALPHA + 1000, 1e-6);
    power_remove (pw, 2, 2, 7);
    ck_assert_double_eq_tol (power_draw (pw, MS_POWER_SITE),
                             IDLE_SITE + 6000 + 1000, 1e-6);
    power_remove (pw, 2, 0, 7);
    power_remove (pw, 1, 1, 1);
    ck_assert_uint_eq (power_ntracked (pw), 0);
    ck_assert_double_eq_tol (power_draw (pw, MS_POWER_SITE), IDLE_SITE, 1e-9);
    power_free (pw);
    power_budgets_free (&bs);

    /* a lower budget later in the job's run refuses it; one that ends
     * before the drop is allowed */
    parse_ok (conf, "site 40kW; site 35kW from 01:00 until 02:00", &bs);
    pw = power_new (conf, &bs);
    ck_assert (power_fits (pw, 0, 2000, 0, 4000, NULL));
    ck_assert (!power_fits (pw, 0, 3000, 0, 4000, &why));
    ck_assert_double_eq (why.at, 3600);
    ck_assert_double_eq (why.budget, 35000);
    ck_assert (power_fits (pw, 0, 3000, 0, 3500, NULL));
    /* ... and it would fit once the low window is over */
    ck_assert_double_eq (power_fit_time (pw, 0, 3000, 1800, 0), 0);
    ck_assert_double_eq (power_fit_time (pw, 0, 3000, 4000, 0), 7200);
    power_free (pw);
    power_budgets_free (&bs);

    /* a budget below what runs: nothing starts, and the engine says when
     * the predicted power is under it again */
    parse_ok (conf, "site 36kW", &bs);
    pw = power_new (conf, &bs);
    run (pw, 1, 1, 6000, 1000);
    run (pw, 2, 2, 1000, 3000);
    ck_assert_double_eq (power_clear_time (pw, 0, &over), 1000);
    ck_assert_uint_eq (over, MS_POWER_SITE);
    ck_assert (!power_fits (pw, 0, 1, 0, 1, NULL));
    ck_assert_double_eq (power_fit_time (pw, 0, 100, 10, 0), 1000);
    ck_assert_double_eq (power_fit_time (pw, 0, 3000, 10, 0), 3000);
    /* more than the budget leaves above idle: never */
    ck_assert (isinf (power_fit_time (pw, 0, 4000, 10, 0)));
    power_free (pw);
    power_budgets_free (&bs);
    clusterconf_free (conf);
}
END_TEST

/* The filter keeps the candidates that fit: under a tight budget on alpha
 * its lower frequencies and the other clusters. */
START_TEST (test_filter)
{
    world_t w;
    ms_cands_t cs = { .c = NULL };
    ms_budgets_t bs;
    ms_power_t *pw;
    double lo = INFINITY, hi = 0, cut;
    size_t nalpha = 0, kept_alpha = 0, others = 0, kept;
    char spec[128];

    world_init_site (&w, simulate_builtin_config ("default"), "default");
    candidates_build (w.tab, 0, 0, 8, 3600, NULL, 0, &cs);
    ck_assert_uint_gt (cs.n, 10);
    parse_ok (w.conf, "site 1MW", &bs);
    pw = power_new (w.conf, &bs);
    power_set_spread (pw, 0.02, 4);
    for (size_t i = 0; i < cs.n; i++) {
        double x = power_cand_watts (pw, &cs.c[i]);
        /* the upper bound covers 4 SDs of a job's power */
        ck_assert (x >= cs.c[i].nodes * (cs.c[i].p * exp (0.08) - 110) - 1e-6
                   || cs.c[i].part != 0);
        if (cs.c[i].part != 0) {
            others++;
            continue;
        }
        nalpha++;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    ck_assert (hi > lo);
    cut = (lo + hi) / 2;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.c[i].part == 0 && power_cand_watts (pw, &cs.c[i]) <= cut)
            kept_alpha++;
    power_free (pw);
    power_budgets_free (&bs);
    snprintf (spec, sizeof (spec), "alpha %.6fW", IDLE_ALPHA + cut);
    parse_ok (w.conf, spec, &bs);
    pw = power_new (w.conf, &bs);
    power_set_spread (pw, 0.02, 4);
    kept = power_filter (pw, w.conf, &cs, 0);
    ck_assert_uint_eq (kept, kept_alpha + others);
    ck_assert_uint_lt (kept_alpha, nalpha);
    for (size_t i = 0; i < cs.n; i++)
        ck_assert (cs.c[i].part != 0 || power_cand_watts (pw, &cs.c[i]) <= cut);
    power_free (pw);
    power_budgets_free (&bs);
    candidates_free (&cs);
    world_fini (&w);
}
END_TEST

typedef struct {
    world_t site;
    ms_workload_t *wl;
    ms_simsetup_t su;
} simrun_t;

static void
sim_init (simrun_t *r, size_t njobs, uint64_t seed)
{
    ms_genparams_t gp;
    ms_error_t err;
    double wts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

    memset (r, 0, sizeof (*r));
    world_init_site (&r->site, simulate_builtin_config ("default"),
                     "default");
    workload_gen_defaults (&gp);
    gp.seed = seed;
    gp.njobs = njobs;
    gp.mean_interarrival_s = 60;
    gp.max_nodes = 96;
    ck_assert (workload_generate (&gp, &r->wl, &err) == 0);
    workload_assign_apps (r->wl, wts, 8, seed);
    simulate_setup_init (&r->su);
    r->su.conf = r->site.conf;
    r->su.tab = r->site.tab;
    r->su.wl = r->wl;
    r->su.seed = seed;
}

static void
sim_run (simrun_t *r, ms_polkind_t k, ms_jobrec_t *recs, ms_summary_t *s,
         ms_powersum_t *ps)
{
    ms_policy_t pol;
    ms_error_t err;
    ms_powertrace_t *pt;

    policy_init (&pol, k);
    ck_assert_msg (simulate_run (&r->su, &pol, recs, s, &err) == 0, "%s: %s",
                   pol.label, err.text);
    pt = powertrace_build (r->site.conf, recs, r->wl->njobs, r->su.budgets);
    powertrace_summary (pt, ps);
    powertrace_free (pt);
}

/* A site budget at 70% of the uncapped run's peak: what metasched starts
 * never draws over it, every job runs, and the budget did hold jobs; the
 * capped baseline (home, first-come first-served) keeps it as well. */
START_TEST (test_sim_site_budget)
{
    simrun_t r;
    ms_jobrec_t *recs;
    ms_summary_t s;
    ms_powersum_t ps;
    ms_budgets_t bs;
    char spec[64];
    double budget;

    sim_init (&r, 400, 3);
    recs = ms_xcalloc (r.wl->njobs, sizeof (*recs));
    sim_run (&r, POL_METASCHED, recs, &s, &ps);
    ck_assert_uint_eq (s.power_holds, 0);
    budget = 0.7 * ps.peak_w;
    ck_assert (budget > IDLE_SITE);
    snprintf (spec, sizeof (spec), "site %.0fW", budget);
    parse_ok (r.site.conf, spec, &bs);
    r.su.budgets = &bs;
    for (int k = 0; k < 2; k++) {
        sim_run (&r, k ? POL_HOME : POL_METASCHED, recs, &s, &ps);
        ck_assert_msg (ps.peak_w <= budget + 1e-6, "%s: peak %.0f W over %.0f",
                       s.label, ps.peak_w, budget);
        ck_assert_double_eq (ps.over_s, 0);
        ck_assert_uint_eq (ps.starts_over, 0);
        ck_assert_uint_gt (s.power_holds, 0);
        if (k == 0) {
            ck_assert_uint_eq (s.rejected, 0);
            ck_assert_uint_eq (s.power_held, 0);
            ck_assert_uint_eq (s.done + s.killed, r.wl->njobs);
        }
    }
    free (recs);
    power_budgets_free (&bs);
    workload_free (r.wl);
    world_fini (&r.site);
}
END_TEST

/* A budget that drops below what runs for two hours a day: no job starts
 * into a draw over a budget, whatever ran before the drop, and every job
 * still runs. */
START_TEST (test_sim_schedule)
{
    simrun_t r;
    ms_jobrec_t *recs;
    ms_summary_t s;
    ms_powersum_t ps;
    ms_budgets_t bs;
    char spec[128];

    sim_init (&r, 300, 9);
    recs = ms_xcalloc (r.wl->njobs, sizeof (*recs));
    sim_run (&r, POL_METASCHED, recs, &s, &ps);
    snprintf (spec, sizeof (spec),
              "site %.0fW; site %.0fW from 04:00 until 06:00",
              0.9 * ps.peak_w, IDLE_SITE + 0.3 * (ps.peak_w - IDLE_SITE));
    parse_ok (r.site.conf, spec, &bs);
    r.su.budgets = &bs;
    sim_run (&r, POL_METASCHED, recs, &s, &ps);
    ck_assert_uint_eq (ps.starts_over, 0);
    ck_assert_uint_eq (s.rejected, 0);
    ck_assert_uint_gt (s.power_holds, 0);
    free (recs);
    power_budgets_free (&bs);
    workload_free (r.wl);
    world_fini (&r.site);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("power");
    TCase *tc = tcase_create ("budgets");
    tcase_set_timeout (tc, 600);
    tcase_add_test (tc, test_parse);
    tcase_add_test (tc, test_parse_errors);
    tcase_add_test (tc, test_rule);
    tcase_add_test (tc, test_filter);
    tcase_add_test (tc, test_sim_site_budget);
    tcase_add_test (tc, test_sim_schedule);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
