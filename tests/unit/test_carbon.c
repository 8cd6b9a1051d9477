/* test_carbon.c - the grid's signal (carbon.h): the CSV reader's refusals
 * (file:line and field), gaps and stale ends as missing values, the
 * shipped 2022 data; and the score: a carbon weight moves a job to the
 * cleaner zone, a signal missing over its run leaves energy alone. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "metasched/core/carbon.h"
#include "metasched/core/engine.h"
#include "metasched/core/policy.h"
#include "metasched/core/rank.h"
#include "tests/testutil.h"

static char tmpdir[] = "/tmp/test_carbon.XXXXXX";

static const char *
write_tmp (const char *name, const char *text)
{
    static char path[512];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s", tmpdir, name);
    f = fopen (path, "w");
    ck_assert_ptr_nonnull (f);
    fputs (text, f);
    fclose (f);
    return path;
}

/* Reading text as zone Z must fail with an error that contains want. */
static void
refused (const char *text, const char *want)
{
    ms_carbon_t cb;
    ms_error_t err;
    const char *p = write_tmp ("bad.csv", text);

    carbon_init (&cb);
    ck_assert_int_eq (carbon_read_csv (&cb, "Z", p, &err), -1);
    ck_assert_msg (strstr (err.text, want), "'%s' lacks '%s'", err.text, want);
    ck_assert_uint_eq (cb.nz, 0);
    carbon_free (&cb);
}

START_TEST (test_csv_refused)
{
    refused ("time,gco2eq_per_kwh\n2022-01-01T00:00:00Z,1\n",
             "bad.csv:1: the header names no 'time_utc' column");
    refused ("time_utc,co2\n", "bad.csv:1: the header names no "
                               "'gco2eq_per_kwh' column");
    refused ("time_utc,gco2eq_per_kwh\n2022-01-01T00:00:00Z,100\n"
             "2022-01-01T01:00:00Z,abc\n",
             "bad.csv:3: gco2eq_per_kwh: bad value 'abc'");
    refused ("time_utc,gco2eq_per_kwh\n2022-01-01T00:00:00Z,-5\n",
             "bad.csv:2: gco2eq_per_kwh: bad value '-5'");
    refused ("time_utc,gco2eq_per_kwh\n2022-01-01T00:00:00Z,100\n"
             "2022-13-01T01:00:00Z,100\n",
             "bad.csv:3: time_utc: bad time '2022-13-01T01:00:00Z'");
    refused ("time_utc,gco2eq_per_kwh\n2022-01-01T01:00:00Z,100\n"
             "2022-01-01T00:00:00Z,100\n",
             "bad.csv:3: time_utc: not after the row before");
    refused ("time_utc,gco2eq_per_kwh\n2022-01-01T00:00:00Z,100\n"
             "2022-01-01T01:00:00Z,100\n2022-01-01T01:30:00Z,100\n",
             "bad.csv:4: time_utc: not a whole number of steps");
    refused ("time_utc,gco2eq_per_kwh\n2022-01-01T00:00:00Z,100\n"
             "2022-01-01T01:00:00Z,100,7\n",
             "bad.csv:3: 3 fields where the header has 2");
    refused ("time_utc,gco2eq_per_kwh,price_per_mwh\n"
             "2022-01-01T00:00:00Z,100,x\n",
             "bad.csv:2: price_per_mwh: bad value 'x'");
    refused ("time_utc,gco2eq_per_kwh\n2022-01-01T00:00:00Z,100\n",
             "fewer than two rows");
    refused ("", "the header names no");
}
END_TEST

/* A gap (an empty value or a row left out) is missing, never zero; the
 * last step holds for stale_s past the end and no longer. */
/* The JSON form (carbon_parse_json): read the same as the CSV, and each
 * refusal names the file, the field and the point's index. */
