/* simcluster_int.h - what simcluster.c (the world, its clock and its
 * passes) and simcluster_ops.c (the backend operations the core calls)
 * share: the world's data and the helpers both use. Not for other files.
 */
#ifndef MS_SIMCLUSTER_INT_H
#define MS_SIMCLUSTER_INT_H

#include <math.h>

#include "partitions/simcluster.h"

#define GATE_MAX ((uint64_t)1 << 28)

/* One submitted job (112 bytes: the world keeps one per entry ever
 * submitted, siblings included, so every byte here is paid per entry).
 * Its cluster job id is its index + 1 (job_id); the hint is kept field by
 * field (sim_notify gives the listener a sim_hint_t); the user name is an
 * index into the world's names (user_intern in simcluster_ops.c). */
typedef struct {
    double submit, start, end;
    double begin;   /* not eligible before this (0: from its submit) */
    double true_rt; /* what the truth says it runs */
    double power_w;
    double pred_s;     /* hint.pred_runtime_s */
    double order_time; /* hint.order_time */
    const void *wjob;  /* hint.job */
    uint32_t gate;     /* hint.gate (< GATE_MAX) */
    int rank;          /* hint.rank */
    uint32_t part;
    int nodes;
    int nice;
    uint32_t f_khz;
    uint32_t limit_min; /* hard limit in minutes, 0: none (limit_s) */
    uint32_t gate_next; /* next job with the same gate, or NO_JOB */
    uint32_t user;      /* index into simworld.users */
    uint8_t state;      /* ms_job_state_t */
    bool killed;
    bool known; /* true_rt and power_w asked of the truth */
    /* submitted after a sibling started (its gate open): a pass cancels
     * it. Any other pending sibling start_job cancels at once, so the
     * passes need not read the gates. */
    bool late;
} simjob_t;

#define NO_JOB UINT32_MAX
#define USER_LEN 24 /* a user name is kept to 23 characters */

typedef struct {
    size_t *v;
    size_t n, cap;
} idxvec_t;

/* A running job's predicted end, before the clamp to now
 * (sim_predicted_end), and its place in the order of starts. */
typedef struct {
    double t;
    uint32_t job;
    uint32_t seq;
} endent_t;

/* Running jobs by (predicted end, start order): kept so as they start,
 * end, are cancelled or get a new limit, so that a reservation reads
 * them in order without sorting (sorted_ends). */
typedef struct {
    endent_t *v;
    size_t n, cap;
} endvec_t;

typedef struct {
    const ms_partconf_t *pc;
    const ms_arch_t *arch;
    size_t index;     /* in conf->parts */
    int busy;         /* allocated nodes */
    double dyn_w;     /* running jobs' power above idle: sum of
                         nodes * (power - idle power) */
    double room0;     /* the cap's room with every node idle (INFINITY:
                         no cap), cap_room0 in simcluster.c */
    idxvec_t pending; /* sorted by (nice, order_time, id) */
    endvec_t ends;    /* the running jobs by predicted end (their seqs
                         give the start order) */
    bool dirty;
    bool deferred;   /* the last pass left an entry to a sibling */
    bool nominal_ok; /* arch's nominal frequency is one of its own */
} simpart_t;

typedef struct {
    simworld_t *w;
    size_t index; /* in conf->clusters */
} simcl_t;

typedef struct {
    double t;
    size_t job;
} heapent_t;

typedef struct {
    uint32_t first; /* NO_JOB: none */
    bool started;
} gate_t;

/* The user names of the jobs, each once: an open-addressing hash of
 * indices into names. */
typedef struct {
    char (*names)[USER_LEN];
    size_t n, cap;
    uint32_t *slots; /* index + 1, 0: empty */
    size_t nslots;   /* a power of two, at least twice n */
    uint32_t last;   /* the name found last (siblings share it) */
    uint64_t gate;   /* the gate it was found for (0: none) */
} usertab_t;

struct simworld {
    const ms_siteconf_t *conf;
    sim_backfill_t bf;
    sim_truth_fn truth;
    void *truth_arg;
    sim_listener_fn listen;
    void *listen_arg;
    double now;
    simjob_t *jobs;
    size_t njobs, capjobs;
    simpart_t *parts;   /* one per conf->parts entry */
    ms_backend_t **backends;
    simcl_t *cls;
    heapent_t *heap;
    size_t nheap, capheap;
    gate_t *gates;
    size_t ngates;
    usertab_t users;
    size_t violations;
    uint32_t nstarts; /* starts so far: the next start's seq */
    bool no_defer;    /* second scheduling round */
    bool lazy;        /* simworld_lazy_truth */
    bool truth_failed;
    ms_error_t truth_err; /* a lazy truth's first error */
    /* scratch for the passes */
    heapent_t *scratch;
    size_t capscratch;
};

static inline uint64_t
job_id (const simworld_t *w, const simjob_t *j)
{
    return (uint64_t)(j - w->jobs) + 1;
}

/* The hard limit in seconds, INFINITY when none. */
static inline double
limit_s (const simjob_t *j)
{
    return j->limit_min ? j->limit_min * 60.0 : INFINITY;
}

extern const struct ms_backend_ops simcluster_ops;

void sim_vec_remove (idxvec_t *v, size_t x);
/* Into p's queue of pending jobs, in queue order. */
void sim_queue_insert (simworld_t *w, simpart_t *p, size_t j);
/* An event at t for job (an end, a begin time) into the heap. */
void sim_heap_push (simworld_t *w, double t, size_t job);
/* Tell the listener. */
void sim_notify (simworld_t *w, sim_evtype_t type, const simjob_t *j);
/* Cancel a pending job (its gate opened for a sibling, or a cancel). */
void sim_cancel_pending (simworld_t *w, simjob_t *j);
/* Predicted end of a running job, as reservations see it. */
double sim_predicted_end (const simworld_t *w, const simjob_t *j);
/* Running job ji of p into p's ends with its seq, and out of them. */
void sim_ends_insert (simpart_t *p, const simjob_t *j, size_t ji, uint32_t seq);
uint32_t sim_ends_remove (simpart_t *p, size_t ji);
/* Room for n jobs. */
void sim_jobs_grow (simworld_t *w, size_t n);
/* Room for gate keys below n: n exactly when reserved, else doubling
 * from 1024. */
void sim_gates_grow (simworld_t *w, size_t n, bool exact);

#endif /* MS_SIMCLUSTER_INT_H */
