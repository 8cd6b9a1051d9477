/* msqueue.c - list metasched's jobs, as squeue lists Slurm's: where each
 * went (cluster, partition, frequency, cluster job id), what was predicted
 * and, once run, what was measured. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metasched/cli/client.h"
#include "metasched/cli/clifmt.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"

#define PROG "msqueue"

static const char *states[]
    = { "queued",    "deciding", "dispatching", "submitted", "running",
        "completed", "failed",   "cancelled",   "lost",      NULL };

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: msqueue [OPTIONS]\n"
             "List your metasched jobs (admins: everybody's with --all).\n\n"
             "  -a, --all                 all users' jobs (admins)\n"
             "  -t, --states=LIST         only these states (comma-separated:\n"
             "                            queued, deciding, dispatching,\n"
             "                            submitted, running, completed,\n"
             "                            failed, cancelled, lost; or all)\n"
             "  -j, --jobs=ID[,ID...]     only these meta jobs\n"
             "  -r, --array               one line per task of an array\n"
             "      --json                the API's JSON\n"
             "      --noheader            no header line\n"
             "      --server=ADDR         unix:/path or http://host:port\n"
             "                            (default $METASCHED_SERVER or %s)\n"
             "  -h, --help                this text\n"
             "  -V, --version             the version\n",
             MS_CLIENT_DEFAULT_SERVER);
}

/* Check a --states list and write it lower-case into out ("" for all). */
static int
parse_states (const char *arg, char *out, size_t outlen)
{
    char buf[512], *save = NULL;

    if (strlen (arg) >= sizeof (buf) || !*arg) {
        fprintf (stderr, PROG ": --states: expected a list of states\n");
        return -1;
    }
    ms_strlcpy (buf, arg, sizeof (buf));
    out[0] = '\0';
    for (char *t = strtok_r (buf, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        int k;
        if (!strcasecmp (t, "all")) {
            out[0] = '\0';
            return 0;
        }
        for (k = 0; states[k]; k++)
            if (!strcasecmp (t, states[k]))
                break;
        if (!states[k]) {
            fprintf (stderr,
                     PROG ": --states: '%.64s' is not a state (queued, "
                          "deciding, dispatching, submitted, running, "
                          "completed, failed, cancelled, lost, all)\n",
                     t);
            return -1;
        }
        if (out[0])
            strncat (out, ",", outlen - strlen (out) - 1);
        strncat (out, states[k], outlen - strlen (out) - 1);
    }
    return 0;
}

/* Check a --jobs list: positive integers. */
static int
parse_ids (const char *arg, long long **idsp, size_t *np)
{
    const char *p = arg;

    if (!*arg) {
        fprintf (stderr, PROG ": --jobs: expected a list of job ids\n");
        return -1;
    }
    while (*p) {
        char *end;
        long long v;

        errno = 0;
        v = isdigit ((unsigned char)*p) ? strtoll (p, &end, 10) : -1;
        if (v < 1 || errno || (*end && *end != ',')) {
            fprintf (stderr, PROG ": --jobs: '%.64s' is not a job id\n", p);
            return -1;
        }
        *idsp = ms_xrealloc (*idsp, (*np + 1) * sizeof (long long));
        (*idsp)[(*np)++] = v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static bool
state_wanted (const json_t *job, const char *filter)
{
    const char *st = json_string_value (json_object_get (job, "state"));
    size_t n;

    if (!filter[0])
        return true;
    if (!st)
        return false;
    n = strlen (st);
    for (const char *p = filter; *p;) {
        if (!strncmp (p, st, n) && (p[n] == ',' || !p[n]))
            return true;
        if (!(p = strchr (p, ',')))
            break;
        p++;
    }
    return false;
}

/* The REASON column: why a queued job waits (held by its dependency),
 * an array's tasks by state, or the job's last error. */
static void
reason_of (const json_t *j, char *buf, size_t len)
{
    const char *held = json_string_value (json_object_get (j, "held"));
    const char *le = json_string_value (json_object_get (j, "last_error"));
    const json_t *tasks = json_object_get (j, "tasks");
    const char *st = json_string_value (json_object_get (j, "state"));

    buf[0] = '\0';
    if (held && st && !strcmp (st, "queued")) {
        snprintf (buf, len, "%s%s%s%s", held, le ? " (" : "", le ? le : "",
                  le ? ")" : "");
        return;
    }
    if (json_is_array (tasks)) {
        /* tasks not listed yet wait in the array's pending record (or were
         * cancelled with it) */
        static const char *const words[]
            = { "pending", "running",   "completed", "failed",
                "cancelled", "timeout", "node_fail", "other" };
        const char *arr = json_string_value (json_object_get (j, "array"));
        long n[8] = { 0 }, total = 0;
        size_t i, used = 0;
        json_t *t;
        ms_array_t a;
        ms_error_t e;
        if (arr && jobspec_parse_array (arr, &a, &e) == 0)
            total = (long)a.ntasks;
        bool ended = st && (!strcmp (st, "completed") || !strcmp (st, "failed")
                            || !strcmp (st, "cancelled"));
        json_array_foreach (tasks, i, t)
        {
            const char *w = json_string_value (json_object_get (t, "state"));
            for (size_t k = 0; k < 8; k++)
                if (w && !strcmp (w, words[k]))
                    n[k]++;
        }
        if (total > (long)json_array_size (tasks))
            n[ended ? 4 : 0] += total - (long)json_array_size (tasks);
        for (size_t k = 0; k < 8; k++)
            if (n[k] && used < len)
                used += (size_t)snprintf (buf + used, len - used, "%s%ld %s",
                                          used ? ", " : "tasks: ", n[k],
                                          words[k]);
        if (le && used < len)
            snprintf (buf + used, len - used, "; %s", le);
        return;
    }
    if (le)
        snprintf (buf, len, "%s", le);
}

static void
print_row (const json_t *j)
{
    char id[48], user[64], st[16], name[64], cl[32], pa[32], fr[16], cj[32],
        pt[32], pe[32], mt[32], me[32], why[512];
    const char *arr = json_string_value (json_object_get (j, "array"));

    clifmt_text (json_object_get (j, "id"), id, sizeof (id));
    if (arr) {
        /* squeue's 123_[1-10] */
        size_t n = strlen (id);
        snprintf (id + n, sizeof (id) - n, "_[%.32s]", arr);
    }
    reason_of (j, why, sizeof (why));
    clifmt_text (json_object_get (j, "owner"), user, sizeof (user));
    clifmt_text (json_object_get (j, "state"), st, sizeof (st));
    clifmt_text (json_object_get (j, "name"), name, sizeof (name));
    clifmt_text (json_object_get (j, "cluster"), cl, sizeof (cl));
    clifmt_text (json_object_get (j, "partition"), pa, sizeof (pa));
    clifmt_freq (json_object_get (j, "freq_khz"), fr, sizeof (fr));
    clifmt_text (json_object_get (j, "cluster_job_id"), cj, sizeof (cj));
    clifmt_duration (json_object_get (j, "predicted_time_s"), pt, sizeof (pt));
    clifmt_energy (json_object_get (j, "predicted_energy_j"), pe, sizeof (pe));
    clifmt_duration (json_object_get (j, "measured_time_s"), mt, sizeof (mt));
    clifmt_energy (json_object_get (j, "measured_energy_j"), me, sizeof (me));
    if (strlen (name) > 16)
        name[16] = '\0';
    printf ("%8s %-10s %-11s %-16s %-8s %-10s %5s %8s %11s %11s %11s %8s %s\n",
            id, user, st, name, cl, pa, fr, cj, pt, pe, mt, me, why);
}

/* One line per task of array job j (--array): the tasks the clusters
 * listed, then those still in the array's pending record. */
static void
print_tasks (const json_t *j)
{
    const char *arr = json_string_value (json_object_get (j, "array"));
    const char *st = json_string_value (json_object_get (j, "state"));
    const json_t *tasks = json_object_get (j, "tasks");
    char id[32], user[64], name[64], pa[32], fr[16];
    bool ended = st && (!strcmp (st, "completed") || !strcmp (st, "failed")
                        || !strcmp (st, "cancelled"));
    ms_array_t a;
    ms_error_t e;

    if (!arr || jobspec_parse_array (arr, &a, &e) < 0) {
        print_row (j);
        return;
    }
    clifmt_text (json_object_get (j, "id"), id, sizeof (id));
    clifmt_text (json_object_get (j, "owner"), user, sizeof (user));
    clifmt_text (json_object_get (j, "name"), name, sizeof (name));
    clifmt_text (json_object_get (j, "partition"), pa, sizeof (pa));
    clifmt_freq (json_object_get (j, "freq_khz"), fr, sizeof (fr));
    if (strlen (name) > 16)
        name[16] = '\0';
    for (size_t r = 0; r < a.nranges; r++)
        for (uint32_t x = a.r[r].first; x <= a.r[r].last; x += a.r[r].step) {
            const json_t *t = NULL, *v;
            size_t i;
            char tid[48], tst[16], tcl[32], tcj[32], why[160] = "";
            json_array_foreach (tasks, i, v)
            {
                if (json_integer_value (json_object_get (v, "task_id"))
                    == (json_int_t)x)
                    t = v;
            }
            snprintf (tid, sizeof (tid), "%s_%u", id, x);
            if (t) {
                const char *rs
                    = json_string_value (json_object_get (t, "reason"));
                clifmt_text (json_object_get (t, "state"), tst, sizeof (tst));
                clifmt_text (json_object_get (t, "cluster"), tcl, sizeof (tcl));
                clifmt_text (json_object_get (t, "cluster_job_id"), tcj,
                             sizeof (tcj));
                if (rs && *rs && strcmp (rs, "None"))
                    snprintf (why, sizeof (why), "%s", rs);
            } else {
                ms_strlcpy (tst, ended ? "cancelled" : "pending", sizeof (tst));
                clifmt_text (json_object_get (j, "cluster"), tcl, sizeof (tcl));
                clifmt_text (json_object_get (j, "cluster_job_id"), tcj,
                             sizeof (tcj));
            }
            printf ("%8s %-10s %-11s %-16s %-8s %-10s %5s %8s %11s %11s %11s "
                    "%8s %s\n",
                    tid, user, tst, name, tcl, pa, fr, tcj, "-", "-", "-", "-",
                    why);
            if (a.r[r].step == 0)
                break;
        }
}

int
main (int argc, char **argv)
{
    const char *server = NULL;
    bool all = false, as_json = false, header = true, per_task = false;
    char filter[256] = "", target[512];
    long long *ids = NULL;
    size_t nids = 0;
    int rc = 1, i = 1, r;
    ms_client_t *c = NULL;
    ms_error_t err;
    json_t *jobs = json_array ();

    while (i < argc) {
        const char *w = argv[i], *val = NULL;

        if ((r = clifmt_server_opt (PROG, argc, argv, &i, &server)) != 0) {
            if (r < 0)
                goto out;
            continue;
        }
        if (!strcmp (w, "-a") || !strcmp (w, "--all"))
            all = true;
        else if (!strcmp (w, "--json"))
            as_json = true;
        else if (!strcmp (w, "--noheader"))
            header = false;
        else if (!strcmp (w, "-r") || !strcmp (w, "--array"))
            per_task = true;
        else if (!strcmp (w, "-h") || !strcmp (w, "--help")) {
            usage (stdout);
            rc = 0;
            goto out;
        } else if (!strcmp (w, "-V") || !strcmp (w, "--version")) {
            printf ("msqueue (metasched) %s\n", PACKAGE_VERSION);
            rc = 0;
            goto out;
        } else if (!strncmp (w, "--states=", 9) || !strncmp (w, "--jobs=", 7)) {
            val = strchr (w, '=') + 1;
        } else if (!strcmp (w, "-t") || !strcmp (w, "--states")
                   || !strcmp (w, "-j") || !strcmp (w, "--jobs")) {
            if (i + 1 >= argc) {
                fprintf (stderr, PROG ": %s: needs a value\n", w);
                goto out;
            }
            val = argv[++i];
        } else if ((w[1] == 't' || w[1] == 'j') && w[0] == '-' && w[2]) {
            val = w + 2;
        } else {
            fprintf (stderr,
                     PROG ": unknown option '%.64s' (see msqueue --help)\n", w);
            goto out;
        }
        if (val) {
            bool states_opt = w[1] == 't' || !strncmp (w, "--states", 8);
            if (states_opt ? parse_states (val, filter, sizeof (filter))
                           : parse_ids (val, &ids, &nids))
                goto out;
        }
        i++;
    }

    if (ms_client_open (server, &c, &err) < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        goto out;
    }
    if (nids) {
        /* Each asked-for job by itself: a missing one is named. */
        for (size_t k = 0; k < nids; k++) {
            json_t *job = NULL;
            snprintf (target, sizeof (target), "/v1/jobs/%lld", ids[k]);
            if (ms_client_call (c, "GET", target, NULL, NULL, &job, &err) < 0) {
                if (err.http_status == 404)
                    fprintf (stderr, PROG ": job %lld: no such job\n", ids[k]);
                else
                    fprintf (stderr, PROG ": job %lld: %s\n", ids[k], err.text);
                json_decref (job);
                goto out;
            }
            if (state_wanted (job, filter))
                json_array_append (jobs, job);
            json_decref (job);
        }
    } else {
        json_t *reply = NULL, *list;
        size_t k;
        json_t *job;

        snprintf (target, sizeof (target), "/v1/jobs%s%s%s%s",
                  all || filter[0] ? "?" : "", all ? "all=1" : "",
                  all && filter[0] ? "&" : "", filter[0] ? "state=" : "");
        if (filter[0])
            strncat (target, filter, sizeof (target) - strlen (target) - 1);
        if (ms_client_call (c, "GET", target, NULL, NULL, &reply, &err) < 0) {
            fprintf (stderr, PROG ": %s\n", err.text);
            json_decref (reply);
            goto out;
        }
        list = json_object_get (reply, "jobs");
        if (!json_is_array (list)) {
            fprintf (stderr,
                     PROG ": metaschedd at %s answered without a 'jobs' "
                          "list\n",
                     ms_client_address (c));
            json_decref (reply);
            goto out;
        }
        /* the server filters; filter again so that the output never
         * disagrees with what was asked */
        json_array_foreach (list, k, job) if (state_wanted (job, filter))
            json_array_append (jobs, job);
        json_decref (reply);
    }
    if (as_json) {
        json_t *o = json_pack ("{s:O}", "jobs", jobs);
        char *text = json_dumps (o, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
        printf ("%s\n", text ? text : "{}");
        free (text);
        json_decref (o);
    } else {
        size_t k;
        json_t *job;

        if (header)
            printf ("%8s %-10s %-11s %-16s %-8s %-10s %5s %8s %11s %11s %11s "
                    "%8s %s\n",
                    "META_ID", "USER", "STATE", "NAME", "CLUSTER", "PARTITION",
                    "FREQ", "JOBID", "PRED_TIME", "PRED_ENERGY", "TIME",
                    "ENERGY", "REASON");
        json_array_foreach (jobs, k, job)
        {
            if (per_task && json_is_string (json_object_get (job, "array")))
                print_tasks (job);
            else
                print_row (job);
        }
    }
    rc = 0;
out:
    json_decref (jobs);
    free (ids);
    ms_client_close (c);
    return rc;
}
