/* test_papi.c - counters of a real process tree on this machine, and the
 * job wrapper around real commands: software events are recorded, events
 * the hardware (or PAPI) cannot count are reported unavailable with a
 * reason, and the job's status and signals pass through untouched. */
#include "config.h"

#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/papi_sampler.h"
#include "tests/testutil.h"

/* Does PAPI itself say it can count hardware events here? */
static int
papi_hw_counters (void)
{
    int n;
    if (PAPI_is_initialized () == PAPI_NOT_INITED
        && PAPI_library_init (PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
        return 0;
    n = PAPI_num_hwctrs ();
    PAPI_shutdown ();
    return n > 0;
}

/* Fork a child that waits for a byte, then runs a busy shell loop that
 * starts children of its own (so inheritance is exercised). */
static pid_t
spawn_tree (int *go)
{
    int p[2];
    pid_t pid;

    ck_assert_int_eq (pipe (p), 0);
    pid = fork ();
    ck_assert_int_ge (pid, 0);
    if (pid == 0) {
        char b;
        close (p[1]);
        if (read (p[0], &b, 1) != 1)
            _exit (99);
        execl ("/bin/sh", "sh", "-c",
               "i=0; while [ $i -lt 3 ]; do sh -c 'j=0; while [ $j -lt 20000 ];"
               " do j=$((j+1)); done'; i=$((i+1)); done",
               (char *)NULL);
        _exit (98);
    }
    close (p[0]);
    *go = p[1];
    return pid;
}

START_TEST (software_events_recorded)
{
    papi_sampler_t *s = papi_sampler_new ("perf::TASK-CLOCK,perf::PAGE-FAULTS,"
                                          "perf::CONTEXT-SWITCHES");
    int go, status, n;
    pid_t pid = spawn_tree (&go);
    long long clock_ns = 0, faults = 0;

    n = papi_sampler_attach (s, pid);
    ck_assert_int_eq (write (go, "g", 1), 1);
    close (go);
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    papi_sampler_stop (s);
    ck_assert_int_eq (n, 3);
    ck_assert (papi_sampler_value (s, "perf::TASK-CLOCK", &clock_ns));
    ck_assert (papi_sampler_value (s, "perf::PAGE-FAULTS", &faults));
    /* three shells that each count to 20000: well over a millisecond of
     * CPU, most of it in the grandchildren, which must be included */
    ck_assert_msg (clock_ns > 1000000, "task clock %lld ns", clock_ns);
    ck_assert_int_gt (faults, 0);
    for (size_t i = 0; i < papi_sampler_nevents (s); i++) {
        const papi_event_t *e = papi_sampler_event (s, i);
        ck_assert (e->available);
        ck_assert (!strcmp (e->backend, "papi") || !strcmp (e->backend, "perf_event"));
    }
    papi_sampler_free (s);
}
END_TEST

START_TEST (hardware_events_reported)
{
    papi_sampler_t *s = papi_sampler_new ("PAPI_TOT_CYC,PAPI_TOT_INS,"
                                          "NO_SUCH_EVENT_X,bad\"name,"
                                          "perf::TASK-CLOCK");
    int go, status, hw = papi_hw_counters ();
    pid_t pid = spawn_tree (&go);

    papi_sampler_attach (s, pid);
    ck_assert_int_eq (write (go, "g", 1), 1);
    close (go);
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    papi_sampler_stop (s);
    ck_assert_uint_eq (papi_sampler_nevents (s), 5);
    for (size_t i = 0; i < papi_sampler_nevents (s); i++) {
        const papi_event_t *e = papi_sampler_event (s, i);
        /* every event is either counted or says why not */
        ck_assert_msg (e->available || e->why[0], "%s: no reason", e->name);
        if (!strncmp (e->name, "PAPI_TOT_", 9))
            ck_assert_msg (e->available == (hw != 0),
                           "%s: available %d, PAPI hardware counters %d (%s)",
                           e->name, e->available, hw, e->why);
    }
    ck_assert (!papi_sampler_event (s, 2)->available); /* NO_SUCH_EVENT_X */
    ck_assert_str_eq (papi_sampler_event (s, 3)->why, "not an event name");
    ck_assert (papi_sampler_event (s, 4)->available); /* perf::TASK-CLOCK */
    if (!hw)
        ck_assert (papi_sampler_note (s)[0] != '\0');
    papi_sampler_free (s);
}
END_TEST

static collect_conf_t conf;

static void
setup (void)
{
    collect_conf_defaults (&conf);
    /* no RAPL in the wrapper's way here */
    collect_conf_set (&conf, "powercap_root", "/nonexistent", NULL);
}

static int
wrap (const char *counters, char *const argv[], collect_counters_t *k)
{
    collect_wrap_opts_t o = { .app = "unit", .counters_path = counters,
                              .quiet = true };
    ms_error_t e;
    return collect_wrap (&conf, &o, argv, k, &e);
}

START_TEST (wrapper_passes_exit_status)
{
    char path[] = "/tmp/ms-counters-XXXXXX";
    int fd = mkstemp (path);
    char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };
    collect_counters_t k, back;
    spool_rec_t *rec;
    ms_error_t e;
    int status;

    close (fd);
    status = wrap (path, argv, &k);
    ck_assert (WIFEXITED (status));
    ck_assert_int_eq (WEXITSTATUS (status), 7);
    ck_assert_int_eq (k.exit_code, 7);
    /* the counter file is what the epilog will read */
    ck_assert_int_eq (spool_read (path, "counters", &rec, &e), 0);
    ck_assert_int_eq (collect_counters_from_rec (rec, &back, &e), 0);
    ck_assert_str_eq (back.app, "unit");
    ck_assert_int_eq (back.exit_code, 7);
    ck_assert (back.end_time >= back.start_time);
    ck_assert (strstr (back.events_used, "perf::TASK-CLOCK") != NULL);
    if (!papi_hw_counters ()) {
        ck_assert (strstr (back.events_unavailable, "PAPI_TOT_CYC") != NULL);
        ck_assert_int_eq (back.cycles, -1);
        /* the reason is kept in the file */
        ck_assert (strstr (spool_rec_get (rec, "unavailable.PAPI_TOT_CYC"),
                           "PAPI") != NULL);
    }
    spool_rec_free (rec);
    unlink (path);
}
END_TEST

START_TEST (wrapper_passes_signals)
{
    char path[] = "/tmp/ms-counters-XXXXXX";
    int fd = mkstemp (path);
    char *self_kill[] = { "/bin/sh", "-c", "kill -USR1 $$; sleep 5", NULL };
    collect_counters_t k;
    int status;

    close (fd);
    /* the command dies of a signal: the wrapper reports that signal */
    status = wrap (path, self_kill, &k);
    ck_assert (WIFSIGNALED (status));
    ck_assert_int_eq (WTERMSIG (status), SIGUSR1);
    ck_assert_int_eq (k.term_signal, SIGUSR1);
    unlink (path);
}
END_TEST

/* A signal sent to the wrapper (scancel, a time limit) reaches the job. */
START_TEST (wrapper_forwards_signals)
{
    char path[] = "/tmp/ms-counters-XXXXXX";
    int fd = mkstemp (path), status, p[2];
    pid_t pid;

    close (fd);
    ck_assert_int_eq (pipe (p), 0);
    pid = fork ();
    if (pid == 0) {
        /* the command reports its start, then waits for a signal */
        char script[128];
        char *argv[] = { "/bin/sh", "-c", script, NULL };
        collect_counters_t k;
        close (p[0]);
        snprintf (script, sizeof (script),
                  "trap 'exit 42' TERM; echo up >&%d; while :; do sleep 0.05; done",
                  p[1]);
        status = wrap (path, argv, &k);
        _exit (WIFEXITED (status) ? WEXITSTATUS (status) : 100);
    }
    close (p[1]);
    {
        char b[4];
        ck_assert_int_gt (read (p[0], b, sizeof (b)), 0);
    }
    close (p[0]);
    ck_assert_int_eq (kill (pid, SIGTERM), 0);
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    ck_assert (WIFEXITED (status));
    ck_assert_int_eq (WEXITSTATUS (status), 42);
    unlink (path);
}
END_TEST

START_TEST (collector_trouble_never_fails_the_job)
{
    char *argv[] = { "/bin/true", NULL };
    char *missing[] = { "/nonexistent/command", NULL };
    collect_counters_t k;
    int status;

    /* nonsense events and an unwritable counter file: the job still runs */
    collect_conf_set (&conf, "events", "NOT_AN_EVENT,PAPI_TOT_CYC,\"", NULL);
    status = wrap ("/nonexistent/dir/counters", argv, &k);
    ck_assert (WIFEXITED (status));
    ck_assert_int_eq (WEXITSTATUS (status), 0);
    ck_assert (strstr (k.events_unavailable, "NOT_AN_EVENT") != NULL);
    /* a command that does not exist: 127, as a shell says */
    status = wrap ("/nonexistent/dir/counters", missing, &k);
    ck_assert (WIFEXITED (status));
    ck_assert_int_eq (WEXITSTATUS (status), 127);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("papi");
    TCase *tc = tcase_create ("sampler");
    TCase *tw = tcase_create ("wrapper");

    tcase_add_test (tc, software_events_recorded);
    tcase_add_test (tc, hardware_events_reported);
    tcase_add_checked_fixture (tw, setup, NULL);
    tcase_add_test (tw, wrapper_passes_exit_status);
    tcase_add_test (tw, wrapper_passes_signals);
    tcase_add_test (tw, wrapper_forwards_signals);
    tcase_add_test (tw, collector_trouble_never_fails_the_job);
    suite_add_tcase (s, tc);
    suite_add_tcase (s, tw);
    return test_run_suite (s);
}
