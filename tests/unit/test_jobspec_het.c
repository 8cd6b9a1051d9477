/* test_jobspec_het.c - heterogeneous jobs as sbatch reads them and as
 * metasched carries them: the components of a script (#SBATCH hetjob or
 * packjob) and of the command line (':'), each case citing the Slurm code
 * whose behaviour it checks; the components as JSON (the API's field
 * "components"); the submission of every OpenAPI version, one "jobs" list. */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_json.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "tests/testutil.h"

static void
parse_ok (ms_jobspec_t *s, const char *text)
{
    ms_error_t err;

    jobspec_init (s);
    ck_assert_msg (jobspec_parse_script (s, text, strlen (text), "h.sh", &err)
                       == 0,
                   "%s", err.text);
}

/* sbatch's _opt_batch_script (src/sbatch/opt.c): "hetjob" or "packjob"
 * alone on a directive, in any case, starts the next component; what
 * follows on the line belongs to it (_get_argument blanks the word). */
START_TEST (script_separators)
{
    ms_jobspec_t s;

    parse_ok (&s, "#!/bin/sh\n"
                  "#SBATCH -n 4 --cpus-per-task=2\n"
                  "#SBATCH hetjob\n"
                  "#SBATCH -n 1\n"
                  "#SBATCH PACKJOB -N 2 --ntasks=8\n"
                  "srun true\n");
    ck_assert_int_eq (s.ntasks, 4);
    ck_assert_uint_eq (s.nhet, 2);
    ck_assert_int_eq (s.het[0]->ntasks, 1);
    ck_assert_int_eq (s.het[1]->nodes, 2);
    ck_assert_int_eq (s.het[1]->ntasks, 8);
    jobspec_free (&s);
    ck_assert_uint_eq (s.nhet, 0);
}
END_TEST

START_TEST (separator_word_is_not_an_option)
{
    ms_jobspec_t s;
    ms_error_t err;
    const char *t = "#!/bin/sh\n#SBATCH hetjobs\n";

    jobspec_init (&s);
    /* sbatch: "hetjobs" is no separator (ptr[6] is no blank), and then no
     * option: "Invalid directive found in batch script" */
    ck_assert_int_eq (jobspec_parse_script (&s, t, strlen (t), "h.sh", &err),
                      -1);
    ck_assert_msg (strstr (err.text, "h.sh:2: 'hetjobs' is not an option"),
                   "%s", err.text);
    jobspec_free (&s);
}
END_TEST

/* slurm_reset_all_options (src/common/slurm_opt.c, first_pass false):
 * options marked reset_each_pass start over in each component; the others
 * keep the previous component's value. */
START_TEST (carried_and_reset)
{
    ms_jobspec_t s;
    const ms_jobspec_t *c;

    parse_ok (&s, "#!/bin/sh\n"
                  "#SBATCH -A physics -q normal --mem=2G -t 30 -J pair\n"
                  "#SBATCH -o out.%j --begin=now+60 --nice=5\n"
                  "#SBATCH -n 4 -c 2 --gres=gpu:1 -C fast --exclusive\n"
                  "#SBATCH --mail-type=END --cpu-freq=high -w n1\n"
                  "#SBATCH hetjob\n"
                  "#SBATCH -N 1\n"
                  "true\n");
    c = s.het[0];
    /* carried over: not reset_each_pass */
    ck_assert_str_eq (c->account, "physics");
    ck_assert_str_eq (c->qos, "normal");
    ck_assert (c->mem_per_node_set);
    ck_assert_uint_eq (c->mem_per_node_mb, 2048);
    ck_assert_uint_eq (c->time_limit_min, 30);
    ck_assert_str_eq (c->name, "pair");
    ck_assert_str_eq (c->std_out, "out.%j");
    ck_assert (c->begin != 0);
    ck_assert (c->nice_set && c->nice == 5);
    /* reset: slurm_opt_ntasks, _cpus_per_task, _gres, _constraint,
     * _exclusive, _mail_type, _cpu_freq, _nodelist */
    ck_assert_int_eq (c->ntasks, 0);
    ck_assert_int_eq (c->cpus_per_task, 0);
    ck_assert_uint_eq (c->ngres, 0);
    ck_assert_str_eq (c->gres, "");
    ck_assert_str_eq (c->constraint, "");
    ck_assert (!c->exclusive);
    ck_assert_uint_eq (c->mail_flags, 0);
    ck_assert_str_eq (c->cpu_freq, "");
    ck_assert_str_eq (c->nodelist, "");
    ck_assert_int_eq (c->nodes, 1);
    jobspec_free (&s);
}
END_TEST

/* sbatch.c main: the command line is cut at each ':' and component N's
 * part applies to component N after its #SBATCH lines (the command line
 * wins); a component the script lacks is added. */
