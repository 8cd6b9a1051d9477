/* backend.h - what the scheduling core needs from a cluster.
 *
 * A backend is a table of operations (ms_backend_ops) plus its private
 * context. Two implementations exist: slurmrest.c talks to a real Slurm
 * cluster through slurmrestd, simcluster.c is the event-driven simulated
 * cluster. The scheduling core in metasched/ calls only the backend_*
 * wrappers below and never knows which one it drives, so the daemon and
 * the simulator share every policy line (doc/architecture.md "Layout").
 *
 * Conventions: every operation returns 0 on success and -1 on failure with
 * errp filled. Arrays returned through out-parameters are owned by the
 * caller and freed with the matching *_free function.
 */
#ifndef MS_BACKEND_H
#define MS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "metasched/common/error.h"
#include "partitions/clusterconf.h"

typedef enum {
    MS_JOB_PENDING = 0,
    MS_JOB_RUNNING,
    MS_JOB_SUSPENDED,
    MS_JOB_COMPLETING,
    MS_JOB_COMPLETED,
    MS_JOB_FAILED,
    MS_JOB_CANCELLED,
    MS_JOB_TIMEOUT,
    MS_JOB_NODE_FAIL,
    MS_JOB_OTHER,
} ms_job_state_t;

const char *ms_job_state_name (ms_job_state_t s);
ms_job_state_t ms_job_state_parse (const char *s);
/* A job in a final state will not change any more. */
bool ms_job_state_final (ms_job_state_t s);

/* Nodes of a partition that share one set of features. */
#define MS_FEATSETS_MAX 8
typedef struct {
    char features[192];   /* comma-separated, as the cluster lists them */
    int nodes;
} ms_featset_t;

/* One partition of a cluster, its limits and its free resources now. */
typedef struct {
    char name[64];
    bool up;              /* accepting and starting jobs */
    int nodes_total;
    int nodes_idle;       /* wholly free nodes */
    int nodes_alloc;      /* nodes with at least one job */
    int nodes_down;       /* down, drained or failing */
    int cpus_total;
    int cpus_idle;
    int gpus_total;       /* GPUs of its usable nodes (gres gpu; 0: none) */
    int gpus_idle;        /* ... not held by a job */
    int64_t max_time_min; /* -1: unlimited */
    int64_t default_time_min; /* -1: none */
    int pending_jobs;     /* jobs queued on this partition */
    int running_jobs;
    /* Limits, as the cluster reports them (Slurm's partition and node
     * configuration); clusters.conf may set or override them. A job that
     * breaks one is no candidate here (metasched/core/placement.h). */
    int max_nodes;        /* per job; -1: unlimited */
    int min_nodes;        /* per job; 0: none */
    int64_t mem_per_node_mb; /* the least RealMemory of its nodes; 0: unknown */
    char allow_accounts[256]; /* comma-separated; "" or ALL: every account */
    char deny_accounts[256];
    char allow_groups[256];   /* "" or ALL: every group */
    char allow_qos[256];      /* "" or ALL: every QOS */
    char deny_qos[256];
    char node_list[1024]; /* its nodes, a Slurm hostlist ("a[1-4]"); "":
                             unknown */
    ms_featset_t featsets[MS_FEATSETS_MAX]; /* its nodes' features */
    size_t nfeatsets;     /* 0: unknown (no feature can be checked) */
    bool features_known;  /* the nodes were read: no set means no feature */
} ms_partition_state_t;

/* Set the limits of p to "none known" (unlimited, unknown). */
void ms_partition_limits_init (ms_partition_state_t *p);
/* Put the limits clusters.conf sets for the partition over what the
 * cluster reports (features: every one of its `nodes` nodes has them). */
void ms_partition_apply_conf (ms_partition_state_t *p,
                              const ms_partlimits_t *l, int nodes);
/* Count n nodes with the feature list `features` into p's sets. */
void ms_partition_add_features (ms_partition_state_t *p, const char *features,
                                int n);

/* Slurm's accounting (slurmdbd) as a cluster reports it: the users'
 * associations and the QOS. */
typedef struct {
    char user[64];
    char account[64];
    char partition[64];   /* "": every partition */
    bool is_default;      /* the user's default account */
    char qos[512];        /* comma-separated QOS the association may use */
    char default_qos[64]; /* "": Slurm's choice (normal) */
    int64_t max_wall_min; /* per job; -1: none */
} ms_assoc_t;

