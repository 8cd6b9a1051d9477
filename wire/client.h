/* client.h - a client of metaschedd's API (doc/api.md) over libcurl.
 *
 * The server is "unix:/path/to/socket" or "http://host:port". Each request
 * carries a MUNGE credential bound to it (auth.h); bodies are JSON
 * (jansson). A failed call fills errp: MS_ERR_CONNECT "metaschedd not
 * reachable at unix:/run/...: connection refused", MS_ERR_TIMEOUT,
 * MS_ERR_PROTOCOL for an answer that is not JSON, and for a non-2xx answer
 * MS_ERR_HTTP with http_status and the server's "error" text (plus
 * " (field 'nodes')" where it names one). The library never prints.
 *
 * Used by msbatch, msqueue, mscancel, `metasched config` and the tests.
 */
#ifndef MS_CLIENT_H
#define MS_CLIENT_H

#include <stddef.h>

#include <jansson.h>

#include "metasched/common/error.h"

/* The default server when neither --server nor METASCHED_SERVER is given. */
#ifndef MS_CLIENT_DEFAULT_SERVER
#define MS_CLIENT_DEFAULT_SERVER "unix:/run/metasched/metaschedd.sock"
#endif

#define MS_CLIENT_ENV_SERVER "METASCHED_SERVER"
#define MS_CLIENT_ENV_MUNGE "METASCHED_MUNGE_SOCKET"

#define MS_CLIENT_CONNECT_TIMEOUT_S 5L
#define MS_CLIENT_TIMEOUT_S 60L
#define MS_CLIENT_REPLY_MAX (64 * 1024 * 1024) /* bytes */

typedef struct ms_client ms_client_t;

/* A parsed server address. */
typedef struct {
    int is_unix;        /* 1: unix socket, 0: TCP */
    char path[108];     /* unix: the socket path (sun_path's size) */
    char base_url[512]; /* "http://host:port" (unix: "http://localhost") */
} ms_client_addr_t;

/* Parse "unix:/abs/path" or "http://host[:port]" (a trailing "/" is
 * dropped; https, paths and other schemes are refused, naming the text). */
int ms_client_parse_addr (const char *server, ms_client_addr_t *addr,
                          ms_error_t *errp);

/* The server to use: `arg` if not NULL, else $METASCHED_SERVER if set and
 * not empty, else MS_CLIENT_DEFAULT_SERVER. */
const char *ms_client_server (const char *arg);

/* Open a client for server (NULL: ms_client_server (NULL)). The MUNGE
 * socket is $METASCHED_MUNGE_SOCKET or libmunge's default. Nothing is sent
 * yet: an unreachable server shows on the first call. */
int ms_client_open (const char *server, ms_client_t **cp, ms_error_t *errp);

/* Override the MUNGE socket (NULL: libmunge's default). */
int ms_client_set_munge_socket (ms_client_t *c, const char *path,
                                ms_error_t *errp);

/* Override the timeouts in seconds (0 leaves one unchanged). */
void ms_client_set_timeouts (ms_client_t *c, long connect_s, long total_s);

/* One request: method "GET", "POST", "PUT" or "DELETE"; target the path
 * with its query ("/v1/jobs?all=1"); body NULL or a JSON value (not
 * stolen). On a 2xx answer return 0 with *statusp (may be NULL) the status
 * and *replyp (may be NULL) a new reference to the parsed answer (json_null
 * for an empty body). On a non-2xx answer return -1 with errp as above,
 * *statusp the status and *replyp (if not NULL) the answer's JSON (or
 * NULL): a caller can read {"run": false} of a 409. */
int ms_client_call (ms_client_t *c, const char *method, const char *target,
                    json_t *body, long *statusp, json_t **replyp,
                    ms_error_t *errp);

/* The same for a body that is not JSON (GET /metrics): *textp (malloc'd,
 * NUL-terminated) gets the raw answer. */
int ms_client_call_raw (ms_client_t *c, const char *method, const char *target,
                        const char *body, size_t len, long *statusp,
                        char **textp, ms_error_t *errp);

/* How an answer is judged, apart from the transport (ms_client_call and
 * ms_client_call_raw use them; the fuzz target feeds them arbitrary bytes):
 * data, len the body as received (not NUL-terminated), status its HTTP
 * status; server, method and target only name the request in errors.
 * ms_client_answer returns as ms_client_call does (*replyp as there);
 * ms_client_answer_raw only judges the status and fills errp. */
int ms_client_answer (const char *server, const char *method,
                      const char *target, long status, const char *data,
                      size_t len, json_t **replyp, ms_error_t *errp);
int ms_client_answer_raw (const char *server, const char *method,
                          const char *target, long status, const char *data,
                          size_t len, ms_error_t *errp);

/* The last answer's Retry-After in seconds (at most an hour; 0: it had
 * none): metaschedd sends one with a 503 while no read-write database
 * answers, and a client may send the same request again after it. */
long ms_client_retry_after (const ms_client_t *c);

/* The address the client talks to, as given ("unix:/run/..."). */
const char *ms_client_address (const ms_client_t *c);

void ms_client_close (ms_client_t *c);

#endif /* MS_CLIENT_H */
