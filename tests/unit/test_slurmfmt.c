/* test_slurmfmt.c - a meta job in squeue's terms (metasched/cli/slurmfmt.c):
 * Slurm's state names, squeue's -o/--format and the shape of squeue --json.
 * Each case names the Slurm function whose behaviour it checks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/cli/slurmfmt.h"
#include "tests/testutil.h"

/* A job as GET /v1/jobs/ID answers (doc/api.md). */
static json_t *
job (const char *state, const char *last_error)
{
    json_t *j = json_pack (
        "{s:i,s:s,s:i,s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:o,s:o,s:o,s:o,"
        "s:o,s:o}",
        "id", 42, "owner", "alice", "uid", 1001, "gid", 1001, "name",
        "align-sample7", "state", state, "cluster", "beta", "partition",
        "compute", "nodes", 2, "time_limit_min", 90, "submitted_at",
        "2026-11-28T09:00:00Z", "started_at", "2026-11-28T09:01:00Z",
        "finished_at",
        strcmp (state, "completed") && strcmp (state, "failed")
            ? json_null ()
            : json_string ("2026-11-28T10:02:03Z"),
        "last_error", last_error ? json_string (last_error) : json_null (),
        "held", json_null (), "exit_code",
        strcmp (state, "failed") ? json_integer (0) : json_integer (3), "array",
        json_null (), "dependency", json_null ());
    return j;
}

/* job_state_string and job_state_string_compact
 * (src/common/slurm_protocol_defs.c) name the states squeue prints. */
static const struct {
    const char *meta, *last_error, *slurm, *compact;
} states[] = {
    { "queued", NULL, "PENDING", "PD" },
    { "deciding", NULL, "PENDING", "PD" },
    { "dispatching", NULL, "PENDING", "PD" },
    { "submitted", NULL, "PENDING", "PD" },
    { "running", NULL, "RUNNING", "R" },
    { "completed", NULL, "COMPLETED", "CD" },
    { "failed", "FAILED on beta: NonZeroExitCode", "FAILED", "F" },
    { "failed", "TIMEOUT on beta: TimeLimit", "TIMEOUT", "TO" },
    { "failed", "OUT_OF_MEMORY on alpha: OutOfMemory", "OUT_OF_MEMORY", "OOM" },
    { "failed", "NODE_FAIL on gamma: NodeDown", "NODE_FAIL", "NF" },
    { "failed", "dependency never satisfied", "FAILED", "F" },
    { "cancelled", NULL, "CANCELLED", "CA" },
    { "lost", NULL, "FAILED", "F" },
};

START_TEST (state_names)
{
    json_t *j = job (states[_i].meta, states[_i].last_error);
    const char *s = slurmfmt_state (j);

    ck_assert_str_eq (s, states[_i].slurm);
    ck_assert_str_eq (slurmfmt_state_compact (s), states[_i].compact);
    json_decref (j);
}
END_TEST

/* squeue's -t (_parse_state in src/squeue/opts.c: long or compact names,
 * any case, "all"), plus metasched's own state names. */
