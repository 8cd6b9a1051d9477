/* jobreq.h - a job request as the API reads it (metasched/api/apireq.h
 * parses one; doc/api.md "A job request") and the job store writes it
 * (db/jobs.h): the struct, its limits, and its options as stored in
 * jobs.options.
 */
#ifndef MS_JOBREQ_H
#define MS_JOBREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/jobspec.h"

#define APIREQ_BODY_MAX (2 * 1024 * 1024) /* request body, bytes */
#define APIREQ_SCRIPT_MAX (1024 * 1024)   /* default max_script_bytes */
#define APIREQ_ENV_MAX 256                /* environment entries */
#define APIREQ_ENV_LEN_MAX 4096           /* bytes per entry */
#define APIREQ_NAME_MAX 128               /* name, app: bytes */
#define APIREQ_PATH_MAX 4096              /* cwd, stdout, stderr, stdin */
#define APIREQ_COUNT_MAX 100000           /* nodes, tasks, ... */
#define APIREQ_KEY_MIN 16                 /* submit_key: bytes */
#define APIREQ_KEY_MAX 64

/* begin_time: at most this many seconds after now (two years) */
#define APIREQ_BEGIN_AHEAD_MAX (731 * 86400)

typedef struct {
    char *script; /* owned; starts with "#!" */
    size_t script_len;
    char name[APIREQ_NAME_MAX + 1]; /* "" when not given */
    char app[APIREQ_NAME_MAX + 1];  /* "" when not given */
    int nodes;                      /* >= 1 (default 1) */
    int tasks;                      /* 0: not given */
    int tasks_per_node;             /* 0: not given */
    int cpus_per_task;              /* 0: not given */
    uint32_t time_limit_min;        /* 0: not given */
    int64_t begin_time;             /* Unix time; 0: not given */
    bool exclusive;
    char *cwd;          /* owned, absolute path */
    char *std_out;      /* owned or NULL */
    char *std_err;      /* owned or NULL */
    char *std_in;       /* owned or NULL */
    char **environment; /* owned "NAME=value" strings */
    size_t nenvironment;
    char partition[130]; /* "cluster/partition" or "" */
    /* the submission's idempotency key (doc/api.md "submit_key"): a
     * request sent again with the key of a stored job of the same user
     * gets that job's id, never a second job; "" when not given */
    char submit_key[APIREQ_KEY_MAX + 1];
    /* the other options of sbatch (account, qos, mem_per_node_mb, ...:
     * jobspec_json.c's fields, doc/api.md); only their fields are set */
    ms_jobspec_t sb;
    /* a heterogeneous job (sb.nhet components after the first): nodes and
     * time_limit_min above are the whole job's, as it is predicted (the
     * nodes of all components, the longest limit); these the first
     * component's own */
    int first_nodes;
    uint32_t first_time_limit_min;
} ms_apireq_t;

void apireq_init (ms_apireq_t *r);
void apireq_free (ms_apireq_t *r);

/* The request's options as stored in jobs.options (a JSON object text,
 * malloc'd): everything but the script and the columns of their own. */
char *apireq_options_json (const ms_apireq_t *r);

#endif /* MS_JOBREQ_H */
