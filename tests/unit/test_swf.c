/* test_swf.c - the SWF reader: CRLF, headers, -1 and missing fields,
 * malformed lines (error naming file and line, or skipped and counted). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "partitions/swf.h"
#include "tests/testutil.h"

START_TEST (test_crlf_small)
{
    char path[4096];
    swf_trace_t *t;
    ms_error_t err;

    snprintf (path, sizeof (path), "%s/tests/data/sim/small-crlf.swf",
              test_srcdir ());
    ck_assert_int_eq (swf_load (path, 0, &t, &err), 0);
    ck_assert_uint_eq (t->njobs, 3);
    ck_assert_int_eq (t->max_procs, 64);
    ck_assert_int_eq (t->max_nodes, 16);
    ck_assert_int_eq (t->jobs[0].id, 1);
    ck_assert (t->jobs[0].runtime == 100);
    ck_assert_int_eq (t->jobs[0].procs, 4);
    ck_assert (t->jobs[0].time_req == 200);
    ck_assert_int_eq (t->jobs[0].exe, 7);
    ck_assert (t->jobs[1].wait == -1);
    /* Job 3 has four fields: the rest read as unknown. */
    ck_assert (t->jobs[2].runtime == 30);
    ck_assert_int_eq (t->jobs[2].procs, -1);
    ck_assert (t->jobs[2].time_req == -1);
    ck_assert_int_eq (t->jobs[2].line, 7);
    swf_free (t);
}
END_TEST

START_TEST (test_shared_tiny_crlf)
{
    const char *d = test_shared_data ();
    char path[4096];
    swf_trace_t *t;
    ms_error_t err;

    snprintf (path, sizeof (path), "%s/traces/tiny-25jobs-crlf.swf", d);
    ck_assert_msg (swf_load (path, 0, &t, &err) == 0, "%s", err.text);
    ck_assert_uint_eq (t->njobs, 25);
    ck_assert_int_eq (t->jobs[0].id, 184);
    ck_assert (t->jobs[0].runtime == 61);
    ck_assert_int_eq (t->jobs[0].procs, 16);
    for (size_t i = 0; i < t->njobs; i++)
        ck_assert (t->jobs[i].submit >= 0);
    swf_free (t);
}
END_TEST

START_TEST (test_shared_gz)
{
    const char *d = test_shared_data ();
    char path[4096];
    swf_trace_t *t;
    ms_error_t err;

    snprintf (path, sizeof (path), "%s/traces/KTH-SP2-1996-2.1-cln.swf.gz", d);
    ck_assert_msg (swf_load (path, 0, &t, &err) == 0, "%s", err.text);
    ck_assert_uint_eq (t->njobs, 28476);
    ck_assert_int_eq (t->max_procs, 100);
    ck_assert_int_eq (t->unix_start, 843480031);
    swf_free (t);
}
END_TEST

START_TEST (test_malformed)
{
    static const struct {
        const char *text;
        const char *msg;
    } bad[] = {
        { "1 0 0 10 2\n2 x 0 10 2\n", "t.swf:2: field 2 'x' is not a number" },
        { "; c\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1 5\n",
          "t.swf:2: more than 18 fields" },
        { "1\n", "t.swf:1: 1 field;" },
        { "1 0 0 -5 2\n", "t.swf:1: field 4 is negative" },
        { "-1 0 0 5 2\n", "t.swf:1: job number and submit time" },
        { "1 0 0 nan 2\n", "t.swf:1: field 4 'nan' is not a number" },
        { "1 0 0 1e400 2\n", "t.swf:1: field 4 '1e400' is not a number" },
        { "1 0 0 10 2 -1 -1 1 20 -1 29999999999\n",
          "t.swf:1: field 11 (status) 29999999999 is not a status" },
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        swf_trace_t *t = NULL;
        ms_error_t err;
        ck_assert_int_eq (
            swf_parse (bad[i].text, strlen (bad[i].text), "t.swf", 0, &t, &err),
            -1);
        ck_assert_int_eq (err.kind, MS_ERR_INPUT);
        ck_assert_msg (strstr (err.text, bad[i].msg), "case %zu: got '%s'", i,
                       err.text);
    }
}
END_TEST

/* Integer fields (read without strtod) and the others read alike:
 * leading zeros, -0, the longest integer kept exact, fractions, a sign,
 * an exponent; a lone '-' is no number. */
START_TEST (test_numbers)
{
    const char *text
        = "007 0 -0 999999999999999 2 1.5 +3 2e3 1000000000000000\n";
    const char *bad = "1 0 0 10 -\n";
    swf_trace_t *t;
    ms_error_t err;

    ck_assert_int_eq (swf_parse (text, strlen (text), "t.swf", 0, &t, &err), 0);
    ck_assert_int_eq (t->jobs[0].id, 7);
    ck_assert (t->jobs[0].submit == 0);
    ck_assert (t->jobs[0].wait == 0 && signbit (t->jobs[0].wait));
    ck_assert (t->jobs[0].runtime == 999999999999999.0);
    ck_assert_int_eq (t->jobs[0].procs, 2);
    ck_assert (t->jobs[0].cpu_avg == 1.5);
    ck_assert (t->jobs[0].mem_used == 3);
    ck_assert_int_eq (t->jobs[0].procs_req, 2000);
    ck_assert (t->jobs[0].time_req == 1e15);
    swf_free (t);
    ck_assert_int_eq (swf_parse (bad, strlen (bad), "t.swf", 0, &t, &err), -1);
    ck_assert_msg (strstr (err.text, "t.swf:1: field 5 '-' is not a number"),
                   "got '%s'", err.text);
}
END_TEST

