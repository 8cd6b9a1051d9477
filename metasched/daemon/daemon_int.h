/* daemon_int.h - what the files of metaschedd's scheduling cycle share
 * (not part of the interface: that is daemon.h). One file per step of the
 * cycle, see metasched/daemon/README.
 *
 * One thread runs the cycle; the API server (metasched/api/api_server.c) runs
 * in its own thread and reaches the daemon only through the hooks (hooks.c),
 * which take d->ds.mu around what they read. The cycle holds d->ds.mu only
 * while it changes its in-memory picture (cluster state, the view, the
 * prediction table), never during a call to a cluster or the database.
 */
#ifndef MS_DAEMON_INT_H
#define MS_DAEMON_INT_H

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <jansson.h>

#include "db/db.h"
#include "db/queue.h"
#include "metasched/api/settings.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "metasched/core/candidates.h"
#include "metasched/core/choice.h"
#include "metasched/core/engine.h"
#include "metasched/core/hetplace.h"
#include "metasched/core/placement.h"
#include "metasched/core/policy.h"
#include "metasched/core/score.h"
#include "metasched/core/settings_table.h"
#include "metasched/api/api.h"
#include "metasched/daemon/dconf.h"
#include "metasched/daemon/dlog.h"
#include "metasched/daemon/dstate.h"
#include "metasched/daemon/mixids.h"
#include "metasched/daemon/tag.h"
#include "predictor/predictor.h"

#define UNKNOWN_APP "unknown"
#define MAX_REFUSED 5 /* dispatches refused in a row: then cancelled */

/* ---- state ---- */

typedef struct tabhold tabhold_t;   /* a prediction table and its holders */
typedef struct snap snap_t;         /* the picture the hooks read */
typedef struct depcache depcache_t; /* held jobs' dependencies (depend.c) */

/* A cluster job seen with a tag that does not prove its claim. */
typedef struct {
    size_t cl;
    uint64_t id;
} forgery_t;

typedef struct {
    uint64_t id;  /* cluster job id */
    double at;    /* mono () when noted */
    uint32_t set; /* an operator's --priority to set (0: metasched's
                     boost) */
} boost_t;

/* The refresher's latest reading of a cluster (refresh.c), under rf.mu:
 * the refresher writes it, the cycle takes it (take_readings). */
struct creading {
    ms_backend_t *b;     /* the refresher's own handle */
    double submitted_at; /* mono () of the latest submit (submit.c) */
    uint64_t unchanged;  /* readings answered "not modified" */
    bool is_new;         /* not yet taken by the cycle */
    bool failed;
    double started; /* mono () when the reading began */
    ms_partition_state_t *parts;
    size_t nparts;
    ms_job_info_t *jobs;
    size_t njobs;
    ms_error_t err;
    char api[16]; /* the OpenAPI version the reading spoke */
    /* the accounting (associations, QOS), read every ACCT_REFRESH_S */
    ms_accounting_t acct;
    bool acct_new;
    ms_error_t acct_err;
    bool acct_failed;
    double acct_at; /* mono () of the latest reading (its reader's) */
};

/* A cluster's turns in a dispatch (dispatch.c hands out the tickets,
 * submit.c serves them): its submit workers take turns in batch order,
 * tickets and serving under sub.mu; what stopped the cluster in this
 * dispatch is read and written by the worker whose turn it is. */
struct cturn {
    uint64_t tickets, serving;
    bool stop;
    char why[sizeof (((ms_error_t *)0)->text)];
};

/* A cluster: the cycle's view of it (under ds.mu), the refresher's latest
 * reading and the dispatch's turns. */
typedef struct {
    ms_backend_t *b; /* the cycle's handle (submits, cancels) */
    const ms_clusterconf_t *conf;
    bool up;    /* the last refresh worked */
    bool fresh; /* refreshed in this cycle */
    double retry_at;
    double backoff;
    uint64_t attempts, failures, submits;
    double submit_s; /* time in backend_submit, under ds.mu */
    ms_partition_state_t *parts;
    size_t nparts;
    ms_job_info_t *jobs; /* sorted by id */
    size_t njobs;
    boost_t *boost; /* to boost at the next listing, under rf.mu */
    size_t nboost, boostcap;
    bool have;          /* parts and jobs were read once */
    double last_action; /* mono () after the cycle's last submit or cancel */
    char last_error[256];
    char api_version[16]; /* slurmrestd's OpenAPI version spoken, under ds.mu */
    /* the cluster's accounting (associations, QOS) as the cycle took it
     * from the refresher's reading */
    ms_accounting_t acct;
    bool acct_read;       /* read once at least */
    char acct_error[256]; /* of the latest reading that failed */
    struct creading rd;   /* refresh.c, under rf.mu */
    struct cturn turn;    /* dispatch.c, submit.c */
} cluster_t;

