/* bench_submit.c - submission throughput: jobs per second from msbatch to
 * Slurm-accepted through metasched, against direct slurmrestd submission
 * (partitions/slurmrest.h) to the same clusters (issue 6: target at least
 * 90% of direct). Prints figures and the ratio; never fails on time.
 *
 * Direct: N jobs round-robin over every partition of the configured
 * clusters, one backend_submit each, timed until the last is accepted.
 * Through metasched: N job requests as msbatch builds them (POST /v1/jobs,
 * each signed with MUNGE), timed until metaschedd has submitted the last
 * one to its cluster (it leaves queued/deciding/dispatching).
 *
 * Needs a running metaschedd (--server or $METASCHED_SERVER) and the
 * clusters' root tokens (run as root, e.g. on the test bed:
 *   . testbed/run/env; METASCHED_MUNGE_SOCKET=$MS_MUNGE_SOCKET \
 *   bench/bench_submit -s unix:/path/metaschedd.sock -n 100).
 * The jobs run `true` as the calling user, one CPU, one minute.
 */
#include "config.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metasched/client.h"
#include "metasched/util.h"
#include "partitions/backend.h"
#include "partitions/clusterconf.h"
#include "partitions/slurmrest.h"

static const char script[] = "#!/bin/sh\ntrue\n";

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
usage (FILE *f)
{
    fprintf (f, "Usage: bench_submit [-n JOBS] [-s SERVER] [-c CLUSTERS_CONF] "
                "[-t TIMEOUT_S]\n");
}

/* Direct: round-robin over every partition. */
static int
bench_direct (const ms_siteconf_t *site, int n, const char *user,
              const char *cwd, double *secsp)
{
    ms_backend_t **b = ms_xcalloc (site->nclusters, sizeof (*b));
    ms_error_t err;
    int rc = -1, accepted = 0;
    double t0;

    for (size_t i = 0; i < site->nclusters; i++)
        if (site->clusters[i].backend == MS_BACKEND_SLURMREST
            && slurmrest_from_conf (&site->clusters[i], &b[i], &err) < 0) {
            fprintf (stderr, "bench_submit: %s\n", err.text);
            goto out;
        }
    t0 = now ();
    for (int k = 0; k < n; k++) {
        const ms_partconf_t *p = &site->parts[(size_t)k % site->nparts];
        const char *env[] = { "PATH=/usr/bin:/bin", NULL };
        ms_job_request_t req = {
            .user = user,
            .name = "bench-direct",
            .partition = p->name,
            .time_limit_min = 1,
            .environment = env,
            .cwd = cwd,
            .std_out = "/dev/null",
            .nodes = 1,
            .script = script,
        };
        uint64_t id;

        if (!b[p->cluster])
            continue;
        if (backend_submit (b[p->cluster], &req, &id, &err) < 0) {
            fprintf (stderr, "bench_submit: direct to %s/%s: %s\n",
                     site->clusters[p->cluster].name, p->name, err.text);
            goto out;
        }
        accepted++;
    }
    *secsp = now () - t0;
    rc = accepted;
out:
    for (size_t i = 0; i < site->nclusters; i++)
        if (b[i])
            backend_destroy (b[i]);
    free (b);
    return rc;
}

/* Through metasched: submit, then wait until none of ours is waiting in
 * metasched. Returns how many reached a cluster, or -1. */
