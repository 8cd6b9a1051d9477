/* signature.c - applications and their signatures: per (app, arch), a
 * robust aggregate of runs at the arch's nominal frequency. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

static size_t
hash_name (const char *s)
{
    /* FNV-1a */
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return (size_t)h;
}

pred_app_t *
pred_app_find (const predictor_t *p, const char *name)
{
    if (!p->nhash || !name)
        return NULL;
    for (size_t h = hash_name (name) & (p->nhash - 1);; h = (h + 1) & (p->nhash - 1)) {
        size_t v = p->hash[h];
        if (!v)
            return NULL;
        if (strcmp (p->apps[v - 1]->name, name) == 0)
            return p->apps[v - 1];
    }
}

static void
rehash (predictor_t *p, size_t n)
{
    free (p->hash);
    p->nhash = n;
    p->hash = ms_xcalloc (n, sizeof (size_t));
    for (size_t i = 0; i < p->napps; i++) {
        size_t h = hash_name (p->apps[i]->name) & (n - 1);
        while (p->hash[h])
            h = (h + 1) & (n - 1);
        p->hash[h] = i + 1;
    }
}

/* Find or create (name must fit PRED_NAME_MAX; callers check). */
pred_app_t *
pred_app_get (predictor_t *p, const char *name)
{
    pred_app_t *a = pred_app_find (p, name);
    if (a)
        return a;
    if (p->napps == p->capps) {
        p->capps = p->capps ? 2 * p->capps : 16;
        p->apps = ms_xrealloc (p->apps, p->capps * sizeof (*p->apps));
    }
    a = ms_xcalloc (1, sizeof (*a));
    ms_strlcpy (a->name, name, sizeof (a->name));
    a->beta = NAN;
    for (size_t i = 0; i < PRED_MAX_ARCHS; i++)
        a->arch_beta[i] = NAN;
    p->apps[p->napps++] = a;
    if (2 * p->napps > p->nhash)
        rehash (p, p->nhash ? 2 * p->nhash : 64);
    else {
        size_t h = hash_name (name) & (p->nhash - 1);
        while (p->hash[h])
            h = (h + 1) & (p->nhash - 1);
        p->hash[h] = p->napps;
    }
    return a;
}

static int
check_app_name (const char *app, ms_error_t *errp)
{
    if (!app || !*app || strlen (app) >= PRED_NAME_MAX)
        return ms_err (errp, MS_ERR_INPUT, "app name empty or longer than %d "
                       "bytes", PRED_NAME_MAX - 1);
    return 0;
}

