/* project.c - T, P and E of an app on an architecture at a frequency: the
 * EAR frequency projection (DESIGN.md 4.1) and the order of fallbacks
 * behind predictor_estimate.
 *
 * Intervals are kept as half-widths h in log space: a quantity x with
 * half-width h has the 90% interval [x*exp(-h), x*exp(h)]. For small h this
 * is x*(1 +- h); it never goes negative, and independent relative errors
 * add in quadrature (E = P*T*nodes: h_E^2 = h_P^2 + h_T^2).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

/* 0.95 quantile of Student's t with dof degrees of freedom (normal for
 * dof <= 0, i.e. an unknown count). */
double
pred_tq (double dof)
{
    if (!(dof > 0))
        return 1.6448536269514722;
    return gsl_cdf_tdist_Pinv (PRED_Q, dof);
}

void
pred_interval (double x, double h, double *lo, double *hi)
{
    double e = exp (h);
    *lo = x / e;
    *hi = x * e;
}

/* Standard error (relative) of a signature's median of n runs: 1.2533 is
 * the efficiency factor of a median against a mean for normal data. */
static double
sig_rel_se (double sd, double x, int n)
{
    if (!(sd > 0) || n <= 0)
        return 0;
    return 1.2533 * sd / sqrt ((double)n) / x;
}


/* EAR projection, DESIGN.md 4.1, from the nominal signature to frequency
 * index fi:
 *   P(f)   = A*P(nom) + B*TPI(nom) + C
 *   CPI(f) = D*CPI(nom) + E*TPI(nom) + F
 *   T(f)   = T(nom) * CPI(f)/CPI(nom) * nom/f
 * Always from the nominal signature, never from an earlier projection (EAR
 * compounded its slowdown that way). Returns -1 when the pair has no data or
 * the result is not physical (P or CPI <= 0). ht, hp: log half-widths. */
int
pred_project_pair (const pred_arch_t *a, size_t fi, const pred_signature_t *sig,
                   double *t, double *ht, double *pw, double *hp)
{
    const pred_pair_t *q;
    double f_nom = a->freqs[a->nom], f = a->freqs[fi];
    double cpi, P, T, st, sp;

    if (!a->pairs || !(sig->cpi > 0))
        return -1;
    q = &a->pairs[a->nom * a->nf + fi];
    if (q->state != PAIR_OK)
        return -1;
    P = q->cp[0] + q->cp[1] * sig->power_w + q->cp[2] * sig->tpi;
    cpi = q->cc[0] + q->cc[1] * sig->cpi + q->cc[2] * sig->tpi;
    if (!(P > 0) || !(cpi > 0))
        return -1;
    T = sig->runtime_s * cpi / sig->cpi * f_nom / f;
    *t = T;
    *pw = P;
    if (!ht)
        return 0;

    /* Signature's own uncertainty (its median of nruns runs). */
    st = 1.6448536269514722 * sig_rel_se (sig->runtime_sd, sig->runtime_s, sig->nruns);
    sp = 1.6448536269514722 * q->cp[1] * sig_rel_se (sig->power_sd, sig->power_w, sig->nruns)
         * sig->power_w / P;
    if (q->fitted) {
        /* Prediction interval of a new run from the fit covariance,
         * x' Cov x + s^2 (what gsl_multifit_linear_est gives plus the
         * residual variance); the time error is the residual spread of
         * log T over the fitted runs plus the coefficient part. */
        double x[3] = { 1, sig->power_w, sig->tpi }, vp = 0, vc = 0;
        double xc[3] = { 1, sig->cpi, sig->tpi };
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                vp += x[i] * q->cov_p[3 * i + j] * x[j];
                vc += xc[i] * q->cov_c[3 * i + j] * xc[j];
            }
        if (vp < 0)
            vp = 0;
        if (vc < 0)
            vc = 0;
        double mp = q->tq * sqrt (vp / (P * P) + q->sd_p * q->sd_p);
        double mt = q->tq * sqrt (vc / (cpi * cpi) + q->sd_logt * q->sd_logt);
        *hp = sqrt (mp * mp + sp * sp);
        *ht = sqrt (mt * mt + st * st);
    } else {
        /* 1.645 * PRED_LOADED_REL_SD * |log(nom/f)| / log(fmax/fmin),
         * computed when the pair was read (modelfile.c) */
        double m = q->h_loaded;
        *hp = sp > 0 ? sqrt (m * m + sp * sp) : m;
        *ht = st > 0 ? sqrt (m * m + st * st) : m;
    }
    return 0;
}

