/* test_apireq.c - the API's job request parser: a good request, each bad
 * field named, size limits, unknown keys. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/api/apireq.h"
#include "tests/testutil.h"

static ms_apireq_t r;
static ms_error_t e;
static char field[80];

static int
parse (const char *body, const ms_apireq_limits_t *lim)
{
    memset (&e, 0, sizeof (e));
    return apireq_parse (body, strlen (body), lim, &r, field, sizeof (field),
                         &e);
}

/* body must be refused with status naming field */
static void
refused (const char *body, int status, const char *want_field)
{
    ck_assert_msg (parse (body, NULL) == -1, "accepted: %s", body);
    ck_assert_int_eq (e.http_status, status);
    ck_assert_str_eq (field, want_field);
    if (want_field[0])
        ck_assert_msg (strstr (e.text, want_field), "'%s' not in '%s'",
                       want_field, e.text);
    ck_assert_ptr_null (r.script);
}

START_TEST (test_good)
{
    const char *body
        = "{\"script\": \"#!/bin/sh\\nsrun md\\n\", \"name\": \"md-run\","
          " \"app\": \"lammps\", \"nodes\": 2, \"tasks\": 8,"
          " \"tasks_per_node\": 4, \"cpus_per_task\": 2,"
          " \"time_limit_min\": 60, \"exclusive\": true,"
          " \"cwd\": \"/home/alice/run1\", \"stdout\": \"out-%j.txt\","
          " \"stderr\": null, \"stdin\": null,"
          " \"environment\": [\"PATH=/usr/bin:/bin\", \"OMP_NUM_THREADS=4\"],"
          " \"partition\": null}";
    char *opts;

    ck_assert_msg (parse (body, NULL) == 0, "%s", e.text);
    ck_assert_str_eq (r.script, "#!/bin/sh\nsrun md\n");
    ck_assert_uint_eq (r.script_len, 18);
    ck_assert_str_eq (r.name, "md-run");
    ck_assert_str_eq (r.app, "lammps");
    ck_assert_int_eq (r.nodes, 2);
    ck_assert_int_eq (r.tasks, 8);
    ck_assert_int_eq (r.tasks_per_node, 4);
    ck_assert_int_eq (r.cpus_per_task, 2);
    ck_assert_uint_eq (r.time_limit_min, 60);
    ck_assert (r.exclusive);
    ck_assert_str_eq (r.cwd, "/home/alice/run1");
    ck_assert_str_eq (r.std_out, "out-%j.txt");
    ck_assert_ptr_null (r.std_err);
    ck_assert_uint_eq (r.nenvironment, 2);
    ck_assert_str_eq (r.environment[1], "OMP_NUM_THREADS=4");
    ck_assert_str_eq (r.partition, "");
    ck_assert_int_eq (r.begin_time, 0); /* not given */
    opts = apireq_options_json (&r);
    ck_assert_ptr_nonnull (strstr (opts, "\"begin_time\":null"));
    ck_assert_ptr_nonnull (strstr (opts, "\"OMP_NUM_THREADS=4\""));
    ck_assert_ptr_nonnull (strstr (opts, "\"cwd\":\"/home/alice/run1\""));
    ck_assert_ptr_null (strstr (opts, "srun md")); /* the script is apart */
    free (opts);
    apireq_free (&r);
}
END_TEST

START_TEST (test_defaults)
{
    ck_assert_msg (
        parse ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\"}", NULL) == 0,
        "%s", e.text);
    ck_assert_int_eq (r.nodes, 1);
    ck_assert_uint_eq (r.time_limit_min, 0);
    ck_assert_str_eq (r.name, "");
    ck_assert_uint_eq (r.nenvironment, 0);
    apireq_free (&r);
}
END_TEST

