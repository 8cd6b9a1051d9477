/* test_jobspec.c - reading a batch job like sbatch: #SBATCH lines, command
 * line, and the errors that name the place. */
#include "config.h"

#include <string.h>

#include "metasched/jobspec.h"
#include "metasched/util.h"
#include "tests/testutil.h"

static const char script[] =
    "#!/bin/bash\r\n"
    "# a comment\n"
    "#SBATCH --job-name=lu-big\n"
    "#SBATCH -N 4\n"
    "#SBATCH --ntasks=192   # all cores\n"
    "#SBATCH -t 1-02:30\n"
    "#SBATCH --output=/home/u/lu-%j.out\n"
    "#SBATCH --export=NONE,OMP_NUM_THREADS=1,HOME\n"
    "#SBATCH --app lu.C\n"
    "#SBATCH --exclusive\n"
    "\n"
    "srun ./lu.C\n"
    "#SBATCH --time=5\n"; /* after the first command: ignored, as sbatch does */

START_TEST (script_options)
{
    ms_jobspec_t s;
    ms_error_t err;

    jobspec_init (&s);
    ck_assert_msg (jobspec_parse_script (&s, script, strlen (script), "job.sh",
                                         &err)
                       == 0,
                   "%s", err.text);
    ck_assert_str_eq (s.name, "lu-big");
    ck_assert_int_eq (s.nodes, 4);
    ck_assert_int_eq (s.ntasks, 192);
    ck_assert_uint_eq (s.time_limit_min, 24 * 60 + 150);
    ck_assert_str_eq (s.std_out, "/home/u/lu-%j.out");
    ck_assert_str_eq (s.export_mode, "NONE");
    ck_assert_uint_eq (s.nexport, 2);
    ck_assert_str_eq (s.export_vars[0], "OMP_NUM_THREADS=1");
    ck_assert_str_eq (s.export_vars[1], "HOME");
    ck_assert_str_eq (s.app, "lu.C");
    ck_assert (s.exclusive);
    ck_assert (!s.test_only);
    ck_assert_int_eq (jobspec_check (&s, script, strlen (script), false, &err), 0);
    jobspec_free (&s);
}
END_TEST

START_TEST (command_line_wins)
{
    ms_jobspec_t s;
    ms_error_t err;
    char *argv[] = { "msbatch", "-t", "30", "--nodes=2", "-Jshort",
                     "--test-only", "-c4", "job.sh", "arg1", NULL };
    int argi;

    jobspec_init (&s);
    ck_assert (jobspec_parse_script (&s, script, strlen (script), "job.sh", &err)
               == 0);
    ck_assert_msg (jobspec_parse_args (&s, 9, argv, &argi, &err) == 0, "%s",
                   err.text);
    ck_assert_int_eq (argi, 7);
    ck_assert_uint_eq (s.time_limit_min, 30);
    ck_assert_int_eq (s.nodes, 2);
    ck_assert_str_eq (s.name, "short");
    ck_assert_int_eq (s.cpus_per_task, 4);
    ck_assert (s.test_only);
    ck_assert_int_eq (s.ntasks, 192); /* from the script */
    jobspec_free (&s);
}
END_TEST

static const struct {
    const char *in;
    long want; /* minutes, -1: error */
} times[] = {
    { "30", 30 },          { "90:30", 91 },    { "01:00:00", 60 },
    { "2-0", 2880 },       { "1-1:30", 1530 }, { "0-0:0:1", 1 },
    { "UNLIMITED", -2 },   { "", -1 },         { "abc", -1 },
    { "1:2:3:4", -1 },     { "-5", -1 },       { "5:", -1 },
    { "1-2-3", -1 },       { "99999999999", -1 },
};

START_TEST (time_formats)
{
    uint32_t m = 0;
    int rc = jobspec_parse_time (times[_i].in, &m);
    if (times[_i].want == -1)
        ck_assert_msg (rc == -1, "'%s' accepted as %u", times[_i].in, m);
    else if (times[_i].want == -2)
        ck_assert (rc == 0 && m == UINT32_MAX);
    else
        ck_assert_msg (rc == 0 && m == (uint32_t)times[_i].want,
                       "'%s' -> rc %d, %u min", times[_i].in, rc, m);
}
END_TEST