static void
json_refused (const char *text, const char *want)
{
    ms_carbon_t cb;
    ms_error_t err;
    const char *p = write_tmp ("bad.json", text);

    carbon_init (&cb);
    ck_assert_int_eq (carbon_read_file (&cb, "Z", p, &err), -1);
    ck_assert_msg (strstr (err.text, want), "'%s' lacks '%s'", err.text, want);
    ck_assert_uint_eq (cb.nz, 0);
    carbon_free (&cb);
}

START_TEST (test_json_form)
{
    ms_carbon_t cb;
    ms_error_t err;
    double g, pr;
    const char *p = write_tmp (
        "z.json",
        "  {\"zone\": \"Z\", \"unit\": \"gCO2eq/kWh\", \"points\": [\n"
        "  {\"start\": \"2026-11-29T14:00Z\", \"carbon\": 312.0, "
        "\"price\": 81.2},\n"
        "  {\"start\": \"2026-11-29T15:00:00Z\", \"carbon\": 100},\n"
        "  {\"start\": \"2026-11-29T17:00Z\", \"carbon\": null, "
        "\"price\": 10}]}\n");

    carbon_init (&cb);
    ck_assert_msg (carbon_read_file (&cb, "Z", p, &err) == 0, "%s", err.text);
    ck_assert_uint_eq (cb.nz, 1);
    ck_assert_double_eq (cb.z[0].step, 3600);
    ck_assert_uint_eq (cb.z[0].n, 4);
    ck_assert_ptr_nonnull (cb.z[0].price);
    /* 14:00 is 1795960800 */
    ck_assert (carbon_over (&cb.z[0], 0, 1795960800.0, 1800, &g, &pr));
    ck_assert_double_eq_tol (g, 312.0, 1e-9);
    ck_assert_double_eq_tol (pr, 81.2, 1e-9);
    /* 15:00-16:00 has carbon, no price (a NAN price, still a carbon) */
    ck_assert (carbon_over (&cb.z[0], 0, 1795964400.0, 3600, &g, &pr));
    ck_assert_double_eq_tol (g, 100, 1e-9);
    ck_assert (isnan (pr));
    /* 16:00 (no point) and 17:00 (null) are missing, never zero */
    ck_assert (!carbon_over (&cb.z[0], 0, 1795968000.0, 60, &g, &pr));
    ck_assert (!carbon_over (&cb.z[0], 0, 1795971600.0, 60, &g, &pr));
    /* the same zone twice is refused, by either form */
    ck_assert_int_eq (carbon_read_file (&cb, "Z", p, &err), -1);
    ck_assert (strstr (err.text, "zone 'Z' given twice"));
    carbon_free (&cb);

    json_refused ("{\"points\": [", "bad.json:1: not JSON");
    json_refused ("[1, 2]", "bad.json: not a JSON object");
    json_refused ("{\"zone\": \"Y\", \"points\": []}",
                  "bad.json: zone: 'Y' where the configuration reads it for "
                  "zone 'Z'");
    json_refused ("{\"unit\": \"g/MWh\", \"points\": []}",
                  "bad.json: unit: 'g/MWh'");
    json_refused ("{\"points\": 3}", "bad.json: points: missing or not");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}]}",
                  "bad.json: points: fewer than two");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}, 7]}",
                  "bad.json: points[1]: not an object");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}, {\"carbon\": 2}]}",
                  "bad.json: points[1].start: missing");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}, {\"start\": \"tomorrow\", "
                  "\"carbon\": 2}]}",
                  "bad.json: points[1].start: bad time 'tomorrow'");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}, {\"start\": \"2026-11-29T15:00Z\", "
                  "\"carbon\": -3}]}",
                  "bad.json: points[1].carbon: not a number >= 0");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}, {\"start\": \"2026-11-29T15:00Z\"}]}",
                  "bad.json: points[1].carbon: missing");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1, \"price\": \"cheap\"}, "
                  "{\"start\": \"2026-11-29T15:00Z\", \"carbon\": 2}]}",
                  "bad.json: points[0].price: not a number >= 0");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}, {\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 2}]}",
                  "bad.json: points[1].start: not after the point before");
    json_refused ("{\"points\": [{\"start\": \"2026-11-29T14:00Z\", "
                  "\"carbon\": 1}, {\"start\": \"2026-11-29T15:00Z\", "
                  "\"carbon\": 2}, {\"start\": \"2026-11-29T15:30Z\", "
                  "\"carbon\": 2}]}",
                  "bad.json: points[2].start: not a whole number of steps");
    json_refused ("{\"points\": [], \"points\": []}", "bad.json:1: not JSON");
    /* a far point cannot make the signal take gigabytes */
    json_refused ("{\"points\": [{\"start\": \"2000-01-01T00:00Z\", "
                  "\"carbon\": 1}, {\"start\": \"2000-01-01T00:01Z\", "
                  "\"carbon\": 2}, {\"start\": \"2026-01-01T00:00Z\", "
                  "\"carbon\": 2}]}",
                  "bad.json: points[2].start: more than 1000000 steps");
    refused ("time_utc,gco2eq_per_kwh\n2000-01-01T00:00:00Z,1\n"
             "2000-01-01T00:00:01Z,1\n2026-01-01T00:00:00Z,1\n",
             "bad.csv:4: time_utc: more than 1000000 steps");
    /* a CSV file still read through carbon_read_file, refused at its line */
    {
        const char *c = write_tmp ("c.csv", "time_utc,gco2eq_per_kwh\n"
                                            "2026-11-29T14:00Z,1\n"
                                            "2026-11-29T14:01Z,x\n");
        carbon_init (&cb);
        ck_assert_int_eq (carbon_read_file (&cb, "Z", c, &err), -1);
        ck_assert_msg (strstr (err.text, "c.csv:3: gco2eq_per_kwh: bad value"),
                       "%s", err.text);
        carbon_free (&cb);
    }
}
END_TEST

