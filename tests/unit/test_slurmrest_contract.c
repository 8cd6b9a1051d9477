/* test_slurmrest_contract.c - the request builders and the parsers of the
 * slurmrestd backend against real exchanges with every Slurm release and
 * OpenAPI version captured in tests/data/slurmrest/RELEASE/VERSION/ (by
 * tests/contract/slurmrest_capture, from real daemons; see the README
 * there): what metasched builds today is what the real server was sent
 * and accepted, and what the real server answered reads as it should. */
#include "config.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "tests/contract/contract_job.h"
#include "tests/testutil.h"

#define MAXDIRS 64
static char dirs[MAXDIRS][1024]; /* RELEASE/VERSION */
static int ndirs;

static void
find_dirs (void)
{
    char top[2048];
    DIR *d, *r;
    struct dirent *e, *v;

    snprintf (top, sizeof (top), "%s/tests/data/slurmrest", test_srcdir ());
    if (!(d = opendir (top))) {
        perror (top);
        exit (1);
    }
    while ((e = readdir (d))) {
        char rel[3072];
        if (e->d_name[0] == '.')
            continue;
        snprintf (rel, sizeof (rel), "%s/%s", top, e->d_name);
        if (!(r = opendir (rel)))
            continue;
        while ((v = readdir (r)))
            if (v->d_name[0] == 'v' && ndirs < MAXDIRS)
                snprintf (dirs[ndirs++], sizeof (dirs[0]), "%s/%s", e->d_name,
                          v->d_name);
        closedir (r);
    }
    closedir (d);
}

/* One captured exchange: the request's first line and body, or the
 * answer's status and body. */
typedef struct {
    char line[1024];
    long status;
    char *body;
    size_t len;
    char *buf;
} part_t;

static void
load (const char *dir, const char *name, part_t *p)
{
    char path[4096];
    size_t len;
    ms_error_t err;
    char *nl, *sep;

    snprintf (path, sizeof (path), "%s/tests/data/slurmrest/%s/%s",
              test_srcdir (), dir, name);
    ck_assert_msg (ms_read_file (path, 1 << 26, &p->buf, &len, &err) == 0,
                   "%s", err.text);
    nl = strchr (p->buf, '\n');
    ck_assert_msg (nl != NULL, "%s: no first line", path);
    snprintf (p->line, sizeof (p->line), "%.*s", (int)(nl - p->buf), p->buf);
    sep = strstr (p->buf, "\n\n");
    ck_assert_msg (sep != NULL, "%s: no blank line", path);
    p->body = sep + 2;
    p->len = len - (size_t)(p->body - p->buf);
    p->status = 0;
    sscanf (p->line, "HTTP %ld", &p->status);
}

typedef struct {
    const slurmrest_api_t *api;
    const char *dir;
    json_t *meta;
    const char *user, *partition, *cwd;
    json_int_t now, begin, pending, ok, fail;
    const char *node_list; /* the partition's nodes as configured */
    json_int_t real_memory_mb;
} ctx_t;

static void
ctx_open (ctx_t *c, const char *dir)
{
    char path[4096];
    json_error_t jerr;
    const char *slash = strrchr (dir, '/');

    memset (c, 0, sizeof (*c));
    c->dir = dir;
    c->api = slurmrest_api_find (slash + 1);
    ck_assert_msg (c->api != NULL, "%s: not a known version", dir);
    snprintf (path, sizeof (path), "%s/tests/data/slurmrest/%s/meta.json",
              test_srcdir (), dir);
    c->meta = json_load_file (path, 0, &jerr);
    ck_assert_msg (c->meta != NULL, "%s: %s", path, jerr.text);
    ck_assert_int_eq (json_unpack_ex (c->meta, &jerr, 0,
                                      "{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
                                      "user", &c->user, "partition",
                                      &c->partition, "cwd", &c->cwd, "now",
                                      &c->now, "begin_time", &c->begin,
                                      "pending_id", &c->pending, "ok_id",
                                      &c->ok, "fail_id", &c->fail),
                      0);
    /* a capture from another cluster than the one-node capture cluster
     * (node m1, RealMemory 4000) says what it was configured with */
    c->node_list = "m1";
    c->real_memory_mb = 4000;
    ck_assert_int_eq (json_unpack_ex (c->meta, &jerr, 0, "{s?s, s?I}",
                                      "node_list", &c->node_list,
                                      "real_memory_mb", &c->real_memory_mb),
                      0);
}