#define ACCT_REFRESH_S 30.0

/* The state, by topic. Each topic is a small struct of its own, owned by
 * the file that implements it (the one that writes it; others only read,
 * where a comment names them); the shared part every step needs is at the
 * end of struct ms_daemon. Power budgets (dpower.c) and carbon signals
 * (dcarbon.c) are private structs of their files.
 *
 * Locks, in the order they may nest (none is held during a call to a
 * cluster or to the database):
 *   ds.mu   the decision state (below), owned by daemon.c's cycle
 *    -> sn.mu  the snapshot and its readers (snapshot.c; snapshot_publish
 *              runs under ds.mu)
 *   rf.mu   the refresher's readings (refresh.c): taken alone
 *   sub.mu  the submit workers' turns (submit.c): taken alone
 */

/* The refresher thread reads the clusters while the cycle dispatches
 * (refresh.c: refresher_start, take_readings). */
struct drefresh {
    pthread_t th;
    bool on;   /* the thread was started */
    bool stop; /* refresher_stop asks it to end (under this mu) */
    /* mu (refresh.c) guards each cluster_t's reading (rd) and boost
     * list, and stop and dispatch_busy; taken alone. cond wakes the
     * refresher. */
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool dispatch_busy; /* a cycle is dispatching (set by dispatch.c) */
};

/* The dispatch's submits: the workers' turns on each cluster (submit.c)
 * and the copies cancelled while they were being submitted (dispatch.c,
 * cancel_late). */
struct dsubmits {
    /* mu (submit.c) guards the clusters' turns (cluster_t's turn):
     * the submit workers' turns; taken alone. cond: a turn ended. */
    pthread_mutex_t mu;
    pthread_cond_t cond;
    /* copies of jobs cancelled while they were being submitted: cancelled
     * once the dispatch's workers are done with the clusters' handles
     * (the cycle's thread only) */
    struct {
        size_t cl;
        uint64_t bid;
        char cluster[MS_NAME_MAX];
    } * late;
    size_t nlate;
};

/* Leadership (leader.c). */
struct dleader {
    struct lease *lease; /* the lease and its thread */
    unsigned epoch;      /* the lease's acquisition this leadership began
                            with */
    bool leader;         /* read by the hooks (daemon_is_leader) */
    bool reconciled;     /* the first reconcile as leader is done (set by
                            daemon.c) */
    double checked;      /* when daemon_leadership () last said yes (set by
                            daemon.c) */
};

/* The counters of /metrics (hook_metrics, hooks.c, reads them under ds.mu);
 * each counted by the step that does it. */
struct dmetrics {
    uint64_t cycles, dispatched, decisions, requeued, adopted, dup_cancelled,
        reroutes, boosts, aged, db_errors;
    /* copies the start gate refused (their own end), jobs cancelled at
     * MAX_REFUSED refused dispatches in a row (doc/daemon.md, "Refused
     * copies") */
    uint64_t copies_refused, refused_cancelled;
    double last_cycle_s, decide_s;
    uint64_t batches;
    double commit_s, submit_s, record_s; /* of the dispatch batches */
    double submit_mark; /* when the latest batch's submits were done */
};

/* Cluster jobs whose tag claims a meta job it does not prove (tagged.c,
 * collect_tags; missing.c counts those of accounting): counted and logged
 * once each while a cluster lists them. */
struct dforgeries {
    uint64_t forged;
    forgery_t *list; /* sorted by cluster and id */
    size_t n;
};

/* The picture the hooks decide on, not under ds.mu (snapshot.c). */
struct dsnapshot {
    /* mu (snapshot.c) guards snap and the counts of its readers; taken
     * after ds.mu, or alone */
    pthread_mutex_t mu;
    snap_t *snap;
    tabhold_t *tabh; /* tab and its holders (set with tab, predict.c) */
};

/* The decision state: what a decision reads and the hooks' snapshot
 * copies. Its mu (owned by daemon.c's cycle; also taken by the steps and the
 * hooks around what they read or change here and in the clusters' state,
 * cluster_t) guards it; never held during a call to a cluster or to the
 * database. */
