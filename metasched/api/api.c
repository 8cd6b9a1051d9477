/* api.c - metaschedd's HTTP API (api.h, doc/api.md) on libmicrohttpd.
 *
 * One MHD daemon per listening socket (the unix socket and the TCP
 * address), each with a pool of conf.threads threads; they share one
 * database connection, used under a mutex (libpq connections are not for
 * concurrent use; a query holds it for milliseconds, never while a client
 * is read from or written to).
 *
 * A connection is counted against its peer as it is accepted: the uid
 * (SO_PEERCRED) on the unix socket, the address on TCP; one over the
 * peer's limit is answered 429 and closed at once, before anything is
 * read from it. Every request has a deadline, request_timeout_s from the
 * connection's start or from the previous answer: a reaper thread answers
 * 408 and closes a connection past it whatever the client still trickles.
 *
 * A request goes through: route (404, 405), headers (413 from
 * Content-Length, 415), the credential decoded from the headers (401,
 * before any byte of the body is read), the body (413 as soon as a
 * chunked body passes the limit: the connection is closed, nothing more
 * read), the body's digest against the credential's (401), then the
 * endpoint.
 *
 * The credential's payload names the request target as sent, query
 * included; libmicrohttpd gives the handler only the decoded path, so the
 * raw target is kept from its URI log callback.
 */
#define _GNU_SOURCE /* struct ucred, SO_PEERCRED */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "db/jobs.h"
#include "metasched/api/api.h"
#include "metasched/api/auth.h"
#include "metasched/api/limits.h"
#include "metasched/api/resolve.h"
#include "metasched/api/settings.h"

/* Where a connection's current request stands: PH_HEAD no handler call
 * yet on a new connection (its headers may be trickling in), PH_IDLE a
 * kept-alive one between requests, PH_BODY its body coming in, PH_ANSWER
 * its answer being made and sent. Past the deadline the first two get a
 * 408 (PH_HEAD) or nothing (PH_IDLE), PH_BODY a 408, PH_ANSWER nothing,
 * and all are closed. */
typedef enum { PH_HEAD, PH_IDLE, PH_BODY, PH_ANSWER } phase_t;

/* The limits a refusal counts against (GET /metrics). */
enum { REFUSED_PER_USER, REFUSED_PER_ADDRESS, REFUSED_DEADLINE };
static const char *const refused_names[]
    = { "max_connections_per_user", "max_connections_per_address",
        "request_timeout_s" };

/* One accepted connection (the socket context of libmicrohttpd's notify
 * callback), on ms_api's list under conn_lock. */
