/* test_jobspec_last.c - the last options that sbatch accepts (--tres-per-task,
 * --tres-bind, --resources, --resv-ports, --mem-update, --container-type,
 * --external): the OpenAPI version from which slurmrestd carries each
 * (jobspec_since_missing, each case citing the data_parser field), what a
 * submission body holds of them; and msbatch(1)'s option table, which must
 * name every option of jobspec.c's table. */
#include "config.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "tests/testutil.h"

/* Is option opt of line missing on OpenAPI version api, and a hint? */
static const struct {
    const char *line, *opt, *api;
    bool missing, hint;
    const char *slurm;
} since[] = {
    { "--tres-per-task=gres/gpu=1", "tres-per-task", "v0.0.38", true, false,
      "v0.0.38 jobs.c: no tres_per_task in a job's description" },
    { "--tres-per-task=gres/gpu=1", "tres-per-task", "v0.0.39", false, false,
      "v0.0.39 parsers.c: add_parse (STRING, tres_per_task)" },
    { "--tres-bind=gres/gpu:closest", "tres-bind", "v0.0.38", true, true,
      "v0.0.38: no tres_bind in a job's description" },
    { "--tres-bind=gres/gpu:closest", "tres-bind", "v0.0.41", false, true,
      "v0.0.41 parsers.c: add_parse (STRING, tres_bind)" },
    { "--external", "external", "v0.0.42", true, false,
      "v0.0.42: no EXTERNAL_JOB flag" },
    { "--external", "external", "v0.0.43", false, false,
      "v0.0.43 parsers.c: add_flag_bit (EXTERNAL_JOB)" },
    { "--container-type=oci", "container-type", "v0.0.44", true, false,
      "v0.0.44: no container_type" },
    { "--container-type=oci", "container-type", "v0.0.45", false, false,
      "v0.0.45 parsers.c: add_parse (STRING, container_type)" },
    { "--resources=flat:2", "resources", "v0.0.46", true, false,
      "no data_parser version has the job's resources" },
    { "--resv-ports=2", "resv-ports", "v0.0.46", true, true,
      "reserve_ports is other_port, not resv_port_cnt" },
    { "--mem-update=20@30", "mem-update", "v0.0.46", true, true,
      "no data_parser version has mem_update_*" },
};

START_TEST (carried_from)
{
    ms_jobspec_t s;
    ms_error_t err;
    char sc[256];
    const jobspec_since_t *o, *found = NULL;
    size_t i = 0;

    snprintf (sc, sizeof (sc), "#!/bin/sh\n#SBATCH %s\ntrue\n", since[_i].line);
    jobspec_init (&s);
    ck_assert_msg (jobspec_parse_script (&s, sc, strlen (sc), "j.sh", &err)
                       == 0,
                   "%s: %s", since[_i].line, err.text);
    while ((o = jobspec_since_missing (&s, since[_i].api, &i)))
        if (!strcmp (o->name, since[_i].opt))
            found = o;
    ck_assert_msg ((found != NULL) == since[_i].missing,
                   "%s on %s (%s): missing %d, not %d", since[_i].line,
                   since[_i].api, since[_i].slurm, found != NULL,
                   since[_i].missing);
    if (found)
        ck_assert_msg (found->hint == since[_i].hint, "%s: hint %d",
                       since[_i].opt, found->hint);
    jobspec_free (&s);
}
END_TEST

static json_t *
body_of (const char *api_name, const char *line, char **textp)
{
    const char *envv[] = { "PATH=/bin", NULL };
    const slurmrest_api_t *api = NULL;
    static ms_jobspec_t s;
    ms_job_request_t req;
    ms_error_t err;
    char sc[256], *body;
    json_t *root;

    for (size_t v = 0; v < slurmrest_api_count (); v++)
        if (!strcmp (slurmrest_api_name (slurmrest_api_at (v)), api_name))
            api = slurmrest_api_at (v);
    ck_assert_ptr_nonnull (api);
    snprintf (sc, sizeof (sc), "#!/bin/sh\n#SBATCH %s\ntrue\n", line);
    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_script (&s, sc, strlen (sc), "j.sh", &err),
                      0);
    memset (&req, 0, sizeof (req));
    req.user = "u";
    req.name = "j";
    req.partition = "batch";
    req.cwd = "/tmp";
    req.script = "#!/bin/sh\ntrue\n";
    req.environment = envv;
    req.nodes = 1;
    req.tasks = 1;
    req.sbatch = &s;
    body = slurmrest_submit_body (api, &req, time (NULL), &err);
    ck_assert_msg (body != NULL, "%s %s: %s", api_name, line, err.text);
    root = json_loads (body, 0, NULL);
    ck_assert_ptr_nonnull (root);
    *textp = body;
    return root;
}

