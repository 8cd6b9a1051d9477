/* bound.h - the static bound of a workload (doc/simulator.md, "The static
 * bound"): of every way to give each job one partition and frequency, the
 * least total job energy at a given total runtime, and the least total
 * runtime at a given total job energy, from each job's expected runtime
 * and energy at each of its candidates, with no queue and no capacity.
 *
 * It is the linear programme "minimise the sum of energies subject to the
 * sum of runtimes" over every job's candidates, whose optimum one price of
 * a second gives: each job's candidates reduce to their lower convex hull
 * in (runtime, energy), the hulls' slopes sorted from the steepest give
 * the programme's front exactly, and a target between two of its corners
 * is met by one job between two candidates. No policy whose jobs each run
 * once on one candidate does better in expectation, queue or no queue. */
#ifndef MS_BOUND_H
#define MS_BOUND_H

#include <stddef.h>

#include "metasched/core/candidates.h"

typedef struct ms_bound ms_bound_t;

ms_bound_t *bound_new (void);
void bound_free (ms_bound_t *b);

/* One job's candidates (their t and e; a job without any is left out). */
void bound_add_job (ms_bound_t *b, const ms_cands_t *cs);

/* Builds the front once every job is added; before it, the queries
 * below return NAN. */
void bound_finish (ms_bound_t *b);

/* Jobs that count (those with a candidate). */
size_t bound_njobs (const ms_bound_t *b);

/* The least total energy, J, of any choice whose total runtime is at most
 * total_t seconds; NAN when no choice is that fast. */
double bound_least_energy (const ms_bound_t *b, double total_t);

/* The least total runtime, s, of any choice whose total energy is at most
 * total_e joules; NAN when no choice uses that little. */
double bound_least_time (const ms_bound_t *b, double total_e);

/* The front's ends: every job at its fastest candidate (*t_fast, *e_fast,
 * least runtime) and at its least-energy one (*t_lean, *e_lean). */
void bound_ends (const ms_bound_t *b, double *t_fast, double *e_fast,
                 double *t_lean, double *e_lean);

#endif /* MS_BOUND_H */
