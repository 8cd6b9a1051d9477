/* speedup.h - how an app's runtime changes with its node count, for
 * moldable jobs (msbatch -N MIN-MAX): Amdahl's law fitted to the app's
 * runs at several node counts (doc/predictor.md, "Moldable jobs").
 *
 *   T(n) = a + b / n,   a = T1 s (the serial part), b = T1 (1 - s)
 *
 * is linear in (a, b) over x = 1/n, so weighted least squares (GSL's
 * gsl_fit_wlinear, weights 1 / T^2: a run's spread grows with its length)
 * fits it with the covariance of (a, b), which gives the interval of a
 * prediction at any n.
 */
#ifndef MS_SPEEDUP_H
#define MS_SPEEDUP_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/common/error.h"

typedef struct {
    double a, b;               /* T(n) = a + b / n, seconds; a, b >= 0 */
    double cov00, cov01, cov11; /* covariance of (a, b) */
    double sigma2;             /* relative residual variance (s^2) */
    size_t nruns;              /* runs fitted */
    int nmin, nmax;            /* the node counts they span */
} ms_speedup_t;

/* Fit T(n) to runs (nodes[i], seconds[i]), i < n. Needs two distinct node
 * counts and positive times; errp names the run at fault. A fit whose
 * serial or parallel part comes out negative is refitted with that part 0
 * (a job that cannot be faster on fewer nodes, or slower on more, under
 * Amdahl's law). */
int speedup_fit (const int *nodes, const double *seconds, size_t n,
                 ms_speedup_t *out, ms_error_t *errp);

/* Predicted runtime on n nodes with its 95% prediction interval (lo, hi;
 * either may be NULL). */
double speedup_time (const ms_speedup_t *sp, int n, double *lo, double *hi);

/* The serial fraction s = a / (a + b) (0 to 1). */
double speedup_serial (const ms_speedup_t *sp);

/* The node count in [nmin, nmax] that minimises
 *   w_e * E(n) / E(nmin) + (1 - w_e) * (wait(n) + T(n)) / (wait(nmin) + T(nmin))
 * with E(n) = n * T(n) * power_per_node (idle included: a node held by the
 * job draws at least its idle power); wait may be NULL (no wait). With sp
 * NULL (no history) the answer is nmin. */
int speedup_choose (const ms_speedup_t *sp, int nmin, int nmax,
                    double power_per_node, double w_e,
                    double (*wait) (int nodes, void *arg), void *arg);

#endif /* MS_SPEEDUP_H */