START_TEST (state_selection)
{
    slurmfmt_states_t st;
    ms_error_t err;
    char q[256];
    json_t *pd = job ("submitted", NULL),
           *to = job ("failed", "TIMEOUT on b: x"),
           *f = job ("failed", "FAILED on b: x"), *cd = job ("completed", NULL);

    ck_assert_int_eq (slurmfmt_states_parse ("pd,R", &st, &err), 0);
    ck_assert (slurmfmt_states_match (&st, pd));
    ck_assert (!slurmfmt_states_match (&st, cd));
    slurmfmt_states_query (&st, q, sizeof (q));
    ck_assert_str_eq (q, "queued,deciding,dispatching,submitted,running");

    ck_assert_int_eq (slurmfmt_states_parse ("TIMEOUT", &st, &err), 0);
    ck_assert (slurmfmt_states_match (&st, to));
    ck_assert (!slurmfmt_states_match (&st, f));
    slurmfmt_states_query (&st, q, sizeof (q));
    ck_assert_str_eq (q, "failed");

    ck_assert_int_eq (slurmfmt_states_parse ("completed,CA", &st, &err), 0);
    ck_assert (slurmfmt_states_match (&st, cd));
    slurmfmt_states_query (&st, q, sizeof (q));
    ck_assert_str_eq (q, "completed,cancelled");

    /* a state no meta job is ever in: valid, matches nothing */
    ck_assert_int_eq (slurmfmt_states_parse ("SUSPENDED", &st, &err), 0);
    ck_assert (!slurmfmt_states_match (&st, pd));
    ck_assert (!slurmfmt_states_match (&st, cd));

    ck_assert_int_eq (slurmfmt_states_parse ("all", &st, &err), 0);
    ck_assert (slurmfmt_states_match (&st, cd));
    slurmfmt_states_query (&st, q, sizeof (q));
    ck_assert_str_eq (q, "");

    ck_assert_int_eq (slurmfmt_states_parse ("R,WAITING", &st, &err), -1);
    ck_assert_msg (strstr (err.text, "--states: 'WAITING' is not a job state")
                       == err.text,
                   "%s", err.text);
    ck_assert_int_eq (slurmfmt_states_parse ("", &st, &err), -1);
    json_decref (pd);
    json_decref (to);
    json_decref (f);
    json_decref (cd);
}
END_TEST

static char *
render (const char *format, const json_t *j, bool header)
{
    slurmfmt_t *f;
    ms_error_t err;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);

    ck_assert_msg (slurmfmt_parse (format, &f, &err) == 0, "%s", err.text);
    if (header)
        slurmfmt_header (f, out);
    else
        slurmfmt_row (f, j, 1795860000 /* 2026-11-28T10:00:00Z */, out);
    fclose (out);
    slurmfmt_free (f);
    return buf;
}

/* squeue's -o: _parse_token (src/squeue/opts.c) reads %[.][WIDTH]FIELD;
 * _print_str (src/squeue/print.c) pads to the width, on the left with
 * '.', and cuts a longer value; text around the fields is kept. */
static const struct {
    const char *format, *state, *want;
} formats[] = {
    { "%i", "running", "42\n" },
    { "%i %T", "running", "42 RUNNING\n" },
    { "%.18i %t", "submitted", "                42 PD\n" },
    { "%10j|%u", "running", "align-samp|alice\n" },
    { "%5i|", "running", "42   |\n" },
    { "id=%i,%T", "completed", "id=42,COMPLETED\n" },
    { "%T %t", "cancelled", "CANCELLED CA\n" },
    { "%D %P %l", "running", "2 compute 1:30:00\n" },
    /* 09:01:00 to 10:00:00, the fixed "now" of render () */
    { "%M", "running", "59:00\n" },
    { "%M %L", "completed", "1:01:03 28:57\n" },
    { "%R", "queued", "(None)\n" },
    { "%R", "submitted", "(Priority)\n" },
    { "%r", "running", "None\n" },
    { "%F %K", "running", "42 N/A\n" },
    { "%U %G %E", "running", "1001 1001 (null)\n" },
};

START_TEST (format_fields)
{
    json_t *j = job (formats[_i].state, NULL);
    char *got;

    setenv ("TZ", "UTC", 1);
    tzset ();
    got = render (formats[_i].format, j, false);
    ck_assert_msg (!strcmp (got, formats[_i].want), "'%s' gave '%s'",
                   formats[_i].format, got);
    free (got);
    json_decref (j);
}
END_TEST

START_TEST (format_header_and_times)
{
    json_t *j = job ("completed", NULL);
    char *got;

    setenv ("TZ", "UTC", 1);
    tzset ();
    /* the headers of squeue's job_format_add_* (src/squeue/print.h) */
    got = render ("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R", NULL, true);
    ck_assert_str_eq (got, "             JOBID PARTITION     NAME     USER ST "
                           "      TIME  NODES NODELIST(REASON)\n");
    free (got);
    /* slurm_make_time_str (src/common/parse_time.c): ISO, local time */
    got = render ("%V %S %e", j, false);
    ck_assert_str_eq (got, "2026-11-28T09:00:00 2026-11-28T09:01:00 "
                           "2026-11-28T10:02:03\n");
    free (got);
    json_decref (j);
}
END_TEST

