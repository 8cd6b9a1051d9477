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
#include <time.h>
#include <pwd.h>
#include <unistd.h>

#include "wire/client.h"
#include "metasched/cli/clifmt.h"
#include "metasched/cli/slurmfmt.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"

#define PROG "msqueue"

/* A finished job stays in the plain list this long after it ended (as
 * squeue shows one for slurmctld's MinJobAge); -j and -t show it as long
 * as metasched's database keeps it, which is for good. */
#define MSQUEUE_FINISHED_SHOWN_S (24 * 3600)

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: msqueue [OPTIONS]\n"
             "List your metasched jobs (admins: everybody's with --all).\n\n"
             "  -a, --all                 all users' jobs (admins)\n"
             "  -j, --jobs=ID[,ID...]     only these meta jobs, whatever their\n"
             "                            state or age\n"
             "  -u, --user=USER[,USER...] only these users' jobs (names or\n"
             "                            uids; others' jobs for admins only)\n"
             "  -t, --states=LIST         only these states: Slurm's (PENDING,\n"
             "                            RUNNING, COMPLETED, FAILED, TIMEOUT,\n"
             "                            CANCELLED, ... or PD, R, CD, F, ...),\n"
             "                            metasched's (queued, deciding,\n"
             "                            dispatching, submitted, running,\n"
             "                            completed, failed, cancelled, lost,\n"
             "                            unknown)\n"
             "                            or all\n"
             "  -o, --format=FORMAT       squeue's format: %%[.][WIDTH]FIELD, the\n"
             "                            fields i j u t T M l L D P N R r V S e\n"
             "                            E F K U G (msqueue(1))\n"
             "  -r, --array               one line per task of an array\n"
             "      --json                squeue --json's shape, with the API's\n"
             "                            fields of each job under \"metasched\"\n"
             "  -h, --noheader            no header line\n"
             "      --server=ADDR         unix:/path or http://host:port\n"
             "                            (default $METASCHED_SERVER or %s)\n"
             "      --help                this text\n"
             "  -V, --version             the version\n\n"
             "Without -j or -t, a job that ended more than 24 hours ago is not\n"
             "listed.\n",
             MS_CLIENT_DEFAULT_SERVER);
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

