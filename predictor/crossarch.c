/* crossarch.c - the cross-architecture model, doc/architecture.md "Across
 * architectures".
 *
 * An app measured on arch a but never on b gets its nominal T and P on b
 * from a regression, over the apps seen on both, of
 *     log(T_b/T_a) and log(P_b/P_a)  on  [1, g(CPI_a), g(TPI_a), g(GB/s_a)]
 * with g(x) = log(x + x0) (see XFORM below) and regressors standardised.
 * Logs because the ratios are multiplicative and a few extreme apps (STREAM:
 * CPI 4.5, TPI 250 against < 1 and < 25 for the rest) would otherwise own
 * the fit. Only signature fields that vary over the training apps enter,
 * and at most (napps - 3) / 2 of them, so the fit keeps enough degrees of
 * freedom for an honest interval with a handful of apps (7 apps: 2
 * regressors, 4 degrees of freedom); fewer than 2 shared apps: no model.
 * Prediction intervals come from gsl_multifit_linear_est (the fit
 * covariance at the app's regressors) plus the residual variance, with a
 * t quantile. Measured history on b always wins: predictor_estimate only
 * comes here when the app has no signature on b.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

#define Z90 1.6448536269514722

/* Regressor transform: offsets keep zero TPI / GB/s finite. */
static double
xform (int j, double v)
{
    static const double x0[3] = { 0.01, 0.01, 0.1 };
    return log (v + x0[j]);
}

static double
feat (const pred_signature_t *s, int j)
{
    return xform (j, j == 0 ? s->cpi : j == 1 ? s->tpi : s->gbs);
}

/* Fit the model a -> b over apps with signatures on both, leaving out
 * `exclude` (NULL: none). */
static int
cross_fit (const predictor_t *p, int ai, int bi, const pred_app_t *exclude,
           pred_cross_t *m)
{
    size_t n = 0;
    double sum[3] = { 0 }, sq[3] = { 0 };
    int nvar = 0, maxk;
    gsl_error_handler_t *old;

    memset (m, 0, sizeof (*m));
    for (size_t i = 0; i < p->napps; i++) {
        const pred_app_t *x = p->apps[i];
        if (x == exclude || !x->has[ai] || !x->has[bi])
            continue;
        for (int j = 0; j < 3; j++) {
            double v = feat (&x->sig[ai], j);
            sum[j] += v;
            sq[j] += v * v;
        }
        n++;
    }
    m->napps = n;
    if (n < 2) {
        m->state = -1;
        return -1;
    }
    for (int j = 0; j < 3; j++) {
        double mean = sum[j] / (double)n;
        double var = sq[j] / (double)n - mean * mean;
        m->mean[j] = mean;
        m->scale[j] = var > 1e-12 ? sqrt (var) : 0;
    }
    maxk = n >= 3 ? (int)(n - 3) / 2 : 0;
    for (int j = 0; j < 3; j++)
        if (m->scale[j] > 0 && nvar < maxk) {
            m->use[j] = 1;
            nvar++;
        }

    old = gsl_set_error_handler_off ();
    for (;;) {
        size_t np = 1 + (size_t)nvar, row = 0, rank = 0;
        gsl_matrix *X = gsl_matrix_alloc (n, np), *cov = gsl_matrix_alloc (np, np);
        gsl_vector *yt = gsl_vector_alloc (n), *yp = gsl_vector_alloc (n);
        gsl_vector *c = gsl_vector_alloc (np);
        gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc (n, np);
        double chisq, tss;
        int ok = 1;

        for (size_t i = 0; i < p->napps; i++) {
            const pred_app_t *x = p->apps[i];
            size_t col = 1;
            if (x == exclude || !x->has[ai] || !x->has[bi])
                continue;
            gsl_matrix_set (X, row, 0, 1);
            for (int j = 0; j < 3; j++)
                if (m->use[j])
                    gsl_matrix_set (X, row, col++,
                                    (feat (&x->sig[ai], j) - m->mean[j]) / m->scale[j]);
            gsl_vector_set (yt, row, log (x->sig[bi].runtime_s / x->sig[ai].runtime_s));
            gsl_vector_set (yp, row, log (x->sig[bi].power_w / x->sig[ai].power_w));
            row++;
        }
        m->np = np;
        for (int which = 0; which < 2 && ok; which++) {
            gsl_vector *y = which ? yp : yt;
            double mean = 0, *b = which ? m->bp : m->bt, *cv = which ? m->cov_p : m->cov_t;
            if (n > np) {
                gsl_multifit_linear_tsvd (X, y, 1e-10, c, cov, &chisq, &rank, ws);
                if (rank < np) {
                    ok = 0;
                    break;
                }
            } else { /* n == np == 1 cannot happen (n >= 2); n == np: exact */
                ok = 0;
                break;
            }
            for (size_t i = 0; i < n; i++)
                mean += gsl_vector_get (y, i) / (double)n;
            tss = 0;
            for (size_t i = 0; i < n; i++)
                tss += (gsl_vector_get (y, i) - mean) * (gsl_vector_get (y, i) - mean);
            for (size_t i = 0; i < np; i++) {
                b[i] = gsl_vector_get (c, i);
                for (size_t j = 0; j < np; j++)
                    cv[i * np + j] = gsl_matrix_get (cov, i, j);
            }
            if (which) {
                m->sd_p = sqrt (chisq / (double)(n - np));
                m->r2_p = tss > 0 ? 1 - chisq / tss : 1;
            } else {
                m->sd_t = sqrt (chisq / (double)(n - np));
                m->r2_t = tss > 0 ? 1 - chisq / tss : 1;
            }
        }
        gsl_matrix_free (X);
        gsl_matrix_free (cov);
        gsl_vector_free (yt);
        gsl_vector_free (yp);
        gsl_vector_free (c);
        gsl_multifit_linear_free (ws);
        if (ok)
            break;
        /* singular: drop the last regressor and refit */
        for (int j = 2; j >= 0; j--)
            if (m->use[j]) {
                m->use[j] = 0;
                break;
            }
        if (nvar == 0) {
            gsl_set_error_handler (old);
            m->state = -1;
            return -1;
        }
        nvar--;
    }
    gsl_set_error_handler (old);
    m->tq = pred_tq ((double)(n - m->np));
    m->state = 1;
    return 0;
}