static void
fill (pred_estimate_t *out, double T, double ht, double P, double hp,
      double nodes, pred_source_t src)
{
    out->time_s = T;
    pred_interval (T, ht, &out->time_lo, &out->time_hi);
    out->power_w = P;
    pred_interval (P, hp, &out->power_lo, &out->power_hi);
    out->energy_j = P * T * nodes;
    pred_interval (out->energy_j, sqrt (ht * ht + hp * hp), &out->energy_lo,
                   &out->energy_hi);
    out->source = src;
}

int
predictor_project (const predictor_t *p, const char *arch,
                   const pred_signature_t *sig, uint32_t f_khz, double nodes,
                   pred_estimate_t *out, ms_error_t *errp)
{
    pred_arch_t *a;
    int fi;
    double T, ht, P, hp;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if ((fi = pred_freq_index (a, f_khz)) < 0)
        return ms_err (errp, MS_ERR_INPUT, "architecture '%s' has no frequency "
                       "%u kHz", arch, f_khz);
    if (!(nodes > 0) || !isfinite (nodes))
        return ms_err (errp, MS_ERR_INPUT, "node count must be positive");
    if (pred_project_pair (a, (size_t)fi, sig, &T, &ht, &P, &hp) < 0) {
        const char *why = "no data for the pair";
        if (!a->pairs)
            why = "no frequency model";
        else if (!(sig->cpi > 0))
            why = "the signature has no CPI";
        else if (a->pairs[a->nom * a->nf + fi].state == PAIR_SINGULAR)
            why = "singular fit";
        else if (a->pairs[a->nom * a->nf + fi].state == PAIR_TOO_FEW)
            why = "too few runs";
        else if (a->pairs[a->nom * a->nf + fi].state == PAIR_OK)
            why = "projection not physical (power or CPI <= 0)";
        return ms_err (errp, MS_ERR_MISSING, "'%s' %u -> %u kHz: %s", arch,
                       a->freqs[a->nom], f_khz, why);
    }
    fill (out, T, ht, P, hp, nodes, PRED_SRC_PROJECTED);
    return 0;
}

/* Signature-side half-widths at nominal frequency. */
static void
sig_at_nominal (const pred_signature_t *sig, double *ht, double *hp)
{
    *ht = 1.6448536269514722 * sig_rel_se (sig->runtime_sd, sig->runtime_s, sig->nruns);
    *hp = 1.6448536269514722 * sig_rel_se (sig->power_sd, sig->power_w, sig->nruns);
}

/* One frequency, given the signature on this arch (own or cross-arch with
 * its extra half-widths xt, xp). */
