/* test_client.c - the API client's own handling: server addresses, the
 * errors of an unreachable server, and answers the real metaschedd should
 * never give (not JSON, an HTML error page, a closed connection, no answer
 * at all). Those answers come from fake_server below, a throwaway HTTP
 * server on a unix socket that stands in for nothing else: the client
 * against the real daemon is tests/integration/test_cli.sh.
 *
 * The cases that send a request need munged (the client signs every
 * request); they use the test bed's and are left out, saying so, without
 * it. */
#define _GNU_SOURCE /* strcasestr */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "wire/auth.h"
#include "wire/client.h"
#include "metasched/common/util.h"
#include "tests/testbed_env.h"
#include "tests/testutil.h"

/* ---- addresses ---------------------------------------------------------- */

START_TEST (addr_good)
{
    ms_client_addr_t a;
    ms_error_t err;

    ck_assert_int_eq (
        ms_client_parse_addr ("unix:/run/metasched/x.sock", &a, &err), 0);
    ck_assert (a.is_unix);
    ck_assert_str_eq (a.path, "/run/metasched/x.sock");
    ck_assert_str_eq (a.base_url, "http://localhost");

    ck_assert_int_eq (ms_client_parse_addr ("http://127.0.0.1:6830", &a, &err),
                      0);
    ck_assert (!a.is_unix);
    ck_assert_str_eq (a.base_url, "http://127.0.0.1:6830");

    ck_assert_int_eq (ms_client_parse_addr ("http://login1:6830/", &a, &err),
                      0);
    ck_assert_str_eq (a.base_url, "http://login1:6830");
    ck_assert_int_eq (ms_client_parse_addr ("http://[::1]:6830", &a, &err), 0);
    ck_assert_str_eq (a.base_url, "http://[::1]:6830");
    ck_assert_int_eq (ms_client_parse_addr ("http://login1", &a, &err), 0);
    ck_assert_str_eq (a.base_url, "http://login1");
}
END_TEST

START_TEST (addr_bad)
{
    static const struct {
        const char *addr, *says;
    } bad[] = {
        { "", "empty" },
        { "unix:run/x.sock", "must be absolute" },
        { "https://h:443", "expected unix:/path or http://host:port" },
        { "h:6830", "expected unix:/path or http://host:port" },
        { "http://", "no host" },
        { "http://h:", "empty port" },
        { "http://h:0", "port is not a number from 1 to 65535" },
        { "http://h:65536", "port is not a number from 1 to 65535" },
        { "http://h:68a0", "port is not a number from 1 to 65535" },
        { "http://h:6830/v1", "without a path" },
        { "http://user@h:6830", "without a path" },
        { "http://:6830", "no host" },
        { "http://[::1:6830", "unclosed '['" },
        { "unix:/tmp/a b", "space or control character" },
    };
    ms_client_addr_t a;
    ms_error_t err;
    char longpath[300];

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        ms_err_clear (&err);
        ck_assert_msg (ms_client_parse_addr (bad[i].addr, &a, &err) == -1,
                       "'%s' accepted", bad[i].addr);
        ck_assert_int_eq (err.kind, MS_ERR_INPUT);
        ck_assert_msg (strstr (err.text, bad[i].says), "'%s': %s", bad[i].addr,
                       err.text);
        if (bad[i].addr[0])
            ck_assert_msg (strstr (err.text, bad[i].addr),
                           "the message names '%s': %s", bad[i].addr, err.text);
    }
    memset (longpath, 'x', sizeof (longpath));
    memcpy (longpath, "unix:/", 6);
    longpath[sizeof (longpath) - 1] = '\0';
    ck_assert_int_eq (ms_client_parse_addr (longpath, &a, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "socket path longer than"));
}
END_TEST

START_TEST (server_precedence)
{
    ms_client_t *c;
    ms_error_t err;

    unsetenv (MS_CLIENT_ENV_SERVER);
    ck_assert_str_eq (ms_client_server (NULL), MS_CLIENT_DEFAULT_SERVER);
    setenv (MS_CLIENT_ENV_SERVER, "", 1);
    ck_assert_str_eq (ms_client_server (NULL), MS_CLIENT_DEFAULT_SERVER);
    setenv (MS_CLIENT_ENV_SERVER, "http://h:1", 1);
    ck_assert_str_eq (ms_client_server (NULL), "http://h:1");
    ck_assert_str_eq (ms_client_server ("unix:/x"), "unix:/x");
    /* a bad address from the environment is refused at open, named */
    setenv (MS_CLIENT_ENV_SERVER, "tcp:h", 1);
    ck_assert_int_eq (ms_client_open (NULL, &c, &err), -1);
    ck_assert_ptr_null (c);
    ck_assert_ptr_nonnull (strstr (err.text, "'tcp:h'"));
    unsetenv (MS_CLIENT_ENV_SERVER);
    ck_assert_int_eq (ms_client_open ("unix:/x.sock", &c, &err), 0);
    ck_assert_str_eq (ms_client_address (c), "unix:/x.sock");
    ms_client_close (c);
}
END_TEST

