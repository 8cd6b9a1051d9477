/* bench_sim.c - the simulator's speed on the KTH-SP2 trace (28,467 jobs)
 * against AccaSim's EASY backfilling on the same trace, and on a trace of
 * a million jobs. Prints figures and ratios; never fails on time.
 *
 * Three parts:
 *  1. In this process, every policy once on KTH-SP2 (the kth scenario):
 *     the run's wall time and the time its scheduler spent deciding and
 *     dispatching, per job (target: at most 35 us).
 *  2. Whole process, as a user runs it: `metasched simulate -s kth -p P
 *     --no-plots -q` for every policy P, then the full table (every
 *     policy, no -p), each the median of RUNS runs (wall and CPU time,
 *     the largest peak memory); ratio = AccaSim's time over ours
 *     (target: at least 200 for every policy; the full table at most
 *     2 s). `-p metasched` runs its energy-weight sweep as the command
 *     does; "metasched alone" is the policy's one run (--sweep 0.5).
 *     The full table runs as the command runs it, its runs shared among
 *     one process a processor (--workers), and with --workers 1.
 *  3. A million jobs: the full table on KTH-SP2 repeated 36 times in
 *     sequence (`--replicate 36`: each copy's submissions shifted past the
 *     previous copy's last, 1,024,812 jobs), once (target: at most 60 s
 *     on 2 cores), with its peak memory. Skipped with -q.
 *
 * Usage: bench_sim [-d SHARED_DATA_DIR] [-m METASCHED] [-r RUNS] [-q]
 *   -d  ../shared/data by default
 *   -m  the metasched program (metasched/metasched of this build)
 *   -r  runs of each whole-process figure (5)
 *   -q  no million-job run
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "metasched/sim/simulate.h"
#include "metasched/common/util.h"
#include "predictor/predictor.h"

/* AccaSim's EASY backfilling replaying KTH-SP2 (28,467 jobs), whole
 * process: 6.6 s and 21 MiB peak memory, the median of 5 runs on the
 * 2-core development VM where it was measured side by side with
 * `metasched simulate` (AccaSim is not installed here, so its figures are
 * kept as constants; doc/evaluation.md, "Speed"). */
#define ACCASIM_KTH_S 6.6
#define ACCASIM_KTH_MIB 21.0

#define TARGET_RATIO 200.0  /* each policy at least 200 times faster */
#define TARGET_DECIDE_US 35 /* per job */
#define TARGET_TABLE_S 2.0  /* the full KTH table */
#define TARGET_MILLION_S 60 /* the full table on a million jobs */
#define MILLION_COPIES 36   /* 36 x 28,467 = 1,024,812 jobs */

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this process (user and system), s. */
static double
cpu_self (void)
{
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec
           + ru.ru_stime.tv_usec * 1e-6;
}

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One run of argv: its wall and CPU time (s) and peak memory (KiB); -1
 * where it could not run or did not exit 0. */
static int
run_once (char *const *argv, double *wall, double *cpu, long *maxrss_kb)
{
    struct rusage ru;
    int status;
    double t0;
    pid_t pid;

    fflush (stdout); /* not twice, once by the child */
    t0 = now ();
    pid = fork ();

    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen ("/dev/null", "w", stdout))
            _exit (126);
        execv (argv[0], argv);
        fprintf (stderr, "bench_sim: %s: %s\n", argv[0], strerror (errno));
        _exit (127);
    }
    while (wait4 (pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return -1;
    *wall = now () - t0;
    *cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec
           + ru.ru_stime.tv_usec * 1e-6;
    *maxrss_kb = ru.ru_maxrss;
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        fprintf (stderr, "bench_sim: %s simulate failed (status %d)\n", argv[0],
                 status);
        return -1;
    }
    return 0;
}

/* The median of runs of `metasched simulate -s kth [-p policy] [extra
 * ...]` into wall, cpu; the largest peak memory into kb: that of the
 * largest single process (the command's or a worker's, --workers). */
static int
run_median (const char *prog, const char *data, const char *policy,
            const char *const *extra, int runs, double *wall, double *cpu,
            long *kb)
{
    char dir[] = "/tmp/bench_sim.XXXXXX";
    char *argv[24];
    double w[64], c[64];
    int n = 0, rc = 0;

    if (!mkdtemp (dir))
        return -1;
    argv[n++] = (char *)prog;
    argv[n++] = "simulate";
    argv[n++] = "-s";
    argv[n++] = "kth";
    argv[n++] = "-d";
    argv[n++] = (char *)data;
    argv[n++] = "--no-plots";
    argv[n++] = "-q";
    argv[n++] = "-o";
    argv[n++] = dir;
    if (policy) {
        argv[n++] = "-p";
        argv[n++] = (char *)policy;
    }
    for (size_t e = 0; extra && extra[e] && n < 22; e++)
        argv[n++] = (char *)extra[e];
    argv[n] = NULL;
    *kb = 0;
    for (int r = 0; r < runs && rc == 0; r++) {
        long k = 0;
        rc = run_once (argv, &w[r], &c[r], &k);
        if (k > *kb)
            *kb = k;
    }
    {
        char cmd[256];
        snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
        if (system (cmd) != 0)
            fprintf (stderr, "bench_sim: could not remove %s\n", dir);
    }
    if (rc < 0)
        return -1;
    qsort (w, runs, sizeof (double), cmp_double);
    qsort (c, runs, sizeof (double), cmp_double);
    *wall = w[runs / 2];
    *cpu = c[runs / 2];
    return 0;
}

