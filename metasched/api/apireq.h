/* apireq.h - a job request of the API (POST /v1/jobs, POST /v1/whatif;
 * doc/api.md "A job request"): parse and check the JSON into a struct.
 *
 * Every refusal names the field (errp->text "field 'nodes': ...", and
 * apireq_errfield gives the bare name for the answer's "field"); unknown
 * keys are refused. Limits: doc/api.md "Limits".
 */
#ifndef MS_APIREQ_H
#define MS_APIREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
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

typedef struct {
    size_t max_script;    /* 0: APIREQ_SCRIPT_MAX */
    bool allow_partition; /* may a user pin a partition */
    bool partition_names; /* may a user name partitions (NAME[,NAME...]),
                             which the daemon honors or maps */
} ms_apireq_limits_t;

void apireq_init (ms_apireq_t *r);
void apireq_free (ms_apireq_t *r);

/* Parse body (len bytes, not NUL-terminated) into r (initialized here).
 * On failure r is left empty, errp (kind MS_ERR_INPUT, http_status 400 or
 * 413 for a script over the limit) names the field; field (may be NULL,
 * fieldlen bytes) gets the field's name or "". lim may be NULL. */
int apireq_parse (const char *body, size_t len, const ms_apireq_limits_t *lim,
                  ms_apireq_t *r, char *field, size_t fieldlen,
                  ms_error_t *errp);

/* The request's options as stored in jobs.options (a JSON object text,
 * malloc'd): everything but the script and the columns of their own. */
char *apireq_options_json (const ms_apireq_t *r);

#endif /* MS_APIREQ_H */
