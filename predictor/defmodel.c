/* defmodel.c - the default parametric model, for architectures (or pairs)
 * without learning runs:
 *
 *   T(f) = T(nom) * (beta * (nom/f - 1) + 1)
 *   P(f) = P(nom) * (s + (1 - s) * (f/nom)^gamma)
 *
 * beta is how much of the runtime scales with the clock (1: compute bound,
 * 0: memory bound); s the static share of node power at nominal frequency
 * (leakage, memory, fans, idle uncore), the rest dynamic, growing as
 * f*V^2, about f^2 over the DVFS range. Derivation of every constant in
 * doc/predictor.md ("Default parametric model").
 *
 * Where the arch has an EAR model but the pair nominal -> f has no data,
 * beta and s are instead calibrated on the app's own EAR projections at the
 * frequencies that have data (least squares through the nominal point), so
 * the model interpolates the projections rather than guessing.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "predictor/internal.h"

#define Z90 1.6448536269514722

static double
app_beta (const pred_arch_t *a, const pred_app_t *app, int ai, double *sd)
{
    if (app && isfinite (app->arch_beta[ai])) {
        *sd = PRED_APP_BETA_SD;
        return app->arch_beta[ai];
    }
    if (app && isfinite (app->beta)) {
        *sd = PRED_APP_BETA_SD;
        return app->beta;
    }
    *sd = PRED_DEFAULT_BETA_SD;
    return a->def_beta;
}

/* Calibrate beta and the dynamic share on the app's EAR projections. */
static int
calibrated (const pred_arch_t *a, size_t fi, const pred_signature_t *sig,
            double *t, double *ht, double *pw, double *hp)
{
    double nom = a->freqs[a->nom];
    double sxx = 0, sxy = 0, suu = 0, suv = 0, beta, dyn, et = 0, ep = 0;
    double xs[PRED_MAX_FREQS], ys[PRED_MAX_FREQS], us[PRED_MAX_FREQS],
        vs[PRED_MAX_FREQS];
    size_t k = 0;

    for (size_t j = 0; j < a->nf; j++) {
        double T, P;
        if (j == a->nom || pred_project_pair (a, j, sig, &T, NULL, &P, NULL) < 0)
            continue;
        xs[k] = nom / a->freqs[j] - 1;
        ys[k] = T / sig->runtime_s - 1;
        us[k] = pow (a->freqs[j] / nom, PRED_DEFAULT_GAMMA) - 1;
        vs[k] = P / sig->power_w - 1;
        sxx += xs[k] * xs[k];
        sxy += xs[k] * ys[k];
        suu += us[k] * us[k];
        suv += us[k] * vs[k];
        k++;
    }
    if (k < 2 || !(sxx > 0) || !(suu > 0))
        return -1;
    beta = sxy / sxx;
    dyn = suv / suu;
    for (size_t i = 0; i < k; i++) {
        double rt = log ((1 + beta * xs[i]) / (1 + ys[i]));
        double rp = log ((1 + dyn * us[i]) / (1 + vs[i]));
        et += rt * rt;
        ep += rp * rp;
    }
    {
        double x = nom / a->freqs[fi] - 1, u = pow (a->freqs[fi] / nom,
                                                    PRED_DEFAULT_GAMMA) - 1;
        double tq = pred_tq ((double)(k - 1));
        if (!(1 + beta * x > 0) || !(1 + dyn * u > 0))
            return -1;
        *t = sig->runtime_s * (1 + beta * x);
        *pw = sig->power_w * (1 + dyn * u);
        *ht = tq * sqrt (et / (double)(k - 1));
        *hp = tq * sqrt (ep / (double)(k - 1));
    }
    return 0;
}

int
pred_default_project (const predictor_t *p, const pred_arch_t *a,
                      const pred_app_t *app, int ai, size_t fi,
                      const pred_signature_t *sig, double *t, double *ht,
                      double *pw, double *hp)
{
    double nom = a->freqs[a->nom], f = a->freqs[fi];
    double beta, beta_sd, s = a->def_static, rt, g;

    (void)p;
    if (a->pairs && sig->cpi > 0 && calibrated (a, fi, sig, t, ht, pw, hp) == 0)
        return 0;

    /* Default parametric model, doc/predictor.md; beta from Table 6.1's
     * dr_df (table61.c) or the median of its 24 values. */
    beta = app_beta (a, app, ai, &beta_sd);
    rt = beta * (nom / f - 1) + 1;
    if (!(rt > 0))
        return -1;
    g = pow (f / nom, PRED_DEFAULT_GAMMA);
    *t = sig->runtime_s * rt;
    *pw = sig->power_w * (s + (1 - s) * g);
    *ht = Z90 * beta_sd * fabs (nom / f - 1) / rt;
    *hp = Z90 * PRED_DEFAULT_STATIC_SD * fabs (1 - g) / (s + (1 - s) * g);
    return 0;
}

int
predictor_set_default_model (predictor_t *p, const char *arch, double beta,
                             double static_power_share, ms_error_t *errp)
{
    pred_arch_t *a;
    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if (isnan (beta) || isnan (static_power_share))
        return ms_err (errp, MS_ERR_INPUT, "'%s': default model parameter is "
                       "not a number", arch);
    a->def_beta = beta >= 0 && isfinite (beta) ? beta : PRED_DEFAULT_BETA;
    a->def_static = static_power_share >= 0 && static_power_share < 1
                        ? static_power_share : PRED_DEFAULT_STATIC;
    return 0;
}

static int
check_beta (const char *app, double beta, ms_error_t *errp)
{
    if (!app || !*app || strlen (app) >= PRED_NAME_MAX)
        return ms_err (errp, MS_ERR_INPUT, "app name empty or too long");
    if (!isfinite (beta) || beta < 0 || beta > 10)
        return ms_err (errp, MS_ERR_INPUT, "app '%s': beta %g outside [0, 10]",
                       app, beta);
    return 0;
}

int
predictor_set_app_beta (predictor_t *p, const char *app, double beta,
                        ms_error_t *errp)
{
    if (check_beta (app, beta, errp) < 0)
        return -1;
    pred_app_get (p, app)->beta = beta;
    return 0;
}

int
predictor_set_app_arch_beta (predictor_t *p, const char *app, const char *arch,
                             double beta, ms_error_t *errp)
{
    pred_arch_t *a;
    if (pred_arch_lookup (p, arch, &a, errp) < 0 || check_beta (app, beta, errp) < 0)
        return -1;
    pred_app_get (p, app)->arch_beta[a - p->archs] = beta;
    return 0;
}
