/* test_acct_parse.c - job records of slurmrestd's accounting endpoints
 * (GET /slurmdb/VERSION/jobs and /job/ID), as the daemon reads them for a
 * job its controller forgot: every captured version, the shapes a record
 * may take, and errors that name the field. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "tests/testutil.h"

static const struct {
    const char *release, *version;
} recs[] = {
    { "22.05.8", "v0.0.38" }, { "24.11.7", "v0.0.40" },
    { "24.11.7", "v0.0.41" }, { "24.11.7", "v0.0.42" },
    { "25.11.7", "v0.0.41" }, { "25.11.7", "v0.0.42" },
    { "25.11.7", "v0.0.43" }, { "25.11.7", "v0.0.44" },
    { "26.05.3", "v0.0.42" }, { "26.05.3", "v0.0.43" },
    { "26.05.3", "v0.0.44" }, { "26.05.3", "v0.0.45" },
    { "26.11.0", "v0.0.43" }, { "26.11.0", "v0.0.44" },
    { "26.11.0", "v0.0.45" }, { "26.11.0", "v0.0.46" },
};

#define V38 slurmrest_api_find ("v0.0.38")

/* every capture: two jobs of beta's, the first msuser's, completed */
START_TEST (captured_records)
{
    char path[4096], *body;
    size_t len, n;
    ms_acct_job_t *js;
    ms_error_t err;

    snprintf (path, sizeof (path),
              "%s/tests/data/slurmrest/slurmdb/%s-%s-jobs.json", test_srcdir (),
              recs[_i].release, recs[_i].version);
    ck_assert_msg (ms_read_file (path, 1 << 24, &body, &len, &err) == 0, "%s",
                   err.text);
    ck_assert_msg (
        slurmrest_parse_db_jobs (slurmrest_api_find (recs[_i].version), body,
                                 len, 200, &js, &n, &err)
            == 0,
        "%s %s: %s", recs[_i].release, recs[_i].version, err.text);
    ck_assert_uint_eq (n, 2);
    ck_assert_uint_gt (js[0].id, 0);
    ck_assert_uint_gt (js[1].id, js[0].id);
    ck_assert_str_eq (js[0].user, "msuser");
    ck_assert_str_eq (js[0].cluster, "beta");
    ck_assert_str_eq (js[0].partition, "compute");
    ck_assert_int_eq (js[0].state, MS_JOB_COMPLETED);
    ck_assert_str_eq (js[0].state_name, "COMPLETED");
    ck_assert_int_eq (js[0].exit_code, 0);
    ck_assert_str_eq (js[0].comment, ""); /* null or "": none kept */
    ck_assert_int_gt ((long)js[0].end_time, 0);
    ck_assert_int_ge ((long)js[0].end_time, (long)js[0].start_time);
    ck_assert_int_gt ((long)js[0].submit_time, 0);
    ck_assert_uint_eq (js[0].array_job_id, 0);
    ck_assert (ms_job_state_final (js[1].state));
    free (js);
    free (body);
}
END_TEST

/* a copy's record: its tag in comment/job, a failure's exit code, a
 * signal's (v0.0.38's signal_id, later versions' signal/id) */
