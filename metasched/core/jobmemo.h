/* jobmemo.h - what the simulator's core (sched.c) keeps per kind of job
 * (private to the core).
 *
 * engine_candidates makes a job's candidates from its app, home, nodes,
 * GPUs, length and time limit alone where no view, no grid signal and
 * no restriction reach them (sched.c says when): the jobs of the same
 * key then have the same list, so the same optimal partition, the same
 * f_opt per partition and, under a kind whose choice reads nothing but
 * the list, the same entries. The table keeps two keys a set (a key
 * finds one set): what was found for the last two keys that came
 * there.
 */
#ifndef MS_JOBMEMO_H
#define MS_JOBMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/core/policy.h"

#define JOBMEMO_PARTS 4          /* sites of more partitions: no table */
#define JOBMEMO_NONE UINT16_MAX  /* an index SIZE_MAX, kept */
#define JOBMEMO_NOSENT UINT8_MAX /* jobmemo_t's nsent: no entries kept */

/* An entry as dispatch sends it (sched.c), less its hold: the
 * candidate's partition, frequency, nodes and predicted runtime, the
 * decision's nice and rank and the entry's time limit. */
typedef struct {
    double t; /* predicted runtime, s */
    uint32_t f_khz;
    uint32_t limit_min; /* engine_limit_min */
    int nodes;
    int nice;
    uint32_t part; /* (a site of fewer than 2^32 partitions) */
    uint16_t rank;
} jobmemo_ent_t;

/* A slot: a key and what was found for it, in one cache line (the
 * entries kept for it lie apart: jobmemo_sent). */
typedef struct {
    double base_s, limit_s;
    uint32_t app, home; /* (jobs of larger indices: no table) */
    int nodes, gpus;
    uint16_t opt;                  /* the optimal partition */
    uint16_t fopt[JOBMEMO_PARTS];  /* each partition's f_opt */
    uint16_t wfopt[JOBMEMO_PARTS]; /* ...at an EAMC kind's t_weight */
    bool set;
    uint8_t nsent; /* entries kept (0: the job is rejected), or
                      JOBMEMO_NOSENT */
} __attribute__ ((aligned (64))) jobmemo_t;

typedef struct jobmemo_tab jobmemo_tab_t;

/* The table, empty; with room for each key's entries where sends (a
 * kind whose entries may be kept: sched.c's memo_sends), else with none
 * (jobmemo_sent: NULL). */
jobmemo_tab_t *jobmemo_new (bool sends);
void jobmemo_free (jobmemo_tab_t *tab);
/* The slot that keeps jd's key (doubles by their bits: equal bits, the
 * same job); NULL: none does. */
jobmemo_t *jobmemo_find (jobmemo_tab_t *tab, const ms_jobdesc_t *jd);
/* jd's set and its newer key's entries into the cache (a hint). */
void jobmemo_prefetch (const jobmemo_tab_t *tab, const ms_jobdesc_t *jd);
/* A slot for jd's key (the older of its set's two keys goes), with
 * nothing found for it yet. */
jobmemo_t *jobmemo_take (jobmemo_tab_t *tab, const ms_jobdesc_t *jd);
/* Slot m's entries (JOBMEMO_PARTS of room; m->nsent of them kept), NULL
 * where the table keeps none. */
jobmemo_ent_t *jobmemo_sent (jobmemo_tab_t *tab, const jobmemo_t *m);

static inline uint16_t
jobmemo_narrow (size_t i)
{
    return i == SIZE_MAX ? JOBMEMO_NONE : (uint16_t)i;
}

static inline size_t
jobmemo_wide (uint16_t i)
{
    return i == JOBMEMO_NONE ? SIZE_MAX : i;
}

#endif /* MS_JOBMEMO_H */