START_TEST (test_bad_fields)
{
#define S "\"script\":\"#!/bin/sh\\n\","
#define C "\"cwd\":\"/tmp\","
    refused ("{" C "\"nodes\":1}", 400, "script");
    refused ("{" S "\"nodes\":1}", 400, "cwd");
    refused ("{\"script\":\"echo hi\"," C "\"nodes\":1}", 400, "script");
    refused ("{\"script\":42," C "\"nodes\":1}", 400, "script");
    refused ("{\"script\":\"\"," C "\"nodes\":1}", 400, "script");
    refused ("{" S "\"cwd\":\"relative/dir\"}", 400, "cwd");
    refused ("{" S "\"cwd\":null}", 400, "cwd");
    refused ("{" S C "\"nodes\":0}", 400, "nodes");
    refused ("{" S C "\"nodes\":-3}", 400, "nodes");
    refused ("{" S C "\"nodes\":2.5}", 400, "nodes");
    refused ("{" S C "\"nodes\":\"2\"}", 400, "nodes");
    refused ("{" S C "\"nodes\":100001}", 400, "nodes");
    refused ("{" S C "\"tasks\":-1}", 400, "tasks");
    refused ("{" S C "\"nodes\":4,\"tasks\":2}", 400, "tasks");
    refused ("{" S C "\"nodes\":2,\"tasks\":9,\"tasks_per_node\":4}", 400,
             "tasks");
    refused ("{" S C "\"tasks_per_node\":true}", 400, "tasks_per_node");
    refused ("{" S C "\"cpus_per_task\":-1}", 400, "cpus_per_task");
    refused ("{" S C "\"time_limit_min\":0}", 400, "time_limit_min");
    refused ("{" S C "\"time_limit_min\":\"1:00\"}", 400, "time_limit_min");
    refused ("{" S C "\"begin_time\":-1}", 400, "begin_time");
    refused ("{" S C "\"begin_time\":1.5e9}", 400, "begin_time");
    refused ("{" S C "\"begin_time\":\"now+1hour\"}", 400, "begin_time");
    refused ("{" S C "\"begin_time\":true}", 400, "begin_time");
    refused ("{" S C "\"begin_time\":9223372036854775807}", 400, "begin_time");
    refused ("{" S C "\"exclusive\":1}", 400, "exclusive");
    refused ("{" S C "\"name\":\"a\\nb\"}", 400, "name");
    refused ("{" S C "\"app\":7}", 400, "app");
    refused ("{" S C "\"stdout\":\"a\\u0000b\"}", 400, "stdout");
    refused ("{" S C "\"stdin\":\"\"}", 400, "stdin");
    refused ("{" S C "\"environment\":\"A=1\"}", 400, "environment");
    refused ("{" S C "\"environment\":[\"A=1\",\"novalue\"]}", 400,
             "environment[1]");
    refused ("{" S C "\"environment\":[\"=x\"]}", 400, "environment[0]");
    refused ("{" S C "\"environment\":[\"1A=x\"]}", 400, "environment[0]");
    refused ("{" S C "\"environment\":[3]}", 400, "environment[0]");
    /* pinning is refused unless the admin allows it */
    refused ("{" S C "\"partition\":\"beta/compute\"}", 400, "partition");
#undef S
#undef C
}
END_TEST

START_TEST (test_begin_time)
{
    long long now = (long long)time (NULL);
    char body[256], *opts;

    /* a day ahead: stored, and kept in the options */
    snprintf (body, sizeof (body),
              "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
              "\"begin_time\":%lld}",
              now + 86400);
    ck_assert_msg (parse (body, NULL) == 0, "%s", e.text);
    ck_assert_int_eq (r.begin_time, now + 86400);
    opts = apireq_options_json (&r);
    snprintf (body, sizeof (body), "\"begin_time\":%lld", now + 86400);
    ck_assert_msg (strstr (opts, body), "'%s' not in %s", body, opts);
    free (opts);
    apireq_free (&r);
    /* in the past (Slurm starts it at once) and 730 days ahead: accepted */
    ck_assert_msg (parse ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
                          "\"begin_time\":1000000000}",
                          NULL)
                       == 0,
                   "%s", e.text);
    ck_assert_int_eq (r.begin_time, 1000000000);
    apireq_free (&r);
    snprintf (body, sizeof (body),
              "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
              "\"begin_time\":%lld}",
              now + 730 * 86400LL);
    ck_assert_msg (parse (body, NULL) == 0, "%s", e.text);
    apireq_free (&r);
    /* null: not given */
    ck_assert_msg (parse ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
                          "\"begin_time\":null}",
                          NULL)
                       == 0,
                   "%s", e.text);
    ck_assert_int_eq (r.begin_time, 0);
    apireq_free (&r);
    /* more than 731 days ahead */
    snprintf (body, sizeof (body),
              "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
              "\"begin_time\":%lld}",
              now + 732 * 86400LL);
    refused (body, 400, "begin_time");
    ck_assert_msg (strstr (e.text, "is out of range 0.."), "%s", e.text);
    ck_assert_msg (strstr (e.text, "at most 731 days from now"), "%s", e.text);
}
END_TEST

START_TEST (test_partition)
{
    ms_apireq_limits_t lim = { .max_script = 0, .allow_partition = true,
                               .partition_names = false };

    ck_assert_msg (parse ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
                          "\"partition\":\"beta/compute\"}",
                          &lim)
                       == 0,
                   "%s", e.text);
    ck_assert_str_eq (r.partition, "beta/compute");
    apireq_free (&r);
    ck_assert_int_eq (parse ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
                             "\"partition\":\"compute\"}",
                             &lim),
                      -1);
    ck_assert_str_eq (field, "partition");
    ck_assert_int_eq (parse ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
                             "\"partition\":\"beta/comp;rm\"}",
                             &lim),
                      -1);
    ck_assert_str_eq (field, "partition");
}
END_TEST


/* the other options of sbatch: checked by msbatch's parsers, kept in
 * jobs.options, a refusal names the field */
