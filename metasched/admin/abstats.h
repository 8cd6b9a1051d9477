/* abstats.h - the statistics of `metasched report --ab`
 * (doc/metasched-report.1): a group's mean with its 95% confidence
 * interval (Student's t), and the difference of two groups' means with
 * its 95% interval by Welch's t (unequal variances; B. L. Welch, "The
 * generalization of Student's problem when several different population
 * variances are involved", Biometrika 34, 1947), the quantiles GSL's.
 */
#ifndef MS_ABSTATS_H
#define MS_ABSTATS_H

#include <stdbool.h>
#include <stddef.h>

/* Jobs a group needs at least before a difference is called significant. */
#define ABSTATS_MIN_JOBS 10

typedef struct {
    size_t n;
    double mean;
    double var;    /* sample variance (n - 1); NAN below 2 values */
    double lo, hi; /* the mean's 95% interval; NAN below 2 values */
} abstats_group_t;

typedef struct {
    double diff;      /* a's mean minus b's */
    double lo, hi;    /* its 95% interval; NAN when either has under 2 */
    double df;        /* Welch-Satterthwaite degrees of freedom */
    bool significant; /* both have ABSTATS_MIN_JOBS or more and the
                         interval leaves 0 out */
} abstats_diff_t;

/* The n values x (non-finite ones skipped) into g. */
void abstats_group (const double *x, size_t n, abstats_group_t *g);

/* a's mean minus b's, with Welch's interval, into d. */
void abstats_welch (const abstats_group_t *a, const abstats_group_t *b,
                    abstats_diff_t *d);

#endif
