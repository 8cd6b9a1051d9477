/* test_window_carbon.c - the grid's signal under metasched_window: the
 * window's cycle (sched_cycle) decides on the candidates as
 * engine_candidates made them, their carbon and cost with them, so a
 * carbon or price weight moves a job as it does under metasched and a
 * deadline job is held for its cleaner run; and a copy of a candidate list
 * (candidates_copy) keeps what the list says of its candidates (home, carbon,
 * cost). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metasched/core/carbon.h"
#include "metasched/core/engine.h"
#include "metasched/core/policy.h"
#include "partitions/simcluster.h"
#include "tests/simworld.h"

/* Two clusters of one partition each: c1 (skx8168, the job's best on
 * energy and response) draws from zone DIRTY, c2 (clx6254) from
 * CLEAN. */
static const char site_text[]
    = "[architecture skx8168]\n"
      "cores_per_node = 48\nfrequencies_khz = 1200000-2700000/100000\n"
      "nominal_khz = 2700000\nidle_power_w = 110\n"
      "[architecture clx6254]\n"
      "cores_per_node = 36\nfrequencies_khz = 1200000-3100000/100000\n"
      "nominal_khz = 3100000\nidle_power_w = 100\n"
      "[architecture skx6148]\n"
      "cores_per_node = 40\nfrequencies_khz = 1000000-2400000/100000\n"
      "nominal_khz = 2400000\nidle_power_w = 90\n"
      "[cluster c1]\nbackend = simulated\n"
      "[partition c1/p]\narchitecture = skx8168\nnodes = 8\n"
      "[cluster c2]\nbackend = simulated\n"
      "[partition c2/p]\narchitecture = clx6254\nnodes = 8\n";

static char tmpdir[] = "/tmp/test_window_carbon.XXXXXX";

/* Zone name's signal: g gCO2eq/kWh (g_late from 02:00 on) and price
 * $/MWh (NAN: none) every hour for a day. */
static void
zone_shifting (ms_carbon_t *cb, const char *name, double g, double g_late,
               double price)
{
    char path[512], row[128];
    ms_error_t err;
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s.csv", tmpdir, name);
    f = fopen (path, "w");
    ck_assert_ptr_nonnull (f);
    fputs ("time_utc,gco2eq_per_kwh,price_per_mwh\n", f);
    for (int h = 0; h < 24; h++) {
        if (isnan (price))
            snprintf (row, sizeof (row), "2022-01-01T%02d:00:00Z,%g,\n", h,
                      h < 2 ? g : g_late);
        else
            snprintf (row, sizeof (row), "2022-01-01T%02d:00:00Z,%g,%g\n", h,
                      h < 2 ? g : g_late, price);
        fputs (row, f);
    }
    fclose (f);
    ck_assert_msg (carbon_read_csv (cb, name, path, &err) == 0, "%s", err.text);
    unlink (path);
}

static void
zone (ms_carbon_t *cb, const char *name, double g, double price)
{
    zone_shifting (cb, name, g, g, price);
}

/* The two zones (DIRTY: 5 times CLEAN's carbon; prices dirty_p and
 * clean_p), c1 on DIRTY, c2 on CLEAN; time 0 the signals' start. */
static void
two_zones (ms_carbon_t *cb, double dirty_g, double dirty_p, double clean_p)
{
    ms_error_t err;

    carbon_init (cb);
    zone (cb, "DIRTY", dirty_g, dirty_p);
    zone (cb, "CLEAN", 100, clean_p);
    ck_assert (carbon_assign (cb, "c1", "DIRTY", &err) == 0);
    ck_assert (carbon_assign (cb, "c2", "CLEAN", &err) == 0);
    cb->epoch = cb->z[0].t0;
}

static int
truth (void *arg, const void *job, size_t part, uint32_t f_khz, int nodes,
       double *runtime_s, double *power_w, ms_error_t *errp)
{
    (void)arg, (void)job, (void)part, (void)f_khz, (void)nodes, (void)errp;
    *runtime_s = 600;
    *power_w = 300;
    return 0;
}

/* The cluster (index) of a job's first choice under kind with these
 * weights: njobs jobs of app ep.D, one node, home c1/p, submitted at
 * time 0 (under metasched_window, decided together at the cycle); each
 * goes out with one entry (the daemon's single dispatch), so where its
 * entry is, it runs. All of them must go to the same cluster. *flags_ok
 * says whether the scheduler's candidates after the last job carry its
 * home and the grid's flags: carbon, and cost as want_cost. */
