/* testutil.h - what every Check test program shares. */
#ifndef MS_TESTUTIL_H
#define MS_TESTUTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The project's source tree (set by the test harness; "." otherwise). */
static inline const char *
test_srcdir (void)
{
    const char *s = getenv ("MS_SRCDIR");
    return s ? s : ".";
}

/* ../shared/data beside the project, or NULL when absent (a user's clone). */
static inline const char *
test_shared_data (void)
{
    const char *s = getenv ("MS_SHARED_DATA");
    static char buf[4096];
    FILE *f;

    if (!s)
        return NULL;
    snprintf (buf, sizeof (buf), "%s/README.md", s);
    if (!(f = fopen (buf, "r")))
        return NULL;
    fclose (f);
    return s;
}

/* A uniform number in [0, 1) from a xorshift64 state: the same sequence on
 * every machine, for tests that draw random instances. */
static inline double
test_uniform (uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) / 9007199254740992.0;
}

/* Run a suite, TAP on stdout when CK_TAP_LOG_FILE_NAME=- (make check). */
static inline int
test_run_suite (Suite *s)
{
    SRunner *sr = srunner_create (s);
    int failed;

    srunner_run_all (sr, CK_ENV);
    failed = srunner_ntests_failed (sr);
    srunner_free (sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* A whole test program that cannot run here: TAP "skip all" with a reason. */
static inline int
test_skip_all (const char *why)
{
    printf ("1..0 # SKIP %s\n", why);
    return EXIT_SUCCESS;
}

#endif
