/* synth.c - synthetic learning runs drawn from a known model, so fitting,
 * intervals and the admin command can be checked against the truth (tests,
 * bench, `metasched model synth`). Noise is multiplicative and Gaussian:
 * each measured quantity x becomes x * (1 + noise * N(0,1)), seeded. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

int
predictor_synth_apps (predictor_t *p, const char *arch, size_t count,
                      double spread, unsigned long seed, ms_error_t *errp)
{
    pred_arch_t *a;
    const pred_app_t **base;
    size_t nbase = 0, ai;
    gsl_rng *r;
    int rc = 0;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    ai = (size_t)(a - p->archs);
    base = ms_xmalloc ((p->napps ? p->napps : 1) * sizeof (*base));
    for (size_t i = 0; i < p->napps; i++)
        if (p->apps[i]->has[ai])
            base[nbase++] = p->apps[i];
    if (nbase == 0) {
        free (base);
        return ms_err (errp, MS_ERR_MISSING, "'%s' has no app signatures to "
                       "vary", arch);
    }
    r = gsl_rng_alloc (gsl_rng_mt19937);
    gsl_rng_set (r, seed);
    for (size_t k = 0; k < count; k++) {
        pred_signature_t s = base[k % nbase]->sig[ai];
        char name[PRED_NAME_MAX];
        /* log-uniform factors: the variants spread around their base app */
        s.runtime_s *= exp (spread * (2 * gsl_rng_uniform (r) - 1));
        s.power_w *= exp (spread * (2 * gsl_rng_uniform (r) - 1));
        s.cpi *= exp (spread * (2 * gsl_rng_uniform (r) - 1));
        s.tpi *= exp (spread * (2 * gsl_rng_uniform (r) - 1));
        s.gbs *= exp (spread * (2 * gsl_rng_uniform (r) - 1));
        snprintf (name, sizeof (name), "%.40s~%zu", base[k % nbase]->name,
                  k / nbase + 1);
        if ((rc = predictor_set_signature (p, name, arch, &s, errp)) < 0)
            break;
    }
    gsl_rng_free (r);
    free (base);
    return rc;
}

int
predictor_synth_runs (const predictor_t *p, const char *arch,
                      size_t runs_per_freq, double noise, unsigned long seed,
                      pred_run_t **runsp, size_t *nrunsp, ms_error_t *errp)
{
    pred_arch_t *a;
    size_t ai, n = 0, cap = 0;
    pred_run_t *runs = NULL;
    gsl_rng *r;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if (!(noise >= 0) || noise > 0.5)
        return ms_err (errp, MS_ERR_INPUT, "noise %g outside [0, 0.5]", noise);
    ai = (size_t)(a - p->archs);
    r = gsl_rng_alloc (gsl_rng_mt19937);
    gsl_rng_set (r, seed);
    for (size_t i = 0; i < p->napps; i++) {
        const pred_app_t *x = p->apps[i];
        const pred_signature_t *s = &x->sig[ai];
        if (!x->has[ai] || !(s->cpi > 0))
            continue;
        for (size_t fi = 0; fi < a->nf; fi++) {
            double T, P, cpi;
            if (fi == a->nom) {
                T = s->runtime_s;
                P = s->power_w;
                cpi = s->cpi;
            } else {
                const pred_pair_t *q = a->pairs ? &a->pairs[a->nom * a->nf + fi] : NULL;
                if (pred_project_pair (a, fi, s, &T, NULL, &P, NULL) < 0)
                    continue;
                cpi = q->cc[0] + q->cc[1] * s->cpi + q->cc[2] * s->tpi;
            }
            for (size_t k = 0; k < runs_per_freq; k++) {
                pred_run_t *run;
                if (n == cap) {
                    cap = cap ? 2 * cap : 1024;
                    runs = ms_xrealloc (runs, cap * sizeof (*runs));
                }
                run = &runs[n++];
                run->app = x->name;
                run->arch = a->name;
                run->freq_khz = a->freqs[fi];
                run->runtime_s = T * (1 + noise * gsl_ran_gaussian (r, 1));
                run->power_w = P * (1 + noise * gsl_ran_gaussian (r, 1));
                run->cpi = cpi * (1 + noise * gsl_ran_gaussian (r, 1));
                run->tpi = s->tpi * (1 + noise * gsl_ran_gaussian (r, 1));
                run->gbs = s->gbs * (1 + noise * gsl_ran_gaussian (r, 1));
                run->nodes = s->nodes;
                /* a 10-sigma draw could go negative; measured values cannot */
                if (run->runtime_s <= 0 || run->power_w <= 0 || run->cpi <= 0) {
                    n--;
                    k--;
                }
                if (run->tpi < 0)
                    run->tpi = 0;
                if (run->gbs < 0)
                    run->gbs = 0;
            }
        }
    }
    gsl_rng_free (r);
    *runsp = runs;
    *nrunsp = n;
    return 0;
}