/* ---- fake_server: a throwaway HTTP server with scripted answers -------- */

typedef struct {
    int lfd;
    char path[108];
    const char *answer; /* raw bytes to send; NULL: close without answer */
    int delay_s;        /* sleep before answering */
    char request[65536];
    size_t request_len;
    pthread_t thread;
} fake_server_t;

static void *
fake_server_run (void *arg)
{
    fake_server_t *f = arg;
    int fd = accept (f->lfd, NULL, NULL);
    size_t want = 0;

    if (fd < 0)
        return NULL;
    /* read the head, then Content-Length bytes of body */
    while (f->request_len < sizeof (f->request) - 1) {
        ssize_t n = read (fd, f->request + f->request_len,
                          sizeof (f->request) - 1 - f->request_len);
        char *end;
        if (n <= 0)
            break;
        f->request_len += (size_t)n;
        f->request[f->request_len] = '\0';
        if ((end = strstr (f->request, "\r\n\r\n"))) {
            const char *cl = strcasestr (f->request, "Content-Length:");
            if (!want)
                want = (size_t)(end + 4 - f->request)
                       + (cl && cl < end ? strtoul (cl + 15, NULL, 10) : 0);
            if (f->request_len >= want)
                break;
        }
    }
    if (f->delay_s)
        sleep ((unsigned)f->delay_s);
    if (f->answer) {
        size_t len = strlen (f->answer), off = 0;
        while (off < len) {
            ssize_t n = send (fd, f->answer + off, len - off, MSG_NOSIGNAL);
            if (n <= 0)
                break;
            off += (size_t)n;
        }
    }
    close (fd);
    return NULL;
}

static void
fake_server_start (fake_server_t *f, const char *answer, int delay_s)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    memset (f, 0, sizeof (*f));
    snprintf (f->path, sizeof (f->path), "/tmp/ms-test-client-%d.sock",
              (int)getpid ());
    unlink (f->path);
    ms_strlcpy (sa.sun_path, f->path, sizeof (sa.sun_path));
    f->lfd = socket (AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge (f->lfd, 0);
    ck_assert_int_eq (bind (f->lfd, (struct sockaddr *)&sa, sizeof (sa)), 0);
    ck_assert_int_eq (listen (f->lfd, 4), 0);
    f->answer = answer;
    f->delay_s = delay_s;
    ck_assert_int_eq (pthread_create (&f->thread, NULL, fake_server_run, f), 0);
}

static void
fake_server_stop (fake_server_t *f)
{
    shutdown (f->lfd, SHUT_RDWR);
    pthread_join (f->thread, NULL);
    close (f->lfd);
    unlink (f->path);
}

/* One call to the fake server with the scripted answer. */
static int
call_fake (fake_server_t *f, const char *answer, int delay_s,
           const char *method, const char *target, json_t *body, long *statusp,
           json_t **replyp, ms_error_t *errp)
{
    ms_client_t *c;
    char addr[128];
    int rc;

    fake_server_start (f, answer, delay_s);
    snprintf (addr, sizeof (addr), "unix:%s", f->path);
    ck_assert_int_eq (ms_client_open (addr, &c, errp), 0);
    ms_client_set_timeouts (c, 2, 2);
    rc = ms_client_call (c, method, target, body, statusp, replyp, errp);
    ms_client_close (c);
    fake_server_stop (f);
    return rc;
}

static char answer_buf[4096];

static const char *
answer (const char *status, const char *type, const char *body)
{
    snprintf (answer_buf, sizeof (answer_buf),
              "HTTP/1.1 %s\r\nContent-Type: %s\r\nConnection: close\r\n"
              "Content-Length: %zu\r\n\r\n%s",
              status, type, strlen (body), body);
    return answer_buf;
}

static fake_server_t fs;

/* The request on the wire: method, target, JSON body, and a MUNGE
 * credential that munged decodes to this process's uid for exactly this
 * request. */
