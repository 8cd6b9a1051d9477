/* nodeside.c - `metasched-collect prolog|epilog`, run by slurmd as root on
 * every node of a job (slurm.conf Prolog=, Epilog=, PrologFlags=Alloc).
 *
 * The prolog reads RAPL and leaves SPOOL/state/CLUSTER.JOB.NODE.state
 * (root-only), starts a sampler (detached, its own session) that re-reads
 * RAPL every rapl_min_interval() seconds so that no counter wraps twice
 * unseen, and creates the job's counter file for the user's wrapper.
 *
 * The epilog stops the sampler, takes the last reading, merges the
 * counter file, asks Slurm (scontrol) for the frequency request, nodes and
 * exclusivity, and inserts one job_runs row for this node with the
 * collector role, or spools it. Errors are logged, the exit status is 0.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/cpufreq.h"
#include "collectors/log.h"
#include "collectors/rapl.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"

static volatile sig_atomic_t sampler_stop;

static void
on_term (int sig)
{
    (void)sig;
    sampler_stop = 1;
}

static int
ensure_dir (const char *path, mode_t mode, ms_error_t *errp)
{
    struct stat st;

    if (mkdir (path, mode) < 0 && errno != EEXIST)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    if (lstat (path, &st) < 0 || !S_ISDIR (st.st_mode))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: not a directory", path);
    if (st.st_uid != geteuid ())
        return ms_err (errp, MS_ERR_AUTH, "%s: not owned by uid %ld", path,
                       (long)geteuid ());
    if ((st.st_mode & 07777) != mode && chmod (path, mode) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    return 0;
}

static void
state_dir (const collect_conf_t *c, char *out, size_t len)
{
    snprintf (out, len, "%s/state", c->spool_dir);
}

/* ---- RAPL state across processes ---- */

static void
accum_to_rec (spool_rec_t *r, const rapl_t *rapl, const rapl_accum_t *a)
{
    spool_rec_setf (r, "zones", "%zu", rapl_nzones (rapl));
    spool_rec_setf (r, "first_time", "%.6f", a->first.time);
    spool_rec_setf (r, "last_time", "%.6f", a->last.time);
    for (size_t i = 0; i < rapl_nzones (rapl); i++) {
        char key[48];
        const rapl_zone_t *z = rapl_zone (rapl, i);
        snprintf (key, sizeof (key), "zone.%zu.path", i);
        spool_rec_set (r, key, z->path);
        snprintf (key, sizeof (key), "zone.%zu.valid", i);
        spool_rec_set (r, key, a->valid[i] ? "1" : "0");
        snprintf (key, sizeof (key), "zone.%zu.last_uj", i);
        spool_rec_setf (r, key, "%llu", (unsigned long long)a->last.uj[i]);
        snprintf (key, sizeof (key), "zone.%zu.total_uj", i);
        spool_rec_setf (r, key, "%.0f", a->total_uj[i]);
        snprintf (key, sizeof (key), "zone.%zu.wraps", i);
        spool_rec_setf (r, key, "%u", a->wraps[i]);
    }
}

/* Restore; the zones must be the ones found again now (same paths). */
static int
accum_from_rec (const spool_rec_t *r, const rapl_t *rapl, rapl_accum_t *a,
                ms_error_t *errp)
{
    uint64_t n;

    memset (a, 0, sizeof (*a));
    if (spool_rec_get_u64 (r, "zones", &n, errp) <= 0 || n != rapl_nzones (rapl))
        return ms_err (errp, MS_ERR_INPUT, "%s: RAPL zones changed",
                       spool_rec_name (r));
    if (spool_rec_get_double (r, "first_time", &a->first.time, errp) <= 0
        || spool_rec_get_double (r, "last_time", &a->last.time, errp) <= 0)
        return ms_err (errp, MS_ERR_INPUT, "%s: no RAPL times",
                       spool_rec_name (r));
    for (size_t i = 0; i < n; i++) {
        char key[48];
        const char *v;
        uint64_t u;
        double d;
        snprintf (key, sizeof (key), "zone.%zu.path", i);
        if (!(v = spool_rec_get (r, key)) || strcmp (v, rapl_zone (rapl, i)->path))
            return ms_err (errp, MS_ERR_INPUT, "%s: RAPL zone %zu changed",
                           spool_rec_name (r), i);
        snprintf (key, sizeof (key), "zone.%zu.valid", i);
        a->valid[i] = (v = spool_rec_get (r, key)) && !strcmp (v, "1");
        snprintf (key, sizeof (key), "zone.%zu.last_uj", i);
        if (spool_rec_get_u64 (r, key, &u, errp) < 0)
            return -1;
        a->last.uj[i] = u;
        a->last.ok[i] = a->valid[i];
        snprintf (key, sizeof (key), "zone.%zu.total_uj", i);
        if (spool_rec_get_double (r, key, &d, errp) < 0)
            return -1;
        a->total_uj[i] = d;
        snprintf (key, sizeof (key), "zone.%zu.wraps", i);
        if (spool_rec_get_u64 (r, key, &u, errp) < 0)
            return -1;
        a->wraps[i] = (unsigned)u;
    }
    return 0;
}

