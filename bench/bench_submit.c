/* bench_submit.c - submission throughput: jobs per second from msbatch to
 * Slurm-accepted through metasched, against direct slurmrestd submission
 * (partitions/slurmrest.h) to the same clusters (target: at least as
 * fast as direct, on every Slurm release). Prints figures and the ratio;
 * never fails on time.
 *
 * Direct: N jobs round-robin over every partition of the configured
 * clusters, one backend_submit each in sequence (as a user's sbatch loop),
 * timed until the last is accepted.
 * Through metasched: N job requests as msbatch builds them (POST /v1/jobs,
 * each signed with MUNGE) in sequence, timed until metaschedd has submitted
 * the last one to its cluster (it leaves queued/deciding/dispatching).
 *
 * What is measured is the submission, not the jobs: every job asks to
 * begin an hour later (--begin), so that no job starts on the test bed's
 * nodes (whose prolog, collector and epilog share the same two cores)
 * while a phase is timed, and the jobs of each phase are cancelled on
 * their clusters before the next. The rounds alternate which phase goes
 * first; figures per phase, then the medians.
 *
 * Needs a running metaschedd (--server or $METASCHED_SERVER) and the
 * clusters' root tokens (run as root, e.g. on the test bed:
 *   . testbed/run/env; METASCHED_MUNGE_SOCKET=$MS_MUNGE_SOCKET \
 *   bench/bench_submit -s unix:/path/metaschedd.sock -n 100 -r 3).
 * The jobs would run `true` as the calling user, one CPU, one minute.
 */
#include "config.h"

#include <dirent.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wire/client.h"
#include "metasched/common/util.h"
#include "partitions/backend.h"
#include "partitions/clusterconf.h"
#include "partitions/slurmrest.h"

#define BEGIN_AFTER_S 3600

static const char script[] = "#!/bin/sh\ntrue\n";

typedef struct {
    const ms_siteconf_t *site;
    ms_backend_t **b; /* per cluster */
    const char *user;
    const char *cwd;
    int n;
    double timeout_s;
    /* the phase's cluster jobs, cancelled once its figures are taken */
    size_t *cancel_cl;
    uint64_t *cancel_id;
    size_t ncancel;
    /* machine and per-command CPU at the phase's start and end */
    unsigned long long busy0, total0, busy1, total1;
    struct comm *c0, *c1;
    size_t nc0, nc1;
} bench_t;

static void phase_mark (bench_t *B, bool end);

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Busy and total CPU time of the machine so far, in clock ticks
 * (/proc/stat), to tell how many cores a phase kept busy. */