START_TEST (test_csv_gaps)
{
    ms_carbon_t cb;
    ms_error_t err;
    double g, pr, t0;
    const char *p
        = write_tmp ("z.csv", "time_utc,gco2eq_per_kwh,wind_mw,price_per_mwh\n"
                              "2022-01-01T00:00:00Z,100,5,40\n"
                              "2022-01-01T01:00:00Z,,5,40\n"
                              "2022-01-01T02:00:00Z,300,5,20\r\n"
                              "2022-01-01T04:00:00Z,500,5,\n");

    carbon_init (&cb);
    ck_assert_msg (carbon_read_csv (&cb, "Z", p, &err) == 0, "%s", err.text);
    ck_assert_uint_eq (cb.nz, 1);
    ck_assert (carbon_parse_time ("2022-01-01T00:00:00Z", &t0));
    ck_assert (cb.z[0].t0 == t0 && cb.z[0].step == 3600);
    ck_assert_uint_eq (cb.z[0].n, 5);
    /* the first hour, and half of the third and half of the first */
    ck_assert (carbon_over (&cb.z[0], cb.stale_s, t0, 3600, &g, &pr));
    ck_assert (g == 100 && pr == 40);
    /* the empty value and the row left out are missing */
    ck_assert (!carbon_over (&cb.z[0], cb.stale_s, t0, 7200, &g, &pr));
    ck_assert (isnan (g));
    ck_assert (!carbon_over (&cb.z[0], cb.stale_s, t0 + 3 * 3600, 60, &g, &pr));
    ck_assert (
        carbon_over (&cb.z[0], cb.stale_s, t0 + 2.5 * 3600, 1800, &g, &pr));
    ck_assert (g == 300 && pr == 20);
    /* the last hour: a missing price is a missing cost only */
    ck_assert (
        carbon_over (&cb.z[0], cb.stale_s, t0 + 4 * 3600, 3600, &g, &pr));
    ck_assert (g == 500 && isnan (pr));
    /* past the end: for stale_s (1 h) the last value holds, then none */
    ck_assert (
        carbon_over (&cb.z[0], cb.stale_s, t0 + 5 * 3600, 3000, &g, &pr));
    ck_assert (
        !carbon_over (&cb.z[0], cb.stale_s, t0 + 5 * 3600, 7300, &g, &pr));
    ck_assert (!carbon_over (&cb.z[0], cb.stale_s, t0 - 1, 60, &g, &pr));
    /* a zone twice, a cluster on a zone without signal */
    ck_assert_int_eq (carbon_read_csv (&cb, "Z", p, &err), -1);
    ck_assert (strstr (err.text, "zone 'Z' given twice"));
    ck_assert_int_eq (carbon_assign (&cb, "c1", "Y", &err), -1);
    ck_assert (strstr (err.text, "zone 'Y' has no signal"));
    carbon_free (&cb);
}
END_TEST