START_TEST (test_sbatch_options)
{
    char *opts;

    ck_assert_msg (parse ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\","
                          "\"account\":\"physics\",\"qos\":\"normal\","
                          "\"mem_per_cpu_mb\":2048,\"array\":\"1-10%2\","
                          "\"dependency\":\"afterok:7\",\"mail_type\":\"end\","
                          "\"requeue\":false,\"gpus_per_node\":\"a100:4\","
                          "\"comment\":\"mine\",\"nice\":-5,\"hold\":true}",
                          NULL)
                       == 0,
                   "%s", e.text);
    ck_assert_str_eq (r.sb.account, "physics");
    ck_assert_uint_eq (r.sb.mem_per_cpu_mb, 2048);
    ck_assert_uint_eq (r.sb.array_spec.ntasks, 10);
    ck_assert_uint_eq (r.sb.deps.d[0].job_id, 7);
    ck_assert_str_eq (r.sb.mail_type, "END");
    ck_assert_int_eq (r.sb.requeue, 0);
    ck_assert_uint_eq (r.sb.gpus_per_node.count, 4);
    opts = apireq_options_json (&r);
    ck_assert_ptr_nonnull (strstr (opts, "\"account\":\"physics\""));
    ck_assert_ptr_nonnull (strstr (opts, "\"array\":\"1-10%2\""));
    ck_assert_ptr_nonnull (strstr (opts, "\"requeue\":false"));
    ck_assert_ptr_nonnull (strstr (opts, "\"nice\":-5"));
    free (opts);
    apireq_free (&r);

    refused ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\",\"array\":\"10-1\"}",
             400, "array");
    ck_assert_ptr_nonnull (strstr (e.text, "ends before it starts"));
    refused ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\",\"mem_per_node_mb\":\"4G\"}",
             400, "mem_per_node_mb");
    refused ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\",\"account\":\"a b\"}",
             400, "account");
    refused ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\",\"mail_type\":\"SOON\"}",
             400, "mail_type");
    refused ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\",\"mem_per_node_mb\":1,"
             "\"mem_per_cpu_mb\":1}",
             400, "mem_per_cpu_mb");
}
END_TEST

START_TEST (test_unknown_key)
{
    refused ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/tmp\",\"partiton\":1}",
             400, "partiton");
    ck_assert_ptr_nonnull (strstr (e.text, "unknown key"));
}
END_TEST

START_TEST (test_malformed)
{
    refused ("{\"script\":", 400, "");
    ck_assert_ptr_nonnull (strstr (e.text, "malformed JSON"));
    refused ("[1,2]", 400, "");
    refused ("", 400, "");
    /* a key twice is malformed, not silently the last one */
    refused ("{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/a\",\"cwd\":\"/b\"}", 400,
             "");
}
END_TEST

START_TEST (test_limits)
{
    ms_apireq_limits_t lim = { .max_script = 64, .allow_partition = false,
                               .partition_names = false };
    size_t n = 300 * 1024, i;
    char *big = malloc (n + 100), *p;

    /* script over max_script: 413 naming script */
    ck_assert_int_eq (
        parse ("{\"script\":\"#!/bin/sh\\n"
               "0123456789012345678901234567890123456789012345678901234567890"
               "\",\"cwd\":\"/tmp\"}",
               &lim),
        -1);
    ck_assert_int_eq (e.http_status, 413);
    ck_assert_str_eq (field, "script");
    /* 257 environment entries */
    p = big
        + sprintf (big, "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/t\","
                        "\"environment\":[");
    for (i = 0; i < 257; i++)
        p += sprintf (p, "%s\"V%zu=1\"", i ? "," : "", i);
    strcpy (p, "]}");
    refused (big, 413, "environment");
    /* an entry over 4 KiB */
    p = big
        + sprintf (big, "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/t\","
                        "\"environment\":[\"A=");
    memset (p, 'x', 4100);
    strcpy (p + 4100, "\"]}");
    refused (big, 413, "environment[0]");
    /* a name over 128 bytes */
    p = big
        + sprintf (big, "{\"script\":\"#!/bin/sh\\n\",\"cwd\":\"/t\","
                        "\"name\":\"");
    memset (p, 'n', 129);
    strcpy (p + 129, "\"}");
    refused (big, 400, "name");
    free (big);
    /* a body over 2 MiB is refused before parsing */
    big = malloc (APIREQ_BODY_MAX + 2);
    memset (big, ' ', APIREQ_BODY_MAX + 1);
    big[APIREQ_BODY_MAX + 1] = '\0';
    ck_assert_int_eq (parse (big, NULL), -1);
    ck_assert_int_eq (e.http_status, 413);
    free (big);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("apireq");
    TCase *tc = tcase_create ("parse");

    tcase_add_test (tc, test_good);
    tcase_add_test (tc, test_defaults);
    tcase_add_test (tc, test_bad_fields);
    tcase_add_test (tc, test_begin_time);
    tcase_add_test (tc, test_partition);
    tcase_add_test (tc, test_unknown_key);
    tcase_add_test (tc, test_malformed);
    tcase_add_test (tc, test_limits);
    tcase_add_test (tc, test_sbatch_options);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
