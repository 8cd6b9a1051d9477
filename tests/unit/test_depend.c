/* test_depend.c - dependencies between meta jobs (depend.h): every type
 * against every state of the job it names, all-of (',') and any-of ('?'),
 * conditions that can never hold and the reasons given. */
#include "config.h"

#include <string.h>

#include "metasched/core/depend.h"
#include "tests/testutil.h"

#define SELF 100

static ms_dep_target_t
job (ms_depj_state_t st, bool started)
{
    ms_dep_target_t t = { .exists = true, .state = st, .started = started,
                          .since_s = 3600 };
    return t;
}

/* The result of the text `dep` (job ids below SELF) with every job it
 * names in state st. */
static ms_dep_result_t
eval1 (const char *dep, ms_dep_target_t t, char *why, size_t whylen)
{
    ms_deps_t d;
    ms_dep_target_t ts[JOBSPEC_MAX_DEPS];
    ms_error_t e;

    ck_assert_msg (jobspec_parse_dependency (dep, &d, &e) == 0, "%s: %s", dep,
                   e.text);
    for (size_t i = 0; i < JOBSPEC_MAX_DEPS; i++)
        ts[i] = t;
    return depend_eval (&d, SELF, ts, true, true, why, whylen);
}

START_TEST (test_types)
{
    /* rows: waiting, running, completed, failed, cancelled */
    static const struct {
        const char *dep;
        ms_dep_result_t r[5];
    } table[] = {
        { "after:7", { DEP_WAIT, DEP_READY, DEP_READY, DEP_READY, DEP_READY } },
        { "afterany:7",
          { DEP_WAIT, DEP_WAIT, DEP_READY, DEP_READY, DEP_READY } },
        { "afterok:7",
          { DEP_WAIT, DEP_WAIT, DEP_READY, DEP_NEVER, DEP_NEVER } },
        { "afternotok:7",
          { DEP_WAIT, DEP_WAIT, DEP_NEVER, DEP_READY, DEP_READY } },
        { "aftercorr:7",
          { DEP_WAIT, DEP_WAIT, DEP_READY, DEP_NEVER, DEP_NEVER } },
        { "afterburstbuffer:7",
          { DEP_WAIT, DEP_WAIT, DEP_READY, DEP_READY, DEP_READY } },
    };
    char why[256];

    for (size_t i = 0; i < sizeof (table) / sizeof (table[0]); i++)
        for (int s = 0; s < 5; s++) {
            ms_dep_result_t r = eval1 (
                table[i].dep, job ((ms_depj_state_t)s, s == DEPJ_RUNNING),
                why, sizeof (why));
            ck_assert_msg (r == table[i].r[s], "%s in state %d: %d, not %d",
                           table[i].dep, s, r, table[i].r[s]);
            if (r != DEP_READY)
                ck_assert_msg (why[0], "%s: no reason", table[i].dep);
        }
    /* a failed job that never started still counts as started for after
     * (it ended), a cancelled one that never started too */
    ck_assert_int_eq (eval1 ("after:7", job (DEPJ_CANCELLED, false), why,
                             sizeof (why)),
                      DEP_READY);
    /* the reasons */
    eval1 ("afterok:7", job (DEPJ_FAILED, true), why, sizeof (why));
    ck_assert_str_eq (why, "afterok:7: job 7 failed");
    eval1 ("afternotok:7", job (DEPJ_COMPLETED, true), why, sizeof (why));
    ck_assert_str_eq (why, "afternotok:7: job 7 completed successfully");
    eval1 ("afterok:7", job (DEPJ_RUNNING, true), why, sizeof (why));
    ck_assert_str_eq (why, "afterok:7: job 7 is running");
    eval1 ("afterany:7", job (DEPJ_WAITING, false), why, sizeof (why));
    ck_assert_str_eq (why, "afterany:7: job 7 is not started");
}
END_TEST

START_TEST (test_after_delay)
{
    ms_dep_target_t t = job (DEPJ_RUNNING, true);
    char why[256];

    t.since_s = 90;
    ck_assert_int_eq (eval1 ("after:7+2", t, why, sizeof (why)), DEP_WAIT);
    ck_assert_str_eq (why, "after:7+2: 1.5 of 2 minutes passed");
    t.since_s = 121;
    ck_assert_int_eq (eval1 ("after:7+2", t, why, sizeof (why)), DEP_READY);
}
END_TEST

START_TEST (test_never)
{
    ms_deps_t d;
    ms_dep_target_t t[2];
    ms_error_t e;
    char why[256];

    ck_assert_int_eq (jobspec_parse_dependency ("afterok:7", &d, &e), 0);
    memset (t, 0, sizeof (t)); /* no such job */
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_NEVER);
    ck_assert_str_eq (why, "afterok:7: no such job");
    /* another user's job: as the site says */
    t[0] = job (DEPJ_COMPLETED, true);
    t[0].other_user = true;
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_READY);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, false, why, sizeof (why)),
                      DEP_NEVER);
    /* the same answer as for a job that does not exist */
    ck_assert_str_eq (why, "afterok:7: no such job");
    /* itself, and a later job (which did not exist at submission) */
    t[0] = job (DEPJ_COMPLETED, true);
    ck_assert_int_eq (depend_eval (&d, 7, t, true, true, why, sizeof (why)),
                      DEP_NEVER);
    ck_assert (strstr (why, "itself"));
    ck_assert_int_eq (depend_eval (&d, 5, t, true, true, why, sizeof (why)),
                      DEP_NEVER);
    ck_assert_str_eq (why, "afterok:7: no such job");
    /* no dependency at all: ready */
    ck_assert_int_eq (depend_eval (NULL, SELF, NULL, true, true, why,
                                   sizeof (why)),
                      DEP_READY);
}
END_TEST

