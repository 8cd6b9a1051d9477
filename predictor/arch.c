/* arch.c - architectures: frequencies, nominal frequency, cores, idle power;
 * the predictor object itself. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

predictor_t *
predictor_new (void)
{
    predictor_t *p = ms_xcalloc (1, sizeof (*p));
    return p;
}

void
predictor_free (predictor_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->narchs; i++)
        free (p->archs[i].pairs);
    for (size_t i = 0; i < p->napps; i++)
        free (p->apps[i]);
    free (p->apps);
    free (p->hash);
    free (p->cache);
    free (p);
}

int
pred_arch_index (const predictor_t *p, const char *name)
{
    for (size_t i = 0; i < p->narchs; i++)
        if (strcmp (p->archs[i].name, name) == 0)
            return (int)i;
    return -1;
}

int
pred_freq_index (const pred_arch_t *a, uint32_t khz)
{
    size_t lo = 0, hi = a->nf;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->freqs[mid] == khz)
            return (int)mid;
        if (a->freqs[mid] < khz)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int
pred_arch_lookup (const predictor_t *p, const char *name, pred_arch_t **ap,
                  ms_error_t *errp)
{
    int i = name ? pred_arch_index (p, name) : -1;
    if (i < 0)
        return ms_err (errp, MS_ERR_INPUT, "unknown architecture '%s'",
                       name ? name : "(null)");
    *ap = (pred_arch_t *)&p->archs[i];
    return 0;
}

static int
cmp_u32 (const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int
predictor_add_arch (predictor_t *p, const char *name, int cores_per_node,
                    const uint32_t *freqs_khz, size_t nfreqs,
                    uint32_t nominal_khz, double idle_power_w,
                    ms_error_t *errp)
{
    pred_arch_t *a;

    if (!name || !*name || strlen (name) >= PRED_NAME_MAX)
        return ms_err (errp, MS_ERR_INPUT, "architecture name empty or longer "
                       "than %d bytes", PRED_NAME_MAX - 1);
    if (pred_arch_index (p, name) >= 0)
        return ms_err (errp, MS_ERR_INPUT, "architecture '%s' defined twice",
                       name);
    if (p->narchs >= PRED_MAX_ARCHS)
        return ms_err (errp, MS_ERR_INPUT, "architecture '%s': more than %d "
                       "architectures", name, PRED_MAX_ARCHS);
    if (nfreqs == 0 || nfreqs > PRED_MAX_FREQS)
        return ms_err (errp, MS_ERR_INPUT, "architecture '%s': %zu frequencies "
                       "(1 to %d)", name, nfreqs, PRED_MAX_FREQS);
    if (cores_per_node < 0 || !isfinite (idle_power_w) || idle_power_w < 0)
        return ms_err (errp, MS_ERR_INPUT, "architecture '%s': negative cores "
                       "or idle power", name);

    a = &p->archs[p->narchs];
    memset (a, 0, sizeof (*a));
    ms_strlcpy (a->name, name, sizeof (a->name));
    memcpy (a->freqs, freqs_khz, nfreqs * sizeof (uint32_t));
    qsort (a->freqs, nfreqs, sizeof (uint32_t), cmp_u32);
    for (size_t i = 0; i < nfreqs; i++)
        if (a->freqs[i] == 0 || (i && a->freqs[i] == a->freqs[i - 1]))
            return ms_err (errp, MS_ERR_INPUT, "architecture '%s': frequency "
                           "%u kHz zero or repeated", name, a->freqs[i]);
    a->nf = nfreqs;
    {
        int ni = pred_freq_index (a, nominal_khz);
        if (ni < 0)
            return ms_err (errp, MS_ERR_INPUT, "architecture '%s': nominal "
                           "frequency %u kHz is not one of its frequencies",
                           name, nominal_khz);
        a->nom = (size_t)ni;
    }
    a->cores = cores_per_node;
    a->idle_w = idle_power_w;
    a->def_beta = PRED_DEFAULT_BETA;
    a->def_static = PRED_DEFAULT_STATIC;
    p->narchs++;
    return 0;
}

size_t
predictor_narchs (const predictor_t *p)
{
    return p->narchs;
}

const char *
predictor_arch_name (const predictor_t *p, size_t i)
{
    return i < p->narchs ? p->archs[i].name : NULL;
}

int
predictor_arch_info (const predictor_t *p, const char *arch,
                     const uint32_t **freqs_khz, size_t *nfreqs,
                     uint32_t *nominal_khz, int *cores_per_node,
                     double *idle_power_w, ms_error_t *errp)
{
    pred_arch_t *a = NULL;
    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if (freqs_khz)
        *freqs_khz = a->freqs;
    if (nfreqs)
        *nfreqs = a->nf;
    if (nominal_khz)
        *nominal_khz = a->freqs[a->nom];
    if (cores_per_node)
        *cores_per_node = a->cores;
    if (idle_power_w)
        *idle_power_w = a->idle_w;
    return 0;
}

const char *
predictor_source_name (pred_source_t s)
{
    switch (s) {
    case PRED_SRC_MEASURED: return "measured";
    case PRED_SRC_PROJECTED: return "projected";
    case PRED_SRC_CROSS_ARCH: return "cross-arch";
    case PRED_SRC_DEFAULT: return "default";
    default: return "none";
    }
}