static int
bench_metasched (ms_client_t *c, int n, const char *cwd, double timeout_s,
                 double *secsp, double *submit_secsp)
{
    long long *ids = ms_xcalloc ((size_t)n, sizeof (long long));
    ms_error_t err;
    json_t *req = json_pack ("{s:s, s:s, s:i, s:i, s:s, s:s, s:[s]}", "script",
                             script, "name", "bench-metasched", "nodes", 1,
                             "time_limit_min", 1, "cwd", cwd, "stdout",
                             "/dev/null", "environment", "PATH=/usr/bin:/bin");
    double t0 = now ();
    int rc = -1, waiting = n, accepted = 0;

    for (int k = 0; k < n; k++) {
        json_t *reply = NULL;
        if (ms_client_call (c, "POST", "/v1/jobs", req, NULL, &reply, &err)
            < 0) {
            fprintf (stderr, "bench_submit: POST /v1/jobs: %s\n", err.text);
            json_decref (reply);
            goto out;
        }
        ids[k] = json_integer_value (json_object_get (reply, "id"));
        json_decref (reply);
    }
    *submit_secsp = now () - t0;
    while (waiting > 0 && now () - t0 < timeout_s) {
        json_t *reply = NULL, *job;
        size_t i;

        if (ms_client_call (c, "GET",
                            "/v1/jobs?state=queued,deciding,dispatching", NULL,
                            NULL, &reply, &err)
            < 0) {
            fprintf (stderr, "bench_submit: GET /v1/jobs: %s\n", err.text);
            goto out;
        }
        waiting = 0;
        json_array_foreach (json_object_get (reply, "jobs"), i, job)
        {
            long long id = json_integer_value (json_object_get (job, "id"));
            for (int k = 0; k < n; k++)
                if (ids[k] == id)
                    waiting++;
        }
        json_decref (reply);
        if (waiting)
            usleep (20000);
    }
    *secsp = now () - t0;
    /* which of ours did a cluster accept? */
    for (int k = 0; k < n; k++) {
        char target[64];
        json_t *job = NULL;
        snprintf (target, sizeof (target), "/v1/jobs/%lld", ids[k]);
        if (ms_client_call (c, "GET", target, NULL, NULL, &job, &err) == 0
            && json_is_integer (json_object_get (job, "cluster_job_id")))
            accepted++;
        json_decref (job);
    }
    if (waiting)
        fprintf (stderr,
                 "bench_submit: %d of %d jobs still waiting in metasched "
                 "after %.0f s\n",
                 waiting, n, timeout_s);
    rc = accepted;
out:
    json_decref (req);
    free (ids);
    return rc;
}

int
main (int argc, char **argv)
{
    const char *server = NULL, *conf = getenv ("MS_CLUSTERS_CONF");
    int n = 50, opt, direct, through;
    double timeout_s = 300, t_direct = 0, t_ms = 0, t_calls = 0;
    ms_siteconf_t *site = NULL;
    ms_client_t *c = NULL;
    ms_error_t err;
    struct passwd *pw = getpwuid (getuid ());
    char cwd[4096];

    while ((opt = getopt (argc, argv, "n:s:c:t:h")) != -1) {
        switch (opt) {
        case 'n':
            n = atoi (optarg);
            break;
        case 's':
            server = optarg;
            break;
        case 'c':
            conf = optarg;
            break;
        case 't':
            timeout_s = atof (optarg);
            break;
        case 'h':
            usage (stdout);
            return 0;
        default:
            usage (stderr);
            return 2;
        }
    }
    if (n < 1 || n > 100000 || timeout_s <= 0) {
        fprintf (stderr, "bench_submit: -n from 1 to 100000, -t positive\n");
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
    if (ms_client_open (server, &c, &err) < 0) {
        fprintf (stderr, "bench_submit: %s\n", err.text);
        clusterconf_free (site);
        return 1;
    }
    printf ("bench_submit: %d jobs as %s, %zu clusters, %zu partitions, "
            "metaschedd at %s\n",
            n, pw->pw_name, site->nclusters, site->nparts,
            ms_client_address (c));
    fflush (stdout);
    direct = bench_direct (site, n, pw->pw_name, cwd, &t_direct);
    through = direct < 0
                  ? -1
                  : bench_metasched (c, n, cwd, timeout_s, &t_ms, &t_calls);
    if (direct > 0)
        printf ("direct slurmrestd:   %5d accepted in %8.3f s: %8.1f jobs/s\n",
                direct, t_direct, direct / t_direct);
    if (through >= 0)
        printf ("through metasched:   %5d accepted in %8.3f s: %8.1f jobs/s "
                "(POST /v1/jobs alone: %.1f calls/s)\n",
                through, t_ms, through / t_ms, n / t_calls);
    if (direct > 0 && through > 0)
        printf ("ratio metasched/direct: %.2f (target >= 0.90)\n",
                (through / t_ms) / (direct / t_direct));
    ms_client_close (c);
    clusterconf_free (site);
    return direct > 0 && through >= 0 ? 0 : 1;
}
