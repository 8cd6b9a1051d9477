/* bench_collect.c - what the collector costs a job: a CPU-bound command run
 * bare and run through metasched-collect (PAPI/perf counters of its tree,
 * RAPL sampling, the counter file), alternately, several times each.
 * Prints the median wall times and the overhead ratio (target: under 1%).
 *
 * Usage: bench_collect [SECONDS_OF_WORK [REPEATS]]
 *   (the command is this program itself: `bench_collect --spin N`) */
#include "config.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t
spin (uint64_t n)
{
    volatile uint64_t x = 88172645463325252ULL;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t y = x;
        y ^= y << 13;
        y ^= y >> 7;
        y ^= y << 17;
        x = y;
    }
    return x;
}

static double
run (char *const argv[])
{
    double t0 = now ();
    int status;
    pid_t pid = fork ();

    if (pid == 0) {
        int nul = open ("/dev/null", O_WRONLY);
        if (nul >= 0)
            dup2 (nul, 2);
        execv (argv[0], argv);
        _exit (127);
    }
    waitpid (pid, &status, 0);
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        fprintf (stderr, "bench_collect: %s failed\n", argv[0]);
        exit (1);
    }
    return now () - t0;
}

static int
cmp (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
    char self[PATH_MAX], wrapper[PATH_MAX + 64], iters[32], dir[PATH_MAX];
    double secs = argc > 1 && strcmp (argv[1], "--spin") ? atof (argv[1]) : 3;
    int reps = argc > 2 && strcmp (argv[1], "--spin") ? atoi (argv[2]) : 5;
    double bare[32], wrapped[32], t, rate;
    uint64_t n;
    ssize_t l;

    if (argc > 2 && !strcmp (argv[1], "--spin")) {
        spin (strtoull (argv[2], NULL, 10));
        return 0;
    }
    if (reps < 1 || reps > 32)
        reps = 5;
    if ((l = readlink ("/proc/self/exe", self, sizeof (self) - 1)) < 0)
        return 1;
    self[l] = '\0';
    snprintf (dir, sizeof (dir), "%s", self);
    snprintf (wrapper, sizeof (wrapper), "%s/../collectors/metasched-collect",
              dirname (dir));
    if (access (wrapper, X_OK) < 0) {
        fprintf (stderr, "bench_collect: %s not built\n", wrapper);
        return 1;
    }
    /* calibrate the work to about `secs` seconds */
    t = now ();
    spin (50000000);
    rate = 50000000 / (now () - t);
    n = (uint64_t)(rate * secs);
    snprintf (iters, sizeof (iters), "%llu", (unsigned long long)n);
    {
        char *bare_argv[] = { self, "--spin", iters, NULL };
        char *wrap_argv[] = { wrapper, "--config", "/dev/null", "--quiet",
                              "--counters", "/dev/null", "--", self, "--spin",
                              iters, NULL };
        run (bare_argv); /* warm up */
        for (int i = 0; i < reps; i++) {
            bare[i] = run (bare_argv);
            wrapped[i] = run (wrap_argv);
        }
    }
    qsort (bare, (size_t)reps, sizeof (double), cmp);
    qsort (wrapped, (size_t)reps, sizeof (double), cmp);
    printf ("collector overhead on a CPU-bound command (%llu iterations, %d runs each)\n",
            (unsigned long long)n, reps);
    printf ("  bare run, median:            %8.3f s\n", bare[reps / 2]);
    printf ("  through metasched-collect:   %8.3f s\n", wrapped[reps / 2]);
    printf ("  overhead:                    %+8.3f s  (%+.2f%%; target under 1%%)\n",
            wrapped[reps / 2] - bare[reps / 2],
            100 * (wrapped[reps / 2] / bare[reps / 2] - 1));
    return 0;
}