static const char *
job_str (json_t *root, const char *key)
{
    return json_string_value (
        json_object_get (json_object_get (root, "job"), key));
}

/* What a body holds of them where the version carries them; --tres-per-task
 * joins the TRES that --gpus-per-task makes (sbatch: one list). */
START_TEST (submission_body)
{
    char *text;
    json_t *root;

    root = body_of ("v0.0.40", "--gpus-per-task=1 --tres-per-task=license/a=1",
                    &text);
    ck_assert_msg (
        job_str (root, "tres_per_task")
            && strstr (job_str (root, "tres_per_task"), "license/a=1")
            && strstr (job_str (root, "tres_per_task"), "gpu"),
        "%s", text);
    json_decref (root);
    free (text);
    root = body_of ("v0.0.40", "--tres-bind=gres/gpu:closest", &text);
    ck_assert_msg (
        job_str (root, "tres_bind")
            && !strcmp (job_str (root, "tres_bind"), "gres/gpu:closest"),
        "%s", text);
    json_decref (root);
    free (text);
    root = body_of ("v0.0.45", "--container-type=oci", &text);
    ck_assert_msg (job_str (root, "container_type")
                       && !strcmp (job_str (root, "container_type"), "oci"),
                   "%s", text);
    json_decref (root);
    free (text);
    /* an external job has no script: slurmctld refuses one (job_mgr.c
     * ESLURM_INVALID_EXTERNAL_JOB) */
    root = body_of ("v0.0.43", "--external", &text);
    ck_assert_msg (!json_object_get (root, "script")
                       && !job_str (root, "script")
                       && strstr (text, "\"EXTERNAL_JOB\""),
                   "%s", text);
    json_decref (root);
    free (text);
    /* hints no slurmrestd takes: the body goes without them */
    root = body_of ("v0.0.38", "--resv-ports=2 --mem-update=20@30", &text);
    ck_assert_msg (!strstr (text, "resv") && !strstr (text, "mem_update"), "%s",
                   text);
    json_decref (root);
    free (text);
}
END_TEST

/* msbatch(1) names every option of the table in its option table: a line
 * "\fB-X, \-\-name\fR...<tab>T{" (the option list a user reads). */
static bool
in_table (const char *man, const char *want)
{
    for (const char *l = man; l && *l;
         l = strchr (l, '\n'), l = l ? l + 1 : l) {
        const char *tab = strchr (l, '\t'), *nl = strchr (l, '\n');
        const char *hit = strstr (l, want);
        size_t n = nl ? (size_t)(nl - l) : strlen (l);
        if (strncmp (l, "\\fB", 3) || !tab || (nl && tab > nl) || !hit
            || hit > tab || n < 2 || strncmp (l + n - 2, "T{", 2))
            continue;
        return true;
    }
    return false;
}

START_TEST (every_option_in_the_man_page)
{
    const char *src = getenv ("MS_SRCDIR");
    const jobspec_option_t *o;
    char path[4096], want[256];
    ms_error_t err;
    char *man;
    size_t len, missing = 0;

    snprintf (path, sizeof (path), "%s/doc/msbatch.1", src ? src : ".");
    ck_assert_msg (ms_read_file (path, 1 << 20, &man, &len, &err) == 0,
                   "%s: %s", path, err.text);
    for (size_t k = 0; (o = jobspec_option_at (k)); k++) {
        char *w = want;
        w += snprintf (w, sizeof (want), "\\-\\-");
        for (const char *c = o->name; *c && w < want + sizeof (want) - 8; c++) {
            if (*c == '-')
                *w++ = '\\';
            *w++ = *c;
        }
        snprintf (w, (size_t)(want + sizeof (want) - w), "\\fR");
        if (!in_table (man, want)) {
            fprintf (stderr, "# msbatch(1)'s table does not name --%s (%s)\n",
                     o->name, want);
            missing++;
        }
    }
    free (man);
    ck_assert_msg (missing == 0,
                   "%zu options of jobspec.c's table not in msbatch(1)'s",
                   missing);
}
END_TEST

int
main (void)
{
    Suite *su = suite_create ("jobspec_last");
    TCase *tc = tcase_create ("last");

    tcase_add_loop_test (tc, carried_from, 0,
                         (int)(sizeof (since) / sizeof (since[0])));
    tcase_add_test (tc, submission_body);
    tcase_add_test (tc, every_option_in_the_man_page);
    suite_add_tcase (su, tc);
    return test_run_suite (su);
}