static const pred_cross_t *
cached (const predictor_t *p, int ai, int bi)
{
    pred_cache_t *c = p->cache;
    pred_cross_t *m;

    if (!c) {
        /* The cache is the one mutable part of a const predictor: fitted on
         * first use, refitted when signatures change (version). */
        c = ms_xcalloc (1, sizeof (*c));
        ((predictor_t *)p)->cache = c;
        c->version = p->version;
    }
    if (c->version != p->version) {
        memset (c->m, 0, sizeof (c->m));
        c->version = p->version;
    }
    m = &c->m[ai * PRED_MAX_ARCHS + bi];
    if (m->state == 0)
        cross_fit (p, ai, bi, NULL, m);
    return m;
}

/* Predicted nominal signature on b from the signature on a; hs = the
 * signature's own relative half-widths are folded into ht, hp. */
static void
cross_apply (const pred_cross_t *m, const pred_signature_t *sa,
             pred_signature_t *sb, double *ht, double *hp)
{
    gsl_vector_view xv, bv;
    gsl_matrix_view cv;
    double x[4] = { 1, 0, 0, 0 }, yt, yp, et, ep;
    size_t col = 1;

    for (int j = 0; j < 3; j++)
        if (m->use[j])
            x[col++] = (feat (sa, j) - m->mean[j]) / m->scale[j];
    xv = gsl_vector_view_array (x, m->np);
    bv = gsl_vector_view_array ((double *)m->bt, m->np);
    cv = gsl_matrix_view_array ((double *)m->cov_t, m->np, m->np);
    gsl_multifit_linear_est (&xv.vector, &bv.vector, &cv.matrix, &yt, &et);
    bv = gsl_vector_view_array ((double *)m->bp, m->np);
    cv = gsl_matrix_view_array ((double *)m->cov_p, m->np, m->np);
    gsl_multifit_linear_est (&xv.vector, &bv.vector, &cv.matrix, &yp, &ep);

    *sb = *sa;
    sb->runtime_s = sa->runtime_s * exp (yt);
    sb->power_w = sa->power_w * exp (yp);
    sb->runtime_sd = sb->power_sd = 0;
    sb->nruns = 0;
    *ht = m->tq * sqrt (et * et + m->sd_t * m->sd_t);
    *hp = m->tq * sqrt (ep * ep + m->sd_p * m->sd_p);
    if (sa->nruns > 0) {
        double st = Z90 * 1.2533 * sa->runtime_sd / sqrt (sa->nruns) / sa->runtime_s;
        double sp = Z90 * 1.2533 * sa->power_sd / sqrt (sa->nruns) / sa->power_w;
        *ht = sqrt (*ht * *ht + st * st);
        *hp = sqrt (*hp * *hp + sp * sp);
    }
}