struct ddecision {
    pthread_mutex_t mu;
    predictor_t *pred; /* predict.c */
    ms_predtab_t *tab; /* predict.c */
    ms_view_t *view;   /* refresh.c, rebuild_view */
    ms_policy_t pol;   /* dsettings.c */
    ms_jobmix_t mix;   /* the jobs decided, for pol's width term, drain
                          price and calibrated energy odds: those of the
                          history re-read at the first cycle as leader
                          (daemon_mix_history), then each one at its
                          first decision (decide.c) */
    ms_mixids_t mixed; /* the jobs counted in mix still in the queue:
                          counted once, however often decided
                          (decide.c, mixids.c) */
    bool mix_loaded;   /* the history was re-read (dispatch.c) */
    ms_settings_t set; /* dsettings.c */
    ms_cands_t cs;     /* the latest decision's candidates (decide.c) */
};

struct ms_daemon {
    struct drefresh rf;      /* refresh.c */
    struct dsubmits sub;     /* submit.c, dispatch.c */
    struct dleader ld;       /* leader.c */
    struct dmetrics m;       /* hooks.c prints them */
    struct dforgeries forge; /* tagged.c */
    struct dspool *spool;    /* the nodes' spool drops (spooldrops.c) */
    struct dsnapshot sn;     /* snapshot.c */
    depcache_t *depcache; /* the dependencies of the held jobs, read once
                             per job (depend.c) */
    struct dpower *power; /* power budgets (dpower.c); under ds.mu */
    struct dcarbon *carbon; /* the zones' carbon signals (dcarbon.c); NULL:
                               none configured */
    struct cset *cset;      /* the signal set pol.carbon points into (a
                               snapshot's: held; dcarbon.c) */
    double last_refit;      /* predict.c */
    double last_pred_load;  /* predict.c */
    double last_retention;  /* mono () of the latest retention pass
                               (retention.c) */
    double grace_s;         /* reconcile.c's grace for new copies (set by
                               daemon.c) */
    /* the run loop's connection state (daemon.c) */
    unsigned db_reconnects_seen; /* of db, logged */
    unsigned listen_reconnects;
    bool listening;

    struct ddecision ds; /* the decision state, under ds.mu */

    /* The shared part, at the bottom: what every step needs. */
    const ms_dconf_t *dc;
    ms_siteconf_t *site; /* the daemon's copy: settings set power caps */
    db_t *db;            /* the cycle's connection (LISTEN too) */
    cluster_t *cl;
    size_t ncl;
    dwake_t wake;      /* the cycle's wake-up pipe (dstate.h) */
    tag_key_t tag_key; /* the site's key of the cluster jobs' tags (tag.h) */
};

/* The job's place in the prediction table (decide.c). */
typedef struct {
    int app;
    size_t home;
    double base_s;
    uint32_t limit_min; /* the user's (0: none) */
    int nodes;
    long pinned;                  /* partition index or -1 */
    uint32_t ntasks;              /* an array's tasks (0 or 1: one job) */
    uint32_t max_running;         /* its %N: at most N tasks at once; 0: any */
    const unsigned char *allowed; /* per partition: may it run there
                                     (placement.h); NULL: everywhere */
    int gpus;             /* GPUs per node (candidates_gpus); 0: a CPU job */
    int nodes_max;        /* moldable (-N MIN-MAX): the most nodes; 0: fixed */
    char nodes_list[128]; /* moldable (-N 2,4,8): its sizes; "": any */
    ms_cpufreq_t cpufreq; /* the user's --cpu-freq (all 0: none): the
                             candidates' frequency on each partition */
    double deadline;      /* its --deadline, Unix time (0: none): it may
                             start later for a cleaner run (carbon.h) */
} jobkey_t;

/* One job of a dispatch batch: what was decided, then what each submit
 * gave. */