START_TEST (record_shapes)
{
    static const char v38[]
        = "{\"jobs\": [{\"job_id\": 41, \"user\": \"msuser\", \"cluster\": "
          "\"beta\", \"partition\": \"compute\", \"comment\": {\"job\": "
          "\"metasched:7:1.0:0123456789abcdef0123456789abcdef\", "
          "\"administrator\": null, \"system\": null}, \"state\": "
          "{\"current\": \"FAILED\", \"reason\": \"NonZeroExitCode\"}, "
          "\"exit_code\": {\"status\": \"FAILED\", \"return_code\": 3}, "
          "\"time\": {\"submission\": 1795484707, \"start\": 1795484709, "
          "\"end\": 1795484719}},"
          " {\"job_id\": 42, \"user\": \"msuser\", \"comment\": {\"job\": "
          "null}, \"state\": {\"current\": \"CANCELLED\"}, \"exit_code\": "
          "{\"status\": \"SIGNALED\", \"signal\": {\"signal_id\": 9, "
          "\"name\": \"KILL\"}, \"return_code\": 0}}]}";
    static const char v46[]
        = "{\"jobs\": [{\"job_id\": 43, \"user\": \"\", \"association\": "
          "{\"user\": \"msuser2\"}, \"comment\": {\"job\": \"x\"}, \"state\": "
          "{\"current\": [\"TIMEOUT\"], \"reason\": \"None\"}, \"exit_code\": "
          "{\"status\": [\"SIGNALED\"], \"return_code\": {\"set\": true, "
          "\"number\": 0}, \"signal\": {\"id\": {\"set\": true, \"number\": "
          "15}, \"name\": \"TERM\"}}, \"array\": {\"job_id\": 40, "
          "\"task_id\": {\"set\": true, \"number\": 3}}}], \"errors\": []}";
    ms_acct_job_t *js;
    size_t n;
    ms_error_t err;

    ck_assert_msg (
        slurmrest_parse_db_jobs (V38, v38, strlen (v38), 200, &js, &n, &err)
            == 0,
        "%s", err.text);
    ck_assert_uint_eq (n, 2);
    ck_assert_uint_eq (js[0].id, 41);
    ck_assert_str_eq (js[0].comment,
                      "metasched:7:1.0:0123456789abcdef0123456789abcdef");
    ck_assert_int_eq (js[0].state, MS_JOB_FAILED);
    ck_assert_str_eq (js[0].state_reason, "NonZeroExitCode");
    ck_assert_int_eq (js[0].exit_code, 3);
    ck_assert_int_eq ((long)js[0].end_time, 1795484719L);
    ck_assert_int_eq (js[1].state, MS_JOB_CANCELLED);
    ck_assert_int_eq (js[1].exit_code, 128 + 9);
    ck_assert_str_eq (js[1].comment, "");
    free (js);
    ck_assert_msg (slurmrest_parse_db_jobs (slurmrest_api_find ("v0.0.46"), v46,
                                            strlen (v46), 200, &js, &n, &err)
                       == 0,
                   "%s", err.text);
    ck_assert_uint_eq (n, 1);
    ck_assert_str_eq (js[0].user, "msuser2"); /* the association's */
    ck_assert_int_eq (js[0].state, MS_JOB_TIMEOUT);
    ck_assert_int_eq (js[0].exit_code, 128 + 15);
    ck_assert_uint_eq (js[0].array_job_id, 40);
    ck_assert_int_eq (js[0].array_task_id, 3);
    free (js);
}
END_TEST

/* what a broken or hostile server may send: an error naming the place */
static const struct {
    const char *body;
    long status;
    const char *want;
} bad[] = {
    { "{\"jobs\": [{\"job_id\": \"x\", \"state\": {\"current\": "
      "\"COMPLETED\"}}]}",
      200, "jobs[0].job_id" },
    { "{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": 5}}]}", 200,
      "jobs[0].state/current" },
    { "{\"jobs\": [{\"job_id\": 1, \"user\": 7, \"state\": {\"current\": "
      "\"COMPLETED\"}}]}",
      200, "jobs[0].user" },
    { "{\"jobs\": [{\"job_id\": 1}]}", 200, "jobs[0].state/current" },
    { "{\"jobs\": [{\"job_id\": 1, \"state\": {\"current\": \"COMPLETED\"}, "
      "\"comment\": {\"job\": []}}]}",
      200, "jobs[0].comment/job" },
    { "{\"jobs\": 3}", 200, "no \"jobs\" array" },
    { "[1]", 200, "not an object" },
    { "{\"jobs\": [], \"errors\": [{\"error\": \"Unable to connect to "
      "database\", \"error_number\": 7000}]}",
      500, "Unable to connect to database" },
    { "", 404, "HTTP 404" },
    { "{\"jobs\": [", 200, "malformed JSON" },
};

START_TEST (bad_records)
{
    ms_acct_job_t *js = NULL;
    size_t n;
    ms_error_t err;

    ck_assert_int_eq (slurmrest_parse_db_jobs (V38, bad[_i].body,
                                               strlen (bad[_i].body),
                                               bad[_i].status, &js, &n, &err),
                      -1);
    ck_assert_msg (strstr (err.text, bad[_i].want), "%zu: '%s' lacks '%s'",
                   (size_t)_i, err.text, bad[_i].want);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("acct_parse");
    TCase *tc = tcase_create ("parse");

    tcase_add_loop_test (tc, captured_records, 0,
                         (int)(sizeof (recs) / sizeof (recs[0])));
    tcase_add_test (tc, record_shapes);
    tcase_add_loop_test (tc, bad_records, 0,
                         (int)(sizeof (bad) / sizeof (bad[0])));
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
