/* queue.h - the statements of metaschedd's cycle on the meta queue (jobs,
 * decisions, job_submissions; db/migrations/0001 and 0003).
 *
 * Every state change names the state it expects (UPDATE ... WHERE state =
 * the old one), so a row the API changed meanwhile (a cancel) is never
 * overwritten: such a call affects no row and returns 0 with *changed
 * false. The transitions themselves are checked by the table's trigger.
 */
#ifndef MS_QUEUE_H
#define MS_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "metasched/common/error.h"

/* A queued job as the cycle decides it. */
typedef struct {
    int64_t id;
    char owner[65];
    long uid, gid;
    char name[129];
    char app[129];
    int nodes;
    int attempts;            /* dispatches so far (queue_take_queued) */
    int refusals;            /* dispatches refused in a row (0015) */
    char *script;            /* malloc'd */
    char *options;           /* malloc'd JSON object text */
    double age_s;            /* since submission */
    uint32_t time_limit_min; /* the user's own limit; 0: none */
} queue_job_t;

void queue_job_free (queue_job_t *j);

/* Up to max queued jobs with ids above `after`, oldest first (the cycle's
 * dispatch batch); free each with queue_job_free and the array with free. */
int queue_take_queued (db_t *db, int64_t after, size_t max,
                       queue_job_t **jobsp, size_t *np, ms_error_t *errp);

/* A transaction of several statements below (their _tx forms): wait_flush
 * false commits without waiting for the flush (synchronous_commit off).
 * On an error inside, queue_rollback and start again. */
/* Job id as queue_take_queued reads it, in whatever state (*found false
 * when there is none); free with queue_job_free. */
int queue_job_load (db_t *db, int64_t id, queue_job_t *j, bool *found,
                    ms_error_t *errp);

int queue_begin (db_t *db, bool wait_flush, ms_error_t *errp);
int queue_commit (db_t *db, ms_error_t *errp);
void queue_rollback (db_t *db);

/* queued -> deciding; *claimed false when the job is no longer queued. */
int queue_claim (db_t *db, int64_t id, bool *claimed, ms_error_t *errp);

/* What was decided for a job (the first choice). */
typedef struct {
    const char *cluster, *partition;
    uint32_t freq_khz;
    double time_s, energy_j, power_w, wait_s;
    uint32_t time_limit_min; /* 0: none */
    const char *policy;
    double score;
    const char *candidates_json; /* JSON array */
    const char *ab_group;        /* "baseline", "metasched"; NULL: none */
} queue_choice_t;

/* queued -> dispatching with the choice, and the decision row, for n jobs
 * in one round trip to the server, inside the caller's
 * transaction (queue_begin with wait_flush: it must be on disk before
 * anything is submitted); changed[i] is false when ids[i] was no longer
 * queued (cancelled meanwhile). */
int queue_dispatching_many (db_t *db, const int64_t *ids,
                            const queue_choice_t *cs, size_t n, bool *changed,
                            ms_error_t *errp);

/* One submission to a cluster. */
typedef struct {
    const char *cluster, *partition;
    uint32_t freq_khz;
    uint64_t cluster_job_id;
    int rank;
    int nice; /* metasched's part of the copy's nice (0: none) */
    bool gated; /* sent through the start gate (sibling mode) */
} queue_sub_new_t;

/* dispatching -> submitted with the first submission's cluster job id,
 * and a job_submissions row for each of subs, inside the caller's
 * transaction (which need not wait for the flush: a lost commit leaves the
 * row dispatching, and reconciliation adopts the cluster job by its tag).
 * When the job left dispatching meanwhile (cancelled), the rows are still
 * recorded and *changed is false: the caller cancels them on the
 * clusters. */
int queue_submitted_tx (db_t *db, int64_t id, const queue_sub_new_t *subs,
                        size_t n, bool *changed, ms_error_t *errp);

/* Back to queued from `from` (deciding, dispatching, submitted, lost),
 * with the reason; reroute adds one to jobs.reroutes. */
int queue_requeue (db_t *db, int64_t id, const char *from, const char *why,
                   bool reroute, bool *changed, ms_error_t *errp);

