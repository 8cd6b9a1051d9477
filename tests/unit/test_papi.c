/* test_papi.c - counters of a real process tree on this machine, and the
 * job wrapper around real commands: software events are recorded, events
 * the hardware (or PAPI) cannot count are reported unavailable with a
 * reason, the job's status and signals pass through untouched, and the
 * wrapper's notes reach the log and the counter file, never the job's
 * output.
 *
 * Whether hardware events can be counted depends on the machine (a PMU,
 * one that libpfm knows, a hypervisor that passes it through): the tests
 * ask PAPI directly (papi_probe) and hold the sampler to that answer, on
 * any x86-64 machine, virtual or not. */
#include "config.h"

#include <fcntl.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/log.h"
#include "collectors/papi_sampler.h"
#include "tests/testutil.h"

/* Can PAPI count these events on this machine? Asked of PAPI itself,
 * without the sampler: one event set, the events added in this order
 * (as the sampler adds them), started, some work counted, stopped. ok[i]
 * says whether events[i] was added and read with a value above 0; why
 * says what failed (for the messages). PAPI_num_hwctrs () is no answer:
 * a VM may report counters and still refuse every hardware event. */
static void
papi_probe (const char *const *events, size_t n, bool *ok, char *why,
            size_t len)
{
    int es = PAPI_NULL, rc, slot[8], nadded = 0;
    long long v[8] = { 0 };
    volatile unsigned long sink = 0;

    ck_assert (n <= 8);
    snprintf (why, len, "counted");
    for (size_t i = 0; i < n; i++) {
        ok[i] = false;
        slot[i] = -1;
    }
    if (PAPI_is_initialized () == PAPI_NOT_INITED
        && (rc = PAPI_library_init (PAPI_VER_CURRENT)) != PAPI_VER_CURRENT) {
        snprintf (why, len, "PAPI_library_init: %s",
                  rc > 0 ? "version mismatch" : PAPI_strerror (rc));
        return;
    }
    if ((rc = PAPI_create_eventset (&es)) != PAPI_OK) {
        snprintf (why, len, "PAPI_create_eventset: %s", PAPI_strerror (rc));
        PAPI_shutdown ();
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if ((rc = PAPI_add_named_event (es, events[i])) == PAPI_OK)
            slot[i] = nadded++;
        else
            snprintf (why, len, "PAPI_add_named_event %s: %s", events[i],
                      PAPI_strerror (rc));
    }
    if (nadded > 0) {
        if ((rc = PAPI_start (es)) != PAPI_OK)
            snprintf (why, len, "PAPI_start: %s", PAPI_strerror (rc));
        else {
            for (unsigned long i = 0; i < 10000000; i++)
                sink += i;
            if ((rc = PAPI_stop (es, v)) != PAPI_OK)
                snprintf (why, len, "PAPI_stop: %s", PAPI_strerror (rc));
            else
                for (size_t i = 0; i < n; i++)
                    ok[i] = slot[i] >= 0 && v[slot[i]] > 0;
        }
    }
    PAPI_cleanup_eventset (es);
    PAPI_destroy_eventset (&es);
    PAPI_shutdown ();
}

/* The probe for the default hardware events that give CPI. */
static const char *const cpi_events[] = { "PAPI_TOT_CYC", "PAPI_TOT_INS" };

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

/* The sampler's word on hardware events agrees with PAPI's on this
 * machine: counted (with values) where PAPI can count them, unavailable
 * with PAPI's reason where it cannot; either way the software events and
 * the run are recorded. */
