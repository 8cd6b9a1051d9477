/* test_slurmrest_sbatch.c - the user's sbatch options in the submissions of
 * every OpenAPI version: v0.0.38 takes sbatch's text under its own names,
 * v0.0.39 on typed fields; the names and shapes are those the real
 * slurmrestd of each release took (doc/slurmrest.md "Carried options"). With
 * MS_DUMP_BODIES=DIR set, the bodies are written there (VERSION.json), to
 * submit them by hand to a real slurmrestd. */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "tests/testutil.h"

static const char script[]
    = "#!/bin/sh\n"
      "#SBATCH --account=physics --qos=normal --mem=1500M\n"
      "#SBATCH -C 'fast&big' --mail-type=END,FAIL,TIME_LIMIT_80\n"
      "#SBATCH --mail-user=user@example.org --signal=USR1@300\n"
      "#SBATCH --no-requeue --open-mode=append -L lic:1 --wckey=wk\n"
      "#SBATCH --comment='user words' --hold --deadline=now+2hours\n"
      "#SBATCH --nice=7 --get-user-env --hint=nomultithread\n"
      "#SBATCH -m cyclic --nodelist=m1 --exclude=m9 --time-min=5\n"
      "#SBATCH --tmp=100 --mincpus=2 --exclusive=user\n"
      "true\n";

static json_t *
build (const char *version, ms_jobspec_t *s, char **textp)
{
    const slurmrest_api_t *api = slurmrest_api_find (version);
    const char *envv[] = { "PATH=/bin", NULL };
    ms_job_request_t req;
    ms_error_t err;
    json_t *root;
    char *body;

    memset (&req, 0, sizeof (req));
    req.user = "u";
    req.name = "carried";
    req.partition = "batch";
    req.cwd = "/tmp";
    req.script = "#!/bin/sh\ntrue\n";
    req.environment = envv;
    req.comment = "metasched:42";
    req.sbatch = s;
    body = slurmrest_submit_body (api, &req, time (NULL), &err);
    ck_assert_msg (body != NULL, "%s: %s", version, err.text);
    root = json_loads (body, 0, NULL);
    ck_assert_ptr_nonnull (root);
    if (textp)
        *textp = body;
    else
        free (body);
    return root;
}

static void
parse (ms_jobspec_t *s, const char *text)
{
    ms_error_t err;

    jobspec_init (s);
    ck_assert_msg (jobspec_parse_script (s, text, strlen (text), "t.sh", &err)
                       == 0,
                   "%s", err.text);
}

static const char *
jstr (json_t *o, const char *k)
{
    return json_string_value (json_object_get (o, k));
}

START_TEST (v38_text)
{
    ms_jobspec_t s;
    json_t *root, *job;
    const char *dump = getenv ("MS_DUMP_BODIES");
    char *text;

    parse (&s, script);
    root = build ("v0.0.38", &s, &text);
    if (dump) {
        char path[4096];
        FILE *f;
        snprintf (path, sizeof (path), "%s/v0.0.38.json", dump);
        f = fopen (path, "w");
        ck_assert_ptr_nonnull (f);
        fputs (text, f);
        fclose (f);
    }
    free (text);
    job = json_object_get (root, "job");
    ck_assert_str_eq (jstr (job, "account"), "physics");
    ck_assert_str_eq (jstr (job, "qos"), "normal");
    ck_assert_int_eq (json_integer_value (json_object_get (job, "memory_per_node")), 1500);
    ck_assert_str_eq (jstr (job, "constraints"), "fast&big");
    ck_assert_str_eq (jstr (job, "mail_type"), "END,FAIL,TIME_LIMIT_80");
    ck_assert_str_eq (jstr (job, "signal"), "10@300");
    ck_assert (json_is_true (json_object_get (job, "no_requeue")));
    ck_assert_str_eq (jstr (job, "open_mode"), "append");
    ck_assert_str_eq (jstr (job, "comment"), "metasched:42 user words");
    ck_assert (json_is_true (json_object_get (job, "hold")));
    ck_assert_str_eq (jstr (job, "cpu_binding_hint"), "nomultithread");
    /* 22.05 records nothing of the word: the count sbatch makes of it */
    ck_assert_int_eq (json_integer_value (json_object_get (job, "threads_per_core")), 1);
    ck_assert_ptr_null (json_object_get (job, "cores_per_socket"));
    ck_assert_str_eq (jstr (job, "nodelist"), "m1");
    ck_assert_str_eq (jstr (job, "exclude_nodes"), "m9");
    ck_assert_str_eq (jstr (job, "exclusive"), "user");
    ck_assert_int_eq (json_integer_value (json_object_get (job, "nice")), 7);
    ck_assert (!strncmp (jstr (job, "deadline"), "now+", 4));
    /* the mark of --get-user-env in the environment */
    ck_assert_str_eq (jstr (json_object_get (job, "environment"),
                            "SLURM_GET_USER_ENV"),
                      "1");
    json_decref (root);
    jobspec_free (&s);
}
END_TEST