START_TEST (fake_server_request_signed)
{
    json_t *body
        = json_pack ("{s:s, s:i}", "script", "#!/bin/sh\n", "nodes", 2),
        *reply = NULL;
    ms_error_t err;
    long status = 0;
    char *cred, *end, *sent_body;
    uid_t uid;
    gid_t gid;

    ck_assert_msg (
        call_fake (&fs,
                   answer ("201 Created", "application/json", "{\"id\": 7}"), 0,
                   "POST", "/v1/jobs", body, &status, &reply, &err)
            == 0,
        "%s", err.text);
    ck_assert_int_eq (status, 201);
    ck_assert_int_eq (json_integer_value (json_object_get (reply, "id")), 7);
    ck_assert_msg (!strncmp (fs.request, "POST /v1/jobs HTTP/1.1\r\n", 24),
                   "%.80s", fs.request);
    ck_assert_ptr_nonnull (
        strcasestr (fs.request, "\r\nContent-Type: application/json\r\n"));
    cred = strstr (fs.request, "\r\nAuthorization: MUNGE ");
    ck_assert_ptr_nonnull (cred);
    cred += strlen ("\r\nAuthorization: MUNGE ");
    end = strstr (cred, "\r\n");
    ck_assert_ptr_nonnull (end);
    *end = '\0';
    sent_body = strstr (end + 1, "\r\n\r\n") + 4;
    ck_assert_str_eq (sent_body, "{\"script\":\"#!/bin/sh\\n\",\"nodes\":2}");
    ck_assert_msg (ms_auth_verify (getenv (MS_CLIENT_ENV_MUNGE), cred, "POST",
                                   "/v1/jobs", sent_body, strlen (sent_body),
                                   &uid, &gid, &err)
                       == 0,
                   "%s", err.text);
    ck_assert_uint_eq (uid, getuid ());
    ck_assert_uint_eq (gid, getgid ());
    json_decref (body);
    json_decref (reply);
}
END_TEST

/* The API's {"error","field"} of a 4xx becomes the message, with the status;
 * the caller still gets the answer's JSON. */
START_TEST (fake_server_api_error)
{
    json_t *reply = NULL;
    ms_error_t err;
    long status = 0;

    ck_assert_int_eq (
        call_fake (&fs,
                   answer ("400 Bad Request", "application/json",
                           "{\"error\": \"field 'partition': pinning a "
                           "partition is not allowed here\", \"field\": "
                           "\"partition\"}"),
                   0, "POST", "/v1/jobs", NULL, &status, &reply, &err),
        -1);
    ck_assert_int_eq (status, 400);
    ck_assert_int_eq (err.kind, MS_ERR_HTTP);
    ck_assert_int_eq (err.http_status, 400);
    ck_assert_str_eq (err.text, "field 'partition': pinning a partition is "
                                "not allowed here [HTTP 400]");
    ck_assert (json_is_object (reply));
    json_decref (reply);

    /* a field the message does not name is added */
    ck_assert_int_eq (
        call_fake (&fs,
                   answer ("413 Content Too Large", "application/json",
                           "{\"error\": \"too large\", \"field\": "
                           "\"script\"}"),
                   0, "POST", "/v1/jobs", NULL, &status, NULL, &err),
        -1);
    ck_assert_str_eq (err.text, "too large (field 'script') [HTTP 413]");

    /* 409 with {"run": false}: the caller reads the body */
    ck_assert_int_eq (call_fake (&fs,
                                 answer ("409 Conflict", "application/json",
                                         "{\"run\": false}"),
                                 0, "POST", "/v1/jobs/3/claim", NULL, &status,
                                 &reply, &err),
                      -1);
    ck_assert_int_eq (err.http_status, 409);
    ck_assert (json_is_false (json_object_get (reply, "run")));
    ck_assert_ptr_nonnull (strstr (err.text, "HTTP 409"));
    json_decref (reply);
}
END_TEST