/* The captured request `label` is `method` on the version's `path`, and
 * its body is `want` (JSON, compared as values; NULL: no body). */
static void
check_request (ctx_t *c, const char *label, const char *method,
               const char *path, const char *want)
{
    part_t p;
    char name[256], line[1024];
    json_error_t jerr;

    snprintf (name, sizeof (name), "%s.req", label);
    load (c->dir, name, &p);
    snprintf (line, sizeof (line), "%s /slurm/%s%s", method,
              slurmrest_api_name (c->api), path);
    ck_assert_msg (!strcmp (p.line, line), "%s/%s: sent '%s', builds '%s'",
                   c->dir, name, p.line, line);
    if (want) {
        json_t *got = json_loadb (p.body, p.len, 0, &jerr);
        json_t *exp = json_loads (want, 0, &jerr);
        ck_assert_msg (got && exp, "%s/%s: not JSON", c->dir, name);
        ck_assert_msg (json_equal (got, exp),
                       "%s/%s: the server was sent\n%.*s\nmetasched builds\n%s",
                       c->dir, name, (int)p.len, p.body, want);
        json_decref (got);
        json_decref (exp);
    }
    free (p.buf);
}

/* The one job of answer `label`. */
static ms_job_info_t
one_job (ctx_t *c, const char *label, json_int_t id)
{
    part_t p;
    ms_job_info_t *jobs, j;
    size_t n;
    ms_error_t err;
    char name[256];

    snprintf (name, sizeof (name), "%s.ans", label);
    load (c->dir, name, &p);
    ck_assert_msg (slurmrest_parse_jobs (c->api, p.body, p.len, p.status, &jobs,
                                         &n, NULL, &err)
                       == 0,
                   "%s/%s: %s", c->dir, name, err.text);
    ck_assert_msg (n == 1, "%s/%s: %zu jobs", c->dir, name, n);
    ck_assert_uint_eq (jobs[0].id, (uint64_t)id);
    j = jobs[0];
    free (jobs);
    free (p.buf);
    return j;
}

START_TEST (requests_as_sent)
{
    ctx_t c;
    ms_job_request_t req;
    ms_job_update_t upd;
    ms_error_t err;
    char *body, path[128];

    ctx_open (&c, dirs[_i]);
    check_request (&c, "ping", "GET", "/ping", NULL);
    check_request (&c, "ping-bad-token", "GET", "/ping", NULL);
    check_request (&c, "partitions", "GET", "/partitions", NULL);
    check_request (&c, "nodes", "GET", "/nodes", NULL);

    contract_pending_job (&req, c.api, c.user, c.partition, c.cwd, c.begin);
    body = slurmrest_submit_body (c.api, &req, (time_t)c.now, &err);
    ck_assert_msg (body != NULL, "%s", err.text);
    check_request (&c, "submit-pending", "POST", "/job/submit", body);
    free (body);
    contract_quick_job (&req, c.user, c.partition, c.cwd, 0);
    body = slurmrest_submit_body (c.api, &req, (time_t)c.now, &err);
    check_request (&c, "submit-ok", "POST", "/job/submit", body);
    free (body);
    contract_quick_job (&req, c.user, c.partition, c.cwd, 3);
    body = slurmrest_submit_body (c.api, &req, (time_t)c.now, &err);
    check_request (&c, "submit-fail", "POST", "/job/submit", body);
    free (body);

    contract_priority_update (&upd, c.api);
    body = slurmrest_update_body (c.api, &upd, &err);
    snprintf (path, sizeof (path), "/job/%lld", (long long)c.pending);
    check_request (&c, "update-priority", "POST", path, body);
    free (body);
    ms_job_update_init (&upd);
    upd.time_limit_min = 5;
    upd.comment = "metasched:77 moved";
    body = slurmrest_update_body (c.api, &upd, &err);
    check_request (&c, "update-limit", "POST", path, body);
    free (body);
    check_request (&c, "cancel", "DELETE", path, NULL);
    check_request (&c, "job-pending", "GET", path, NULL);
    check_request (&c, "jobs-all", "GET", "/jobs", NULL);

    /* the listing of changes only: its query as this version writes it
     * (a version that cannot ask for changes has none) */
    {
        part_t p;
        char q[64], want[256];
        const char *t;
        long long since = 0;
        slurmrest_jobs_query (c.api, 0, q, sizeof (q));
        if (!q[0]) {
            json_decref (c.meta);
            return;
        }
        load (c.dir, "jobs-unchanged.req", &p);
        t = strstr (p.line, "update_time=");
        ck_assert_msg (t != NULL, "%s: %s", c.dir, p.line);
        t += strlen ("update_time=");
        while (*t && (*t < '0' || *t > '9'))
            t++;
        since = atoll (t);
        slurmrest_jobs_query (c.api, (time_t)since, q, sizeof (q));
        snprintf (want, sizeof (want), "GET /slurm/%s/jobs%s",
                  slurmrest_api_name (c.api), q);
        ck_assert_msg (!strcmp (p.line, want), "%s: sent '%s', builds '%s'",
                       c.dir, p.line, want);
        free (p.buf);
    }
    json_decref (c.meta);
}
END_TEST