typedef struct {
    char name[64];
    int64_t max_wall_min;      /* per job; -1: none */
    int64_t max_cpus_per_user; /* MaxTRESPerUser cpu; -1: none */
    int64_t max_cpus_per_job;  /* MaxTRESPerJob cpu; -1: none */
    int64_t max_nodes_per_job; /* MaxTRESPerJob node; -1: none */
} ms_qos_t;

typedef struct {
    bool enabled;          /* the cluster runs accounting (slurmdbd) */
    ms_assoc_t *assocs;
    size_t nassocs;
    ms_qos_t *qos;
    size_t nqos;
} ms_accounting_t;

void ms_accounting_free (ms_accounting_t *a);

/* One node. */
typedef struct {
    char name[64];
    char state[32];       /* "idle", "allocated", "mixed", "down", ... */
    int cpus;
    int cpus_alloc;
    char partitions[128]; /* comma-separated */
    bool usable;          /* neither down nor drained */
    int64_t real_memory_mb; /* RealMemory; 0: unknown */
    char features[192];   /* its (available) features, comma-separated */
    int gpus;             /* GPUs (gres gpu) it has; 0: none */
    int gpus_used;        /* ... held by jobs */
} ms_node_state_t;

/* A job to submit. Strings may be NULL where optional. */
typedef struct ms_job_request {
    const char *user;        /* run as this user (required) */
    const char *name;        /* job name */
    const char *partition;   /* required */
    uint32_t cpu_freq_khz;   /* 0: the cluster's default */
    uint32_t time_limit_min; /* 0: the partition's default */
    int64_t begin_time;      /* Unix time not to start before; 0: now */
    int nice;                /* 0: none; positive lowers priority */
    const char *comment;     /* metasched:<id> tag */
    const char *const *environment; /* NULL-terminated "KEY=VALUE" list */
    const char *cwd;         /* working directory (required by Slurm) */
    const char *std_out;     /* output path pattern */
    const char *std_err;
    const char *std_in;
    int nodes;               /* 0: 1 */
    int tasks;               /* 0: one per node */
    int cpus_per_task;       /* 0: 1 */
    bool exclusive;          /* whole nodes */
    const char *script;      /* the batch script, starting with #! */
    const struct ms_jobspec *sbatch; /* the user's other sbatch options to
                                        carry (account, qos, memory ...);
                                        NULL: none */
    const void *backend_hint;/* backend-specific data: the simulated cluster
                                reads its job model here, slurmrest ignores it */
    /* a heterogeneous job: the components after this one, submitted with
     * it as one job (each its own partition, counts and options; the
     * script is this one's); NULL/0: an ordinary job */
    const struct ms_job_request *het;
    size_t nhet;
} ms_job_request_t;

/* A change to a submitted job; fields set to their "keep" value are left. */
#define MS_KEEP_PRIORITY UINT32_MAX
#define MS_KEEP_NICE INT32_MIN
#define MS_KEEP_TIME 0
typedef struct {
    uint32_t priority;       /* MS_KEEP_PRIORITY: keep (root only) */
    int32_t nice;            /* MS_KEEP_NICE: keep */
    uint32_t time_limit_min; /* MS_KEEP_TIME: keep */
    const char *comment;     /* NULL: keep */
} ms_job_update_t;

void ms_job_update_init (ms_job_update_t *u);

/* What the cluster says about a job. */
typedef struct {
    uint64_t id;
    char name[128];
    char user[64];
    uint32_t user_id;
    uint32_t group_id;
    char partition[64];
    ms_job_state_t state;
    char state_name[32];     /* as the cluster spells it */
    char state_reason[64];
    time_t submit_time;      /* 0 where unknown */
    time_t eligible_time;
    time_t start_time;       /* 0 until started */
    time_t end_time;         /* 0 until ended (or expected end while running) */
    uint32_t time_limit_min; /* 0: none/unknown */
    uint32_t cpu_freq_min_khz; /* 0: none requested */
    uint32_t cpu_freq_max_khz;
    int nice;
    uint32_t priority;
    char comment[256];
    int nodes;
    int tasks;
    int cpus;
    char node_list[256];
    int exit_code;           /* -1 unknown */
    char cwd[256];
    char std_out[256];
    /* a task of an array, or an array's record of its pending tasks */
    uint64_t array_job_id;   /* the array's id; 0: not an array */
    int64_t array_task_id;   /* this task's index; -1: the pending rest */
    char array_tasks[128];   /* the pending rest's indexes ("3-10%2") */
    int exclusive;           /* its nodes to itself: 1, shared 0, -1 not said */
    /* a component of a heterogeneous job: the job's (its first
     * component's) id, this one's offset; 0, 0: no hetjob */
    uint64_t het_job_id;
    int het_job_offset;
} ms_job_info_t;

