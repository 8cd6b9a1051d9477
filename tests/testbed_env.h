/* testbed_env.h - find the running test bed (testbed/start) from a test. */
#ifndef MS_TESTBED_ENV_H
#define MS_TESTBED_ENV_H

/* Load the test bed's environment file into the process environment:
 * $MS_TESTBED_ENV, else $MS_TESTBED_RUN/env (a test bed started with
 * MS_TESTBED_RUN), else $MS_SRCDIR/testbed/run/env. Returns 0, or -1 with a
 * reason in why (for a TAP skip) when there is no running test bed. */
int testbed_env_load (char *why, size_t size);

/* testbed_env_load also takes $MS_TESTBED_RUN/services.lock shared for the
 * life of the process. A test that stops a service (PostgreSQL, a cluster)
 * calls this first: it waits until no other test holds the lock. */
void testbed_services_exclusive (void);

/* getenv that fails the test when the variable is missing. */
const char *testbed_get (const char *name);

#endif