START_TEST (hardware_events_reported)
{
    bool can[2];
    char probe_why[256];
    papi_sampler_t *s;
    int go, status, n;
    pid_t pid;
    long long clock_ns = 0;

    papi_probe (cpi_events, 2, can, probe_why, sizeof (probe_why));
    s = papi_sampler_new ("PAPI_TOT_CYC,PAPI_TOT_INS,NO_SUCH_EVENT_X,"
                          "bad\"name,perf::TASK-CLOCK");
    pid = spawn_tree (&go);
    n = papi_sampler_attach (s, pid);
    ck_assert_int_eq (write (go, "g", 1), 1);
    close (go);
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    papi_sampler_stop (s);
    ck_assert_uint_eq (papi_sampler_nevents (s), 5);
    /* what attach promised is what was counted */
    ck_assert_int_eq (n, can[0] + can[1] + 1);
    for (size_t i = 0; i < papi_sampler_nevents (s); i++) {
        const papi_event_t *e = papi_sampler_event (s, i);
        /* every event is either counted or says why not */
        ck_assert_msg (e->available || e->why[0], "%s: no reason", e->name);
        ck_assert_msg (!e->available || !e->why[0], "%s: counted, but '%s'",
                       e->name, e->why);
    }
    for (size_t i = 0; i < 2; i++) {
        const papi_event_t *e = papi_sampler_event (s, i);
        ck_assert_str_eq (e->name, cpi_events[i]);
        ck_assert_msg (e->available == can[i],
                       "%s: the sampler says %s (%s), PAPI on this machine "
                       "says %s (%s)",
                       e->name, e->available ? "counted" : "unavailable",
                       e->why, can[i] ? "countable" : "not countable",
                       probe_why);
        if (can[i]) {
            /* three shells counting to 20000: millions of both */
            ck_assert_str_eq (e->backend, "papi");
            ck_assert_msg (e->value > 100000, "%s: %lld", e->name, e->value);
        } else
            ck_assert_msg (strstr (e->why, "PAPI") != NULL,
                           "%s: reason '%s' does not name PAPI", e->name,
                           e->why);
    }
    /* NO_SUCH_EVENT_X: no machine counts it */
    ck_assert (!papi_sampler_event (s, 2)->available);
    ck_assert (strstr (papi_sampler_event (s, 2)->why, "PAPI") != NULL);
    ck_assert_str_eq (papi_sampler_event (s, 3)->why, "not an event name");
    /* and the software event is counted either way */
    ck_assert (papi_sampler_event (s, 4)->available);
    ck_assert (papi_sampler_value (s, "perf::TASK-CLOCK", &clock_ns));
    ck_assert_msg (clock_ns > 1000000, "task clock %lld ns", clock_ns);
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
    collect_wrap_opts_t o = { .app = "unit", .counters_path = counters };
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
    bool can[2], can_cycles;
    char why[256];

    close (fd);
    papi_probe (cpi_events, 2, can, why, sizeof (why));
    can_cycles = can[0];
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
    /* the default events: cycles where this machine can count them, else
     * recorded unavailable with the reason */
    if (can_cycles) {
        ck_assert_msg (strstr (back.events_used, "PAPI_TOT_CYC") != NULL,
                       "PAPI counts cycles here, the wrapper did not: %s",
                       spool_rec_get (rec, "unavailable.PAPI_TOT_CYC"));
        ck_assert_int_gt (back.cycles, 0);
    } else {
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

/* What the log received (collect_log_capture): "PRIO LINE\n" each. */
static char logged[8192];

static void
capture (int prio, const char *line, void *arg)
{
    size_t l = strlen (logged);
    (void)arg;
    snprintf (logged + l, sizeof (logged) - l, "%d %s\n", prio, line);
}

static void
slurp (const char *path, char *buf, size_t len)
{
    int fd = open (path, O_RDONLY);
    ssize_t n;

    ck_assert_int_ge (fd, 0);
    n = read (fd, buf, len - 1);
    ck_assert_int_ge (n, 0);
    buf[n] = '\0';
    close (fd);
    unlink (path);
}

/* Run the wrapper with its stdout and stderr in two files, as Slurm runs
 * a batch step with the job's output files; out and err get what the
 * files hold afterwards. */
static int
wrap_job_output (const char *counters, char *const argv[],
                 collect_counters_t *k, char *out, char *err, size_t len)
{
    char po[] = "/tmp/ms-job-out-XXXXXX", pe[] = "/tmp/ms-job-err-XXXXXX";
    int fo = mkstemp (po), fe = mkstemp (pe), save1, save2, status;

    ck_assert (fo >= 0 && fe >= 0);
    fflush (stdout);
    fflush (stderr);
    save1 = dup (1);
    save2 = dup (2);
    ck_assert (dup2 (fo, 1) == 1 && dup2 (fe, 2) == 2);
    status = wrap (counters, argv, k);
    fflush (stdout);
    fflush (stderr);
    dup2 (save1, 1);
    dup2 (save2, 2);
    close (save1);
    close (save2);
    close (fo);
    close (fe);
    slurp (po, out, len);
    slurp (pe, err, len);
    return status;
}

/* A job's output holds what the job wrote and nothing else, even when the
 * wrapper has something to say: its notes go to the log and the counter
 * file. The note is forced on every machine: an event no PAPI knows. */
START_TEST (wrapper_notes_stay_out_of_job_output)
{
    char path[] = "/tmp/ms-counters-XXXXXX";
    int fd = mkstemp (path), status;
    char *argv[] = { "/bin/sh", "-c", "echo job-out; echo job-err >&2", NULL };
    char out[512], err[512];
    collect_counters_t k, back;
    spool_rec_t *rec;
    ms_error_t e;
    const char *note;

    close (fd);
    collect_conf_set (&conf, "events", "NO_SUCH_EVENT_X,perf::TASK-CLOCK",
                      NULL);

    /* through the real log (syslog, wherever this machine has one) */
    status = wrap_job_output (path, argv, &k, out, err, sizeof (out));
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    ck_assert_str_eq (out, "job-out\n");
    ck_assert_str_eq (err, "job-err\n");
    /* the note is kept in the counter file for the epilog */
    ck_assert_int_eq (spool_read (path, "counters", &rec, &e), 0);
    note = spool_rec_get (rec, "note");
    ck_assert_msg (note && strstr (note, "events not counted: NO_SUCH_EVENT_X")
                       && strstr (note, "PAPI"),
                   "note '%s'", note ? note : "(none)");
    ck_assert_int_eq (collect_counters_from_rec (rec, &back, &e), 0);
    ck_assert_str_eq (back.note, note);
    ck_assert_str_eq (back.note, k.note);
    spool_rec_free (rec);

    /* the same note, as the log receives it */
    logged[0] = '\0';
    collect_log_capture (capture, NULL);
    status = wrap_job_output (path, argv, &k, out, err, sizeof (out));
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    ck_assert_str_eq (out, "job-out\n");
    ck_assert_str_eq (err, "job-err\n");
    ck_assert_msg (strstr (logged, "5 wrapper: ") != NULL
                       && strstr (logged, "note: events not counted: "
                                          "NO_SUCH_EVENT_X: ")
                              != NULL,
                   "logged: %s", logged);

    /* a warning (the counter file cannot be written): the log only */
    logged[0] = '\0';
    status = wrap_job_output ("/nonexistent/dir/counters", argv, &k, out, err,
                              sizeof (out));
    collect_log_capture (NULL, NULL);
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    ck_assert_str_eq (out, "job-out\n");
    ck_assert_str_eq (err, "job-err\n");
    ck_assert_msg (strstr (logged, "4 wrapper: ") != NULL
                       && strstr (logged, "warning: counters not saved: "
                                          "/nonexistent/dir/counters")
                              != NULL,
                   "logged: %s", logged);
    unlink (path);
}
END_TEST

/* The machine of the finding (a VM whose PAPI reports hardware counters
 * that the kernel cannot count: "PAPI event set on pid N: Event does not
 * exist"), made on any x86-64 machine whose kernel drives no core PMU by
 * forcing libpfm's PMU model (LIBPFM_FORCE_PMU). The sampler says the
 * hardware events are unavailable, as PAPI itself finds, the software
 * events and the run are recorded, and the job's output holds only what
 * the job wrote. Where the kernel drives a PMU, no such machine can be
 * made here: the test says so and checks nothing. */
START_TEST (hardware_counters_reported_but_refused)
{
#if defined(__x86_64__)
    static const char *const pmus[]
        = { "/sys/bus/event_source/devices/cpu",
            "/sys/bus/event_source/devices/cpu_core",
            "/sys/bus/event_source/devices/cpu_atom", NULL };
    char path[] = "/tmp/ms-counters-XXXXXX";
    char *argv[] = { "/bin/sh", "-c", "echo job-out", NULL };
    char out[512], err[512], why[256];
    collect_counters_t k;
    papi_sampler_t *s;
    bool can[2];
    int hw, go, status, fd;
    pid_t pid;
    long long clock_ns = 0;

    for (int i = 0; pmus[i]; i++)
        if (access (pmus[i], F_OK) == 0) {
            printf ("# hardware_counters_reported_but_refused: not run: the "
                    "kernel drives a PMU here (%s)\n",
                    pmus[i]);
            return;
        }
    setenv ("LIBPFM_FORCE_PMU", "amd64", 1);
    hw = PAPI_library_init (PAPI_VER_CURRENT) == PAPI_VER_CURRENT
             ? PAPI_num_hwctrs ()
             : 0;
    PAPI_shutdown ();
    if (hw <= 0) {
        printf ("# hardware_counters_reported_but_refused: not run: PAPI "
                "reports no hardware counters even with a forced PMU\n");
        unsetenv ("LIBPFM_FORCE_PMU");
        return;
    }
    /* PAPI says it has counters; the kernel counts none */
    papi_probe (cpi_events, 2, can, why, sizeof (why));
    ck_assert_msg (!can[0] && !can[1], "PAPI counted without a PMU? (%s)", why);

    s = papi_sampler_new ("PAPI_TOT_CYC,PAPI_TOT_INS,perf::TASK-CLOCK");
    pid = spawn_tree (&go);
    ck_assert_int_eq (papi_sampler_attach (s, pid), 1);
    ck_assert_int_eq (write (go, "g", 1), 1);
    close (go);
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    papi_sampler_stop (s);
    for (size_t i = 0; i < 2; i++)
        ck_assert_msg (!papi_sampler_event (s, i)->available
                           && strstr (papi_sampler_event (s, i)->why, "PAPI"),
                       "%s: available %d (%s)", papi_sampler_event (s, i)->name,
                       papi_sampler_event (s, i)->available,
                       papi_sampler_event (s, i)->why);
    ck_assert (papi_sampler_value (s, "perf::TASK-CLOCK", &clock_ns));
    ck_assert_int_gt (clock_ns, 1000000);
    papi_sampler_free (s);

    /* the wrapper on that machine: the note goes to the counter file (and
     * the log), the job's output is the job's */
    fd = mkstemp (path);
    close (fd);
    status = wrap_job_output (path, argv, &k, out, err, sizeof (out));
    ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    ck_assert_str_eq (out, "job-out\n");
    ck_assert_str_eq (err, "");
    ck_assert_msg (strstr (k.note, "PAPI_TOT_CYC") != NULL, "note '%s'",
                   k.note);
    ck_assert (strstr (k.events_used, "perf::TASK-CLOCK") != NULL);
    unlink (path);
    unsetenv ("LIBPFM_FORCE_PMU");
#else
    printf ("# hardware_counters_reported_but_refused: not run: the forced "
            "PMU is an x86-64 one\n");
#endif
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
    tcase_add_test (tw, wrapper_notes_stay_out_of_job_output);
    tcase_add_test (tw, hardware_counters_reported_but_refused);
    tcase_add_test (tw, collector_trouble_never_fails_the_job);
    suite_add_tcase (s, tc);
    suite_add_tcase (s, tw);
    return test_run_suite (s);
}
