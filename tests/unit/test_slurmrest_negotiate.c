/* test_slurmrest_negotiate.c - how a slurmrestd handle chooses its OpenAPI
 * version, against a small HTTP server on the loopback that serves the
 * versions a case names (404 for the others, as slurmrestd does): the
 * newest in common, the error that names both lists when there is none,
 * an authentication failure that decides nothing, a pinned version used
 * as it is, a server upgraded under a running handle, and connections
 * reset before an answer (a GET is tried once more, a DELETE never; the
 * error names the request once). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "partitions/slurmrest.h"
#include "tests/testutil.h"

static struct {
    int fd;
    int port;
    pthread_mutex_t mu;
    char served[256];  /* "v0.0.40 v0.0.41" */
    char openapi[256]; /* versions the description names (served if "") */
    char nodb[64];     /* a version served that fails without slurmdbd */
    int status_all;    /* answer this to everything (401), 0: no */
    int drop;          /* reset this many next connections unanswered */
    bool accounting;   /* answer /slurmdb/VERSION/... (else 404) */
    char drop_path[64]; /* reset every connection whose path has this */
    char log[8192];    /* request lines, one a line */
} srv = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void
serve_one (int c)
{
    char req[8192], path[1024], ver[32], body[4096];
    ssize_t n, got = 0;
    int status = 404;
    const char *empty = "{\"errors\":[]}";

    while (got < (ssize_t)sizeof (req) - 1
           && (n = read (c, req + got, sizeof (req) - 1 - (size_t)got)) > 0) {
        got += n;
        req[got] = '\0';
        if (strstr (req, "\r\n\r\n"))
            break;
    }
    req[got] = '\0';
    if (sscanf (req, "%*s %1023s", path) != 1)
        path[0] = '\0';
    pthread_mutex_lock (&srv.mu);
    size_t used = strlen (srv.log);
    snprintf (srv.log + used, sizeof (srv.log) - used, "%s\n", path);
    if (srv.drop > 0) {
        /* read, then reset: no answer at all */
        struct linger lg = { .l_onoff = 1, .l_linger = 0 };
        srv.drop--;
        pthread_mutex_unlock (&srv.mu);
        setsockopt (c, SOL_SOCKET, SO_LINGER, &lg, sizeof (lg));
        close (c);
        return;
    }
    if (srv.drop_path[0] && strstr (path, srv.drop_path)) {
        struct linger lg = { .l_onoff = 1, .l_linger = 0 };
        pthread_mutex_unlock (&srv.mu);
        setsockopt (c, SOL_SOCKET, SO_LINGER, &lg, sizeof (lg));
        close (c);
        return;
    }
    snprintf (body, sizeof (body), "%s", empty);
    if (srv.status_all)
        status = srv.status_all;
    else if (!strcmp (path, "/openapi/v3")) {
        const char *list = srv.openapi[0] ? srv.openapi : srv.served;
        size_t b = (size_t)snprintf (body, sizeof (body), "{\"paths\":{");
        const char *p = list;
        int first = 1;
        while (sscanf (p, "%31s", ver) == 1) {
            b += (size_t)snprintf (body + b, sizeof (body) - b,
                                   "%s\"/slurm/%s/ping\":{},\"/slurm/%s/jobs\":{}",
                                   first ? "" : ",", ver, ver);
            first = 0;
            p = strstr (p, ver) + strlen (ver);
        }
        snprintf (body + b, sizeof (body) - b, "}}");
        status = 200;
    } else if (sscanf (path, "/slurm/%31[^/]/", ver) == 1 && srv.nodb[0]
               && !strcmp (ver, srv.nodb)) {
        status = 500;
        snprintf (body, sizeof (body),
                  "{\"errors\":[{\"error\":\"Unable to connect to database\","
                  "\"error_number\":7000,\"source\":\"init_connection\"}]}");
    } else if (sscanf (path, "/slurm/%31[^/]/", ver) == 1
               && strstr (srv.served, ver))
        status = 200;
    else if (srv.accounting && sscanf (path, "/slurmdb/%31[^/]/", ver) == 1
             && strstr (srv.served, ver)) {
        status = 200;
        snprintf (body, sizeof (body), "{\"%s\":[],\"errors\":[]}",
                  strstr (path, "/qos") ? "qos" : "associations");
    }
    pthread_mutex_unlock (&srv.mu);
    if (status == 200 && strstr (path, "/jobs"))
        snprintf (body, sizeof (body), "{\"jobs\":[],\"errors\":[]}");
    char head[256];
    int hl = snprintf (head, sizeof (head),
                       "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                       status, strlen (body));
    if (write (c, head, (size_t)hl) < 0 || write (c, body, strlen (body)) < 0)
        perror ("write");
    close (c);
}

static void *
server_main (void *arg)
{
    (void)arg;
    for (;;) {
        int c = accept (srv.fd, NULL, NULL);
        if (c < 0)
            return NULL;
        serve_one (c);
    }
}

static void
server_start (void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof (sa);
    pthread_t t;

    sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    srv.fd = socket (AF_INET, SOCK_STREAM, 0);
    if (srv.fd < 0 || bind (srv.fd, (struct sockaddr *)&sa, sizeof (sa)) < 0
        || listen (srv.fd, 16) < 0
        || getsockname (srv.fd, (struct sockaddr *)&sa, &sl) < 0) {
        perror ("test server");
        exit (1);
    }
    srv.port = ntohs (sa.sin_port);
    pthread_create (&t, NULL, server_main, NULL);
    pthread_detach (t);
}

static void
serve (const char *served, const char *openapi, int status_all)
{
    pthread_mutex_lock (&srv.mu);
    snprintf (srv.served, sizeof (srv.served), "%s", served);
    snprintf (srv.openapi, sizeof (srv.openapi), "%s", openapi);
    srv.status_all = status_all;
    srv.log[0] = '\0';
    pthread_mutex_unlock (&srv.mu);
}

static bool
logged (const char *path)
{
    char line[1100];
    bool yes;
    snprintf (line, sizeof (line), "%s\n", path);
    pthread_mutex_lock (&srv.mu);
    yes = strstr (srv.log, line) != NULL;
    pthread_mutex_unlock (&srv.mu);
    return yes;
}

/* How many times the server was asked path (with or without a query). */
static int
nlogged (const char *path)
{
    size_t len = strlen (path);
    int n = 0;
    pthread_mutex_lock (&srv.mu);
    for (const char *p = srv.log; (p = strstr (p, path)); p += len)
        if ((p == srv.log || p[-1] == '\n') && (p[len] == '\n' || p[len] == '?'))
            n++;
    pthread_mutex_unlock (&srv.mu);
    return n;
}

static void
drop_next (int n)
{
    pthread_mutex_lock (&srv.mu);
    srv.drop = n;
    srv.log[0] = '\0';
    pthread_mutex_unlock (&srv.mu);
}

/* A handle on the test's server, started in the test's own process
 * (Check forks each test) on first use. */
static ms_backend_t *
handle (const char *pin)
{
    if (!srv.port)
        server_start ();
    char url[64];
    ms_backend_t *b;
    ms_error_t err;
    snprintf (url, sizeof (url), "http://127.0.0.1:%d", srv.port);
    slurmrest_opts_t o = { .cluster = "c", .url = url, .token = "x.y.z",
                           .api_version = pin, .timeout_ms = 5000 };
    ck_assert_msg (slurmrest_create (&o, &b, &err) == 0, "%s", err.text);
    return b;
}

START_TEST (newest_in_common)
{
    ms_error_t err;
    ms_backend_t *b = handle (NULL);

    serve ("v0.0.40 v0.0.41 v0.0.37", "", 0);
    ck_assert_str_eq (slurmrest_version (b), "");
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.41");
    ck_assert_str_eq (slurmrest_version_source (b), "negotiated");
    ck_assert (logged ("/slurm/v0.0.46/ping")); /* asked newest first */
    ck_assert (logged ("/slurm/v0.0.41/ping"));
    ck_assert (!logged ("/slurm/v0.0.40/ping"));
    backend_destroy (b);

    /* a release that serves one version only (22.05: v0.0.38) */
    serve ("v0.0.38 v0.0.37 v0.0.36", "", 0);
    b = handle (NULL);
    ck_assert_msg (slurmrest_negotiate (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.38");
    backend_destroy (b);
}
END_TEST

/* 23.02 without slurmdbd: its v0.0.39 fails every request ("Unable to
 * connect to database", error 7000), its v0.0.38 serves */
START_TEST (version_needing_slurmdbd_is_passed_over)
{
    ms_error_t err;
    ms_backend_t *b = handle (NULL);

    serve ("v0.0.37 v0.0.38", "", 0);
    pthread_mutex_lock (&srv.mu);
    snprintf (srv.nodb, sizeof (srv.nodb), "v0.0.39");
    pthread_mutex_unlock (&srv.mu);
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.38");
    ck_assert (logged ("/slurm/v0.0.39/ping"));
    backend_destroy (b);
    /* and where nothing older serves, the error says why */
    serve ("v0.0.37", "v0.0.37 v0.0.39", 0);
    b = handle (NULL);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_msg (strstr (err.text, "it serves v0.0.37, v0.0.39; v0.0.39 "
                                     "needs slurmdbd there"),
                   "%s", err.text);
    backend_destroy (b);
}
END_TEST

/* 23.02 with slurmdbd serves v0.0.38 and v0.0.39, and its v0.0.39 is a
 * draft (its slurmrestd exits on a job's nice): v0.0.38 is spoken; where
 * v0.0.39 alone is served, v0.0.39. */
START_TEST (draft_version_only_where_alone)
{
    ms_error_t err;
    ms_backend_t *b = handle (NULL);

    serve ("v0.0.37 v0.0.38 v0.0.39", "", 0);
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.38");
    ck_assert_str_eq (slurmrest_version_source (b), "negotiated");
    ck_assert (logged ("/slurm/v0.0.39/ping"));
    backend_destroy (b);
    serve ("v0.0.39", "", 0);
    b = handle (NULL);
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.39");
    backend_destroy (b);
    /* pinned, it is spoken as it is */
    serve ("v0.0.38 v0.0.39", "", 0);
    b = handle ("v0.0.39");
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.39");
    backend_destroy (b);
}
END_TEST

START_TEST (nothing_in_common_names_both_lists)
{
    ms_error_t err;
    ms_backend_t *b = handle (NULL);

    serve ("v0.0.36 v0.0.37", "", 0);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_PROTOCOL);
    ck_assert_msg (strstr (err.text, "serves none of the versions metasched "
                                     "speaks (v0.0.38, v0.0.39, v0.0.40, "
                                     "v0.0.41, v0.0.42, v0.0.43, v0.0.44, "
                                     "v0.0.45, v0.0.46)")
                       && strstr (err.text, "it serves v0.0.36, v0.0.37"),
                   "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "");
    backend_destroy (b);
}
END_TEST

START_TEST (refused_token_decides_nothing)
{
    ms_error_t err;
    ms_backend_t *b = handle (NULL);

    serve ("v0.0.42", "", 401);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_AUTH);
    ck_assert_msg (strstr (err.text, "negotiating the OpenAPI version")
                       && strstr (err.text, "HTTP 401"),
                   "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "");
    /* the token is fixed: the next request negotiates */
    serve ("v0.0.42", "", 0);
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.42");
    backend_destroy (b);
}
END_TEST

START_TEST (pinned_is_used_as_it_is)
{
    ms_error_t err;
    ms_backend_t *b = handle ("v0.0.40");

    serve ("v0.0.40 v0.0.44", "", 0);
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.40");
    ck_assert_str_eq (slurmrest_version_source (b), "pinned");
    ck_assert (!logged ("/slurm/v0.0.44/ping"));
    /* pinned where it is not served: the 404 says so, nothing changes */
    serve ("v0.0.44", "", 0);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_int_eq (err.http_status, 404);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.40");
    backend_destroy (b);
}
END_TEST

START_TEST (upgraded_server_is_negotiated_again)
{
    ms_error_t err;
    ms_job_info_t *jobs;
    size_t n;
    ms_backend_t *b = handle (NULL);

    serve ("v0.0.39 v0.0.40", "", 0);
    ck_assert_msg (backend_jobs (b, &jobs, &n, &err) == 0, "%s", err.text);
    free (jobs);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.40");
    /* the cluster is upgraded: v0.0.40 is gone */
    serve ("v0.0.42 v0.0.43", "", 0);
    ck_assert_int_eq (backend_jobs (b, &jobs, &n, &err), -1);
    ck_assert_int_eq (err.http_status, 404);
    ck_assert_msg (strstr (err.text, "no longer serves v0.0.40"), "%s",
                   err.text);
    ck_assert_msg (backend_jobs (b, &jobs, &n, &err) == 0, "%s", err.text);
    free (jobs);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.43");
    ck_assert (logged ("/slurm/v0.0.43/jobs"));
    backend_destroy (b);
}
END_TEST

/* slurmrestd resets a connection now and then under load: a GET (it
 * changes nothing) is tried once more, during the negotiation too; a
 * second reset in a row is the error; a DELETE is never repeated. */
START_TEST (reset_get_is_tried_again)
{
    ms_error_t err;
    ms_job_info_t *jobs;
    size_t n;
    ms_backend_t *b = handle (NULL);

    serve ("v0.0.42", "", 0);
    drop_next (1);
    ck_assert_msg (backend_ping (b, &err) == 0, "%s", err.text);
    ck_assert_str_eq (slurmrest_version (b), "v0.0.42");
    drop_next (1);
    ck_assert_msg (backend_jobs (b, &jobs, &n, &err) == 0, "%s", err.text);
    free (jobs);
    ck_assert_int_eq (nlogged ("/slurm/v0.0.42/jobs"), 2);
    drop_next (2);
    ck_assert_int_eq (backend_jobs (b, &jobs, &n, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_CONNECT);
    ck_assert_msg (strstr (err.text, "GET ") && strstr (err.text, "/jobs"),
                   "%s", err.text);
    ck_assert_int_eq (nlogged ("/slurm/v0.0.42/jobs"), 2);
    drop_next (1);
    ck_assert_int_eq (backend_cancel (b, 5, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_CONNECT);
    ck_assert_int_eq (nlogged ("/slurm/v0.0.42/job/5"), 1);
    backend_destroy (b);
}
END_TEST

/* The associations answered, the QOS request reset twice: the error is
 * the transport's, naming the QOS request once. */
START_TEST (accounting_reset_names_request_once)
{
    ms_error_t err;
    ms_accounting_t a;
    ms_backend_t *b = handle (NULL);
    const char *q;

    serve ("v0.0.42", "", 0);
    pthread_mutex_lock (&srv.mu);
    srv.accounting = true;
    snprintf (srv.drop_path, sizeof (srv.drop_path), "/qos");
    pthread_mutex_unlock (&srv.mu);
    ck_assert_int_eq (backend_accounting (b, &a, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_CONNECT);
    q = strstr (err.text, "/slurmdb/v0.0.42/qos");
    ck_assert_msg (q && !strstr (q + strlen ("/slurmdb/v0.0.42/qos"), "qos")
                       && !strstr (err.text, "GET /"),
                   "%s", err.text);
    ck_assert_int_eq (nlogged ("/slurmdb/v0.0.42/associations"), 1);
    ck_assert_int_eq (nlogged ("/slurmdb/v0.0.42/qos"), 2);
    /* answered, the same call reads both lists */
    pthread_mutex_lock (&srv.mu);
    srv.drop_path[0] = '\0';
    pthread_mutex_unlock (&srv.mu);
    ck_assert_msg (backend_accounting (b, &a, &err) == 0, "%s", err.text);
    ck_assert (a.enabled);
    ms_accounting_free (&a);
    backend_destroy (b);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("slurmrest_negotiate");
    TCase *tc = tcase_create ("negotiate");

    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, newest_in_common);
    tcase_add_test (tc, draft_version_only_where_alone);
    tcase_add_test (tc, nothing_in_common_names_both_lists);
    tcase_add_test (tc, version_needing_slurmdbd_is_passed_over);
    tcase_add_test (tc, refused_token_decides_nothing);
    tcase_add_test (tc, pinned_is_used_as_it_is);
    tcase_add_test (tc, upgraded_server_is_negotiated_again);
    tcase_add_test (tc, reset_get_is_tried_again);
    tcase_add_test (tc, accounting_reset_names_request_once);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
