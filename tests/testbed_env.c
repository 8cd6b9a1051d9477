/* testbed_env.c - find the running test bed from a test. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testbed_env.h"

static void services_lock (int how);

int
testbed_env_load (char *why, size_t size)
{
    char path[4096], line[8192];
    const char *p = getenv ("MS_TESTBED_ENV");
    const char *run = getenv ("MS_TESTBED_RUN");
    FILE *f;

    if (p)
        snprintf (path, sizeof (path), "%s", p);
    else if (run && *run)
        snprintf (path, sizeof (path), "%s/env", run);
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
    services_lock (LOCK_SH);
    return 0;
}

/* The test bed's services lock: every integration test holds it shared for
 * its lifetime; a test that stops a service (PostgreSQL, a slurmctld) takes
 * it exclusive, so it never pulls a service from under a test running
 * beside it (make -j). The descriptor stays open until the process ends. */
static int services_fd = -1;

static void
services_lock (int how)
{
    const char *run = getenv ("MS_TESTBED_RUN");
    char path[4096];

    if (!run)
        return;
    if (services_fd < 0) {
        snprintf (path, sizeof (path), "%s/services.lock", run);
        services_fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (services_fd < 0)
            return;
    }
    while (flock (services_fd, how) < 0 && errno == EINTR)
        ;
}

void
testbed_services_exclusive (void)
{
    services_lock (LOCK_EX);
}

const char *
testbed_get (const char *name)
{
    const char *v = getenv (name);
    ck_assert_msg (v != NULL, "test bed variable %s is not set", name);
    return v;
}