static void
cpu_ticks (unsigned long long *busy, unsigned long long *total)
{
    unsigned long long v[8] = { 0 };
    FILE *f = fopen ("/proc/stat", "r");

    *busy = *total = 0;
    if (!f)
        return;
    if (fscanf (f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
        == 8) {
        for (int i = 0; i < 8; i++)
            *total += v[i];
        *busy = *total - v[3] - v[4]; /* less idle and iowait */
    }
    fclose (f);
}

/* CPU time so far (clock ticks) of the live processes, summed by command
 * name: where a phase's cores went. */
#define NCOMM 256
typedef struct comm {
    char name[32];
    unsigned long long ticks;
} comm_t;

static size_t
comm_ticks (comm_t *t)
{
    DIR *dir = opendir ("/proc");
    struct dirent *de;
    size_t n = 0;

    if (!dir)
        return 0;
    while ((de = readdir (dir))) {
        char path[300], buf[1024], *l, *r;
        unsigned long long ut = 0, st = 0;
        int ppid = 0;
        FILE *f;
        size_t k;

        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf (path, sizeof (path), "/proc/%s/stat", de->d_name);
        if (!(f = fopen (path, "r")))
            continue;
        buf[0] = '\0';
        if (!fgets (buf, sizeof (buf), f)) {
            fclose (f);
            continue;
        }
        fclose (f);
        /* pid (comm) state ppid ... utime(14) stime(15) */
        if (!(l = strchr (buf, '(')) || !(r = strrchr (buf, ')'))
            || sscanf (r + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                              "%llu %llu",
                       &ppid, &ut, &st)
                   != 3
            || ppid == 2 || !strcmp (de->d_name, "2"))
            continue; /* kernel threads rename themselves */
        *r = '\0';
        for (k = 0; k < n && strcmp (t[k].name, l + 1); k++)
            ;
        if (k == n) {
            if (n == NCOMM)
                continue;
            snprintf (t[n].name, sizeof (t[n].name), "%s", l + 1);
            t[n++].ticks = 0;
        }
        t[k].ticks += ut + st;
    }
    closedir (dir);
    return n;
}

/* Take the CPU figures at the start or the end of the timed part. */
static void
phase_mark (bench_t *B, bool end)
{
    if (end) {
        cpu_ticks (&B->busy1, &B->total1);
        B->nc1 = comm_ticks (B->c1);
    } else {
        cpu_ticks (&B->busy0, &B->total0);
        B->nc0 = comm_ticks (B->c0);
    }
}

/* Print the commands that used the most CPU between two comm_ticks. */
static void
comm_print (const comm_t *a, size_t na, const comm_t *b, size_t nb, double secs)
{
    long hz = sysconf (_SC_CLK_TCK);
    comm_t d[NCOMM];
    size_t nd = 0;

    for (size_t i = 0; i < nb; i++) {
        unsigned long long before = 0;
        for (size_t k = 0; k < na; k++)
            if (!strcmp (a[k].name, b[i].name))
                before = a[k].ticks;
        if (b[i].ticks > before) {
            d[nd] = b[i];
            d[nd++].ticks = b[i].ticks - before;
        }
    }
    for (size_t i = 0; i < nd; i++)
        for (size_t k = i + 1; k < nd; k++)
            if (d[k].ticks > d[i].ticks) {
                comm_t x = d[i];
                d[i] = d[k];
                d[k] = x;
            }
    printf ("          cores by command:");
    for (size_t i = 0; i < nd && i < 7; i++)
        printf (" %s %.2f", d[i].name, (double)d[i].ticks / hz / secs);
    printf ("\n");
}

static void
usage (FILE *f)
{
    fprintf (f, "Usage: bench_submit [-n JOBS] [-r ROUNDS] [-p d|m|dm] "
                "[-P PID] [-s SERVER] [-c CLUSTERS_CONF] [-t TIMEOUT_S]\n"
                "  -p  the phases: d direct, m through metasched (default "
                "dm, both)\n"
                "  -P  metaschedd's pid: stopped (SIGSTOP) during the direct "
                "phases,\n"
                "      so that its reading of the clusters does not load "
                "them\n");
}

/* Note cluster job id on the cluster named cname, to cancel after the
 * phase's figures are taken. */
static void
cancel_on (bench_t *B, const char *cname, uint64_t id)
{
    for (size_t i = 0; i < B->site->nclusters; i++)
        if (B->b[i] && !strcmp (B->site->clusters[i].name, cname)) {
            B->cancel_cl = ms_xrealloc (B->cancel_cl, (B->ncancel + 1)
                                                          * sizeof (size_t));
            B->cancel_id = ms_xrealloc (B->cancel_id, (B->ncancel + 1)
                                                          * sizeof (uint64_t));
            B->cancel_cl[B->ncancel] = i;
            B->cancel_id[B->ncancel++] = id;
            return;
        }
}

/* Cancel the noted jobs (errors are reported, not fatal: the jobs would
 * only begin in an hour). */
static void
cancel_noted (bench_t *B)
{
    ms_error_t err;

    for (size_t k = 0; k < B->ncancel; k++)
        if (backend_cancel (B->b[B->cancel_cl[k]], B->cancel_id[k], &err) < 0)
            fprintf (stderr, "bench_submit: cancel %s job %llu: %s\n",
                     B->site->clusters[B->cancel_cl[k]].name,
                     (unsigned long long)B->cancel_id[k], err.text);
    B->ncancel = 0;
}

/* Direct: round-robin over every partition; *secsp until the last is
 * accepted. Returns how many were accepted, or -1. */
static int
bench_direct (bench_t *B, double *secsp)
{
    const ms_siteconf_t *site = B->site;
    uint64_t *ids = ms_xcalloc ((size_t)B->n, sizeof (uint64_t));
    size_t *cl = ms_xcalloc ((size_t)B->n, sizeof (size_t));
    const char *env[] = { "PATH=/usr/bin:/bin", NULL };
    int accepted = 0, rc = -1;
    ms_error_t err;
    double t0;

    phase_mark (B, false);
    t0 = now ();
    for (int k = 0; k < B->n; k++) {
        const ms_partconf_t *p = &site->parts[(size_t)k % site->nparts];
        ms_job_request_t req = {
            .user = B->user,
            .name = "bench-direct",
            .partition = p->name,
            .time_limit_min = 1,
            .environment = env,
            .cwd = B->cwd,
            .std_out = "/dev/null",
            .nodes = 1,
            .begin_time = (int64_t)time (NULL) + BEGIN_AFTER_S,
            .script = script,
        };

        if (!B->b[p->cluster])
            continue;
        if (backend_submit (B->b[p->cluster], &req, &ids[accepted], &err)
            < 0) {
            fprintf (stderr, "bench_submit: direct to %s/%s: %s\n",
                     site->clusters[p->cluster].name, p->name, err.text);
            goto out;
        }
        cl[accepted++] = p->cluster;
    }
    *secsp = now () - t0;
    phase_mark (B, true);
    rc = accepted;
out:
    for (int k = 0; k < accepted; k++)
        cancel_on (B, site->clusters[cl[k]].name, ids[k]);
    free (ids);
    free (cl);
    return rc;
}

/* Through metasched: submit, then wait until none of ours is waiting in
 * metasched. Returns how many reached a cluster, or -1. */
static int
bench_metasched (bench_t *B, ms_client_t *c, double *secsp,
                 double *submit_secsp)
{
    long long *ids = ms_xcalloc ((size_t)B->n, sizeof (long long));
    ms_error_t err;
    json_t *req = json_pack (
        "{s:s, s:s, s:i, s:i, s:s, s:s, s:[s], s:I}", "script", script, "name",
        "bench-metasched", "nodes", 1, "time_limit_min", 1, "cwd", B->cwd,
        "stdout", "/dev/null", "environment", "PATH=/usr/bin:/bin",
        "begin_time", (json_int_t)time (NULL) + BEGIN_AFTER_S);
    double t0;
    int rc = -1, waiting = B->n, accepted = 0, posted = 0;

    phase_mark (B, false);
    t0 = now ();
    for (int k = 0; k < B->n; k++) {
        json_t *reply = NULL;
        if (ms_client_call (c, "POST", "/v1/jobs", req, NULL, &reply, &err)
            < 0) {
            fprintf (stderr, "bench_submit: POST /v1/jobs: %s\n", err.text);
            json_decref (reply);
            goto out;
        }
        ids[k] = json_integer_value (json_object_get (reply, "id"));
        posted++;
        json_decref (reply);
    }
    *submit_secsp = now () - t0;
    /* the batches go out oldest first: wait for the last job to leave
     * metasched (one row a look, so that watching costs the daemon
     * little), then make sure with the whole list */
    while (waiting > 0 && now () - t0 < B->timeout_s) {
        json_t *reply = NULL, *job;
        size_t i;
        char target[64];
        const char *st;

        snprintf (target, sizeof (target), "/v1/jobs/%lld", ids[B->n - 1]);
        if (ms_client_call (c, "GET", target, NULL, NULL, &reply, &err) < 0) {
            fprintf (stderr, "bench_submit: GET %s: %s\n", target, err.text);
            goto out;
        }
        st = json_string_value (json_object_get (reply, "state"));
        waiting = !st || !strcmp (st, "queued") || !strcmp (st, "deciding")
                  || !strcmp (st, "dispatching");
        json_decref (reply);
        if (waiting) {
            usleep (10000);
            continue;
        }
        if (ms_client_call (c, "GET",
                            "/v1/jobs?state=queued,deciding,dispatching", NULL,
                            NULL, &reply, &err)
            < 0) {
            fprintf (stderr, "bench_submit: GET /v1/jobs: %s\n", err.text);
            goto out;
        }
        json_array_foreach (json_object_get (reply, "jobs"), i, job)
        {
            long long id = json_integer_value (json_object_get (job, "id"));
            for (int k = 0; k < B->n; k++)
                if (ids[k] == id)
                    waiting++;
        }
        json_decref (reply);
        if (waiting)
            usleep (20000);
    }
    *secsp = now () - t0;
    phase_mark (B, true);
    if (waiting)
        fprintf (stderr,
                 "bench_submit: %d of %d jobs still waiting in metasched "
                 "after %.0f s\n",
                 waiting, B->n, B->timeout_s);
    rc = 0;
out:
    /* which of ours did a cluster accept? cancel them there */
    for (int k = 0; k < posted; k++) {
        char target[64];
        json_t *job = NULL, *cj, *cn;
        snprintf (target, sizeof (target), "/v1/jobs/%lld", ids[k]);
        if (ms_client_call (c, "GET", target, NULL, NULL, &job, &err) == 0
            && json_is_integer (cj = json_object_get (job, "cluster_job_id"))
            && json_is_string (cn = json_object_get (job, "cluster"))) {
            accepted++;
            cancel_on (B, json_string_value (cn),
                       (uint64_t)json_integer_value (cj));
        }
        json_decref (job);
    }
    json_decref (req);
    free (ids);
    return rc < 0 ? -1 : accepted;
}

/* Wait until no job of this bench (name bench-*) is pending, running or
 * completing on any cluster. */
static void
quiet (bench_t *B)
{
    double t0 = now ();
    ms_error_t err;

    for (;;) {
        size_t busy = 0;
        for (size_t i = 0; i < B->site->nclusters; i++) {
            ms_job_info_t *jobs = NULL;
            size_t nj = 0;

            if (B->b[i] && backend_jobs (B->b[i], &jobs, &nj, &err) == 0)
                for (size_t k = 0; k < nj; k++)
                    if (!strncmp (jobs[k].name, "bench-", 6)
                        && jobs[k].state < MS_JOB_COMPLETED)
                        busy++;
            free (jobs);
        }
        if (busy == 0 || now () - t0 > 120) {
            if (busy)
                fprintf (stderr,
                         "bench_submit: %zu bench jobs still live on the "
                         "clusters after 120 s; going on\n",
                         busy);
            break;
        }
        sleep (1);
    }
    /* let metaschedd's refresher read the clusters the cancellations
     * changed (a full listing each, about a second apiece here), so that
     * each phase starts on a quiet site */
    sleep (5);
}

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
    qsort (v, (size_t)n, sizeof (double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The rounds, each a direct phase and a phase through metasched (which
 * goes first alternates), then the medians; 0 when every phase asked for
 * got its jobs accepted. */
static int
bench_rounds (bench_t *B, ms_client_t *c, int rounds, bool want_d, bool want_m,
              long daemon_pid)
{
    long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
    double *rd, *rm, *rr;
    bool ok = true;
    int rc = 1;

    rd = ms_xcalloc ((size_t)rounds, sizeof (double));
    rm = ms_xcalloc ((size_t)rounds, sizeof (double));
    rr = ms_xcalloc ((size_t)rounds, sizeof (double));
    for (int r = 0; r < rounds && ok; r++) {
        for (int phase = 0; phase < 2 && ok; phase++) {
            double t = 0, t_calls = 0, cores;
            comm_t c0[NCOMM], c1[NCOMM];
            int got;

            bool direct_now = (phase == 0) == (r % 2 == 0);
            if (direct_now ? !want_d : !want_m)
                continue;
            quiet (B);
            B->c0 = c0;
            B->c1 = c1;
            if (direct_now) {
                /* a site without metasched: no daemon reads the clusters */
                if (daemon_pid > 0 && kill ((pid_t)daemon_pid, SIGSTOP) < 0) {
                    perror ("bench_submit: stopping metaschedd");
                    ok = false;
                    break;
                }
                if (daemon_pid > 0)
                    sleep (1); /* let a reading under way drain */
                got = bench_direct (B, &t);
                if (daemon_pid > 0)
                    kill ((pid_t)daemon_pid, SIGCONT);
            } else
                got = bench_metasched (B, c, &t, &t_calls);
            cancel_noted (B);
            ok = got > 0;
            if (!ok)
                break;
            cores = B->total1 > B->total0 ? (double)(B->busy1 - B->busy0)
                                              / (B->total1 - B->total0) * ncpu
                                        : 0;
            if (direct_now) {
                rd[r] = got / t;
                printf ("round %d  direct slurmrestd:  %5d accepted in "
                        "%7.3f s: %7.1f jobs/s, %.1f of %ld cores busy\n",
                        r + 1, got, t, rd[r], cores, ncpu);
            } else {
                rm[r] = got / t;
                printf ("round %d  through metasched:  %5d accepted in "
                        "%7.3f s: %7.1f jobs/s, %.1f of %ld cores busy "
                        "(POST /v1/jobs alone: %.1f calls/s)\n",
                        r + 1, got, t, rm[r], cores, ncpu, B->n / t_calls);
            }
            comm_print (c0, B->nc0, c1, B->nc1, t);
            fflush (stdout);
        }
        if (ok && want_d && want_m) {
            rr[r] = rm[r] / rd[r];
            printf ("round %d  ratio metasched/direct: %.2f\n", r + 1, rr[r]);
        }
    }
    if (ok && !(want_d && want_m))
        rc = 0;
    else if (ok) {
        double md = median (rd, rounds), mm = median (rm, rounds);
        printf ("median direct slurmrestd: %.1f jobs/s\n", md);
        printf ("median through metasched: %.1f jobs/s\n", mm);
        printf ("ratio metasched/direct: %.2f of the medians, %.2f median of "
                "the rounds (target >= 1.00)\n",
                mm / md, median (rr, rounds));
        rc = 0;
    }
    free (rd);
    free (rm);
    free (rr);
    return rc;
}

int
main (int argc, char **argv)
{
    const char *server = NULL, *conf = getenv ("MS_CLUSTERS_CONF");
    int rounds = 3, opt, rc = 1;
    ms_siteconf_t *site = NULL;
    ms_client_t *c = NULL;
    ms_error_t err;
    struct passwd *pw = getpwuid (getuid ());
    char cwd[4096];
    bench_t B = { .n = 50, .timeout_s = 300 };
    bool want_d = true, want_m = true;
    long daemon_pid = 0;

    while ((opt = getopt (argc, argv, "n:r:p:P:s:c:t:h")) != -1) {
        switch (opt) {
        case 'P':
            daemon_pid = atol (optarg);
            break;
        case 'p':
            want_d = strchr (optarg, 'd') != NULL;
            want_m = strchr (optarg, 'm') != NULL;
            break;
        case 'n':
            B.n = atoi (optarg);
            break;
        case 'r':
            rounds = atoi (optarg);
            break;
        case 's':
            server = optarg;
            break;
        case 'c':
            conf = optarg;
            break;
        case 't':
            B.timeout_s = atof (optarg);
            break;
        case 'h':
            usage (stdout);
            return 0;
        default:
            usage (stderr);
            return 2;
        }
    }
    if (B.n < 1 || B.n > 100000 || rounds < 1 || rounds > 100
        || B.timeout_s <= 0 || !(want_d || want_m)) {
        fprintf (stderr, "bench_submit: -n from 1 to 100000, -r from 1 to "
                         "100, -t positive\n");
        return 2;
    }
    if (!conf) {
        fprintf (stderr, "bench_submit: no cluster configuration (-c or "
                         "$MS_CLUSTERS_CONF)\n");
        return 2;
    }
    if (!pw || !getcwd (cwd, sizeof (cwd))) {
        fprintf (stderr, "bench_submit: cannot name the user or the current "
                         "directory\n");
        return 1;
    }
    if (clusterconf_load (conf, &site, &err) < 0 || site->nparts == 0) {
        fprintf (stderr, "bench_submit: %s\n",
                 site ? "no partitions configured" : err.text);
        clusterconf_free (site);
        return 1;
    }
    B.site = site;
    B.user = pw->pw_name;
    B.cwd = cwd;
    B.b = ms_xcalloc (site->nclusters, sizeof (*B.b));
    for (size_t i = 0; i < site->nclusters; i++)
        if (site->clusters[i].backend == MS_BACKEND_SLURMREST
            && slurmrest_from_conf (&site->clusters[i], &B.b[i], &err) < 0) {
            fprintf (stderr, "bench_submit: %s\n", err.text);
            goto out;
        }
    if (ms_client_open (server, &c, &err) < 0) {
        fprintf (stderr, "bench_submit: %s\n", err.text);
        goto out;
    }
    printf ("bench_submit: %d jobs a phase, %d rounds, as %s, %zu clusters, "
            "%zu partitions, metaschedd at %s\n",
            B.n, rounds, pw->pw_name, site->nclusters, site->nparts,
            ms_client_address (c));
    /* which slurmrestd each direct phase talks to, and in which version */
    for (size_t i = 0; i < site->nclusters; i++) {
        if (!B.b[i])
            continue;
        if (slurmrest_negotiate (B.b[i], &err) < 0) {
            fprintf (stderr, "bench_submit: %s\n", err.text);
            goto out;
        }
        printf ("bench_submit: cluster %s at %s: OpenAPI %s (%s)\n",
                site->clusters[i].name, site->clusters[i].url,
                slurmrest_version (B.b[i]), slurmrest_version_source (B.b[i]));
    }
    fflush (stdout);
    rc = bench_rounds (&B, c, rounds, want_d, want_m, daemon_pid);
out:
    for (size_t i = 0; i < site->nclusters; i++)
        if (B.b[i])
            backend_destroy (B.b[i]);
    free (B.b);
    free (B.cancel_cl);
    free (B.cancel_id);
    ms_client_close (c);
    clusterconf_free (site);
    return rc;
}