static size_t
where_at (world_t *w, const ms_carbon_t *cb, ms_polkind_t kind, double w_carbon,
          double w_cost, size_t njobs, double deadline, bool want_cost,
          bool *flags_ok, double *eligible)
{
    simworld_t *sw;
    ms_backend_t *bk[2];
    ms_sched_t *s;
    ms_policy_t pol;
    ms_error_t err;
    size_t at = SIZE_MAX, seen = 0;
    const ms_cands_t *cs;

    *eligible = 0;
    ck_assert_msg (simworld_new (w->conf, SIM_EASY, truth, NULL, &sw, &err)
                       == 0,
                   "%s", err.text);
    for (size_t i = 0; i < 2; i++)
        bk[i] = simworld_backend (sw, i);
    policy_init (&pol, kind);
    pol.carbon = cb;
    pol.w_carbon = w_carbon;
    pol.w_cost = w_cost;
    engine_dispatch_mode (&pol, false, 0);
    s = sched_new (&pol, w->conf, bk, w->tab);
    for (size_t k = 0; k < njobs; k++) {
        ms_jobdesc_t jd;
        uint64_t id;
        memset (&jd, 0, sizeof (jd));
        jd.user = "nobody";
        jd.name = "job";
        jd.nodes = 1;
        jd.app = (size_t)predtab_app_index (w->tab, "ep.D");
        jd.home = 0;
        jd.base_s = 600;
        jd.limit_s = 1200;
        jd.deadline = deadline;
        ck_assert_msg (sched_submit (s, &jd, 0, &id, &err) == 0, "%s",
                       err.text);
        ck_assert (id != 0);
    }
    ck_assert_msg (sched_cycle (s, 0, &err) == 0, "%s", err.text);
    cs = sched_candidates (s);
    *flags_ok
        = cs->n > 0 && cs->home == 0 && cs->carbon && cs->cost == want_cost;
    for (size_t i = 0; i < 2; i++) {
        ms_job_info_t *ji = NULL;
        size_t n = 0;
        ck_assert (backend_jobs (bk[i], &ji, &n, &err) == 0);
        if (n) {
            ck_assert_msg (at == SIZE_MAX, "jobs on c1 and c2");
            at = i;
        }
        for (size_t j = 0; j < n; j++)
            if ((double)ji[j].eligible_time > *eligible)
                *eligible = (double)ji[j].eligible_time;
        seen += n;
        free (ji);
    }
    ck_assert_uint_eq (seen, njobs);
    sched_free (s);
    simworld_free (sw);
    return at;
}

/* where_at for jobs without a deadline: each starts at once. */
static size_t
where (world_t *w, const ms_carbon_t *cb, ms_polkind_t kind, double w_carbon,
       double w_cost, size_t njobs, bool want_cost, bool *flags_ok)
{
    double eligible = 0;
    size_t at = where_at (w, cb, kind, w_carbon, w_cost, njobs, 0, want_cost,
                          flags_ok, &eligible);

    ck_assert (eligible == 0);
    return at;
}

/* A carbon weight moves the job to the cleaner zone under
 * metasched_window as under metasched, for one job and for a window of
 * several; without the weight both keep c1. */
START_TEST (test_window_carbon_moves)
{
    world_t w;
    ms_carbon_t cb;
    bool ok;

    world_init_site (&w, site_text, "t");
    two_zones (&cb, 500, 30, 30);
    ck_assert_uint_eq (where (&w, &cb, POL_METASCHED, 0, 0, 1, true, &ok), 0);
    ck_assert_uint_eq (where (&w, &cb, POL_METASCHED, 1, 0, 1, true, &ok), 1);
    ck_assert_uint_eq (
        where (&w, &cb, POL_METASCHED_WINDOW, 0, 0, 1, true, &ok), 0);
    ck_assert (ok);
    ck_assert_msg (where (&w, &cb, POL_METASCHED_WINDOW, 1, 0, 1, true, &ok)
                       == 1,
                   "metasched_window ignores w_carbon: the job stays on the "
                   "dirty zone");
    ck_assert (ok);
    ck_assert_uint_eq (
        where (&w, &cb, POL_METASCHED_WINDOW, 1, 0, 3, true, &ok), 1);
    ck_assert (ok);
    carbon_free (&cb);
    world_fini (&w);
}
END_TEST

/* A price weight alike: the same carbon in both zones, c1's power five
 * times as dear; and no price in one zone leaves the cost out (the
 * list says so) and the job where energy puts it. */
