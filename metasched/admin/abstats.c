/* abstats.c - a group's mean and interval, Welch's difference (abstats.h).
 */
#include "config.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

#include "metasched/admin/abstats.h"

void
abstats_group (const double *x, size_t n, abstats_group_t *g)
{
    double sum = 0, ss = 0;
    size_t m = 0;

    for (size_t i = 0; i < n; i++)
        if (isfinite (x[i])) {
            sum += x[i];
            m++;
        }
    g->n = m;
    g->mean = m ? sum / (double)m : NAN;
    g->var = g->lo = g->hi = NAN;
    if (m < 2)
        return;
    /* two passes: the squares about the mean, not about 0 */
    for (size_t i = 0; i < n; i++)
        if (isfinite (x[i]))
            ss += (x[i] - g->mean) * (x[i] - g->mean);
    g->var = ss / (double)(m - 1);
    double h = gsl_cdf_tdist_Pinv (0.975, (double)(m - 1))
               * sqrt (g->var / (double)m);
    g->lo = g->mean - h;
    g->hi = g->mean + h;
}

void
abstats_welch (const abstats_group_t *a, const abstats_group_t *b,
               abstats_diff_t *d)
{
    d->diff = a->mean - b->mean;
    d->lo = d->hi = d->df = NAN;
    d->significant = false;
    if (a->n < 2 || b->n < 2)
        return;
    double va = a->var / (double)a->n, vb = b->var / (double)b->n;
    double se2 = va + vb;
    if (se2 <= 0) {
        /* no spread in either group: the difference is what it is */
        d->lo = d->hi = d->diff;
        d->df = (double)(a->n + b->n - 2);
    } else {
        d->df = se2 * se2
                / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
        double h = gsl_cdf_tdist_Pinv (0.975, d->df) * sqrt (se2);
        d->lo = d->diff - h;
        d->hi = d->diff + h;
    }
    d->significant = a->n >= ABSTATS_MIN_JOBS && b->n >= ABSTATS_MIN_JOBS
                     && (d->lo > 0 || d->hi < 0);
}