START_TEST (answers_read)
{
    ctx_t c;
    part_t p;
    ms_error_t err;
    ms_partition_state_t *parts;
    ms_node_state_t *nodes;
    ms_job_info_t *jobs, j;
    size_t n;
    uint64_t id;
    bool unchanged, found = false;
    char q[64];

    ctx_open (&c, dirs[_i]);

    load (c.dir, "ping.ans", &p);
    ck_assert_msg (slurmrest_parse_ping (c.api, p.body, p.len, p.status, &err)
                       == 0,
                   "%s: %s", c.dir, err.text);
    free (p.buf);
    /* a refused token: an error whatever the status (26.05: 200, and a
     * controller that did not respond) */
    load (c.dir, "ping-bad-token.ans", &p);
    ck_assert_int_eq (slurmrest_parse_ping (c.api, p.body, p.len, p.status,
                                            &err),
                      -1);
    /* 22.05 names the refusal, 26.05 says "Protocol authentication
     * error", 25.05 only that the controller is DOWN, 23.02's v0.0.39
     * that slurmdbd refused its connection */
    ck_assert_msg (strstr (err.text, "authentication")
                       || strstr (err.text, "Authentication")
                       || strstr (err.text, "Unspecified error")
                       || strstr (err.text, "does not answer the ping: DOWN")
                       || (slurmrest_api_draft (c.api)
                           && strstr (err.text, "[error 7000]")),
                   "%s: %s", c.dir, err.text);
    free (p.buf);

    load (c.dir, "partitions.ans", &p);
    ck_assert_msg (slurmrest_parse_partitions (c.api, p.body, p.len, p.status,
                                               &parts, &n, &err)
                       == 0,
                   "%s: %s", c.dir, err.text);
    for (size_t i = 0; i < n; i++)
        if (!strcmp (parts[i].name, c.partition)) {
            found = true;
            ck_assert (parts[i].up);
            ck_assert_int_gt (parts[i].nodes_total, 0);
            ck_assert_int_ge (parts[i].cpus_total, parts[i].nodes_total);
            ck_assert_int_eq (parts[i].max_time_min, -1); /* INFINITE */
            ck_assert_int_eq (parts[i].max_nodes, -1);    /* unlimited */
            ck_assert_int_eq (parts[i].min_nodes, 0);
            ck_assert_str_eq (parts[i].allow_accounts, "");
            ck_assert_str_eq (parts[i].deny_qos, "");
            ck_assert_str_eq (parts[i].node_list, c.node_list);
        }
    ck_assert_msg (found, "%s: no partition %s", c.dir, c.partition);
    free (parts);
    free (p.buf);

    load (c.dir, "nodes.ans", &p);
    ck_assert_msg (slurmrest_parse_nodes (c.api, p.body, p.len, p.status,
                                          &nodes, &n, &err)
                       == 0,
                   "%s: %s", c.dir, err.text);
    ck_assert_uint_gt (n, 0);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_gt (nodes[i].cpus, 0);
        ck_assert_int_eq (nodes[i].real_memory_mb, c.real_memory_mb);
        ck_assert_msg (nodes[i].usable, "%s: node %s (%s) not usable", c.dir,
                       nodes[i].name, nodes[i].state);
        ck_assert_ptr_nonnull (strstr (nodes[i].partitions, c.partition));
    }
    free (nodes);
    free (p.buf);

    static const struct {
        const char *label;
        int which;
    } submits[] = { { "submit-pending", 0 }, { "submit-ok", 1 },
                    { "submit-fail", 2 } };
    for (size_t k = 0; k < 3; k++) {
        char name[64];
        json_int_t want = submits[k].which == 0   ? c.pending
                          : submits[k].which == 1 ? c.ok
                                                  : c.fail;
        snprintf (name, sizeof (name), "%s.ans", submits[k].label);
        load (c.dir, name, &p);
        ck_assert_msg (slurmrest_parse_submit (c.api, p.body, p.len, p.status,
                                               &id, &err)
                           == 0,
                       "%s/%s: %s", c.dir, name, err.text);
        ck_assert_uint_eq (id, (uint64_t)want);
        free (p.buf);
    }
    load (c.dir, "submit-bad-partition.ans", &p);
    ck_assert_int_eq (slurmrest_parse_submit (c.api, p.body, p.len, p.status,
                                              &id, &err),
                      -1);
    ck_assert_msg (strstr (err.text, "Invalid partition name specified"), "%s",
                   err.text);
    ck_assert_int_eq (err.http_status, (int)p.status);
    free (p.buf);

    j = one_job (&c, "job-pending", c.pending);
    ck_assert_int_eq (j.state, MS_JOB_PENDING);
    ck_assert_str_eq (j.user, c.user);
    ck_assert_str_eq (j.partition, c.partition);
    ck_assert_str_eq (j.name, "ms-contract");
    ck_assert_str_eq (j.comment, "metasched:77");
    ck_assert_str_eq (j.state_reason, "BeginTime");
    ck_assert_str_eq (j.cwd, c.cwd);
    ck_assert_str_eq (j.std_out, "/dev/null");
    ck_assert_uint_eq (j.time_limit_min, 7);
    ck_assert_uint_eq (j.cpu_freq_max_khz, 2000000);
    ck_assert_int_eq (j.nice, contract_nice (c.api, 10));
    ck_assert_int_eq (j.nodes, 1);
    ck_assert_int_ge ((long)j.eligible_time, (long)c.begin - 1);

    for (const char *const *l = (const char *const[]){ "update-priority",
                                                       "update-limit", "cancel",
                                                       NULL };
         *l; l++) {
        char name[64];
        snprintf (name, sizeof (name), "%s.ans", *l);
        load (c.dir, name, &p);
        ck_assert_msg (slurmrest_parse_update (c.api, p.body, p.len, p.status,
                                               &err)
                           == 0,
                       "%s/%s: %s", c.dir, name, err.text);
        free (p.buf);
    }
    j = one_job (&c, "job-updated", c.pending);
    ck_assert_uint_eq (j.priority, 4242);
    ck_assert_uint_eq (j.time_limit_min, 5);
    ck_assert_str_eq (j.comment, "metasched:77 moved");

    load (c.dir, "jobs-all.ans", &p);
    ck_assert_msg (slurmrest_parse_jobs (c.api, p.body, p.len, p.status, &jobs,
                                         &n, &unchanged, &err)
                       == 0,
                   "%s: %s", c.dir, err.text);
    ck_assert (!unchanged);
    found = false;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].id == (uint64_t)c.pending) {
            found = true;
            ck_assert_int_eq (jobs[i].state, MS_JOB_PENDING);
            ck_assert_str_eq (jobs[i].comment, "metasched:77 moved");
        }
    ck_assert_msg (found, "%s: jobs-all lacks job %lld", c.dir,
                   (long long)c.pending);
    free (jobs);
    free (p.buf);

    slurmrest_jobs_query (c.api, 0, q, sizeof (q));
    if (q[0]) { /* a version that can ask for changes only */
        load (c.dir, "jobs-unchanged.ans", &p);
        if (p.status != 304) { /* v0.0.38: 304 and no body */
            ck_assert_msg (slurmrest_parse_jobs (c.api, p.body, p.len,
                                                 p.status, &jobs, &n,
                                                 &unchanged, &err)
                               == 0,
                           "%s: %s", c.dir, err.text);
            ck_assert_msg (unchanged,
                           "%s: a listing of no changes not seen as one",
                           c.dir);
            ck_assert_uint_eq (n, 0);
            free (jobs);
        } else
            ck_assert_uint_eq (p.len, 0);
        free (p.buf);
    }

    j = one_job (&c, "job-cancelled", c.pending);
    ck_assert_int_eq (j.state, MS_JOB_CANCELLED);
    ck_assert (ms_job_state_final (j.state));
    j = one_job (&c, "job-ok", c.ok);
    ck_assert_int_eq (j.state, MS_JOB_COMPLETED);
    ck_assert_int_eq (j.exit_code, 0);
    ck_assert_int_gt ((long)j.end_time, 0);
    ck_assert_int_ge ((long)j.end_time, (long)j.start_time);
    j = one_job (&c, "job-fail", c.fail);
    ck_assert_int_eq (j.state, MS_JOB_FAILED);
    ck_assert_int_eq (j.exit_code, 3);

    load (c.dir, "job-missing.ans", &p);
    ck_assert_int_eq (slurmrest_parse_jobs (c.api, p.body, p.len, p.status,
                                            &jobs, &n, NULL, &err),
                      -1);
    ck_assert_msg (strstr (err.text, "Invalid job id"), "%s", err.text);
    free (p.buf);
    json_decref (c.meta);
}
END_TEST