START_TEST (format_errors)
{
    slurmfmt_t *f;
    ms_error_t err;

    ck_assert_int_eq (slurmfmt_parse ("%i %z", &f, &err), -1);
    ck_assert_msg (strstr (err.text, "--format=%i %z: %z: not a field"), "%s",
                   err.text);
    /* no '-' flag: _parse_token takes it for the field */
    ck_assert_int_eq (slurmfmt_parse ("%-5i", &f, &err), -1);
    ck_assert_msg (strstr (err.text, "%-: not a field"), "%s", err.text);
    ck_assert_int_eq (slurmfmt_parse ("%i %", &f, &err), -1);
    ck_assert_msg (strstr (err.text, "a '%' ends the format"), "%s", err.text);
    ck_assert_int_eq (slurmfmt_parse ("JOBID", &f, &err), -1);
    ck_assert_msg (strstr (err.text, "expected fields"), "%s", err.text);
}
END_TEST

/* squeue --json: the job_info of data_parser v0.0.40 and later
 * (PARSER_ARRAY(JOB_INFO) in src/plugins/data_parser/v0.0.4x/parsers.c):
 * job_state a list, times and counts as {set, infinite, number},
 * exit_code as {status, return_code, signal}. */
START_TEST (json_shape)
{
    json_t *jobs = json_array (), *o, *j0;

    json_array_append_new (jobs, job ("failed", "FAILED on beta: x"));
    json_array_append_new (jobs, job ("submitted", NULL));
    o = slurmfmt_json (jobs, 1795860000);
    ck_assert_uint_eq (json_array_size (json_object_get (o, "jobs")), 2);
    ck_assert (json_is_array (json_object_get (o, "errors")));
    ck_assert (json_is_array (json_object_get (o, "warnings")));
    ck_assert_str_eq (
        json_string_value (json_object_get (
            json_object_get (json_object_get (o, "meta"), "plugin"),
            "data_parser")),
        "data_parser/v0.0.40");
    j0 = json_array_get (json_object_get (o, "jobs"), 0);
    ck_assert_int_eq (json_integer_value (json_object_get (j0, "job_id")), 42);
    ck_assert_str_eq (json_string_value (json_array_get (
                          json_object_get (j0, "job_state"), 0)),
                      "FAILED");
    ck_assert_str_eq (json_string_value (json_object_get (j0, "user_name")),
                      "alice");
    ck_assert_str_eq (json_string_value (json_object_get (j0, "partition")),
                      "compute");
    ck_assert (json_is_true (
        json_object_get (json_object_get (j0, "time_limit"), "set")));
    ck_assert_int_eq (json_integer_value (json_object_get (
                          json_object_get (j0, "time_limit"), "number")),
                      90);
    ck_assert_int_eq (json_integer_value (json_object_get (
                          json_object_get (j0, "end_time"), "number")),
                      1795860123);
    ck_assert_str_eq (
        json_string_value (json_array_get (
            json_object_get (json_object_get (j0, "exit_code"), "status"), 0)),
        "ERROR");
    ck_assert_int_eq (
        json_integer_value (json_object_get (
            json_object_get (json_object_get (j0, "exit_code"), "return_code"),
            "number")),
        3);
    /* the API's own fields beside */
    ck_assert_str_eq (json_string_value (json_object_get (
                          json_object_get (j0, "metasched"), "state")),
                      "failed");
    j0 = json_array_get (json_object_get (o, "jobs"), 1);
    ck_assert_str_eq (json_string_value (json_array_get (
                          json_object_get (j0, "job_state"), 0)),
                      "PENDING");
    ck_assert (json_is_false (
        json_object_get (json_object_get (j0, "end_time"), "set")));
    json_decref (o);
    json_decref (jobs);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("slurmfmt");
    TCase *tc = tcase_create ("squeue");

    tcase_add_loop_test (tc, state_names, 0,
                         (int)(sizeof (states) / sizeof (states[0])));
    tcase_add_test (tc, state_selection);
    tcase_add_loop_test (tc, format_fields, 0,
                         (int)(sizeof (formats) / sizeof (formats[0])));
    tcase_add_test (tc, format_header_and_times);
    tcase_add_test (tc, format_errors);
    tcase_add_test (tc, json_shape);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