/* Check a --user list: names of users of this system or uids. */
static int
parse_users (const char *arg, json_t *users)
{
    char buf[1024], *save = NULL;

    if (!*arg || strlen (arg) >= sizeof (buf)) {
        fprintf (stderr, PROG ": --user: expected a list of user names\n");
        return -1;
    }
    ms_strlcpy (buf, arg, sizeof (buf));
    for (char *t = strtok_r (buf, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        struct passwd *pw = getpwnam (t);
        char *end;
        long v;
        if (!pw && isdigit ((unsigned char)*t)) {
            errno = 0;
            v = strtol (t, &end, 10);
            if (!*end && !errno && v >= 0)
                pw = getpwuid ((uid_t)v);
        }
        if (!pw) {
            fprintf (stderr, PROG ": --user: '%.64s' is not a user\n", t);
            return -1;
        }
        json_array_append_new (users, json_integer ((json_int_t)pw->pw_uid));
    }
    return 0;
}

static bool
user_wanted (const json_t *job, const json_t *users)
{
    size_t i;
    json_t *u;

    if (!json_array_size (users))
        return true;
    json_array_foreach (users, i, u)
    {
        if (json_integer_value (u)
            == json_integer_value (json_object_get (job, "uid")))
            return true;
    }
    return false;
}

/* A task of array job as a job of its own (ID_TASK) for -o with -r: the
 * task's state, cluster, job id and times over the array's fields. */
static json_t *
task_job (const json_t *job, uint32_t x, const json_t *t, bool ended)
{
    static const struct {
        const char *task, *meta, *slurm;
    } map[] = {
        { "pending", "queued", NULL },    { "running", "running", NULL },
        { "completed", "completed", NULL }, { "cancelled", "cancelled", NULL },
        { "failed", "failed", NULL },     { "timeout", "failed", "TIMEOUT" },
        { "node_fail", "failed", "NODE_FAIL" },
    };
    json_t *o = json_deep_copy (job);
    const char *ts = t ? json_string_value (json_object_get (t, "state"))
                       : ended ? "cancelled" : "pending";
    const char *meta = "failed", *slurm = NULL;
    char id[64];

    snprintf (id, sizeof (id), "%" JSON_INTEGER_FORMAT "_%u",
              json_integer_value (json_object_get (job, "id")), x);
    for (size_t k = 0; ts && k < sizeof (map) / sizeof (map[0]); k++)
        if (!strcmp (ts, map[k].task)) {
            meta = map[k].meta;
            slurm = map[k].slurm;
        }
    json_object_set_new (o, "id", json_string (id));
    json_object_set_new (o, "state", json_string (meta));
    json_object_del (o, "tasks");
    if (slurm) {
        char le[64];
        snprintf (le, sizeof (le), "%s on %s: task", slurm,
                  json_string_value (json_object_get (t, "cluster"))
                      ? json_string_value (json_object_get (t, "cluster"))
                      : "-");
        json_object_set_new (o, "last_error", json_string (le));
    }
    if (t) {
        json_object_set (o, "cluster", json_object_get (t, "cluster"));
        json_object_set (o, "cluster_job_id",
                         json_object_get (t, "cluster_job_id"));
        json_object_set (o, "exit_code", json_object_get (t, "exit_code"));
        json_object_set (o, "started_at", json_object_get (t, "started_at"));
        json_object_set (o, "finished_at", json_object_get (t, "ended_at"));
    } else if (!ended)
        json_object_set_new (o, "started_at", json_null ());
    return o;
}

/* -o with -r: a row per task of an array, as squeue -r prints them. */
static void
format_tasks (const slurmfmt_t *f, const json_t *j, long long now)
{
    const char *arr = json_string_value (json_object_get (j, "array"));
    const json_t *tasks = json_object_get (j, "tasks");
    bool ended = slurmfmt_finished (j);
    ms_array_t a;
    ms_error_t e;

    if (!arr || jobspec_parse_array (arr, &a, &e) < 0) {
        slurmfmt_row (f, j, now, stdout);
        return;
    }
    for (size_t r = 0; r < a.nranges; r++)
        for (uint32_t x = a.r[r].first; x <= a.r[r].last; x += a.r[r].step) {
            const json_t *t = NULL, *v;
            json_t *tj;
            size_t i;
            json_array_foreach (tasks, i, v)
            {
                if (json_integer_value (json_object_get (v, "task_id"))
                    == (json_int_t)x)
                    t = v;
            }
            tj = task_job (j, x, t, ended);
            slurmfmt_row (f, tj, now, stdout);
            json_decref (tj);
            if (a.r[r].step == 0)
                break;
        }
}

static void print_row (const json_t *j);

/* Component k of heterogeneous job j as a row of its own, named as Slurm
 * names it (JobId+offset, the cluster's job id too); the partition and the
 * prediction (of the whole job) on the first component's row only. */
static json_t *
het_row (const json_t *j, json_int_t k)
{
    json_t *o = json_deep_copy (j), *cj = json_object_get (j, "cluster_job_id");
    char id[64];

    snprintf (id, sizeof (id), "%" JSON_INTEGER_FORMAT "+%" JSON_INTEGER_FORMAT,
              json_integer_value (json_object_get (j, "id")), k);
    json_object_set_new (o, "id", json_string (id));
    if (json_is_integer (cj)) {
        snprintf (id, sizeof (id),
                  "%" JSON_INTEGER_FORMAT "+%" JSON_INTEGER_FORMAT,
                  json_integer_value (cj), k);
        json_object_set_new (o, "cluster_job_id", json_string (id));
    }
    if (k > 0) {
        json_object_set_new (o, "partition", json_null ());
        json_object_set_new (o, "predicted_time_s", json_null ());
        json_object_set_new (o, "predicted_energy_j", json_null ());
    }
    return o;
}

/* A row per component of a heterogeneous job (as squeue prints them),
 * through print (the table's or -o's); false for any other job. */
static bool
het_rows (const slurmfmt_t *f, const json_t *j, long long now)
{
    json_int_t n = json_integer_value (json_object_get (j, "het_components"));

    if (n < 2)
        return false;
    for (json_int_t k = 0; k < n; k++) {
        json_t *r = het_row (j, k);
        if (f)
            slurmfmt_row (f, r, now, stdout);
        else
            print_row (r);
        json_decref (r);
    }
    return true;
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

/* If argv[*ip] is the option -SHORT or --LONG with a value (-Xval, -X val,
 * --long=val, --long val), point *valp at the value and return 1; -1 if
 * the value is missing; 0 if it is another word. */
static int
opt_value (int argc, char **argv, int *ip, char shortname, const char *longname,
           const char **valp)
{
    const char *w = argv[*ip];
    size_t n = strlen (longname);

    if (w[0] == '-' && w[1] == shortname && shortname) {
        if (w[2]) {
            *valp = w + 2;
            return 1;
        }
    } else if (!strncmp (w, "--", 2) && !strncmp (w + 2, longname, n)
               && w[2 + n] == '=') {
        *valp = w + 3 + n;
        return 1;
    } else if (!(!strncmp (w, "--", 2) && !strcmp (w + 2, longname)))
        return 0;
    if (*ip + 1 >= argc) {
        fprintf (stderr, PROG ": %s: needs a value\n", w);
        return -1;
    }
    *valp = argv[++*ip];
    return 1;
}

/* The jobs asked for by id (-j), each by itself: a missing one is
 * named. Those of the states and users asked for go to jobs. */
static int
fetch_ids (ms_client_t *c, const long long *ids, size_t nids,
           const slurmfmt_states_t *st, const json_t *users, json_t *jobs)
{
    char target[512];
    ms_error_t err;

    for (size_t k = 0; k < nids; k++) {
        json_t *job = NULL;
        snprintf (target, sizeof (target), "/v1/jobs/%lld", ids[k]);
        if (ms_client_call (c, "GET", target, NULL, NULL, &job, &err) < 0) {
            if (err.http_status == 404)
                fprintf (stderr, PROG ": job %lld: no such job\n", ids[k]);
            else
                fprintf (stderr, PROG ": job %lld: %s\n", ids[k], err.text);
            json_decref (job);
            return -1;
        }
        if (slurmfmt_states_match (st, job) && user_wanted (job, users))
            json_array_append (jobs, job);
        json_decref (job);
    }
    return 0;
}

/* The caller's jobs (every user's with all), as the server lists them in
 * the states of query; those of the states and users asked for go to
 * jobs, a finished one only for MSQUEUE_FINISHED_SHOWN_S unless states
 * were given. */
static int
fetch_list (ms_client_t *c, bool all, const char *query,
            const slurmfmt_states_t *st, bool states_given,
            const json_t *users, long long now, json_t *jobs)
{
    char target[512];
    ms_error_t err;
    json_t *reply = NULL, *list;
    size_t k;
    json_t *job;

    for (;;) {
        snprintf (target, sizeof (target), "/v1/jobs%s%s%s%s",
                  all || query[0] ? "?" : "", all ? "all=1" : "",
                  all && query[0] ? "&" : "", query[0] ? "state=" : "");
        if (query[0])
            strncat (target, query, sizeof (target) - strlen (target) - 1);
        if (ms_client_call (c, "GET", target, NULL, NULL, &reply, &err)
            == 0)
            break;
        json_decref (reply);
        reply = NULL;
        if (all && err.http_status == 403 && json_array_size (users)) {
            all = false; /* -u of a user: only the caller's own jobs */
            continue;
        }
        fprintf (stderr, PROG ": %s\n", err.text);
        return -1;
    }
    list = json_object_get (reply, "jobs");
    if (!json_is_array (list)) {
        fprintf (stderr,
                 PROG ": metaschedd at %s answered without a 'jobs' "
                      "list\n",
                 ms_client_address (c));
        json_decref (reply);
        return -1;
    }
    /* the server filters; filter again so that the output never
     * disagrees with what was asked */
    json_array_foreach (list, k, job)
    {
        long long fin = slurmfmt_time (json_object_get (job, "finished_at"));
        if (!slurmfmt_states_match (st, job) || !user_wanted (job, users))
            continue;
        if (!states_given && slurmfmt_finished (job) && fin >= 0
            && now - fin > MSQUEUE_FINISHED_SHOWN_S)
            continue;
        json_array_append (jobs, job);
    }
    json_decref (reply);
    return 0;
}

/* jobs as --json, in -o's format or in msqueue's own columns. */
static void
print_jobs (json_t *jobs, const char *format, const slurmfmt_t *fmt,
            bool as_json, bool header, bool per_task, long long now)
{
    if (as_json) {
        json_t *o = slurmfmt_json (jobs, now);
        char *text = json_dumps (o, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
        printf ("%s\n", text ? text : "{}");
        free (text);
        json_decref (o);
    } else if (format) {
        size_t k;
        json_t *job;

        if (header)
            slurmfmt_header (fmt, stdout);
        json_array_foreach (jobs, k, job)
        {
            if (per_task && json_is_string (json_object_get (job, "array")))
                format_tasks (fmt, job, now);
            else if (!het_rows (fmt, job, now))
                slurmfmt_row (fmt, job, now, stdout);
        }
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
            else if (!het_rows (NULL, job, now))
                print_row (job);
        }
    }
}

int
main (int argc, char **argv)
{
    const char *server = NULL, *format = NULL;
    bool all = false, as_json = false, header = true, per_task = false;
    bool states_given = false;
    char query[256] = "";
    long long *ids = NULL, now = (long long)time (NULL);
    size_t nids = 0;
    int rc = 1, i = 1, r;
    ms_client_t *c = NULL;
    ms_error_t err;
    slurmfmt_states_t st = { .all = true };
    slurmfmt_t *fmt = NULL;
    json_t *jobs = json_array (), *users = json_array ();

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
        else if (!strcmp (w, "-h") || !strcmp (w, "--noheader"))
            header = false;
        else if (!strcmp (w, "-r") || !strcmp (w, "--array"))
            per_task = true;
        else if (!strcmp (w, "--help") || !strcmp (w, "--usage")) {
            usage (stdout);
            rc = 0;
            goto out;
        } else if (!strcmp (w, "-V") || !strcmp (w, "--version")) {
            printf ("msqueue (metasched) %s\n", PACKAGE_VERSION);
            rc = 0;
            goto out;
        } else if ((r = opt_value (argc, argv, &i, 't', "states", &val)) != 0
                   || (r = opt_value (argc, argv, &i, 0, "state", &val)) != 0) {
            if (r < 0)
                goto out;
            if (slurmfmt_states_parse (val, &st, &err) < 0) {
                fprintf (stderr, PROG ": %s\n", err.text);
                goto out;
            }
            states_given = true;
        } else if ((r = opt_value (argc, argv, &i, 'j', "jobs", &val)) != 0) {
            if (r < 0 || parse_ids (val, &ids, &nids) < 0)
                goto out;
        } else if ((r = opt_value (argc, argv, &i, 'u', "user", &val)) != 0
                   || (r = opt_value (argc, argv, &i, 0, "users", &val)) != 0) {
            if (r < 0 || parse_users (val, users) < 0)
                goto out;
        } else if ((r = opt_value (argc, argv, &i, 'o', "format", &val)) != 0) {
            if (r < 0)
                goto out;
            slurmfmt_free (fmt);
            if (slurmfmt_parse (val, &fmt, &err) < 0) {
                fprintf (stderr, PROG ": %s\n", err.text);
                goto out;
            }
            format = val;
        } else {
            fprintf (stderr,
                     PROG ": unknown option '%.64s' (see msqueue --help)\n", w);
            goto out;
        }
        i++;
    }
    slurmfmt_states_query (&st, query, sizeof (query));
    /* another user named: every user's jobs, which only admins may list;
     * others see their own (none of those asked) as metasched shows a
     * user nobody else's jobs */
    for (size_t k = 0; k < json_array_size (users); k++)
        if (json_integer_value (json_array_get (users, k)) != (json_int_t)getuid ())
            all = true;

    if (ms_client_open (server, &c, &err) < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        goto out;
    }
    if (nids ? fetch_ids (c, ids, nids, &st, users, jobs) < 0
             : fetch_list (c, all, query, &st, states_given, users, now, jobs)
                   < 0)
        goto out;
    print_jobs (jobs, format, fmt, as_json, header, per_task, now);
    rc = 0;
out:
    json_decref (jobs);
    json_decref (users);
    slurmfmt_free (fmt);
    free (ids);
    ms_client_close (c);
    return rc;
}
