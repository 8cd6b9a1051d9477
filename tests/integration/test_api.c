/* test_api.c - metaschedd's API on the test bed: the server in-process on a
 * temporary unix socket and a TCP port, a freshly migrated scratch
 * database, real munged credentials (root's from libmunge, the test users'
 * from the munge command run as them), libcurl as the client. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "db/db.h"
#include "metasched/api/api.h"
#include "wire/auth.h"
#include "tests/testbed_env.h"
#include "tests/superdb.h"
#include "tests/testutil.h"

static char scratch[64], sockdir[128], sockpath[300];
static const char *munge_sock, *user1, *user2;
static ms_api_t *api;
static int tcp_port;
static atomic_int kicks;

/* ---- database ---- */

static db_t *
open_scratch (ms_error_t *e)
{
    db_opts_t o = { 0 };
    db_t *db;

    o.conninfo = getenv ("MS_PG_CONNINFO");
    o.dbname = scratch;
    o.retry_max_ms = 2000;
    return db_open (&o, &db, e) == 0 ? db : NULL;
}

/* ---- the hooks ---- */

static int
hook_whatif (void *ctx, const ms_apireq_t *req, uid_t uid, json_t **out,
             ms_error_t *errp)
{
    (void)ctx;
    (void)errp;
    *out = json_pack ("{s:s,s:i,s:i,s:[]}", "policy", "test-hook", "uid",
                      (int)uid, "nodes", req->nodes, "candidates");
    return 0;
}

static int
hook_metrics (void *ctx, char **textp, ms_error_t *errp)
{
    (void)ctx;
    (void)errp;
    *textp = strdup ("# TYPE metasched_cycle_seconds gauge\n"
                     "metasched_cycle_seconds 0.25\n");
    return 0;
}

static void
hook_kick (void *ctx)
{
    (void)ctx;
    atomic_fetch_add (&kicks, 1);
}

/* ---- credentials ---- */

/* A credential for the request, encoded as user (NULL: this process,
 * root) with the munge command run as that user (no shell). */
static char *
cred_for (const char *user, const char *method, const char *target,
          const char *body, size_t len)
{
    char payload[MS_AUTH_PAYLOAD_MAX], sockopt[600], buf[4096];
    ms_error_t e;
    char *cred = NULL;
    int fd[2], st;
    ssize_t n, got = 0;
    pid_t pid;

    if (!user) {
        ck_assert_msg (
            ms_auth_encode (munge_sock, method, target, body, len, &cred, &e)
                == 0,
            "%s", e.text);
        return cred;
    }
    ck_assert (ms_auth_payload (method, target, body, len, payload,
                                sizeof (payload), &e)
               == 0);
    snprintf (sockopt, sizeof (sockopt), "--socket=%s", munge_sock);
    ck_assert (pipe (fd) == 0);
    pid = fork ();
    ck_assert (pid >= 0);
    if (pid == 0) {
        dup2 (fd[1], 1);
        close (fd[0]);
        close (fd[1]);
        execlp ("runuser", "runuser", "-u", user, "--", "munge", sockopt,
                "--string", payload, (char *)NULL);
        _exit (127);
    }
    close (fd[1]);
    while ((n = read (fd[0], buf + got, sizeof (buf) - 1 - (size_t)got)) > 0)
        got += n;
    close (fd[0]);
    ck_assert (waitpid (pid, &st, 0) == pid);
    ck_assert_msg (WIFEXITED (st) && WEXITSTATUS (st) == 0,
                   "munge as %s failed", user);
    buf[got] = '\0';
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
        buf[--got] = '\0';
    return strdup (buf);
}

/* ---- the client ---- */

typedef struct {
    char *data;
    size_t len;
} sink_t;

static size_t
sink_write (char *p, size_t size, size_t n, void *arg)
{
    sink_t *s = arg;
    size_t k = size * n;

    s->data = realloc (s->data, s->len + k + 1);
    memcpy (s->data + s->len, p, k);
    s->len += k;
    s->data[s->len] = '\0';
    return k;
}

typedef struct {
    long status;
    char *text;   /* body text */
    json_t *json; /* parsed, or NULL */
} resp_t;