/* The shipped data: a year of hours, its empty hours missing. */
START_TEST (test_shipped)
{
    ms_carbon_t cb;
    ms_error_t err;
    char path[4096];
    double g, pr, t;

    snprintf (path, sizeof (path), "%s/tests/data/carbon/CISO-2022.csv",
              test_srcdir ());
    carbon_init (&cb);
    ck_assert_msg (carbon_read_csv (&cb, "CISO", path, &err) == 0, "%s",
                   err.text);
    ck_assert_uint_eq (cb.z[0].n, 8760);
    ck_assert (cb.z[0].price == NULL);
    ck_assert (carbon_parse_time ("2022-01-05T10:00:00Z", &t));
    ck_assert (!carbon_over (&cb.z[0], cb.stale_s, t - 600, 1200, &g, &pr));
    ck_assert (carbon_over (&cb.z[0], cb.stale_s, t + 3600, 1200, &g, &pr));
    ck_assert (g > 0 && isnan (pr));
    ck_assert (carbon_parse_time ("2022-01-01T00:00:00Z", &t));
    ck_assert (carbon_over (&cb.z[0], cb.stale_s, t, 1800, &g, &pr));
    ck_assert (fabs (g - 222.9) < 1e-9);
    carbon_free (&cb);
}
END_TEST

/* Two clusters of one partition each: c1 (zone DIRTY) takes 100 s at
 * 400 W, c2 (zone CLEAN) 110 s at 400 W. */
static const char conf_text[]
    = "[architecture a]\ncores_per_node = 4\n"
      "frequencies_khz = 2000000\nnominal_khz = 2000000\n"
      "idle_power_w = 50\n"
      "[cluster c1]\nbackend = simulated\n"
      "[cluster c2]\nbackend = simulated\n"
      "[partition c1/p]\narchitecture = a\nnodes = 10\n"
      "[partition c2/p]\narchitecture = a\nnodes = 10\n";

static void
two_zones (ms_carbon_t *cb, double clean_g)
{
    ms_error_t err;
    char text[512];

    carbon_init (cb);
    ck_assert (
        carbon_read_csv (cb, "DIRTY",
                         write_tmp ("d.csv", "time_utc,gco2eq_per_kwh\n"
                                             "2022-01-01T00:00:00Z,500\n"
                                             "2022-01-01T01:00:00Z,500\n"),
                         &err)
        == 0);
    snprintf (text, sizeof (text),
              "time_utc,gco2eq_per_kwh,price_per_mwh\n"
              "2022-01-01T00:00:00Z,%s,30\n2022-01-01T01:00:00Z,%s,30\n",
              isnan (clean_g) ? "" : "100", isnan (clean_g) ? "" : "100");
    ck_assert (carbon_read_csv (cb, "CLEAN", write_tmp ("c.csv", text), &err)
               == 0);
    ck_assert (carbon_assign (cb, "c1", "DIRTY", &err) == 0);
    ck_assert (carbon_assign (cb, "c2", "CLEAN", &err) == 0);
}

