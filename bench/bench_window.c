/* bench_window.c - the window assignment's solve time (window.h) for 100,
 * 1,000 and 5,000 queued jobs on 3 clusters x 20 frequencies, beside the
 * greedy choice's (each job its cheapest bid). Bids are drawn as
 * metasched makes them: per partition, energy falling and runtime rising
 * as the clock goes down, and the partitions' capacity a fraction of the
 * window's work so that the program has to move jobs. Target: 1,000 jobs
 * in at most 1 s. Prints figures, never fails on time. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/core/window.h"

#define NPARTS 3
#define NFREQS 20

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double
uni (void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

int
main (int argc, char **argv)
{
    size_t sizes[] = { 100, 1000, 5000 };
    double budget = argc > 1 ? atof (argv[1]) : 10;

    printf ("bench_window: %d partitions x %d frequencies, budget %.1f s a "
            "solve\n\n",
            NPARTS, NFREQS, budget);
    printf ("%-8s %8s %8s %10s %10s %10s %9s %8s\n", "jobs", "bids", "kept",
            "greedy_s", "solve_s", "target_s", "optimal", "gain%");
    for (size_t k = 0; k < sizeof (sizes) / sizeof (sizes[0]); k++) {
        size_t n = sizes[k], nb = 0;
        ms_bid_t *bids = calloc (n * NPARTS * NFREQS, sizeof (*bids));
        size_t *pick = calloc (n, sizeof (size_t));
        double cap[NPARTS], pen[NPARTS], work = 0, t0, tg, ts;
        ms_window_opts_t o;
        ms_window_stats_t st;

        for (size_t j = 0; j < n; j++) {
            double nodes = 1 + floor (uni () * 32), base = 600 + uni () * 7200;
            work += nodes * base;
            for (size_t p = 0; p < NPARTS; p++) {
                double tr = 0.8 + 0.5 * uni (), er = 0.8 + 0.5 * uni ();
                double wait = uni ();
                for (size_t f = 0; f < NFREQS; f++) {
                    double x = (double)f / (NFREQS - 1); /* 1: nominal */
                    double t = base * tr * (1 + 0.6 * (1 - x) * uni ());
                    double e = er * (0.7 + 0.3 * x + 0.1 * uni ());
                    ms_bid_t *b = &bids[nb++];
                    b->job = j;
                    b->part = p;
                    b->cand = p * NFREQS + f;
                    b->ns = nodes * t;
                    b->cost = 0.5 * e + 0.5 * (wait + t / base);
                }
            }
        }
        for (size_t p = 0; p < NPARTS; p++) {
            cap[p] = 0.25 * work;
            pen[p] = 0.5 / (256 * 3600.0);
        }
        t0 = now ();
        window_greedy (bids, nb, n, pick);
        tg = now () - t0;
        double og = window_objective (bids, n, pick, cap, pen, NPARTS);
        window_opts_init (&o);
        o.time_budget_s = budget;
        t0 = now ();
        window_solve (bids, nb, n, cap, pen, NPARTS, &o, pick, &st);
        ts = now () - t0;
        printf ("%-8zu %8zu %8zu %10.6f %10.3f %10.1f %9s %8.2f\n", n, nb,
                st.nvars, tg, ts, n <= 1000 ? 1.0 : 5.0,
                st.optimal ? "yes" : (st.fallback ? "greedy" : "budget"),
                100 * (og - st.cost) / og);
        free (bids);
        free (pick);
    }
    printf ("\ntarget: 1,000 jobs in at most 1 s (5,000: printed, 5 s shown "
            "for scale); gain%% = objective below the greedy choice's\n");
    return 0;
}