START_TEST (typed_versions)
{
    ms_jobspec_t s;
    const char *dump = getenv ("MS_DUMP_BODIES");

    parse (&s, script);
    for (size_t i = 1; i < slurmrest_api_count (); i++) {
        const char *v = slurmrest_api_name (slurmrest_api_at (i));
        char *text;
        json_t *root, *job;
        /* a draft version (23.02's v0.0.39) cannot carry the script's
         * --nice (test_slurmrest_parse): the rest without it */
        s.nice_set = !slurmrest_api_draft (slurmrest_api_at (i));
        root = build (v, &s, &text);
        job = json_object_get (root, "job");
        json_t *mem = json_object_get (job, "memory_per_node");

        ck_assert_str_eq (jstr (job, "account"), "physics");
        ck_assert_int_eq (json_integer_value (json_object_get (mem, "number")),
                          1500);
        ck_assert (json_is_true (json_object_get (mem, "set")));
        ck_assert_str_eq (jstr (job, "constraints"), "fast&big");
        ck_assert_uint_eq (json_array_size (json_object_get (job, "mail_type")), 3);
        ck_assert_str_eq (json_string_value (json_array_get (
                              json_object_get (job, "mail_type"), 2)),
                          "TIME=80%");
        ck_assert_str_eq (jstr (job, "kill_warning_signal"), "10");
        ck_assert_int_eq (json_integer_value (json_object_get (
                              json_object_get (job, "kill_warning_delay"),
                              "number")),
                          300);
        ck_assert (json_is_false (json_object_get (job, "requeue")));
        ck_assert_str_eq (json_string_value (json_array_get (
                              json_object_get (job, "open_mode"), 0)),
                          "APPEND");
        ck_assert_str_eq (jstr (job, "comment"), "metasched:42 user words");
        ck_assert (json_is_integer (json_object_get (job, "deadline")));
        ck_assert_str_eq (json_string_value (json_array_get (
                              json_object_get (job, "required_nodes"), 0)),
                          "m1");
        ck_assert_str_eq (json_string_value (json_array_get (
                              json_object_get (job, "shared"), 0)),
                          "user");
        ck_assert_int_eq (json_integer_value (json_object_get (job, "threads_per_core")), 1);
        ck_assert (json_is_array (json_object_get (job, "environment")));
        if (dump) {
            char path[4096];
            FILE *f;
            snprintf (path, sizeof (path), "%s/%s.json", dump, v);
            f = fopen (path, "w");
            ck_assert_ptr_nonnull (f);
            fputs (text, f);
            fclose (f);
        }
        free (text);
        json_decref (root);
    }
    jobspec_free (&s);
}
END_TEST

START_TEST (gpus_as_tres)
{
    ms_jobspec_t s;
    json_t *root, *job;

    parse (&s, "#!/bin/sh\n#SBATCH --gres=gpu:a100:2,nvme:1 -G 4 "
               "--gpus-per-task=1 --cpus-per-gpu=6 --mem-per-gpu=10G\n");
    root = build ("v0.0.42", &s, NULL);
    job = json_object_get (root, "job");
    ck_assert_str_eq (jstr (job, "tres_per_node"), "gres/gpu:a100:2,gres/nvme:1");
    ck_assert_str_eq (jstr (job, "tres_per_job"), "gres/gpu:4");
    ck_assert_str_eq (jstr (job, "tres_per_task"), "gres/gpu:1");
    ck_assert_str_eq (jstr (job, "cpus_per_tres"), "gres/gpu:6");
    ck_assert_str_eq (jstr (job, "memory_per_tres"), "gres/gpu:10240");
    json_decref (root);
    root = build ("v0.0.38", &s, NULL);
    job = json_object_get (root, "job");
    ck_assert_str_eq (jstr (job, "gres"), "gpu:a100:2,nvme:1");
    ck_assert_str_eq (jstr (job, "gpus"), "4");
    ck_assert_str_eq (jstr (job, "memory_per_gpu"), "10240");
    json_decref (root);
    jobspec_free (&s);
}
END_TEST

/* v0.0.38 takes --hint's word but records nothing of it: the counts that
 * sbatch makes of each word go with it (proc_args.c verify_hint) */
START_TEST (v38_hint_counts)
{
    static const struct {
        const char *hint;
        int threads, cores; /* 0: not in the body */
    } cases[] = {
        { "nomultithread", 1, 0 },
        { "compute_bound", 1, 0 },
        { "memory_bound", 1, 1 },
        { "multithread", 0, 0 },
        { "Compute_Bound,nomultithread", 1, 0 },
    };

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char text[128];
        ms_jobspec_t s;
        json_t *root, *job, *t, *c;

        snprintf (text, sizeof (text), "#!/bin/sh\n#SBATCH --hint=%s\n",
                  cases[i].hint);
        parse (&s, text);
        root = build ("v0.0.38", &s, NULL);
        job = json_object_get (root, "job");
        t = json_object_get (job, "threads_per_core");
        c = json_object_get (job, "cores_per_socket");
        ck_assert_str_eq (jstr (job, "cpu_binding_hint"), cases[i].hint);
        ck_assert_msg (cases[i].threads ? json_integer_value (t) == cases[i].threads
                                        : t == NULL,
                       "%s: threads_per_core", cases[i].hint);
        ck_assert_msg (cases[i].cores ? json_integer_value (c) == cases[i].cores
                                      : c == NULL,
                       "%s: cores_per_socket", cases[i].hint);
        json_decref (root);
        jobspec_free (&s);
    }
}
END_TEST

