/* api.h - metaschedd's HTTP API (doc/api.md): a libmicrohttpd server on a
 * unix socket and, where configured, a TCP address.
 *
 * The server runs in libmicrohttpd's own thread with its own database
 * connection (libpq connections are not shared across threads). The hooks
 * are called from that thread: the daemon guards what they touch with a
 * mutex. Every request is authenticated with ms_auth_verify (auth.h).
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
    unsigned threads;             /* 0: 1 (one database connection each) */
} ms_api_conf_t;

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
     * the job is refused. NULL: every job is taken. */
    int (*admit) (void *ctx, const ms_apireq_t *req, uid_t uid,
                  ms_error_t *errp);
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