/* Observed frequency: the mean of the node's cpufreq readings taken
 * with every RAPL sample (sum and count carried in the state). */
static double freq_sum;
static unsigned freq_n;

static void
sample_freq (const collect_conf_t *c, const collect_job_t *j)
{
    char root[512];
    uint32_t f;

    collect_expand_node (c->cpufreq_root, j->node, root, sizeof (root));
    if ((f = cpufreq_mean_khz (root)) > 0) {
        freq_sum += f;
        freq_n++;
    }
}

/* When the prolog ran (root's clock): the start of the job's window. */
static double prolog_t;

static void
freq_from_rec (const spool_rec_t *r)
{
    uint64_t n = 0;
    double s = 0, t = 0;
    if (spool_rec_get_double (r, "freq_sum_khz", &s, NULL) > 0
        && spool_rec_get_u64 (r, "freq_n", &n, NULL) > 0 && s >= 0) {
        freq_sum = s;
        freq_n = (unsigned)n;
    }
    if (spool_rec_get_double (r, "prolog_time", &t, NULL) > 0 && t > 0
        && t < 1e11)
        prolog_t = t;
}

static double
now_real (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long long proc_start (long pid);

static int
write_state (const collect_conf_t *c, const collect_job_t *j,
             const rapl_t *rapl, const rapl_accum_t *a, long sampler_pid,
             ms_error_t *errp)
{
    char dir[600], file[256];
    spool_rec_t *r = spool_rec_new ("node_state");
    int rc;

    state_dir (c, dir, sizeof (dir));
    collect_job_file (j, ".state", file, sizeof (file));
    spool_rec_setf (r, "job", "%llu", (unsigned long long)j->job_id);
    spool_rec_set (r, "cluster", j->cluster);
    spool_rec_set (r, "node", j->node);
    if (sampler_pid > 0) {
        spool_rec_setf (r, "sampler_pid", "%ld", sampler_pid);
        spool_rec_setf (r, "sampler_start", "%llu", proc_start (sampler_pid));
    }
    if (rapl && a)
        accum_to_rec (r, rapl, a);
    if (freq_n) {
        spool_rec_setf (r, "freq_sum_khz", "%.0f", freq_sum);
        spool_rec_setf (r, "freq_n", "%u", freq_n);
    }
    if (prolog_t > 0)
        spool_rec_setf (r, "prolog_time", "%.6f", prolog_t);
    rc = spool_write (dir, file, r, 0600, errp);
    spool_rec_free (r);
    return rc;
}

/* ---- prolog ---- */

static int
create_counter_file (const collect_conf_t *c, const collect_job_t *j,
                     ms_error_t *errp)
{
    char file[256], path[1024];
    int fd;

    if (ensure_dir (c->job_dir, 0711, errp) < 0)
        return -1;
    collect_job_file (j, ".counters", file, sizeof (file));
    snprintf (path, sizeof (path), "%s/%s", c->job_dir, file);
    unlink (path); /* a leftover of an earlier job with this id */
    fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    if (j->uid >= 0 && fchown (fd, (uid_t)j->uid, (gid_t)(j->gid >= 0 ? j->gid : 0)) < 0) {
        int e = errno;
        close (fd);
        unlink (path);
        return ms_err (errp, MS_ERR_SYSTEM, "%s: chown: %s", path, strerror (e));
    }
    close (fd);
    return 0;
}

static void
detach_stdio (void)
{
    int fd = open ("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2 (fd, 0);
        dup2 (fd, 1);
        dup2 (fd, 2);
        if (fd > 2)
            close (fd);
    }
    for (int i = 3; i < 1024; i++)
        close (i);
}

/* Start the sampler, detached: a double fork into its own session, so
 * that neither slurmd's wait for the prolog nor its kill of the prolog's
 * process group touches it. */
static long
start_sampler (const collect_conf_t *c, const collect_job_t *j)
{
    int p[2];
    pid_t pid;
    long spid = -1;

    if (pipe (p) < 0)
        return -1;
    if ((pid = fork ()) < 0) {
        close (p[0]);
        close (p[1]);
        return -1;
    }
    if (pid == 0) {
        pid_t g;
        close (p[0]);
        setsid ();
        if ((g = fork ()) != 0) {
            long v = (long)g;
            if (write (p[1], &v, sizeof (v)) < 0)
                _exit (1);
            _exit (0);
        }
        close (p[1]);
        detach_stdio ();
        _exit (collect_sampler_run (c, j, NULL) < 0 ? 1 : 0);
    }
    close (p[1]);
    if (read (p[0], &spid, sizeof (spid)) != (ssize_t)sizeof (spid))
        spid = -1;
    close (p[0]);
    waitpid (pid, NULL, 0);
    return spid;
}

/* Wait until the sampler has written its pid into the state: the epilog
 * finds the sampler only there. Without the wait, an epilog that follows at
 * once (a job that ends in milliseconds, as a sibling that lost the start
 * gate does) may remove the state between the sampler's first read and its
 * first write; the sampler then writes the state anew and, finding it
 * there, samples on with no one left to stop it. 0 when recorded or when
 * the sampler is gone. */
static int
await_sampler (const collect_conf_t *c, const collect_job_t *j, long spid)
{
    char dir[600], file[256], path[1024];

    state_dir (c, dir, sizeof (dir));
    collect_job_file (j, ".state", file, sizeof (file));
    snprintf (path, sizeof (path), "%s/%s", dir, file);
    for (int i = 0; i < 200; i++) { /* 2 s */
        struct timespec ts = { 0, 10000000 };
        spool_rec_t *st = NULL;
        int64_t pid = -1;
        if (spool_read (path, "node_state", &st, NULL) == 0
            && spool_rec_get_i64 (st, "sampler_pid", &pid, NULL) > 0
            && pid == spid) {
            spool_rec_free (st);
            return 0;
        }
        spool_rec_free (st);
        if (kill ((pid_t)spid, 0) < 0 && errno == ESRCH)
            return 0; /* it ended (it says nothing: detached) */
        nanosleep (&ts, NULL);
    }
    return -1;
}

int
collect_prolog (const collect_conf_t *c, const collect_job_t *j,
                ms_error_t *errp)
{
    char root[512], dir[600];
    rapl_t *rapl = NULL;
    rapl_sample_t s;
    rapl_accum_t a;
    ms_error_t e;
    long spid;
    int rc = 0;

    prolog_t = now_real ();
    if (ensure_dir (c->spool_dir, 0700, errp) < 0)
        return -1;
    state_dir (c, dir, sizeof (dir));
    if (ensure_dir (dir, 0700, errp) < 0)
        return -1;
    if (create_counter_file (c, j, &e) < 0) {
        /* the job still runs; only its counters will be missing */
        if (errp)
            *errp = e;
        rc = -1;
    }
    sample_freq (c, j);
    collect_powercap_root (c, j->node, root, sizeof (root));
    if (rapl_open (root, &rapl, &e) < 0 || rapl_read (rapl, &s, &e) < 0) {
        /* the epilog will still record runtime and counters */
        write_state (c, j, NULL, NULL, -1, NULL);
        if (errp && rc == 0)
            *errp = e;
        if (rapl && rapl_any_unreadable (rapl) && errp)
            ms_err_prefix (errp, "%s; %s", root, rapl_hint_unreadable ());
        rapl_close (rapl);
        return -1;
    }
    rapl_accum_start (&a, rapl, &s);
    if (write_state (c, j, rapl, &a, -1, errp) < 0) {
        rapl_close (rapl);
        return -1;
    }
    rapl_close (rapl);
    spid = start_sampler (c, j);
    if (spid < 0 && rc == 0)
        rc = ms_err (errp, MS_ERR_SYSTEM,
                     "could not start the RAPL sampler: wraps during the job "
                     "may be missed");
    else if (spid > 0 && await_sampler (c, j, spid) < 0 && rc == 0)
        rc = ms_err (errp, MS_ERR_SYSTEM,
                     "the RAPL sampler (pid %ld) did not record itself "
                     "within 2 s: an epilog that runs before it does cannot "
                     "stop it",
                     spid);
    return rc;
}

/* ---- the sampler ---- */

/* The node's mean power between readings a and b as the job's latest
 * (job_power, migration 0023), over a connection kept open across
 * reports (*dbp; closed and opened again on an error). A running job's
 * power is worth nothing late: it is sent once, never spooled. */
static void
sample_report (const collect_conf_t *c, const collect_job_t *j,
               const rapl_t *rapl, const rapl_sample_t *a,
               const rapl_sample_t *b, db_t **dbp)
{
    char job[32], w[32], at[32];
    const char *p[5] = { j->cluster, job, j->node, w, at };
    double watts = rapl_interval_watts (rapl, a, b);
    ms_error_t e;

    if (!(watts >= 0) || watts >= 1e6)
        return;
    snprintf (job, sizeof (job), "%llu", (unsigned long long)j->job_id);
    snprintf (w, sizeof (w), "%.3f", watts);
    snprintf (at, sizeof (at), "%.3f", b->time);
    if (!*dbp && collect_db_open (c, 0, dbp, &e) < 0) {
        collect_log (LOG_WARNING, "job %s: power not reported: %s", job,
                     e.text);
        *dbp = NULL;
        return;
    }
    if (db_command (*dbp, "job_power_report",
                    "SELECT job_power_report ($1, $2::bigint, $3,"
                    " $4::float8, $5::float8)",
                    5, p, NULL, &e)
        < 0) {
        collect_log (LOG_WARNING, "job %s: power not reported: %s", job,
                     e.text);
        db_close (*dbp);
        *dbp = NULL;
    }
}

int
collect_sampler_run (const collect_conf_t *c, const collect_job_t *j,
                     ms_error_t *errp)
{
    char root[512], dir[600], file[256], path[1024];
    spool_rec_t *st = NULL;
    rapl_t *rapl = NULL;
    rapl_accum_t a;
    rapl_sample_t s, rep;
    double interval;
    struct sigaction sa;
    time_t started = time (NULL);
    db_t *db = NULL;

    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_term;
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGINT, &sa, NULL);
    state_dir (c, dir, sizeof (dir));
    collect_job_file (j, ".state", file, sizeof (file));
    snprintf (path, sizeof (path), "%s/%s", dir, file);
    collect_powercap_root (c, j->node, root, sizeof (root));
    if (rapl_open (root, &rapl, errp) < 0)
        return -1;
    if (spool_read (path, "node_state", &st, errp) < 0
        || accum_from_rec (st, rapl, &a, errp) < 0) {
        spool_rec_free (st);
        rapl_close (rapl);
        return -1;
    }
    freq_from_rec (st);
    spool_rec_free (st);
    /* record who samples, so the epilog can stop exactly this process */
    write_state (c, j, rapl, &a, (long)getpid (), NULL);
    interval = rapl_min_interval (rapl, c->max_power_w);
    if (c->sample_s > 0 && c->sample_s < interval)
        interval = c->sample_s;
    rep = a.last; /* the first report starts from the prolog's reading */
    while (!sampler_stop) {
        struct timespec ts = { (time_t)interval,
                               (long)((interval - (double)(time_t)interval) * 1e9) };
        struct stat sb;
        nanosleep (&ts, NULL);
        if (sampler_stop)
            break;
        /* the epilog removed the state: the job is over */
        if (stat (path, &sb) < 0)
            break;
        /* no job outlives a month: do not sample forever if the epilog
         * never ran */
        if (time (NULL) - started > 31L * 86400)
            break;
        sample_freq (c, j);
        if (rapl_read (rapl, &s, NULL) > 0) {
            rapl_accum_add (&a, rapl, &s);
            if (sampler_stop || stat (path, &sb) < 0)
                break; /* the epilog has taken over */
            write_state (c, j, rapl, &a, (long)getpid (), NULL);
            if (c->sample_s > 0 && s.time - rep.time >= c->sample_s - 1e-3) {
                sample_report (c, j, rapl, &rep, &s, &db);
                rep = s;
            }
        }
    }
    db_close (db);
    rapl_close (rapl);
    return 0;
}