static size_t
decide (const ms_siteconf_t *conf, const ms_carbon_t *cb, double w_carbon,
        double wait2, bool *carbon_known)
{
    ms_policy_t pol;
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_view_t *v = view_new (conf);
    size_t part;

    cs.c = calloc (2, sizeof (*cs.c));
    cs.n = cs.cap = 2;
    for (size_t i = 0; i < 2; i++) {
        cs.c[i].part = i;
        cs.c[i].f_khz = 2000000;
        cs.c[i].t = cs.c[i].t_hi = i ? 110 : 100;
        cs.c[i].p = 400;
        cs.c[i].e = cs.c[i].e_hi = cs.c[i].t * 400;
        cs.c[i].nodes = 1;
        cs.c[i].w = i ? wait2 : 0;
    }
    policy_init (&pol, POL_METASCHED);
    pol.w_carbon = w_carbon;
    pol.carbon = cb;
    /* a wait counts in the score where the job has one entry */
    if (wait2 > 0)
        engine_dispatch_mode (&pol, false, 0);
    carbon_apply (cb, conf, 600, 0, rank_shift_k (&pol), &cs);
    *carbon_known = cs.carbon;
    if (cs.carbon) {
        /* 40 kJ at 500 g/kWh; 44 kJ at 100 g/kWh */
        ck_assert (fabs (cs.c[0].carbon_g - 40000 / 3.6e6 * 500) < 1e-9);
        ck_assert (fabs (cs.c[1].carbon_g - 44000 / 3.6e6 * 100) < 1e-9);
        ck_assert (fabs (cs.c[1].cost - 44000 / 3.6e9 * 30) < 1e-12);
        ck_assert (!cs.cost); /* DIRTY has no price */
    }
    policy_decide (&pol, conf, &cs, v, &d);
    ck_assert_uint_ge (d.n, 1);
    part = d.c[0].part;
    view_free (v);
    free (cs.c);
    return part;
}

START_TEST (test_score_moves)
{
    ms_siteconf_t *conf;
    ms_error_t err;
    ms_carbon_t cb;
    bool known;

    ck_assert_msg (
        clusterconf_parse (conf_text, strlen (conf_text), "t", &conf, &err)
            == 0,
        "%s", err.text);
    two_zones (&cb, 100);
    /* energy and response alone: the faster, leaner c1 */
    ck_assert_uint_eq (decide (conf, &cb, 0, 0, &known), 0);
    ck_assert (known);
    /* with a carbon weight the job goes to the cleaner zone */
    ck_assert_uint_eq (decide (conf, &cb, 0.5, 0, &known), 1);
    /* ... but not where it would wait there 600 s, seven times its
     * response on the dirty one: the carbon term shares the energy's
     * weight and never outweighs the response's (rank.c joint_score),
     * whatever w_carbon (one entry: the daemon's single dispatch) */
    ck_assert_uint_eq (decide (conf, &cb, 1, 600, &known), 0);
    ck_assert_uint_eq (decide (conf, &cb, 4, 600, &known), 0);
    ck_assert_uint_eq (decide (conf, &cb, 100, 600, &known), 0);
    /* a short wait there is worth the cleaner run */
    ck_assert_uint_eq (decide (conf, &cb, 1, 5, &known), 1);
    carbon_free (&cb);
    /* the clean zone's signal missing: energy alone, as without one */
    two_zones (&cb, NAN);
    ck_assert_uint_eq (decide (conf, &cb, 0.5, 0, &known), 0);
    ck_assert (!known);
    carbon_free (&cb);
    clusterconf_free (conf);
}
END_TEST

/* The deadline rule on the shipped CISO year: a run never ends past its
 * deadline by the upper bound of its runtime, a job without a deadline is
 * never delayed, and the start chosen is the cleanest of those allowed. */
