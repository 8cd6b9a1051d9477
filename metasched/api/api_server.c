/* api_server.c - metaschedd's HTTP API (api.h, doc/api.md) on libmicrohttpd.
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
 *
 * This file holds the request cycle (route, authenticate, dispatch to an
 * endpoint) and the server's start and stop; the answers, connections,
 * the shared database connection and the sockets are in api_http.c, the
 * endpoints in api_jobs.c, api_admin.c and api_metrics.c (api_int.h).
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

#include "metasched/api/api_int.h"
#include "metasched/api/resolve.h"
#include "metasched/api/settings.h"

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
        k->deadline = api_mono_now () + api_request_timeout (api);
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
        *retp = api_send_error (c, 401, "no credential (Authorization: MUNGE)",
                                NULL, NULL);
        return -1;
    }
    if (strncmp (auth, MS_AUTH_SCHEME, sl) != 0 || auth[sl] != ' ') {
        *retp = api_send_error (c, 401,
                                "the credential must be \"Authorization: "
                                "MUNGE <credential>\"",
                                NULL, NULL);
        return -1;
    }
    if (ms_auth_decode (api->conf.munge_socket, auth + sl + 1, method,
                        rq->target, &rq->who.uid, &rq->who.gid, rq->digest, &e)
        < 0) {
        *retp = api_send_error (c, api_err_status (&e), e.text, NULL, NULL);
        return -1;
    }
    if (caller_resolve (api, &rq->who, &e) < 0) {
        *retp = api_send_error (c, api_err_status (&e), e.text, NULL, NULL);
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
    if (api_conn_enter (api, rq->conn,
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
            return api_send_error (c, 404, "no such path", NULL, NULL);
        if (!method_allowed (allow, method))
            return api_send_error (c, 405, "method not allowed here", NULL,
                                   allow);
        clen = MHD_lookup_connection_value (c, MHD_HEADER_KIND,
                                            MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (clen && strtoull (clen, NULL, 10) > max_body) {
            char msg[128];
            snprintf (msg, sizeof (msg),
                      "request body over the limit of %zu bytes", max_body);
            return api_send_limit (c, 413, msg, "body_bytes");
        }
        ctype = MHD_lookup_connection_value (c, MHD_HEADER_KIND,
                                             MHD_HTTP_HEADER_CONTENT_TYPE);
        if (has_body_method (method)
            && (!ctype || strncasecmp (ctype, "application/json", 16) != 0
                || (ctype[16] != '\0' && ctype[16] != ';' && ctype[16] != ' ')))
            return api_send_error (c, 415,
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
        api_conn_enter (api, rq->conn, PH_BODY);
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
            api_conn_refuse (api, rq->conn, 413, "Content Too Large", msg,
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
        return api_send_error (c, api_err_status (&e), e.text, NULL, NULL);

    switch (rt) {
    case R_JOBS:
        if (!strcmp (method, "POST"))
            return api_do_submit (api, c, rq, &rq->who);
        return api_do_list (api, c, &rq->who);
    case R_JOB:
        return api_do_job (api, c, method, id, &rq->who);
    case R_CLAIM:
        return api_do_claim (api, c, rq, id, &rq->who);
    case R_WHATIF:
        return api_do_whatif (api, c, rq, &rq->who);
    case R_CLUSTERS:
        return api_do_clusters (api, c);
    case R_SETTINGS:
        return api_do_settings (api, c, method, rq, &rq->who);
    case R_METRICS:
        return api_do_metrics (api, c);
    case R_RESOLVE:
        return api_do_resolve (api, c, rq, id, &rq->who);
    default:
        return api_send_error (c, 404, "no such path", NULL, NULL);
    }
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
    unsigned idle = (unsigned)ceil (api_request_timeout (api)) + 1;
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
        completed, api, MHD_OPTION_NOTIFY_CONNECTION, api_conn_notify, api,
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
    if (pthread_create (&api->reaper, NULL, api_reaper_main, api) != 0) {
        ms_err (errp, MS_ERR_SYSTEM, "cannot start the API's reaper thread");
        goto fail;
    }
    api->reaper_on = true;
    if (conf->socket_path[0]) {
        if ((api->unix_fd = api_unix_listen (conf->socket_path, errp)) < 0)
            goto fail;
        if (!(api->unix_d = mhd_start (api, api->unix_fd, errp)))
            goto fail;
    }
    if (conf->listen[0]) {
        if ((api->tcp_fd = api_tcp_listen (conf->listen, &api->port, errp)) < 0)
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