static const struct {
    const char *script;
    const char *expect;
} bad[] = {
    { "#!/bin/sh\n#SBATCH --time=abc\n",
      "job.sh:2: --time=abc: expected minutes, MM:SS" },
    { "#!/bin/sh\n\n#SBATCH --nodse=2\n",
      "job.sh:3: unknown option '--nodse'" },
    { "#!/bin/sh\n#SBATCH -N 0\n",
      "job.sh:2: --nodes=0: expected a whole number from 1 to" },
    { "#!/bin/sh\n#SBATCH -N\n", "job.sh:2: -N: needs a value" },
    { "#!/bin/sh\n#SBATCH --exclusive=yes\n",
      "job.sh:2: --exclusive takes no value" },
    { "#!/bin/sh\n#SBATCH -N 2 -n 4\n",
      "job.sh:2: only one option per #SBATCH line" },
    { "#!/bin/sh\n#SBATCH\n", "job.sh:2: #SBATCH without an option" },
    { "#!/bin/sh\n#SBATCH --export=1BAD\n",
      "job.sh:2: --export: '1BAD' is not ALL, NONE or VAR[=value]" },
    { "#!/bin/sh\n#SBATCH --app=a/b\n",
      "job.sh:2: --app=a/b: only letters, digits" },
    { "#!/bin/sh\n#SBATCH -X\n", "job.sh:2: unknown option '-X'" },
    { "#!/bin/sh\n#SBATCH nodes=2\n", "job.sh:2: 'nodes=2' is not an option" },
};

START_TEST (bad_scripts)
{
    ms_jobspec_t s;
    ms_error_t err;

    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_script (&s, bad[_i].script,
                                            strlen (bad[_i].script), "job.sh",
                                            &err),
                      -1);
    ck_assert_int_eq (err.kind, MS_ERR_INPUT);
    ck_assert_msg (strstr (err.text, bad[_i].expect), "case %d: '%s' lacks '%s'",
                   _i, err.text, bad[_i].expect);
    jobspec_free (&s);
}
END_TEST

START_TEST (checks)
{
    ms_jobspec_t s;
    ms_error_t err;
    const char *ok = "#!/bin/sh\ntrue\n";

    jobspec_init (&s);
    ck_assert_int_eq (jobspec_check (&s, "echo hi\n", 8, false, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "script: must start with #!"));
    ms_strlcpy (s.partition, "batch", sizeof (s.partition));
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), false, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "--partition=batch: metasched chooses"));
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), true, &err), 0);
    s.partition[0] = '\0';
    s.nodes = 2;
    s.ntasks = 10;
    s.ntasks_per_node = 4;
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), false, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "--ntasks=10 does not fit"));
    s.ntasks = 8;
    ms_strlcpy (s.chdir, "rel/dir", sizeof (s.chdir));
    ck_assert_int_eq (jobspec_check (&s, ok, strlen (ok), false, &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "--chdir=rel/dir: must be an absolute"));
    ck_assert_int_eq (jobspec_parse_script (&s, "#!/bin/sh\n\0x", 12, "j", &err), -1);
    ck_assert_ptr_nonnull (strstr (err.text, "NUL byte"));
    jobspec_free (&s);

    char *argv[] = { "msbatch", "--bogus", "job.sh", NULL };
    int argi;
    jobspec_init (&s);
    ck_assert_int_eq (jobspec_parse_args (&s, 3, argv, &argi, &err), -1);
    ck_assert_str_eq (err.text, "unknown option '--bogus' (see msbatch --help)");
    char *argv2[] = { "msbatch", "--time", NULL };
    ck_assert_int_eq (jobspec_parse_args (&s, 2, argv2, &argi, &err), -1);
    ck_assert_str_eq (err.text, "--time: needs a value");
    jobspec_free (&s);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("jobspec");
    TCase *tc = tcase_create ("parse");
    tcase_add_test (tc, script_options);
    tcase_add_test (tc, command_line_wins);
    tcase_add_loop_test (tc, time_formats, 0, (int)(sizeof (times) / sizeof (times[0])));
    tcase_add_loop_test (tc, bad_scripts, 0, (int)(sizeof (bad) / sizeof (bad[0])));
    tcase_add_test (tc, checks);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