/* A process's start time (clock ticks since boot, /proc/PID/stat field
 * 22): with the pid it names one process for good, pid reuse or not. */
static unsigned long long
proc_start (long pid)
{
    char path[64], buf[1024], *p;
    unsigned long long t = 0;
    FILE *f;
    size_t n;

    snprintf (path, sizeof (path), "/proc/%ld/stat", pid);
    if (!(f = fopen (path, "r")))
        return 0;
    n = fread (buf, 1, sizeof (buf) - 1, f);
    fclose (f);
    buf[n] = '\0';
    /* skip "pid (comm) " - comm may hold spaces and parentheses */
    if (!(p = strrchr (buf, ')')))
        return 0;
    p++;
    for (int field = 3; field < 22 && p; field++)
        p = strchr (p + 1, ' ');
    if (p)
        t = strtoull (p + 1, NULL, 10);
    return t;
}

/* Stop the sampler recorded in the state, if it is still that process. */
static void
stop_sampler (long pid, unsigned long long started)
{
    if (pid <= 1 || started == 0 || proc_start (pid) != started)
        return; /* gone, or the pid now belongs to someone else */
    if (kill ((pid_t)pid, SIGTERM) < 0)
        return;
    for (int i = 0; i < 100; i++) { /* up to 1 s for its last write */
        struct timespec ts = { 0, 10000000 };
        if (kill ((pid_t)pid, 0) < 0)
            return;
        nanosleep (&ts, NULL);
    }
}