int
pred_cross_sig (const predictor_t *p, const pred_app_t *app, int bi,
                int *ai_out, pred_signature_t *sig, double *ht, double *hp,
                ms_error_t *errp)
{
    const pred_cross_t *best = NULL;
    int besta = -1, seen = 0;

    for (size_t ai = 0; ai < p->narchs; ai++) {
        const pred_cross_t *m;
        if (!app->has[ai] || (int)ai == bi)
            continue;
        seen = 1;
        m = cached (p, (int)ai, bi);
        if (m->state != 1)
            continue;
        if (!best || m->napps > best->napps
            || (m->napps == best->napps && m->sd_t < best->sd_t)) {
            best = m;
            besta = (int)ai;
        }
    }
    if (!seen)
        return ms_err (errp, MS_ERR_MISSING, "app '%s' has no signature on any "
                       "architecture", app->name);
    if (!best)
        return ms_err (errp, MS_ERR_MISSING, "app '%s' has no signature on '%s' "
                       "and fewer than 2 apps are shared with an architecture "
                       "where it ran", app->name, p->archs[bi].name);
    cross_apply (best, &app->sig[besta], sig, ht, hp);
    if (ai_out)
        *ai_out = besta;
    return 0;
}

int
predictor_cross_stat (const predictor_t *p, const char *arch_a,
                      const char *arch_b, pred_crossstat_t *st,
                      ms_error_t *errp)
{
    pred_arch_t *a, *b;
    const pred_cross_t *m;

    if (pred_arch_lookup (p, arch_a, &a, errp) < 0
        || pred_arch_lookup (p, arch_b, &b, errp) < 0)
        return -1;
    m = cached (p, (int)(a - p->archs), (int)(b - p->archs));
    memset (st, 0, sizeof (*st));
    st->napps = m->napps;
    if (m->state != 1)
        return ms_err (errp, MS_ERR_MISSING, "'%s' -> '%s': %zu apps seen on "
                       "both, need 2", arch_a, arch_b, m->napps);
    st->nparams = m->np;
    st->r2_time = m->r2_t;
    st->r2_power = m->r2_p;
    st->sd_time = m->sd_t;
    st->sd_power = m->sd_p;
    return 0;
}

int
predictor_cross_predict (const predictor_t *p, const char *app,
                         const char *arch_a, const char *arch_b,
                         pred_estimate_t *out, ms_error_t *errp)
{
    pred_arch_t *a, *b;
    const pred_app_t *x;
    pred_cross_t m;
    pred_signature_t sb;
    double ht, hp;
    int ai, bi;

    if (pred_arch_lookup (p, arch_a, &a, errp) < 0
        || pred_arch_lookup (p, arch_b, &b, errp) < 0)
        return -1;
    ai = (int)(a - p->archs);
    bi = (int)(b - p->archs);
    x = pred_app_find (p, app);
    if (!x || !x->has[ai])
        return ms_err (errp, MS_ERR_MISSING, "app '%s' has no signature on '%s'",
                       app, arch_a);
    if (cross_fit (p, ai, bi, x, &m) < 0)
        return ms_err (errp, MS_ERR_MISSING, "'%s' -> '%s' without app '%s': "
                       "%zu apps seen on both, need 2", arch_a, arch_b, app,
                       m.napps);
    cross_apply (&m, &x->sig[ai], &sb, &ht, &hp);
    out->time_s = sb.runtime_s;
    pred_interval (sb.runtime_s, ht, &out->time_lo, &out->time_hi);
    out->power_w = sb.power_w;
    pred_interval (sb.power_w, hp, &out->power_lo, &out->power_hi);
    out->energy_j = sb.runtime_s * sb.power_w * sb.nodes;
    pred_interval (out->energy_j, sqrt (ht * ht + hp * hp), &out->energy_lo,
                   &out->energy_hi);
    out->source = PRED_SRC_CROSS_ARCH;
    return 0;
}
