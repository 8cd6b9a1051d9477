/* fit.c - the EAR frequency model fitted with GSL from learning runs (the
 * same apps run at several frequencies), doc/architecture.md "Frequency model".
 *
 * For each pair (ref, f) of an arch the design has one row per run at f of
 * every app that also ran at ref:
 *   power: [1, P_ref, TPI_ref]   -> P_f      (coefficients C, A, B)
 *   time:  [1, CPI_ref, TPI_ref] -> CPI_f    (coefficients F, D, E)
 * where the _ref side is the app's mean over its runs at ref. Measurement
 * noise is multiplicative (a 5% spread is 5 W on one app and 25 W on
 * another), so residuals are weighted relative to the app's level, 1/y^2:
 * otherwise the large-CPI apps own the intercept and low-CPI apps get
 * projected 8% off. All runs of one app at f share their design row, so the
 * weighted least-squares fit over the runs equals a weighted fit over the
 * apps (weight = runs at f / mean^2, y = their mean): identical
 * coefficients, and the residual sum of squares is the weighted one plus the
 * within-app scatter. That is what OLS mode computes
 * (gsl_multifit_wlinear_tsvd, which also reports a rank-deficient, i.e.
 * singular, design); it keeps a million runs to all pairs well inside a
 * second. ROBUST mode fits the runs one by one with gsl_multifit_robust
 * (bisquare weights) on rows scaled by 1/y, for histories with outliers.
 *
 * Kept per pair: n (runs), distinct apps, R^2, relative residual sd of P and CPI,
 * the residual sd of log T (the time model's real error, which includes
 * runtime noise that CPI does not see), and the coefficient covariance for
 * prediction intervals. A pair needs 3 distinct apps and 4 runs; otherwise,
 * or when singular, it is marked and projections through it say so.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

/* Sums over the runs of one (app, frequency) of one arch. */
typedef struct {
    size_t n;
    double p, c, tpi, t;            /* means */
    double m2p, m2c;                /* sums of squared deviations (Welford) */
    double slt, sslt;               /* sum of log T, of (log T)^2 */
    size_t first, last;             /* run index range in the sorted order */
} group_t;

typedef struct {
    uintptr_t app;
    uint32_t arch, fi;
    size_t idx;
} key_t_;

