/* client.c - metaschedd's API over libcurl (client.h, doc/api.md).
 *
 * One curl handle per client, kept between calls so that a program making
 * many calls (the benchmark, msqueue then mscancel) reuses its connection.
 * Every request is signed with a fresh MUNGE credential (auth.h), so even
 * a repeated identical request is not a replay.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "wire/auth.h"
#include "wire/client.h"
#include "metasched/common/util.h"

struct ms_client {
    CURL *curl;
    ms_client_addr_t addr;
    char server[640];
    char *munge_socket; /* NULL: libmunge's default */
    long connect_timeout_s;
    long timeout_s;
    long retry_after_s; /* the last answer's Retry-After; 0: none */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void
curl_init_once (void)
{
    curl_global_init (CURL_GLOBAL_DEFAULT);
}

int
ms_client_parse_addr (const char *server, ms_client_addr_t *addr,
                      ms_error_t *errp)
{
    memset (addr, 0, sizeof (*addr));
    if (!server || !*server)
        return ms_err (errp, MS_ERR_INPUT,
                       "server address is empty (expected unix:/path or "
                       "http://host:port)");
    for (const char *c = server; *c; c++)
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c == 0x7f)
            return ms_err (errp, MS_ERR_INPUT,
                           "server address '%.200s': contains a space or "
                           "control character",
                           server);
    if (!strncmp (server, "unix:", 5)) {
        const char *p = server + 5;
        if (*p != '/')
            return ms_err (errp, MS_ERR_INPUT,
                           "server address '%.200s': the socket path must be "
                           "absolute (unix:/path)",
                           server);
        if (strlen (p) >= sizeof (addr->path))
            return ms_err (errp, MS_ERR_INPUT,
                           "server address '%.200s': socket path longer than "
                           "%zu bytes",
                           server, sizeof (addr->path) - 1);
        addr->is_unix = 1;
        ms_strlcpy (addr->path, p, sizeof (addr->path));
        ms_strlcpy (addr->base_url, "http://localhost",
                    sizeof (addr->base_url));
        return 0;
    }
    if (!strncmp (server, "http://", 7)) {
        const char *host = server + 7, *end = host + strlen (host);
        const char *colon;
        size_t n;

        if (end > host && end[-1] == '/')
            end--;
        n = (size_t)(end - host);
        if (n == 0)
            return ms_err (errp, MS_ERR_INPUT,
                           "server address '%.200s': no host", server);
        if (memchr (host, '/', n) || memchr (host, '?', n)
            || memchr (host, '@', n) || memchr (host, '#', n))
            return ms_err (errp, MS_ERR_INPUT,
                           "server address '%.200s': expected http://host:port "
                           "without a path",
                           server);
        colon = host[0] == '[' ? memchr (host, ']', n) : host;
        if (!colon)
            return ms_err (errp, MS_ERR_INPUT,
                           "server address '%.200s': unclosed '['", server);
        colon = memchr (colon, ':', (size_t)(end - colon));
        if (colon) {
            const char *d = colon + 1;
            long port = 0;
            if (d == end)
                return ms_err (errp, MS_ERR_INPUT,
                               "server address '%.200s': empty port", server);
            for (; d < end; d++) {
                if (!isdigit ((unsigned char)*d) || port > 65535)
                    return ms_err (errp, MS_ERR_INPUT,
                                   "server address '%.200s': port is not a "
                                   "number from 1 to 65535",
                                   server);
                port = port * 10 + (*d - '0');
            }
            if (port < 1 || port > 65535)
                return ms_err (errp, MS_ERR_INPUT,
                               "server address '%.200s': port is not a number "
                               "from 1 to 65535",
                               server);
            if (colon == host)
                return ms_err (errp, MS_ERR_INPUT,
                               "server address '%.200s': no host", server);
        }
        if (n + 7 >= sizeof (addr->base_url))
            return ms_err (errp, MS_ERR_INPUT,
                           "server address '%.200s': too long", server);
        snprintf (addr->base_url, sizeof (addr->base_url), "http://%.*s",
                  (int)n, host);
        return 0;
    }
    return ms_err (errp, MS_ERR_INPUT,
                   "server address '%.200s': expected unix:/path or "
                   "http://host:port",
                   server);
}