START_TEST (command_line_components)
{
    ms_jobspec_t s;
    ms_error_t err;
    char *argv[] = { "msbatch", "-n", "3", ":",      "-n", "5",
                     ":",       "-N", "2", "job.sh", NULL };
    int argi;

    parse_ok (&s, "#!/bin/sh\n#SBATCH -n 1 -A physics\n#SBATCH hetjob -n 2\n"
                  "true\n");
    ck_assert_int_eq (jobspec_parse_args (&s, 10, argv, &argi, &err), 0);
    ck_assert_int_eq (argi, 9);
    ck_assert_int_eq (s.ntasks, 3);
    ck_assert_uint_eq (s.nhet, 2);
    ck_assert_int_eq (s.het[0]->ntasks, 5);
    ck_assert_int_eq (s.het[1]->nodes, 2);
    ck_assert_str_eq (s.het[1]->account, "physics");
    jobspec_free (&s);
}
END_TEST

/* sbatch's first pass reads --parsable, --wait ... of every component
 * (process_options_first_pass drops the ':'s) */
START_TEST (job_wide_flags_of_any_component)
{
    ms_jobspec_t s;
    ms_error_t err;
    char *argv[] = { "msbatch", "-n", "1", ":", "--parsable", "job.sh", NULL };
    int argi;

    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_args (&s, 6, argv, &argi, &err), 0);
    ck_assert (s.parsable);
    jobspec_free (&s);
}
END_TEST

static const struct {
    const char *script, *want;
} refused[] = {
    /* _validate_memory_options: --mem carried over stays set by the
     * command line, so --mem-per-cpu in the next component is refused
     * as sbatch refuses it */
    { "#!/bin/sh\n#SBATCH --mem=1G\n#SBATCH hetjob\n#SBATCH --mem-per-cpu=1\n",
      "component 1: --mem, --mem-per-cpu and --mem-per-gpu exclude each "
      "other" },
    /* a component's bad option names its own line */
    { "#!/bin/sh\n#SBATCH -n 1\n#SBATCH hetjob\n#SBATCH -N x\n",
      "h.sh:4: --nodes=x" },
    /* the option before the separator has no value left */
    { "#!/bin/sh\n#SBATCH -n\n#SBATCH hetjob\n", "h.sh:2: -n: needs a value" },
};

START_TEST (refusals)
{
    ms_jobspec_t s;
    ms_error_t err;
    const char *t = refused[_i].script;
    int rc;

    jobspec_init (&s);
    rc = jobspec_parse_script (&s, t, strlen (t), "h.sh", &err);
    if (rc == 0)
        rc = jobspec_check (&s, t, strlen (t), true, &err);
    ck_assert_int_eq (rc, -1);
    ck_assert_msg (strstr (err.text, refused[_i].want) == err.text,
                   "'%s' gave '%s'", t, err.text);
    jobspec_free (&s);
}
END_TEST

/* MAX_HET_JOB_COMPONENTS (slurm.h): 128 */
START_TEST (at_most_128_components)
{
    size_t cap = 64 + 130 * 16;
    char *t = ms_xcalloc (1, cap);
    ms_jobspec_t s;
    ms_error_t err;

    strcpy (t, "#!/bin/sh\n");
    for (int i = 0; i < 127; i++)
        strcat (t, "#SBATCH hetjob\n");
    parse_ok (&s, t);
    ck_assert_uint_eq (s.nhet, 127);
    jobspec_free (&s);
    strcat (t, "#SBATCH hetjob\n");
    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_script (&s, t, strlen (t), "h.sh", &err),
                      -1);
    ck_assert_str_eq (err.text, "h.sh:129: hetjob: more than 128 components "
                                "(Slurm's limit)");
    jobspec_free (&s);
    free (t);
}
END_TEST

/* The API's "components": what msbatch sends reads back the same; bad
 * ones name the component and the field. */
START_TEST (components_as_json)
{
    ms_jobspec_t s, r;
    ms_error_t err;
    json_t *o = json_object ();

    parse_ok (&s, "#!/bin/sh\n#SBATCH -n 2 -A physics\n"
                  "#SBATCH hetjob -N 2 -n 4 -c 3 -t 15 --gres=gpu:2 "
                  "-p gpu\ntrue\n");
    jobspec_json_put (&s, o);
    jobspec_init (&r);
    ck_assert_int_eq (jobspec_json_read (&r, o, &err), 0);
    ck_assert_uint_eq (r.nhet, 1);
    ck_assert_int_eq (r.het[0]->nodes, 2);
    ck_assert_int_eq (r.het[0]->ntasks, 4);
    ck_assert_int_eq (r.het[0]->cpus_per_task, 3);
    ck_assert_uint_eq (r.het[0]->time_limit_min, 15);
    ck_assert_str_eq (r.het[0]->partition, "gpu");
    ck_assert_str_eq (r.het[0]->account, "physics");
    ck_assert_uint_eq (r.het[0]->ngres, 1);
    jobspec_free (&r);
    jobspec_free (&s);
    json_decref (o);
}
END_TEST