/* The releases and versions the captures must cover: every version metasched
 * speaks that a release built here serves (v0.0.39 is served by 23.02
 * alone, and there only with slurmdbd: captured on the test bed's beta). */
START_TEST (captures_cover_the_versions)
{
    static const char *const want[] = {
        "22.05.8/v0.0.38", "23.02.8/v0.0.38", "23.02.8/v0.0.39",
        "25.05.8/v0.0.40",
        "25.05.8/v0.0.41",
        "25.05.8/v0.0.42", "25.05.8/v0.0.43", "26.05.3/v0.0.42",
        "26.05.3/v0.0.43", "26.05.3/v0.0.44", "26.05.3/v0.0.45",
        "26.11.0/v0.0.43", "26.11.0/v0.0.44", "26.11.0/v0.0.45",
        "26.11.0/v0.0.46",
    };
    for (size_t k = 0; k < sizeof (want) / sizeof (want[0]); k++) {
        bool have = false;
        for (int i = 0; i < ndirs; i++)
            if (!strcmp (dirs[i], want[k]))
                have = true;
        ck_assert_msg (have, "no capture %s", want[k]);
    }
    /* and the list of versions agrees with the table */
    char list[256] = "";
    for (size_t i = 0; i < slurmrest_api_count (); i++) {
        size_t used = strlen (list);
        snprintf (list + used, sizeof (list) - used, "%s%s", i ? ", " : "",
                  slurmrest_api_name (slurmrest_api_at (i)));
    }
    ck_assert_str_eq (list, slurmrest_api_list ());
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("slurmrest_contract");
    TCase *tc = tcase_create ("contract");

    find_dirs ();
    tcase_add_loop_test (tc, requests_as_sent, 0, ndirs);
    tcase_add_loop_test (tc, answers_read, 0, ndirs);
    tcase_add_test (tc, captures_cover_the_versions);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