int
predictor_set_signature (predictor_t *p, const char *app, const char *arch,
                         const pred_signature_t *sig, ms_error_t *errp)
{
    pred_arch_t *a;
    pred_app_t *ap;
    const char *bad = NULL;

    if (check_app_name (app, errp) < 0 || pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if (!(isfinite (sig->runtime_s) && sig->runtime_s > 0))
        bad = "runtime_s";
    else if (!(isfinite (sig->power_w) && sig->power_w > 0))
        bad = "power_w";
    else if (!(isfinite (sig->cpi) && sig->cpi >= 0))
        bad = "cpi";
    else if (!(isfinite (sig->tpi) && sig->tpi >= 0))
        bad = "tpi";
    else if (!(isfinite (sig->gbs) && sig->gbs >= 0))
        bad = "gbs";
    else if (!(isfinite (sig->nodes) && sig->nodes >= 0))
        bad = "nodes";
    else if (sig->nruns < 0)
        bad = "nruns";
    else if (!(isfinite (sig->runtime_sd) && sig->runtime_sd >= 0))
        bad = "runtime_sd";
    else if (!(isfinite (sig->power_sd) && sig->power_sd >= 0))
        bad = "power_sd";
    if (bad)
        return ms_err (errp, MS_ERR_INPUT, "app '%s' on '%s': signature field "
                       "%s is negative, zero or not a number", app, arch, bad);
    ap = pred_app_get (p, app);
    ap->sig[a - p->archs] = *sig;
    if (ap->sig[a - p->archs].nodes == 0)
        ap->sig[a - p->archs].nodes = 1;
    ap->has[a - p->archs] = 1;
    p->version++;
    return 0;
}

int
predictor_get_signature (const predictor_t *p, const char *app,
                         const char *arch, pred_signature_t *sig,
                         ms_error_t *errp)
{
    pred_arch_t *a;
    pred_app_t *ap;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    ap = pred_app_find (p, app);
    if (!ap || !ap->has[a - p->archs])
        return ms_err (errp, MS_ERR_MISSING, "app '%s' has no signature on '%s'",
                       app, arch);
    *sig = ap->sig[a - p->archs];
    return 0;
}

size_t
predictor_napps (const predictor_t *p)
{
    return p->napps;
}

const char *
predictor_app_name (const predictor_t *p, size_t i)
{
    return i < p->napps ? p->apps[i]->name : NULL;
}

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v (reordered). */
double
pred_median (double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort (v, n, sizeof (double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Robust spread: 1.4826 * median absolute deviation (a normal sd for
 * Gaussian data, but one outlier run cannot inflate it). */
static double
mad_sd (const double *v, size_t n, double med, double *tmp)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = fabs (v[i] - med);
    return 1.4826 * pred_median (tmp, n);
}

typedef struct {
    uintptr_t app;      /* grouping key only */
    size_t arch, idx;
} runkey_t;

static int
cmp_runkey (const void *x, const void *y)
{
    const runkey_t *a = x, *b = y;
    if (a->app != b->app)
        return a->app < b->app ? -1 : 1;
    if (a->arch != b->arch)
        return a->arch < b->arch ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int
predictor_signatures_from_runs (predictor_t *p, const pred_run_t *runs,
                                size_t nruns, ms_error_t *errp)
{
    runkey_t *k = ms_xmalloc ((nruns ? nruns : 1) * sizeof (*k));
    size_t nk = 0;
    int rc = 0;

    for (size_t i = 0; i < nruns; i++) {
        int ai = runs[i].arch ? pred_arch_index (p, runs[i].arch) : -1;
        if (ai < 0) {
            rc = ms_err (errp, MS_ERR_INPUT, "run %zu: unknown architecture "
                         "'%s'", i + 1, runs[i].arch ? runs[i].arch : "");
            goto out;
        }
        if (runs[i].freq_khz != p->archs[ai].freqs[p->archs[ai].nom])
            continue;
        if (check_app_name (runs[i].app, errp) < 0) {
            rc = ms_err_prefix (errp, "run %zu", i + 1);
            goto out;
        }
        k[nk].app = (uintptr_t)pred_app_get (p, runs[i].app);
        k[nk].arch = (size_t)ai;
        k[nk].idx = i;
        nk++;
    }
    qsort (k, nk, sizeof (*k), cmp_runkey);
    {
        double *v[7], *tmp = ms_xmalloc ((nk ? nk : 1) * sizeof (double));
        for (int j = 0; j < 7; j++)
            v[j] = ms_xmalloc ((nk ? nk : 1) * sizeof (double));
        for (size_t s = 0, e; s < nk; s = e) {
            pred_signature_t sig;
            size_t n;
            for (e = s; e < nk && k[e].app == k[s].app && k[e].arch == k[s].arch; e++) {
                const pred_run_t *r = &runs[k[e].idx];
                v[0][e - s] = r->runtime_s;
                v[1][e - s] = r->power_w;
                v[2][e - s] = r->cpi;
                v[3][e - s] = r->tpi;
                v[4][e - s] = r->gbs;
                v[5][e - s] = r->nodes;
            }
            n = e - s;
            memset (&sig, 0, sizeof (sig));
            sig.runtime_s = pred_median (v[0], n);
            sig.runtime_sd = n > 1 ? mad_sd (v[0], n, sig.runtime_s, tmp) : 0;
            sig.power_w = pred_median (v[1], n);
            sig.power_sd = n > 1 ? mad_sd (v[1], n, sig.power_w, tmp) : 0;
            sig.cpi = pred_median (v[2], n);
            sig.tpi = pred_median (v[3], n);
            sig.gbs = pred_median (v[4], n);
            sig.nodes = pred_median (v[5], n);
            sig.nruns = (int)n;
            if (predictor_set_signature (p, runs[k[s].idx].app,
                                         p->archs[k[s].arch].name, &sig,
                                         errp) < 0) {
                rc = ms_err_prefix (errp, "run %zu", k[s].idx + 1);
                break;
            }
        }
        for (int j = 0; j < 7; j++)
            free (v[j]);
        free (tmp);
    }
out:
    free (k);
    return rc;
}
