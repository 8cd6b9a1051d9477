/* simcluster.h - the simulated clusters: an event-driven model of Slurm
 * partitions with EASY backfill (FCFS and conservative backfill as
 * options), doc/architecture.md "Simulator".
 *
 * A simworld holds every `backend = simulated` cluster of a site
 * configuration on one clock. Each cluster is an ordinary backend
 * (backend.h, type "simulated"): the scheduling core submits, updates,
 * cancels and lists jobs through backend_* and does not know it drives a
 * model. What only a simulation has lives here: the clock and its event
 * loop, the job model (sim_hint_t, passed in ms_job_request_t.backend_hint),
 * the "truth" that says how long a job really runs and what it draws, and a
 * listener told of every start and end.
 *
 * Time never advances in fixed steps: the loop jumps from one event (a job
 * end) to the next, and the driver brings arrivals. Per partition the queue
 * is ordered by nice (lower first), then the hint's order time, then id.
 *
 * Reservations use the predicted runtime in the hint; the time limit of
 * the request is a hard limit: a job still running at its limit is killed
 * (state TIMEOUT, sim_event_t.killed). A request's begin_time (on the
 * world's clock) holds the job as Slurm's --begin does: not started, and
 * no reservation, before it.
 *
 * Sibling entries: the core may submit one job to several partitions with
 * the same hint.gate (its own job id) and ranks 0, 1, ...; the first entry
 * to start wins and the others are cancelled, as the start gate of the
 * real deployment does (doc/architecture.md "Policies", sibling mode). When an
 * entry could start now but a better-ranked sibling could start now too, the
 * better one is started ("first in the first listed partition"); a sibling not
 * yet eligible (begin_time) does not count.
 */
#ifndef MS_SIMCLUSTER_H
#define MS_SIMCLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
#include "partitions/backend.h"
#include "partitions/clusterconf.h"

typedef enum {
    SIM_EASY = 0,     /* EASY backfill (default) */
    SIM_FCFS,         /* strict order, no backfill */
    SIM_CONSERVATIVE, /* every queued job holds a reservation */
} sim_backfill_t;

const char *sim_backfill_name (sim_backfill_t b);
int sim_backfill_parse (const char *s, sim_backfill_t *out);

/* The job model a simulated cluster reads from backend_hint. The real
 * backend ignores it; the core fills it for every submission. */
typedef struct {
    const void *job;       /* the workload's record, handed to the truth */
    double pred_runtime_s; /* predicted runtime at the requested frequency */
    double order_time;     /* queue order (the job's first submit time) */
    uint64_t gate;         /* start gate key (the core's job id); 0: none */
    int rank;              /* 0: the preferred sibling */
} sim_hint_t;

/* The truth: the runtime and per-node power of `job` on global partition
 * index `part` (into conf->parts) at f_khz on `nodes` nodes (a moldable
 * job's runtime depends on them). Return 0 or -1 with errp. With
 * runtime_s and power_w NULL (simworld_lazy_truth), only whether it
 * would answer: 0, or -1 with the error it would give. */
typedef int (*sim_truth_fn) (void *arg, const void *job, size_t part,
                             uint32_t f_khz, int nodes, double *runtime_s,
                             double *power_w, ms_error_t *errp);

typedef enum { SIM_EV_START, SIM_EV_END, SIM_EV_CANCEL } sim_evtype_t;

/* What the listener is told. For END and CANCEL of a started job, start
 * and end bound its run and energy_j = power_w * nodes * (end - start). */
typedef struct {
    sim_evtype_t type;
    double t;
    size_t cluster;         /* index into conf->clusters */
    size_t part;            /* index into conf->parts */
    uint64_t id;            /* the cluster's job id */
    const sim_hint_t *hint; /* as submitted; valid during the call */
    int nodes;
    uint32_t f_khz;
    double submit, start, end;
    double power_w; /* per node */
    double energy_j;
    bool killed;  /* ended at its time limit */
    bool started; /* CANCEL: had it started */
} sim_event_t;

typedef void (*sim_listener_fn) (void *arg, const sim_event_t *ev);

typedef struct simworld simworld_t;

/* Build the simulated clusters of conf (which must outlive the world). */
int simworld_new (const ms_siteconf_t *conf, sim_backfill_t bf,
                  sim_truth_fn truth, void *truth_arg, simworld_t **wp,
                  ms_error_t *errp);
void simworld_free (simworld_t *w);
void simworld_set_listener (simworld_t *w, sim_listener_fn fn, void *arg);
/* Ask the truth for a job's runtime and power when they are first needed
 * (its start, or a pass that weighs it against a power cap), and at its
 * submit only whether it would answer (runtime_s and power_w NULL): an
 * entry that never starts (a sibling whose gate opened elsewhere) never
 * costs the truth's work. The truth must then depend on its arguments
 * alone. A job cancelled before it was asked is reported with power_w 0.
 * Should the truth fail when finally asked, the first error is kept for
 * simworld_truth_error and the job runs for 0 s at 0 W. */
void simworld_lazy_truth (simworld_t *w);
/* 0, or -1 with the first error of a lazy truth. */
int simworld_truth_error (const simworld_t *w, ms_error_t *errp);
/* Room for njobs jobs (start gate keys 1 to njobs), each submitted to
 * up to every partition (siblings), at once (a hint: more still fit). */
void simworld_reserve (simworld_t *w, size_t njobs);

/* The backend of cluster i (index into conf->clusters), or NULL when that
 * cluster is not simulated. Owned by the world: do not destroy it. */
ms_backend_t *simworld_backend (simworld_t *w, size_t i);

double simworld_now (const simworld_t *w);
/* Time of the next job end, or INFINITY when nothing runs. */
double simworld_next_event (const simworld_t *w);
/* Process every event up to and including t, scheduling at each event
 * time, then set the clock to t (t >= now). */
void simworld_advance (simworld_t *w, double t);
/* Run the scheduling passes of partitions that changed (after submits). */
void simworld_schedule (simworld_t *w);
/* Process every remaining event. */
void simworld_drain (simworld_t *w);

/* State of global partition p now. */
int simworld_busy_nodes (const simworld_t *w, size_t p);
size_t simworld_pending (const simworld_t *w, size_t p);
size_t simworld_running (const simworld_t *w, size_t p);
/* Sum of allocated nodes ever over capacity, seen by the checks (0). */
size_t simworld_violations (const simworld_t *w);

#endif /* MS_SIMCLUSTER_H */
