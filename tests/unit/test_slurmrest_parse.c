/* test_slurmrest_parse.c - reading slurmrestd's answers (recorded from the
 * test bed's slurmrestd 22.05, OpenAPI v0.0.38) and building submissions. */
#include "config.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "tests/testutil.h"

#define V38 slurmrest_api_find ("v0.0.38")

static char *
load (const char *name, size_t *len)
{
    char path[4096], *buf;
    ms_error_t err;
    snprintf (path, sizeof (path), "%s/tests/data/slurmrest/%s", test_srcdir (),
              name);
    ck_assert_msg (ms_read_file (path, 1 << 24, &buf, len, &err) == 0, "%s",
                   err.text);
    return buf;
}

START_TEST (jobs_answer)
{
    size_t len, n;
    char *body = load ("jobs.json", &len);
    ms_job_info_t *jobs;
    ms_error_t err;

    ck_assert_msg (slurmrest_parse_jobs (V38, body, len, 200, &jobs, &n, NULL, &err) == 0,
                   "%s", err.text);
    ck_assert_uint_eq (n, 2);
    ck_assert_uint_eq (jobs[0].id, 1);
    ck_assert_int_eq (jobs[0].state, MS_JOB_COMPLETED);
    ck_assert_str_eq (jobs[0].partition, "short");
    ck_assert_str_eq (jobs[0].user, "msuser");
    ck_assert_str_eq (jobs[0].comment, "metasched:t15260-gamma");
    ck_assert_str_eq (jobs[0].name, "ms-integration");
    ck_assert_uint_eq (jobs[0].time_limit_min, 7);
    ck_assert_uint_eq (jobs[0].cpu_freq_max_khz, 1200000);
    ck_assert_uint_eq (jobs[0].cpu_freq_min_khz, 0); /* null in the answer */
    ck_assert_int_eq (jobs[0].nodes, 1);
    ck_assert_int_eq (jobs[0].exit_code, 0);
    ck_assert_int_eq ((long)jobs[0].submit_time, 1795426599L);
    ck_assert_uint_eq (jobs[1].id, 5);
    ck_assert_int_eq (jobs[1].state, MS_JOB_CANCELLED);
    ck_assert_int_eq (jobs[1].nodes, 2);
    ck_assert (ms_job_state_final (jobs[1].state));
    free (jobs);
    free (body);
}
END_TEST

START_TEST (partitions_and_nodes)
{
    size_t len, n;
    char *body = load ("partitions.json", &len);
    ms_partition_state_t *p;
    ms_node_state_t *nd;
    ms_error_t err;

    ck_assert_msg (slurmrest_parse_partitions (V38, body, len, 200, &p, &n, &err) == 0,
                   "%s", err.text);
    ck_assert_uint_eq (n, 2);
    ck_assert_str_eq (p[0].name, "short");
    ck_assert (p[0].up);
    ck_assert_int_eq (p[0].nodes_total, 2);
    ck_assert_int_eq (p[0].cpus_total, 80);
    ck_assert_int_eq (p[0].max_time_min, 30);
    ck_assert_int_eq (p[0].max_nodes, -1); /* -1: unlimited in v0.0.38 */
    ck_assert_int_eq (p[0].min_nodes, 0);
    ck_assert_str_eq (p[0].allow_accounts, "");
    ck_assert_str_eq (p[0].allow_groups, "");
    ck_assert_str_eq (p[0].node_list, "g[1-2]");
    ck_assert_str_eq (p[1].name, "long");
    free (p);
    free (body);

    body = load ("nodes.json", &len);
    ck_assert_msg (slurmrest_parse_nodes (V38, body, len, 200, &nd, &n, &err) == 0,
                   "%s", err.text);
    ck_assert_uint_eq (n, 2);
    ck_assert_str_eq (nd[0].name, "g1");
    ck_assert_int_eq (nd[0].cpus, 40);
    ck_assert_str_eq (nd[0].partitions, "short,long");
    ck_assert (nd[0].usable);
    ck_assert_int_eq (nd[0].real_memory_mb, 4000);
    free (nd);
    free (body);
}
END_TEST