static const struct {
    const char *json, *want;
} bad_json[] = {
    { "{\"components\": 3}", "field 'components': must be a list" },
    { "{\"components\": [1]}",
      "field 'components': component 1: must be an object" },
    { "{\"components\": [{}, {\"nodes\": 0}]}",
      "field 'components': component 2: field 'nodes': must be an integer "
      "of at least 1" },
    { "{\"components\": [{\"frob\": 1}]}",
      "field 'components': component 1: field 'frob': unknown key" },
    { "{\"components\": [{\"components\": []}]}",
      "field 'components': component 1: field 'components': a component "
      "has no components" },
    { "{\"components\": [{\"gres\": \"gpu:a:b:c\"}]}",
      "field 'components': component 1: field 'gres': --gres=gpu:a:b:c" },
};

START_TEST (components_json_refused)
{
    ms_jobspec_t s;
    ms_error_t err;
    json_t *o = json_loads (bad_json[_i].json, 0, NULL);
    const char *key;
    json_t *v;
    int rc = 0;

    ck_assert_ptr_nonnull (o);
    jobspec_init (&s);
    json_object_foreach (o, key, v)
    {
        rc = jobspec_json_set (&s, key, v, &err);
    }
    ck_assert_int_eq (rc, -1);
    ck_assert_msg (strstr (err.text, bad_json[_i].want) == err.text,
                   "'%s' gave '%s'", bad_json[_i].json, err.text);
    jobspec_free (&s);
    json_decref (o);
}
END_TEST

/* The submission: one "jobs" list in every version (v0.0.38
 * _parse_job_list takes a list as a hetjob; v0.0.39 on the request's
 * "jobs"), each component its partition and counts, the script with the
 * first (v0.0.39 on: in jobs[0]; v0.0.38: beside the list), metasched's
 * tag on the first only. */
START_TEST (submit_body_every_version)
{
    for (size_t v = 0; v < slurmrest_api_count (); v++) {
        const slurmrest_api_t *api = slurmrest_api_at (v);
        const char *envv[] = { "PATH=/bin", NULL };
        ms_job_request_t req, het[1];
        ms_error_t err;
        json_t *root, *jobs;
        char *body;

        memset (&req, 0, sizeof (req));
        req.user = "u";
        req.name = "pair";
        req.partition = "batch";
        req.cwd = "/tmp";
        req.script = "#!/bin/sh\ntrue\n";
        req.environment = envv;
        req.comment = "metasched:42";
        req.nodes = 1;
        req.tasks = 2;
        het[0] = req;
        het[0].script = NULL;
        het[0].comment = NULL;
        het[0].partition = "long";
        het[0].nodes = 2;
        het[0].tasks = 4;
        req.het = het;
        req.nhet = 1;
        body = slurmrest_submit_body (api, &req, time (NULL), &err);
        ck_assert_msg (body != NULL, "%s: %s", slurmrest_api_name (api),
                       err.text);
        root = json_loads (body, 0, NULL);
        ck_assert_ptr_nonnull (root);
        ck_assert_ptr_null (json_object_get (root, "job"));
        jobs = json_object_get (root, "jobs");
        ck_assert_msg (json_array_size (jobs) == 2, "%s: %s",
                       slurmrest_api_name (api), body);
        ck_assert_str_eq (json_string_value (json_object_get (
                              json_array_get (jobs, 0), "partition")),
                          "batch");
        ck_assert_str_eq (json_string_value (json_object_get (
                              json_array_get (jobs, 1), "partition")),
                          "long");
        ck_assert_int_eq (json_integer_value (json_object_get (
                              json_array_get (jobs, 1), "tasks")),
                          4);
        ck_assert_str_eq (json_string_value (json_object_get (
                              json_array_get (jobs, 0), "comment")),
                          "metasched:42");
        ck_assert_ptr_null (
            json_object_get (json_array_get (jobs, 1), "comment"));
        ck_assert_ptr_null (
            json_object_get (json_array_get (jobs, 1), "script"));
        if (json_object_get (root, "script"))
            ck_assert_str_eq (
                json_string_value (json_object_get (root, "script")),
                req.script);
        else
            ck_assert_str_eq (json_string_value (json_object_get (
                                  json_array_get (jobs, 0), "script")),
                              req.script);
        json_decref (root);
        free (body);
    }
}
END_TEST

int
main (void)
{
    Suite *su = suite_create ("jobspec_het");
    TCase *tc = tcase_create ("het");

    tcase_add_test (tc, script_separators);
    tcase_add_test (tc, separator_word_is_not_an_option);
    tcase_add_test (tc, carried_and_reset);
    tcase_add_test (tc, command_line_components);
    tcase_add_test (tc, job_wide_flags_of_any_component);
    tcase_add_loop_test (tc, refusals, 0,
                         (int)(sizeof (refused) / sizeof (refused[0])));
    tcase_add_test (tc, at_most_128_components);
    tcase_add_test (tc, components_as_json);
    tcase_add_loop_test (tc, components_json_refused, 0,
                         (int)(sizeof (bad_json) / sizeof (bad_json[0])));
    tcase_add_test (tc, submit_body_every_version);
    suite_add_tcase (su, tc);
    return test_run_suite (su);
}
