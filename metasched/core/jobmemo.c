/* jobmemo.c - what the simulator's core keeps per kind of job (see
 * jobmemo.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/jobmemo.h"
#include "metasched/common/util.h"

/* JOBMEMO_SETS sets of two slots, the newer key first: KTH-SP2's
 * 28,467 jobs are of 5,459 keys, and 79% of its jobs find theirs (72%
 * in 4,096 slots of one key each). */
#define JOBMEMO_SETS 4096 /* a power of 2 */

struct jobmemo_tab {
    void *raw;                            /* what slot is carved from */
    jobmemo_t *slot;                      /* 2 * JOBMEMO_SETS, on cache lines */
    jobmemo_ent_t (*sent)[JOBMEMO_PARTS]; /* per slot; NULL: none */
};

jobmemo_tab_t *
jobmemo_new (bool sends)
{
    jobmemo_tab_t *tab = ms_xcalloc (1, sizeof (*tab));
    size_t n = 2 * JOBMEMO_SETS, a = _Alignof(jobmemo_t);

    tab->raw = ms_xcalloc (1, n * sizeof (jobmemo_t) + a - 1);
    tab->slot
        = (jobmemo_t *)(((uintptr_t)tab->raw + a - 1) & ~(uintptr_t)(a - 1));
    if (sends)
        tab->sent = ms_xcalloc (n, sizeof (*tab->sent));
    return tab;
}

void
jobmemo_free (jobmemo_tab_t *tab)
{
    if (!tab)
        return;
    free (tab->raw);
    free (tab->sent);
    free (tab);
}

jobmemo_ent_t *
jobmemo_sent (jobmemo_tab_t *tab, const jobmemo_t *m)
{
    return tab->sent ? tab->sent[m - tab->slot] : NULL;
}

/* The index of the first slot of jd's key's set; doubles by their bits (equal
 * bits: the same job). */
static size_t
memo_set (const ms_jobdesc_t *jd)
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
    return 2 * (h & (JOBMEMO_SETS - 1));
}

static bool
memo_same (const jobmemo_t *m, const ms_jobdesc_t *jd)
{
    return m->set && m->app == jd->app && m->home == jd->home
           && m->nodes == jd->nodes && m->gpus == jd->gpus
           && !memcmp (&m->base_s, &jd->base_s, sizeof (m->base_s))
           && !memcmp (&m->limit_s, &jd->limit_s, sizeof (m->limit_s));
}

/* Slots i and i + 1 trade places, with their entries. */
static void
memo_swap (jobmemo_tab_t *tab, size_t i)
{
    jobmemo_t t = tab->slot[i];

    tab->slot[i] = tab->slot[i + 1];
    tab->slot[i + 1] = t;
    if (tab->sent) {
        jobmemo_ent_t e[JOBMEMO_PARTS];
        memcpy (e, tab->sent[i], sizeof (e));
        memcpy (tab->sent[i], tab->sent[i + 1], sizeof (e));
        memcpy (tab->sent[i + 1], e, sizeof (e));
    }
}

jobmemo_t *
jobmemo_find (jobmemo_tab_t *tab, const ms_jobdesc_t *jd)
{
    size_t i = memo_set (jd);

    if (memo_same (&tab->slot[i], jd))
        return &tab->slot[i];
    if (!memo_same (&tab->slot[i + 1], jd))
        return NULL;
    /* the older key is now the newer */
    memo_swap (tab, i);
    return &tab->slot[i];
}

/* The set is two slots of a cache line each, a slot's entries two more
 * lines: 1.5 MiB in all, more than a core's cache (KTH-SP2: a miss each
 * job, where the job before it is submitted long before). */
void
jobmemo_prefetch (const jobmemo_tab_t *tab, const ms_jobdesc_t *jd)
{
    size_t i = memo_set (jd);

    __builtin_prefetch (&tab->slot[i]);
    __builtin_prefetch (&tab->slot[i + 1]);
    if (tab->sent) {
        __builtin_prefetch (tab->sent[i]);
        __builtin_prefetch ((const char *)tab->sent[i] + 64);
    }
}

jobmemo_t *
jobmemo_take (jobmemo_tab_t *tab, const ms_jobdesc_t *jd)
{
    size_t i = memo_set (jd);
    jobmemo_t *m = &tab->slot[i];

    /* the newer key becomes the older, the older goes */
    m[1] = m[0];
    if (tab->sent)
        memcpy (tab->sent[i + 1], tab->sent[i], sizeof (tab->sent[i]));
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
