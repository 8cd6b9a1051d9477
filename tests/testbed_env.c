/* testbed_env.c - find the running test bed from a test. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testbed_env.h"

int
testbed_env_load (char *why, size_t size)
{
    char path[4096], line[8192];
    const char *p = getenv ("MS_TESTBED_ENV");
    FILE *f;

    if (p)
        snprintf (path, sizeof (path), "%s", p);
    else
        snprintf (path, sizeof (path), "%s/testbed/run/env",
                  getenv ("MS_SRCDIR") ? getenv ("MS_SRCDIR") : ".");
    if (!(f = fopen (path, "r"))) {
        snprintf (why, size,
                  "no running test bed (%s missing; start it with "
                  "testbed/start)",
                  path);
        return -1;
    }
    while (fgets (line, sizeof (line), f)) {
        char *eq, *val;
        size_t n;
        if (line[0] != 'M' || !(eq = strchr (line, '=')))
            continue;
        *eq = '\0';
        val = eq + 1;
        n = strlen (val);
        while (n && (val[n - 1] == '\n' || val[n - 1] == '\r'))
            val[--n] = '\0';
        if (n >= 2 && val[0] == '\'' && val[n - 1] == '\'') {
            val[n - 1] = '\0';
            val++;
        }
        setenv (line, val, 1);
    }
    fclose (f);
    return 0;
}

const char *
testbed_get (const char *name)
{
    const char *v = getenv (name);
    ck_assert_msg (v != NULL, "test bed variable %s is not set", name);
    return v;
}
