/* speedup.c - Amdahl's law fitted to an app's runs at several node counts
 * (speedup.h; doc/predictor.md "Moldable jobs").
 *
 * Why Amdahl and not Downey: Downey's model (A, sigma) is piecewise and
 * non-linear in its parameters and needs runs well past the knee of the
 * speedup curve to identify sigma; sites run a moldable app at a few
 * nearby node counts. Amdahl's T(n) = a + b/n is linear in (a, b), so the
 * fit is weighted least squares (gsl_fit_wlinear) with a closed-form
 * covariance, two node counts suffice, and the prediction interval follows
 * from that covariance and the residuals. Within the ranges users give
 * (-N 2-8) the two models differ less than the runs' own noise.
 */
#include "config.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdlib.h>

#include "predictor/speedup.h"

#define SPEEDUP_Q 0.975 /* two-sided 95% */

/* One-parameter weighted least squares through the origin, y = c x, with
 * its variance: the fit when the other part is 0. */
static void
fit_one (const double *x, const double *w, const double *y, size_t n,
         double *c, double *var, double *s2)
{
    double sxx = 0, sxy = 0, rss = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += w[i] * x[i] * x[i];
        sxy += w[i] * x[i] * y[i];
    }
    *c = sxy / sxx;
    for (size_t i = 0; i < n; i++)
        rss += w[i] * (y[i] - *c * x[i]) * (y[i] - *c * x[i]);
    *s2 = n > 1 ? rss / (double)(n - 1) : 0;
    *var = *s2 / sxx;
}

int
speedup_fit (const int *nodes, const double *seconds, size_t n,
             ms_speedup_t *out, ms_error_t *errp)
{
    double *x, *y, *w, *one, chisq = 0;
    int nmin = 0, nmax = 0;

    if (n < 2)
        return ms_err (errp, MS_ERR_INPUT,
                       "speedup: %zu run%s; the fit needs runs at two node "
                       "counts at least",
                       n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        if (nodes[i] < 1)
            return ms_err (errp, MS_ERR_INPUT, "speedup: run %zu: %d nodes",
                           i + 1, nodes[i]);
        if (!(seconds[i] > 0) || !isfinite (seconds[i]))
            return ms_err (errp, MS_ERR_INPUT,
                           "speedup: run %zu: runtime %g s is not positive",
                           i + 1, seconds[i]);
        if (!nmin || nodes[i] < nmin)
            nmin = nodes[i];
        if (nodes[i] > nmax)
            nmax = nodes[i];
    }
    if (nmin == nmax)
        return ms_err (errp, MS_ERR_INPUT,
                       "speedup: every run is on %d node%s; the fit needs two "
                       "node counts at least",
                       nmin, nmin == 1 ? "" : "s");
    x = malloc (n * sizeof (double));
    y = malloc (n * sizeof (double));
    w = malloc (n * sizeof (double));
    one = malloc (n * sizeof (double));
    if (!x || !y || !w || !one) {
        free (x);
        free (y);
        free (w);
        free (one);
        return ms_err (errp, MS_ERR_SYSTEM, "speedup: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0 / nodes[i];
        y[i] = seconds[i];
        /* a run's spread grows with its length (relative noise): weigh
         * each by 1 / T^2 */
        w[i] = 1.0 / (seconds[i] * seconds[i]);
        one[i] = 1.0;
    }
    gsl_fit_wlinear (x, 1, w, 1, y, 1, n, &out->a, &out->b, &out->cov00,
                     &out->cov01, &out->cov11, &chisq);
    /* the weights are relative: scale the covariance by the residuals'
     * variance (GSL's assumes weights of 1 / sigma^2 exactly) */
    out->sigma2 = n > 2 ? chisq / (double)(n - 2) : 0;
    out->cov00 *= out->sigma2;
    out->cov01 *= out->sigma2;
    out->cov11 *= out->sigma2;
    if (out->b < 0) {
        /* no gain from nodes: all serial */
        out->b = 0;
        fit_one (one, w, y, n, &out->a, &out->cov00, &out->sigma2);
        out->cov01 = out->cov11 = 0;
    } else if (out->a < 0) {
        /* better than linear (cache effects): all parallel */
        out->a = 0;
        fit_one (x, w, y, n, &out->b, &out->cov11, &out->sigma2);
        out->cov00 = out->cov01 = 0;
    }
    out->nruns = n;
    out->nmin = nmin;
    out->nmax = nmax;
    free (x);
    free (y);
    free (w);
    free (one);
    return 0;
}

double
speedup_time (const ms_speedup_t *sp, int n, double *lo, double *hi)
{
    double x = 1.0 / (n > 0 ? n : 1);
    double t = sp->a + sp->b * x;
    /* the fit's variance at n plus a run's own (relative: sigma2 t^2) */
    double var = sp->cov00 + 2 * x * sp->cov01 + x * x * sp->cov11
                 + sp->sigma2 * t * t;
    double dof = sp->nruns > 2 ? (double)(sp->nruns - 2) : 1;
    double half = var > 0 ? gsl_cdf_tdist_Pinv (SPEEDUP_Q, dof) * sqrt (var) : 0;

    if (lo)
        *lo = t - half > 0 ? t - half : 0;
    if (hi)
        *hi = t + half;
    return t;
}

double
speedup_serial (const ms_speedup_t *sp)
{
    return sp->a + sp->b > 0 ? sp->a / (sp->a + sp->b) : 1;
}

int
speedup_choose (const ms_speedup_t *sp, int nmin, int nmax,
                double power_per_node, double w_e,
                double (*wait) (int nodes, void *arg), void *arg)
{
    double t0, e0, r0, best = INFINITY;
    int bestn = nmin;

    if (nmin < 1)
        nmin = 1;
    if (!sp || nmax <= nmin)
        return nmin;
    t0 = speedup_time (sp, nmin, NULL, NULL);
    e0 = nmin * t0 * power_per_node;
    r0 = (wait ? wait (nmin, arg) : 0) + t0;
    for (int n = nmin; n <= nmax; n++) {
        double t = speedup_time (sp, n, NULL, NULL);
        double e = n * t * power_per_node;
        double r = (wait ? wait (n, arg) : 0) + t;
        double c = w_e * (e0 > 0 ? e / e0 : 1)
                   + (1 - w_e) * (r0 > 0 ? r / r0 : 1);
        if (c < best - 1e-12) {
            best = c;
            bestn = n;
        }
    }
    return bestn;
}
