/* window.h - the window assignment: a set of queued jobs placed at once
 * by an integer program (GLPK), with the greedy choice as fallback.
 *
 * Each job of the window has bids: (partition, frequency) with a predicted
 * start from the partition's state, a predicted runtime, its nodes and a
 * cost (the admin's weighted objective of that placement; lower is
 * better). The program picks exactly one bid per job:
 *
 *   minimize   sum_b cost_b x_b + sum_p pen_p over_p
 *   subject to sum_{b of j} x_b = 1                        for every job j
 *              sum_{b on p} nodes_b t_b x_b - over_p <= cap_p
 *                                                       for every partition p
 *              x_b in {0, 1}, over_p >= 0
 *
 * where cap_p is the node-seconds partition p can still give the window
 * within the horizon (its nodes times the horizon, less what its running
 * and queued jobs hold). A job alone picks its cheapest bid (the greedy
 * choice); together, jobs that lose least on a partition get it when its
 * capacity is short. The solve has a time budget; past it, GLPK's best
 * integer solution is taken, and without one the greedy choice.
 *
 * A window whose cheapest bids fit the caps takes them (no program); a
 * small one is searched directly, and where one choice is better than
 * every other by more than GLPK's tolerance that choice is the program's
 * optimum and is taken without GLPK (window.c, window_search).
 */
#ifndef MS_WINDOW_H
#define MS_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    size_t job;   /* index of the job in the window */
    size_t part;  /* partition */
    size_t cand;  /* the caller's candidate index */
    double ns;    /* node-seconds it takes: nodes * runtime */
    double cost;  /* the weighted objective; lower is better */
} ms_bid_t;

typedef struct {
    double time_budget_s; /* per solve (default 0.5) */
    bool program_only;    /* every window with overflow to GLPK, none
                             searched (the search's check) */
} ms_window_opts_t;

typedef struct {
    bool optimal;      /* GLPK proved the solution optimal, or every
                          job's cheapest bid fits the caps (no program
                          is solved then: nvars 0) */
    bool fallback;     /* the greedy choice was taken */
    double cost;       /* the objective of the solution taken */
    double solve_s;    /* wall time of the solve (0 without a program:
                          nvars 0) */
    size_t nvars;      /* bids in the program (after pruning) */
} ms_window_stats_t;

void window_opts_init (ms_window_opts_t *o);

/* The objective of a choice (pick[j] = bid index per job), with the
 * capacity penalty: what window_solve minimizes. */
double window_objective (const ms_bid_t *bids, size_t njobs, const size_t *pick,
                         const double *cap, const double *pen, size_t nparts);

/* The greedy choice: every job its cheapest bid. pick has njobs entries
 * (SIZE_MAX for a job without bids). */
void window_greedy (const ms_bid_t *bids, size_t nbids, size_t njobs,
                    size_t *pick);

/* Solve the window. bids are grouped by nothing in particular; a bid
 * worse than another of the same job and partition on both cost and
 * node-seconds is left out of the program. cap (node-seconds) and pen
 * (cost of a node-second over cap) have nparts entries. On
 * return pick[j] is the chosen bid of job j (SIZE_MAX when j has none).
 * Never fails: without a solution in the budget, the greedy choice. */
void window_solve (const ms_bid_t *bids, size_t nbids, size_t njobs,
                   const double *cap, const double *pen, size_t nparts,
                   const ms_window_opts_t *opts, size_t *pick,
                   ms_window_stats_t *st);

#endif /* MS_WINDOW_H */