/* ',' needs all, '?' any one; never as soon as one (',') or all ('?')
 * can never hold. */
START_TEST (test_and_or)
{
    ms_deps_t d;
    ms_dep_target_t t[3];
    ms_error_t e;
    char why[256];

    ck_assert_int_eq (jobspec_parse_dependency ("afterok:7,afterany:8", &d, &e),
                      0);
    ck_assert (!d.any);
    t[0] = job (DEPJ_COMPLETED, true);
    t[1] = job (DEPJ_RUNNING, true);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_WAIT);
    ck_assert_str_eq (why, "afterany:8: job 8 is running");
    t[1] = job (DEPJ_FAILED, true);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_READY);
    t[0] = job (DEPJ_CANCELLED, false);
    t[1] = job (DEPJ_RUNNING, true);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_NEVER);
    ck_assert_str_eq (why, "afterok:7: job 7 cancelled");

    /* one type, several ids: each id is a condition */
    ck_assert_int_eq (jobspec_parse_dependency ("afterok:7:8", &d, &e), 0);
    ck_assert_uint_eq (d.n, 2);
    t[0] = job (DEPJ_COMPLETED, true);
    t[1] = job (DEPJ_WAITING, false);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_WAIT);
    t[1] = job (DEPJ_COMPLETED, true);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_READY);

    ck_assert_int_eq (
        jobspec_parse_dependency ("afterok:7?afternotok:8", &d, &e), 0);
    ck_assert (d.any);
    t[0] = job (DEPJ_FAILED, true);    /* never */
    t[1] = job (DEPJ_RUNNING, true);   /* not yet */
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_WAIT);
    ck_assert_str_eq (why, "afternotok:8: job 8 is running");
    t[1] = job (DEPJ_FAILED, true);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_READY);
    t[1] = job (DEPJ_COMPLETED, true); /* never either */
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_NEVER);
    ck_assert_str_eq (why, "afterok:7: job 7 failed (and every other "
                           "condition)");
}
END_TEST

START_TEST (test_singleton)
{
    ms_deps_t d;
    ms_dep_target_t t[2];
    ms_error_t e;
    char why[256];

    ck_assert_int_eq (jobspec_parse_dependency ("singleton", &d, &e), 0);
    ck_assert_int_eq (depend_eval (&d, SELF, NULL, true, true, why,
                                   sizeof (why)),
                      DEP_READY);
    ck_assert_int_eq (depend_eval (&d, SELF, NULL, false, true, why,
                                   sizeof (why)),
                      DEP_WAIT);
    ck_assert (strstr (why, "singleton"));
    /* with another condition: both */
    ck_assert_int_eq (
        jobspec_parse_dependency ("singleton,afterok:7", &d, &e), 0);
    memset (t, 0, sizeof (t));
    t[1] = job (DEPJ_COMPLETED, true);
    ck_assert_int_eq (depend_eval (&d, SELF, t, false, true, why,
                                   sizeof (why)),
                      DEP_WAIT);
    ck_assert_int_eq (depend_eval (&d, SELF, t, true, true, why, sizeof (why)),
                      DEP_READY);
    t[1] = job (DEPJ_FAILED, true);
    ck_assert_int_eq (depend_eval (&d, SELF, t, false, true, why,
                                   sizeof (why)),
                      DEP_NEVER);
}
END_TEST

START_TEST (test_states)
{
    ck_assert_int_eq (depend_state ("queued"), DEPJ_WAITING);
    ck_assert_int_eq (depend_state ("submitted"), DEPJ_WAITING);
    ck_assert_int_eq (depend_state ("lost"), DEPJ_WAITING);
    ck_assert_int_eq (depend_state ("running"), DEPJ_RUNNING);
    ck_assert_int_eq (depend_state ("completed"), DEPJ_COMPLETED);
    ck_assert_int_eq (depend_state ("failed"), DEPJ_FAILED);
    ck_assert_int_eq (depend_state ("cancelled"), DEPJ_CANCELLED);
    ck_assert_int_eq (depend_state (NULL), DEPJ_WAITING);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("depend");
    TCase *tc = tcase_create ("eval");
    tcase_add_test (tc, test_types);
    tcase_add_test (tc, test_after_delay);
    tcase_add_test (tc, test_never);
    tcase_add_test (tc, test_and_or);
    tcase_add_test (tc, test_singleton);
    tcase_add_test (tc, test_states);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
