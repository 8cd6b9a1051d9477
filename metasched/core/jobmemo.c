/* jobmemo.c - what the simulator's core keeps per kind of job (see
 * jobmemo.h). */
#include "config.h"

#include <string.h>

#include "metasched/core/jobmemo.h"
#include "metasched/common/util.h"

/* JOBMEMO_SETS sets of two slots, the newer key first: KTH-SP2's
 * 28,467 jobs are of 5,459 keys, and 79% of its jobs find theirs (72%
 * in 4,096 slots of one key each). */
#define JOBMEMO_SETS 4096 /* a power of 2 */

jobmemo_t *
jobmemo_new (void)
{
    return ms_xcalloc (2 * JOBMEMO_SETS, sizeof (jobmemo_t));
}

/* The first slot of jd's key's set; doubles by their bits (equal bits:
 * the same job). */
static jobmemo_t *
memo_set (jobmemo_t *tab, const ms_jobdesc_t *jd)
{
    uint64_t b, l, h;

    memcpy (&b, &jd->base_s, sizeof (b));
    memcpy (&l, &jd->limit_s, sizeof (l));
    h = jd->app * 0x9e3779b97f4a7c15ULL ^ jd->home * 0xc2b2ae3d27d4eb4fULL
        ^ (uint64_t)(unsigned)jd->nodes * 0x165667b19e3779f9ULL
        ^ (uint64_t)(unsigned)jd->gpus ^ b * 0xff51afd7ed558ccdULL
        ^ l * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return &tab[2 * (h & (JOBMEMO_SETS - 1))];
}

static bool
memo_same (const jobmemo_t *m, const ms_jobdesc_t *jd)
{
    return m->set && m->app == jd->app && m->home == jd->home
           && m->nodes == jd->nodes && m->gpus == jd->gpus
           && !memcmp (&m->base_s, &jd->base_s, sizeof (m->base_s))
           && !memcmp (&m->limit_s, &jd->limit_s, sizeof (m->limit_s));
}

jobmemo_t *
jobmemo_find (jobmemo_t *tab, const ms_jobdesc_t *jd)
{
    jobmemo_t *m = memo_set (tab, jd), t;

    if (memo_same (&m[0], jd))
        return &m[0];
    if (!memo_same (&m[1], jd))
        return NULL;
    /* the older key is now the newer */
    t = m[0];
    m[0] = m[1];
    m[1] = t;
    return &m[0];
}

jobmemo_t *
jobmemo_take (jobmemo_t *tab, const ms_jobdesc_t *jd)
{
    jobmemo_t *m = memo_set (tab, jd);

    m[1] = m[0];
    m->app = (uint32_t)jd->app;
    m->home = (uint32_t)jd->home;
    m->nodes = jd->nodes;
    m->gpus = jd->gpus;
    m->base_s = jd->base_s;
    m->limit_s = jd->limit_s;
    m->nsent = JOBMEMO_NOSENT;
    m->set = true;
    return m;
}
