/* test_speedup.c - Amdahl's law fitted to runs generated from known
 * parameters (predictor/speedup.c): the fit finds them within its own
 * standard errors, the 95% interval covers the true runtime, the bad
 * inputs are refused with the run at fault, and the node count chosen
 * follows the energy weight. */
#include "config.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "predictor/speedup.h"
#include "tests/testutil.h"

/* runs of T(n) = a + b/n at n = 1, 2, 4, 8, 16, reps each, with relative
 * noise noise (normal) */
static size_t
gen (gsl_rng *r, double a, double b, double noise, int reps, int *nodes,
     double *t)
{
    static const int ns[] = { 1, 2, 4, 8, 16 };
    size_t k = 0;
    for (int i = 0; i < reps; i++)
        for (size_t j = 0; j < sizeof (ns) / sizeof (ns[0]); j++) {
            double tt = a + b / ns[j];
            nodes[k] = ns[j];
            t[k++] = tt * (1 + (noise > 0 ? gsl_ran_gaussian (r, noise) : 0));
        }
    return k;
}

START_TEST (exact)
{
    int nodes[64];
    double t[64];
    ms_speedup_t sp;
    ms_error_t err;
    size_t n = gen (NULL, 120, 3600, 0, 1, nodes, t);
    ck_assert_msg (speedup_fit (nodes, t, n, &sp, &err) == 0, "%s", err.text);
    ck_assert_double_eq_tol (sp.a, 120, 1e-6);
    ck_assert_double_eq_tol (sp.b, 3600, 1e-6);
    ck_assert_double_eq_tol (speedup_serial (&sp), 120.0 / 3720, 1e-9);
    ck_assert_double_eq_tol (speedup_time (&sp, 3, NULL, NULL), 1320, 1e-6);
    ck_assert_int_eq (sp.nmin, 1);
    ck_assert_int_eq (sp.nmax, 16);
}
END_TEST

START_TEST (noisy)
{
    /* 200 sites' worth of runs: the truth is within 3 standard errors of
     * the fit nearly always, and the 95% interval covers about 95% of
     * fresh runs */
    gsl_rng *r = gsl_rng_alloc (gsl_rng_mt19937);
    static const double truth[][2] = { { 60, 6000 }, { 900, 2700 }, { 5, 500 } };
    int within = 0, tries = 0, covered = 0, fresh = 0;
    gsl_rng_set (r, 42);
    for (size_t c = 0; c < 3; c++)
        for (int k = 0; k < 200; k++) {
            int nodes[64];
            double t[64];
            ms_speedup_t sp;
            ms_error_t err;
            double a = truth[c][0], b = truth[c][1];
            size_t n = gen (r, a, b, 0.03, 3, nodes, t);
            ck_assert_msg (speedup_fit (nodes, t, n, &sp, &err) == 0, "%s",
                           err.text);
            tries++;
            within += fabs (sp.a - a) <= 3 * sqrt (sp.cov00) + 1e-9
                      && fabs (sp.b - b) <= 3 * sqrt (sp.cov11) + 1e-9;
            for (int m = 1; m <= 16; m *= 2) {
                double lo, hi, y = (a + b / m)
                                   * (1 + gsl_ran_gaussian (r, 0.03));
                speedup_time (&sp, m, &lo, &hi);
                ck_assert (lo <= hi);
                covered += y >= lo && y <= hi;
                fresh++;
            }
        }
    ck_assert_msg (within >= tries * 95 / 100, "%d of %d fits within 3 SE",
                   within, tries);
    ck_assert_msg (covered >= fresh * 90 / 100 && covered <= fresh * 99 / 100,
                   "%d of %d fresh runs in the 95%% interval", covered, fresh);
    gsl_rng_free (r);
}
END_TEST

START_TEST (edges)
{
    int nodes[] = { 4, 4, 8, 0 };
    double t[] = { 100, 110, 50, 10 };
    ms_speedup_t sp;
    ms_error_t err;
    ck_assert_int_eq (speedup_fit (nodes, t, 1, &sp, &err), -1);
    ck_assert_str_eq (err.text, "speedup: 1 run; the fit needs runs at two "
                                "node counts at least");
    ck_assert_int_eq (speedup_fit (nodes, t, 2, &sp, &err), -1);
    ck_assert_str_eq (err.text, "speedup: every run is on 4 nodes; the fit "
                                "needs two node counts at least");
    ck_assert_int_eq (speedup_fit (nodes, t, 4, &sp, &err), -1);
    ck_assert_str_eq (err.text, "speedup: run 4: 0 nodes");
    t[1] = -1;
    ck_assert_int_eq (speedup_fit (nodes, t, 3, &sp, &err), -1);
    ck_assert_str_eq (err.text, "speedup: run 2: runtime -1 s is not positive");
    t[1] = NAN;
    ck_assert_int_eq (speedup_fit (nodes, t, 3, &sp, &err), -1);
    /* slower on more nodes: all serial, never negative */
    {
        int n2[] = { 1, 2, 4 };
        double t2[] = { 100, 104, 110 };
        ck_assert_int_eq (speedup_fit (n2, t2, 3, &sp, &err), 0);
        ck_assert_double_eq (sp.b, 0);
        ck_assert (sp.a > 100 && sp.a < 110);
        ck_assert_double_eq_tol (speedup_serial (&sp), 1, 1e-12);
    }
    /* better than linear: all parallel */
    {
        int n2[] = { 1, 2, 4 };
        double t2[] = { 100, 40, 15 };
        ck_assert_int_eq (speedup_fit (n2, t2, 3, &sp, &err), 0);
        ck_assert_double_eq (sp.a, 0);
        ck_assert (sp.b > 0);
    }
}
END_TEST

static double
wait_grows (int nodes, void *arg)
{
    return *(double *)arg * nodes * nodes;
}

START_TEST (choose)
{
    ms_speedup_t sp = { .a = 100, .b = 3200, .nruns = 10 };
    double k = 0;
    /* no history: the user's minimum */
    ck_assert_int_eq (speedup_choose (NULL, 2, 8, 300, 0.5, NULL, NULL), 2);
    /* energy only: n T(n) = a n + b grows with n, so the fewest nodes */
    ck_assert_int_eq (speedup_choose (&sp, 2, 8, 300, 1, NULL, NULL), 2);
    /* response only, no wait: the most nodes */
    ck_assert_int_eq (speedup_choose (&sp, 2, 8, 300, 0, NULL, NULL), 8);
    /* response only, a wait that grows with the nodes: in between */
    k = 5;
    {
        int n = speedup_choose (&sp, 2, 16, 300, 0, wait_grows, &k);
        ck_assert_msg (n > 2 && n < 16, "chose %d", n);
        /* T(n) + 5 n^2 = 100 + 3200/n + 5 n^2: least at n = 7 */
        ck_assert_int_eq (n, 7);
    }
    /* a single count */
    ck_assert_int_eq (speedup_choose (&sp, 4, 4, 300, 0, NULL, NULL), 4);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("speedup");
    TCase *tc = tcase_create ("speedup");
    tcase_add_test (tc, exact);
    tcase_add_test (tc, noisy);
    tcase_add_test (tc, edges);
    tcase_add_test (tc, choose);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
