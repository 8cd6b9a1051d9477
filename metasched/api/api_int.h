/* api_int.h - what the API server's files share (api_server.c, api_http.c,
 * api_jobs.c, api_admin.c, api_metrics.c); private to metasched/api/.
 */
#ifndef MS_API_INT_H
#define MS_API_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>
#include <microhttpd.h>

#include "db/jobs.h"
#include "metasched/api/api.h"
#include "wire/auth.h"
#include "metasched/api/limits.h"

/* Where a connection's current request stands: PH_HEAD no handler call
 * yet on a new connection (its headers may be trickling in), PH_IDLE a
 * kept-alive one between requests, PH_BODY its body coming in, PH_ANSWER
 * its answer being made and sent. Past the deadline the first two get a
 * 408 (PH_HEAD) or nothing (PH_IDLE), PH_BODY a 408, PH_ANSWER nothing,
 * and all are closed. */
typedef enum { PH_HEAD, PH_IDLE, PH_BODY, PH_ANSWER } phase_t;

/* The limits a refusal counts against (GET /metrics). */
enum { REFUSED_PER_USER, REFUSED_PER_ADDRESS, REFUSED_DEADLINE };
extern const char *const api_refused_names[3];

/* One accepted connection (the socket context of libmicrohttpd's notify
 * callback), on ms_api's list under conn_lock. */
typedef struct conn {
    struct conn *prev, *next;
    int fd;
    bool counted;        /* counts against its peer's limit */
    bool closing;        /* answered on the socket or shut down: nothing more */
    double linger_until; /* a refusal's answer is being read: shut down
                            for good then (0: already) */
    phase_t phase;
    double deadline; /* CLOCK_MONOTONIC seconds */
    char peer[80];   /* "uid 1001" (unix socket), "address 192.0.2.1" */
} conn_t;

struct ms_api {
    ms_api_conf_t conf;
    char **admins; /* copies of conf's user names and "@group"s */
    size_t nadmins;
    ms_api_hooks_t hooks;
    void *ctx;
    struct MHD_Daemon *unix_d, *tcp_d;
    int unix_fd, tcp_fd;
    int port;
    char *conninfo, *password_file;
    pthread_mutex_t db_lock;
    db_t *db; /* opened on first use, so a database down at start is a 503
                 per request, not a daemon that will not start */
    pthread_mutex_t conn_lock;
    pthread_cond_t reaper_cv; /* CLOCK_MONOTONIC; signalled to stop */
    conn_t *conns;            /* every open connection of both sockets */
    unsigned long refused[3]; /* by REFUSED_*, since the start */
    pthread_t reaper;
    bool reaper_on, stopping;
    ms_limits_t *limits; /* the per-user limits (limits.h) */
};

typedef struct {
    uid_t uid;
    gid_t gid;
    char user[65];
    bool admin;
} caller_t;

typedef struct {
    char *target; /* as sent, query included */
    conn_t *conn; /* NULL where the connection could not be tracked */
    bool started;
    bool authed; /* who and digest are the caller's */
    caller_t who;
    char digest[MS_AUTH_DIGEST_LEN + 1]; /* the body's, per the credential */
    char *body;
    size_t len, cap;
} req_t;

/* Retry-After of a 503 while no read-write database answers: each
 * request tries one connection (through every host of the conninfo), so
 * a client may come back soon (doc/api.md "Errors"). */
#define API_DB_RETRY_AFTER "2"

/* HTTP plumbing (api_http.c): answers, connections and their deadlines,
 * listening sockets */
enum MHD_Result api_send_text (struct MHD_Connection *c, unsigned status,
                               const char *ctype, const char *text,
                               const char *allow);
enum MHD_Result api_send_json (struct MHD_Connection *c, unsigned status,
                               json_t *o);
enum MHD_Result api_send_error (struct MHD_Connection *c, unsigned status,
                                const char *msg, const char *field,
                                const char *allow);
enum MHD_Result api_send_limit (struct MHD_Connection *c, unsigned status,
                                const char *msg, const char *limit);
unsigned api_err_status (const ms_error_t *e);
enum MHD_Result api_send_err (struct MHD_Connection *c, const ms_error_t *e,
                              const char *field);
double api_mono_now (void);
double api_request_timeout (const ms_api_t *api);
void api_conn_refuse (ms_api_t *api, conn_t *k, unsigned status,
                      const char *reason, const char *msg, const char *limit);
int api_conn_enter (ms_api_t *api, conn_t *k, phase_t ph);
void api_conn_notify (void *cls, struct MHD_Connection *c,
                      void **socket_context,
                      enum MHD_ConnectionNotificationCode code);
void *api_reaper_main (void *arg);
int api_unix_listen (const char *path, ms_error_t *errp);
int api_tcp_listen (const char *listen_s, int *portp, ms_error_t *errp);

int api_db_acquire (ms_api_t *api, ms_error_t *errp);
void api_db_release (ms_api_t *api);

/* api_jobs.c: the job endpoints (/v1/jobs, /v1/jobs/ID, /claim, /v1/whatif) */
enum MHD_Result api_do_submit (ms_api_t *api, struct MHD_Connection *c,
                               const req_t *rq, const caller_t *who);
enum MHD_Result api_do_whatif (ms_api_t *api, struct MHD_Connection *c,
                               const req_t *rq, const caller_t *who);
enum MHD_Result api_do_list (ms_api_t *api, struct MHD_Connection *c,
                             const caller_t *who);
enum MHD_Result api_do_job (ms_api_t *api, struct MHD_Connection *c,
                            const char *method, int64_t id,
                            const caller_t *who);
enum MHD_Result api_do_claim (ms_api_t *api, struct MHD_Connection *c,
                              const req_t *rq, int64_t id, const caller_t *who);

/* api_admin.c: the admin endpoints (/v1/settings, /v1/admin/jobs/ID/resolve) */
enum MHD_Result api_do_resolve (ms_api_t *api, struct MHD_Connection *c,
                                const req_t *rq, int64_t id,
                                const caller_t *who);
enum MHD_Result api_do_settings (ms_api_t *api, struct MHD_Connection *c,
                                 const char *method, const req_t *rq,
                                 const caller_t *who);

/* api_metrics.c: what the daemon shows (/v1/clusters, /metrics) */
enum MHD_Result api_do_clusters (ms_api_t *api, struct MHD_Connection *c);
enum MHD_Result api_do_metrics (ms_api_t *api, struct MHD_Connection *c);
#endif