/* To unknown from `from` (dispatching, submitted, running), with the
 * reason: its cluster forgot it and keeps no accounting to ask. */
int queue_unknown (db_t *db, int64_t id, const char *from, const char *why,
                   bool *changed, ms_error_t *errp);

/* A refused dispatch (doc/daemon.md, "Refused copies"): from `from`
 * back to queued, or to cancelled where cancel (the refusals reached
 * MAX_REFUSED), with the reason; one more refusal in a row
 * (jobs.refusals). A copy that starts (queue_running) or a re-route
 * (queue_requeue) sets the count back to 0. */
int queue_refused (db_t *db, int64_t id, const char *from, const char *why,
                   bool cancel, bool *changed, ms_error_t *errp);

/* The copies of job id's dispatch under way (job_submissions.attempt =
 * jobs.attempts) by their recorded state. */
typedef struct {
    int live;     /* submitted or running */
    int refused;  /* refused by the start gate */
    int ended;    /* ended without a claim, another way (failed) */
    bool claimed; /* a copy has claimed the job by now */
    int lost;     /* unknown to its cluster, never having claimed */
} queue_copies_t;

int queue_dispatch_copies (db_t *db, int64_t id, queue_copies_t *c,
                           ms_error_t *errp);

/* To cancelled from `from`, with the reason. */
int queue_cancel (db_t *db, int64_t id, const char *from, const char *why,
                  bool *changed, ms_error_t *errp);

/* An in-flight job (deciding, dispatching, submitted, running, and
 * cancelled ones that still have live submissions). */
typedef struct {
    int64_t id;
    char state[16];
    char cluster[65], partition[65];
    uint64_t cluster_job_id; /* 0: none */
    char claimed_cluster[65];
    uint64_t claimed_job_id;
    double age_s; /* since the last state change */
    int nodes, reroutes;
    int attempts; /* dispatches so far */
    int refusals; /* dispatches refused in a row (migration 0015) */
    double predicted_time_s;
    char app[129];
    uint32_t array_tasks; /* an array's tasks; 0: not an array */
    char owner[65];       /* the user it runs as on the clusters */
} queue_live_t;

int queue_live_jobs (db_t *db, queue_live_t **outp, size_t *np,
                     ms_error_t *errp);

/* A submission still pending or running on its cluster, as recorded. */
typedef struct {
    int64_t job_id;
    char cluster[65], partition[65];
    uint32_t freq_khz;
    uint64_t cluster_job_id;
    int rank;
    char state[16];
    double age_s; /* since submitted */
    int nice;     /* metasched's part of its nice, while it has one */
    bool gated;   /* sent through the start gate: only a claimer ran */
} queue_sub_t;

int queue_live_subs (db_t *db, queue_sub_t **outp, size_t *np,
                     ms_error_t *errp);
/* Every submission ever recorded for job id (any state). */
int queue_job_subs (db_t *db, int64_t id, queue_sub_t **outp, size_t *np,
                    ms_error_t *errp);

/* Record a submission found on a cluster (reconcile): insert it if it is
 * not known. */
int queue_sub_record (db_t *db, int64_t id, const queue_sub_new_t *s,
                      const char *state, ms_error_t *errp);
/* metasched's part of a submission's nice was taken back: record 0. */
int queue_sub_aged (db_t *db, const char *cluster, uint64_t cluster_job_id,
                    ms_error_t *errp);
/* Set a submission's state ("running", "ended", "cancelled", "lost",
 * "refused"). */
int queue_sub_state (db_t *db, const char *cluster, uint64_t cluster_job_id,
                     const char *state, ms_error_t *errp);

/* dispatching -> submitted for a submission found after a crash. */
int queue_adopt (db_t *db, int64_t id, const char *cluster,
                 const char *partition, uint64_t cluster_job_id, bool *changed,
                 ms_error_t *errp);
/* submitted -> running on (cluster, partition, cluster_job_id); also a
 * running row onto the copy that claimed the job (sibling mode: a loser
 * may have been seen running first). */
int queue_running (db_t *db, int64_t id, const char *cluster,
                   const char *partition, uint64_t cluster_job_id,
                   bool *changed, ms_error_t *errp);