typedef struct {
    queue_job_t j;
    json_t *opts;
    double base_s;
    size_t nch;
    ms_cand_t chosen[MS_MAX_CHOICES];
    ms_choice_t choices[MS_MAX_CHOICES];
    uint32_t limit;                  /* the first choice's scaled limit */
    uint32_t limits[MS_MAX_CHOICES]; /* each choice's (daemon_choice_limit),
                                        minutes (0: none) */
    bool opt; /* the first choice is the job's optimal partition */
    uint32_t maxlim[MS_MAX_CHOICES]; /* each choice's partition MaxTime,
                                        minutes (0: none) */
    double waves[MS_MAX_CHOICES];    /* an array's waves of tasks on each
                                        choice; 1 for a job */
    bool fits_nowhere;
    char *why;      /* fits nowhere by the rules: every reason, malloc'd */
    bool committed; /* dispatching, with its decision, on disk */
    char *cands;    /* decisions.candidates, JSON text */
    const char *ab; /* its A/B group (ab_group), NULL: none */
    double score;
    int rc[MS_MAX_CHOICES]; /* of each submit: 0 accepted, -1 not */
    uint64_t bid[MS_MAX_CHOICES];
    ms_error_t err[MS_MAX_CHOICES];
} djob_t;

/* The submits of a batch to one cluster, in one thread of their own: the
 * clusters take their submits side by side, and each cluster takes the
 * batches in order (its workers take turns), so that a cluster that is
 * done with one batch goes on with the next while another cluster still
 * works on the first. */
typedef struct {
    ms_daemon_t *d;
    size_t cl;
    djob_t *b;
    size_t n;
    bool siblings;
    uint64_t ticket; /* this worker's turn on its cluster */
    uint64_t accepted;
    double busy_s; /* in backend_submit */
    bool failed;   /* could not connect: the cluster goes into backoff */
    ms_error_t fail;
    pthread_t th;
    bool threaded;
} sworker_t;

/* A cluster job whose tag proves that it is meta job <tag>'s: its MAC
 * verifies on its cluster and its user is the meta job's owner
 * (tagged.c, collect_tags). */
typedef struct {
    int64_t tag;
    size_t cl;
    const ms_job_info_t *j;
} tagged_t;

/* dsettings.c: the admin's settings from the database into d->ds.set and
 * d->ds.pol (each cycle, and again once the cycle has read its first queued
 * jobs) */
void daemon_load_settings (ms_daemon_t *d);
/* ... settings s (read) into them: the policy, its dispatch mode
 * (engine_dispatch_mode), the site's caps, the power budgets. Caller holds
 * d->ds.mu. */
void daemon_apply_settings (ms_daemon_t *d, const ms_settings_t *s);

/* leader.c (and daemon_is_leader, daemon.h's) */
bool daemon_leadership (ms_daemon_t *d);
void daemon_lease_stop (ms_daemon_t *d);
bool daemon_is_leader (const ms_daemon_t *d);

/* retention.c */
void daemon_retention (ms_daemon_t *d);
/* The spools' drops, re-read from the database (spooldrops.c). */
void daemon_spool_drops (ms_daemon_t *d);
void daemon_spool_drops_free (ms_daemon_t *d);
/* Their lines of /metrics, appended to *buf (under d->ds.mu). */
void daemon_spool_drops_metrics (const ms_daemon_t *d, char **buf, size_t *len,
                                 size_t *cap);

/* missing.c: a tagged job its controller no longer lists */
int missing_dispatch (ms_daemon_t *d, const queue_live_t *l, ms_error_t *errp);
int missing_sub (ms_daemon_t *d, size_t ci, const queue_live_t *l,
                 const queue_sub_t *s, ms_error_t *errp);

/* refresh.c */
const ms_job_info_t *cluster_find_job (const cluster_t *c, uint64_t id);
void cluster_failed (ms_daemon_t *d, cluster_t *c, const ms_error_t *e);
void refresh_clusters (ms_daemon_t *d);
void take_readings (ms_daemon_t *d);
void refresher_start (ms_daemon_t *d);
/* The refresher thread ended and joined (daemon_free); nothing when it
 * never started. */
void refresher_stop (ms_daemon_t *d);
bool all_fresh (const ms_daemon_t *d);
long cluster_index (const ms_daemon_t *d, const char *name);
long part_index (const ms_daemon_t *d, const char *cluster, const char *part);
void rebuild_view (ms_daemon_t *d);

/* predict.c */
int load_predictor (ms_daemon_t *d, ms_error_t *errp);
void daemon_refit (ms_daemon_t *d);

/* place.c: where a job may run (job_key, job_placement and
 * job_placement_opts, job_gpus_*, partition_request, cluster_request,
 * placement_reasons_text, job_constraints, hetjob_first_nodes,
 * hetjob_restrict, component_places) */
int job_key (const ms_daemon_t *d, const char *app, int nodes,
             uint32_t limit_min, const char *pinned, jobkey_t *k);