START_TEST (test_window_cost_moves)
{
    world_t w;
    ms_carbon_t cb;
    bool ok;

    world_init_site (&w, site_text, "t");
    two_zones (&cb, 100, 150, 30);
    ck_assert_uint_eq (where (&w, &cb, POL_METASCHED, 0, 1, 1, true, &ok), 1);
    ck_assert_msg (where (&w, &cb, POL_METASCHED_WINDOW, 0, 1, 1, true, &ok)
                       == 1,
                   "metasched_window ignores w_cost: the job stays on the "
                   "dear zone");
    ck_assert (ok);
    carbon_free (&cb);
    two_zones (&cb, 100, NAN, 30);
    ck_assert_uint_eq (
        where (&w, &cb, POL_METASCHED_WINDOW, 0, 1, 1, false, &ok), 0);
    ck_assert (ok);
    carbon_free (&cb);
    world_fini (&w);
}
END_TEST

/* A deadline job under metasched_window is held for the cleaner run
 * that its decision's cost counted (carbon_apply's shift), as under
 * metasched: both zones dirty for two hours, then clean; a deadline 6 h
 * on leaves room for the clean hours. Without a carbon weight, or
 * without a deadline, it starts at once. */
START_TEST (test_window_deadline_hold)
{
    static const ms_polkind_t kinds[] = { POL_METASCHED, POL_METASCHED_WINDOW };
    ms_error_t err;
    world_t w;
    ms_carbon_t cb;
    double eligible;
    bool ok;

    world_init_site (&w, site_text, "t");
    carbon_init (&cb);
    zone_shifting (&cb, "S", 500, 50, 30);
    ck_assert (carbon_assign (&cb, "c1", "S", &err) == 0);
    ck_assert (carbon_assign (&cb, "c2", "S", &err) == 0);
    cb.epoch = cb.z[0].t0;
    for (size_t k = 0; k < 2; k++) {
        (void)where_at (&w, &cb, kinds[k], 1, 0, 1, 6 * 3600, true, &ok,
                        &eligible);
        ck_assert (ok);
        ck_assert_msg (eligible >= 7200 && eligible + 1200 <= 6 * 3600,
                       "%s: a deadline job eligible at %g s, not held for "
                       "the clean hours from 7200 s",
                       kinds[k] == POL_METASCHED ? "metasched"
                                                 : "metasched_window",
                       eligible);
        (void)where_at (&w, &cb, kinds[k], 0, 0, 1, 6 * 3600, true, &ok,
                        &eligible);
        ck_assert (eligible == 0);
        (void)where (&w, &cb, kinds[k], 1, 0, 1, true, &ok);
    }
    carbon_free (&cb);
    world_fini (&w);
}
END_TEST

/* candidates_copy: the candidates and the list's home, carbon and cost;
 * the destination's array reused when it is large enough, grown when
 * not; an empty list copied as empty. */
START_TEST (test_candidates_copy)
{
    ms_cands_t a = { 0 }, b = { 0 };
    ms_cand_t *old;

    a.n = a.cap = 3;
    a.c = calloc (3, sizeof (*a.c));
    for (size_t i = 0; i < 3; i++) {
        a.c[i].part = i;
        a.c[i].carbon_g = 10.0 * (double)i;
        a.c[i].cost = (double)i;
    }
    a.home = 2;
    a.carbon = true;
    a.cost = true;
    candidates_copy (&b, &a);
    ck_assert_uint_eq (b.n, 3);
    ck_assert_uint_ge (b.cap, 3);
    ck_assert_uint_eq (b.home, 2);
    ck_assert (b.carbon && b.cost);
    ck_assert (memcmp (a.c, b.c, 3 * sizeof (*a.c)) == 0);
    old = b.c;
    a.n = 1;
    a.home = 0;
    a.carbon = false;
    a.cost = false;
    candidates_copy (&b, &a);
    ck_assert_ptr_eq (b.c, old);
    ck_assert_uint_eq (b.n, 1);
    ck_assert_uint_eq (b.home, 0);
    ck_assert (!b.carbon && !b.cost);
    ck_assert_uint_eq (b.c[0].part, 0);
    a.n = 0;
    candidates_copy (&b, &a);
    ck_assert_uint_eq (b.n, 0);
    ck_assert_ptr_nonnull (b.c);
    candidates_free (&a);
    candidates_free (&b);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("window_carbon");
    TCase *tc = tcase_create ("core");
    int rc;

    if (!mkdtemp (tmpdir)) {
        perror (tmpdir);
        return 1;
    }
    tcase_add_test (tc, test_window_carbon_moves);
    tcase_add_test (tc, test_window_cost_moves);
    tcase_add_test (tc, test_window_deadline_hold);
    tcase_add_test (tc, test_candidates_copy);
    suite_add_tcase (s, tc);
    rc = test_run_suite (s);
    rmdir (tmpdir);
    return rc;
}