static void
resp_free (resp_t *r)
{
    free (r->text);
    json_decref (r->json);
    memset (r, 0, sizeof (*r));
}

/* Send a request with the credential cred ("" none) over the unix socket
 * (tcp: over TCP); ctype NULL: application/json when there is a body. */
static resp_t
send_raw (bool tcp, const char *method, const char *target, const char *body,
          size_t len, const char *cred, const char *ctype)
{
    CURL *c = curl_easy_init ();
    struct curl_slist *h = NULL;
    char url[512], hdr[2048];
    sink_t s = { 0 };
    resp_t r = { 0 };
    CURLcode rc;

    if (tcp)
        snprintf (url, sizeof (url), "http://127.0.0.1:%d%s", tcp_port, target);
    else {
        snprintf (url, sizeof (url), "http://localhost%s", target);
        curl_easy_setopt (c, CURLOPT_UNIX_SOCKET_PATH, sockpath);
    }
    curl_easy_setopt (c, CURLOPT_URL, url);
    curl_easy_setopt (c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt (c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt (c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        snprintf (hdr, sizeof (hdr), "Content-Type: %s",
                  ctype ? ctype : "application/json");
        h = curl_slist_append (h, hdr);
    }
    if (cred && *cred) {
        snprintf (hdr, sizeof (hdr), "Authorization: MUNGE %s", cred);
        h = curl_slist_append (h, hdr);
    }
    curl_easy_setopt (c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt (c, CURLOPT_WRITEFUNCTION, sink_write);
    curl_easy_setopt (c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt (c, CURLOPT_TIMEOUT, 30L);
    rc = curl_easy_perform (c);
    ck_assert_msg (rc == CURLE_OK || rc == CURLE_SEND_ERROR, "%s %s: %s",
                   method, target, curl_easy_strerror (rc));
    curl_easy_getinfo (c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all (h);
    curl_easy_cleanup (c);
    r.text = s.data ? s.data : strdup ("");
    r.json = json_loads (r.text, 0, NULL);
    return r;
}

/* A request as user (NULL root) with a fresh credential for it. */
static resp_t
req_as (const char *user, const char *method, const char *target,
        const char *body)
{
    size_t len = body ? strlen (body) : 0;
    char *cred = cred_for (user, method, target, body, len);
    resp_t r = send_raw (false, method, target, body, len, cred, NULL);

    free (cred);
    return r;
}

static const char *
jstr (const resp_t *r, const char *key)
{
    return json_string_value (json_object_get (r->json, key));
}

static json_int_t
jint (const resp_t *r, const char *key)
{
    return json_integer_value (json_object_get (r->json, key));
}

#define JOB_BODY                                                               \
    "{\"script\": \"#!/bin/sh\\nhostname\\n\", \"name\": \"api-test\","        \
    " \"app\": \"lammps\", \"nodes\": 2, \"time_limit_min\": 10,"              \
    " \"cwd\": \"/tmp\", \"environment\": [\"OMP_NUM_THREADS=2\"]}"

static json_int_t
submit_as (const char *user)
{
    resp_t r = req_as (user, "POST", "/v1/jobs", JOB_BODY);
    json_int_t id;

    ck_assert_msg (r.status == 201, "%ld %s", r.status, r.text);
    id = jint (&r, "id");
    ck_assert_int_gt (id, 0);
    resp_free (&r);
    return id;
}

/* ---- tests ---- */

START_TEST (test_submit_list_show_cancel)
{
    int k0 = atomic_load (&kicks);
    json_int_t id = submit_as (user1);
    char target[64];
    resp_t r;
    json_t *jobs, *j;
    struct passwd *pw = getpwnam (user1);

    ck_assert_int_gt (atomic_load (&kicks), k0);
    snprintf (target, sizeof (target), "/v1/jobs/%lld", (long long)id);
    r = req_as (user1, "GET", target, NULL);
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_str_eq (jstr (&r, "owner"), user1);
    ck_assert_int_eq (jint (&r, "uid"), (json_int_t)pw->pw_uid);
    ck_assert_str_eq (jstr (&r, "state"), "queued");
    ck_assert_str_eq (jstr (&r, "name"), "api-test");
    ck_assert_int_eq (jint (&r, "nodes"), 2);
    ck_assert_int_eq (jint (&r, "time_limit_min"), 10);
    ck_assert (json_is_null (json_object_get (r.json, "cluster")));
    resp_free (&r);

    r = req_as (user1, "GET", "/v1/jobs", NULL);
    ck_assert_int_eq (r.status, 200);
    jobs = json_object_get (r.json, "jobs");
    ck_assert_int_ge (json_array_size (jobs), 1);
    ck_assert_int_eq (
        json_integer_value (json_object_get (json_array_get (jobs, 0), "id")),
        id);
    resp_free (&r);

    r = req_as (user1, "GET", "/v1/jobs?state=running,completed", NULL);
    ck_assert_int_eq (r.status, 200);
    ck_assert_int_eq (json_array_size (json_object_get (r.json, "jobs")), 0);
    resp_free (&r);
    r = req_as (user1, "GET", "/v1/jobs?state=bogus", NULL);
    ck_assert_int_eq (r.status, 400);
    ck_assert_str_eq (jstr (&r, "field"), "state");
    resp_free (&r);

    k0 = atomic_load (&kicks);
    r = req_as (user1, "DELETE", target, NULL);
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_str_eq (jstr (&r, "state"), "cancelled");
    ck_assert_int_gt (atomic_load (&kicks), k0);
    resp_free (&r);
    r = req_as (user1, "GET", target, NULL);
    ck_assert_str_eq (jstr (&r, "state"), "cancelled");
    ck_assert (json_is_string (json_object_get (r.json, "finished_at")));
    resp_free (&r);
    /* cancelling again: it already ended */
    r = req_as (user1, "DELETE", target, NULL);
    ck_assert_msg (r.status == 409, "%ld %s", r.status, r.text);
    resp_free (&r);
    j = NULL;
    (void)j;
}
END_TEST

START_TEST (test_isolation)
{
    json_int_t id = submit_as (user1);
    char target[64];
    resp_t r;
    json_t *jobs, *j;
    size_t i;

    snprintf (target, sizeof (target), "/v1/jobs/%lld", (long long)id);
    r = req_as (user2, "GET", target, NULL);
    ck_assert_msg (r.status == 404, "%ld %s", r.status, r.text);
    resp_free (&r);
    r = req_as (user2, "DELETE", target, NULL);
    ck_assert_msg (r.status == 404, "%ld %s", r.status, r.text);
    resp_free (&r);
    r = req_as (user2, "GET", "/v1/jobs", NULL);
    ck_assert_int_eq (r.status, 200);
    jobs = json_object_get (r.json, "jobs");
    json_array_foreach (jobs, i, j)
    {
        ck_assert_int_ne (json_integer_value (json_object_get (j, "id")), id);
        ck_assert_str_eq (json_string_value (json_object_get (j, "owner")),
                          user2);
    }
    resp_free (&r);
    /* all=1 is for admins */
    r = req_as (user2, "GET", "/v1/jobs?all=1", NULL);
    ck_assert_int_eq (r.status, 403);
    resp_free (&r);
    /* the admin sees it, and the job is still queued */
    r = req_as (NULL, "GET", target, NULL);
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_str_eq (jstr (&r, "state"), "queued");
    resp_free (&r);
    r = req_as (NULL, "GET", "/v1/jobs?all=1", NULL);
    ck_assert_int_eq (r.status, 200);
    ck_assert_int_ge (json_array_size (json_object_get (r.json, "jobs")), 1);
    resp_free (&r);
    /* the owner in the body is ignored: the credential says who */
    r = req_as (user2, "POST", "/v1/jobs",
                "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
                "\"owner\":\"root\"}");
    ck_assert_int_eq (r.status, 400);
    ck_assert_str_eq (jstr (&r, "field"), "owner");
    resp_free (&r);
}
END_TEST

START_TEST (test_credentials)
{
    const char *t = "/v1/jobs";
    char *cred;
    resp_t r;

    r = send_raw (false, "GET", t, NULL, 0, "", NULL);
    ck_assert_int_eq (r.status, 401);
    resp_free (&r);
    r = send_raw (false, "GET", t, NULL, 0, "not-a-credential", NULL);
    ck_assert_int_eq (r.status, 401);
    resp_free (&r);

    /* replayed */
    cred = cred_for (user1, "GET", t, NULL, 0);
    r = send_raw (false, "GET", t, NULL, 0, cred, NULL);
    ck_assert_int_eq (r.status, 200);
    resp_free (&r);
    r = send_raw (false, "GET", t, NULL, 0, cred, NULL);
    ck_assert_int_eq (r.status, 401);
    ck_assert_msg (strstr (jstr (&r, "error"), "replayed"), "%s", r.text);
    resp_free (&r);
    free (cred);

    /* a credential for another target */
    cred = cred_for (user1, "GET", t, NULL, 0);
    r = send_raw (false, "GET", "/v1/jobs?all=1", NULL, 0, cred, NULL);
    ck_assert_int_eq (r.status, 401);
    ck_assert_msg (strstr (jstr (&r, "error"), "does not match"), "%s", r.text);
    resp_free (&r);
    free (cred);

    /* a credential for another method */
    cred = cred_for (user1, "GET", "/v1/jobs/1", NULL, 0);
    r = send_raw (false, "DELETE", "/v1/jobs/1", NULL, 0, cred, NULL);
    ck_assert_int_eq (r.status, 401);
    resp_free (&r);
    free (cred);

    /* a credential for another body */
    cred = cred_for (user1, "POST", t, JOB_BODY, strlen (JOB_BODY));
    r = send_raw (false, "POST", t,
                  "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/\"}", 34, cred,
                  NULL);
    ck_assert_int_eq (r.status, 401);
    resp_free (&r);
    free (cred);
}
END_TEST

START_TEST (test_settings)
{
    resp_t r;

    r = req_as (user1, "GET", "/v1/settings", NULL);
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_str_eq (jstr (&r, "policy"), "metasched");
    resp_free (&r);
    r = req_as (user1, "PUT", "/v1/settings", "{\"w_energy\": 0.7}");
    ck_assert_int_eq (r.status, 403);
    resp_free (&r);
    r = req_as (NULL, "PUT", "/v1/settings",
                "{\"w_energy\": 0.7, \"dispatch_mode\": \"siblings\"}");
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    resp_free (&r);
    r = req_as (user1, "GET", "/v1/settings", NULL);
    ck_assert_double_eq (
        json_number_value (json_object_get (r.json, "w_energy")), 0.7);
    ck_assert_str_eq (jstr (&r, "dispatch_mode"), "siblings");
    resp_free (&r);
    /* a bad key: 400 naming it, and nothing of the request applied */
    r = req_as (NULL, "PUT", "/v1/settings",
                "{\"w_energy\": 0.2, \"siblings\": 40}");
    ck_assert_int_eq (r.status, 400);
    ck_assert_str_eq (jstr (&r, "field"), "siblings");
    ck_assert_msg (strstr (jstr (&r, "error"), "siblings"), "%s", r.text);
    resp_free (&r);
    r = req_as (user1, "GET", "/v1/settings", NULL);
    ck_assert_double_eq (
        json_number_value (json_object_get (r.json, "w_energy")), 0.7);
    ck_assert_int_eq (jint (&r, "siblings"), 2);
    resp_free (&r);
}
END_TEST

START_TEST (test_whatif)
{
    resp_t r = req_as (user1, "POST", "/v1/whatif", JOB_BODY);
    struct passwd *pw = getpwnam (user1);

    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_str_eq (jstr (&r, "policy"), "test-hook");
    ck_assert_int_eq (jint (&r, "uid"), (json_int_t)pw->pw_uid);
    ck_assert_int_eq (jint (&r, "nodes"), 2);
    resp_free (&r);
    r = req_as (user1, "POST", "/v1/whatif", "{\"cwd\":\"/tmp\"}");
    ck_assert_int_eq (r.status, 400);
    ck_assert_str_eq (jstr (&r, "field"), "script");
    resp_free (&r);
}
END_TEST

/* Record (cluster, cluster_job_id) as a submission of job id: only what
 * metaschedd dispatched may claim a job. */
static void
record_submission (json_int_t id, const char *cluster, int cjid)
{
    char sid[24], scj[24];
    const char *p[3] = { sid, cluster, scj };
    ms_error_t e;
    db_t *db = open_scratch (&e);
    PGresult *r;

    ck_assert_msg (db != NULL, "%s", e.text);
    snprintf (sid, sizeof (sid), "%lld", (long long)id);
    snprintf (scj, sizeof (scj), "%d", cjid);
    r = db_exec (db, "t_cluster",
                 "INSERT INTO clusters (name) VALUES ($1)"
                 " ON CONFLICT DO NOTHING",
                 1, p + 1, &e);
    ck_assert_msg (r != NULL, "%s", e.text);
    PQclear (r);
    r = db_exec (db, "t_partition",
                 "INSERT INTO partitions (cluster, name, architecture, nodes,"
                 " cores_per_node, freqs_khz, nominal_khz, idle_power_w)"
                 " VALUES ($1, 'p', 'x', 1, 1, '{1000}', 1000, 0)"
                 " ON CONFLICT DO NOTHING",
                 1, p + 1, &e);
    ck_assert_msg (r != NULL, "%s", e.text);
    PQclear (r);
    r = db_exec (db, "t_submission",
                 "INSERT INTO job_submissions (job_id, cluster, partition,"
                 " cluster_job_id) VALUES ($1::bigint, $2, 'p', $3::bigint)",
                 3, p, &e);
    ck_assert_msg (r != NULL, "%s", e.text);
    PQclear (r);
    db_close (db);
}

START_TEST (test_claim)
{
    json_int_t id = submit_as (user1);
    char target[80];
    const char *a = "{\"cluster\":\"alpha\",\"cluster_job_id\":101}";
    const char *b = "{\"cluster\":\"beta\",\"cluster_job_id\":202}";
    const char *x = "{\"cluster\":\"alpha\",\"cluster_job_id\":303}";
    resp_t r;

    snprintf (target, sizeof (target), "/v1/jobs/%lld/claim", (long long)id);
    record_submission (id, "alpha", 101);
    record_submission (id, "beta", 202);
    /* a job that is no copy of this one cannot win it (not yet recorded,
     * or never: try again later) */
    r = req_as (user1, "POST", target, x);
    ck_assert_msg (r.status == 503, "%ld %s", r.status, r.text);
    ck_assert_str_eq (jstr (&r, "field"), "cluster_job_id");
    resp_free (&r);
    r = req_as (user1, "POST", target, a);
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert (json_is_true (json_object_get (r.json, "run")));
    resp_free (&r);
    r = req_as (user1, "POST", target, b);
    ck_assert_int_eq (r.status, 409);
    ck_assert (json_is_false (json_object_get (r.json, "run")));
    resp_free (&r);
    /* once won, a job that is no copy loses like any other */
    r = req_as (user1, "POST", target, x);
    ck_assert_int_eq (r.status, 409);
    resp_free (&r);
    /* the winner asking again still runs */
    r = req_as (user1, "POST", target, a);
    ck_assert_int_eq (r.status, 200);
    ck_assert (json_is_true (json_object_get (r.json, "run")));
    resp_free (&r);
    /* another user cannot claim it */
    r = req_as (user2, "POST", target, a);
    ck_assert_int_eq (r.status, 404);
    resp_free (&r);
    r = req_as (user1, "POST", target, "{\"cluster\":\"alpha\"}");
    ck_assert_int_eq (r.status, 400);
    ck_assert_str_eq (jstr (&r, "field"), "cluster_job_id");
    resp_free (&r);
    /* the copies were never dispatched: the metrics count no dispatch */
    {
        char sid[24];
        const char *p[1] = { sid };
        ms_error_t e;
        db_t *db = open_scratch (&e);
        PGresult *res;
        ck_assert_msg (db != NULL, "%s", e.text);
        snprintf (sid, sizeof (sid), "%lld", (long long)id);
        res = db_exec (db, "t_unrecord",
                       "DELETE FROM job_submissions WHERE job_id = $1::bigint",
                       1, p, &e);
        ck_assert_msg (res != NULL, "%s", e.text);
        PQclear (res);
        db_close (db);
    }
}
END_TEST

START_TEST (test_bad_requests)
{
    size_t n = 3 * 1024 * 1024;
    char *big = malloc (n + 1);
    resp_t r;

    /* 413 before the body is read (no credential needed to refuse it) */
    memset (big, ' ', n);
    big[n] = '\0';
    r = send_raw (false, "POST", "/v1/jobs", big, n, "", NULL);
    ck_assert_msg (r.status == 413, "%ld %s", r.status, r.text);
    resp_free (&r);
    free (big);
    /* malformed JSON */
    r = req_as (user1, "POST", "/v1/jobs", "{\"script\": ");
    ck_assert_int_eq (r.status, 400);
    ck_assert_msg (strstr (jstr (&r, "error"), "malformed JSON"), "%s", r.text);
    resp_free (&r);
    /* a bad field is named */
    r = req_as (user1, "POST", "/v1/jobs",
                "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\",\"nodes\":0}");
    ck_assert_int_eq (r.status, 400);
    ck_assert_str_eq (jstr (&r, "field"), "nodes");
    resp_free (&r);
    /* not JSON */
    r = send_raw (false, "POST", "/v1/jobs", "a=b", 3, "", "text/plain");
    ck_assert_int_eq (r.status, 415);
    resp_free (&r);
    /* unknown path, wrong method */
    r = req_as (user1, "GET", "/v1/nothing", NULL);
    ck_assert_int_eq (r.status, 404);
    resp_free (&r);
    r = req_as (user1, "GET", "/v1/jobs/abc", NULL);
    ck_assert_int_eq (r.status, 404);
    resp_free (&r);
    r = req_as (user1, "PATCH", "/v1/jobs", NULL);
    ck_assert_int_eq (r.status, 405);
    resp_free (&r);
    r = req_as (user1, "GET", "/v1/jobs/999999999", NULL);
    ck_assert_int_eq (r.status, 404);
    resp_free (&r);
}
END_TEST

START_TEST (test_metrics_and_tcp)
{
    char *cred;
    resp_t r = req_as (user1, "GET", "/metrics", NULL);

    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_ptr_nonnull (strstr (r.text, "# TYPE metasched_jobs gauge"));
    ck_assert_ptr_nonnull (strstr (r.text, "metasched_jobs{state=\"queued\"}"));
    ck_assert_ptr_nonnull (strstr (r.text, "metasched_dispatches_total 0"));
    ck_assert_ptr_nonnull (strstr (
        r.text, "metasched_prediction_abs_error_ratio{quantity=\"time\"}"));
    ck_assert_ptr_nonnull (strstr (
        r.text, "metasched_prediction_abs_error_ratio{quantity=\"energy\"}"));
    ck_assert_ptr_nonnull (strstr (r.text, "metasched_energy_joules_total"));
    ck_assert_ptr_nonnull (strstr (r.text, "metasched_cycle_seconds 0.25"));
    resp_free (&r);
    /* not public here */
    r = send_raw (false, "GET", "/metrics", NULL, 0, "", NULL);
    ck_assert_int_eq (r.status, 401);
    resp_free (&r);
    /* the same API over TCP */
    cred = cred_for (user2, "GET", "/v1/jobs", NULL, 0);
    r = send_raw (true, "GET", "/v1/jobs", NULL, 0, cred, NULL);
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_ptr_nonnull (json_object_get (r.json, "jobs"));
    resp_free (&r);
    free (cred);
}
END_TEST

START_TEST (test_db_down)
{
    ms_api_conf_t conf = { 0 };
    ms_error_t e;
    ms_api_t *down;
    char path[256], *cred;
    resp_t r;

    /* a PostgreSQL that is not there: a closed port (the shared one stays
     * up) */
    snprintf (path, sizeof (path), "%s/down.sock", sockdir);
    snprintf (conf.socket_path, sizeof (conf.socket_path), "%s", path);
    snprintf (conf.munge_socket, sizeof (conf.munge_socket), "%s", munge_sock);
    conf.db_conninfo = "host=127.0.0.1 port=1 dbname=metasched "
                       "user=ms_daemon connect_timeout=2";
    down = api_start (&conf, NULL, NULL, &e);
    ck_assert_msg (down != NULL, "%s", e.text);
    snprintf (sockpath, sizeof (sockpath), "%s", path);
    cred = cred_for (user1, "GET", "/v1/jobs", NULL, 0);
    r = send_raw (false, "GET", "/v1/jobs", NULL, 0, cred, NULL);
    ck_assert_msg (r.status == 503, "%ld %s", r.status, r.text);
    ck_assert_msg (strstr (jstr (&r, "error"), "database"), "%s", r.text);
    resp_free (&r);
    free (cred);
    snprintf (sockpath, sizeof (sockpath), "%s/api.sock", sockdir);
    api_stop (down);
    ck_assert_int_eq (access (path, F_OK), -1); /* socket removed */
}
END_TEST

START_TEST (test_admin_group_public_metrics)
{
    ms_api_conf_t conf = { 0 };
    char *groups[] = { "@nosuchgroup", "@msuser2" };
    char path[256], conninfo[1024], *cred;
    ms_api_t *second;
    ms_error_t e;
    resp_t r;

    /* admins by group (msuser2's primary group), metrics for anyone */
    snprintf (path, sizeof (path), "%s/second.sock", sockdir);
    snprintf (conf.socket_path, sizeof (conf.socket_path), "%s", path);
    snprintf (conf.munge_socket, sizeof (conf.munge_socket), "%s", munge_sock);
    snprintf (conninfo, sizeof (conninfo), "%s dbname=%s",
              getenv ("MS_PG_CONNINFO"), scratch);
    conf.db_conninfo = conninfo;
    conf.admin_users = groups;
    conf.nadmin_users = 2;
    conf.metrics_public = true;
    second = api_start (&conf, NULL, NULL, &e);
    ck_assert_msg (second != NULL, "%s", e.text);
    snprintf (sockpath, sizeof (sockpath), "%s", path);
    if (strcmp (user2, "msuser2") == 0) {
        r = req_as (user2, "PUT", "/v1/settings", "{\"exploration\": 0.1}");
        ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
        resp_free (&r);
    }
    r = req_as (user1, "PUT", "/v1/settings", "{\"exploration\": 0.2}");
    ck_assert_int_eq (r.status, 403);
    resp_free (&r);
    r = req_as (NULL, "PUT", "/v1/settings", "{\"exploration\": 0.2}");
    ck_assert_int_eq (r.status, 403); /* root is no admin here */
    resp_free (&r);
    r = send_raw (false, "GET", "/metrics", NULL, 0, "", NULL);
    ck_assert_msg (r.status == 200, "%ld %s", r.status, r.text);
    ck_assert_ptr_nonnull (strstr (r.text, "metasched_jobs{state="));
    resp_free (&r);
    /* a credential is still checked when one is sent */
    cred = cred_for (user1, "GET", "/v1/jobs", NULL, 0);
    r = send_raw (false, "GET", "/metrics", NULL, 0, cred, NULL);
    ck_assert_int_eq (r.status, 401);
    resp_free (&r);
    free (cred);
    /* endpoints whose hook the daemon did not give */
    r = req_as (user1, "GET", "/v1/clusters", NULL);
    ck_assert_int_eq (r.status, 503);
    resp_free (&r);
    snprintf (sockpath, sizeof (sockpath), "%s/api.sock", sockdir);
    api_stop (second);
}
END_TEST

int
main (void)
{
    char why[512], sql[200];
    const char *port_s;
    ms_api_conf_t conf = { 0 };
    char *admins[] = { "root" };
    ms_error_t e;
    struct stat st;
    db_t *db;
    int applied, failed;
    Suite *s;
    TCase *tc;
    SRunner *sr;

    if (testbed_env_load (why, sizeof (why)) < 0)
        return test_skip_all (why);
    if (geteuid () != 0)
        return test_skip_all ("needs root (to run munge as the test users)");
    munge_sock = getenv ("MS_MUNGE_SOCKET");
    user1 = getenv ("MS_TEST_USER") ? getenv ("MS_TEST_USER") : "msuser";
    user2 = getenv ("MS_TEST_USER2") ? getenv ("MS_TEST_USER2") : "msuser2";
    if (!munge_sock || stat (munge_sock, &st) < 0)
        return test_skip_all ("the test bed's munged socket is missing");
    if (!getpwnam (user1) || !getpwnam (user2))
        return test_skip_all ("the test users do not exist (testbed/start "
                              "creates them)");

    /* a scratch database, migrated */
    snprintf (scratch, sizeof (scratch), "ms_test_api_%ld", (long)getpid ());
    snprintf (sql, sizeof (sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
              scratch);
    if (superdb_exec (sql, why, sizeof (why)) < 0)
        return test_skip_all (why);
    snprintf (sql, sizeof (sql), "CREATE DATABASE %s OWNER ms_daemon", scratch);
    if (superdb_exec (sql, why, sizeof (why)) < 0)
        return test_skip_all (why);
    if (!(db = open_scratch (&e))
        || db_migrate (db, 0, &applied, why, sizeof (why), &e) < 0) {
        fprintf (stderr, "scratch database: %s\n", e.text);
        printf ("1..1\nnot ok 1 - scratch database: %s\n", e.text);
        return EXIT_FAILURE;
    }
    db_close (db);

    /* the server */
    snprintf (sockdir, sizeof (sockdir), "/tmp/ms-test-api-%ld",
              (long)getpid ());
    mkdir (sockdir, 0755);
    snprintf (sockpath, sizeof (sockpath), "%s/api.sock", sockdir);
    snprintf (conf.socket_path, sizeof (conf.socket_path), "%s", sockpath);
    port_s = getenv ("MS_TESTBED_API_PORT");
    snprintf (conf.listen, sizeof (conf.listen), "127.0.0.1:%s",
              port_s ? port_s : "0");
    snprintf (conf.munge_socket, sizeof (conf.munge_socket), "%s", munge_sock);
    conf.admin_users = admins;
    conf.nadmin_users = 1;
    {
        static char conninfo[1024];
        snprintf (conninfo, sizeof (conninfo), "%s dbname=%s",
                  getenv ("MS_PG_CONNINFO"), scratch);
        conf.db_conninfo = conninfo;
    }
    {
        static const ms_api_hooks_t hooks
            = { .whatif = hook_whatif, .clusters = NULL,
                .metrics = hook_metrics, .kick = hook_kick, .admit = NULL };
        api = api_start (&conf, &hooks, NULL, &e);
    }
    if (!api && port_s) { /* the port is taken: any free one */
        snprintf (conf.listen, sizeof (conf.listen), "127.0.0.1:0");
        api = api_start (
            &conf,
            &(ms_api_hooks_t){ .whatif = hook_whatif, .clusters = NULL,
                               .metrics = hook_metrics, .kick = hook_kick,
                               .admit = NULL },
            NULL, &e);
    }
    if (!api) {
        printf ("1..1\nnot ok 1 - api_start: %s\n", e.text);
        return EXIT_FAILURE;
    }
    tcp_port = api_port (api);
    if (stat (sockpath, &st) < 0 || (st.st_mode & 0777) != 0666) {
        printf ("1..1\nnot ok 1 - socket %s is not mode 0666\n", sockpath);
        return EXIT_FAILURE;
    }
    curl_global_init (CURL_GLOBAL_DEFAULT);

    s = suite_create ("api");
    tc = tcase_create ("api");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_submit_list_show_cancel);
    tcase_add_test (tc, test_isolation);
    tcase_add_test (tc, test_credentials);
    tcase_add_test (tc, test_settings);
    tcase_add_test (tc, test_whatif);
    tcase_add_test (tc, test_claim);
    tcase_add_test (tc, test_bad_requests);
    tcase_add_test (tc, test_metrics_and_tcp);
    tcase_add_test (tc, test_db_down);
    tcase_add_test (tc, test_admin_group_public_metrics);
    suite_add_tcase (s, tc);
    sr = srunner_create (s);
    /* the server's threads live in this process: no fork per test */
    srunner_set_fork_status (sr, CK_NOFORK);
    srunner_run_all (sr, CK_ENV);
    failed = srunner_ntests_failed (sr);
    srunner_free (sr);

    api_stop (api);
    rmdir (sockdir);
    curl_global_cleanup ();
    snprintf (sql, sizeof (sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
              scratch);
    superdb_exec (sql, why, sizeof (why));
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