START_TEST (test_deadline_rule)
{
    ms_carbon_t cb;
    ms_error_t err;
    char path[4096];
    uint64_t st = 41;
    size_t shifted = 0;

    snprintf (path, sizeof (path), "%s/tests/data/carbon/CISO-2022.csv",
              test_srcdir ());
    carbon_init (&cb);
    ck_assert_msg (carbon_read_csv (&cb, "CISO", path, &err) == 0, "%s",
                   err.text);
    for (int i = 0; i < 2000; i++) {
        double e = test_uniform (&st) * 300 * 86400;
        double t = 60 + test_uniform (&st) * 6 * 3600;
        double thi = t * (1 + test_uniform (&st));
        double dl = e + test_uniform (&st) * 3 * thi;
        double g, g0, gn, p, s, sn;
        /* without a deadline: at once */
        sn = carbon_best_start (&cb, 0, e, t, thi, 0, 0, &gn);
        ck_assert (sn == e);
        s = carbon_best_start (&cb, 0, e, t, thi, dl, 0, &g);
        ck_assert (s >= e);
        if (e + thi > dl) {
            /* no room before the deadline: at once, never later */
            ck_assert (s == e);
            continue;
        }
        ck_assert_msg (s + thi <= dl, "start %.0f + %.0f past %.0f", s, thi,
                       dl);
        if (!carbon_over (&cb.z[0], cb.stale_s, cb.epoch + e, t, &g0, &p)) {
            ck_assert (s == e && isnan (g));
            continue;
        }
        /* no cleaner than at once, and what it says it is */
        ck_assert (g <= g0);
        ck_assert (
            carbon_over (&cb.z[0], cb.stale_s, cb.epoch + s, t, &gn, &p));
        ck_assert (fabs (gn - g) < 1e-9);
        shifted += s > e;
        /* a priced delay: never later than the cleanest run's start
         * would be worth, its intensity plus the delay's price no more
         * than at once, and never shifted at an infinite price */
        {
            double k = 1.0 / 3600, gk, sk;
            sk = carbon_best_start (&cb, 0, e, t, thi, dl, k, &gk);
            ck_assert (sk >= e && sk + thi <= dl);
            ck_assert (gk + g0 * k * (sk - e) <= g0 + 1e-9);
            ck_assert (gk + g0 * k * (sk - e) <= g + g0 * k * (s - e) + 1e-9);
            sk = carbon_best_start (&cb, 0, e, t, thi, dl, INFINITY, &gk);
            ck_assert (sk == e);
        }
    }
    /* the day's cycle leaves most jobs with room a cleaner hour */
    ck_assert_uint_gt (shifted, 100);
    carbon_free (&cb);
}
END_TEST

/* Through the decision: a job with a deadline is held for its cleaner
 * run, one without is not, with the same candidates and weights. */