/* Part 1: every policy in this process on KTH-SP2. */
static int
in_process (const char *data, ms_error_t *errp)
{
    const char *text = simulate_builtin_config ("kth");
    char path[4096];
    ms_siteconf_t *conf = NULL;
    predictor_t *pred = predictor_new ();
    ms_predtab_t *tab = NULL;
    swf_trace_t *t = NULL;
    ms_workload_t *wl = NULL;
    ms_jobrec_t *recs = NULL;
    double wts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    int rc = -1;

    snprintf (path, sizeof (path), "%s/traces/KTH-SP2-1996-2.1-cln.swf.gz",
              data);
    if (swf_load (path, 0, &t, errp) < 0
        || clusterconf_parse (text, strlen (text), "kth", &conf, errp) < 0)
        goto out;
    for (size_t i = 0; i < conf->narchs; i++)
        if (predictor_add_arch (
                pred, conf->archs[i].name, conf->archs[i].cores_per_node,
                conf->archs[i].freqs_khz, conf->archs[i].nfreqs,
                conf->archs[i].nominal_khz, conf->archs[i].idle_power_w, errp)
            < 0)
            goto out;
    if (predictor_load_table61 (pred, "skx8168", "clx6254", "skx6148", errp) < 0
        || predtab_build (pred, conf, &tab, errp) < 0
        || workload_from_swf (t, 1, 100, 1, &wl, errp) < 0)
        goto out;
    workload_assign_apps (wl, wts, 8, 1);
    recs = ms_xcalloc (wl->njobs, sizeof (*recs));
    printf ("1. In process, KTH-SP2 (%zu jobs) on the kth configuration, "
            "EASY backfill\n\n",
            wl->njobs);
    printf ("%-24s %8s %8s %10s %10s %10s %7s\n", "policy", "wall_s", "cpu_s",
            "cpu_us/job", "decide_us", "target_us", "ratio");
    for (int k = 0; k < POL_NKINDS; k++) {
        ms_simsetup_t su;
        ms_policy_t pol;
        ms_summary_t s;
        double t0, c0, dt, dc, us;
        simulate_setup_init (&su);
        su.conf = conf;
        su.tab = tab;
        su.wl = wl;
        policy_init (&pol, (ms_polkind_t)k);
        t0 = now ();
        c0 = cpu_self ();
        if (simulate_run (&su, &pol, recs, &s, errp) < 0)
            goto out;
        dt = now () - t0;
        dc = cpu_self () - c0;
        us = s.decisions_per_s > 0 ? 1e6 / s.decisions_per_s : 0;
        printf ("%-24s %8.3f %8.3f %10.2f %10.2f %10d %7.2f\n", pol.label, dt,
                dc, 1e6 * dc / wl->njobs, us, TARGET_DECIDE_US,
                us / TARGET_DECIDE_US);
    }
    printf ("cpu_us/job: the whole run's CPU time a job; decide_us: the "
            "scheduler's time deciding\nand dispatching a job (a clock, "
            "not CPU time: it grows when other work shares\nthe cores); "
            "ratio = decide_us / target (<= 1 meets it)\n\n");
    rc = 0;
out:
    free (recs);
    workload_free (wl);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
    swf_free (t);
    return rc;
}