/* The accounting endpoints of the test bed's beta (slurmdbd), as recorded
 * from every release and OpenAPI version: tests/data/slurmrest/slurmdb/. */
static const struct {
    const char *release, *version;
} acct_recs[] = {
    { "22.05.8", "v0.0.38" }, { "24.11.7", "v0.0.40" },
    { "24.11.7", "v0.0.41" }, { "24.11.7", "v0.0.42" },
    { "25.11.7", "v0.0.41" }, { "25.11.7", "v0.0.42" },
    { "25.11.7", "v0.0.43" }, { "25.11.7", "v0.0.44" },
    { "26.05.3", "v0.0.42" }, { "26.05.3", "v0.0.43" },
    { "26.05.3", "v0.0.44" }, { "26.05.3", "v0.0.45" },
    { "26.11.0", "v0.0.43" }, { "26.11.0", "v0.0.44" },
    { "26.11.0", "v0.0.45" }, { "26.11.0", "v0.0.46" },
};

static char *
load_acct (int i, const char *what, size_t *len)
{
    char name[128];
    snprintf (name, sizeof (name), "slurmdb/%s-%s-%s.json",
              acct_recs[i].release, acct_recs[i].version, what);
    return load (name, len);
}

/* Is the comma-separated list the same set of names as want (whose names
 * are in alphabetical order)? Releases list a user's QOS in their own
 * order. */
static bool
same_names (const char *list, const char *want)
{
    char buf[256], *save = NULL, *tok, *names[16];
    size_t n = 0, len = 0;
    char sorted[256] = "";

    snprintf (buf, sizeof (buf), "%s", list);
    for (tok = strtok_r (buf, ",", &save); tok && n < 16;
         tok = strtok_r (NULL, ",", &save))
        names[n++] = tok;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp (names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf (sorted + len, sizeof (sorted) - len, "%s%s",
                                 i ? "," : "", names[i]);
    return !strcmp (sorted, want);
}

START_TEST (accounting_answers)
{
    size_t len, n;
    const slurmrest_api_t *api = slurmrest_api_find (acct_recs[_i].version);
    char *body = load_acct (_i, "associations", &len);
    ms_assoc_t *as;
    ms_qos_t *q;
    ms_error_t err;
    int seen = 0;

    ck_assert_msg (api, "%s", acct_recs[_i].version);
    ck_assert_msg (slurmrest_parse_associations (api, body, len, 200, "beta",
                                                 &as, &n, &err)
                       == 0,
                   "%s %s: %s", acct_recs[_i].release, acct_recs[_i].version,
                   err.text);
    /* the users' associations only (root, msuser, msuser2) */
    ck_assert_uint_eq (n, 3);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp (as[i].user, "msuser")) {
            ck_assert_str_eq (as[i].account, "physics");
            ck_assert (as[i].is_default);
            ck_assert_msg (same_names (as[i].qos, "debug,normal,short"), "%s",
                           as[i].qos);
            ck_assert_str_eq (as[i].default_qos, "normal");
            ck_assert_int_eq (as[i].max_wall_min, -1);
            seen++;
        } else if (!strcmp (as[i].user, "msuser2")) {
            ck_assert_str_eq (as[i].account, "chem");
            ck_assert (as[i].is_default);
            ck_assert_msg (same_names (as[i].qos, "normal,short"), "%s",
                           as[i].qos);
            ck_assert_str_eq (as[i].default_qos, "normal");
            seen++;
        } else {
            ck_assert_str_eq (as[i].user, "root");
            ck_assert_str_eq (as[i].account, "root");
        }
    }
    ck_assert_int_eq (seen, 2);
    free (as);
    /* another cluster's associations are not this one's */
    ck_assert (slurmrest_parse_associations (api, body, len, 200, "alpha", &as,
                                             &n, &err)
               == 0);
    ck_assert_uint_eq (n, 0);
    free (as);
    free (body);

    body = load_acct (_i, "qos", &len);
    ck_assert_msg (slurmrest_parse_qos (api, body, len, 200, &q, &n, &err) == 0,
                   "%s %s: %s", acct_recs[_i].release, acct_recs[_i].version,
                   err.text);
    ck_assert_uint_eq (n, 3);
    seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp (q[i].name, "normal")) {
            ck_assert_int_eq (q[i].max_wall_min, -1);
            ck_assert_int_eq (q[i].max_cpus_per_user, -1);
            seen |= 1;
        } else if (!strcmp (q[i].name, "short")) {
            ck_assert_int_eq (q[i].max_wall_min, 30);
            ck_assert_int_eq (q[i].max_cpus_per_user, -1);
            seen |= 2;
        } else {
            ck_assert_str_eq (q[i].name, "debug");
            ck_assert_int_eq (q[i].max_wall_min, 10);
            ck_assert_int_eq (q[i].max_cpus_per_user, 8);
            ck_assert_int_eq (q[i].max_cpus_per_job, -1);
            ck_assert_int_eq (q[i].max_nodes_per_job, -1);
            seen |= 4;
        }
    }
    ck_assert_int_eq (seen, 7);
    free (q);
    free (body);
}
END_TEST