typedef struct conn {
    struct conn *prev, *next;
    int fd;
    bool counted; /* counts against its peer's limit */
    bool closing; /* answered on the socket or shut down: nothing more */
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

/* ---- responses ---- */

/* Retry-After of a 503 while no read-write database answers: each
 * request tries one connection (through every host of the conninfo), so
 * a client may come back soon (doc/api.md "Errors"). */
#define API_DB_RETRY_AFTER "2"

static enum MHD_Result
send_text_retry (struct MHD_Connection *c, unsigned status, const char *ctype,
                 const char *text, const char *allow, const char *retry_after)
{
    struct MHD_Response *r = MHD_create_response_from_buffer (
        strlen (text), (void *)text, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret;

    if (!r)
        return MHD_NO;
    MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (allow)
        MHD_add_response_header (r, MHD_HTTP_HEADER_ALLOW, allow);
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header (r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                 MS_AUTH_SCHEME);
    if (status == MHD_HTTP_SERVICE_UNAVAILABLE && retry_after)
        MHD_add_response_header (r, MHD_HTTP_HEADER_RETRY_AFTER, retry_after);
    ret = MHD_queue_response (c, status, r);
    MHD_destroy_response (r);
    return ret;
}

static enum MHD_Result
send_text (struct MHD_Connection *c, unsigned status, const char *ctype,
           const char *text, const char *allow)
{
    return send_text_retry (c, status, ctype, text, allow, NULL);
}

/* Send o (reference stolen). */
static enum MHD_Result
send_json (struct MHD_Connection *c, unsigned status, json_t *o)
{
    char *s = json_dumps (o, JSON_COMPACT);
    enum MHD_Result ret;

    json_decref (o);
    if (!s)
        return send_text (c, 500, "application/json",
                          "{\"error\":\"out of memory\"}", NULL);
    ret = send_text (c, status, "application/json", s, NULL);
    free (s);
    return ret;
}

static enum MHD_Result
send_error_retry (struct MHD_Connection *c, unsigned status, const char *msg,
                  const char *field, const char *allow, const char *retry)
{
    json_t *o = json_pack ("{s:s}", "error", msg);
    char *s;
    enum MHD_Result ret;

    if (field && *field)
        json_object_set_new (o, "field", json_string (field));
    s = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    ret = send_text_retry (c, status, "application/json", s ? s : "{}", allow,
                           retry);
    free (s);
    return ret;
}

static enum MHD_Result
send_error (struct MHD_Connection *c, unsigned status, const char *msg,
            const char *field, const char *allow)
{
    return send_error_retry (c, status, msg, field, allow, NULL);
}

/* A refusal by a limit of the server: {"error": msg, "limit": limit}. */
static enum MHD_Result
send_limit (struct MHD_Connection *c, unsigned status, const char *msg,
            const char *limit)
{
    json_t *o = json_pack ("{s:s,s:s}", "error", msg, "limit", limit);

    return o ? send_json (c, status, o)
             : send_text (c, 500, "application/json",
                          "{\"error\":\"out of memory\"}", NULL);
}

/* The status for an error that carries none. */
static unsigned
err_status (const ms_error_t *e)
{
    if (e->http_status >= 400 && e->http_status < 600)
        return (unsigned)e->http_status;
    switch (e->kind) {
    case MS_ERR_INPUT:
        return 400;
    case MS_ERR_AUTH:
        return 401;
    case MS_ERR_MISSING:
        return 404;
    case MS_ERR_CONNECT:
    case MS_ERR_TIMEOUT:
        return 503;
    case MS_ERR_DB:
        /* connection exceptions (08), operator intervention (57) */
        if (!strncmp (e->sqlstate, "08", 2) || !strncmp (e->sqlstate, "57", 2))
            return 503;
        /* read-only: the server is a standby (a failover under way) */
        if (!strcmp (e->sqlstate, "25006"))
            return 503;
        return 500;
    default:
        return 500;
    }
}

static enum MHD_Result
send_err (struct MHD_Connection *c, const ms_error_t *e, const char *field)
{
    unsigned st = err_status (e);
    char msg[1100];

    if (st == 503 && (e->kind == MS_ERR_CONNECT || e->kind == MS_ERR_DB)) {
        /* no read-write database answers (down, failing over): the
         * client retries after Retry-After */
        snprintf (msg, sizeof (msg), "database unavailable, retry later: %s",
                  e->text);
        return send_error_retry (c, st, msg, field, NULL, API_DB_RETRY_AFTER);
    }
    snprintf (msg, sizeof (msg), "%s", e->text);
    return send_error (c, st, msg, field, NULL);
}

/* ---- connections: who holds them, and for how long ---- */

static double
mono_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
request_timeout (const ms_api_t *api)
{
    return api->conf.request_timeout_s > 0 ? api->conf.request_timeout_s
                                           : API_REQUEST_TIMEOUT_S;
}

/* Answer on the socket itself, then shut it down so that libmicrohttpd
 * closes the connection without reading more: for what libmicrohttpd
 * cannot answer (a connection over its peer's limit before any request, a
 * request past its deadline, a body over the limit half-way). status 0:
 * shut down without a word. Under conn_lock; once per connection.
 * (On TCP the answer may be lost to the reset that closing a socket with
 * unread data sends; the connection is closed all the same.) */
static void
conn_answer_locked (conn_t *k, unsigned status, const char *reason,
                    const char *msg, const char *limit)
{
    char head[256], *body = NULL;
    json_t *o;
    int n;

    if (status && (o = json_pack ("{s:s,s:s}", "error", msg, "limit", limit))) {
        body = json_dumps (o, JSON_COMPACT);
        json_decref (o);
    }
    if (body) {
        n = snprintf (head, sizeof (head),
                      "HTTP/1.1 %u %s\r\n"
                      "Content-Type: application/json\r\n"
                      "Content-Length: %zu\r\n"
                      "Connection: close\r\n"
                      "%s\r\n",
                      status, reason, strlen (body),
                      status == 429 ? "Retry-After: 1\r\n" : "");
        if (n > 0 && (size_t)n < sizeof (head)
            && send (k->fd, head, (size_t)n,
                     MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE)
                   == n)
            (void)!send (k->fd, body, strlen (body),
                         MSG_DONTWAIT | MSG_NOSIGNAL);
        free (body);
    }
}

static void
conn_refuse_locked (conn_t *k, unsigned status, const char *reason,
                    const char *msg, const char *limit)
{
    if (k->closing)
        return;
    k->closing = true;
    conn_answer_locked (k, status, reason, msg, limit);
    shutdown (k->fd, SHUT_RDWR);
}

/* A refusal at accept (a peer over its limit) while the socket is not
 * crowded: answered, then only its writing side shut, so that a client
 * that sends its request as it connects can still read the 429 (a socket
 * shut for reading makes its write fail before it reads the answer); the
 * handler drops the request when it arrives, and the reaper shuts the
 * connection for good after API_REFUSE_LINGER_S. A crowded socket (half
 * its connections in use) gets conn_refuse_locked at once instead, so a
 * flood of refused connections never holds the slots others need. */
#define API_REFUSE_LINGER_S 0.5

static void
conn_refuse_linger_locked (conn_t *k, unsigned status, const char *reason,
                           const char *msg, const char *limit)
{
    if (k->closing)
        return;
    k->closing = true;
    conn_answer_locked (k, status, reason, msg, limit);
    shutdown (k->fd, SHUT_WR);
    k->linger_until = mono_now () + API_REFUSE_LINGER_S;
}

static void
conn_refuse (ms_api_t *api, conn_t *k, unsigned status, const char *reason,
             const char *msg, const char *limit)
{
    if (!k)
        return;
    pthread_mutex_lock (&api->conn_lock);
    conn_refuse_locked (k, status, reason, msg, limit);
    pthread_mutex_unlock (&api->conn_lock);
}

/* The request is past its deadline: 408 where nothing of the answer can be
 * on its way (the request not in yet), else the connection shut down. */
static void
conn_expire_locked (ms_api_t *api, conn_t *k)
{
    char msg[160];

    if (k->phase == PH_HEAD || k->phase == PH_BODY) {
        snprintf (msg, sizeof (msg),
                  "request not complete within %g s (request_timeout_s)",
                  request_timeout (api));
        conn_refuse_locked (k, 408, "Request Timeout", msg,
                            "request_timeout_s");
        api->refused[REFUSED_DEADLINE]++;
    } else
        conn_refuse_locked (k, 0, NULL, NULL, NULL);
}

/* A handler call begins phase ph of the request: -1 if the connection is
 * closing or past its deadline (then answered 408 and closed). */
static int
conn_enter (ms_api_t *api, conn_t *k, phase_t ph)
{
    int rc = 0;

    if (!k)
        return 0;
    pthread_mutex_lock (&api->conn_lock);
    if (!k->closing && mono_now () >= k->deadline)
        conn_expire_locked (api, k);
    if (k->closing)
        rc = -1;
    else
        k->phase = ph;
    pthread_mutex_unlock (&api->conn_lock);
    return rc;
}

/* The peer of a new connection: its uid on a unix socket, its address on
 * TCP; and the limit that applies. -1 if it cannot be told. */
static int
conn_peer (ms_api_t *api, struct MHD_Connection *c, conn_t *k, unsigned *limitp,
           const char **limit_namep)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof (ss);
    const union MHD_ConnectionInfo *ci;
    char host[64]; /* numeric: an IPv6 address and its scope fit */

    if (getsockname (k->fd, (struct sockaddr *)&ss, &sl) < 0)
        return -1;
    if (ss.ss_family == AF_UNIX) {
        struct ucred uc;
        socklen_t ul = sizeof (uc);
        if (getsockopt (k->fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0)
            return -1;
        snprintf (k->peer, sizeof (k->peer), "uid %ld", (long)uc.uid);
        *limitp = api->conf.max_connections_per_user
                      ? api->conf.max_connections_per_user
                      : API_MAX_CONN_PER_USER;
        *limit_namep = "max_connections_per_user";
        return 0;
    }
    ci = MHD_get_connection_info (c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !ci->client_addr
        || getnameinfo (ci->client_addr,
                        ci->client_addr->sa_family == AF_INET6
                            ? sizeof (struct sockaddr_in6)
                            : sizeof (struct sockaddr_in),
                        host, sizeof (host), NULL, 0, NI_NUMERICHOST)
               != 0)
        return -1;
    snprintf (k->peer, sizeof (k->peer), "address %s", host);
    *limitp = api->conf.max_connections_per_address
                  ? api->conf.max_connections_per_address
                  : API_MAX_CONN_PER_ADDRESS;
    *limit_namep = "max_connections_per_address";
    return 0;
}

/* libmicrohttpd's word that a connection was accepted or closed (closed:
 * before its socket is, so that the reaper never shuts down a reused
 * descriptor). */
static void
conn_notify (void *cls, struct MHD_Connection *c, void **socket_context,
             enum MHD_ConnectionNotificationCode code)
{
    ms_api_t *api = cls;
    const union MHD_ConnectionInfo *ci;
    const char *limit_name = "";
    unsigned limit = 0, n = 0, nall = 0;
    conn_t *k, *o;
    char msg[200];

    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (!(k = *socket_context))
            return;
        pthread_mutex_lock (&api->conn_lock);
        if (k->prev)
            k->prev->next = k->next;
        else
            api->conns = k->next;
        if (k->next)
            k->next->prev = k->prev;
        pthread_mutex_unlock (&api->conn_lock);
        free (k);
        *socket_context = NULL;
        return;
    }
    if (code != MHD_CONNECTION_NOTIFY_STARTED)
        return;
    ci = MHD_get_connection_info (c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return;
    if (!(k = calloc (1, sizeof (*k)))) {
        shutdown (ci->connect_fd, SHUT_RDWR);
        return;
    }
    k->fd = ci->connect_fd;
    k->phase = PH_HEAD;
    k->deadline = mono_now () + request_timeout (api);
    pthread_mutex_lock (&api->conn_lock);
    k->next = api->conns;
    if (api->conns)
        api->conns->prev = k;
    api->conns = k;
    *socket_context = k;
    if (conn_peer (api, c, k, &limit, &limit_name) < 0) {
        conn_refuse_locked (k, 400, "Bad Request",
                            "cannot tell who is connecting", "peer");
        pthread_mutex_unlock (&api->conn_lock);
        return;
    }
    for (o = api->conns; o; o = o->next) {
        if (o->counted && !strcmp (o->peer, k->peer))
            n++;
        nall++;
    }
    if (n >= limit) {
        snprintf (msg, sizeof (msg),
                  "too many connections from %s: at most %u at once (%s)",
                  k->peer, limit, limit_name);
        if (2 * nall < (api->conf.max_connections ? api->conf.max_connections
                                                 : API_MAX_CONNECTIONS))
            conn_refuse_linger_locked (k, 429, "Too Many Requests", msg,
                                       limit_name);
        else
            conn_refuse_locked (k, 429, "Too Many Requests", msg, limit_name);
        api->refused[strcmp (limit_name, refused_names[REFUSED_PER_USER])
                         ? REFUSED_PER_ADDRESS
                         : REFUSED_PER_USER]++;
    } else
        k->counted = true;
    pthread_mutex_unlock (&api->conn_lock);
}

/* Close every connection past its request's deadline, four times a
 * second, whether or not its client still sends. */
static void *
reaper_main (void *arg)
{
    ms_api_t *api = arg;
    struct timespec ts;
    conn_t *k;

    pthread_mutex_lock (&api->conn_lock);
    while (!api->stopping) {
        double now = mono_now ();
        for (k = api->conns; k; k = k->next) {
            if (!k->closing && now >= k->deadline)
                conn_expire_locked (api, k);
            else if (k->closing && k->linger_until > 0
                     && now >= k->linger_until) {
                shutdown (k->fd, SHUT_RDWR);
                k->linger_until = 0;
            }
        }
        clock_gettime (CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 250 * 1000 * 1000;
        if (ts.tv_nsec >= 1000 * 1000 * 1000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000 * 1000 * 1000;
        }
        pthread_cond_timedwait (&api->reaper_cv, &api->conn_lock, &ts);
    }
    pthread_mutex_unlock (&api->conn_lock);
    return NULL;
}

/* ---- database ---- */

/* Lock the connection, opening it if needed; -1 (503) if that fails. */
static int
db_acquire (ms_api_t *api, ms_error_t *errp)
{
    db_opts_t o = { 0 };

    pthread_mutex_lock (&api->db_lock);
    if (api->db)
        return 0;
    o.conninfo = api->conninfo;
    o.password_file = api->password_file;
    o.application_name = "metaschedd-api";
    o.connect_timeout_s = 3;
    o.retry_max_ms = 0;
    if (db_open (&o, &api->db, errp) < 0) {
        api->db = NULL;
        pthread_mutex_unlock (&api->db_lock);
        if (errp) {
            errp->kind = MS_ERR_CONNECT;
            errp->http_status = 503;
        }
        return -1;
    }
    return 0;
}

static void
db_release (ms_api_t *api)
{
    pthread_mutex_unlock (&api->db_lock);
}

/* ---- who is asking ---- */

static bool
in_group (const char *user, gid_t gid, const char *group)
{
    struct group gr, *grp = NULL;
    gid_t groups[256];
    int n = 256, i;
    char buf[16384];

    if (getgrnam_r (group, &gr, buf, sizeof (buf), &grp) != 0 || !grp)
        return false;
    if (getgrouplist (user, gid, groups, &n) < 0)
        n = 256; /* truncated: the first 256 still count */
    for (i = 0; i < n; i++)
        if (groups[i] == grp->gr_gid)
            return true;
    return gid == grp->gr_gid;
}

/* Who the credential names, by name: the clusters know users by name
 * only, so a uid without one is refused (never sent as a made-up name),
 * and so is a name that does not resolve back to the same uid (two
 * passwd entries of one name, or a name that changed hands): 403 with the
 * reason. */
static int
caller_resolve (const ms_api_t *api, caller_t *who, ms_error_t *errp)
{
    struct passwd pw, *pwp = NULL;
    char buf[16384];
    size_t i;
    int rc;

    who->admin = false;
    who->user[0] = '\0';
    rc = getpwuid_r (who->uid, &pw, buf, sizeof (buf), &pwp);
    if (rc != 0 || !pwp) {
        ms_err (errp, MS_ERR_AUTH,
                "uid %ld has no user name on this host%s%s; metasched acts "
                "for named users only",
                (long)who->uid, rc ? ": " : "", rc ? strerror (rc) : "");
        errp->http_status = 403;
        return -1;
    }
    if (strlen (pwp->pw_name) >= sizeof (who->user)) {
        ms_err (errp, MS_ERR_AUTH, "uid %ld: user name longer than %zu bytes",
                (long)who->uid, sizeof (who->user) - 1);
        errp->http_status = 403;
        return -1;
    }
    snprintf (who->user, sizeof (who->user), "%s", pwp->pw_name);
    pwp = NULL;
    rc = getpwnam_r (who->user, &pw, buf, sizeof (buf), &pwp);
    if (rc != 0 || !pwp || pwp->pw_uid != who->uid) {
        if (pwp)
            ms_err (errp, MS_ERR_AUTH,
                    "uid %ld is named %s, but that name is uid %ld on this "
                    "host; refused until the user database agrees",
                    (long)who->uid, who->user, (long)pwp->pw_uid);
        else
            ms_err (errp, MS_ERR_AUTH,
                    "uid %ld is named %s, but that name resolves to no "
                    "user on this host; refused until the user database "
                    "agrees",
                    (long)who->uid, who->user);
        errp->http_status = 403;
        who->user[0] = '\0';
        return -1;
    }
    for (i = 0; i < api->nadmins && !who->admin; i++) {
        const char *a = api->admins[i];
        if (a[0] == '@')
            who->admin = in_group (who->user, who->gid, a + 1);
        else
            who->admin = !strcmp (a, who->user);
    }
    return 0;
}

/* ---- endpoints ---- */

typedef enum {
    R_NONE,
    R_JOBS,
    R_JOB,
    R_CLAIM,
    R_WHATIF,
    R_CLUSTERS,
    R_SETTINGS,
    R_METRICS,
    R_RESOLVE
} route_t;

static route_t
route (const char *path, int64_t *idp, const char **allowp)
{
    const char *p;
    char *end;

    if (!strcmp (path, "/v1/jobs")) {
        *allowp = "GET, POST";
        return R_JOBS;
    }
    if (!strcmp (path, "/v1/whatif")) {
        *allowp = "POST";
        return R_WHATIF;
    }
    if (!strcmp (path, "/v1/clusters")) {
        *allowp = "GET";
        return R_CLUSTERS;
    }
    if (!strcmp (path, "/v1/settings")) {
        *allowp = "GET, PUT";
        return R_SETTINGS;
    }
    if (!strcmp (path, "/metrics")) {
        *allowp = "GET";
        return R_METRICS;
    }
    if (!strncmp (path, "/v1/admin/jobs/", 15)) {
        /* /v1/admin/jobs/ID/resolve */
        p = path + 15;
        if (*p < '1' || *p > '9')
            return R_NONE;
        errno = 0;
        *idp = strtoll (p, &end, 10);
        if (errno || *idp <= 0 || strcmp (end, "/resolve"))
            return R_NONE;
        *allowp = "POST";
        return R_RESOLVE;
    }
    if (strncmp (path, "/v1/jobs/", 9) != 0)
        return R_NONE;
    p = path + 9;
    if (*p < '1' || *p > '9')
        return R_NONE;
    errno = 0;
    *idp = strtoll (p, &end, 10);
    if (errno || *idp <= 0)
        return R_NONE;
    if (*end == '\0') {
        *allowp = "GET, DELETE";
        return R_JOB;
    }
    if (!strcmp (end, "/claim")) {
        *allowp = "POST";
        return R_CLAIM;
    }
    return R_NONE;
}

static bool
method_allowed (const char *allow, const char *method)
{
    size_t n = strlen (method);
    const char *p = allow;

    while ((p = strstr (p, method))) {
        if ((p == allow || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return true;
        p += n;
    }
    return false;
}

/* What the site makes of a request's --clusters and --cpu-freq
 * (metaschedd.conf cluster_requests, cpu_freq_requests), and --priority by
 * Slurm's rule: only an operator (here: metasched's admins) sets one;
 * priority 0 holds the job (slurmctld's validate_job_create_req and its
 * hold), a user's other priority is refused with slurmctld's answer to a user who
 * raises a priority (ESLURM_ACCESS_DENIED). 0, or -1 with errp and *field.
 * notes (may be NULL) gets what was ignored. */
static int
site_options (const ms_api_t *api, const caller_t *who, ms_apireq_t *r,
              json_t *notes, const char **field, ms_error_t *errp)
{
    if (r->sb.clusters[0] && api->conf.cluster_requests == 1) {
        *field = "clusters";
        return ms_err (errp, MS_ERR_INPUT,
                       "--clusters=%s: metasched chooses the cluster; this "
                       "site does not take a script's clusters "
                       "(cluster_requests = refuse): remove -M/--clusters",
                       r->sb.clusters);
    }
    if (r->sb.cpu_freq[0] && api->conf.cpu_freq_requests == 2) {
        *field = "cpu_freq";
        return ms_err (errp, MS_ERR_INPUT,
                       "--cpu-freq=%s: metasched chooses the CPU frequency; "
                       "this site does not take a pinned one "
                       "(cpu_freq_requests = refuse): remove --cpu-freq",
                       r->sb.cpu_freq);
    }
    if (r->sb.cpu_freq[0] && api->conf.cpu_freq_requests == 1) {
        if (notes)
            json_array_append_new (
                notes, json_sprintf ("--cpu-freq=%s: ignored: metasched "
                                     "chooses the CPU frequency at this site "
                                     "(cpu_freq_requests = ignore)",
                                     r->sb.cpu_freq));
        r->sb.cpu_freq[0] = '\0';
        memset (&r->sb.cpu_freq_spec, 0, sizeof (r->sb.cpu_freq_spec));
    }
    if (r->sb.priority > 0 && !who->admin) {
        *field = "priority";
        ms_err (errp, MS_ERR_AUTH,
                "--priority=%lld: Access/permission denied (only operators "
                "set a job's priority: metasched's admins; use --nice)",
                (long long)r->sb.priority);
        errp->http_status = 403;
        return -1;
    }
    if (r->sb.priority == 0) {
        /* priority 0: held, as Slurm holds it (a user's hold, or an
         * operator's) */
        r->sb.hold = true;
        r->sb.priority = -1;
    }
    return 0;
}

/* ---- per-user limits (doc/api.md "Limits") ---- */

/* The admin's limits, read again from the settings when the server's
 * copy is older than LIMITS_TTL_S. Caller does not hold the database. */
static int
user_limits (ms_api_t *api, ms_limits_values_t *v, ms_error_t *errp)
{
    struct timespec ts;
    ms_settings_t *s;
    double now;
    int rc;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    if (limits_get (api->limits, now, v))
        return 0;
    if (!(s = malloc (sizeof (*s))))
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    if (db_acquire (api, errp) < 0) {
        free (s);
        return -1;
    }
    rc = settings_load (api->db, s, NULL, 0, errp);
    db_release (api);
    if (rc == 0) {
        limits_set (api->limits, now, s);
        (void)limits_get (api->limits, now, v);
    }
    free (s);
    return rc;
}

/* 429 naming the limit and its value; Retry-After where it is known. */
static enum MHD_Result
send_limited (struct MHD_Connection *c, const char *limit, long value,
              int retry_after_s, const char *msg)
{
    json_t *o = json_pack ("{s:s, s:s, s:I}", "error", msg, "limit", limit,
                           "value", (json_int_t)value);
    char *text = o ? json_dumps (o, JSON_COMPACT) : NULL;
    struct MHD_Response *r;
    enum MHD_Result ret;
    char ra[24];

    json_decref (o);
    r = MHD_create_response_from_buffer (
        text ? strlen (text) : 2, text ? text : "{}", MHD_RESPMEM_MUST_COPY);
    free (text);
    if (!r)
        return MHD_NO;
    MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE,
                             "application/json");
    if (retry_after_s > 0) {
        snprintf (ra, sizeof (ra), "%d", retry_after_s);
        MHD_add_response_header (r, MHD_HTTP_HEADER_RETRY_AFTER, ra);
    }
    ret = MHD_queue_response (c, 429, r);
    MHD_destroy_response (r);
    return ret;
}

/* Would one more job of uid (held: with --dependency) pass its limit? 0
 * yes, 1 no (*keyp, *capp and msg name the limit), -1 on an error. */
static int
submit_over_limit (ms_api_t *api, uid_t uid, bool held, const char **keyp,
                   long *capp, char *msg, size_t msglen, ms_error_t *errp)
{
    ms_limits_values_t v;
    long cap, nq = 0, nh = 0, n;
    int rc;

    *keyp = held ? "max_held_per_user" : "max_queued_per_user";
    if (user_limits (api, &v, errp) < 0)
        return -1;
    *capp = cap = held ? v.max_held_per_user : v.max_queued_per_user;
    if (cap <= 0)
        return 0;
    if (db_acquire (api, errp) < 0)
        return -1;
    rc = db_jobs_waiting (api->db, uid, held ? 0 : cap, held ? cap : 0, &nq,
                          &nh, errp);
    db_release (api);
    if (rc < 0)
        return -1;
    n = held ? nh : nq;
    if (n < cap)
        return 0;
    snprintf (msg, msglen,
              "limit %s = %ld reached: you have %ld %s jobs already; submit "
              "again when some have %s",
              *keyp, cap, n, held ? "held" : "queued",
              held ? "been released or cancelled"
                   : "been dispatched or cancelled");
    return 1;
}

static enum MHD_Result
do_submit (ms_api_t *api, struct MHD_Connection *c, const req_t *rq,
           const caller_t *who)
{
    ms_apireq_limits_t lim
        = { api->conf.max_script, api->conf.allow_partition,
            api->conf.partition_names };
    char field[80];
    ms_apireq_t r;
    ms_error_t e = { 0 };
    int64_t id;
    int rc;
    bool replayed = false;
    json_t *notes, *ans;
    const char *sf = NULL;

    if (apireq_parse (rq->body, rq->len, &lim, &r, field, sizeof (field), &e)
        < 0)
        return send_err (c, &e, field);
    notes = json_array ();
    if (site_options (api, who, &r, notes, &sf, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return send_err (c, &e, sf);
    }
    if (!who->admin) {
        /* a job with --dependency waits held; any other waits queued */
        const char *key;
        long cap;
        char msg[300];
        int over = submit_over_limit (api, who->uid, r.sb.dependency[0] != '\0',
                                      &key, &cap, msg, sizeof (msg), &e);
        if (over != 0) {
            apireq_free (&r);
            json_decref (notes);
            return over < 0 ? send_err (c, &e, NULL)
                            : send_limited (c, key, cap, 0, msg);
        }
    }
    if (api->hooks.admit && api->hooks.admit (api->ctx, &r, who->uid, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return send_err (c, &e, NULL);
    }
    if (db_acquire (api, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return send_err (c, &e, NULL);
    }
    rc = db_jobs_submit (api->db, who->uid, who->gid, who->user, &r, &id,
                         &replayed, &e);
    db_release (api);
    apireq_free (&r);
    if (rc < 0) {
        json_decref (notes);
        return send_err (c, &e, NULL);
    }
    if (api->hooks.kick)
        api->hooks.kick (api->ctx);
    ans = json_pack ("{s:I}", "id", (json_int_t)id);
    if (replayed) /* the submission's key names a job stored before */
        json_object_set_new (ans, "replayed", json_true ());
    if (json_array_size (notes))
        json_object_set (ans, "notes", notes);
    json_decref (notes);
    return send_json (c, 201, ans);
}

static enum MHD_Result
do_whatif (ms_api_t *api, struct MHD_Connection *c, const req_t *rq,
           const caller_t *who)
{
    ms_apireq_limits_t lim
        = { api->conf.max_script, api->conf.allow_partition,
            api->conf.partition_names };
    char field[80];
    ms_apireq_t r;
    ms_error_t e = { 0 };
    json_t *out = NULL, *notes = json_array ();
    const char *sf = NULL;
    int rc;

    if (apireq_parse (rq->body, rq->len, &lim, &r, field, sizeof (field), &e)
        < 0) {
        json_decref (notes);
        return send_err (c, &e, field);
    }
    if (site_options (api, who, &r, notes, &sf, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return send_err (c, &e, sf);
    }
    if (!api->hooks.whatif) {
        json_decref (notes);
        apireq_free (&r);
        return send_error (c, 503, "what-if is not available", NULL, NULL);
    }
    if (!who->admin) {
        ms_limits_values_t v;
        struct timespec ts;
        int retry;

        if (user_limits (api, &v, &e) < 0) {
            apireq_free (&r);
            return send_err (c, &e, NULL);
        }
        clock_gettime (CLOCK_MONOTONIC, &ts);
        if (!limits_whatif_take (api->limits, who->uid, v.whatif_per_minute,
                                 (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9,
                                 &retry)) {
            char msg[200];
            snprintf (msg, sizeof (msg),
                      "limit whatif_per_minute = %d reached: retry in %d s",
                      v.whatif_per_minute, retry);
            apireq_free (&r);
            return send_limited (c, "whatif_per_minute", v.whatif_per_minute,
                                 retry, msg);
        }
    }
    rc = api->hooks.whatif (api->ctx, &r, who->uid, &out, &e);
    apireq_free (&r);
    if (rc < 0) {
        json_decref (notes);
        return send_err (c, &e, NULL);
    }
    if (!out)
        out = json_object ();
    if (json_array_size (notes)) {
        /* the site's notes first, then the daemon's */
        json_array_extend (notes, json_object_get (out, "notes"));
        json_object_set (out, "notes", notes);
    }
    json_decref (notes);
    return send_json (c, 200, out);
}

/* ?state=a,b: known state names only. */
static int
check_states (const char *s, ms_error_t *e)
{
    static const char *const names[]
        = { "queued",    "deciding", "dispatching", "submitted", "running",
            "completed", "failed",   "cancelled",   "lost",    "unknown" };
    const char *p = s;

    if (strlen (s) > 200)
        return ms_err (e, MS_ERR_INPUT, "state: too long");
    while (*p) {
        size_t n = strcspn (p, ","), i;
        bool ok = false;
        for (i = 0; i < sizeof (names) / sizeof (names[0]); i++)
            if (strlen (names[i]) == n && !strncmp (p, names[i], n))
                ok = true;
        if (!ok)
            return ms_err (e, MS_ERR_INPUT, "state: unknown job state '%.*s'",
                           (int)(n > 32 ? 32 : n), p);
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static enum MHD_Result
do_list (ms_api_t *api, struct MHD_Connection *c, const caller_t *who)
{
    const char *all
        = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND, "all");
    const char *state
        = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND, "state");
    const char *limit
        = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND, "limit");
    long uid = (long)who->uid;
    ms_error_t e = { 0 };
    json_t *out;
    int n = 1000, rc;

    if (all && strcmp (all, "0") != 0) {
        if (strcmp (all, "1") != 0)
            return send_error (c, 400, "all: must be 0 or 1", "all", NULL);
        if (!who->admin)
            return send_error (c, 403, "all=1: only admins list every job",
                               "all", NULL);
        uid = DB_JOBS_ANY_UID;
    }
    if (state && check_states (state, &e) < 0)
        return send_error (c, 400, e.text, "state", NULL);
    if (limit) {
        char *end;
        long l = strtol (limit, &end, 10);
        if (*end || l < 1 || l > 100000)
            return send_error (c, 400, "limit: must be an integer 1..100000",
                               "limit", NULL);
        n = (int)l;
    }
    if (db_acquire (api, &e) < 0)
        return send_err (c, &e, NULL);
    rc = db_jobs_list (api->db, uid, state, n, &out, &e);
    db_release (api);
    if (rc < 0)
        return send_err (c, &e, NULL);
    return send_json (c, 200, out);
}

/* DELETE /v1/jobs/ID?signal=N: the signal to the job where it runs, as
 * scancel --signal; the job is not cancelled. Only a job on a cluster
 * (submitted or running) takes one. */
static enum MHD_Result
do_signal (ms_api_t *api, struct MHD_Connection *c, int64_t id, long uid,
           const char *sigtext)
{
    ms_error_t e = { 0 };
    json_t *job = NULL;
    const char *st, *cl;
    char *end;
    long sig;
    int rc;

    errno = 0;
    sig = strtol (sigtext, &end, 10);
    if (errno || end == sigtext || *end || sig < 1 || sig > 64)
        return send_error (c, 400,
                           "signal: expected a signal number from 1 to 64",
                           "signal", NULL);
    if (db_acquire (api, &e) < 0)
        return send_err (c, &e, NULL);
    rc = db_jobs_get (api->db, id, uid, &job, &e);
    db_release (api);
    if (rc < 0)
        return send_err (c, &e, NULL);
    st = json_string_value (json_object_get (job, "state"));
    cl = json_string_value (json_object_get (job, "cluster"));
    if (!st || (strcmp (st, "submitted") && strcmp (st, "running")) || !cl
        || !json_is_integer (json_object_get (job, "cluster_job_id"))) {
        char msg[160];
        snprintf (msg, sizeof (msg),
                  "job %" PRId64 " is %s: only a job on a cluster (submitted "
                  "or running) takes a signal",
                  id, st ? st : "unknown");
        json_decref (job);
        return send_error (c, 409, msg, NULL, NULL);
    }
    if (!api->hooks.signal) {
        json_decref (job);
        return send_error (c, 503, "signals are not available", NULL, NULL);
    }
    rc = api->hooks.signal (
        api->ctx, cl,
        (uint64_t)json_integer_value (json_object_get (job, "cluster_job_id")),
        (int)sig, &e);
    json_decref (job);
    if (rc < 0) {
        if (!e.http_status)
            e.http_status = 502;
        return send_err (c, &e, NULL);
    }
    return send_json (c, 200,
                      json_pack ("{s:I,s:i}", "id", (json_int_t)id, "signal",
                                 (int)sig));
}

static enum MHD_Result
do_job (ms_api_t *api, struct MHD_Connection *c, const char *method, int64_t id,
        const caller_t *who)
{
    long uid = who->admin ? DB_JOBS_ANY_UID : (long)who->uid;
    ms_error_t e = { 0 };
    char state[16];
    json_t *out = NULL;
    const char *sig = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND,
                                                   "signal");
    int rc;

    if (sig && strcmp (method, "GET"))
        return do_signal (api, c, id, uid, sig);
    if (db_acquire (api, &e) < 0)
        return send_err (c, &e, NULL);
    if (!strcmp (method, "GET"))
        rc = db_jobs_get (api->db, id, uid, &out, &e);
    else
        rc = db_jobs_cancel (api->db, id, uid, state, &e);
    db_release (api);
    if (rc < 0)
        return send_err (c, &e, NULL);
    if (!strcmp (method, "GET"))
        return send_json (c, 200, out);
    if (api->hooks.kick)
        api->hooks.kick (api->ctx);
    return send_json (
        c, 200,
        json_pack ("{s:I,s:s}", "id", (json_int_t)id, "state", "cancelled"));
}

static enum MHD_Result
do_claim (ms_api_t *api, struct MHD_Connection *c, const req_t *rq, int64_t id,
          const caller_t *who)
{
    json_t *o, *cl, *cj;
    json_error_t je;
    ms_error_t e = { 0 };
    const char *cluster, *p;
    json_int_t cjid;
    uint64_t aid;
    char cname[65];
    bool run = false, sub = false, open = false;
    unsigned ident = 0; /* 403, 503: the claimer is not who it says */
    ms_error_t ie = { 0 };
    int rc;

    o = json_loadb (rq->body ? rq->body : "", rq->len, JSON_REJECT_DUPLICATES,
                    &je);
    if (!o || !json_is_object (o)) {
        char msg[300];
        snprintf (msg, sizeof (msg), "malformed JSON: %s",
                  o ? "not an object" : je.text);
        json_decref (o);
        return send_error (c, 400, msg, NULL, NULL);
    }
    cl = json_object_get (o, "cluster");
    cj = json_object_get (o, "cluster_job_id");
    if (json_object_size (o) != (size_t)(!!cl + !!cj)) {
        json_decref (o);
        return send_error (c, 400,
                           "unknown key (a claim has cluster and "
                           "cluster_job_id)",
                           NULL, NULL);
    }
    if (!json_is_string (cl) || json_string_length (cl) == 0
        || json_string_length (cl) > 64) {
        json_decref (o);
        return send_error (c, 400, "cluster: must be a cluster name", "cluster",
                           NULL);
    }
    cluster = json_string_value (cl);
    for (p = cluster; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')
              || (*p >= '0' && *p <= '9') || strchr ("_.+-", *p)))
            break;
    if (*p
        || !strchr ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "0123456789",
                    cluster[0])) {
        json_decref (o);
        return send_error (c, 400, "cluster: not a cluster name", "cluster",
                           NULL);
    }
    if (!json_is_integer (cj) || (cjid = json_integer_value (cj)) <= 0) {
        json_decref (o);
        return send_error (c, 400, "cluster_job_id: must be a positive integer",
                           "cluster_job_id", NULL);
    }
    /* Which copy claims is the cluster's word, not the job's environment
     * (which the user writes and a job submitted from inside another
     * inherits): Slurm's record of the claimer's own job id names its user
     * and, for a task, its array (a task claims for its array: the copy
     * that was dispatched). Only a copy that metaschedd recorded as a
     * submission of this meta job may win it; a claim on a job already
     * claimed or ended is lost whoever asks. */
    snprintf (cname, sizeof (cname), "%s", cluster);
    cluster = cname; /* the name outlives the request's JSON */
    json_decref (o);
    aid = (uint64_t)cjid;
    if (api->hooks.cluster_job) {
        uid_t juid = (uid_t)-1;
        uint64_t arr = 0;
        if (api->hooks.cluster_job (api->ctx, cluster, (uint64_t)cjid, &juid,
                                    &arr, &ie)
            < 0)
            ident = ie.kind && ie.kind != MS_ERR_MISSING ? 503 : 403;
        else if (juid != who->uid)
            ident = 403;
        else if (arr)
            aid = arr;
    }
    if (db_acquire (api, &e) < 0)
        return send_err (c, &e, NULL);
    rc = db_jobs_is_submission (api->db, id, (long)who->uid, cluster,
                                (int64_t)aid, &sub, &open, &e);
    if (rc == 0 && !ident && sub)
        rc = db_jobs_claim (api->db, id, (long)who->uid, cluster, (int64_t)aid,
                            &run, &e);
    db_release (api);
    if (rc < 0)
        return send_err (c, &e, NULL);
    /* another copy won, or the job ended: lost, whoever asks (but a
     * cluster that cannot be asked now may hide the winner asking again) */
    if ((ident == 403 || !sub) && !open)
        return send_json (c, 409, json_pack ("{s:b}", "run", false));
    if (ident == 503) {
        char msg[sizeof (ie.text) + 200];
        snprintf (msg, sizeof (msg),
                  "cluster_job_id: cannot ask cluster %s about job %lld now, "
                  "retry later: %s",
                  cluster, (long long)cjid, ie.text);
        return send_error (c, 503, msg, "cluster_job_id", NULL);
    }
    if (ident) {
        char msg[200];
        snprintf (msg, sizeof (msg),
                  "cluster_job_id: cluster %s has no job %lld of this user",
                  cluster, (long long)cjid);
        return send_error (c, 403, msg, "cluster_job_id", NULL);
    }
    if (!sub) {
        /* not (yet) recorded: a copy may start before metaschedd has
         * written down its submission; the start gate retries, then
         * refuses */
        char msg[300];
        snprintf (msg, sizeof (msg),
                  "cluster_job_id: job %llu on cluster %s is not a recorded "
                  "submission of job %lld (not yet, or never): retry later",
                  (unsigned long long)aid, cluster, (long long)id);
        return send_error (c, 503, msg, "cluster_job_id", NULL);
    }
    return send_json (c, run ? 200 : 409, json_pack ("{s:b}", "run", run));
}

/* POST /v1/admin/jobs/ID/resolve: an unknown job to completed, failed or
 * cancelled, by an admin (403 for others, 409 for a job not unknown); the
 * audit row is written with it (db_jobs_resolve). */
static enum MHD_Result
do_resolve (ms_api_t *api, struct MHD_Connection *c, const req_t *rq,
            int64_t id, const caller_t *who)
{
    resolve_req_t r;
    ms_error_t e = { 0 };
    char field[64], state[16] = "";
    int rc;

    if (!who->admin)
        return send_error (c, 403, "only admins resolve jobs", NULL, NULL);
    if (resolve_parse (rq->body, rq->len, &r, field, sizeof (field), &e) < 0)
        return send_err (c, &e, field[0] ? field : NULL);
    if (db_acquire (api, &e) < 0)
        return send_err (c, &e, NULL);
    rc = db_jobs_resolve (api->db, id, r.state, r.exit_code, who->user,
                          r.reason, state, &e);
    db_release (api);
    if (rc < 0)
        return send_err (c, &e, NULL);
    if (api->hooks.kick)
        api->hooks.kick (api->ctx);
    return send_json (c, 200,
                      json_pack ("{s:I, s:s, s:o, s:s}", "id", (json_int_t)id,
                                 "state", r.state, "exit_code",
                                 r.exit_code >= 0 ? json_integer (r.exit_code)
                                                  : json_null (),
                                 "resolved_by", who->user));
}

static enum MHD_Result
do_settings (ms_api_t *api, struct MHD_Connection *c, const char *method,
             const req_t *rq, const caller_t *who)
{
    ms_settings_t *s = malloc (sizeof (*s));
    ms_error_t e = { 0 };
    char badkey[80];
    json_t *body = NULL, *out;
    json_error_t je;
    int rc;

    if (!s)
        return send_error (c, 500, "out of memory", NULL, NULL);
    if (!strcmp (method, "PUT")) {
        if (!who->admin) {
            free (s);
            return send_error (c, 403, "only admins change settings", NULL,
                               NULL);
        }
        body = json_loadb (rq->body ? rq->body : "", rq->len,
                           JSON_REJECT_DUPLICATES, &je);
        if (!body) {
            char msg[300];
            free (s);
            snprintf (msg, sizeof (msg), "malformed JSON: %s", je.text);
            return send_error (c, 400, msg, NULL, NULL);
        }
    }
    if (db_acquire (api, &e) < 0) {
        free (s);
        json_decref (body);
        return send_err (c, &e, NULL);
    }
    rc = settings_load (api->db, s, NULL, 0, &e);
    if (rc == 0 && body) {
        rc = settings_update (s, body, badkey, sizeof (badkey), &e);
        if (rc < 0) {
            db_release (api);
            json_decref (body);
            free (s);
            return send_err (c, &e, badkey);
        }
        rc = settings_save (api->db, body, who->user, &e);
    }
    db_release (api);
    json_decref (body);
    if (rc < 0) {
        free (s);
        return send_err (c, &e, NULL);
    }
    out = settings_to_json (s);
    free (s);
    if (!strcmp (method, "PUT") && api->hooks.kick)
        api->hooks.kick (api->ctx);
    return send_json (c, 200, out);
}

static enum MHD_Result
do_clusters (ms_api_t *api, struct MHD_Connection *c)
{
    ms_error_t e = { 0 };
    json_t *out = NULL;

    if (!api->hooks.clusters)
        return send_error (c, 503, "cluster state is not available", NULL,
                           NULL);
    if (api->hooks.clusters (api->ctx, &out, &e) < 0)
        return send_err (c, &e, NULL);
    return send_json (c, 200, out ? out : json_pack ("{s:[]}", "clusters"));
}

static void put_metric (char **buf, size_t *len, size_t *cap, const char *fmt,
                        ...) __attribute__ ((format (printf, 4, 5)));

static void
put_metric (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start (ap, fmt);
        n = vsnprintf (*buf + *len, *cap - *len, fmt, ap);
        va_end (ap);
        if (n < 0)
            return;
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap = (*cap + (size_t)n) * 2;
        *buf = realloc (*buf, *cap);
        if (!*buf)
            abort ();
    }
}

static void
put_value (char **buf, size_t *len, size_t *cap, double v)
{
    if (isnan (v))
        put_metric (buf, len, cap, "NaN\n");
    else
        put_metric (buf, len, cap, "%.17g\n", v);
}

static enum MHD_Result
do_metrics (ms_api_t *api, struct MHD_Connection *c)
{
    db_jobs_metrics_t m;
    ms_error_t e = { 0 };
    unsigned long refused[3];
    size_t len = 0, cap = 4096;
    char *buf = malloc (cap), *extra = NULL;
    enum MHD_Result ret;
    int rc, i;

    if (!buf)
        return send_error (c, 500, "out of memory", NULL, NULL);
    buf[0] = '\0';
    if (db_acquire (api, &e) < 0) {
        free (buf);
        return send_err (c, &e, NULL);
    }
    rc = db_jobs_metrics (api->db, &m, &e);
    db_release (api);
    if (rc < 0) {
        free (buf);
        return send_err (c, &e, NULL);
    }
    put_metric (&buf, &len, &cap,
                "# HELP metasched_jobs Jobs in the meta queue by state.\n"
                "# TYPE metasched_jobs gauge\n");
    for (i = 0; i < m.nstates; i++)
        put_metric (&buf, &len, &cap, "metasched_jobs{state=\"%s\"} %ld\n",
                    m.state[i], m.count[i]);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_dispatches_total Submissions of meta jobs "
                "to clusters (siblings and re-routes each count).\n"
                "# TYPE metasched_dispatches_total counter\n"
                "metasched_dispatches_total %ld\n",
                m.dispatches);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_prediction_abs_error_ratio Mean of "
                "|predicted - measured| / measured over measured jobs.\n"
                "# TYPE metasched_prediction_abs_error_ratio gauge\n"
                "metasched_prediction_abs_error_ratio{quantity=\"time\"} ");
    put_value (&buf, &len, &cap, m.time_abs_err);
    put_metric (&buf, &len, &cap,
                "metasched_prediction_abs_error_ratio{quantity=\"energy\"} ");
    put_value (&buf, &len, &cap, m.energy_abs_err);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_prediction_jobs Measured jobs behind the "
                "prediction error.\n"
                "# TYPE metasched_prediction_jobs gauge\n"
                "metasched_prediction_jobs{quantity=\"time\"} %ld\n"
                "metasched_prediction_jobs{quantity=\"energy\"} %ld\n",
                m.time_n, m.energy_n);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_energy_joules_total Energy measured of the "
                "jobs metasched dispatched (package and DRAM).\n"
                "# TYPE metasched_energy_joules_total counter\n"
                "metasched_energy_joules_total ");
    put_value (&buf, &len, &cap, m.energy_joules);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_api_refused_total Connections and requests "
                "the API refused by a limit (429, 408).\n"
                "# TYPE metasched_api_refused_total counter\n");
    pthread_mutex_lock (&api->conn_lock);
    memcpy (refused, api->refused, sizeof (refused));
    pthread_mutex_unlock (&api->conn_lock);
    for (i = 0; i < 3; i++)
        put_metric (&buf, &len, &cap,
                    "metasched_api_refused_total{limit=\"%s\"} %lu\n",
                    refused_names[i], refused[i]);
    if (api->hooks.metrics) {
        if (api->hooks.metrics (api->ctx, &extra, &e) == 0 && extra) {
            put_metric (&buf, &len, &cap, "%s", extra);
            if (len > 0 && buf[len - 1] != '\n')
                put_metric (&buf, &len, &cap, "\n");
        }
        free (extra);
    }
    ret = send_text (c, 200, "text/plain; version=0.0.4; charset=utf-8", buf,
                     NULL);
    free (buf);
    return ret;
}