START_TEST (test_deadline_hold)
{
    ms_siteconf_t *conf;
    ms_error_t err;
    ms_carbon_t cb;
    ms_policy_t pol;
    ms_cands_t cs = { 0 };
    ms_decision_t d;
    ms_view_t *v;
    const char *p;

    ck_assert (
        clusterconf_parse (conf_text, strlen (conf_text), "t", &conf, &err)
        == 0);
    /* one zone for both clusters: dirty for two hours, then clean */
    p = write_tmp ("s.csv", "time_utc,gco2eq_per_kwh\n"
                            "2022-01-01T00:00:00Z,500\n"
                            "2022-01-01T01:00:00Z,500\n"
                            "2022-01-01T02:00:00Z,50\n"
                            "2022-01-01T03:00:00Z,50\n");
    carbon_init (&cb);
    ck_assert (carbon_read_csv (&cb, "S", p, &err) == 0);
    ck_assert (carbon_assign (&cb, "c1", "S", &err) == 0);
    ck_assert (carbon_assign (&cb, "c2", "S", &err) == 0);
    v = view_new (conf);
    cs.c = calloc (2, sizeof (*cs.c));
    cs.cap = 2;
    policy_init (&pol, POL_METASCHED);
    pol.w_carbon = 1;
    pol.carbon = &cb;
    for (int dl = 0; dl < 3; dl++) {
        /* deadlines: none; 4 h, room for the clean hours; 2 h, none */
        double deadline = dl == 0 ? 0 : dl == 1 ? 4 * 3600 : 2 * 3600;
        cs.n = 2;
        for (size_t i = 0; i < 2; i++) {
            memset (&cs.c[i], 0, sizeof (cs.c[i]));
            cs.c[i].part = i;
            cs.c[i].f_khz = 2000000;
            cs.c[i].t = 1800;
            cs.c[i].t_hi = 3000;
            cs.c[i].p = 400;
            cs.c[i].e = cs.c[i].e_hi = 1800 * 400;
            cs.c[i].nodes = 1;
        }
        carbon_apply (&cb, conf, 600, deadline, 0, &cs);
        ck_assert (cs.carbon);
        policy_decide (&pol, conf, &cs, v, &d);
        ck_assert_uint_ge (d.n, 1);
        if (dl == 1) {
            /* held until 02:00, and 02:00 + t_hi is before 04:00 */
            ck_assert_msg (fabs (d.c[0].hold_s - (7200 - 600)) < 1e-9,
                           "hold %g", d.c[0].hold_s);
            ck_assert (600 + d.c[0].hold_s + 3000 <= deadline);
        } else {
            ck_assert_msg (d.c[0].hold_s == 0, "deadline %g: hold %g", deadline,
                           d.c[0].hold_s);
        }
    }
    /* metasched's own price of the delay (rank_shift_k): at w_energy 0.5
     * and w_carbon 1, 6600 s of the 13800 s the deadline allows is worth
     * more than the 90% cleaner run (no hold); at w_energy 0.9 it is
     * not (held until 02:00) */
    for (int we = 0; we < 2; we++) {
        pol.w_energy = we ? 0.9 : 0.5;
        cs.n = 2;
        carbon_apply (&cb, conf, 600, 4 * 3600, rank_shift_k (&pol), &cs);
        policy_decide (&pol, conf, &cs, v, &d);
        ck_assert_uint_ge (d.n, 1);
        ck_assert_msg (fabs (d.c[0].hold_s - (we ? 6600 : 0)) < 1e-9,
                       "w_energy %g: hold %g", pol.w_energy, d.c[0].hold_s);
    }
    /* a baseline that shifts holds alike; one that does not, never */
    policy_init (&pol, POL_BASE);
    pol.carbon = &cb;
    carbon_apply (&cb, conf, 600, 4 * 3600, 0, &cs);
    policy_decide (&pol, conf, &cs, v, &d);
    ck_assert (d.n == 1 && d.c[0].hold_s == 0);
    pol.carbon_shift = true;
    policy_decide (&pol, conf, &cs, v, &d);
    ck_assert (d.n == 1 && fabs (d.c[0].hold_s - 6600) < 1e-9);
    view_free (v);
    free (cs.c);
    carbon_free (&cb);
    clusterconf_free (conf);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("carbon");
    TCase *tc = tcase_create ("core");
    int rc;

    if (!mkdtemp (tmpdir)) {
        perror (tmpdir);
        return 1;
    }
    tcase_add_test (tc, test_csv_refused);
    tcase_add_test (tc, test_json_form);
    tcase_add_test (tc, test_csv_gaps);
    tcase_add_test (tc, test_shipped);
    tcase_add_test (tc, test_score_moves);
    tcase_add_test (tc, test_deadline_rule);
    tcase_add_test (tc, test_deadline_hold);
    suite_add_tcase (s, tc);
    rc = test_run_suite (s);
    for (const char *n = "bad.csv\0z.csv\0d.csv\0c.csv\0s.csv\0"; *n;
         n += strlen (n) + 1) {
        char p[512];
        snprintf (p, sizeof (p), "%s/%s", tmpdir, n);
        unlink (p);
    }
    rmdir (tmpdir);
    return rc;
}