void daemon_candidates (ms_daemon_t *d, const jobkey_t *k, bool every_cluster);
/* ab.c: the A/B baseline group */
#define AB_BASELINE "baseline"
#define AB_METASCHED "metasched"
/* Meta job id's draw in [0, 1), keyed with the site's tag key. */
double ab_draw (const tag_key_t *key, int64_t id);
/* Its group under d->ds.set.ab_share: AB_BASELINE, AB_METASCHED, or NULL
 * when ab_share is 0. */
const char *ab_group (const ms_daemon_t *d, int64_t id);
/* The baseline's one choice over d->ds.cs into dec. Caller holds d->ds.mu. */
void ab_decide (ms_daemon_t *d, ms_decision_t *dec);
/* decide.c */
void daemon_decide (ms_daemon_t *d, const jobkey_t *k, bool every_cluster,
                    ms_decision_t *dec);
/* The job's candidates on every partition it could run on by its size,
 * GPUs and time limit, whatever was asked for it, counted in d->ds.mix at
 * when. Caller holds d->ds.mu. */
void daemon_mix_count (ms_daemon_t *d, const jobkey_t *k, double when);
/* The job mix counts a job once (doc/daemon.md): a pass over the queue
 * begins with the jobs in flight (live, n: they stay counted, since they
 * may come back to the queue); daemon_decide_job sees the queued ones;
 * daemon_mix_prune, once the pass has read the whole queue, forgets the
 * jobs it did not see (they have left it). Under d->ds.mu (both take it). */
void daemon_mix_live (ms_daemon_t *d, const queue_live_t *live, size_t n);
void daemon_mix_prune (ms_daemon_t *d);
/* One queued job j (its options opts) decided as the dispatch decides it:
 * its constraints (job_constraints, allowed the caller's buffer of
 * site->nparts), its array, its count in the job mix (at its first
 * decision only: d->ds.mixed; with its submission time), then the policy's
 * decision on the partitions of reachable clusters into dec over d->ds.cs.
 * Returns -1 when it fits nowhere (*whyp: the rules' reasons, malloc'd, or
 * NULL), else 0; dec->n 0 when every cluster that could run it is
 * unreachable, *downp (malloc'd, may be NULL) saying which. Caller holds
 * d->ds.mu. */
int daemon_decide_job (ms_daemon_t *d, const queue_job_t *j, json_t *opts,
                       unsigned char *allowed, jobkey_t *k, ms_decision_t *dec,
                       char **whyp, char **downp);
/* The entries of decision dec that the dispatch sends, into out (may be
 * dec): the engine's sibling set (engine_entries) under the settings and
 * power budgets in force. Caller holds d->ds.mu. */
void daemon_entries (const ms_daemon_t *d, const ms_decision_t *dec,
                     ms_decision_t *out);
/* The time limit (minutes, 0: none) of job k's entry on candidate c, whose
 * predictions count `waves` waves of an array's tasks (1 for a job), on a
 * partition that allows max_min at most (job_time_cap; 0: no maximum):
 * the engine's rule (engine_limit_min). */
uint32_t daemon_choice_limit (const ms_daemon_t *d, const jobkey_t *k,
                              const ms_cand_t *c, double waves,
                              uint32_t max_min);
/* Every candidate of decision dec over cs as the JSON text of
 * decisions.candidates, with the score the choice was made by and the
 * hints of spec (may be NULL) that its cluster drops ("notes");
 * *chosen_score (may be NULL) the first choice's (-1: none). Caller holds
 * d->ds.mu (or decides on a snapshot). */
char *candidates_json (const ms_daemon_t *d, const ms_cands_t *cs,
                       const ms_decision_t *dec, const ms_jobspec_t *spec,
                       double *chosen_score);
/* The job-wide terms of metasched's ranking over cs (policy_explain) as a
 * new JSON object; NULL under the other policies. */
json_t *ranking_json (const ms_daemon_t *d, const ms_cands_t *cs);
/* The MaxTime of partition part as its cluster reports it (clusters.conf
 * over it), minutes; 0: unlimited or unknown. Caller holds d->ds.mu. */
uint32_t partition_max_time (const ms_daemon_t *d, size_t part);
/* The longest limit a job may get on partition part: its MaxTime and,
 * where the cluster runs accounting, the MaxWall of the job's QOS and
 * association there (minutes; 0: none). Caller holds d->ds.mu. */
