/* wrapper.c - `metasched-collect -- COMMAND...`: run the job's command as
 * the user, count its process tree, and leave the counters for the epilog.
 *
 * The command is the child; the wrapper stays its parent so that it can
 * read the inherited counters and the children's rusage when the tree has
 * ended. Counting starts at the child's exec (the child waits on a pipe
 * until the counters are attached). Signals the wrapper receives go to the
 * child, and the wrapper ends the way the child ended: same exit status, or
 * killed by the same signal. A collector failure is never a failed job.
 *
 * The job's stdout and stderr belong to the job: the wrapper's notes and
 * warnings (events not counted, a counter file not written, the start
 * gate's retries and a lost claim) go to the node's log (log.h) and, where
 * the counter file is written, into it as note=, for the epilog to name in
 * its own log line. Only what makes the command itself not run is said on
 * stderr as well, as a shell would say it: a command that cannot be
 * executed (exit 127 or 126) and the start gate's refusal (exit 75).
 *
 * The start gate (sibling mode, METASCHED_GATE=1 set by metaschedd): before
 * anything runs, the wrapper claims the meta job METASCHED_JOB_ID through
 * the API at METASCHED_SERVER (POST /v1/jobs/ID/claim with this cluster and
 * this job's own id, SLURM_JOB_ID; the API looks the job up on its cluster
 * and a task of an array claims for its array, so that every task of the
 * copy that claimed first runs and no task of another copy does). The
 * winner runs the command; a sibling that lost exits 0 at once
 * without running it. When the API cannot be reached (or answers 5xx) the
 * wrapper retries for METASCHED_GATE_WAIT_S seconds (default 30) and then
 * refuses to run, exit status 75: a sibling that is not sure it won never
 * runs, so the command never runs twice (doc/daemon.md). Either way the
 * counter file says so (gate=lost or gate=refused), and the epilog records
 * no job_runs row for a command that never ran.
 */
#define _GNU_SOURCE /* pipe2 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/log.h"
#include "collectors/papi_sampler.h"
#include "collectors/rapl.h"
#include "wire/client.h"
#include "metasched/common/util.h"

static const int forwarded[]
    = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGALRM };
#define NFORWARDED (sizeof (forwarded) / sizeof (forwarded[0]))

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "job CLUSTER.ID node NODE: " under Slurm, for the log's lines. */
static const char *
job_words (void)
{
    static char words[224];
    const char *id = getenv ("SLURM_JOB_ID");
    const char *cl = getenv ("SLURM_CLUSTER_NAME");
    const char *node = getenv ("SLURMD_NODENAME");

    if (!id || !*id)
        return "";
    snprintf (words, sizeof (words),
              "job %.63s.%.20s node %.63s: ", cl && *cl ? cl : "?", id,
              node && *node ? node : "?");
    return words;
}

/* A note, warning or error of the wrapper: to the node's log, and (k not
 * NULL) kept for the counter file. Never on the job's stdout or stderr. */
