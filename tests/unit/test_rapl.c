/* test_rapl.c - the powercap reader on test powercap trees that the test
 * builds and advances: discovery, wraparound, a missing DRAM zone, an
 * unreadable energy_uj, garbage in the counter files, sampling interval. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/cpufreq.h"
#include "collectors/rapl.h"
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

/* One package with DRAM (range 1000 J, DRAM 500 J) and, if two, a second
 * package without DRAM; plus a psys zone that must be ignored. */
static void
make_tree (int packages)
{
    char tmpl[] = "/tmp/ms-rapl-XXXXXX";

    ck_assert_ptr_nonnull (mkdtemp (tmpl));
    chmod (tmpl, 0755);
    snprintf (root, sizeof (root), "%s", tmpl);
    mkd ("intel-rapl:0");
    put ("intel-rapl:0/name", "package-0\n");
    putu ("intel-rapl:0/max_energy_range_uj", 1000000000ULL);
    putu ("intel-rapl:0/energy_uj", 100);
    mkd ("intel-rapl:0/intel-rapl:0:0");
    put ("intel-rapl:0/intel-rapl:0:0/name", "dram\n");
    putu ("intel-rapl:0/intel-rapl:0:0/max_energy_range_uj", 500000000ULL);
    putu ("intel-rapl:0/intel-rapl:0:0/energy_uj", 7);
    mkd ("intel-rapl:0/intel-rapl:0:1");
    put ("intel-rapl:0/intel-rapl:0:1/name", "core\n");
    putu ("intel-rapl:0/intel-rapl:0:1/max_energy_range_uj", 500000000ULL);
    putu ("intel-rapl:0/intel-rapl:0:1/energy_uj", 9);
    if (packages > 1) {
        mkd ("intel-rapl:1");
        put ("intel-rapl:1/name", "package-1\n");
        putu ("intel-rapl:1/max_energy_range_uj", 1000000000ULL);
        putu ("intel-rapl:1/energy_uj", 5000);
    }
    mkd ("intel-rapl:2");
    put ("intel-rapl:2/name", "psys\n");
    putu ("intel-rapl:2/max_energy_range_uj", 1000000000ULL);
    putu ("intel-rapl:2/energy_uj", 1);
}

static void
rm_tree (void)
{
    char cmd[300];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", root);
    if (system (cmd) != 0)
        fprintf (stderr, "could not remove %s\n", root);
}

START_TEST (discovers_packages_and_dram)
{
    rapl_t *r;
    ms_error_t e;

    make_tree (2);
    ck_assert_int_eq (rapl_open (root, &r, &e), 0);
    ck_assert_uint_eq (rapl_nzones (r), 3); /* pkg0, dram0, pkg1; no core, psys */
    ck_assert_str_eq (rapl_zone (r, 0)->name, "package-0");
    ck_assert_int_eq (rapl_zone (r, 0)->kind, RAPL_PACKAGE);
    ck_assert_str_eq (rapl_zone (r, 1)->name, "dram");
    ck_assert_int_eq (rapl_zone (r, 1)->kind, RAPL_DRAM);
    ck_assert_int_eq (rapl_zone (r, 1)->package, 0);
    ck_assert_str_eq (rapl_zone (r, 2)->name, "package-1");
    ck_assert_uint_eq (rapl_zone (r, 1)->max_range_uj, 500000000ULL);
    ck_assert (!rapl_any_unreadable (r));
    rapl_close (r);
    rm_tree ();
}
END_TEST

START_TEST (energy_over_samples_with_a_wrap)
{
    rapl_t *r;
    rapl_sample_t s;
    rapl_accum_t a;
    double pkg, dram;

    make_tree (2);
    ck_assert_int_eq (rapl_open (root, &r, NULL), 0);
    putu ("intel-rapl:0/energy_uj", 999000000ULL); /* 1 J before the wrap */
    ck_assert_int_eq (rapl_read (r, &s, NULL), 3);
    rapl_accum_start (&a, r, &s);
    /* package 0 wraps: +1 J to the range, then 2 J */
    putu ("intel-rapl:0/energy_uj", 2000000ULL);
    putu ("intel-rapl:0/intel-rapl:0:0/energy_uj", 3000007ULL); /* +3 J */
    putu ("intel-rapl:1/energy_uj", 10005000ULL);               /* +10 J */
    ck_assert_int_eq (rapl_read (r, &s, NULL), 3);
    rapl_accum_add (&a, r, &s);
    putu ("intel-rapl:0/energy_uj", 7000000ULL); /* +5 J */
    ck_assert_int_eq (rapl_read (r, &s, NULL), 3);
    rapl_accum_add (&a, r, &s);
    rapl_accum_energy (&a, r, &pkg, &dram);
    ck_assert_double_eq_tol (pkg, 1 + 2 + 5 + 10, 1e-9);
    ck_assert_double_eq_tol (dram, 3, 1e-9);
    ck_assert_uint_eq (a.wraps[0], 1);
    ck_assert_uint_eq (a.wraps[1], 0);
    rapl_close (r);
    rm_tree ();
}
END_TEST