const char *
ms_client_server (const char *arg)
{
    const char *env;

    if (arg)
        return arg;
    env = getenv (MS_CLIENT_ENV_SERVER);
    if (env && *env)
        return env;
    return MS_CLIENT_DEFAULT_SERVER;
}

int
ms_client_open (const char *server, ms_client_t **cp, ms_error_t *errp)
{
    ms_client_t *c;
    const char *munge;

    *cp = NULL;
    server = ms_client_server (server);
    c = ms_xcalloc (1, sizeof (*c));
    if (ms_client_parse_addr (server, &c->addr, errp) < 0) {
        free (c);
        return -1;
    }
    ms_strlcpy (c->server, server, sizeof (c->server));
    munge = getenv (MS_CLIENT_ENV_MUNGE);
    if (munge && *munge)
        c->munge_socket = ms_xstrdup (munge);
    c->connect_timeout_s = MS_CLIENT_CONNECT_TIMEOUT_S;
    c->timeout_s = MS_CLIENT_TIMEOUT_S;
    pthread_once (&curl_once, curl_init_once);
    if (!(c->curl = curl_easy_init ())) {
        free (c->munge_socket);
        free (c);
        return ms_err (errp, MS_ERR_SYSTEM, "curl_easy_init failed");
    }
    *cp = c;
    return 0;
}

int
ms_client_set_munge_socket (ms_client_t *c, const char *path, ms_error_t *errp)
{
    free (c->munge_socket);
    c->munge_socket = path && *path ? ms_xstrdup (path) : NULL;
    return 0;
}

void
ms_client_set_timeouts (ms_client_t *c, long connect_s, long total_s)
{
    if (connect_s > 0)
        c->connect_timeout_s = connect_s;
    if (total_s > 0)
        c->timeout_s = total_s;
}

const char *
ms_client_address (const ms_client_t *c)
{
    return c->server;
}

long
ms_client_retry_after (const ms_client_t *c)
{
    return c->retry_after_s;
}

void
ms_client_close (ms_client_t *c)
{
    if (!c)
        return;
    if (c->curl)
        curl_easy_cleanup (c->curl);
    free (c->munge_socket);
    free (c);
}

static int
valid_target (const char *target)
{
    if (!target || target[0] != '/')
        return 0;
    for (const char *c = target; *c; c++)
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
            return 0;
    return 1;
}

/* The reason for a failed connection, from the system's errno where curl
 * kept it: "connection refused", "no such file or directory". */
static void
connect_reason (CURL *curl, CURLcode rc, char *out, size_t outlen)
{
    long oserr = 0;

    curl_easy_getinfo (curl, CURLINFO_OS_ERRNO, &oserr);
    if (oserr > 0)
        ms_strlcpy (out, strerror ((int)oserr), outlen);
    else
        ms_strlcpy (out, curl_easy_strerror (rc), outlen);
    if (out[0] && isupper ((unsigned char)out[0])
        && !(out[1] && isupper ((unsigned char)out[1])))
        out[0] = (char)tolower ((unsigned char)out[0]);
}

/* One exchange: sign, send, collect. Transport failures are errors here;
 * the status is judged by the callers. */