START_TEST (not_carried_named)
{
    ms_jobspec_t s;
    const char *envv[] = { "PATH=/bin", NULL };
    ms_job_request_t req;
    ms_error_t err;

    parse (&s, "#!/bin/sh\n#SBATCH --signal=B:USR1@60\n");
    memset (&req, 0, sizeof (req));
    req.partition = "batch";
    req.cwd = "/tmp";
    req.script = "#!/bin/sh\n";
    req.environment = envv;
    req.sbatch = &s;
    ck_assert_ptr_null (slurmrest_submit_body (slurmrest_api_find ("v0.0.38"),
                                               &req, time (NULL), &err));
    ck_assert_str_eq (err.text, "--signal=B:USR1@60: slurmrestd v0.0.38 "
                                "cannot carry the B: flag");
    jobspec_free (&s);
    parse (&s, "#!/bin/sh\n#SBATCH --contiguous\n");
    memset (&req, 0, sizeof (req));
    req.partition = "batch";
    req.cwd = "/tmp";
    req.script = "#!/bin/sh\n";
    req.environment = envv;
    req.sbatch = &s;
    ck_assert_ptr_null (slurmrest_submit_body (slurmrest_api_find ("v0.0.38"),
                                               &req, time (NULL), &err));
    ck_assert_str_eq (err.text,
                      "--contiguous: slurmrestd v0.0.38 cannot carry this "
                      "option");
    jobspec_free (&s);
}
END_TEST

/* The options of later Slurm releases: carried from the version whose
 * job description has the field (Slurm's data_parser parsers.c), a hint
 * left out before it, another option a failed submission naming it. */
START_TEST (later_releases)
{
    ms_jobspec_t s;
    json_t *root, *job, *flags;
    const char *envv[] = { "PATH=/bin", NULL };
    ms_job_request_t req;
    ms_error_t err;
    char *text;

    parse (&s, "#!/bin/sh\n#SBATCH --oom-kill-step --segment=2 --stepmgr\n"
               "#SBATCH --extra=rack=a --container-id=c1 --spread-segments\n");
    root = build ("v0.0.42", &s, NULL);
    job = json_object_get (root, "job");
    ck_assert_int_eq (json_integer_value (json_object_get (job,
                                                           "oom_kill_step")),
                      1);
    ck_assert_str_eq (json_string_value (json_object_get (job, "extra")),
                      "rack=a");
    ck_assert_str_eq (
        json_string_value (json_object_get (job, "container_id")), "c1");
    ck_assert_ptr_nonnull (json_object_get (job, "segment_size"));
    flags = json_object_get (job, "flags");
    text = json_dumps (flags, JSON_COMPACT);
    ck_assert_msg (text && strstr (text, "\"STEPMGR_ENABLED\""), "%s", text);
    /* SPREAD_SEGMENTS: v0.0.44 on; a hint, left out */
    ck_assert_msg (!strstr (text, "SEGMENTS"), "%s", text);
    free (text);
    json_decref (root);
    root = build ("v0.0.44", &s, NULL);
    text = json_dumps (json_object_get (json_object_get (root, "job"),
                                        "flags"),
                       JSON_COMPACT);
    ck_assert_msg (text && strstr (text, "\"SPREAD_SEGMENTS\""), "%s", text);
    free (text);
    json_decref (root);
    jobspec_free (&s);

    /* a requirement where the version has no field for it */
    parse (&s, "#!/bin/sh\n#SBATCH --stepmgr --oom-kill-step=0\n");
    memset (&req, 0, sizeof (req));
    req.partition = "batch";
    req.cwd = "/tmp";
    req.script = "#!/bin/sh\n";
    req.environment = envv;
    req.sbatch = &s;
    ck_assert_ptr_null (slurmrest_submit_body (slurmrest_api_find ("v0.0.41"),
                                               &req, time (NULL), &err));
    ck_assert_str_eq (err.text, "--oom-kill-step: slurmrestd v0.0.41 cannot "
                                "carry this option");
    jobspec_free (&s);
    /* a hint alone: left out */
    parse (&s, "#!/bin/sh\n#SBATCH --stepmgr\n");
    root = build ("v0.0.38", &s, &text);
    ck_assert_msg (!strstr (text, "STEPMGR"), "%s", text);
    free (text);
    json_decref (root);
    jobspec_free (&s);
}
END_TEST

int
main (void)
{
    Suite *su = suite_create ("slurmrest_sbatch");
    TCase *tc = tcase_create ("carry");

    tcase_add_test (tc, v38_text);
    tcase_add_test (tc, typed_versions);
    tcase_add_test (tc, gpus_as_tres);
    tcase_add_test (tc, v38_hint_counts);
    tcase_add_test (tc, not_carried_named);
    tcase_add_test (tc, later_releases);
    suite_add_tcase (su, tc);
    return test_run_suite (su);
}