START_TEST (delta_handles_one_wrap)
{
    ck_assert_uint_eq (rapl_delta (10, 25, 100), 15);
    ck_assert_uint_eq (rapl_delta (90, 5, 100), 15);
    ck_assert_uint_eq (rapl_delta (100, 0, 100), 0);
    ck_assert_uint_eq (rapl_delta (7, 7, 100), 0);
}
END_TEST

START_TEST (missing_dram_zone)
{
    rapl_t *r;
    rapl_sample_t s;
    rapl_accum_t a;
    double pkg, dram;
    char cmd[400];

    make_tree (1);
    snprintf (cmd, sizeof (cmd), "rm -rf '%s/intel-rapl:0/intel-rapl:0:0'",
              root);
    ck_assert_int_eq (system (cmd), 0);
    ck_assert_int_eq (rapl_open (root, &r, NULL), 0);
    ck_assert_uint_eq (rapl_nzones (r), 1);
    ck_assert_int_eq (rapl_read (r, &s, NULL), 1);
    rapl_accum_start (&a, r, &s);
    putu ("intel-rapl:0/energy_uj", 4000100ULL);
    rapl_read (r, &s, NULL);
    rapl_accum_add (&a, r, &s);
    rapl_accum_energy (&a, r, &pkg, &dram);
    ck_assert_double_eq_tol (pkg, 4, 1e-9);
    ck_assert (dram < 0); /* not measured, not zero */
    rapl_close (r);
    rm_tree ();
}
END_TEST

START_TEST (no_rapl_at_all)
{
    rapl_t *r;
    ms_error_t e;
    char cmd[400];

    ck_assert_int_eq (rapl_open ("/nonexistent/powercap", &r, &e), -1);
    ck_assert (strstr (e.text, "/nonexistent/powercap") != NULL);
    make_tree (1);
    snprintf (cmd, sizeof (cmd), "rm -rf '%s/intel-rapl:0'", root);
    ck_assert_int_eq (system (cmd), 0);
    ck_assert_int_eq (rapl_open (root, &r, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_MISSING);
    ck_assert (strstr (e.text, "no RAPL package zone") != NULL);
    rm_tree ();
}
END_TEST

/* energy_uj root-only (Linux >= 5.10): as an ordinary user the zone is
 * found, marked unreadable, and the message says why. */
START_TEST (unreadable_energy_file)
{
    char path[512];
    pid_t pid;
    int status;

    make_tree (1);
    snprintf (path, sizeof (path), "%s/intel-rapl:0/energy_uj", root);
    ck_assert_int_eq (chmod (path, 0400), 0);
    snprintf (path, sizeof (path), "%s/intel-rapl:0/intel-rapl:0:0/energy_uj",
              root);
    ck_assert_int_eq (chmod (path, 0400), 0);
    pid = fork ();
    ck_assert_int_ge (pid, 0);
    if (pid == 0) {
        rapl_t *r;
        rapl_sample_t s;
        ms_error_t e;
        /* root reads anything: become an ordinary user to see EACCES */
        if (geteuid () == 0 && (setgid (65534) < 0 || setuid (65534) < 0))
            _exit (10);
        if (rapl_open (root, &r, &e) != 0)
            _exit (11);
        if (!rapl_any_unreadable (r) || rapl_zone (r, 0)->readable)
            _exit (12);
        if (!strstr (rapl_zone (r, 0)->error, "root-only since Linux 5.10"))
            _exit (13);
        if (rapl_read (r, &s, &e) != -1 || e.kind != MS_ERR_SYSTEM)
            _exit (14);
        if (!strstr (rapl_hint_unreadable (), "chmod"))
            _exit (15);
        rapl_close (r);
        _exit (0);
    }
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    ck_assert_msg (WIFEXITED (status) && WEXITSTATUS (status) == 0,
                   "child check %d failed", WEXITSTATUS (status));
    rm_tree ();
}
END_TEST

START_TEST (garbage_in_energy_file)
{
    static const char *const bad[] = { "", "\n", "abc\n", "12x\n", "-5\n",
                                       "99999999999999999999999\n",
                                       "1 2\n", "0x10\n" };
    rapl_t *r;
    rapl_sample_t s;
    ms_error_t e;

    make_tree (1);
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        put ("intel-rapl:0/energy_uj", bad[i]);
        put ("intel-rapl:0/intel-rapl:0:0/energy_uj", bad[i]);
        ck_assert_int_eq (rapl_open (root, &r, &e), 0);
        ck_assert_msg (!rapl_zone (r, 0)->readable, "'%s' accepted", bad[i]);
        ck_assert_int_eq (rapl_read (r, &s, &e), -1);
        ck_assert_int_eq (e.kind, MS_ERR_INPUT);
        ck_assert (strstr (e.text, "energy_uj") != NULL);
        rapl_close (r);
    }
    /* above the range is garbage too */
    putu ("intel-rapl:0/energy_uj", 2000000000ULL);
    putu ("intel-rapl:0/intel-rapl:0:0/energy_uj", 1);
    ck_assert_int_eq (rapl_open (root, &r, &e), 0);
    ck_assert_int_eq (rapl_read (r, &s, &e), 1);
    ck_assert (!s.ok[0] && s.ok[1]);
    rapl_close (r);
    /* a zero range cannot undo a wrap */
    putu ("intel-rapl:0/energy_uj", 5);
    putu ("intel-rapl:0/max_energy_range_uj", 0);
    ck_assert_int_eq (rapl_open (root, &r, &e), 0);
    ck_assert (!rapl_zone (r, 0)->readable);
    rapl_close (r);
    rm_tree ();
}
END_TEST