START_TEST (test_skip_counted)
{
    const char *text = "1 0 0 10 2\n2 x 0 10 2\n3 5 0 10 2\n\n4 oops\n";
    swf_trace_t *t;
    ms_error_t err;
    ck_assert_int_eq (
        swf_parse (text, strlen (text), "t.swf", SWF_SKIP_MALFORMED, &t, &err),
        0);
    ck_assert_uint_eq (t->njobs, 2);
    ck_assert_uint_eq (t->skipped, 2);
    ck_assert_int_eq (t->jobs[1].id, 3);
    swf_free (t);
}
END_TEST

START_TEST (test_missing_file)
{
    swf_trace_t *t;
    ms_error_t err;
    ck_assert_int_eq (swf_load ("/nonexistent/x.swf", 0, &t, &err), -1);
    ck_assert (strstr (err.text, "/nonexistent/x.swf"));
    ck_assert_int_eq (swf_load ("/nonexistent/x.swf.gz", 0, &t, &err), -1);
}
END_TEST

/* A .gz trace is decompressed in-process: the same jobs as the plain
 * file, the gzip members one after another; what is not gzip data (plain
 * text, nothing, a cut stream) is an error naming the file. */
START_TEST (test_gz_inprocess)
{
    const char *text = "; MaxProcs: 8\n1 0 0 10 2\n2 5 1 20 4\n";
    const char *more = "3 9 0 30 8\n";
    char dir[] = "/tmp/test_swf.XXXXXX", path[4096];
    swf_trace_t *t;
    ms_error_t err;
    gzFile gz;
    FILE *f;

    ck_assert (mkdtemp (dir));
    snprintf (path, sizeof (path), "%s/two.swf.gz", dir);
    gz = gzopen (path, "wb");
    ck_assert (gz);
    ck_assert_int_eq (gzputs (gz, text), (int)strlen (text));
    ck_assert_int_eq (gzclose (gz), Z_OK);
    gz = gzopen (path, "ab"); /* a second member */
    ck_assert (gz);
    ck_assert_int_eq (gzputs (gz, more), (int)strlen (more));
    ck_assert_int_eq (gzclose (gz), Z_OK);
    ck_assert_msg (swf_load (path, 0, &t, &err) == 0, "%s", err.text);
    ck_assert_uint_eq (t->njobs, 3);
    ck_assert_int_eq (t->max_procs, 8);
    ck_assert (t->jobs[1].runtime == 20);
    ck_assert_int_eq (t->jobs[2].procs, 8);
    ck_assert_str_eq (t->name, "two.swf.gz");
    swf_free (t);

    /* the same stream cut short */
    f = fopen (path, "r+");
    ck_assert (f);
    ck_assert_int_eq (ftruncate (fileno (f), 30), 0);
    fclose (f);
    ck_assert_int_eq (swf_load (path, 0, &t, &err), -1);
    ck_assert_int_eq (err.kind, MS_ERR_INPUT);
    ck_assert_msg (strstr (err.text, path), "got '%s'", err.text);

    static const char *const notgz[] = { "1 0 0 10 2\n", "" };
    for (size_t i = 0; i < 2; i++) {
        f = fopen (path, "w");
        ck_assert (f);
        fputs (notgz[i], f);
        fclose (f);
        ck_assert_int_eq (swf_load (path, 0, &t, &err), -1);
        ck_assert_int_eq (err.kind, MS_ERR_INPUT);
        ck_assert_msg (strstr (err.text, path) && strstr (err.text, "gzip"),
                       "case %zu: got '%s'", i, err.text);
    }
    unlink (path);
    rmdir (dir);
}
END_TEST

START_TEST (test_no_trailing_newline)
{
    const char *text = "1 0 0 10 2";
    swf_trace_t *t;
    ms_error_t err;
    /* Not NUL-terminated at len: parse only the first 8 bytes. */
    ck_assert_int_eq (swf_parse (text, 8, "t", 0, &t, &err), 0);
    ck_assert_uint_eq (t->njobs, 1);
    ck_assert (t->jobs[0].runtime == 10);
    ck_assert_int_eq (t->jobs[0].procs, -1);
    swf_free (t);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("swf");
    TCase *tc = tcase_create ("reader");

    tcase_add_test (tc, test_crlf_small);
    if (test_shared_data ()) {
        tcase_add_test (tc, test_shared_tiny_crlf);
        tcase_add_test (tc, test_shared_gz);
    } else
        printf ("# shared data absent: the tiny CRLF and KTH traces are "
                "not read\n");
    tcase_add_test (tc, test_malformed);
    tcase_add_test (tc, test_numbers);
    tcase_add_test (tc, test_skip_counted);
    tcase_add_test (tc, test_missing_file);
    tcase_add_test (tc, test_no_trailing_newline);
    tcase_add_test (tc, test_gz_inprocess);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
