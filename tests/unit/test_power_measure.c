/* test_power_measure.c - measured power: the mean power between two
 * readings of a powercap tree the test writes and advances (a counter
 * wrap, a zone missing from a reading, no time passed), and the
 * correction of the predicted draw by measured over predicted power of
 * finished runs (median, bounded, clamped, none without data). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/rapl.h"
#include "metasched/core/power.h"
#include "tests/testutil.h"

static char root[256];

static void
put (const char *rel, const char *text)
{
    char path[512];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s", root, rel);
    ck_assert_msg ((f = fopen (path, "w")) != NULL, "%s: %s", path,
                   strerror (errno));
    fputs (text, f);
    fclose (f);
}

static void
putu (const char *rel, unsigned long long v)
{
    char buf[32];
    snprintf (buf, sizeof (buf), "%llu\n", v);
    put (rel, buf);
}

static void
mkd (const char *rel)
{
    char path[512];
    snprintf (path, sizeof (path), "%s/%s", root, rel);
    ck_assert_int_eq (mkdir (path, 0755), 0);
}

/* package 0 (range 1000 J) with DRAM (range 500 J), package 1 */
static void
make_tree (void)
{
    char tmpl[] = "/tmp/ms-pmeas-XXXXXX";

    ck_assert_ptr_nonnull (mkdtemp (tmpl));
    snprintf (root, sizeof (root), "%s", tmpl);
    mkd ("intel-rapl:0");
    put ("intel-rapl:0/name", "package-0\n");
    putu ("intel-rapl:0/max_energy_range_uj", 1000000000ULL);
    putu ("intel-rapl:0/energy_uj", 0);
    mkd ("intel-rapl:0/intel-rapl:0:0");
    put ("intel-rapl:0/intel-rapl:0:0/name", "dram\n");
    putu ("intel-rapl:0/intel-rapl:0:0/max_energy_range_uj", 500000000ULL);
    putu ("intel-rapl:0/intel-rapl:0:0/energy_uj", 0);
    mkd ("intel-rapl:1");
    put ("intel-rapl:1/name", "package-1\n");
    putu ("intel-rapl:1/max_energy_range_uj", 1000000000ULL);
    putu ("intel-rapl:1/energy_uj", 0);
}

static void
rm_tree (void)
{
    char cmd[300];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", root);
    if (system (cmd) != 0)
        fprintf (stderr, "could not remove %s\n", root);
}

START_TEST (interval_power_with_a_wrap)
{
    rapl_t *r;
    rapl_sample_t a, b;

    make_tree ();
    ck_assert_int_eq (rapl_open (root, &r, NULL), 0);
    putu ("intel-rapl:0/energy_uj", 990000000ULL); /* 10 J before the wrap */
    ck_assert_int_eq (rapl_read (r, &a, NULL), 3);
    a.time = 1000;
    /* package 0 wraps: 10 J to the range, then 90 J: 100 J;
     * DRAM +20 J; package 1 +80 J; over 10 s: 20 W */
    putu ("intel-rapl:0/energy_uj", 90000000ULL);
    putu ("intel-rapl:0/intel-rapl:0:0/energy_uj", 20000000ULL);
    putu ("intel-rapl:1/energy_uj", 80000000ULL);
    ck_assert_int_eq (rapl_read (r, &b, NULL), 3);
    b.time = 1010;
    ck_assert_double_eq_tol (rapl_interval_watts (r, &a, &b), 20.0, 1e-9);
    /* no time passed, or time ran back: no figure */
    b.time = a.time;
    ck_assert (rapl_interval_watts (r, &a, &b) < 0);
    rapl_close (r);
    rm_tree ();
}
END_TEST

START_TEST (interval_power_missing_zone)
{
    rapl_t *r;
    rapl_sample_t a, b;

    make_tree ();
    ck_assert_int_eq (rapl_open (root, &r, NULL), 0);
    ck_assert_int_eq (rapl_read (r, &a, NULL), 3);
    a.time = 50;
    putu ("intel-rapl:0/energy_uj", 40000000ULL);                /* +40 J */
    putu ("intel-rapl:0/intel-rapl:0:0/energy_uj", 10000000ULL); /* +10 J */
    /* package 1's counter vanished (a zone gone or unreadable) */
    {
        char path[512];
        snprintf (path, sizeof (path), "%s/intel-rapl:1/energy_uj", root);
        ck_assert_int_eq (unlink (path), 0);
    }
    ck_assert_int_eq (rapl_read (r, &b, NULL), 2);
    ck_assert (!b.ok[2]);
    b.time = 55;
    /* the zones read both times: 50 J over 5 s */
    ck_assert_double_eq_tol (rapl_interval_watts (r, &a, &b), 10.0, 1e-9);
    /* no zone read both times: no figure */
    for (size_t i = 0; i < RAPL_MAX_ZONES; i++)
        b.ok[i] = false;
    ck_assert (rapl_interval_watts (r, &a, &b) < 0);
    rapl_close (r);
    rm_tree ();
}
END_TEST

START_TEST (correction_median_clamped)
{
    double none[1] = { 0 };
    double three[] = { 1.2, 0.9, 1.1 };
    double four[] = { 1.0, 1.4, 1.2, 1.3 };
    double bad[] = { NAN, -1, 0, INFINITY, 1.5 };
    double high[] = { 5, 6, 7 }, low[] = { 0.1, 0.2 };
    double many[40];

    /* no data: no correction */
    ck_assert_double_eq (power_correction (none, 0), 1);
    ck_assert_double_eq (power_correction (bad, 4), 1);
    ck_assert_double_eq_tol (power_correction (three, 3), 1.1, 1e-12);
    ck_assert_double_eq_tol (power_correction (four, 4), 1.25, 1e-12);
    /* garbage left out */
    ck_assert_double_eq_tol (power_correction (bad, 5), 1.5, 1e-12);
    /* clamped */
    ck_assert_double_eq (power_correction (high, 3), MS_POWER_CORR_MAX);
    ck_assert_double_eq (power_correction (low, 2), MS_POWER_CORR_MIN);
    /* only the newest MS_POWER_CORR_RUNS count */
    for (size_t i = 0; i < 40; i++)
        many[i] = i < MS_POWER_CORR_RUNS ? 1.3 : 0.6;
    ck_assert_double_eq_tol (power_correction (many, 40), 1.3, 1e-12);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("power_measure");
    TCase *tc = tcase_create ("core");

    tcase_add_test (tc, interval_power_with_a_wrap);
    tcase_add_test (tc, interval_power_missing_zone);
    tcase_add_test (tc, correction_median_clamped);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