static int
estimate_at (const predictor_t *p, const pred_arch_t *a, const pred_app_t *app,
             int ai, size_t fi, const pred_signature_t *sig, double xt,
             double xp, pred_source_t own, double nodes, pred_estimate_t *out,
             ms_error_t *errp)
{
    double T, ht, P, hp;
    pred_source_t src;

    if (fi == a->nom) {
        T = sig->runtime_s;
        P = sig->power_w;
        sig_at_nominal (sig, &ht, &hp);
        src = own == PRED_SRC_CROSS_ARCH ? own : PRED_SRC_MEASURED;
    } else if (pred_project_pair (a, fi, sig, &T, &ht, &P, &hp) == 0) {
        src = own == PRED_SRC_CROSS_ARCH ? own : PRED_SRC_PROJECTED;
    } else if (pred_default_project (p, a, app, ai, fi, sig, &T, &ht, &P, &hp) == 0) {
        src = own == PRED_SRC_CROSS_ARCH ? own : PRED_SRC_DEFAULT;
    } else {
        return ms_err (errp, MS_ERR_MISSING, "app '%s' on '%s' at %u kHz: no "
                       "model gives a value", app->name, a->name, a->freqs[fi]);
    }
    ht = sqrt (ht * ht + xt * xt);
    hp = sqrt (hp * hp + xp * xp);
    fill (out, T, ht, P, hp, nodes, src);
    return 0;
}

/* Resolve the signature to project from: the app's own on this arch, or one
 * carried over from another arch by the cross-architecture model. */
static int
resolve (const predictor_t *p, const char *app, const char *arch,
         double nodes, pred_arch_t **ap, const pred_app_t **appp, int *ai,
         pred_signature_t *sig, double *xt, double *xp, pred_source_t *own,
         ms_error_t *errp)
{
    const pred_app_t *x;

    if (pred_arch_lookup (p, arch, ap, errp) < 0)
        return -1;
    if (!(nodes > 0) || !isfinite (nodes))
        return ms_err (errp, MS_ERR_INPUT, "app '%s': node count must be "
                       "positive", app ? app : "");
    *ai = (int)(*ap - p->archs);
    x = app ? pred_app_find (p, app) : NULL;
    if (!x)
        return ms_err (errp, MS_ERR_MISSING, "app '%s' has no signature on any "
                       "architecture", app ? app : "(null)");
    *appp = x;
    if (x->has[*ai]) {
        *sig = x->sig[*ai];
        *xt = *xp = 0;
        *own = PRED_SRC_MEASURED;
        return 0;
    }
    if (pred_cross_sig (p, x, *ai, NULL, sig, xt, xp, errp) < 0)
        return -1;
    *own = PRED_SRC_CROSS_ARCH;
    return 0;
}

int
predictor_estimate (const predictor_t *p, const char *app, const char *arch,
                    uint32_t f_khz, double nodes, pred_estimate_t *out,
                    ms_error_t *errp)
{
    pred_arch_t *a;
    const pred_app_t *x;
    pred_signature_t sig;
    double xt, xp;
    pred_source_t own;
    int ai, fi;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if ((fi = pred_freq_index (a, f_khz)) < 0)
        return ms_err (errp, MS_ERR_INPUT, "architecture '%s' has no frequency "
                       "%u kHz", arch, f_khz);
    if (resolve (p, app, arch, nodes, &a, &x, &ai, &sig, &xt, &xp, &own, errp) < 0)
        return -1;
    return estimate_at (p, a, x, ai, (size_t)fi, &sig, xt, xp, own, nodes, out,
                        errp);
}

int
predictor_estimate_all (const predictor_t *p, const char *app,
                        const char *arch, double nodes, pred_estimate_t *out,
                        size_t max, size_t *nout, ms_error_t *errp)
{
    pred_arch_t *a;
    const pred_app_t *x;
    pred_signature_t sig;
    double xt, xp;
    pred_source_t own;
    int ai;

    if (resolve (p, app, arch, nodes, &a, &x, &ai, &sig, &xt, &xp, &own, errp) < 0)
        return -1;
    if (max < a->nf)
        return ms_err (errp, MS_ERR_INPUT, "room for %zu estimates, '%s' has "
                       "%zu frequencies", max, arch, a->nf);
    for (size_t fi = 0; fi < a->nf; fi++)
        if (estimate_at (p, a, x, ai, fi, &sig, xt, xp, own, nodes, &out[fi],
                         errp) < 0)
            return -1;
    *nout = a->nf;
    return 0;
}
