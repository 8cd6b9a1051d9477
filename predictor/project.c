/* project.c - T, P and E of an app on an architecture at a frequency:
 * predictor_project (the EAR projection of ear.c) and the order of
 * fallbacks behind predictor_estimate (measured, projected, default,
 * cross-arch). It calls ear.c, defmodel.c and crossarch.c; they never call
 * back here. Intervals: half-widths in log space (ear.c).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

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
    *ht = 1.6448536269514722 * pred_sig_rel_se (sig->runtime_sd, sig->runtime_s, sig->nruns);
    *hp = 1.6448536269514722 * pred_sig_rel_se (sig->power_sd, sig->power_w, sig->nruns);
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