/* ---- the request cycle ---- */

static void *
uri_log (void *cls, const char *uri, struct MHD_Connection *c)
{
    req_t *rq = calloc (1, sizeof (*rq));
    const union MHD_ConnectionInfo *ci
        = MHD_get_connection_info (c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    (void)cls;
    if (rq) {
        rq->target = strdup (uri ? uri : "");
        rq->conn = ci ? ci->socket_context : NULL;
    }
    return rq;
}

static void
completed (void *cls, struct MHD_Connection *c, void **con_cls,
           enum MHD_RequestTerminationCode toe)
{
    ms_api_t *api = cls;
    req_t *rq = *con_cls;
    const union MHD_ConnectionInfo *ci
        = MHD_get_connection_info (c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_t *k = ci ? ci->socket_context : NULL;

    (void)toe;
    /* a keep-alive connection's next request has a deadline of its own */
    if (k) {
        pthread_mutex_lock (&api->conn_lock);
        k->phase = PH_IDLE;
        k->deadline = mono_now () + request_timeout (api);
        pthread_mutex_unlock (&api->conn_lock);
    }
    if (rq) {
        free (rq->target);
        free (rq->body);
        free (rq);
    }
    *con_cls = NULL;
}

static bool
has_body_method (const char *m)
{
    return !strcmp (m, "POST") || !strcmp (m, "PUT");
}

/* The caller from the Authorization header: 0, or an answer sent (401,
 * 503) and -1. */
static int
authenticate (ms_api_t *api, struct MHD_Connection *c, const char *method,
              req_t *rq, enum MHD_Result *retp)
{
    const char *auth = MHD_lookup_connection_value (
        c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    size_t sl = strlen (MS_AUTH_SCHEME);
    ms_error_t e = { 0 };

    if (!auth) {
        *retp = send_error (c, 401, "no credential (Authorization: MUNGE)",
                            NULL, NULL);
        return -1;
    }
    if (strncmp (auth, MS_AUTH_SCHEME, sl) != 0 || auth[sl] != ' ') {
        *retp = send_error (c, 401,
                            "the credential must be \"Authorization: "
                            "MUNGE <credential>\"",
                            NULL, NULL);
        return -1;
    }
    if (ms_auth_decode (api->conf.munge_socket, auth + sl + 1, method,
                        rq->target, &rq->who.uid, &rq->who.gid, rq->digest, &e)
        < 0) {
        *retp = send_error (c, err_status (&e), e.text, NULL, NULL);
        return -1;
    }
    if (caller_resolve (api, &rq->who, &e) < 0) {
        *retp = send_error (c, err_status (&e), e.text, NULL, NULL);
        return -1;
    }
    rq->authed = true;
    return 0;
}

static enum MHD_Result
handle (void *cls, struct MHD_Connection *c, const char *url,
        const char *method, const char *version, const char *upload_data,
        size_t *upload_data_size, void **con_cls)
{
    ms_api_t *api = cls;
    size_t max_body = api->conf.max_body ? api->conf.max_body : APIREQ_BODY_MAX;
    req_t *rq = *con_cls;
    const char *allow = NULL, *ctype, *clen;
    int64_t id = 0;
    route_t rt;
    ms_error_t e = { 0 };
    enum MHD_Result ret;
    char *q;

    (void)version;
    (void)url;
    if (!rq || !rq->target)
        return MHD_NO; /* out of memory: drop the connection */
    /* the first call (headers in) may answer at once, later calls take
     * the body in or answer */
    if (conn_enter (api, rq->conn,
                    rq->started && *upload_data_size ? PH_BODY : PH_ANSWER)
        < 0)
        return MHD_NO; /* past its deadline: answered 408 and closed */
    if (!rq->started) {
        rq->started = true;
        /* the raw target's path, as the route sees it */
        if ((q = strchr (rq->target, '?')))
            *q = '\0';
        rt = route (rq->target, &id, &allow);
        if (q)
            *q = '?';
        if (rt == R_NONE)
            return send_error (c, 404, "no such path", NULL, NULL);
        if (!method_allowed (allow, method))
            return send_error (c, 405, "method not allowed here", NULL, allow);
        clen = MHD_lookup_connection_value (c, MHD_HEADER_KIND,
                                            MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (clen && strtoull (clen, NULL, 10) > max_body) {
            char msg[128];
            snprintf (msg, sizeof (msg),
                      "request body over the limit of %zu bytes", max_body);
            return send_limit (c, 413, msg, "body_bytes");
        }
        ctype = MHD_lookup_connection_value (c, MHD_HEADER_KIND,
                                             MHD_HTTP_HEADER_CONTENT_TYPE);
        if (has_body_method (method)
            && (!ctype || strncasecmp (ctype, "application/json", 16) != 0
                || (ctype[16] != '\0' && ctype[16] != ';' && ctype[16] != ' ')))
            return send_error (c, 415,
                               "the body must be JSON (Content-Type: "
                               "application/json)",
                               NULL, NULL);
        /* who asks, before a byte of the body is read: a request without
         * a valid credential costs its headers, nothing more */
        if (!(rt == R_METRICS && api->conf.metrics_public
              && !MHD_lookup_connection_value (c, MHD_HEADER_KIND,
                                               MHD_HTTP_HEADER_AUTHORIZATION))
            && authenticate (api, c, method, rq, &ret) < 0)
            return ret;
        conn_enter (api, rq->conn, PH_BODY);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rq->len + n > max_body) {
            /* a chunked body past the limit: answered and closed now,
             * the rest is never read */
            char msg[128];
            snprintf (msg, sizeof (msg),
                      "request body over the limit of %zu bytes", max_body);
            conn_refuse (api, rq->conn, 413, "Content Too Large", msg,
                         "body_bytes");
            return MHD_NO;
        }
        if (rq->len + n + 1 > rq->cap) {
            size_t cap = (rq->len + n + 1) * 2;
            char *b;
            if (cap > max_body + 1)
                cap = max_body + 1;
            if (!(b = realloc (rq->body, cap)))
                return MHD_NO;
            rq->body = b;
            rq->cap = cap;
        }
        memcpy (rq->body + rq->len, upload_data, n);
        rq->len += n;
        rq->body[rq->len] = '\0';
        return MHD_YES;
    }
    if ((q = strchr (rq->target, '?')))
        *q = '\0';
    rt = route (rq->target, &id, &allow);
    if (q)
        *q = '?';

    /* the body is the one the credential was made for */
    if (rq->authed
        && ms_auth_check_body (rq->digest, rq->body, rq->len, &e) < 0)
        return send_error (c, err_status (&e), e.text, NULL, NULL);

    switch (rt) {
    case R_JOBS:
        if (!strcmp (method, "POST"))
            return do_submit (api, c, rq, &rq->who);
        return do_list (api, c, &rq->who);
    case R_JOB:
        return do_job (api, c, method, id, &rq->who);
    case R_CLAIM:
        return do_claim (api, c, rq, id, &rq->who);
    case R_WHATIF:
        return do_whatif (api, c, rq, &rq->who);
    case R_CLUSTERS:
        return do_clusters (api, c);
    case R_SETTINGS:
        return do_settings (api, c, method, rq, &rq->who);
    case R_METRICS:
        return do_metrics (api, c);
    case R_RESOLVE:
        return do_resolve (api, c, rq, id, &rq->who);
    default:
        return send_error (c, 404, "no such path", NULL, NULL);
    }
}

/* ---- sockets ---- */

static int
unix_listen (const char *path, ms_error_t *errp)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct stat st;
    int fd;

    if (strlen (path) >= sizeof (sa.sun_path))
        return ms_err (errp, MS_ERR_INPUT, "socket %s: path too long", path);
    if (lstat (path, &st) == 0) {
        if (!S_ISSOCK (st.st_mode))
            return ms_err (errp, MS_ERR_INPUT,
                           "socket %s: exists and is not a socket", path);
        if (unlink (path) < 0) {
            ms_err (errp, MS_ERR_SYSTEM,
                    "socket %s: removing the stale one: %s", path,
                    strerror (errno));
            return -1;
        }
    }
    memcpy (sa.sun_path, path, strlen (path) + 1);
    if ((fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "socket: %s", strerror (errno));
    if (bind (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0
        || chmod (path, 0666) < 0 || listen (fd, 64) < 0) {
        ms_err (errp, MS_ERR_SYSTEM, "socket %s: %s", path, strerror (errno));
        close (fd);
        return -1;
    }
    return fd;
}

static int
tcp_listen (const char *listen_s, int *portp, ms_error_t *errp)
{
    char host[128], *colon;
    struct addrinfo hints = { 0 }, *ai = NULL, *a;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof (ss);
    int fd = -1, one = 1, rc;

    snprintf (host, sizeof (host), "%s", listen_s);
    if (!(colon = strrchr (host, ':')) || !colon[1])
        return ms_err (errp, MS_ERR_INPUT, "listen '%s': must be host:port",
                       listen_s);
    *colon = '\0';
    if (host[0] == '[' && colon > host + 1 && colon[-1] == ']') {
        colon[-1] = '\0';
        memmove (host, host + 1, strlen (host));
    }
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    if ((rc = getaddrinfo (host[0] ? host : NULL, colon + 1, &hints, &ai)))
        return ms_err (errp, MS_ERR_INPUT, "listen '%s': %s", listen_s,
                       gai_strerror (rc));
    for (a = ai; a; a = a->ai_next) {
        fd = socket (a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                     a->ai_protocol);
        if (fd < 0)
            continue;
        setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
        if (bind (fd, a->ai_addr, a->ai_addrlen) == 0 && listen (fd, 64) == 0)
            break;
        close (fd);
        fd = -1;
    }
    freeaddrinfo (ai);
    if (fd < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "listen '%s': %s", listen_s,
                       strerror (errno));
    if (getsockname (fd, (struct sockaddr *)&ss, &sl) == 0)
        *portp = ntohs (ss.ss_family == AF_INET6
                            ? ((struct sockaddr_in6 *)&ss)->sin6_port
                            : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

/* A server on the listening socket fd: conf.threads threads, each
 * polling its share of the connections (epoll where libmicrohttpd has
 * it). libmicrohttpd's own idle timeout stays as a second guard behind the
 * reaper's deadline. */
static struct MHD_Daemon *
mhd_start (ms_api_t *api, int fd, ms_error_t *errp)
{
    unsigned threads = api->conf.threads ? api->conf.threads : API_THREADS;
    unsigned limit = api->conf.max_connections ? api->conf.max_connections
                                               : API_MAX_CONNECTIONS;
    unsigned idle = (unsigned)ceil (request_timeout (api)) + 1;
    unsigned flags
        = MHD_USE_INTERNAL_POLLING_THREAD
          | (MHD_is_feature_supported (MHD_FEATURE_EPOLL) ? MHD_USE_EPOLL
                                                          : MHD_USE_POLL);
    struct MHD_Daemon *d;

    if (limit < threads)
        limit = threads; /* a share of at least one for each thread */
    d = MHD_start_daemon (
        flags, 0, NULL, NULL, handle, api, MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL, MHD_OPTION_NOTIFY_COMPLETED,
        completed, api, MHD_OPTION_NOTIFY_CONNECTION, conn_notify, api,
        MHD_OPTION_CONNECTION_TIMEOUT, idle, MHD_OPTION_CONNECTION_LIMIT, limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
        MHD_OPTION_THREAD_POOL_SIZE, threads > 1 ? threads : 0u,
        MHD_OPTION_END);
    if (!d)
        ms_err (errp, MS_ERR_SYSTEM, "cannot start the HTTP server");
    return d;
}

static char *
dup_or_null (const char *s)
{
    return s ? strdup (s) : NULL;
}

ms_api_t *
api_start (const ms_api_conf_t *conf, const ms_api_hooks_t *hooks, void *ctx,
           ms_error_t *errp)
{
    ms_api_t *api = calloc (1, sizeof (*api));
    size_t i;

    if (!api) {
        ms_err (errp, MS_ERR_SYSTEM, "out of memory");
        return NULL;
    }
    api->conf = *conf;
    api->unix_fd = api->tcp_fd = -1;
    pthread_mutex_init (&api->db_lock, NULL);
    if (!(api->limits = limits_new ())) {
        ms_err (errp, MS_ERR_SYSTEM, "out of memory");
        pthread_mutex_destroy (&api->db_lock);
        free (api);
        return NULL;
    }
    pthread_mutex_init (&api->conn_lock, NULL);
    {
        pthread_condattr_t ca;
        pthread_condattr_init (&ca);
        pthread_condattr_setclock (&ca, CLOCK_MONOTONIC);
        pthread_cond_init (&api->reaper_cv, &ca);
        pthread_condattr_destroy (&ca);
    }
    if (hooks)
        api->hooks = *hooks;
    api->ctx = ctx;
    api->conninfo = dup_or_null (conf->db_conninfo);
    api->password_file = dup_or_null (conf->db_password_file);
    api->conf.db_conninfo = api->conninfo;
    api->conf.db_password_file = api->password_file;
    api->conf.admin_users = NULL;
    api->conf.admin_groups = NULL;
    api->admins = calloc (conf->nadmin_users + conf->nadmin_groups + 1,
                          sizeof (char *));
    for (i = 0; api->admins && i < conf->nadmin_users; i++)
        api->admins[api->nadmins++] = strdup (conf->admin_users[i]);
    for (i = 0; api->admins && i < conf->nadmin_groups; i++) {
        char *g = malloc (strlen (conf->admin_groups[i]) + 2);
        if (g)
            sprintf (g, "@%s", conf->admin_groups[i]);
        api->admins[api->nadmins++] = g;
    }
    if (!api->admins || !api->conninfo) {
        ms_err (errp, MS_ERR_INPUT, "%s",
                api->conninfo ? "out of memory" : "no database conninfo");
        goto fail;
    }
    for (i = 0; i < api->nadmins; i++)
        if (!api->admins[i]) {
            ms_err (errp, MS_ERR_SYSTEM, "out of memory");
            goto fail;
        }
    if (!conf->socket_path[0] && !conf->listen[0]) {
        ms_err (errp, MS_ERR_INPUT, "neither a socket nor a listen address");
        goto fail;
    }
    if (!(conf->request_timeout_s >= 0) || conf->threads > 1024) {
        ms_err (errp, MS_ERR_INPUT,
                "request_timeout_s or threads out of range");
        goto fail;
    }
    if (pthread_create (&api->reaper, NULL, reaper_main, api) != 0) {
        ms_err (errp, MS_ERR_SYSTEM, "cannot start the API's reaper thread");
        goto fail;
    }
    api->reaper_on = true;
    if (conf->socket_path[0]) {
        if ((api->unix_fd = unix_listen (conf->socket_path, errp)) < 0)
            goto fail;
        if (!(api->unix_d = mhd_start (api, api->unix_fd, errp)))
            goto fail;
    }
    if (conf->listen[0]) {
        if ((api->tcp_fd = tcp_listen (conf->listen, &api->port, errp)) < 0)
            goto fail;
        if (!(api->tcp_d = mhd_start (api, api->tcp_fd, errp)))
            goto fail;
    }
    return api;
fail:
    api_stop (api);
    return NULL;
}

void
api_stop (ms_api_t *api)
{
    size_t i;

    if (!api)
        return;
    /* a started daemon closes the listening socket it was given */
    if (api->unix_d)
        MHD_stop_daemon (api->unix_d);
    else if (api->unix_fd >= 0)
        close (api->unix_fd);
    if (api->unix_fd >= 0)
        unlink (api->conf.socket_path);
    if (api->tcp_d)
        MHD_stop_daemon (api->tcp_d);
    else if (api->tcp_fd >= 0)
        close (api->tcp_fd);
    /* the servers are gone, and with them every connection */
    if (api->reaper_on) {
        pthread_mutex_lock (&api->conn_lock);
        api->stopping = true;
        pthread_cond_signal (&api->reaper_cv);
        pthread_mutex_unlock (&api->conn_lock);
        pthread_join (api->reaper, NULL);
    }
    pthread_cond_destroy (&api->reaper_cv);
    pthread_mutex_destroy (&api->conn_lock);
    if (api->db)
        db_close (api->db);
    pthread_mutex_destroy (&api->db_lock);
    limits_free (api->limits);
    for (i = 0; i < api->nadmins; i++)
        free (api->admins[i]);
    free (api->admins);
    free (api->conninfo);
    free (api->password_file);
    free (api);
}

int
api_port (const ms_api_t *api)
{
    return api ? api->port : 0;
}