/* Answers the real daemon never gives: each is a clear error, no crash. */
START_TEST (fake_server_malformed)
{
    json_t *reply = NULL;
    ms_error_t err;
    long status = 0;

    /* 200 with a body that is not JSON */
    ck_assert_int_eq (
        call_fake (&fs, answer ("200 OK", "text/html", "<html>hello</html>"), 0,
                   "GET", "/v1/jobs", NULL, &status, &reply, &err),
        -1);
    ck_assert_int_eq (err.kind, MS_ERR_PROTOCOL);
    ck_assert_ptr_nonnull (strstr (err.text, "not JSON"));
    ck_assert_ptr_null (reply);

    /* an HTML error page: the status and the start of the body */
    ck_assert_int_eq (call_fake (&fs,
                                 answer ("502 Bad Gateway", "text/html",
                                         "<h1>Bad Gateway</h1>"),
                                 0, "GET", "/v1/jobs", NULL, &status, &reply,
                                 &err),
                      -1);
    ck_assert_int_eq (err.kind, MS_ERR_HTTP);
    ck_assert_int_eq (err.http_status, 502);
    ck_assert_ptr_nonnull (strstr (err.text, "HTTP 502: <h1>Bad Gateway"));
    ck_assert_ptr_null (reply);

    /* JSON, but not the API's error object */
    ck_assert_int_eq (call_fake (&fs,
                                 answer ("500 Internal Server Error",
                                         "application/json", "[1,2]"),
                                 0, "GET", "/v1/jobs", NULL, &status, &reply,
                                 &err),
                      -1);
    ck_assert_int_eq (err.http_status, 500);
    ck_assert_ptr_nonnull (strstr (err.text, "HTTP 500"));
    json_decref (reply);

    /* an empty 2xx body is JSON null */
    ck_assert_int_eq (call_fake (&fs,
                                 "HTTP/1.1 204 No Content\r\nConnection: "
                                 "close\r\n\r\n",
                                 0, "DELETE", "/v1/jobs/4", NULL, &status,
                                 &reply, &err),
                      0);
    ck_assert_int_eq (status, 204);
    ck_assert (json_is_null (reply));
    json_decref (reply);

    /* the connection closed without an answer */
    ck_assert_int_eq (call_fake (&fs, NULL, 0, "GET", "/v1/jobs", NULL, &status,
                                 &reply, &err),
                      -1);
    ck_assert_int_eq (err.kind, MS_ERR_PROTOCOL);
    ck_assert_ptr_nonnull (strstr (err.text, "GET /v1/jobs at unix:"));

    /* no answer in time */
    ck_assert_int_eq (
        call_fake (&fs, answer ("200 OK", "application/json", "{}"), 3, "GET",
                   "/v1/jobs", NULL, &status, &reply, &err),
        -1);
    ck_assert_int_eq (err.kind, MS_ERR_TIMEOUT);
    ck_assert_ptr_nonnull (strstr (err.text, "did not answer GET /v1/jobs"));
}
END_TEST

/* ---- unreachable servers ------------------------------------------------ */

START_TEST (unreachable)
{
    ms_client_t *c;
    ms_error_t err;
    char addr[160], path[108];
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    snprintf (path, sizeof (path), "/tmp/ms-test-client-none-%d.sock",
              (int)getpid ());
    unlink (path);
    snprintf (addr, sizeof (addr), "unix:%s", path);
    ck_assert_int_eq (ms_client_open (addr, &c, &err), 0);
    ck_assert_int_eq (
        ms_client_call (c, "GET", "/v1/jobs", NULL, NULL, NULL, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_CONNECT);
    ck_assert_msg (strstr (err.text, "metaschedd not reachable at unix:/tmp/")
                       && strstr (err.text, ": no such file or directory"),
                   "%s", err.text);
    ms_client_close (c);

    /* a socket file nobody listens on */
    ms_strlcpy (sa.sun_path, path, sizeof (sa.sun_path));
    fd = socket (AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_eq (bind (fd, (struct sockaddr *)&sa, sizeof (sa)), 0);
    close (fd);
    ck_assert_int_eq (ms_client_open (addr, &c, &err), 0);
    ck_assert_int_eq (
        ms_client_call (c, "DELETE", "/v1/jobs/1", NULL, NULL, NULL, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_CONNECT);
    ck_assert_msg (strstr (err.text, ": connection refused"), "%s", err.text);
    ms_client_close (c);
    unlink (path);

    /* a bad method or target is refused before anything is sent */
    ck_assert_int_eq (ms_client_open (addr, &c, &err), 0);
    ck_assert_int_eq (
        ms_client_call (c, "PATCH", "/v1/jobs", NULL, NULL, NULL, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_INPUT);
    ck_assert_int_eq (
        ms_client_call (c, "GET", "v1/jobs x", NULL, NULL, NULL, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_INPUT);
    ms_client_close (c);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("client");
    TCase *tc = tcase_create ("addresses");
    char why[512];

    tcase_add_test (tc, addr_good);
    tcase_add_test (tc, addr_bad);
    tcase_add_test (tc, server_precedence);
    suite_add_tcase (s, tc);
    /* Sending needs munged: the test bed's, through the environment the
     * client reads. */
    if (testbed_env_load (why, sizeof (why)) == 0
        && getenv ("MS_MUNGE_SOCKET")) {
        setenv (MS_CLIENT_ENV_MUNGE, getenv ("MS_MUNGE_SOCKET"), 1);
        tc = tcase_create ("requests");
        tcase_set_timeout (tc, 60);
        tcase_add_test (tc, unreachable);
        tcase_add_test (tc, fake_server_request_signed);
        tcase_add_test (tc, fake_server_api_error);
        tcase_add_test (tc, fake_server_malformed);
        suite_add_tcase (s, tc);
    } else
        printf ("# the request cases are left out: they need munged (%s)\n",
                testbed_env_load (why, sizeof (why)) == 0
                    ? "the test bed's env has no MS_MUNGE_SOCKET"
                    : why);
    return test_run_suite (s);
}
