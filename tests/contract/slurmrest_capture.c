/* slurmrest_capture - capture the real requests and answers of every
 * slurmrestd operation metasched uses, per OpenAPI version, from a running
 * slurmrestd (a test bed cluster). What it writes under OUT/VERSION/ is
 * what tests/unit/test_slurmrest_contract checks the request builders and
 * the parsers against, in CI, without a cluster of that release.
 *
 *   slurmrest_capture --url URL --token-file FILE --user USER
 *                     --partition NAME --cwd DIR --release 26.05.3 --out DIR
 *
 * Each exchange LABEL gives LABEL.req ("METHOD PATH", the user header,
 * a blank line, the body) and LABEL.ans ("HTTP STATUS", a blank line, the
 * body, as the server sent it). meta.json says what was asked (job ids,
 * the begin time, the user and partition). The token is never written.
 *
 * Build: make tests/contract/slurmrest_capture (not part of make check).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "tests/contract/contract_job.h"

static const char *label; /* the next exchange's name; NULL: not recorded */
static char outdir[4096];

static void
die (const char *what, const ms_error_t *e)
{
    fprintf (stderr, "slurmrest_capture: %s%s%s\n", what, e ? ": " : "",
             e ? e->text : "");
    exit (1);
}

static void
write_file (const char *name, const char *head, const char *body, size_t len)
{
    char path[8192];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s", outdir, name);
    if (!(f = fopen (path, "w")))
        die (path, NULL);
    fputs (head, f);
    if (body && len)
        fwrite (body, 1, len, f);
    if (fclose (f) != 0)
        die (path, NULL);
}

static void
record (void *arg, const char *method, const char *path, const char *as_user,
        const char *body, long status, const char *answer, size_t len)
{
    char name[256], head[1024];

    (void)arg;
    if (!label)
        return;
    snprintf (name, sizeof (name), "%s.req", label);
    snprintf (head, sizeof (head), "%s %s\nX-SLURM-USER-NAME: %s\n\n", method,
              path, as_user);
    write_file (name, head, body, body ? strlen (body) : 0);
    snprintf (name, sizeof (name), "%s.ans", label);
    snprintf (head, sizeof (head), "HTTP %ld\n\n", status);
    write_file (name, head, answer, len);
    label = NULL; /* one exchange a label */
}

static ms_backend_t *
handle (const slurmrest_opts_t *o)
{
    ms_backend_t *b;
    ms_error_t e;
    if (slurmrest_create (o, &b, &e) < 0)
        die ("create", &e);
    slurmrest_set_recorder (b, record, NULL);
    return b;
}

/* Wait (unrecorded) until job id is in a final state; up to 90 s. */
static void
wait_final (ms_backend_t *b, uint64_t id)
{
    for (int i = 0; i < 450; i++) {
        ms_job_info_t j;
        ms_error_t e;
        label = NULL;
        if (backend_job (b, id, &j, &e) == 0 && ms_job_state_final (j.state)
            && j.state != MS_JOB_OTHER)
            return;
        usleep (200000);
    }
    fprintf (stderr, "slurmrest_capture: job %llu did not end in 90 s\n",
             (unsigned long long)id);
    exit (1);
}

