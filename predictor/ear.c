/* ear.c - the EAR frequency projection of one (reference, target) pair
 * (doc/architecture.md "Frequency model") and the interval helpers every model
 * uses.
 *
 * The bottom of the predictor's estimates: project.c (the order of
 * fallbacks), crossarch.c, defmodel.c, fit.c and synth.c call this file;
 * it calls none of them.
 *
 * Intervals are kept as half-widths h in log space: a quantity x with
 * half-width h has the 90% interval [x*exp(-h), x*exp(h)]. For small h this
 * is x*(1 +- h); it never goes negative, and independent relative errors
 * add in quadrature (E = P*T*nodes: h_E^2 = h_P^2 + h_T^2).
 */
#include "config.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

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
double
pred_sig_rel_se (double sd, double x, int n)
{
    if (!(sd > 0) || n <= 0)
        return 0;
    return 1.2533 * sd / sqrt ((double)n) / x;
}


/* EAR projection, doc/architecture.md "Frequency model", from the nominal
 * signature to frequency index fi:
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
    st = 1.6448536269514722 * pred_sig_rel_se (sig->runtime_sd, sig->runtime_s, sig->nruns);
    sp = 1.6448536269514722 * q->cp[1] * pred_sig_rel_se (sig->power_sd, sig->power_w, sig->nruns)
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
