/* test_abstats.c - the statistics of `metasched report --ab`
 * (metasched/admin/abstats.h) against values worked by hand: means,
 * sample variances, Welch-Satterthwaite degrees of freedom, and Student's
 * t quantiles from the published tables.
 */
#include "config.h"

#include <math.h>

#include "metasched/admin/abstats.h"
#include "tests/testutil.h"

#define TOL 1e-6

/* t(0.975) of Student's distribution, from the tables */
#define T975_4 2.7764451051977987
#define T975_8 2.306004135204166
#define T975_18 2.10092204024096

START_TEST (group_interval)
{
    const double x[] = { 1, 2, NAN, 3, 4, 5, INFINITY };
    abstats_group_t g;

    abstats_group (x, 7, &g);
    ck_assert_uint_eq (g.n, 5); /* non-finite values skipped */
    ck_assert_double_eq_tol (g.mean, 3.0, TOL);
    ck_assert_double_eq_tol (g.var, 2.5, TOL);
    /* 3 -+ t(0.975, 4) * sqrt (2.5 / 5) */
    ck_assert_double_eq_tol (g.lo, 3.0 - T975_4 * sqrt (0.5), TOL);
    ck_assert_double_eq_tol (g.hi, 3.0 + T975_4 * sqrt (0.5), TOL);
}
END_TEST

START_TEST (group_small)
{
    const double one[] = { 7 };
    abstats_group_t g;

    abstats_group (one, 1, &g);
    ck_assert_uint_eq (g.n, 1);
    ck_assert_double_eq_tol (g.mean, 7.0, TOL);
    ck_assert (isnan (g.lo) && isnan (g.hi) && isnan (g.var));
    abstats_group (NULL, 0, &g);
    ck_assert_uint_eq (g.n, 0);
    ck_assert (isnan (g.mean));
}
END_TEST

/* equal sizes and variances: df = 2 (n - 1) exactly */
START_TEST (welch_contains_zero)
{
    const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 };
    abstats_group_t ga, gb;
    abstats_diff_t d;

    abstats_group (a, 5, &ga);
    abstats_group (b, 5, &gb);
    abstats_welch (&ga, &gb, &d);
    ck_assert_double_eq_tol (d.diff, -2.0, TOL);
    ck_assert_double_eq_tol (d.df, 8.0, TOL);
    /* se = sqrt (0.5 + 0.5) = 1 */
    ck_assert_double_eq_tol (d.lo, -2.0 - T975_8, TOL);
    ck_assert_double_eq_tol (d.hi, -2.0 + T975_8, TOL);
    ck_assert (!d.significant);
}
END_TEST

START_TEST (welch_significant)
{
    double a[10], b[10];
    abstats_group_t ga, gb;
    abstats_diff_t d;

    for (int i = 0; i < 10; i++) {
        a[i] = 1 + i;  /* mean 5.5, variance 55/6 */
        b[i] = 11 + i; /* mean 15.5 */
    }
    abstats_group (a, 10, &ga);
    abstats_group (b, 10, &gb);
    abstats_welch (&ga, &gb, &d);
    ck_assert_double_eq_tol (d.diff, -10.0, TOL);
    ck_assert_double_eq_tol (d.df, 18.0, TOL);
    /* se = sqrt (2 * 55/6 / 10) */
    ck_assert_double_eq_tol (d.hi, -10.0 + T975_18 * sqrt (11.0 / 6.0), TOL);
    ck_assert_double_eq_tol (d.lo, -10.0 - T975_18 * sqrt (11.0 / 6.0), TOL);
    ck_assert (d.significant);
    /* the other way round: the same interval mirrored */
    abstats_welch (&gb, &ga, &d);
    ck_assert_double_eq_tol (d.diff, 10.0, TOL);
    ck_assert_double_eq_tol (d.lo, 10.0 - T975_18 * sqrt (11.0 / 6.0), TOL);
    ck_assert (d.significant);
}
END_TEST

/* unequal variances and sizes: Welch-Satterthwaite's df by hand,
 * (0.5 + 5/3)^2 / (0.5^2 / 4 + (5/3)^2 / 3) = 4.7494145199... */
START_TEST (welch_unequal)
{
    const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 8, 10, 12 };
    abstats_group_t ga, gb;
    abstats_diff_t d;

    abstats_group (a, 5, &ga);
    abstats_group (b, 4, &gb);
    ck_assert_double_eq_tol (gb.var, 20.0 / 3.0, TOL);
    abstats_welch (&ga, &gb, &d);
    ck_assert_double_eq_tol (d.df, 4.749414519906324, TOL);
    ck_assert_double_eq_tol (d.diff, -6.0, TOL);
    /* the t quantile at a fractional df lies between the tables' rows */
    double h = (d.hi - d.lo) / 2 / sqrt (0.5 + 5.0 / 3.0);
    ck_assert (h > 2.570581836614739 && h < T975_4); /* t(0.975, 5), (4) */
    ck_assert_double_eq_tol ((d.hi + d.lo) / 2, -6.0, TOL);
    ck_assert (!d.significant); /* under ABSTATS_MIN_JOBS */
}
END_TEST

/* a clear difference is still "not yet significant" below the minimum */
START_TEST (welch_minimum)
{
    const double a[] = { 1, 1.1, 0.9, 1, 1 }, b[] = { 100, 101, 99, 100, 100 };
    double a10[ABSTATS_MIN_JOBS], b10[ABSTATS_MIN_JOBS];
    abstats_group_t ga, gb;
    abstats_diff_t d;

    abstats_group (a, 5, &ga);
    abstats_group (b, 5, &gb);
    abstats_welch (&ga, &gb, &d);
    ck_assert (d.hi < 0);
    ck_assert (!d.significant);
    for (int i = 0; i < ABSTATS_MIN_JOBS; i++) {
        a10[i] = a[i % 5];
        b10[i] = b[i % 5];
    }
    abstats_group (a10, ABSTATS_MIN_JOBS, &ga);
    abstats_group (b10, ABSTATS_MIN_JOBS, &gb);
    abstats_welch (&ga, &gb, &d);
    ck_assert (d.significant);
    /* one job in a group: no interval, never significant */
    abstats_group (a, 1, &ga);
    abstats_welch (&ga, &gb, &d);
    ck_assert (isnan (d.lo) && !d.significant);
    /* no spread at all: the difference is exact */
    const double c[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
    const double e[] = { 3, 3, 3, 3, 3, 3, 3, 3, 3, 3 };
    abstats_group (c, 10, &ga);
    abstats_group (e, 10, &gb);
    abstats_welch (&ga, &gb, &d);
    ck_assert_double_eq_tol (d.lo, -1.0, TOL);
    ck_assert_double_eq_tol (d.hi, -1.0, TOL);
    ck_assert (d.significant);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("abstats");
    TCase *tc = tcase_create ("abstats");

    tcase_add_test (tc, group_interval);
    tcase_add_test (tc, group_small);
    tcase_add_test (tc, welch_contains_zero);
    tcase_add_test (tc, welch_significant);
    tcase_add_test (tc, welch_unequal);
    tcase_add_test (tc, welch_minimum);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
