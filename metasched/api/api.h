/* api.h - metaschedd's HTTP API (doc/api.md): a libmicrohttpd server on a
 * unix socket and, where configured, a TCP address.
 *
 * The server runs in a pool of libmicrohttpd threads (threads) that share
 * one database connection under a mutex (libpq connections are not for
 * concurrent use). The hooks are called from those threads, several at
 * once: the daemon guards what they touch with a mutex. Every request is
 * authenticated (auth.h) from its headers, before any of its body is read;
 * no request lives longer than request_timeout_s, and no user (unix
 * socket: the peer's uid) or address (TCP) holds more than its share of
 * connections.
 */
#ifndef MS_API_H
#define MS_API_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "metasched/api/apireq.h"
#include "metasched/common/error.h"

typedef struct {
    char socket_path[512];  /* unix socket ("" : none); created mode 0666
                               after removing a stale one; the directory
                               must exist */
    char listen[128];       /* "" or "host:port" (TCP) */
    char munge_socket[512]; /* "" : libmunge's default */
    char **admin_users;     /* user names, or "@group" */
    size_t nadmin_users;
    char **admin_groups; /* group names (without '@') */
    size_t nadmin_groups;
    bool metrics_public;          /* GET /metrics without a credential */
    bool allow_partition;         /* users may pin "cluster/partition" */
    bool partition_names;         /* users may name partitions (metaschedd
                                     partition_requests honor or map) */
    int cluster_requests;  /* a job's --clusters: 0 honored, 1 refused,
                              2 mapped (metaschedd's cluster_requests) */
    int cpu_freq_requests; /* a job's --cpu-freq: 0 honored, 1 ignored
                              (with a note), 2 refused */
    size_t max_body;              /* 0: APIREQ_BODY_MAX */
    size_t max_script;            /* 0: APIREQ_SCRIPT_MAX */
    const char *db_conninfo;      /* the daemon's role */
    const char *db_password_file; /* NULL or a 0600 file */
    unsigned threads;             /* 0: API_THREADS; per listening socket */
    double request_timeout_s;     /* 0: API_REQUEST_TIMEOUT_S; a whole
                                     request, headers to answer (408) */
    unsigned max_connections;     /* 0: API_MAX_CONNECTIONS, per socket */
    unsigned max_connections_per_user;    /* 0: API_MAX_CONN_PER_USER (429) */
    unsigned max_connections_per_address; /* 0: API_MAX_CONN_PER_ADDRESS */
} ms_api_conf_t;

/* The defaults of ms_api_conf_t's limits (doc/metaschedd.conf.5). */
#define API_THREADS 2
#define API_REQUEST_TIMEOUT_S 30.0
#define API_MAX_CONNECTIONS 256
#define API_MAX_CONN_PER_USER 16
#define API_MAX_CONN_PER_ADDRESS 64

typedef struct {
    /* POST /v1/whatif: the candidates for req (doc/api.md "Candidates"),
     * a new reference in *out. errp->http_status (or 500) on failure. */
    int (*whatif) (void *ctx, const ms_apireq_t *req, uid_t uid, json_t **out,
                   ms_error_t *errp);
    /* GET /v1/clusters: {"clusters": [...]}, a new reference in *out. */
    int (*clusters) (void *ctx, json_t **out, ms_error_t *errp);
    /* GET /metrics: extra Prometheus lines (malloc'd, may be "") from the
     * daemon: cycle time, per-cluster up, dispatch counts. */
    int (*metrics) (void *ctx, char **textp, ms_error_t *errp);
    /* A job was submitted or cancelled, or settings changed: wake the
     * cycle. */
    void (*kick) (void *ctx);
    /* POST /v1/jobs: may the job be taken? 0, or -1 with errp (its
     * http_status, 409 where no partition may run it, with every reason):
     * the job is refused. What the user should know of a job taken (an
     * option a cluster drops) is added to notes as strings. NULL: every
     * job is taken. */
    int (*admit) (void *ctx, const ms_apireq_t *req, uid_t uid,
                  json_t *notes, ms_error_t *errp);
    /* POST /v1/jobs/ID/claim: what the cluster records of its job id (the
     * start gate's own, from Slurm): the user it runs as and, for a task
     * of an array, the array's id (0: none). 0, or -1 with errp: kind
     * MS_ERR_MISSING where the cluster knows no such job, any other where
     * it cannot be asked now. NULL: the claimed id is taken as given, and
     * must still be a submission of the meta job. */
    int (*cluster_job) (void *ctx, const char *cluster, uint64_t id,
                        uid_t *uidp, uint64_t *array_idp, ms_error_t *errp);
    /* DELETE /v1/jobs/ID?signal=N: send signal sig to cluster job id of
     * that cluster (its batch shell and steps). 0, or -1 with errp. NULL:
     * signals are refused (503). */
    int (*signal) (void *ctx, const char *cluster, uint64_t id, int sig,
                   ms_error_t *errp);
    /* PUT /v1/settings with power_budget: is the text (not "none") a
     * budget of this site (its clusters)? 0, or -1 with errp naming the
     * entry. NULL: only settings.c's own checks. */
    int (*check_power) (void *ctx, const char *text, ms_error_t *errp);
} ms_api_hooks_t;

typedef struct ms_api ms_api_t;

/* Start serving. hooks and its members may be NULL (an endpoint without
 * its hook answers 503). conf is copied. */
ms_api_t *api_start (const ms_api_conf_t *conf, const ms_api_hooks_t *hooks,
                     void *ctx, ms_error_t *errp);
/* Stop serving, close the database connections, remove the socket file. */
void api_stop (ms_api_t *api);

/* The TCP port actually bound (listen "host:0" picks one); 0 if none. */
int api_port (const ms_api_t *api);

#endif /* MS_API_H */