/* An association's MaxWall (msuser2's set to 20 minutes with sacctmgr
 * before the capture): 22.05's plain number, and {set, infinite, number}
 * from v0.0.39 on. */
START_TEST (association_max_wall)
{
    static const char *const recs[]
        = { "slurmdb/22.05.8-v0.0.38-associations-maxwall.json",
            "slurmdb/26.05.3-v0.0.45-associations-maxwall.json",
            "slurmdb/26.11.0-v0.0.46-associations-maxwall.json" };
    static const char *const versions[] = { "v0.0.38", "v0.0.45",
                                            "v0.0.46" };
    size_t len, n;
    char *body = load (recs[_i], &len);
    ms_assoc_t *as;
    ms_error_t err;
    int seen = 0;

    ck_assert_msg (slurmrest_parse_associations (
                       slurmrest_api_find (versions[_i]), body, len, 200,
                       "beta", &as, &n, &err)
                       == 0,
                   "%s: %s", recs[_i], err.text);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp (as[i].user, "msuser2")) {
            ck_assert_int_eq (as[i].max_wall_min, 20);
            seen++;
        } else {
            ck_assert_int_eq (as[i].max_wall_min, -1);
        }
    }
    ck_assert_int_eq (seen, 1);
    free (as);
    free (body);
}
END_TEST

/* A wrong shape of an accounting answer is named. */
START_TEST (accounting_bad_shape)
{
    size_t n;
    ms_qos_t *q;
    ms_error_t err;

    ck_assert (slurmrest_parse_qos (V38, "{\"QOS\":[{\"name\":7}]}", 20, 200,
                                    &q, &n, &err)
               < 0);
    ck_assert_msg (strstr (err.text, "qos[0].name: expected a string"), "%s",
                   err.text);
}
END_TEST

/* The jobs of slurmdbd as every release and version recorded them: two
 * jobs each, and beta measures no energy (22.05: null; later: the TRES
 * count NO_VAL64, -2 as a signed number, and steps without an energy
 * TRES): no figure for either. */
START_TEST (accounted_jobs)
{
    size_t len, n;
    char *body = load_acct (_i, "jobs", &len);
    json_t *root = json_loadb (body, len, 0, NULL);
    slurmrest_energy_t *es;
    ms_error_t err;

    ck_assert_uint_eq (json_array_size (json_object_get (root, "jobs")), 2);
    json_decref (root);
    ck_assert_msg (slurmrest_parse_db_energy (
                       slurmrest_api_find (acct_recs[_i].version), body, len,
                       200, &es, &n, &err)
                       == 0,
                   "%s %s: %s", acct_recs[_i].release, acct_recs[_i].version,
                   err.text);
    ck_assert_uint_eq (n, 0);
    free (es);
    free (body);
}
END_TEST

/* ConsumedEnergy from slurmdbd's jobs: a job's allocated energy, else its
 * steps' consumed energy, where a plugin measured them. */