static int
exchange (ms_client_t *c, const char *method, const char *target,
          const char *body, size_t len, int json_body, long *statusp,
          ms_buf_t *ans, ms_error_t *errp)
{
    char url[sizeof (c->addr.base_url) + 2048], *cred = NULL, *hdr_auth;
    struct curl_slist *hdrs = NULL;
    CURLcode rc;
    size_t hlen;

    memset (ans, 0, sizeof (*ans));
    ans->max = MS_CLIENT_REPLY_MAX;
    *statusp = 0;
    if (!method
        || (strcmp (method, "GET") && strcmp (method, "POST")
            && strcmp (method, "PUT") && strcmp (method, "DELETE")))
        return ms_err (errp, MS_ERR_INPUT,
                       "method '%s': expected GET, POST, PUT or DELETE",
                       method ? method : "(null)");
    if (!valid_target (target) || strlen (target) >= 2048)
        return ms_err (errp, MS_ERR_INPUT,
                       "target '%.200s': expected a path starting with '/' "
                       "without spaces",
                       target ? target : "(null)");
    if (ms_auth_encode (c->munge_socket, method, target, body ? body : "",
                        body ? len : 0, &cred, errp)
        < 0)
        return ms_err_prefix (errp, "%s %s", method, target);
    hlen = strlen (cred) + sizeof (MS_AUTH_SCHEME) + 32;
    hdr_auth = ms_xmalloc (hlen);
    snprintf (hdr_auth, hlen, "Authorization: %s %s", MS_AUTH_SCHEME, cred);
    free (cred);
    hdrs = curl_slist_append (hdrs, hdr_auth);
    free (hdr_auth);
    hdrs = curl_slist_append (hdrs, "Accept: application/json");
    if (body)
        hdrs = curl_slist_append (hdrs, json_body
                                            ? "Content-Type: application/json"
                                            : "Content-Type: text/plain");
    hdrs = curl_slist_append (hdrs, "Expect:");
    snprintf (url, sizeof (url), "%s%s", c->addr.base_url, target);

    curl_easy_reset (c->curl);
    curl_easy_setopt (c->curl, CURLOPT_URL, url);
    if (c->addr.is_unix)
        curl_easy_setopt (c->curl, CURLOPT_UNIX_SOCKET_PATH, c->addr.path);
    curl_easy_setopt (c->curl, CURLOPT_HTTPHEADER, hdrs);
    if (!strcmp (method, "GET"))
        curl_easy_setopt (c->curl, CURLOPT_HTTPGET, 1L);
    else
        curl_easy_setopt (c->curl, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt (c->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt (c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
                          (curl_off_t)len);
    }
    curl_easy_setopt (c->curl, CURLOPT_WRITEFUNCTION, ms_buf_write);
    curl_easy_setopt (c->curl, CURLOPT_WRITEDATA, ans);
    curl_easy_setopt (c->curl, CURLOPT_CONNECTTIMEOUT, c->connect_timeout_s);
    curl_easy_setopt (c->curl, CURLOPT_TIMEOUT, c->timeout_s);
    curl_easy_setopt (c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt (c->curl, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt (c->curl, CURLOPT_FOLLOWLOCATION, 0L);
    c->retry_after_s = 0;
    rc = curl_easy_perform (c->curl);
    curl_slist_free_all (hdrs);
    if (rc == CURLE_OK) {
        curl_off_t ra = 0;
        if (curl_easy_getinfo (c->curl, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK
            && ra > 0)
            c->retry_after_s = ra > 3600 ? 3600 : (long)ra;
    }
    if (rc != CURLE_OK) {
        char why[256];
        int overflow = ans->overflow;

        free (ans->data);
        memset (ans, 0, sizeof (*ans));
        if (overflow)
            return ms_err (errp, MS_ERR_PROTOCOL,
                           "%s %s: metaschedd at %s answered more than %d "
                           "bytes",
                           method, target, c->server, MS_CLIENT_REPLY_MAX);
        if (rc == CURLE_OPERATION_TIMEDOUT)
            return ms_err (errp, MS_ERR_TIMEOUT,
                           "metaschedd at %s did not answer %s %s within %ld "
                           "s",
                           c->server, method, target, c->timeout_s);
        connect_reason (c->curl, rc, why, sizeof (why));
        if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
            return ms_err (errp, MS_ERR_CONNECT,
                           "metaschedd not reachable at %s: %s", c->server,
                           why);
        return ms_err (errp, MS_ERR_PROTOCOL, "%s %s at %s: %s", method, target,
                       c->server, curl_easy_strerror (rc));
    }
    curl_easy_getinfo (c->curl, CURLINFO_RESPONSE_CODE, statusp);
    return 0;
}

/* The error of a non-2xx answer: the server's {"error","field"} where it
 * sent one, else the status and the start of the body. */
static int
status_error (const char *server, const char *method, const char *target,
              long status, const json_t *reply, const char *data, size_t len,
              ms_error_t *errp)
{
    const char *msg = NULL, *field = NULL;

    if (json_is_object (reply)) {
        msg = json_string_value (json_object_get (reply, "error"));
        field = json_string_value (json_object_get (reply, "field"));
    }
    if (msg && field && *field && !strstr (msg, field))
        ms_err (errp, MS_ERR_HTTP, "%s (field '%s') [HTTP %ld]", msg, field,
                status);
    else if (msg)
        ms_err (errp, MS_ERR_HTTP, "%s [HTTP %ld]", msg, status);
    else {
        char snippet[121] = "";
        size_t n = 0;
        for (size_t i = 0; data && i < len && n < 120; i++)
            snippet[n++] = isprint ((unsigned char)data[i]) ? data[i] : ' ';
        snippet[n] = '\0';
        ms_err (errp, MS_ERR_HTTP, "%s %s at %s: HTTP %ld%s%s", method, target,
                server, status, n ? ": " : "", ms_strtrim (snippet));
    }
    if (errp)
        errp->http_status = (int)status;
    return -1;
}

int
ms_client_answer (const char *server, const char *method, const char *target,
                  long status, const char *data, size_t len, json_t **replyp,
                  ms_error_t *errp)
{
    json_t *reply = NULL;
    json_error_t jerr;

    if (replyp)
        *replyp = NULL;
    if (len > 0) {
        reply = json_loadb (data, len, JSON_DECODE_ANY, &jerr);
        if (!reply && status >= 200 && status < 300)
            return ms_err (errp, MS_ERR_PROTOCOL,
                           "%s %s: metaschedd at %s answered HTTP %ld with a "
                           "body that is not JSON: %s at byte %d",
                           method, target, server, status, jerr.text,
                           jerr.position);
    } else
        reply = json_null ();
    if (status < 200 || status > 299) {
        status_error (server, method, target, status, reply, data, len, errp);
        if (replyp)
            *replyp = reply;
        else
            json_decref (reply);
        return -1;
    }
    if (replyp)
        *replyp = reply;
    else
        json_decref (reply);
    return 0;
}

int
ms_client_answer_raw (const char *server, const char *method,
                      const char *target, long status, const char *data,
                      size_t len, ms_error_t *errp)
{
    json_t *reply;

    if (status >= 200 && status <= 299)
        return 0;
    reply = len ? json_loadb (data, len, 0, NULL) : NULL;
    status_error (server, method, target, status, reply, data, len, errp);
    json_decref (reply);
    return -1;
}

int
ms_client_call (ms_client_t *c, const char *method, const char *target,
                json_t *body, long *statusp, json_t **replyp, ms_error_t *errp)
{
    char *text = NULL;
    size_t len = 0;
    ms_buf_t ans;
    long status = 0;
    int rc;

    if (statusp)
        *statusp = 0;
    if (replyp)
        *replyp = NULL;
    if (body) {
        text = json_dumps (body, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (!text)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s %s: the request body cannot be written as JSON",
                           method, target);
        len = strlen (text);
    }
    rc = exchange (c, method, target, text, len, 1, &status, &ans, errp);
    free (text);
    if (rc < 0)
        return -1;
    if (statusp)
        *statusp = status;
    rc = ms_client_answer (c->server, method, target, status, ans.data, ans.len,
                           replyp, errp);
    free (ans.data);
    return rc;
}

int
ms_client_call_raw (ms_client_t *c, const char *method, const char *target,
                    const char *body, size_t len, long *statusp, char **textp,
                    ms_error_t *errp)
{
    ms_buf_t ans;
    long status = 0;

    if (statusp)
        *statusp = 0;
    if (textp)
        *textp = NULL;
    if (exchange (c, method, target, body, body ? len : 0, 0, &status, &ans,
                  errp)
        < 0)
        return -1;
    if (statusp)
        *statusp = status;
    if (ms_client_answer_raw (c->server, method, target, status, ans.data,
                              ans.len, errp)
        < 0) {
        free (ans.data);
        return -1;
    }
    if (textp)
        *textp = ans.data ? ans.data : ms_xstrdup ("");
    else
        free (ans.data);
    return 0;
}
