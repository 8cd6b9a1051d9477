/* api_http.c - the API server's HTTP plumbing (api_int.h): answers in
 * JSON or text, the connections counted against their peer and closed at
 * their request's deadline (the reaper thread), the database connection
 * the threads share, and the listening sockets.
 */
#define _GNU_SOURCE /* struct ucred, SO_PEERCRED */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "metasched/api/api_int.h"
#include "metasched/common/util.h"

const char *const api_refused_names[3]
    = { "max_connections_per_user", "max_connections_per_address",
        "request_timeout_s" };

/* ---- responses ---- */

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

enum MHD_Result
api_send_text (struct MHD_Connection *c, unsigned status, const char *ctype,
               const char *text, const char *allow)
{
    return send_text_retry (c, status, ctype, text, allow, NULL);
}

/* Send o (reference stolen). */
enum MHD_Result
api_send_json (struct MHD_Connection *c, unsigned status, json_t *o)
{
    char *s = json_dumps (o, JSON_COMPACT);
    enum MHD_Result ret;

    json_decref (o);
    if (!s)
        return api_send_text (c, 500, "application/json",
                              "{\"error\":\"out of memory\"}", NULL);
    ret = api_send_text (c, status, "application/json", s, NULL);
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

enum MHD_Result
api_send_error (struct MHD_Connection *c, unsigned status, const char *msg,
                const char *field, const char *allow)
{
    return send_error_retry (c, status, msg, field, allow, NULL);
}

/* A refusal by a limit of the server: {"error": msg, "limit": limit}. */
enum MHD_Result
api_send_limit (struct MHD_Connection *c, unsigned status, const char *msg,
                const char *limit)
{
    json_t *o = json_pack ("{s:s,s:s}", "error", msg, "limit", limit);

    return o ? api_send_json (c, status, o)
             : api_send_text (c, 500, "application/json",
                              "{\"error\":\"out of memory\"}", NULL);
}

/* The status for an error that carries none. */
unsigned
api_err_status (const ms_error_t *e)
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

enum MHD_Result
api_send_err (struct MHD_Connection *c, const ms_error_t *e, const char *field)
{
    unsigned st = api_err_status (e);
    char msg[1100];

    if (st == 503 && (e->kind == MS_ERR_CONNECT || e->kind == MS_ERR_DB)) {
        /* no read-write database answers (down, failing over): the
         * client retries after Retry-After */
        snprintf (msg, sizeof (msg), "database unavailable, retry later: %s",
                  e->text);
        return send_error_retry (c, st, msg, field, NULL, API_DB_RETRY_AFTER);
    }
    snprintf (msg, sizeof (msg), "%s", e->text);
    return api_send_error (c, st, msg, field, NULL);
}

/* ---- connections: who holds them, and for how long ---- */

double
api_mono_now (void)
{
    return ms_mono_s ();
}

double
api_request_timeout (const ms_api_t *api)
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
    k->linger_until = api_mono_now () + API_REFUSE_LINGER_S;
}

void
api_conn_refuse (ms_api_t *api, conn_t *k, unsigned status, const char *reason,
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
                  api_request_timeout (api));
        conn_refuse_locked (k, 408, "Request Timeout", msg,
                            "request_timeout_s");
        api->refused[REFUSED_DEADLINE]++;
    } else
        conn_refuse_locked (k, 0, NULL, NULL, NULL);
}

/* A handler call begins phase ph of the request: -1 if the connection is
 * closing or past its deadline (then answered 408 and closed). */
int
api_conn_enter (ms_api_t *api, conn_t *k, phase_t ph)
{
    int rc = 0;

    if (!k)
        return 0;
    pthread_mutex_lock (&api->conn_lock);
    if (!k->closing && api_mono_now () >= k->deadline)
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
void
api_conn_notify (void *cls, struct MHD_Connection *c, void **socket_context,
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
    k->deadline = api_mono_now () + api_request_timeout (api);
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
        api->refused[strcmp (limit_name, api_refused_names[REFUSED_PER_USER])
                         ? REFUSED_PER_ADDRESS
                         : REFUSED_PER_USER]++;
    } else
        k->counted = true;
    pthread_mutex_unlock (&api->conn_lock);
}

/* Close every connection past its request's deadline, four times a
 * second, whether or not its client still sends. */
void *
api_reaper_main (void *arg)
{
    ms_api_t *api = arg;
    struct timespec ts;
    conn_t *k;

    pthread_mutex_lock (&api->conn_lock);
    while (!api->stopping) {
        double now = api_mono_now ();
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
int
api_db_acquire (ms_api_t *api, ms_error_t *errp)
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

void
api_db_release (ms_api_t *api)
{
    pthread_mutex_unlock (&api->db_lock);
}

/* ---- sockets ---- */

int
api_unix_listen (const char *path, ms_error_t *errp)
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

int
api_tcp_listen (const char *listen_s, int *portp, ms_error_t *errp)
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