uint32_t job_time_cap (const ms_daemon_t *d, json_t *opts, const char *user,
                       size_t part);
/* An array (k->ntasks > 1) on partition part: the tasks that run at once
 * (*concp, may be NULL: its %N limit, the partition's nodes) and in how
 * many waves they run (1 for a job): engine_array_waves. */
double array_waves (const ms_daemon_t *d, const jobkey_t *k, size_t part,
                    int *concp);
/* Where the job of spec (its user, nodes, limit, paths) may run: allowed[p]
 * for each configured partition, and in *excluded (when not NULL) a new
 * JSON array of {cluster, partition, reason} for each place it may not
 * go. Returns how many partitions it may run on. Caller holds d->ds.mu. */
size_t job_placement (const ms_daemon_t *d, const ms_jobspec_t *spec,
                      const char *user, int nodes, uint32_t limit_min,
                      const char *cwd, const char *out, const char *err,
                      const char *in, int tasks, int tasks_per_node,
                      int cpus_per_task, unsigned char *allowed,
                      json_t **excluded);
/* The same from a job's stored options (jobs.options). */
/* The GPUs per node of a job's stored options on `nodes` nodes (0: none;
 * jobspec_gpus_per_node). */
int job_gpus_opts (json_t *opts, int nodes);
/* A job asking for more GPUs per node (of type `type`, "" any) than any
 * partition offers: -1 with errp (HTTP 400) naming the largest offer. */
int job_gpus_check (const ms_daemon_t *d, int gpus, const char *type,
                    ms_error_t *errp);
/* A job's key with everything that bounds where it may go: the site's and
 * the clusters' rules (placement), its --partition under
 * partition_requests, its GPUs and a moldable job's most nodes; allowed
 * (nparts bytes) gets the partitions it may run on and k->allowed points
 * to it. -1 when it may run nowhere, *whyp (malloc'd, or NULL) saying
 * why. Caller holds d->ds.mu. */
int job_constraints (const ms_daemon_t *d, const queue_job_t *j, json_t *opts,
                     unsigned char *allowed, jobkey_t *k, char **whyp);
/* Re-read the jobs decided before this start (the last MS_MIX_JOBS with
 * a decision, db_replay_decided) into d->ds.mix, as dispatch counted them,
 * those still in the queue into d->ds.mixed (decided again, they are not
 * counted again), and log what the calibration has from them. */
void daemon_mix_history (ms_daemon_t *d);

size_t job_placement_opts (const ms_daemon_t *d, json_t *opts, const char *user,
                           int nodes, uint32_t limit_min,
                           unsigned char *allowed, json_t **excluded);
/* A job's --partition under the site's partition_requests: honor (the
 * partitions of that name), map (partition_map's class, else honor).
 * allowed[] keeps only those, excluded keeps only their reasons, *shown
 * (may be NULL) gets {asked, mode, partitions}. Returns how many
 * partitions remain, -2 when there is nothing to apply (no request, or
 * refuse: job_key's pin), -1 with errp (HTTP 400) naming a partition no
 * cluster has. Caller holds d->ds.mu. */
long partition_request (const ms_daemon_t *d, const char *req,
                        unsigned char *allowed, json_t *excluded,
                        json_t **shown, ms_error_t *errp);
/* A job's --clusters under the site's cluster_requests: honor (the
 * partitions of the clusters named; "all": every one), map (cluster_map's
 * class, else honor). allowed[] keeps only those, excluded only their
 * reasons, *shown (may be NULL) gets {asked, mode, clusters}. Returns how
 * many partitions remain, -2 when there is nothing to apply (no request, or
 * refuse: the API refused it), -1 with errp (HTTP 400) naming a cluster
 * the site does not have. Caller holds d->ds.mu. */
long cluster_request (const ms_daemon_t *d, const char *req,
                      unsigned char *allowed, json_t *excluded, json_t **shown,
                      ms_error_t *errp);
/* The reasons of an excluded array as one line ("a: r1; b/p: r2"). */
char *placement_reasons_text (json_t *excluded);

/* The partitions (allowed[], site->nparts bytes) where component c of a
 * heterogeneous job fits by the rules (job_placement); how many. Caller
 * holds d->ds.mu. */
size_t component_places (const ms_daemon_t *d, const ms_jobspec_t *c,
                         const char *user, uint32_t limit_min, const char *cwd,
                         unsigned char *allowed);