/* ---- Slurm's record of the job ---- */

int
collect_parse_slurm_json (const char *text, size_t len, uint64_t job_id,
                          collect_slurm_job_t *sj, ms_error_t *errp)
{
    ms_job_info_t *jobs = NULL;
    size_t n = 0;

    memset (sj, 0, sizeof (*sj));
    sj->exclusive = -1;
    /* every release's job record reads alike (slurmrest_parse.c) */
    if (slurmrest_parse_jobs (slurmrest_api_at (0), text, len, 200, &jobs, &n,
                              NULL, errp)
        < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const ms_job_info_t *j = &jobs[i];
        if (j->id != job_id)
            continue;
        /* a request with the high bit set is a keyword (low, high, a
         * governor), no frequency */
        if (j->cpu_freq_max_khz > 0 && j->cpu_freq_max_khz < 100000000)
            sj->freq_max_khz = j->cpu_freq_max_khz;
        if (j->nodes > 0 && j->nodes <= 100000)
            sj->nodes = j->nodes;
        ms_strlcpy (sj->name, j->name, sizeof (sj->name));
        ms_strlcpy (sj->partition, j->partition, sizeof (sj->partition));
        sj->exclusive = j->exclusive;
        if (j->start_time > 0 && (double)j->start_time < 1e11)
            sj->start_time = (double)j->start_time;
        if (j->end_time >= j->start_time && (double)j->end_time < 1e11
            && ms_job_state_final (j->state))
            sj->end_time = (double)j->end_time;
        if (j->het_job_id > 0 && j->het_job_offset >= 0
            && j->het_job_offset < 128) {
            sj->het_job_id = j->het_job_id;
            sj->het_job_offset = j->het_job_offset;
        }
        free (jobs);
        return 0;
    }
    free (jobs);
    return ms_err (errp, MS_ERR_MISSING, "job %llu is not in Slurm's answer",
                   (unsigned long long)job_id);
}