static int
cmp_key (const void *x, const void *y)
{
    const key_t_ *a = x, *b = y;
    if (a->arch != b->arch)
        return a->arch < b->arch ? -1 : 1;
    if (a->app != b->app)
        return a->app < b->app ? -1 : 1;
    if (a->fi != b->fi)
        return a->fi < b->fi ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int
check_run (const predictor_t *p, const pred_run_t *r, size_t i, int *ai,
           int *fi, ms_error_t *errp)
{
    const char *bad = NULL;
    *ai = r->arch ? pred_arch_index (p, r->arch) : -1;
    if (*ai < 0)
        return ms_err (errp, MS_ERR_INPUT, "run %zu: unknown architecture '%s'",
                       i + 1, r->arch ? r->arch : "");
    *fi = pred_freq_index (&p->archs[*ai], r->freq_khz);
    if (*fi < 0)
        return ms_err (errp, MS_ERR_INPUT, "run %zu: architecture '%s' has no "
                       "frequency %u kHz", i + 1, r->arch, r->freq_khz);
    if (!r->app || !*r->app || strlen (r->app) >= PRED_NAME_MAX)
        return ms_err (errp, MS_ERR_INPUT, "run %zu: app name empty or longer "
                       "than %d bytes", i + 1, PRED_NAME_MAX - 1);
    if (!(isfinite (r->runtime_s) && r->runtime_s > 0))
        bad = "runtime_s";
    else if (!(isfinite (r->power_w) && r->power_w > 0))
        bad = "power_w";
    else if (!(isfinite (r->cpi) && r->cpi > 0))
        bad = "cpi";
    else if (!(isfinite (r->tpi) && r->tpi >= 0))
        bad = "tpi";
    else if (!(isfinite (r->gbs) && r->gbs >= 0))
        bad = "gbs";
    else if (!(isfinite (r->nodes) && r->nodes > 0))
        bad = "nodes";
    if (bad)
        return ms_err (errp, MS_ERR_INPUT, "run %zu (app '%s'): %s is negative, "
                       "zero or not a number", i + 1, r->app, bad);
    return 0;
}

static void
group_add (group_t *g, const pred_run_t *r)
{
    double d, lt = log (r->runtime_s);
    g->n++;
    d = r->power_w - g->p;
    g->p += d / (double)g->n;
    g->m2p += d * (r->power_w - g->p);
    d = r->cpi - g->c;
    g->c += d / (double)g->n;
    g->m2c += d * (r->cpi - g->c);
    g->tpi += (r->tpi - g->tpi) / (double)g->n;
    g->t += (r->runtime_s - g->t) / (double)g->n;
    g->slt += lt;
    g->sslt += lt * lt;
}

typedef struct {
    gsl_matrix *X;
    gsl_vector *y, *w, *c, *r;
    gsl_matrix *cov;
    size_t n;
} fitbuf_t;

static void
fitbuf_free (fitbuf_t *b)
{
    if (b->X) {
        gsl_matrix_free (b->X);
        gsl_vector_free (b->y);
        gsl_vector_free (b->w);
        gsl_vector_free (b->r);
    }
    memset (b, 0, sizeof (*b));
}

static void
fitbuf_size (fitbuf_t *b, size_t n)
{
    if (b->n == n)
        return;
    fitbuf_free (b);
    b->X = gsl_matrix_alloc (n, 3);
    b->y = gsl_vector_alloc (n);
    b->w = gsl_vector_alloc (n);
    b->r = gsl_vector_alloc (n);
    b->n = n;
}

/* Weighted fit over apps (OLS over runs). m = number of app rows; gi/gf:
 * the groups at ref and f of each app; which 0 = power, 1 = CPI. */
static int
fit_agg (group_t *const *gr, group_t *const *gf, size_t m, int which,
         double cf[3], double cov[9], double *sd, double *r2, double *tq,
         size_t *nruns)
{
    fitbuf_t b = { 0 };
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc (m, 3);
    gsl_vector *c = gsl_vector_alloc (3);
    gsl_matrix *cv = gsl_matrix_alloc (3, 3);
    double chisq = 0, within = 0, sum = 0, sumsq = 0;
    size_t rank = 0, n = 0;
    int rc = PAIR_OK;

    fitbuf_size (&b, m);
    for (size_t i = 0; i < m; i++) {
        double yi = which ? gf[i]->c : gf[i]->p;
        double m2 = which ? gf[i]->m2c : gf[i]->m2p;
        double ni = (double)gf[i]->n, wi = ni / (yi * yi);
        gsl_matrix_set (b.X, i, 0, 1);
        gsl_matrix_set (b.X, i, 1, which ? gr[i]->c : gr[i]->p);
        gsl_matrix_set (b.X, i, 2, gr[i]->tpi);
        gsl_vector_set (b.y, i, yi);
        gsl_vector_set (b.w, i, wi);
        within += m2 / (yi * yi);
        sum += wi * yi;
        sumsq += wi;
        n += gf[i]->n;
    }
    *nruns = n;
    gsl_multifit_wlinear_tsvd (b.X, b.w, b.y, 1e-10, c, cv, &chisq, &rank, ws);
    if (rank < 3) {
        rc = PAIR_SINGULAR;
        goto out;
    }
    {
        double rss = chisq + within, dof = (double)n - 3;
        double mu = sum / sumsq, tss = within;
        double s2 = rss / dof;
        for (size_t i = 0; i < m; i++) {
            double yi = gsl_vector_get (b.y, i);
            tss += gsl_vector_get (b.w, i) * (yi - mu) * (yi - mu);
        }
        for (int i = 0; i < 3; i++) {
            cf[i] = gsl_vector_get (c, i);
            for (int j = 0; j < 3; j++)
                cov[3 * i + j] = s2 * gsl_matrix_get (cv, i, j);
        }
        *sd = sqrt (s2);
        *r2 = tss > 0 ? 1 - rss / tss : 1;
        *tq = pred_tq (dof);
    }
out:
    fitbuf_free (&b);
    gsl_vector_free (c);
    gsl_matrix_free (cv);
    gsl_multifit_linear_free (ws);
    return rc;
}

/* Robust fit over the individual runs. */
static int
fit_robust (group_t *const *gr, group_t *const *gf, size_t m, int which,
            const pred_run_t *runs, const key_t_ *k, double cf[3],
            double cov[9], double *sd, double *r2, double *tq, size_t *nruns)
{
    size_t n = 0, row = 0;
    gsl_matrix *X, *cv;
    gsl_vector *y, *c;
    gsl_multifit_robust_workspace *ws;
    int rc = PAIR_OK;

    for (size_t i = 0; i < m; i++)
        n += gf[i]->n;
    *nruns = n;
    X = gsl_matrix_alloc (n, 3);
    y = gsl_vector_alloc (n);
    c = gsl_vector_alloc (3);
    cv = gsl_matrix_alloc (3, 3);
    ws = gsl_multifit_robust_alloc (gsl_multifit_robust_bisquare, n, 3);
    for (size_t i = 0; i < m; i++)
        for (size_t j = gf[i]->first; j <= gf[i]->last; j++, row++) {
            const pred_run_t *r = &runs[k[j].idx];
            double sc = 1 / (which ? gf[i]->c : gf[i]->p);
            gsl_matrix_set (X, row, 0, sc);
            gsl_matrix_set (X, row, 1, sc * (which ? gr[i]->c : gr[i]->p));
            gsl_matrix_set (X, row, 2, sc * gr[i]->tpi);
            gsl_vector_set (y, row, sc * (which ? r->cpi : r->power_w));
        }
    /* the caller has checked the rank on the aggregated design; a robust
     * fit that does not converge still returns its last iterate */
    gsl_multifit_robust (X, y, c, cv, ws);
    {
        gsl_multifit_robust_stats st = gsl_multifit_robust_statistics (ws);
        double sw = 0, swy = 0, rss = 0, tss = 0, mu;
        for (int i = 0; i < 3; i++) {
            cf[i] = gsl_vector_get (c, i);
            for (int j = 0; j < 3; j++)
                cov[3 * i + j] = gsl_matrix_get (cv, i, j);
        }
        *sd = st.sigma;
        /* GSL's Rsq is taken around the mean of the scaled y, which is
         * about 1 for every row, so it says nothing. R^2 here is the one
         * of OLS mode (relative residuals, total sum of squares around the
         * 1/y^2-weighted mean), over the runs the bisquare weights keep,
         * each counted with its final weight. Row i of X is scaled by
         * sc_i = X[i][0], so y_i = y[i] / sc_i and its weight sc_i^2. */
        for (size_t i = 0; i < n; i++) {
            double wi = gsl_vector_get (st.weights, i);
            double sc = gsl_matrix_get (X, i, 0), yi = gsl_vector_get (y, i) / sc;
            sw += wi * sc * sc;
            swy += wi * sc * sc * yi;
        }
        mu = sw > 0 ? swy / sw : 0;
        for (size_t i = 0; i < n; i++) {
            double wi = gsl_vector_get (st.weights, i);
            double sc = gsl_matrix_get (X, i, 0), ys = gsl_vector_get (y, i);
            double fit = cf[0] * sc + cf[1] * gsl_matrix_get (X, i, 1)
                         + cf[2] * gsl_matrix_get (X, i, 2);
            rss += wi * (ys - fit) * (ys - fit);
            tss += wi * (ys - mu * sc) * (ys - mu * sc);
        }
        *r2 = tss > 0 ? 1 - rss / tss : 1;
        *tq = pred_tq ((double)n - 3);
    }
    gsl_multifit_robust_free (ws);
    gsl_matrix_free (X);
    gsl_matrix_free (cv);
    gsl_vector_free (y);
    gsl_vector_free (c);
    return rc;
}

/* Residual sd of log T for the pair, T predicted from the app's ref means. */
static double
logt_sd (group_t *const *gr, group_t *const *gf, size_t m, const double cc[3],
         double ref, double f, size_t n)
{
    double ss = 0;
    for (size_t i = 0; i < m; i++) {
        double cpi = cc[0] + cc[1] * gr[i]->c + cc[2] * gr[i]->tpi;
        double lp;
        if (!(cpi > 0))
            return NAN;
        lp = log (gr[i]->t * cpi / gr[i]->c * ref / f);
        ss += gf[i]->sslt - 2 * lp * gf[i]->slt + (double)gf[i]->n * lp * lp;
    }
    return sqrt ((ss > 0 ? ss : 0) / ((double)n - 3));
}

static void
fit_arch (pred_arch_t *a, group_t *g, size_t ng, const pred_run_t *runs,
          const key_t_ *k, pred_fitmode_t mode)
{
    size_t nf = a->nf, napps = 0;
    /* grid[app * nf + fi]: the group, or NULL */
    group_t **grid;
    group_t **gr, **gf;
    pred_pair_t *pairs = ms_xcalloc (nf * nf, sizeof (pred_pair_t));

    for (size_t i = 0; i < ng; i++)
        if (i == 0 || k[g[i].first].app != k[g[i - 1].first].app)
            napps++;
    grid = ms_xcalloc (napps * nf, sizeof (*grid));
    gr = ms_xmalloc (napps * sizeof (*gr));
    gf = ms_xmalloc (napps * sizeof (*gf));
    for (size_t i = 0, ap = 0; i < ng; i++) {
        if (i && k[g[i].first].app != k[g[i - 1].first].app)
            ap++;
        grid[ap * nf + k[g[i].first].fi] = &g[i];
    }
    for (size_t ri = 0; ri < nf; ri++)
        for (size_t fi = 0; fi < nf; fi++) {
            pred_pair_t *q = &pairs[ri * nf + fi];
            size_t m = 0, n = 0, n2;
            if (ri == fi) { /* the diagonal is the identity */
                q->state = PAIR_OK;
                q->cp[1] = q->cc[1] = 1;
                continue;
            }
            for (size_t ap = 0; ap < napps; ap++)
                if (grid[ap * nf + ri] && grid[ap * nf + fi]) {
                    gr[m] = grid[ap * nf + ri];
                    gf[m] = grid[ap * nf + fi];
                    n += gf[m]->n;
                    m++;
                }
            q->apps = m;
            q->n = n;
            if (m == 0) {
                q->state = PAIR_NO_DATA;
                continue;
            }
            if (m < 3 || n < 4) {
                q->state = PAIR_TOO_FEW;
                continue;
            }
            q->state = fit_agg (gr, gf, m, 0, q->cp, q->cov_p, &q->sd_p,
                                &q->r2_p, &q->tq, &n2);
            if (q->state == PAIR_OK)
                q->state = fit_agg (gr, gf, m, 1, q->cc, q->cov_c, &q->sd_c,
                                    &q->r2_c, &q->tq, &n2);
            if (q->state == PAIR_OK && mode == PRED_FIT_ROBUST) {
                q->state = fit_robust (gr, gf, m, 0, runs, k, q->cp, q->cov_p,
                                       &q->sd_p, &q->r2_p, &q->tq, &n2);
                if (q->state == PAIR_OK)
                    q->state = fit_robust (gr, gf, m, 1, runs, k, q->cc, q->cov_c,
                                           &q->sd_c, &q->r2_c, &q->tq, &n2);
            }
            if (q->state != PAIR_OK)
                continue;
            q->sd_logt = logt_sd (gr, gf, m, q->cc, a->freqs[ri], a->freqs[fi], n);
            if (!isfinite (q->sd_logt))
                q->state = PAIR_SINGULAR; /* the fit predicts CPI <= 0 */
            else
                q->fitted = 1;
        }
    free (a->pairs);
    a->pairs = pairs;
    free (grid);
    free (gr);
    free (gf);
}

int
predictor_fit (predictor_t *p, const pred_run_t *runs, size_t nruns,
               pred_fitmode_t mode, ms_error_t *errp)
{
    key_t_ *k;
    group_t *g;
    size_t ng = 0;
    gsl_error_handler_t *old;

    if (nruns == 0)
        return ms_err (errp, MS_ERR_INPUT, "no runs to fit");
    k = ms_xmalloc (nruns * sizeof (*k));
    for (size_t i = 0; i < nruns; i++) {
        int ai = -1, fi = -1;
        if (check_run (p, &runs[i], i, &ai, &fi, errp) < 0) {
            free (k);
            return -1;
        }
        k[i].arch = (uint32_t)ai;
        k[i].fi = (uint32_t)fi;
        k[i].idx = i;
    }
    /* Apps are interned after validation, so a bad file adds nothing. */
    for (size_t i = 0; i < nruns; i++)
        k[i].app = (uintptr_t)pred_app_get (p, runs[i].app);
    qsort (k, nruns, sizeof (*k), cmp_key);

    g = ms_xcalloc (nruns, sizeof (*g));
    for (size_t i = 0; i < nruns; i++) {
        if (i == 0 || k[i].arch != k[i - 1].arch || k[i].app != k[i - 1].app
            || k[i].fi != k[i - 1].fi) {
            g[ng].first = i;
            ng++;
        }
        g[ng - 1].last = i;
        group_add (&g[ng - 1], &runs[k[i].idx]);
    }
    old = gsl_set_error_handler_off ();
    for (size_t s = 0, e; s < ng; s = e) {
        for (e = s; e < ng && k[g[e].first].arch == k[g[s].first].arch; e++)
            ;
        fit_arch (&p->archs[k[g[s].first].arch], &g[s], e - s, runs, k, mode);
    }
    gsl_set_error_handler (old);
    free (g);
    free (k);
    return 0;
}