static void wrap_note (collect_counters_t *k, int prio, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static void
wrap_note (collect_counters_t *k, int prio, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    collect_log (prio, "wrapper: %s%s: %s", job_words (),
                 prio <= LOG_ERR       ? "error"
                 : prio == LOG_WARNING ? "warning"
                                       : "note",
                 text);
    if (k) {
        size_t l = strlen (k->note);
        if (l && l + 3 < sizeof (k->note)) {
            memcpy (k->note + l, "; ", 3);
            l += 2;
        }
        if (l + 1 < sizeof (k->note))
            ms_strlcpy (k->note + l, text, sizeof (k->note) - l);
    }
}

/* "events not counted: A, B: why; C: why" (events with one reason
 * together), or "" when every event was counted. */
static void
unavailable_note (const papi_sampler_t *ps, char *out, size_t size)
{
    size_t n = papi_sampler_nevents (ps), l = 0;
    bool done[PAPI_SAMPLER_MAX_EVENTS] = { false };

    out[0] = '\0';
    for (size_t i = 0; i < n && l + 1 < size; i++) {
        const papi_event_t *e = papi_sampler_event (ps, i);
        const char *why = e->why[0] ? e->why : "unavailable";
        if (e->available || done[i])
            continue;
        l += (size_t)snprintf (out + l, size - l, "%s%s",
                               l ? "; " : "events not counted: ", e->name);
        for (size_t j = i + 1; j < n && l + 1 < size; j++) {
            const papi_event_t *f = papi_sampler_event (ps, j);
            if (!f->available && !done[j]
                && !strcmp (why, f->why[0] ? f->why : "unavailable")) {
                l += (size_t)snprintf (out + l, size - l, ", %s", f->name);
                done[j] = true;
            }
        }
        if (l + 1 < size)
            l += (size_t)snprintf (out + l, size - l, ": %s", why);
    }
}

/* SLURM_CPU_FREQ_REQ: a number in kHz, or a governor/keyword we skip. */
static uint32_t
freq_from_env (void)
{
    const char *s = getenv ("SLURM_CPU_FREQ_REQ");
    char *end;
    unsigned long v;

    if (!s || !*s)
        return 0;
    v = strtoul (s, &end, 10);
    if (*end == '-') /* "min-max[:gov]": the maximum is what runs */
        v = strtoul (end + 1, &end, 10);
    return (*end == '\0' || *end == ':') && v > 0 && v < 100000000 ? (uint32_t)v
                                                                   : 0;
}

/* Where the counters go: the option, or the file the prolog made. */
static int
counters_path (const collect_conf_t *c, const collect_wrap_opts_t *o,
               char *path, size_t len, ms_error_t *errp)
{
    collect_job_t j;
    char file[256];

    if (o->counters_path) {
        ms_strlcpy (path, o->counters_path, len);
        return 0;
    }
    if (collect_job_from_env (c, &j, errp) < 0)
        return -1;
    collect_job_file (&j, ".counters", file, sizeof (file));
    snprintf (path, len, "%s/%s", c->job_dir, file);
    return 0;
}

/* ps may be NULL: nothing was counted (the start gate stopped the job). */
static int
write_counters (const char *path, bool create, const collect_counters_t *k,
                const papi_sampler_t *ps, ms_error_t *errp)
{
    spool_rec_t *r = collect_counters_to_rec (k);
    size_t len, off = 0;
    char *text;

    /* say why each unavailable event is (the epilog keeps the names) */
    for (size_t i = 0; ps && i < papi_sampler_nevents (ps); i++) {
        const papi_event_t *e = papi_sampler_event (ps, i);
        char key[80];
        if (e->available)
            continue;
        snprintf (key, sizeof (key), "unavailable.%.60s", e->name);
        spool_rec_set (r, key, e->why[0] ? e->why : "unavailable");
    }
    text = spool_rec_format (r, &len);
    /* The job's file exists (the prolog made it, owned by this user, in a
     * directory the user cannot write): write it in place. */
    int fd = open (path,
                   O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW
                       | (create ? O_CREAT : 0),
                   0600);
    int rc = 0;

    spool_rec_free (r);
    if (fd < 0) {
        rc = ms_err (errp, MS_ERR_SYSTEM, "%s: %s%s", path, strerror (errno),
                     errno == ENOENT ? " (was the prolog configured?)" : "");
        free (text);
        return rc;
    }
    while (off < len) {
        ssize_t n = write (fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
            break;
        }
        off += (size_t)n;
    }
    if (close (fd) < 0 && rc == 0)
        rc = ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    free (text);
    return rc;
}

static void
build_json (const papi_sampler_t *s, collect_counters_t *k)
{
    size_t jl
        = (size_t)snprintf (k->counters_json, sizeof (k->counters_json), "{");

    k->events_used[0] = k->events_unavailable[0] = '\0';
    for (size_t i = 0; i < papi_sampler_nevents (s); i++) {
        const papi_event_t *e = papi_sampler_event (s, i);
        char *list = e->available ? k->events_used : k->events_unavailable;
        size_t size = e->available ? sizeof (k->events_used)
                                   : sizeof (k->events_unavailable);
        size_t l = strlen (list);
        bool ok = true;

        for (const char *p = e->name; *p; p++)
            if (*p == '"' || *p == '\\' || *p == ',' || *p == '=')
                ok = false;
        if (!ok)
            continue;
        if (l + strlen (e->name) + 2 < size)
            snprintf (list + l, size - l, "%s%s", l ? "," : "", e->name);
        if (e->available
            && jl + strlen (e->name) + 32 < sizeof (k->counters_json))
            jl += (size_t)snprintf (k->counters_json + jl,
                                    sizeof (k->counters_json) - jl,
                                    "%s\"%s\": %lld", jl > 1 ? ", " : "",
                                    e->name, e->value < 0 ? 0 : e->value);
    }
    snprintf (k->counters_json + jl, sizeof (k->counters_json) - jl, "}");
}

/* ---- the start gate ---- */

#define GATE_EXIT_REFUSED 75 /* EX_TEMPFAIL: not run, the gate was unsure */
#define GATE_WAIT_DEFAULT_S 30

/* A positive integer from the environment, or 0 with *bad set. */
static long long
env_pos (const char *name, bool *bad)
{
    const char *s = getenv (name);
    char *end;
    long long v;

    if (!s || !*s) {
        *bad = true;
        return 0;
    }
    errno = 0;
    v = strtoll (s, &end, 10);
    if (errno || *end || v <= 0) {
        *bad = true;
        return 0;
    }
    return v;
}

/* 1: run, 0: another sibling won (do not run), -1: refused (errp says
 * why; do not run either). */
static int
start_gate (ms_error_t *errp)
{
    const char *cluster = getenv ("SLURM_CLUSTER_NAME");
    const char *ws = getenv ("METASCHED_GATE_WAIT_S");
    bool bad = false;
    long long id = env_pos ("METASCHED_JOB_ID", &bad);
    long long cjid, wait_s = GATE_WAIT_DEFAULT_S;
    double deadline, delay = 0.5;
    char target[64];
    ms_client_t *c = NULL;
    ms_error_t e;

    if (bad)
        return ms_err (errp, MS_ERR_INPUT,
                       "start gate: METASCHED_JOB_ID is not a job id");
    /* this job's own id, which slurmd sets for the batch step whatever
     * the job inherited; the API takes its array (a task claims for its
     * array) from Slurm's record, never from the environment, where
     * SLURM_ARRAY_JOB_ID may be another job's (one submitted from inside
     * an array task inherits it) */
    cjid = env_pos ("SLURM_JOB_ID", &bad);
    if (bad || !cluster || !*cluster)
        return ms_err (errp, MS_ERR_INPUT,
                       "start gate: SLURM_CLUSTER_NAME and SLURM_JOB_ID must "
                       "name this job (not run under Slurm?)");
    if (ws && *ws) {
        char *end;
        wait_s = strtoll (ws, &end, 10);
        if (*end || wait_s < 0 || wait_s > 3600)
            return ms_err (errp, MS_ERR_INPUT,
                           "start gate: METASCHED_GATE_WAIT_S '%s': expected "
                           "0..3600 seconds",
                           ws);
    }
    if (ms_client_open (NULL, &c, &e) < 0)
        return ms_err (errp, MS_ERR_INPUT, "start gate: %s", e.text);
    ms_client_set_timeouts (c, 5, 20);
    snprintf (target, sizeof (target), "/v1/jobs/%lld/claim", id);
    deadline = now () + (double)wait_s;
    for (;;) {
        json_t *body = json_pack ("{s:s,s:I}", "cluster", cluster,
                                  "cluster_job_id", (json_int_t)cjid);
        json_t *reply = NULL;
        long status = 0;
        int rc;

        ms_err_clear (&e);
        rc = ms_client_call (c, "POST", target, body, &status, &reply, &e);
        json_decref (body);
        if (rc == 0 || status == 409) {
            json_t *run = reply ? json_object_get (reply, "run") : NULL;
            bool won = rc == 0 && json_is_true (run);
            json_decref (reply);
            ms_client_close (c);
            if (rc < 0 && !json_is_false (run))
                return ms_err (errp, MS_ERR_PROTOCOL,
                               "start gate: %s answered 409 without "
                               "{\"run\": false}",
                               ms_client_server (NULL));
            return won ? 1 : 0;
        }
        json_decref (reply);
        /* no answer, the server cannot decide now (5xx), or this user
         * holds all the connections it may (429): try again */
        if ((e.kind == MS_ERR_HTTP && status < 500 && status != 429)
            || now () + delay > deadline)
            break;
        wrap_note (NULL, LOG_WARNING, "start gate: %s; trying again in %.1f s",
                   e.text, delay);
        struct timespec ts
            = { (time_t)delay, (long)((delay - floor (delay)) * 1e9) };
        nanosleep (&ts, NULL);
        delay = delay * 2 > 8 ? 8 : delay * 2;
    }
    ms_client_close (c);
    return ms_err (errp, MS_ERR_CONNECT,
                   "start gate: cannot claim meta job %lld for %s job %lld: "
                   "%s",
                   id, cluster, cjid, e.text);
}

/* The command will not run: leave the gate's word (lost, refused) in the
 * counter file, so that the epilog does not take the job for a run. */
static void
gate_stopped (const collect_conf_t *c, const collect_wrap_opts_t *o,
              collect_counters_t *k, const char *why)
{
    bool bad = false;
    char path[1024];
    ms_error_t e;

    ms_strlcpy (k->gate, why, sizeof (k->gate));
    k->gate_job_id = (uint64_t)env_pos ("METASCHED_JOB_ID", &bad);
    k->start_time = k->end_time = now ();
    if (counters_path (c, o, path, sizeof (path), &e) < 0
        || write_counters (path, o->counters_path != NULL, k, NULL, &e) < 0)
        wrap_note (NULL, LOG_WARNING, "the start gate's word not saved: %s",
                   e.text);
}

/* METASCHED_GATE=1 (sibling mode): claim the meta job first. True where
 * the command must not run, with the wrapper's wait status in *status. */
static bool
gate_says_stop (const collect_conf_t *c, const collect_wrap_opts_t *o,
                collect_counters_t *k, int *status)
{
    const char *g = getenv ("METASCHED_GATE");
    ms_error_t e;
    int run;

    if (!g || strcmp (g, "1"))
        return false;
    run = start_gate (&e);
    if (run < 0) {
        /* the job's own outcome (it did not run): said on its stderr,
         * where the user looks for why */
        fprintf (stderr,
                 "metasched-collect: %s; not running the script "
                 "(exit %d) so that it never runs twice\n",
                 e.text, GATE_EXIT_REFUSED);
        wrap_note (NULL, LOG_ERR, "%s; not running the script (exit %d)",
                   e.text, GATE_EXIT_REFUSED);
        gate_stopped (c, o, k, "refused");
        *status = GATE_EXIT_REFUSED << 8; /* a wait status: exited 75 */
        return true;
    }
    if (run == 0) {
        /* a note, not the job's output: the copy that won runs the script
         * and may well write the same output file */
        wrap_note (NULL, LOG_NOTICE,
                   "start gate: meta job %s was claimed by another "
                   "sibling; not running the script",
                   getenv ("METASCHED_JOB_ID"));
        gate_stopped (c, o, k, "lost");
        *status = 0;
        return true;
    }
    return false;
}

/* RAPL, where the user can read it: opened and sampled once into *acc,
 * with the interval that sees every counter wrap; NULL where not */
static rapl_t *
wrap_rapl_open (const collect_conf_t *c, rapl_accum_t *acc, double *interval)
{
    char root[512];
    const char *node = getenv ("SLURMD_NODENAME");
    rapl_t *rapl = NULL;
    rapl_sample_t smp;
    ms_error_t e;

    collect_powercap_root (c, node ? node : "localhost", root, sizeof (root));
    if (rapl_open (root, &rapl, &e) < 0)
        return NULL;
    if (rapl_read (rapl, &smp, &e) <= 0) {
        rapl_close (rapl);
        return NULL;
    }
    rapl_accum_start (acc, rapl, &smp);
    *interval = rapl_min_interval (rapl, c->max_power_w);
    return rapl;
}

/* Until the command ends: RAPL sampled every interval, the forwarded
 * signals passed on. Its wait status. */
static int
wait_command (pid_t pid, const sigset_t *block, double interval, rapl_t *rapl,
              rapl_accum_t *acc)
{
    rapl_sample_t smp;
    int status = 0;

    for (;;) {
        struct timespec ts
            = { (time_t)interval, (long)((interval - floor (interval)) * 1e9) };
        siginfo_t si;
        int sig = sigtimedwait (block, &si, &ts);
        if (sig < 0) {
            if (errno == EAGAIN && rapl && rapl_read (rapl, &smp, NULL) > 0)
                rapl_accum_add (acc, rapl, &smp);
            continue;
        }
        if (sig == SIGCHLD) {
            pid_t w = waitpid (pid, &status, WNOHANG);
            if (w == pid)
                break;
            continue;
        }
        kill (pid, sig); /* pass it on */
    }
    return status;
}

/* The ended command's counters, energy, resources and exit into *k */
static void
wrap_results (papi_sampler_t *ps, rapl_t *rapl, rapl_accum_t *acc,
              int status, collect_counters_t *k)
{
    rapl_sample_t smp;
    struct rusage ru;
    char why[768];

    papi_sampler_stop (ps);
    build_json (ps, k);
    unavailable_note (ps, why, sizeof (why));
    if (why[0])
        wrap_note (k, LOG_NOTICE, "%s", why);
    if (rapl) {
        if (rapl_read (rapl, &smp, NULL) > 0)
            rapl_accum_add (acc, rapl, &smp);
        rapl_accum_energy (acc, rapl, &k->user_pkg_j, &k->user_dram_j);
        rapl_close (rapl);
    }
    if (getrusage (RUSAGE_CHILDREN, &ru) == 0) {
        k->utime_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
        k->stime_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
        k->maxrss_kb = ru.ru_maxrss;
    }
    k->has_exit = true;
    if (WIFEXITED (status)) {
        k->exit_code = WEXITSTATUS (status);
        k->term_signal = 0;
    } else if (WIFSIGNALED (status)) {
        k->exit_code = -1;
        k->term_signal = WTERMSIG (status);
    }
}

int
collect_wrap (const collect_conf_t *c, const collect_wrap_opts_t *o,
              char *const argv[], collect_counters_t *k, ms_error_t *errp)
{
    int go[2], fail[2], status = 0, err = 0;
    sigset_t block, old;
    pid_t pid;
    papi_sampler_t *ps;
    rapl_t *rapl = NULL;
    rapl_accum_t acc;
    double interval = 3600;
    char path[1024];
    ms_error_t e;

    collect_counters_init (k);
    if (gate_says_stop (c, o, k, &status))
        return status;
    if (o->app)
        ms_strlcpy (k->app, o->app, sizeof (k->app));
    k->freq_req_khz = freq_from_env ();

    /* where RAPL is readable by the user, measure energy too */
    rapl = wrap_rapl_open (c, &acc, &interval);

    if (pipe2 (go, O_CLOEXEC) < 0 || pipe2 (fail, O_CLOEXEC) < 0) {
        rapl_close (rapl);
        return ms_err (errp, MS_ERR_SYSTEM, "pipe: %s", strerror (errno));
    }
    /* SIGCHLD and the forwarded signals are taken with sigtimedwait */
    sigemptyset (&block);
    sigaddset (&block, SIGCHLD);
    for (size_t i = 0; i < NFORWARDED; i++)
        sigaddset (&block, forwarded[i]);
    sigprocmask (SIG_BLOCK, &block, &old);

    k->start_time = now ();
    if ((pid = fork ()) < 0) {
        int e2 = errno;
        sigprocmask (SIG_SETMASK, &old, NULL);
        rapl_close (rapl);
        return ms_err (errp, MS_ERR_SYSTEM, "fork: %s",
                       e2 ? strerror (e2) : "");
    }
    if (pid == 0) {
        char b;
        sigprocmask (SIG_SETMASK, &old, NULL);
        close (go[1]);
        close (fail[0]);
        while (read (go[0], &b, 1) < 0 && errno == EINTR)
            ;
        execvp (argv[0], argv);
        err = errno;
        if (write (fail[1], &err, sizeof (err)) < 0)
            _exit (127);
        _exit (err == ENOENT ? 127 : 126);
    }
    close (go[0]);
    close (fail[1]);
    ps = papi_sampler_new (c->events[0] ? c->events : NULL);
    papi_sampler_attach (ps, pid);
    if (write (go[1], "g", 1) < 0)
        wrap_note (k, LOG_WARNING, "could not release the command: %s",
                   strerror (errno));
    close (go[1]);
    if (read (fail[0], &err, sizeof (err)) == (ssize_t)sizeof (err)) {
        /* exec failed: the command's own failure, reported on its stderr
         * as a shell does */
        fprintf (stderr, "metasched-collect: %s: %s\n", argv[0],
                 strerror (err));
    }
    close (fail[0]);

    status = wait_command (pid, &block, interval, rapl, &acc);
    k->end_time = now ();
    wrap_results (ps, rapl, &acc, status, k);
    sigprocmask (SIG_SETMASK, &old, NULL);

    if (counters_path (c, o, path, sizeof (path), &e) < 0
        || write_counters (path, o->counters_path != NULL, k, ps, &e) < 0)
        wrap_note (NULL, LOG_WARNING, "counters not saved: %s", e.text);
    papi_sampler_free (ps);
    return status;
}