/* hetjob.c: heterogeneous jobs (hetjob_first_nodes and hetjob_restrict
 * are place.c's) */
/* The first component's nodes of a job's stored options (the column holds
 * all components'); nodes for an ordinary job. */
int hetjob_first_nodes (json_t *opts, int nodes);
/* A note for each hint of a later Slurm release (jobspec_since.c) that
 * a cluster with a partition in allowed[] cannot carry: it is dropped
 * there. */
void job_since_notes (const ms_daemon_t *d, const ms_jobspec_t *spec,
                      const unsigned char *allowed, json_t *notes);
/* The same notes for cluster cl alone, as the JSON strings of a list
 * ("\"--stepmgr: dropped ...\",..."; "" for none) in buf. */
void job_since_cluster_notes (const ms_daemon_t *d, const ms_jobspec_t *spec,
                              size_t cl, char *buf, size_t len);
/* Keep in allowed[] (of the first component) only the clusters where every
 * other component of spec fits a partition and whose nodes hold all the
 * components together; each cluster dropped is a reason in excluded (may
 * be NULL). Caller holds d->ds.mu. */
void hetjob_restrict (const ms_daemon_t *d, const ms_jobspec_t *spec,
                      const char *user, uint32_t limit_min, const char *cwd,
                      unsigned char *allowed, json_t *excluded);
/* The requests of the components after the first (spec->nhet of them,
 * malloc'd; their sbatch point into spec), on the cluster of partition
 * part, where first goes: each component the same partition where it fits,
 * else the first of that cluster it fits; each its own time limit times
 * scale (the job's scaled limit over the one asked). NULL with errp where
 * one fits none now. Takes d->ds.mu. */
ms_job_request_t *hetjob_requests (ms_daemon_t *d, const ms_jobspec_t *spec,
                                   const ms_job_request_t *first, size_t part,
                                   const char *user, double scale,
                                   ms_error_t *errp);

/* submit.c */
bool unknown_outcome (const ms_error_t *e);
void *submit_worker (void *arg);

/* boost.c */
void boost_later (ms_daemon_t *d, cluster_t *cl, uint64_t bid);
/* Set the priority an operator gave (--priority) on a cluster job, at the
 * next listing (as boosts are). */
void priority_later (ms_daemon_t *d, cluster_t *cl, uint64_t bid,
                     uint32_t prio);
void apply_boosts (ms_daemon_t *d, cluster_t *c, ms_backend_t *b,
                   const ms_job_info_t *jobs, size_t nj);

/* reconcile.c: a refused dispatch */
int job_refused (ms_daemon_t *d, int64_t id, const char *from, int refusals,
                 const char *why, ms_error_t *errp);
int dispatch_queued (ms_daemon_t *d);

/* snapshot.c */
tabhold_t *tabhold_new (ms_predtab_t *tab);
/* Drop one hold; the last frees the table. */
void tabhold_release (ms_daemon_t *d, tabhold_t *h);
/* Copy the picture (tab, view, clusters' partitions and accounting,
 * policy, settings) into a new snapshot for the hooks. Caller holds
 * d->ds.mu; nothing before the first table and view. */
void snapshot_publish (ms_daemon_t *d);
/* The latest snapshot, counted in (NULL: none yet); snapshot_drop when
 * done. Takes only d->sn.mu. */
snap_t *snapshot_take (ms_daemon_t *d);
void snapshot_drop (ms_daemon_t *d, snap_t *s);
void snapshot_fini (ms_daemon_t *d);
/* A private daemon over the snapshot's picture, for decide.c's functions
 * (its own candidate list; free it with candidates_free of its cs and
 * free). */
ms_daemon_t *snapshot_daemon (const snap_t *s);
/* The energy odds' figures the snapshot was taken with. */
void snapshot_odds (const snap_t *s, double *lean, double *wait_share,
                    size_t *nseen, size_t *nring);

/* depend.c */
int daemon_dependencies (ms_daemon_t *d);
void depcache_free (depcache_t *c);

/* tagged.c */
tagged_t *collect_tags (ms_daemon_t *d, const queue_live_t *live, size_t nlive,
                        size_t *np);
/* The live meta job id in live[0..n) (sorted by id), NULL if none. */
const queue_live_t *find_live (const queue_live_t *live, size_t n, int64_t id);

/* reconcile.c */
int daemon_reconcile (ms_daemon_t *d, const queue_live_t *live, size_t nlive,
                      const tagged_t *tags, size_t ntags);