START_TEST (accounted_energy)
{
    size_t n;
    slurmrest_energy_t *es;
    ms_error_t err;
    static const char measured[]
        = "{\"jobs\": ["
          "{\"job_id\": 7, \"tres\": {\"allocated\": [{\"type\": \"cpu\", "
          "\"count\": 4}, {\"type\": \"energy\", \"name\": null, "
          "\"count\": 5120}]}, \"steps\": []},"
          "{\"job_id\": 8, \"tres\": {\"allocated\": [{\"type\": \"energy\", "
          "\"count\": null}]}, \"steps\": ["
          "{\"tres\": {\"consumed\": {\"total\": [{\"type\": \"energy\", "
          "\"count\": 100}]}}},"
          "{\"tres\": {\"consumed\": {\"total\": [{\"type\": \"energy\", "
          "\"count\": 23}]}}}]},"
          "{\"job_id\": 9, \"tres\": {\"allocated\": []}, \"steps\": []}"
          "]}";

    ck_assert_msg (slurmrest_parse_db_energy (V38, measured, strlen (measured),
                                              200, &es, &n, &err)
                       == 0,
                   "%s", err.text);
    ck_assert_uint_eq (n, 2);
    ck_assert_uint_eq (es[0].id, 7);
    ck_assert_double_eq (es[0].energy_j, 5120);
    ck_assert_uint_eq (es[1].id, 8);
    ck_assert_double_eq (es[1].energy_j, 123);
    free (es);
    ck_assert (slurmrest_parse_db_energy (V38, "{\"jobs\": [{\"job_id\": 1, "
                                               "\"tres\": {\"allocated\": 3}}]}",
                                          51, 200, &es, &n, &err)
               < 0);
    ck_assert_msg (strstr (err.text, "jobs[0].tres/allocated: expected an array"),
                   "%s", err.text);
}
END_TEST