START_TEST (parse_counter_text)
{
    uint64_t v;
    ms_error_t e;

    ck_assert_int_eq (rapl_parse_u64 ("262143328850\n", 13, "x", &v, &e), 0);
    ck_assert_uint_eq (v, 262143328850ULL);
    ck_assert_int_eq (rapl_parse_u64 ("18446744073709551615", 20, "x", &v, &e), 0);
    ck_assert_int_eq (rapl_parse_u64 ("18446744073709551616", 20, "x", &v, &e), -1);
    ck_assert_int_eq (rapl_parse_u64 ("1\0002", 3, "f", &v, &e), -1);
    ck_assert (strstr (e.text, "f:") == e.text);
}
END_TEST

/* At most one wrap between samples: range / power, halved. */
START_TEST (sampling_interval)
{
    rapl_t *r;

    /* a real package: 262143 J range at 200 W wraps after 1310 s */
    ck_assert_double_eq_tol (rapl_sample_interval (262143328850ULL, 200),
                             262143.32885 / 200 / 2, 1e-6);
    ck_assert_double_eq_tol (rapl_sample_interval (1000, 1000), 0.05, 1e-12);
    ck_assert_double_eq_tol (rapl_sample_interval (UINT64_MAX, 1), 3600, 1e-12);
    make_tree (1);
    putu ("intel-rapl:0/constraint_0_max_power_uw", 250000000ULL); /* 250 W */
    ck_assert_int_eq (rapl_open (root, &r, NULL), 0);
    /* package: 1000 J / 250 W / 2 = 2 s; DRAM has no limit: 500 J at the
     * 1000 W default / 2 = 0.25 s, the shorter wins */
    ck_assert_double_eq_tol (rapl_min_interval (r, 1000), 0.25, 1e-9);
    ck_assert_double_eq_tol (rapl_min_interval (r, 100), 2.0, 1e-9);
    rapl_close (r);
    rm_tree ();
}
END_TEST

/* The observed frequency: the mean over the CPUs that report one. */
START_TEST (observed_frequency)
{
    make_tree (1);
    mkd ("cpu0");
    mkd ("cpu0/cpufreq");
    put ("cpu0/cpufreq/scaling_cur_freq", "2000000\n");
    mkd ("cpu1");
    mkd ("cpu1/cpufreq");
    put ("cpu1/cpufreq/scaling_cur_freq", "2200000\n");
    mkd ("cpu2"); /* offline or no cpufreq: not counted */
    mkd ("cpufreq");
    mkd ("cpu3");
    mkd ("cpu3/cpufreq");
    put ("cpu3/cpufreq/scaling_cur_freq", "fast\n");
    ck_assert_uint_eq (cpufreq_mean_khz (root), 2100000);
    ck_assert_uint_eq (cpufreq_mean_khz ("/nonexistent"), 0);
    rm_tree ();
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("rapl");
    TCase *tc = tcase_create ("powercap");

    tcase_add_test (tc, discovers_packages_and_dram);
    tcase_add_test (tc, energy_over_samples_with_a_wrap);
    tcase_add_test (tc, delta_handles_one_wrap);
    tcase_add_test (tc, missing_dram_zone);
    tcase_add_test (tc, no_rapl_at_all);
    tcase_add_test (tc, unreadable_energy_file);
    tcase_add_test (tc, garbage_in_energy_file);
    tcase_add_test (tc, parse_counter_text);
    tcase_add_test (tc, sampling_interval);
    tcase_add_test (tc, observed_frequency);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