/* submitted/running -> completed or failed (state), exit code (< 0:
 * unknown), the reason for a failure (NULL: none). */
int queue_finished (db_t *db, int64_t id, const char *state, int exit_code,
                    const char *why, bool *changed, ms_error_t *errp);
/* A note in last_error without a state change. */
int queue_note (db_t *db, int64_t id, const char *why, ms_error_t *errp);

/* ---- dependencies (metasched/daemon/depend.c) ---- */

/* A queued job held back by its dependency (jobs.held 'Dependency'). */
typedef struct {
    int64_t id;
    long uid;
    bool singleton_clear;   /* no other live job of the user's with its
                               name comes first */
    char *last_error;       /* "" if none */
} queue_held_t;

/* Every held job, oldest first, in one statement (singleton_clear in one
 * pass over the live jobs grouped by user and name); free with
 * queue_held_free. */
int queue_held_jobs (db_t *db, queue_held_t **outp, size_t *np,
                     ms_error_t *errp);
void queue_held_free (queue_held_t *h, size_t n);

/* What a held job asks, from its options (which never change: read once
 * per job, queue_held_deps). */
typedef struct {
    bool found;
    char *dependency;     /* options.dependency as the user gave it
                             (malloc'd) */
    bool kill_on_invalid; /* false: --kill-on-invalid-dep=no */
} queue_held_dep_t;

/* The dependencies of the jobs ids[0..n) (sorted, each once) in one
 * statement; out[i].found false for a job that is gone. */
int queue_held_deps (db_t *db, const int64_t *ids, size_t n,
                     queue_held_dep_t *out, ms_error_t *errp);

/* What a dependency sees of the meta jobs ids[0..n) (sorted, each once:
 * every held job's targets in one statement): exists[i], uid[i], state[i]
 * (16 bytes each), started[i], since_s[i] (since it started, or ended
 * where it never started). */
typedef struct {
    bool exists;
    long uid;
    char state[16];
    bool started;
    double since_s;
} queue_dep_job_t;

int queue_dep_jobs (db_t *db, const int64_t *ids, size_t n,
                    queue_dep_job_t *out, ms_error_t *errp);

/* held 'Dependency' -> NULL for every job of ids[0..n) still so held, in
 * one statement; *releasedp (malloc'd, *nreleased of them) gets those it
 * released. */
int queue_release_many (db_t *db, const int64_t *ids, size_t n,
                        int64_t **releasedp, size_t *nreleased,
                        ms_error_t *errp);
/* last_error = why[i] for each job ids[i] whose note differs, in one
 * statement. */
int queue_note_many (db_t *db, const int64_t *ids, const char *const *why,
                     size_t n, ms_error_t *errp);

/* held 'Dependency' -> NULL (the dispatch takes it); *changed false when
 * the job was no longer held so (cancelled meanwhile). */
int queue_release (db_t *db, int64_t id, bool *changed, ms_error_t *errp);
/* held 'Dependency' -> 'DependencyNeverSatisfied' with the reason
 * (--kill-on-invalid-dep=no: it stays until the user cancels it). */
int queue_hold_never (db_t *db, int64_t id, const char *why, bool *changed,
                      ms_error_t *errp);

/* ---- array tasks (job_tasks) ---- */

typedef struct {
    uint32_t task_id;
    char cluster[65];
    uint64_t cluster_job_id;
    char state[16]; /* pending running completed failed cancelled timeout
                       node_fail other */
    int exit_code;  /* -1: unknown */
    char reason[128];
    int64_t start_time, end_time; /* Unix time; 0: not known */
} queue_task_t;

/* The recorded tasks of job id, by task id. */
int queue_job_tasks (db_t *db, int64_t id, queue_task_t **outp, size_t *np,
                     ms_error_t *errp);
/* The tasks of a cancelled job that were pending or running: cancelled. */
int queue_tasks_cancelled (db_t *db, int64_t id, ms_error_t *errp);
/* Insert or update task t of job id. */
int queue_task_set (db_t *db, int64_t id, const queue_task_t *t,
                    ms_error_t *errp);

#endif /* MS_QUEUE_H */