START_TEST (submit_answers)
{
    size_t len;
    uint64_t id = 0;
    char *body = load ("submit-ok.json", &len);
    ms_error_t err;

    ck_assert_msg (slurmrest_parse_submit (V38, body, len, 200, &id, &err) == 0, "%s",
                   err.text);
    ck_assert_uint_eq (id, 10);
    free (body);

    body = load ("submit-bad-partition.json", &len);
    ck_assert_int_eq (slurmrest_parse_submit (V38, body, len, 500, &id, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_REMOTE);
    ck_assert_int_eq (err.http_status, 500);
    ck_assert_str_eq (err.text,
                      "HTTP 500: Invalid partition name specified [error 2000]");
    free (body);
}
END_TEST

/* Every kind of bad answer gives an error of the right kind that says what
 * was wrong. */
static const struct {
    const char *body;
    long status;
    ms_errkind_t kind;
    const char *expect;
} bad[] = {
    { "", 502, MS_ERR_HTTP, "HTTP 502 with an empty answer" },
    { "", 200, MS_ERR_PROTOCOL, "empty answer where JSON was expected" },
    { "<html>Bad Gateway</html>", 502, MS_ERR_HTTP, "HTTP 502: answer is not JSON" },
    { "{\"jobs\": [", 200, MS_ERR_PROTOCOL, "malformed JSON in answer at line 1" },
    { "[1,2]", 200, MS_ERR_PROTOCOL, "answer is JSON but not an object" },
    { "{\"errors\":[]}", 200, MS_ERR_PROTOCOL, "answer has no \"jobs\" array" },
    { "{\"errors\":[], \"jobs\": {}}", 200, MS_ERR_PROTOCOL, "no \"jobs\" array" },
    { "{\"jobs\":[{\"job_id\":\"x1\"}]}", 200, MS_ERR_PROTOCOL,
      "jobs[0].job_id: expected an integer" },
    { "{\"jobs\":[{\"job_id\":3,\"name\":7}]}", 200, MS_ERR_PROTOCOL,
      "jobs[0].name: expected a string" },
    { "{\"jobs\":[{\"job_id\":3},{\"job_id\":-2}]}", 200, MS_ERR_PROTOCOL,
      "jobs[1].job_id: expected a positive integer" },
    { "{\"jobs\":[5]}", 200, MS_ERR_PROTOCOL, "jobs[0].: expected an object" },
    { "{\"jobs\":[]}", 404, MS_ERR_HTTP, "HTTP 404" },
    { "{\"jobs\":[]}", 401, MS_ERR_AUTH, "HTTP 401" },
    { "{\"errors\":[{\"error\":\"Invalid job id specified\",\"error_number\":2017,"
      "\"source\":\"slurm_load_job\",\"description\":\"Unable to find JobId=9\"}],"
      "\"jobs\":[]}",
      500, MS_ERR_REMOTE,
      "HTTP 500: slurm_load_job: Invalid job id specified (Unable to find "
      "JobId=9) [error 2017]" },
    { "{\"jobs\":[{\"job_id\":1,\"a\":1,\"a\":2}]}", 200, MS_ERR_PROTOCOL,
      "duplicate object key" },
};

START_TEST (bad_answers)
{
    ms_job_info_t *jobs = NULL;
    size_t n;
    ms_error_t err;

    ck_assert_int_eq (slurmrest_parse_jobs (slurmrest_api_at ((size_t)_i % slurmrest_api_count ()),
                                            bad[_i].body, strlen (bad[_i].body),
                                            bad[_i].status, &jobs, &n, NULL, &err),
                      -1);
    ck_assert_ptr_null (jobs);
    ck_assert_msg (err.kind == bad[_i].kind, "case %d: kind %s, want %s", _i,
                   ms_errkind_name (err.kind), ms_errkind_name (bad[_i].kind));
    ck_assert_msg (strstr (err.text, bad[_i].expect), "case %d: '%s' lacks '%s'",
                   _i, err.text, bad[_i].expect);
}
END_TEST

/* 23.02's v0.0.39 (a draft): its slurmrestd exits on a job description
 * with a nice (seen on the test bed with slurmdbd), so a nice is refused
 * with the way out; a job update carries an environment, which it
 * requires and ignores (checked there: the job's own stays). */
START_TEST (draft_version_bodies)
{
    const char *env[] = { "PATH=/usr/bin", NULL };
    const slurmrest_api_t *v39 = slurmrest_api_find ("v0.0.39");
    ms_job_request_t req = {
        .user = "msuser", .name = "lu", .partition = "batch",
        .time_limit_min = 90, .nice = 5, .environment = env, .cwd = "/home/u",
        .nodes = 1, .script = "#!/bin/bash\nsrun lu\n",
    };
    ms_job_update_t upd;
    ms_error_t err;
    char *body;
    json_t *root;

    ms_job_update_init (&upd);
    upd.time_limit_min = 30;

    ck_assert (slurmrest_api_draft (v39));
    ck_assert (!slurmrest_api_draft (V38));
    ck_assert (!slurmrest_api_draft (slurmrest_api_find ("v0.0.40")));
    ck_assert_ptr_null (slurmrest_submit_body (v39, &req, time (NULL), &err));
    ck_assert_msg (strstr (err.text, "v0.0.39 cannot carry a job's nice")
                       && strstr (err.text, "api_version = v0.0.38"),
                   "%s", err.text);
    /* v0.0.38 carries it */
    body = slurmrest_submit_body (V38, &req, time (NULL), &err);
    ck_assert_msg (body && strstr (body, "\"nice\":5"), "%s",
                   body ? body : err.text);
    free (body);
    /* without a nice, v0.0.39 takes the job */
    req.nice = 0;
    body = slurmrest_submit_body (v39, &req, time (NULL), &err);
    ck_assert_msg (body && !strstr (body, "\"nice\""), "%s",
                   body ? body : err.text);
    free (body);

    body = slurmrest_update_body (v39, &upd, &err);
    ck_assert_msg (body != NULL, "%s", err.text);
    root = json_loads (body, 0, NULL);
    ck_assert_uint_eq (json_array_size (json_object_get (root, "environment")),
                       1);
    json_decref (root);
    free (body);
    body = slurmrest_update_body (V38, &upd, &err);
    ck_assert_msg (body && !strstr (body, "environment"), "%s",
                   body ? body : err.text);
    free (body);
    upd.nice = 10;
    ck_assert_ptr_null (slurmrest_update_body (v39, &upd, &err));
    ck_assert_msg (strstr (err.text, "v0.0.39 cannot carry a job's nice"),
                   "%s", err.text);
}
END_TEST

START_TEST (submit_body)
{
    const char *env[] = { "PATH=/usr/bin", "OMP_NUM_THREADS=4", NULL };
    ms_job_request_t req = {
        .user = "msuser", .name = "lu", .partition = "batch",
        .cpu_freq_khz = 2000000, .time_limit_min = 90, .nice = 5,
        .comment = "metasched:42", .environment = env, .cwd = "/home/u",
        .std_out = "/home/u/o-%j", .std_err = "/home/u/e-%j", .nodes = 2,
        .tasks = 96, .cpus_per_task = 1, .script = "#!/bin/bash\nsrun lu\n",
    };
    ms_error_t err;
    char *body = slurmrest_submit_body (V38, &req, time (NULL), &err);
    json_error_t jerr;
    json_t *root, *job;

    ck_assert_msg (body != NULL, "%s", err.text);
    root = json_loads (body, 0, &jerr);
    ck_assert_ptr_nonnull (root);
    ck_assert_str_eq (json_string_value (json_object_get (root, "script")),
                      req.script);
    job = json_object_get (root, "job");
    ck_assert_str_eq (json_string_value (json_object_get (job, "partition")), "batch");
    ck_assert_str_eq (json_string_value (json_object_get (job, "cpu_frequency")),
                      "2000000");
    ck_assert_int_eq (json_integer_value (json_object_get (job, "time_limit")), 90);
    ck_assert_int_eq (json_integer_value (json_object_get (job, "nice")), 5);
    ck_assert_int_eq (json_integer_value (json_object_get (job, "nodes")), 2);
    ck_assert_int_eq (json_integer_value (json_object_get (job, "tasks")), 96);
    ck_assert_str_eq (json_string_value (json_object_get (job, "comment")),
                      "metasched:42");
    ck_assert_str_eq (json_string_value (json_object_get (job, "standard_error")),
                      "/home/u/e-%j");
    ck_assert_str_eq (json_string_value (json_object_get (
                          json_object_get (job, "environment"), "OMP_NUM_THREADS")),
                      "4");
    /* no --begin: no begin_time, Slurm starts it when it can */
    ck_assert_ptr_null (json_object_get (job, "begin_time"));
    json_decref (root);
    free (body);

    /* --begin: job_properties.begin_time as sbatch's --begin text,
     * relative to now (an hour ahead gives now+3600, give or take the
     * second the clock may tick meanwhile) */
    req.begin_time = (int64_t)time (NULL) + 3600;
    body = slurmrest_submit_body (V38, &req, time (NULL), &err);
    ck_assert_msg (body != NULL, "%s", err.text);
    root = json_loads (body, 0, &jerr);
    ck_assert_ptr_nonnull (root);
    job = json_object_get (root, "job");
    ck_assert (json_is_string (json_object_get (job, "begin_time")));
    {
        const char *bt = json_string_value (json_object_get (job, "begin_time"));
        long long ahead = 0;
        ck_assert_msg (sscanf (bt, "now+%lld", &ahead) == 1, "begin_time %s", bt);
        ck_assert_msg (ahead >= 3598 && ahead <= 3600, "begin_time %s", bt);
    }
    json_decref (root);
    free (body);
    /* a begin time already past: none (Slurm starts it when it can) */
    req.begin_time = (int64_t)time (NULL) - 60;
    body = slurmrest_submit_body (V38, &req, time (NULL), &err);
    ck_assert_msg (body != NULL, "%s", err.text);
    root = json_loads (body, 0, &jerr);
    ck_assert_ptr_nonnull (root);
    ck_assert_ptr_null (json_object_get (json_object_get (root, "job"), "begin_time"));
    json_decref (root);
    free (body);
    req.begin_time = 0;

    /* the environment Slurm requires is always there */
    req.environment = NULL;
    body = slurmrest_submit_body (V38, &req, time (NULL), &err);
    ck_assert_ptr_nonnull (strstr (body, "\"PATH\""));
    free (body);

    const char *badenv[] = { "=x", NULL };
    req.environment = badenv;
    ck_assert_ptr_null (slurmrest_submit_body (V38, &req, time (NULL), &err));
    ck_assert_ptr_nonnull (strstr (err.text, "environment: '=x' is not KEY=VALUE"));
    req.environment = NULL;
    req.script = "srun lu\n";
    ck_assert_ptr_null (slurmrest_submit_body (V38, &req, time (NULL), &err));
    ck_assert_str_eq (err.text, "script: must start with #!");
    req.script = "#!/bin/sh\n";
    req.cwd = "relative";
    ck_assert_ptr_null (slurmrest_submit_body (V38, &req, time (NULL), &err));
    ck_assert_ptr_nonnull (strstr (err.text, "current_working_directory"));
    req.cwd = "/tmp";
    req.script = "#!/bin/sh\n\xff\xfe\n";
    ck_assert_ptr_null (slurmrest_submit_body (V38, &req, time (NULL), &err));
    ck_assert_ptr_nonnull (strstr (err.text, "UTF-8"));
}
END_TEST

START_TEST (create_checks_options)
{
    ms_backend_t *b;
    ms_error_t err;
    slurmrest_opts_t o = { .cluster = "x", .url = "ftp://h", .token = "t" };
    ck_assert_int_eq (slurmrest_create (&o, &b, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "url must start with http://"));
    o.url = "http://127.0.0.1:1";
    o.token = "a\r\nX-Evil: 1";
    ck_assert_int_eq (slurmrest_create (&o, &b, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "no usable token"));
    /* nothing listens on port 1: connection refused, named */
    o.token = "t";
    ck_assert_int_eq (slurmrest_create (&o, &b, &err), 0);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_CONNECT);
    ck_assert_msg (strstr (err.text, "cluster x: negotiating the OpenAPI version: "
                                     "GET http://127.0.0.1:1/slurm/v0.0.46/ping"),
                   "%s", err.text);
    backend_destroy (b);
    /* a pinned version is used as it is; an unknown one is refused */
    o.api_version = "v0.0.40";
    ck_assert_int_eq (slurmrest_create (&o, &b, &err), 0);
    ck_assert_int_eq (backend_ping (b, &err), -1);
    ck_assert_msg (strstr (err.text, "cluster x: GET http://127.0.0.1:1/slurm/v0.0.40/ping"),
                   "%s", err.text);
    backend_destroy (b);
    o.api_version = "v0.0.37";
    ck_assert_int_eq (slurmrest_create (&o, &b, &err), -1);
    ck_assert_msg (strstr (err.text, "api_version 'v0.0.37' is not one of v0.0.38, "),
                   "%s", err.text);
    o.api_version = "0.0.45";
    ck_assert_int_eq (slurmrest_create (&o, &b, &err), 0);
    backend_destroy (b);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("slurmrest_parse");
    TCase *tc = tcase_create ("parse");
    tcase_add_test (tc, jobs_answer);
    tcase_add_test (tc, partitions_and_nodes);
    tcase_add_loop_test (tc, accounting_answers, 0,
                         (int)(sizeof (acct_recs) / sizeof (acct_recs[0])));
    tcase_add_loop_test (tc, association_max_wall, 0, 3);
    tcase_add_test (tc, accounting_bad_shape);
    tcase_add_loop_test (tc, accounted_jobs, 0,
                         (int)(sizeof (acct_recs) / sizeof (acct_recs[0])));
    tcase_add_test (tc, accounted_energy);
    tcase_add_test (tc, submit_answers);
    tcase_add_loop_test (tc, bad_answers, 0, (int)(sizeof (bad) / sizeof (bad[0])));
    tcase_add_test (tc, submit_body);
    tcase_add_test (tc, draft_version_bodies);
    tcase_add_test (tc, create_checks_options);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
