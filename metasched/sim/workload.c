/* workload.c - trace and generated workloads (see workload.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/sim/workload.h"

/* splitmix64 (Steele, Lea and Flood 2014): a fast, well-mixed 64-bit hash
 * and the step of the generator below. */
uint64_t
ms_hash64 (uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double
ms_hash_unit (uint64_t h)
{
    return ((h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double
ms_hash_normal (uint64_t h)
{
    double u1 = ms_hash_unit (h), u2 = ms_hash_unit (ms_hash64 (h));
    return sqrt (-2 * log (u1)) * cos (2 * M_PI * u2);
}

typedef struct {
    uint64_t s;
} rng_t;

static double
rng_unit (rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ULL;
    return ms_hash_unit (ms_hash64 (r->s));
}

static double
rng_normal (rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ULL;
    return ms_hash_normal (r->s);
}

void
workload_gen_defaults (ms_genparams_t *gp)
{
    memset (gp, 0, sizeof (*gp));
    gp->seed = 1;
    gp->njobs = 2000;
    gp->mean_interarrival_s = 300;
    gp->day_amp = 0.5;
    gp->mean_nodes = 8;
    gp->sigma_nodes = 1.0;
    gp->max_nodes = 64;
    gp->mean_runtime_s = 3600;
    gp->sigma_runtime = 1.0;
    gp->min_runtime_s = 60;
    gp->max_runtime_s = 24 * 3600;
    gp->est_factor_max = 3;
    gp->nusers = 50;
}

int
workload_generate (const ms_genparams_t *gp, ms_workload_t **wlp,
                   ms_error_t *errp)
{
    ms_workload_t *wl;
    rng_t r = { ms_hash64 (gp->seed ^ 0x5157ULL) };
    double t = 0, mu_n, mu_r;

    if (!gp->njobs || gp->mean_interarrival_s <= 0 || gp->mean_nodes < 1
        || gp->max_nodes < 1 || gp->mean_runtime_s <= 0
        || gp->max_runtime_s < gp->min_runtime_s || gp->est_factor_max < 1
        || gp->day_amp < 0 || gp->day_amp >= 1)
        return ms_err (errp, MS_ERR_INPUT,
                       "workload generator: bad "
                       "parameters");
    /* Lognormal mean = exp (mu + sigma^2 / 2). */
    mu_n = log (gp->mean_nodes) - gp->sigma_nodes * gp->sigma_nodes / 2;
    mu_r = log (gp->mean_runtime_s) - gp->sigma_runtime * gp->sigma_runtime / 2;
    wl = ms_xcalloc (1, sizeof (*wl));
    wl->jobs = ms_xcalloc (gp->njobs, sizeof (*wl->jobs));
    wl->njobs = gp->njobs;
    for (size_t i = 0; i < gp->njobs; i++) {
        ms_wjob_t *j = &wl->jobs[i];
        double n, rt, f;
        /* Thinning (Lewis and Shedler 1979) of a Poisson process at the
         * peak rate gives the daily cycle. */
        double peak = (1 + gp->day_amp) / gp->mean_interarrival_s;
        for (;;) {
            t += -log (rng_unit (&r)) / peak;
            double h = fmod (t / 3600.0, 24.0);
            double rate = (1 + gp->day_amp * cos (2 * M_PI * (h - 14) / 24))
                          / gp->mean_interarrival_s;
            if (rng_unit (&r) * peak <= rate)
                break;
        }
        n = round (exp (mu_n + gp->sigma_nodes * rng_normal (&r)));
        rt = exp (mu_r + gp->sigma_runtime * rng_normal (&r));
        f = 1 + (gp->est_factor_max - 1) * rng_unit (&r);
        if (n < 1)
            n = 1;
        if (n > gp->max_nodes)
            n = gp->max_nodes;
        if (rt < gp->min_runtime_s)
            rt = gp->min_runtime_s;
        if (rt > gp->max_runtime_s)
            rt = gp->max_runtime_s;
        j->id = i + 1;
        j->trace_id = (int64_t)i + 1;
        j->submit = round (t);
        j->nodes = (int)n;
        j->runtime = round (rt);
        j->req_time = ceil (rt * f / 300) * 300;
        j->user = 1 + (int64_t)(rng_unit (&r) * gp->nusers);
        j->exe = -1;
        j->app = -1;
    }
    /* The first job arrives at 0. */
    double t0 = wl->jobs[0].submit;
    for (size_t i = 0; i < wl->njobs; i++)
        wl->jobs[i].submit -= t0;
    *wlp = wl;
    return 0;
}

static int
cmp_submit (const void *a, const void *b)
{
    const ms_wjob_t *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->trace_id < y->trace_id ? -1 : x->trace_id > y->trace_id;
}

int
workload_from_swf (const swf_trace_t *t, int cores_per_node, int max_nodes,
                   size_t replicate, ms_workload_t **wlp, ms_error_t *errp)
{
    ms_workload_t *wl;
    double t0 = INFINITY, t1 = -INFINITY, span;
    size_t k = 0;

    if (cores_per_node < 1 || max_nodes < 1)
        return ms_err (errp, MS_ERR_INPUT, "%s: bad cores per node or size",
                       t->name);
    if (replicate < 1)
        replicate = 1;
    wl = ms_xcalloc (1, sizeof (*wl));
    wl->jobs = ms_xcalloc (t->njobs * replicate + 1, sizeof (*wl->jobs));
    for (size_t i = 0; i < t->njobs; i++) {
        if (t->jobs[i].submit < t0)
            t0 = t->jobs[i].submit;
        if (t->jobs[i].submit > t1)
            t1 = t->jobs[i].submit;
    }
    span = t->njobs ? t1 - t0 + 1 : 0;
    for (size_t r = 0; r < replicate; r++)
        for (size_t i = 0; i < t->njobs; i++) {
            const swf_job_t *s = &t->jobs[i];
            int64_t procs = s->procs > 0 ? s->procs : s->procs_req;
            ms_wjob_t *j;
            int64_t nodes;
            if (s->runtime <= 0 || procs <= 0) {
                if (r == 0)
                    wl->dropped++;
                continue;
            }
            nodes = (procs + cores_per_node - 1) / cores_per_node;
            if (nodes > max_nodes) {
                if (r == 0)
                    wl->clipped++;
                nodes = max_nodes;
            }
            j = &wl->jobs[k++];
            j->trace_id = s->id;
            j->submit = s->submit - t0 + (double)r * span;
            j->nodes = (int)nodes;
            j->runtime = s->runtime;
            j->req_time = s->time_req;
            j->user = s->user;
            j->exe = s->exe;
            j->app = -1;
        }
    wl->njobs = k;
    /* a trace is in submit order as a rule: sort only one that is not
     * (qsort's merge sort left a sorted one as it was) */
    for (size_t i = 1; i < k; i++)
        if (cmp_submit (&wl->jobs[i - 1], &wl->jobs[i]) > 0) {
            qsort (wl->jobs, k, sizeof (*wl->jobs), cmp_submit);
            break;
        }
    for (size_t i = 0; i < k; i++)
        wl->jobs[i].id = i + 1;
    if (!k) {
        workload_free (wl);
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: no job with a runtime and a "
                       "size",
                       t->name);
    }
    *wlp = wl;
    return 0;
}

void
workload_assign_apps (ms_workload_t *wl, const double *weights, size_t napps,
                      uint64_t seed)
{
    double sum = 0, *cdf = ms_xcalloc (napps ? napps : 1, sizeof (double));
    uint64_t hs = ms_hash64 (seed);

    for (size_t i = 0; i < napps; i++)
        sum += weights[i] > 0 ? weights[i] : 0;
    for (size_t i = 0; i < napps; i++) {
        cdf[i] = (i ? cdf[i - 1] : 0)
                 + (weights[i] > 0 ? weights[i] : 0) / (sum > 0 ? sum : 1);
    }
    for (size_t i = 0; i < wl->njobs; i++) {
        ms_wjob_t *j = &wl->jobs[i];
        uint64_t key = j->exe >= 0 ? 0x4558450000000000ULL ^ (uint64_t)j->exe
                                   : (uint64_t)j->trace_id * 2654435761ULL
                                         ^ (uint64_t)j->id;
        double u = ms_hash_unit (ms_hash64 (hs ^ key));
        size_t a = 0;
        /* the first app whose cdf reaches u (the last at most): as the
         * cdf does not fall, how many before the last fall short of u,
         * counted without a branch that u's randomness mispredicts */
        for (size_t c = 0; c + 1 < napps; c++)
            a += u > cdf[c];
        j->app = (int)a;
    }
    free (cdf);
}

size_t
workload_assign_gpus (ms_workload_t *wl, double share, int max_gpus,
                      int max_nodes, uint64_t seed)
{
    size_t n = 0;
    if (share <= 0 || max_gpus < 1)
        return 0;
    for (size_t i = 0; i < wl->njobs; i++) {
        ms_wjob_t *j = &wl->jobs[i];
        uint64_t h = ms_hash64 (seed * 0x9e3779b97f4a7c15ULL ^ j->id ^ 0x67707573ULL);
        if (ms_hash_unit (h) >= share)
            continue;
        j->gpus = 1 + (int)(ms_hash_unit (ms_hash64 (h)) * max_gpus);
        if (j->gpus > max_gpus)
            j->gpus = max_gpus;
        if (max_nodes > 0 && j->nodes > max_nodes)
            j->nodes = max_nodes;
        n++;
    }
    return n;
}

size_t
workload_assign_moldable (ms_workload_t *wl, double share, int lo, int hi,
                          int max_nodes, uint64_t seed)
{
    size_t n = 0;
    if (share <= 0 || lo < 1)
        return 0;
    if (max_nodes > 0 && hi > max_nodes)
        hi = max_nodes;
    if (lo > hi)
        lo = hi;
    for (size_t i = 0; i < wl->njobs; i++) {
        ms_wjob_t *j = &wl->jobs[i];
        uint64_t h = ms_hash64 (seed * 0x9e3779b97f4a7c15ULL ^ j->id
                                ^ 0x6d6f6c64ULL);
        if (ms_hash_unit (h) >= share)
            continue;
        j->nodes = lo;
        j->nodes_max = hi > lo ? hi : 0;
        n++;
    }
    return n;
}

void
workload_free (ms_workload_t *wl)
{
    if (!wl)
        return;
    for (size_t i = 0; i < wl->njobs; i++) {
        free (wl->jobs[i].het_fits);
        free (wl->jobs[i].allowed);
        free (wl->jobs[i].het_ran);
    }
    free (wl->jobs);
    free (wl);
}