/* Part 2: whole process, every policy and the full table. */
static int
whole_process (const char *prog, const char *data, int runs)
{
    double wall, cpu;
    long kb;

    printf ("2. Whole process, `%s simulate -s kth [-p POLICY] --no-plots "
            "-q`, median of %d\n",
            prog, runs);
    printf ("   AccaSim EASY backfilling, KTH-SP2: %.1f s, %.0f MiB "
            "(recorded)\n\n",
            ACCASIM_KTH_S, ACCASIM_KTH_MIB);
    printf ("%-24s %8s %8s %9s %9s %9s %9s\n", "policy", "wall_s", "cpu_s",
            "peak_MiB", "x_wall", "x_cpu", "target_x");
    for (int k = 0; k < POL_NKINDS; k++) {
        const char *name = policy_kind_name ((ms_polkind_t)k);
        if (run_median (prog, data, name, NULL, runs, &wall, &cpu, &kb) < 0)
            return -1;
        printf ("%-24s %8.3f %8.3f %9.1f %9.1f %9.1f %9.0f\n", name, wall, cpu,
                kb / 1024.0, ACCASIM_KTH_S / wall, ACCASIM_KTH_S / cpu,
                TARGET_RATIO);
        /* metasched's row above runs its sweep too (7 runs more); the
         * policy alone is its own row */
        if (k == POL_METASCHED) {
            static const char *const alone[] = { "--sweep", "0.5", NULL };
            if (run_median (prog, data, name, alone, runs, &wall, &cpu, &kb)
                < 0)
                return -1;
            printf ("%-24s %8.3f %8.3f %9.1f %9.1f %9.1f %9.0f\n",
                    "metasched alone", wall, cpu, kb / 1024.0,
                    ACCASIM_KTH_S / wall, ACCASIM_KTH_S / cpu, TARGET_RATIO);
        }
    }
    for (int one = 1; one >= 0; one--) {
        static const char *const w1[] = { "--workers", "1", NULL };
        if (run_median (prog, data, NULL, one ? w1 : NULL, runs, &wall, &cpu,
                        &kb)
            < 0)
            return -1;
        printf ("%-24s %8.3f %8.3f %9.1f %9.1f %9.1f %9s\n",
                one ? "full table, 1 process" : "full table", wall, cpu,
                kb / 1024.0, ACCASIM_KTH_S / wall, ACCASIM_KTH_S / cpu, "-");
    }
    printf ("metasched: the policy and its energy-weight sweep (8 runs, "
            "the sweep's w0.5 taken\nfrom the policy's row), as the command "
            "runs it; metasched alone: --sweep 0.5,\none run. full table: "
            "the runs shared among one process a processor (--workers,\n"
            "the default; cpu_s is their sum, peak_MiB the largest one "
            "process); 1 process:\n--workers 1. x_wall, x_cpu: AccaSim's "
            "time over ours (wall; CPU, which is the\nwall time of a "
            "process alone on a core); full table: %.3f s wall, %.3f s CPU\n"
            "against a target of %.1f s (ratios %.2f, %.2f; <= 1 meets it)"
            "\n\n",
            wall, cpu, TARGET_TABLE_S, wall / TARGET_TABLE_S,
            cpu / TARGET_TABLE_S);
    return 0;
}

/* Part 3: the full table on a million jobs, once. */
static int
million (const char *prog, const char *data)
{
    char copies[16];
    const char *extra[] = { "--replicate", copies, NULL };
    double wall, cpu;
    long kb;

    snprintf (copies, sizeof (copies), "%d", MILLION_COPIES);
    printf ("3. A million jobs: the full table on KTH-SP2 repeated %d times "
            "(--replicate %d), once\n\n",
            MILLION_COPIES, MILLION_COPIES);
    if (run_median (prog, data, NULL, extra, 1, &wall, &cpu, &kb) < 0)
        return -1;
    printf ("%-24s %9s %9s %9s %9s %8s\n", "", "wall_s", "cpu_s", "peak_MiB",
            "target_s", "ratio");
    printf ("%-24s %9.1f %9.1f %9.1f %9d %8.2f\n", "full table, 1,024,812",
            wall, cpu, kb / 1024.0, TARGET_MILLION_S, wall / TARGET_MILLION_S);
    printf ("ratio = wall / target (<= 1 meets it); CPU (the workers' sum) "
            "over target: %.2f;\npeak_MiB: the largest one process (one "
            "run's records); the workers hold up\nto %ld times that at once\n",
            cpu / TARGET_MILLION_S, sysconf (_SC_NPROCESSORS_ONLN));
    return 0;
}

int
main (int argc, char **argv)
{
    const char *data = "../shared/data", *prog = "metasched/metasched";
    int runs = 5, opt;
    bool big = true;
    ms_error_t err;

    while ((opt = getopt (argc, argv, "d:m:r:q")) != -1)
        switch (opt) {
        case 'd':
            data = optarg;
            break;
        case 'm':
            prog = optarg;
            break;
        case 'r':
            runs = atoi (optarg);
            if (runs < 1 || runs > 64) {
                fprintf (stderr, "bench_sim: -r %s: runs from 1 to 64\n",
                         optarg);
                return 2;
            }
            break;
        case 'q':
            big = false;
            break;
        default:
            fprintf (stderr, "usage: bench_sim [-d SHARED_DATA_DIR] "
                             "[-m METASCHED] [-r RUNS] [-q]\n");
            return 2;
        }
    if (access (prog, X_OK) != 0) {
        fprintf (stderr,
                 "bench_sim: %s: %s (give the metasched program "
                 "with -m)\n",
                 prog, strerror (errno));
        return 77;
    }
    {
        double la[3] = { 0, 0, 0 };
        if (getloadavg (la, 3) == 3)
            printf ("load average at the start: %.2f %.2f %.2f on %ld "
                    "processors (wall times are\nthe simulator's only on "
                    "processors it has to itself)\n\n",
                    la[0], la[1], la[2], sysconf (_SC_NPROCESSORS_ONLN));
    }
    if (in_process (data, &err) < 0) {
        fprintf (stderr,
                 "bench_sim: %s (give the shared data directory "
                 "with -d)\n",
                 err.text);
        return 77;
    }
    if (whole_process (prog, data, runs) < 0
        || (big && million (prog, data) < 0))
        return 1;
    return 0;
}