#define SLURM_ANSWER_MAX (64u << 20) /* a whole queue, from squeue */

static double
mono_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Run argv (no shell), its stdout into *outp (malloc'd, NUL-ended); killed
 * at end_ms (mono_ms's clock): a slurmctld that does not answer must not
 * hold the job's end (MS_ERR_TIMEOUT). */
static int
run_capture (char *const argv[], double end_ms, char **outp, size_t *lenp,
             ms_error_t *errp)
{
    int p[2], status = 0;
    pid_t pid;
    size_t len = 0, cap = 65536;
    char *buf;
    bool late = false;
    struct pollfd pfd;

    if (pipe (p) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "pipe: %s", strerror (errno));
    if ((pid = fork ()) < 0) {
        close (p[0]);
        close (p[1]);
        return ms_err (errp, MS_ERR_SYSTEM, "fork: %s", strerror (errno));
    }
    if (pid == 0) {
        int nul = open ("/dev/null", O_RDWR);
        dup2 (p[1], 1);
        if (nul >= 0) {
            dup2 (nul, 0);
            dup2 (nul, 2);
        }
        close (p[0]);
        close (p[1]);
        execvp (argv[0], argv);
        _exit (127);
    }
    close (p[1]);
    buf = ms_xmalloc (cap);
    pfd.fd = p[0];
    pfd.events = POLLIN;
    for (;;) {
        ssize_t n;
        double left = end_ms - mono_ms ();
        int pr;
        if (len + 1 >= cap) {
            if (cap >= SLURM_ANSWER_MAX) {
                kill (pid, SIGKILL);
                break;
            }
            cap *= 2;
            buf = ms_xrealloc (buf, cap);
        }
        pr = left > 0 ? poll (&pfd, 1, (int)left + 1) : 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            kill (pid, SIGKILL);
            late = true;
            break;
        }
        n = read (p[0], buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close (p[0]);
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    buf[len] = '\0';
    if (late) {
        free (buf);
        return ms_err (errp, MS_ERR_TIMEOUT,
                       "%s %s: no answer within slurm_query_ms", argv[0],
                       argv[1]);
    }
    if (len + 1 >= cap && cap >= SLURM_ANSWER_MAX) {
        free (buf);
        return ms_err (errp, MS_ERR_PROTOCOL, "%s: answer over %u MiB", argv[0],
                       SLURM_ANSWER_MAX >> 20);
    }
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        free (buf);
        return ms_err (errp, MS_ERR_REMOTE, "%s %s %s failed (status %d)",
                       argv[0], argv[1], argv[2],
                       WIFEXITED (status) ? WEXITSTATUS (status) : -1);
    }
    *outp = buf;
    *lenp = len;
    return 0;
}

/* Ask Slurm, as root on the node, for its record of the job as JSON:
 * `scontrol show job --json ID` where the release has it (23.02 on), else
 * `squeue --json --jobs=ID` (21.08 on; 22.05's lists every job). */
static int
ask_slurm (const collect_conf_t *c, uint64_t id, collect_slurm_job_t *sj,
           ms_error_t *errp)
{
    char ids[24], jobs[40], squeue[300];
    char *sc[] = { (char *)c->scontrol, "show", "job", "--json", ids, NULL };
    char *sq[] = { squeue, "--json", jobs, NULL };
    char *out = NULL;
    size_t len = 0;
    ms_error_t e1;
    double end;
    int rc;

    end = mono_ms () + c->slurm_query_ms;
    snprintf (ids, sizeof (ids), "%llu", (unsigned long long)id);
    snprintf (jobs, sizeof (jobs), "--jobs=%llu", (unsigned long long)id);
    if (c->squeue[0])
        ms_strlcpy (squeue, c->squeue, sizeof (squeue));
    else {
        const char *slash = strrchr (c->scontrol, '/');
        snprintf (squeue, sizeof (squeue), "%.*ssqueue",
                  slash ? (int)(slash - c->scontrol + 1) : 0, c->scontrol);
    }
    if (run_capture (sc, end, &out, &len, &e1) == 0) {
        rc = collect_parse_slurm_json (out, len, id, sj, errp);
        free (out);
        return rc;
    }
    if (run_capture (sq, end, &out, &len, errp) < 0) {
        ms_err_prefix (errp, "%s", e1.text);
        return -1;
    }
    rc = collect_parse_slurm_json (out, len, id, sj, errp);
    free (out);
    if (rc < 0)
        ms_err_prefix (errp, "%s --json", squeue);
    return rc;
}

/* ---- epilog ---- */

static void
user_reported_add (db_job_run_t *r, const char *what)
{
    size_t l = strlen (r->user_reported);
    snprintf (r->user_reported + l, sizeof (r->user_reported) - l, "%s%s",
              l ? "," : "", what);
}

/* The counters of the user's file against root's window: no process tree
 * counts more than EVENTS_PER_S_MAX of an event a second (10 GHz on 10,000
 * hardware threads: more than a node has), and a CPI outside CPI_MIN..CPI_MAX
 * is no program's. Implausible counters are left out of the row (and said
 * in the log), so that a forged file cannot steer the models' CPI. */
#define EVENTS_PER_S_MAX 1e14
#define CPI_MIN 0.01
#define CPI_MAX 1000.0

static bool
counters_plausible (const collect_counters_t *k, double window_s,
                    ms_error_t *warnings)
{
    double cap = (window_s > 1 ? window_s : 1) * EVENTS_PER_S_MAX;
    const char *why = NULL;

    if ((double)k->cycles > cap || (double)k->instructions > cap
        || (double)k->mem_transactions > cap)
        why = "more events than any node counts in the job's window";
    else if (k->cycles > 0 && k->instructions > 0
             && ((double)k->cycles / (double)k->instructions < CPI_MIN
                 || (double)k->cycles / (double)k->instructions > CPI_MAX))
        why = "cycles per instruction out of range";
    if (!why)
        return true;
    if (!warnings->kind)
        ms_err (warnings, MS_ERR_INPUT,
                "the counter file's counters left out: %s", why);
    return false;
}

/* Name the wrapper's note (its own notes and warnings, kept in the counter
 * file instead of the job's output) after the epilog's message. */
static void
add_wrapper_note (ms_error_t *errp, const char *note)
{
    size_t l;

    if (!errp || !note[0])
        return;
    l = strlen (errp->text);
    snprintf (errp->text + l, sizeof (errp->text) - l,
              "%sthe wrapper's note: %.600s", l ? "; " : "", note);
}

/* The spool first: from there the row is safe whatever PostgreSQL does;
 * then one try, bounded by epilog_send_ms, to send it now. The other
 * spooled rows are the flush's (a timer), never the job's end. 0: inserted
 * (*warnings may say what went wrong on the way); -1: spooled or lost,
 * errp says which and why. */
static int
store_row (const collect_conf_t *c, const collect_job_t *j,
           const db_job_run_t *row, const char *note, ms_error_t *warnings,
           bool *spooled, ms_error_t *errp)
{
    ms_error_t e, se;
    bool data_error;

    if (collect_spool_row (c, row, &se) < 0) {
        /* no spool (a full or read-only disk): the send is the row's only
         * way, and the row is lost if it fails too */
        if (collect_send_row (c, row, c->epilog_send_ms, &e) < 0) {
            if (errp)
                *errp = e;
            ms_err_prefix (errp, "job %llu: row lost: not spooled (%s)",
                           (unsigned long long)j->job_id, se.text);
            add_wrapper_note (errp, note);
            return -1;
        }
        *warnings = se;
        ms_err_prefix (warnings, "row inserted but could not be spooled");
        return 0;
    }
    if (collect_send_row (c, row, c->epilog_send_ms, &e) == 0)
        return 0;
    data_error = e.kind == MS_ERR_DB && e.sqlstate[0]
                 && (e.sqlstate[0] == '2' || e.sqlstate[0] == '4');
    if (spooled)
        *spooled = true;
    /* the row is safe in the spool; say why it is there */
    if (errp)
        *errp = e;
    if (data_error)
        ms_err_prefix (errp, "row rejected, spooled");
    else if (c->epilog_send_ms > 0)
        ms_err_prefix (errp, "PostgreSQL unreachable, row spooled");
    else
        ms_err_prefix (errp, "row spooled");
    add_wrapper_note (errp, note);
    return -1;
}

/* Step 1 of the epilog: stop the sampler, restore its totals from the node
 * state, read RAPL once more. True with *pkg, *dram (-1: not measured) and
 * *a where RAPL measured the job; what went wrong goes to *warnings. */
static bool
epilog_rapl (const collect_conf_t *c, const collect_job_t *j, rapl_accum_t *a,
             double *pkg, double *dram, ms_error_t *warnings)
{
    char root[512], dir[600], file[256], path[1024];
    spool_rec_t *st = NULL;
    rapl_t *rapl = NULL;
    rapl_sample_t s;
    bool have_rapl = false;
    ms_error_t e;

    state_dir (c, dir, sizeof (dir));
    collect_job_file (j, ".state", file, sizeof (file));
    snprintf (path, sizeof (path), "%s/%s", dir, file);
    if (spool_read (path, "node_state", &st, &e) == 0) {
        int64_t spid = -1;
        uint64_t sstart = 0;
        if (spool_rec_get_i64 (st, "sampler_pid", &spid, NULL) > 0
            && spool_rec_get_u64 (st, "sampler_start", &sstart, NULL) > 0)
            stop_sampler ((long)spid, (unsigned long long)sstart);
        spool_rec_free (st);
        st = NULL;
        /* re-read: the sampler may have written once more */
        if (spool_read (path, "node_state", &st, &e) < 0)
            st = NULL;
    } else
        *warnings = e;
    unlink (path);
    if (st)
        freq_from_rec (st);
    sample_freq (c, j);
    collect_powercap_root (c, j->node, root, sizeof (root));
    if (st && spool_rec_get (st, "zones") && rapl_open (root, &rapl, &e) == 0
        && accum_from_rec (st, rapl, a, &e) == 0) {
        if (rapl_read (rapl, &s, &e) > 0)
            rapl_accum_add (a, rapl, &s);
        else
            *warnings = e;
        rapl_accum_energy (a, rapl, pkg, dram);
        have_rapl = *pkg >= 0 || *dram >= 0;
    } else if (st && !warnings->kind)
        *warnings = e;
    rapl_close (rapl);
    spool_rec_free (st);
    return have_rapl;
}

/* Step 2: the wrapper's counter file (written by the user: parsed
 * strictly), removed once read. True where *k holds what it says. */
static bool
epilog_counters (const collect_conf_t *c, const collect_job_t *j,
                 collect_counters_t *k, ms_error_t *warnings)
{
    char file[256], path[1024];
    spool_rec_t *kr = NULL;
    bool have_counters = false;
    struct stat sb;
    ms_error_t e;

    collect_counters_init (k);
    collect_job_file (j, ".counters", file, sizeof (file));
    snprintf (path, sizeof (path), "%s/%s", c->job_dir, file);
    if (lstat (path, &sb) == 0 && S_ISREG (sb.st_mode) && sb.st_size > 0) {
        if (spool_read (path, "counters", &kr, &e) == 0
            && collect_counters_from_rec (kr, k, &e) == 0)
            have_counters = true;
        else
            *warnings = e;
        spool_rec_free (kr);
    }
    unlink (path);
    if (!have_counters)
        k->note[0] = '\0'; /* nothing from a rejected file */
    return have_counters;
}

/* The start gate stopped the command (sibling mode: another copy won the
 * meta job, or the claim could not be made): the job ran nothing but the
 * wrapper, and its few milliseconds are no run to learn from. Only the
 * counter file says so; without it (missing, unreadable, rejected) the job
 * counts as a run like any other. */
static int
epilog_gate_skip (const collect_counters_t *k, ms_error_t *errp)
{
    char meta[40] = "";

    if (k->gate_job_id)
        snprintf (meta, sizeof (meta), " meta job %llu",
                  (unsigned long long)k->gate_job_id);
    ms_err (errp, MS_ERR_INPUT,
            "no job_runs row: the start gate did not run the command "
            "(%s%s), not a run to learn from",
            strcmp (k->gate, "lost") ? "refused: could not claim"
                                     : "lost: another sibling claimed",
            meta[0] ? meta : " the meta job");
    return COLLECT_EPILOG_SKIPPED;
}

/* What the epilog learnt, for the row's steps */
typedef struct {
    const collect_counters_t *k; /* the counter file's word, if have_counters */
    const collect_slurm_job_t *sj; /* Slurm's record (zeroed without it) */
    const rapl_accum_t *a;         /* RAPL's samples, if have_rapl */
    double pkg, dram, now_t;
    bool have_rapl, have_counters, have_slurm;
} epilog_facts_t;

/* Step 4a: whose job, where, and the window: the prolog's clock to the
 * epilog's, else RAPL's samples, else Slurm's start (and end, where the job
 * has ended for it). */
static void
row_identity (db_job_run_t *row, const collect_job_t *j,
              const epilog_facts_t *f, ms_error_t *warnings)
{
    const collect_slurm_job_t *sj = f->sj;

    ms_strlcpy (row->cluster, j->cluster, sizeof (row->cluster));
    ms_strlcpy (row->partition, j->partition[0] ? j->partition : sj->partition,
                sizeof (row->partition));
    /* a job may name several partitions: the one it ran in comes first */
    row->partition[strcspn (row->partition, ",")] = '\0';
    row->slurm_job_id = j->job_id;
    ms_strlcpy (row->node, j->node, sizeof (row->node));
    if (f->have_counters && f->k->app[0])
        ms_strlcpy (row->app, f->k->app, sizeof (row->app));
    else if (collect_app_name_ok (sj->name))
        ms_strlcpy (row->app, sj->name, sizeof (row->app));
    else
        ms_strlcpy (row->app, "unknown", sizeof (row->app));
    ms_strlcpy (row->user_name, j->user[0] ? j->user : "unknown",
                sizeof (row->user_name));
    row->uid = j->uid;
    row->nodes = sj->nodes > 0 ? sj->nodes : 1;
    row->freq_req_khz = sj->freq_max_khz;
    row->freq_obs_khz = freq_n ? (uint32_t)(freq_sum / freq_n + 0.5) : 0;
    row->exclusive = sj->exclusive;
    row->het_job_id = sj->het_job_id; /* a hetjob's component: its job */
    row->het_job_offset = sj->het_job_offset;
    if (prolog_t > 0 && prolog_t <= f->now_t) {
        row->start_time = prolog_t;
        row->end_time = f->now_t;
    } else if (f->have_rapl && f->a->first.time > 0) {
        row->start_time = f->a->first.time;
        row->end_time = f->a->last.time > f->a->first.time ? f->a->last.time
                                                           : f->a->first.time;
    } else if (sj->start_time > 0 && sj->start_time <= f->now_t) {
        row->start_time = sj->start_time;
        row->end_time = sj->end_time >= sj->start_time ? sj->end_time
                                                       : f->now_t;
    } else {
        row->start_time = row->end_time = f->now_t;
        if (!warnings->kind)
            ms_err (warnings, MS_ERR_INPUT,
                    "no prolog state and no start time from Slurm: "
                    "runtime 0 (not a run to learn from)");
    }
    row->runtime_s = row->end_time - row->start_time;
    /* the app's name is the user's word either way: the wrapper's --app,
     * or the job's name */
    if (strcmp (row->app, "unknown"))
        user_reported_add (row, "app");
}

/* Step 4b: the energy (root's RAPL, else the user's word), the counters
 * where plausible, the exit status */
static void
row_measures (db_job_run_t *row, const epilog_facts_t *f, ms_error_t *warnings)
{
    const collect_counters_t *k = f->k;

    if (f->have_counters)
        row->reported_runtime_s = k->end_time - k->start_time;
    if (f->have_rapl) {
        row->pkg_energy_j = f->pkg;
        row->dram_energy_j = f->dram;
        strcpy (row->source, "root-measured");
    } else if (f->have_counters && (k->user_pkg_j >= 0 || k->user_dram_j >= 0)) {
        row->pkg_energy_j = k->user_pkg_j;
        row->dram_energy_j = k->user_dram_j;
        strcpy (row->source, "user-reported");
        user_reported_add (row, "energy");
    }
    if ((row->pkg_energy_j >= 0 || row->dram_energy_j >= 0)
        && row->runtime_s > 0) {
        double joules = (row->pkg_energy_j > 0 ? row->pkg_energy_j : 0)
                        + (row->dram_energy_j > 0 ? row->dram_energy_j : 0);
        row->avg_power_w = joules / row->runtime_s;
    }
    if (!f->have_slurm && f->have_counters && k->freq_req_khz) {
        /* Slurm could not be asked: the wrapper's word, marked so */
        row->freq_req_khz = k->freq_req_khz;
        user_reported_add (row, "freq_req_khz");
    }
    if (f->have_counters && counters_plausible (k, row->runtime_s, warnings)) {
        row->cycles = k->cycles;
        row->instructions = k->instructions;
        row->mem_transactions = k->mem_transactions;
        if (k->cycles > 0 && k->instructions > 0)
            row->cpi = (double)k->cycles / (double)k->instructions;
        if (k->mem_transactions >= 0 && k->instructions > 0)
            row->tpi = (double)k->mem_transactions / (double)k->instructions;
        ms_strlcpy (row->counters_json, k->counters_json,
                    sizeof (row->counters_json));
        ms_strlcpy (row->events_used, k->events_used, sizeof (row->events_used));
        ms_strlcpy (row->events_unavailable, k->events_unavailable,
                    sizeof (row->events_unavailable));
        if (strcmp (row->counters_json, "{}"))
            user_reported_add (row, "counters");
    }
    if (f->have_counters && k->has_exit) {
        row->has_exit_code = true;
        row->exit_code = k->term_signal ? 128 + k->term_signal : k->exit_code;
        user_reported_add (row, "exit_code");
    }
    ms_strlcpy (row->collector_version, COLLECT_VERSION,
                sizeof (row->collector_version));
}

int
collect_epilog (const collect_conf_t *c, const collect_job_t *j,
                bool *spooled, ms_error_t *errp)
{
    collect_counters_t k;
    collect_slurm_job_t sj;
    db_job_run_t row;
    rapl_accum_t a;
    epilog_facts_t f;
    ms_error_t e, warnings;
    struct timespec ts;

    ms_err_clear (&warnings);
    if (spooled)
        *spooled = false;
    memset (&f, 0, sizeof (f));
    clock_gettime (CLOCK_REALTIME, &ts);
    f.now_t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    f.pkg = f.dram = -1;

    /* 1. RAPL; 2. the wrapper's counters */
    f.have_rapl = epilog_rapl (c, j, &a, &f.pkg, &f.dram, &warnings);
    f.have_counters = epilog_counters (c, j, &k, &warnings);
    if (f.have_counters && k.gate[0])
        return epilog_gate_skip (&k, errp);

    /* 3. what Slurm says about the job */
    f.have_slurm = ask_slurm (c, j->job_id, &sj, &e) == 0;
    if (!f.have_slurm) {
        memset (&sj, 0, sizeof (sj));
        sj.exclusive = -1;
        if (!warnings.kind)
            warnings = e;
    }

    /* 4. the row. Who says what (doc/collectors.md): the window, nodes,
     * frequency request and exclusivity are root's and Slurm's; what the
     * counter file says is the user's, bounded by its parser, and named in
     * user_reported; its runtime is kept apart (reported_runtime_s). */
    f.k = &k;
    f.sj = &sj;
    f.a = &a;
    db_job_run_init (&row);
    row_identity (&row, j, &f, &warnings);
    row_measures (&row, &f, &warnings);

    /* 5. the spool, and one bounded try to send the row now */
    if (store_row (c, j, &row, k.note, &warnings, spooled, errp) < 0)
        return -1;
    if (warnings.kind || k.note[0]) {
        if (errp) {
            *errp = warnings;
            if (!warnings.kind)
                errp->kind = MS_ERR_INPUT; /* the note is the user's word */
            add_wrapper_note (errp, k.note);
        }
        return 1; /* inserted, with something to report */
    }
    return 0;
}