/* A job as the cluster's accounting (slurmdbd) recorded it: what is known
 * of a job after slurmctld forgot it (MinJobAge). */
typedef struct {
    uint64_t id;
    char user[64];           /* the user it ran as */
    char cluster[64];        /* Slurm's ClusterName */
    char partition[64];
    char comment[256];       /* the job's comment (a copy's tag) */
    ms_job_state_t state;
    char state_name[32];     /* as Slurm recorded it */
    char state_reason[64];
    int exit_code;           /* as a shell reports it; -1 unknown */
    time_t submit_time, start_time, end_time; /* 0 where unknown */
    uint64_t array_job_id;   /* the array's id; 0: not an array */
    int64_t array_task_id;   /* -1: none */
} ms_acct_job_t;

/* Which accounted jobs: the records of job id (id != 0), else every job
 * that was pending or running since `since` (a Unix time). */
typedef struct {
    uint64_t id;
    time_t since;
} ms_acct_query_t;

typedef struct ms_backend ms_backend_t;

struct ms_backend_ops {
    const char *type; /* "slurmrest", "simulated" */
    int (*ping) (void *ctx, ms_error_t *errp);
    int (*partitions) (void *ctx, ms_partition_state_t **out, size_t *n,
                       ms_error_t *errp);
    int (*nodes) (void *ctx, ms_node_state_t **out, size_t *n,
                  ms_error_t *errp);
    int (*submit) (void *ctx, const ms_job_request_t *req, uint64_t *idp,
                   ms_error_t *errp);
    int (*update) (void *ctx, uint64_t id, const ms_job_update_t *upd,
                   ms_error_t *errp);
    int (*cancel) (void *ctx, uint64_t id, ms_error_t *errp);
    /* Send signal sig (1..64) to job id, its batch shell and every step
     * (scancel --full --signal); NULL where the backend cannot. */
    int (*signal) (void *ctx, uint64_t id, int sig, ms_error_t *errp);
    /* All jobs the cluster knows of (pending, running, recently ended). */
    int (*jobs) (void *ctx, ms_job_info_t **out, size_t *n, ms_error_t *errp);
    int (*job) (void *ctx, uint64_t id, ms_job_info_t *out, ms_error_t *errp);
    /* The cluster's accounting (associations and QOS of the cluster);
     * NULL where the backend has none: out->enabled false. */
    int (*accounting) (void *ctx, ms_accounting_t *out, ms_error_t *errp);
    /* Job records of the cluster's accounting (ms_acct_query_t). Returns
     * 1, none read, where the cluster keeps none (no slurmdbd behind its
     * server); NULL: the backend has none, the same. */
    int (*acct_jobs) (void *ctx, const ms_acct_query_t *q,
                      ms_acct_job_t **out, size_t *n, ms_error_t *errp);
    void (*destroy) (void *ctx);
};

struct ms_backend {
    const struct ms_backend_ops *ops;
    void *ctx;
    char cluster[64]; /* the cluster's name, for messages */
};

/* Wrappers: each prefixes errors with the cluster's name. */
int backend_ping (ms_backend_t *b, ms_error_t *errp);
int backend_partitions (ms_backend_t *b, ms_partition_state_t **out, size_t *n,
                        ms_error_t *errp);
int backend_nodes (ms_backend_t *b, ms_node_state_t **out, size_t *n,
                   ms_error_t *errp);
int backend_submit (ms_backend_t *b, const ms_job_request_t *req, uint64_t *idp,
                    ms_error_t *errp);
int backend_update (ms_backend_t *b, uint64_t id, const ms_job_update_t *upd,
                    ms_error_t *errp);
int backend_cancel (ms_backend_t *b, uint64_t id, ms_error_t *errp);
/* -1 (MS_ERR_INPUT) where the backend has no signal operation. */
int backend_signal (ms_backend_t *b, uint64_t id, int sig, ms_error_t *errp);
int backend_jobs (ms_backend_t *b, ms_job_info_t **out, size_t *n,
                  ms_error_t *errp);
int backend_job (ms_backend_t *b, uint64_t id, ms_job_info_t *out,
                 ms_error_t *errp);
int backend_accounting (ms_backend_t *b, ms_accounting_t *out,
                        ms_error_t *errp);
/* 0 and the records, 1 where the cluster keeps no accounting, -1. */
int backend_acct_jobs (ms_backend_t *b, const ms_acct_query_t *q,
                       ms_acct_job_t **out, size_t *n, ms_error_t *errp);
void backend_destroy (ms_backend_t *b);

#endif /* MS_BACKEND_H */