int
main (int argc, char **argv)
{
    const char *url = NULL, *token_file = NULL, *user = NULL, *part = NULL;
    const char *cwd = NULL, *release = NULL, *out = NULL;
    const char *node_list = "m1";
    long real_memory_mb = 4000;
    static const struct option opts[] = {
        { "url", required_argument, 0, 'u' },
        { "token-file", required_argument, 0, 't' },
        { "user", required_argument, 0, 'U' },
        { "partition", required_argument, 0, 'p' },
        { "cwd", required_argument, 0, 'c' },
        { "release", required_argument, 0, 'r' },
        { "out", required_argument, 0, 'o' },
        { "node-list", required_argument, 0, 'n' },
        { "real-memory-mb", required_argument, 0, 'm' },
        { 0, 0, 0, 0 },
    };
    int c, versions = 0;
    char *token;
    ms_error_t e;

    while ((c = getopt_long (argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'u': url = optarg; break;
        case 't': token_file = optarg; break;
        case 'U': user = optarg; break;
        case 'p': part = optarg; break;
        case 'c': cwd = optarg; break;
        case 'r': release = optarg; break;
        case 'o': out = optarg; break;
        case 'n': node_list = optarg; break;
        case 'm':
            real_memory_mb = atol (optarg);
            if (real_memory_mb <= 0) {
                fprintf (stderr, "slurmrest_capture: --real-memory-mb: "
                                 "'%s' is not a positive number\n",
                         optarg);
                return 2;
            }
            break;
        default: return 2;
        }
    }
    if (!url || !token_file || !user || !part || !cwd || !release || !out) {
        fprintf (stderr, "usage: slurmrest_capture --url URL --token-file FILE "
                         "--user USER --partition NAME --cwd DIR --release R "
                         "--out DIR [--node-list LIST] [--real-memory-mb N]\n");
        return 2;
    }
    if (ms_read_secret_file (token_file, &token, &e) < 0)
        die (token_file, &e);

    for (size_t v = 0; v < slurmrest_api_count (); v++) {
        const slurmrest_api_t *api = slurmrest_api_at (v);
        slurmrest_opts_t o = { .cluster = release, .url = url, .token = token,
                               .token_file = token_file,
                               .api_version = slurmrest_api_name (api),
                               .timeout_ms = 30000 };
        ms_backend_t *b = handle (&o), *fresh;
        ms_partition_state_t *parts;
        ms_node_state_t *nodes;
        ms_job_info_t *jobs, j;
        ms_job_request_t req;
        ms_job_update_t upd;
        uint64_t pending, ok, fail, bad;
        size_t n;
        time_t now = time (NULL);
        int64_t begin = (int64_t)now + 3600;

        /* served? (a 404 is not: nothing recorded) */
        label = NULL;
        if (backend_ping (b, &e) < 0) {
            if (e.http_status == 404) {
                backend_destroy (b);
                continue;
            }
            if (strstr (e.text, "[error 7000]")) {
                /* 23.02's v0.0.39 without slurmdbd */
                printf ("%s: %s served but not usable here: %s\n", release,
                        slurmrest_api_name (api), e.text);
                backend_destroy (b);
                continue;
            }
            die ("ping", &e);
        }
        snprintf (outdir, sizeof (outdir), "%s/%s", out,
                  slurmrest_api_name (api));
        if (mkdir (out, 0755) < 0 && errno != EEXIST)
            die (out, NULL);
        if (mkdir (outdir, 0755) < 0 && errno != EEXIST)
            die (outdir, NULL);
        versions++;

        label = "ping";
        if (backend_ping (b, &e) < 0)
            die ("ping", &e);
        {
            /* a token slurmctld refuses: 26.05 answers the ping with 200
             * and a controller that did not respond */
            slurmrest_opts_t ob = o;
            ms_backend_t *refused;
            ob.token = "not.a.token";
            refused = handle (&ob);
            label = "ping-bad-token";
            if (backend_ping (refused, &e) == 0)
                die ("ping-bad-token: accepted", NULL);
            backend_destroy (refused);
        }
        label = "partitions";
        if (backend_partitions (b, &parts, &n, &e) < 0)
            die ("partitions", &e);
        free (parts);
        label = "nodes";
        if (backend_nodes (b, &nodes, &n, &e) < 0)
            die ("nodes", &e);
        free (nodes);

        contract_pending_job (&req, api, user, part, cwd, begin);
        label = "submit-pending";
        if (backend_submit (b, &req, &pending, &e) < 0)
            die ("submit-pending", &e);
        label = "job-pending";
        if (backend_job (b, pending, &j, &e) < 0)
            die ("job-pending", &e);
        contract_priority_update (&upd, api);
        label = "update-priority";
        if (backend_update (b, pending, &upd, &e) < 0)
            die ("update-priority", &e);
        ms_job_update_init (&upd);
        upd.time_limit_min = 5;
        upd.comment = "metasched:77 moved";
        label = "update-limit";
        if (backend_update (b, pending, &upd, &e) < 0)
            die ("update-limit", &e);
        label = "job-updated";
        if (backend_job (b, pending, &j, &e) < 0)
            die ("job-updated", &e);

        /* a whole listing, then one of changes only that finds none
         * (a version that cannot ask for changes: the whole listing) */
        char q[64];
        slurmrest_jobs_query (api, now, q, sizeof (q));
        if (!q[0]) {
            label = "jobs-all";
            if (backend_jobs (b, &jobs, &n, &e) < 0)
                die ("jobs-all", &e);
            free (jobs);
        }
        for (int tries = 0; q[0]; tries++) {
            uint64_t before;
            sleep (2);
            fresh = handle (&o);
            label = "jobs-all";
            if (backend_jobs (fresh, &jobs, &n, &e) < 0)
                die ("jobs-all", &e);
            free (jobs);
            before = slurmrest_jobs_unchanged (fresh);
            sleep (1);
            label = "jobs-unchanged";
            if (backend_jobs (fresh, &jobs, &n, &e) < 0)
                die ("jobs-unchanged", &e);
            free (jobs);
            bool same = slurmrest_jobs_unchanged (fresh) == before + 1;
            backend_destroy (fresh);
            if (same)
                break;
            if (tries == 10) {
                fprintf (stderr, "slurmrest_capture: the job list kept "
                                 "changing\n");
                return 1;
            }
        }

        label = "cancel";
        if (backend_cancel (b, pending, &e) < 0)
            die ("cancel", &e);
        wait_final (b, pending);
        label = "job-cancelled";
        if (backend_job (b, pending, &j, &e) < 0)
            die ("job-cancelled", &e);

        contract_quick_job (&req, user, part, cwd, 0);
        label = "submit-ok";
        if (backend_submit (b, &req, &ok, &e) < 0)
            die ("submit-ok", &e);
        contract_quick_job (&req, user, part, cwd, 3);
        label = "submit-fail";
        if (backend_submit (b, &req, &fail, &e) < 0)
            die ("submit-fail", &e);
        wait_final (b, ok);
        wait_final (b, fail);
        label = "job-ok";
        if (backend_job (b, ok, &j, &e) < 0)
            die ("job-ok", &e);
        label = "job-fail";
        if (backend_job (b, fail, &j, &e) < 0)
            die ("job-fail", &e);

        contract_quick_job (&req, user, "nosuchpartition", cwd, 0);
        label = "submit-bad-partition";
        if (backend_submit (b, &req, &bad, &e) == 0)
            die ("submit-bad-partition: accepted", NULL);
        label = "job-missing";
        /* within Slurm's job ids (at most 67108863): 23.02's v0.0.39
         * refuses a larger one as out of range, not as unknown */
        if (backend_job (b, 66000000, &j, &e) == 0)
            die ("job-missing: found", NULL);
        label = NULL;

        json_t *meta = json_pack (
            "{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "release",
            release, "version", slurmrest_api_name (api), "user", user,
            "partition", part, "cwd", cwd, "now", (json_int_t)now,
            "begin_time", (json_int_t)begin, "pending_id",
            (json_int_t)pending, "ok_id", (json_int_t)ok, "fail_id",
            (json_int_t)fail);
        /* the cluster as configured, where it is not the capture
         * cluster's (node m1, RealMemory 4000) */
        if (strcmp (node_list, "m1") || real_memory_mb != 4000) {
            json_object_set_new (meta, "node_list", json_string (node_list));
            json_object_set_new (meta, "real_memory_mb",
                                 json_integer (real_memory_mb));
        }
        char path[8192];
        snprintf (path, sizeof (path), "%s/meta.json", outdir);
        if (json_dump_file (meta, path, JSON_INDENT (2) | JSON_SORT_KEYS) < 0)
            die (path, NULL);
        json_decref (meta);
        backend_destroy (b);
        printf ("%s: %s captured in %s\n", release, slurmrest_api_name (api),
                outdir);
    }
    free (token);
    if (!versions) {
        fprintf (stderr, "slurmrest_capture: %s serves none of %s\n", url,
                 slurmrest_api_list ());
        return 1;
    }
    return 0;
}