int daemon_follow (ms_daemon_t *d, const queue_live_t *live, size_t nlive);
int daemon_reroute (ms_daemon_t *d, const queue_live_t *live, size_t nlive);
/* The re-route of job k waiting on partition cur (engine_reroute over its
 * candidates on the clusters up, under the power budgets in force): true
 * when it goes, with the decision in dec, the predicted wait where it
 * waits in *wcurp and at its first choice in *wnewp. Under d->ds.mu. */
bool daemon_reroute_choice (ms_daemon_t *d, const jobkey_t *k, size_t cur,
                            ms_decision_t *dec, double *wcurp, double *wnewp);

/* ---- carbon signals (dcarbon.c) ---- */
/* Start reading the sources of carbon_signal (none: nothing). */
void daemon_carbon_start (ms_daemon_t *d);
void daemon_carbon_free (ms_daemon_t *d);
/* The cycle's signal set from the fresh zones, into d->ds.pol; under ds.mu. */
void daemon_carbon_update (ms_daemon_t *d);
/* A snapshot's hold on the current set, and its end. */
struct cset *daemon_carbon_hold (ms_daemon_t *d);
void daemon_carbon_drop (ms_daemon_t *d, struct cset *c);
/* The zones left out and why; NULL: none. */
const char *daemon_carbon_note (const ms_daemon_t *d);
void daemon_carbon_metrics (ms_daemon_t *d, char **buf, size_t *len,
                            size_t *cap);

/* ---- power budgets (dpower.c) ---- */

/* The budgets of s (live) or metaschedd.conf's; under ds.mu. */
void daemon_power_settings (ms_daemon_t *d, const ms_settings_t *s);
/* The tracker rebuilt from the clusters' jobs; under ds.mu. */
void daemon_power_rebuild (ms_daemon_t *d);
/* Power over time: the budget and predicted draw of each cluster and the
 * site into power_history (at most once a minute; old rows pruned). */
void daemon_power_history (ms_daemon_t *d);
/* Measured power: the latest sample of each running job (job_power) summed
 * per cluster and the site; its /metrics lines (under d->ds.mu). */
void daemon_power_measure (ms_daemon_t *d);
/* The corrections of the predicted power of running jobs metasched sent:
 * per (app, partition), power_correction of measured over predicted power
 * of its recent finished runs (read once a minute). */
void daemon_power_corrections (ms_daemon_t *d);
void daemon_power_measured_metrics (ms_daemon_t *d, char **buf, size_t *len,
                                    size_t *cap);
/* A cluster job metasched submitted: its predicted draw (takes ds.mu). */
void daemon_power_record (ms_daemon_t *d, size_t part, uint64_t bid,
                          const ms_cand_t *c, const char *app);
/* The budgets' tracker of the predicted draw (engine's rules); NULL
 * without budgets. Under d->ds.mu. */
const ms_power_t *daemon_power_budgets (const ms_daemon_t *d);
bool daemon_power_on (const ms_daemon_t *d);
/* A new dispatch pass: no job held in it yet (daemon_power_place); under
 * ds.mu. */
void daemon_power_pass (ms_daemon_t *d);
/* The job's place under the budgets, over its candidates d->ds.cs (the
 * engine's engine_power_place, the simulator's rule: where it starts now
 * under every budget, and by the reservation of the pass's oldest held
 * job; d->ds.cs left with those places): 0, dec to dispatch; 1, held, *whyp
 * (malloc'd) saying which budget or that no place starts it now, and when
 * it is expected to go; -1, no candidate. Under ds.mu. */
int daemon_power_place (ms_daemon_t *d, ms_decision_t *dec, char **whyp);
/* A job's entry decided now (counted until the next rebuild); under ds.mu. */
void daemon_power_dispatched (ms_daemon_t *d, uint64_t job,
                              const ms_cand_t *c);
/* /metrics lines; under ds.mu. */
void daemon_power_metrics (ms_daemon_t *d, char **buf, size_t *len,
                           size_t *cap);
/* The API's check_power hook (api.h). */
int daemon_power_check (void *ctx, const char *text, ms_error_t *errp);
void daemon_power_free (ms_daemon_t *d);
/* A tracker of its own for a snapshot (NULL: no budget); under ds.mu. */
struct dpower *daemon_power_copy (ms_daemon_t *d);
void daemon_power_release (struct dpower *p);

#endif /* MS_DAEMON_INT_H */
