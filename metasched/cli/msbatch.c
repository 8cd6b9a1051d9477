/* msbatch.c - submit a batch script to metasched, as sbatch does to Slurm.
 *
 * The options are sbatch's (metasched/common/jobspec.c reads them from #SBATCH
 * lines and the command line, which wins) without the partition:
 * metaschedd chooses cluster, partition and frequency. Nothing is sent
 * until the whole job has been read and checked.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "wire/client.h"
#include "metasched/cli/clifmt.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_json.h"
#include "metasched/common/util.h"

extern char **environ;

#define PROG "msbatch"

/* How long a submission is sent again while metaschedd answers 503 with a
 * Retry-After (its database failing over), by default; METASCHED_RETRY_S
 * sets it (0: never). */
#define RETRY_DEFAULT_S 60
#define RETRY_MAX_S 86400
#define ENV_RETRY "METASCHED_RETRY_S"

static void
usage (FILE *f)
{
    fprintf (
        f,
        "Usage: msbatch [OPTIONS] [SCRIPT]\n"
        "Submit SCRIPT (or the script on standard input) to metasched, which\n"
        "chooses the cluster, partition and CPU frequency.\n\n"
        "  -N, --nodes=N            nodes\n"
        "  -n, --ntasks=N           tasks\n"
        "      --ntasks-per-node=N  tasks per node\n"
        "  -c, --cpus-per-task=N    CPUs per task\n"
        "  -t, --time=TIME          time limit (minutes, HH:MM:SS, D-HH...)\n"
        "  -J, --job-name=NAME      job name (default: the script's name)\n"
        "      --app=APP            the application, for the predictor\n"
        "      --begin=TIME         start no earlier than TIME (now+1hour,\n"
        "                           16:00, tomorrow, 2026-12-24T08:00, ...)\n"
        "  -o, --output=FILE        standard output\n"
        "  -e, --error=FILE         standard error\n"
        "  -i, --input=FILE         standard input\n"
        "  -D, --chdir=DIR          working directory (default: here)\n"
        "      --export=ALL|NONE|VAR[=value],...  environment (default ALL)\n"
        "      --exclusive          whole nodes\n"
        "  -p, --partition=NAME     partitions, as the site takes them\n"
        "  -M, --clusters=NAME,...  clusters, as the site takes them\n"
        "      --cpu-freq=low|high|highm1|KHZ[-KHZ][:GOV]  pin the frequency\n"
        "                           (as the site takes it)\n"
        "  -A, --account, -q, --qos, --mem, --mem-per-cpu, -C, --constraint,\n"
        "  --gres, -G, --gpus..., -a, --array, -d, --dependency, --mail-type,\n"
        "  --mail-user and every other option of sbatch: see msbatch(1),\n"
        "                           which says what metasched does with each\n"
        "      --wrap=COMMAND       a script of one command (/bin/sh)\n"
        "      --test-only          show the candidates, submit nothing\n"
        "      --parse              print the job as metasched would route it\n"
        "                           (JSON) and exit; nothing is sent\n"
        "      --parsable           print only the job id\n"
        "  -W, --wait               wait for the job to end; exit with its\n"
        "                           exit code\n"
        "      --server=ADDR        unix:/path or http://host:port\n"
        "                           (default $METASCHED_SERVER or %s)\n"
        "  -h, --help               this text\n"
        "  -V, --version            the version\n\n"
        "While metaschedd answers 503 with a Retry-After (its database\n"
        "failing over), the submission is sent again, with the same key, for\n"
        "up to $" ENV_RETRY " seconds (default %d; 0: never).\n",
        MS_CLIENT_DEFAULT_SERVER, RETRY_DEFAULT_S);
}

/* $METASCHED_RETRY_S, or the default; -1 (said) when it is not a number
 * of seconds. */
static long
retry_bound (void)
{
    const char *v = getenv (ENV_RETRY);
    char *end;
    long n;

    if (!v || !*v)
        return RETRY_DEFAULT_S;
    errno = 0;
    n = strtol (v, &end, 10);
    if (errno || *end || end == v || n < 0 || n > RETRY_MAX_S) {
        fprintf (stderr,
                 PROG ": " ENV_RETRY ": '%.40s' is not a number of seconds "
                      "(0..%d)\n",
                 v, RETRY_MAX_S);
        return -1;
    }
    return n;
}

/* The submission's key (doc/api.md "submit_key"): random, the same in
 * every retry, so that metaschedd stores it once however often it
 * arrives. */
static void
submit_key (char key[33])
{
    unsigned char b[16];
    size_t got = 0;

    while (got < sizeof (b)) {
        ssize_t n = getrandom (b + got, sizeof (b) - got, 0);
        if (n > 0)
            got += (size_t)n;
        else if (n < 0 && errno != EINTR) {
            /* no entropy call: the time and pid, unique enough per user */
            struct timespec ts;
            clock_gettime (CLOCK_REALTIME, &ts);
            snprintf (key, 33, "%016lx%08lx%08x", (unsigned long)ts.tv_sec,
                      (unsigned long)ts.tv_nsec & 0xffffffffUL,
                      (unsigned)getpid ());
            return;
        }
    }
    for (size_t i = 0; i < sizeof (b); i++)
        snprintf (key + 2 * i, 3, "%02x", b[i]);
}

static double
mono_s (void)
{
    return ms_mono_s ();
}

/* POST req to target; while the answer is a 503 with a Retry-After, wait
 * that long and send it again, for at most bound_s seconds in all, saying
 * so on standard error each time. */
static int
post_retrying (ms_client_t *c, const char *target, json_t *req, long bound_s,
               json_t **replyp, ms_error_t *errp)
{
    double t0 = mono_s ();
    unsigned tries = 0;

    for (;;) {
        long ra, left;

        if (ms_client_call (c, "POST", target, req, NULL, replyp, errp) == 0) {
            if (tries)
                fprintf (stderr, PROG ": accepted after %u %s in %.0f s\n",
                         tries, tries == 1 ? "retry" : "retries",
                         mono_s () - t0);
            return 0;
        }
        ra = ms_client_retry_after (c);
        if (errp->kind != MS_ERR_HTTP || errp->http_status != 503 || ra <= 0)
            return -1;
        left = bound_s - (long)(mono_s () - t0);
        if (ra > left) {
            if (tries)
                ms_err_prefix (
                    errp, "gave up after %u %s in %.0f s (" ENV_RETRY "=%ld)",
                    tries, tries == 1 ? "retry" : "retries", mono_s () - t0,
                    bound_s);
            return -1;
        }
        fprintf (stderr,
                 PROG ": %s; sending it again in %ld s (for up to %ld s "
                      "more, " ENV_RETRY ")\n",
                 errp->text, ra, left);
        sleep ((unsigned)ra);
        tries++;
        json_decref (*replyp);
        *replyp = NULL;
    }
}

/* jobspec's options that take a value in the next word, to find where
 * the script is while taking out msbatch's own options. */
static bool
takes_value (const char *w)
{
    const jobspec_option_t *o;

    if (w[0] == '-' && w[1] == '-') {
        size_t n = strlen (w + 2), matches = 0;
        bool value = false;
        if (strchr (w, '='))
            return false;
        for (size_t k = 0; (o = jobspec_option_at (k)); k++) {
            if (strncmp (o->name, w + 2, n))
                continue;
            if (strlen (o->name) == n)
                return o->has_arg == 1;
            matches++;
            value = o->has_arg == 1;
        }
        return matches == 1 && value;
    }
    if (w[0] != '-' || !w[1])
        return false;
    /* -HN: flags, then one that takes the next word */
    for (const char *c = w + 1; *c; c++)
        for (size_t k = 0; (o = jobspec_option_at (k)); k++)
            if (o->shortname == *c) {
                if (o->has_arg == 0)
                    break;
                return o->has_arg == 1 && !c[1];
            }
    return false;
}

/* Read all of a stream (the script from standard input). */
static int
read_stream (FILE *f, char **bufp, size_t *lenp)
{
    size_t len = 0, cap = 65536;
    char *buf = ms_xmalloc (cap + 1);
    size_t n;

    while ((n = fread (buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len > JOBSPEC_SCRIPT_MAX)
            break;
        if (len == cap) {
            cap *= 2;
            buf = ms_xrealloc (buf, cap + 1);
        }
    }
    if (ferror (f)) {
        free (buf);
        return -1;
    }
    buf[len] = '\0';
    *bufp = buf;
    *lenp = len;
    return 0;
}

static bool
valid_env_name (const char *s, size_t n)
{
    if (n == 0
        || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')
             || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')
              || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* Add NAME=value to env, replacing an entry of the same name. */
static void
env_put (json_t *env, const char *entry)
{
    size_t n = strcspn (entry, "="), i;
    json_t *e;

    json_array_foreach (env, i, e)
    {
        const char *s = json_string_value (e);
        if (!strncmp (s, entry, n) && s[n] == '=') {
            json_array_set_new (env, i, json_string (entry));
            return;
        }
    }
    json_array_append_new (env, json_string (entry));
}

/* --export-file: the environment sbatch's env_array_from_file reads, NAME=value
 * entries each ended by a NUL (a number of 3 or more that is an open file
 * descriptor is read instead of a file of that name), in place of this
 * environment; entries without '=' are passed over, an empty one ends. */
static int
env_from_file (const char *path, json_t *env)
{
    char *end, *buf = NULL;
    size_t len = 0, cap = 0;
    long fdn = strtol (path, &end, 10);
    int fd = -1;
    ssize_t r;

    if (*path && !*end && fdn >= 3 && fdn < INT_MAX && fcntl ((int)fdn, F_GETFL) >= 0)
        fd = (int)fdn;
    else if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0) {
        fprintf (stderr, PROG ": --export-file=%s: cannot open: %s\n", path,
                 strerror (errno));
        return -1;
    }
    do {
        if (len + 4096 + 1 > cap) {
            cap = (len + 4096) * 2;
            buf = ms_xrealloc (buf, cap);
        }
        r = read (fd, buf + len, cap - len - 1);
        if (r > 0)
            len += (size_t)r;
    } while (r > 0 || (r < 0 && errno == EINTR));
    if (r < 0 || len > JOBSPEC_SCRIPT_MAX) {
        fprintf (stderr, PROG ": --export-file=%s: %s\n", path,
                 r < 0 ? strerror (errno) : "larger than 1 MiB");
        if (fd != (int)fdn)
            close (fd);
        free (buf);
        return -1;
    }
    if (fd != (int)fdn)
        close (fd);
    buf[len] = '\0';
    for (size_t at = 0; at < len;) {
        const char *e = buf + at, *eq;
        size_t n = strnlen (e, len - at);
        if (n == 0 || at + n >= len)
            break; /* an empty entry, or one no NUL ends */
        at += n + 1;
        eq = strchr (e, '=');
        if (!eq || !valid_env_name (e, (size_t)(eq - e)))
            continue;
        if (jobspec_env_is_identity (e, (size_t)(eq - e)) || n > 4096)
            continue;
        json_t *utf8 = json_string (e);
        if (!utf8)
            continue; /* not UTF-8: JSON cannot carry it */
        json_decref (utf8);
        env_put (env, e);
    }
    free (buf);
    return 0;
}

/* --propagate: the limits of this shell as sbatch sends them
 * (SLURM_RLIMIT_NAME=U<soft limit>: the user asked; slurmd applies it
 * whatever the cluster's PropagateResourceLimits). */
static void
rlimit_env (const ms_jobspec_t *s, json_t *env)
{
    static const int res[]
        = { RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_DATA,  RLIMIT_STACK,   RLIMIT_CORE,
            RLIMIT_RSS, RLIMIT_NPROC, RLIMIT_NOFILE, RLIMIT_MEMLOCK, RLIMIT_AS };
    unsigned mask;
    ms_error_t e;

    if (!s->propagate[0] || jobspec_parse_propagate (s->propagate, &mask, &e) < 0)
        return;
    for (size_t i = 0; jobspec_rlimit_name (i); i++) {
        struct rlimit rl;
        char entry[96];
        if (!(mask & (1u << i)) || getrlimit (res[i], &rl) < 0)
            continue;
        snprintf (entry, sizeof (entry), "SLURM_RLIMIT_%s=U%lu",
                  jobspec_rlimit_name (i), (unsigned long)rl.rlim_cur);
        env_put (env, entry);
    }
}

/* The job's environment by --export (sbatch's meaning): ALL is this
 * environment, NONE nothing; listed VAR=value are set, listed VAR are taken
 * from here. Variables the API cannot carry (a name that is not a shell
 * name, an entry over 4 KiB) are left out with a warning. */
static int
build_environment (const ms_jobspec_t *s, json_t *env)
{
    if (s->export_file[0]) {
        if (env_from_file (s->export_file, env) < 0)
            return -1;
    } else if (!strcmp (s->export_mode, "ALL"))
        for (char **e = environ; e && *e; e++) {
            const char *eq = strchr (*e, '=');
            if (!eq || !valid_env_name (*e, (size_t)(eq - *e)))
                continue; /* e.g. exported shell functions */
            if (jobspec_env_is_identity (*e, (size_t)(eq - *e)))
                continue; /* the running job's: Slurm sets the new one's */
            if (strlen (*e) > 4096) {
                fprintf (stderr,
                         PROG ": warning: not exporting %.*s (longer than "
                              "4096 bytes)\n",
                         (int)(eq - *e > 64 ? 64 : eq - *e), *e);
                continue;
            }
            json_t *utf8 = json_string (*e);
            if (!utf8)
                continue; /* not UTF-8: JSON cannot carry it */
            json_decref (utf8);
            env_put (env, *e);
        }
    for (size_t i = 0; i < s->nexport; i++) {
        const char *v = s->export_vars[i];
        size_t n = strcspn (v, "=");
        if (jobspec_env_is_identity (v, n)) {
            fprintf (stderr,
                     PROG ": warning: not exporting %.*s: it names a running "
                          "job, and Slurm sets it for this one (msbatch(1), "
                          "ENVIRONMENT)\n",
                     (int)(n > 64 ? 64 : n), v);
            continue;
        }
        if (strchr (v, '='))
            env_put (env, v);
        else {
            const char *val = getenv (v);
            char *entry;
            if (!val)
                continue; /* as sbatch: an unset variable stays unset */
            entry = ms_xmalloc (strlen (v) + strlen (val) + 2);
            sprintf (entry, "%s=%s", v, val);
            env_put (env, entry);
            free (entry);
        }
    }
    rlimit_env (s, env);
    if (json_array_size (env) > 256) {
        fprintf (stderr,
                 PROG ": the environment has %zu variables, more than the 256 "
                      "metasched takes; use --export=NONE,VAR,... to pass "
                      "those the job needs\n",
                 json_array_size (env));
        return -1;
    }
    return 0;
}

static json_t *
build_request (const ms_jobspec_t *s, const char *script, size_t len,
               const char *cwd, json_t *env)
{
    json_t *o = json_object ();

    json_object_set_new (o, "script", json_stringn (script, len));
    json_object_set_new (o, "name", json_string (s->name));
    if (s->app[0])
        json_object_set_new (o, "app", json_string (s->app));
    json_object_set_new (o, "nodes", json_integer (s->nodes ? s->nodes : 1));
    json_object_set_new (o, "tasks", json_integer (s->ntasks));
    json_object_set_new (o, "tasks_per_node",
                         json_integer (s->ntasks_per_node));
    json_object_set_new (o, "cpus_per_task", json_integer (s->cpus_per_task));
    if (s->time_limit_min && s->time_limit_min != UINT32_MAX)
        json_object_set_new (o, "time_limit_min",
                             json_integer (s->time_limit_min));
    if (s->begin)
        json_object_set_new (o, "begin_time", json_integer (s->begin));
    json_object_set_new (o, "exclusive", json_boolean (s->exclusive));
    json_object_set_new (o, "cwd", json_string (cwd));
    if (s->std_out[0])
        json_object_set_new (o, "stdout", json_string (s->std_out));
    if (s->std_err[0])
        json_object_set_new (o, "stderr", json_string (s->std_err));
    if (s->std_in[0])
        json_object_set_new (o, "stdin", json_string (s->std_in));
    json_object_set (o, "environment", env);
    if (s->partition[0])
        json_object_set_new (o, "partition", json_string (s->partition));
    if (s->time_limit_min == UINT32_MAX)
        json_object_set_new (o, "time_limit_min", json_null ());
    jobspec_json_put (s, o);
    return o;
}

/* The answer's notes (what the site set aside, e.g. a --cpu-freq it
 * ignores), on standard error: standard output stays the job id. */
static void
print_notes (const json_t *reply)
{
    const json_t *notes = json_object_get (reply, "notes"), *e;
    size_t k;

    json_array_foreach (notes, k, e)
        if (json_string_value (e))
            fprintf (stderr, PROG ": note: %s\n", json_string_value (e));
}

/* The what-if's "carbon": whether the grid's carbon and cost are in
 * the score, and the daemon's note where they are not. */
static void
print_carbon_head (const json_t *grid)
{
    char note[512];

    if (!json_is_object (grid))
        return;
    printf ("carbon: weight %.4g, cost: weight %.4g%s\n",
            json_number_value (json_object_get (grid, "w_carbon")),
            json_number_value (json_object_get (grid, "w_cost")),
            json_is_true (json_object_get (grid, "carbon_known"))
                ? ""
                : " (no carbon for every candidate)");
    if (json_is_string (json_object_get (grid, "note"))) {
        /* the daemon's text, control characters shown */
        ms_strlcpy (note, json_string_value (json_object_get (grid, "note")),
                    sizeof (note));
        for (char *w = note; *w; w++)
            if ((unsigned char)*w < 0x20 || *w == 0x7f)
                *w = '?';
        printf ("note: %s\n", note);
    }
}

/* A candidate's CARBON_G, COST and SHIFT columns. */
static void
print_carbon_cols (const json_t *c)
{
    char g[32] = "-", co[32] = "-", sh[32] = "-";
    const json_t *gv = json_object_get (c, "carbon_g");
    const json_t *cv = json_object_get (c, "cost");

    if (json_is_number (gv))
        snprintf (g, sizeof (g), "%.2f", json_number_value (gv));
    if (json_is_number (cv))
        snprintf (co, sizeof (co), "%.4f", json_number_value (cv));
    clifmt_duration (json_object_get (c, "shift_s"), sh, sizeof (sh));
    printf (" %10s %10s %10s", g, co, sh);
}

/* --test-only: the candidates as a table, the chosen one marked '*'. */
static void
print_candidates (const json_t *reply)
{
    const json_t *cands = json_object_get (reply, "candidates"), *c;
    const char *policy = json_string_value (json_object_get (reply, "policy"));
    const char *app = json_string_value (json_object_get (reply, "app"));
    size_t i;

    printf ("policy %s, app %s: %zu candidate%s (* chosen)\n",
            policy ? policy : "-", app && *app ? app : "-",
            json_array_size (cands), json_array_size (cands) == 1 ? "" : "s");
    /* no candidate fits the power budgets: the job would wait */
    if (json_string_value (json_object_get (reply, "power_hold")))
        printf ("held: %s\n",
                json_string_value (json_object_get (reply, "power_hold")));
    /* what the site made of --partition (partition_requests honor, map) */
    {
        const json_t *pr = json_object_get (reply, "partition_request");
        const json_t *pp = json_object_get (pr, "partitions"), *e;
        size_t k;
        if (json_is_object (pr)) {
            printf ("--partition=%s (%s): ",
                    json_string_value (json_object_get (pr, "asked"))
                        ? json_string_value (json_object_get (pr, "asked"))
                        : "-",
                    json_string_value (json_object_get (pr, "mode"))
                        ? json_string_value (json_object_get (pr, "mode"))
                        : "-");
            json_array_foreach (pp, k, e)
                printf ("%s%s", k ? " " : "",
                        json_string_value (e) ? json_string_value (e) : "-");
            printf ("\n");
        }
    }
    /* ... of --clusters (cluster_requests honor, map) */
    {
        const json_t *cr = json_object_get (reply, "cluster_request");
        const json_t *cc = json_object_get (cr, "clusters"), *e;
        size_t k;
        if (json_is_object (cr)) {
            const char *asked
                = json_string_value (json_object_get (cr, "asked"));
            const char *mode = json_string_value (json_object_get (cr, "mode"));
            printf ("--clusters=%s (%s): ", asked ? asked : "-",
                    mode ? mode : "-");
            json_array_foreach (cc, k, e)
                printf ("%s%s", k ? " " : "",
                        json_string_value (e) ? json_string_value (e) : "-");
            printf ("\n");
        }
    }
    /* what the site set aside (cpu_freq_requests = ignore) */
    print_notes (reply);
    /* the energy odds metasched chose with (its calibration, the lean) */
    {
        const json_t *od = json_object_get (reply, "odds");
        double sc = json_number_value (json_object_get (od, "scale"));
        if (json_is_object (od) && sc > 0)
            printf ("energy odds times %.4g (lean %.4g; %" JSON_INTEGER_FORMAT
                    " jobs seen to end, waits %.3g%% of their response)\n",
                    sc, json_number_value (json_object_get (od, "lean")),
                    json_integer_value (json_object_get (od, "seen_to_end")),
                    100 * json_number_value (json_object_get (od, "wait_share")));
        else if (json_is_object (od))
            printf ("energy odds plain (%" JSON_INTEGER_FORMAT
                    " jobs with a choice kept; %" JSON_INTEGER_FORMAT
                    " jobs seen to end)\n",
                    json_integer_value (json_object_get (od, "kept")),
                    json_integer_value (json_object_get (od, "seen_to_end")));
    }
    /* the job-wide terms of metasched's ranking: the score is its key */
    {
        const json_t *rk = json_object_get (reply, "ranking");
        if (json_is_object (rk))
            printf ("score: w E/E_min + (1 - w) R/R_best, energy weight w "
                    "%.4g, R_best %.0f s (shared wait %.0f s), lower is "
                    "better\n",
                    json_number_value (json_object_get (rk, "w_energy")),
                    json_number_value (json_object_get (rk, "best_response_s")),
                    json_number_value (json_object_get (rk, "shared_wait_s")));
    }
    /* the grid's carbon and price (carbon_signal) */
    const json_t *grid = json_object_get (reply, "carbon");
    print_carbon_head (grid);
    printf ("  %-12s %-12s %8s %12s %10s %12s %8s", "CLUSTER", "PARTITION",
            "FREQ_GHZ", "PRED_TIME", "ENERGY_KJ", "WAIT", "SCORE");
    if (json_is_object (grid))
        printf (" %10s %10s %10s", "CARBON_G", "COST", "SHIFT");
    putchar ('\n');
    json_array_foreach (cands, i, c)
    {
        char cl[64], pa[64], fr[32], tm[32], wt[32], kj[32] = "-", sc[32] = "-";
        const json_t *e = json_object_get (c, "energy_j");
        const json_t *score = json_object_get (c, "score");

        clifmt_text (json_object_get (c, "cluster"), cl, sizeof (cl));
        clifmt_text (json_object_get (c, "partition"), pa, sizeof (pa));
        clifmt_freq (json_object_get (c, "freq_khz"), fr, sizeof (fr));
        clifmt_duration (json_object_get (c, "time_s"), tm, sizeof (tm));
        clifmt_duration (json_object_get (c, "wait_s"), wt, sizeof (wt));
        if (json_is_number (e))
            snprintf (kj, sizeof (kj), "%.1f", json_number_value (e) / 1000.0);
        if (json_is_number (score))
            snprintf (sc, sizeof (sc), "%.3f", json_number_value (score));
        printf ("%c %-12s %-12s %8s %12s %10s %12s %8s",
                json_is_true (json_object_get (c, "chosen")) ? '*' : ' ', cl,
                pa, fr, tm, kj, wt, sc);
        if (json_is_object (grid))
            print_carbon_cols (c);
        /* why metasched's ranking set it aside */
        if (json_is_string (json_object_get (c, "excluded"))) {
            char why[128];
            clifmt_text (json_object_get (c, "excluded"), why, sizeof (why));
            printf ("  (%s)", why);
        }
        putchar ('\n');
    }    /* the places the job may not go, each with its reason */
    cands = json_object_get (reply, "excluded");
    if (json_array_size (cands))
        printf ("excluded:\n");
    json_array_foreach (cands, i, c)
    {
        char cl[64], pa[64] = "";
        const char *why = json_string_value (json_object_get (c, "reason"));
        clifmt_text (json_object_get (c, "cluster"), cl, sizeof (cl));
        if (json_is_string (json_object_get (c, "partition")))
            clifmt_text (json_object_get (c, "partition"), pa, sizeof (pa));
        /* the reason as the daemon wrote it, control characters shown */
        printf ("  %s%s%s: ", cl, pa[0] ? "/" : "", pa);
        for (const char *w = why ? why : "-"; *w; w++)
            putchar ((unsigned char)*w < 0x20 || *w == 0x7f ? '?' : *w);
        putchar ('\n');
    }
}

/* sbatch --wait's exit status for a job that ended: the job's exit code
 * where its script exited (an array: its worst task's), 1 where a signal
 * ended it (metasched keeps that as 128 + the signal) or it failed
 * without one, or metaschedd lost it; a job cancelled before it started
 * gives 0, as sbatch's for a pending job cancelled. */
static int
wait_status (const json_t *job)
{
    const char *st = json_string_value (json_object_get (job, "state"));
    const json_t *ec = json_object_get (job, "exit_code");
    json_int_t code = json_is_integer (ec) ? json_integer_value (ec) : -1;

    if (!st || !strcmp (st, "lost"))
        return 1;
    if (!strcmp (st, "cancelled"))
        return json_is_string (json_object_get (job, "started_at")) ? 1 : 0;
    if (!strcmp (st, "completed"))
        return code > 0 && code <= 128 ? (int)code : 0;
    return code > 0 && code <= 128 ? (int)code : 1; /* failed */
}

/* --wait: follow the job until it ends; its status as sbatch's. */
static int
wait_for (ms_client_t *c, json_int_t id)
{
    char target[64];
    unsigned pause = 1;

    snprintf (target, sizeof (target), "/v1/jobs/%" JSON_INTEGER_FORMAT, id);
    for (;;) {
        json_t *job = NULL;
        ms_error_t err;
        const char *st;

        sleep (pause);
        if (pause < 8)
            pause *= 2;
        if (ms_client_call (c, "GET", target, NULL, NULL, &job, &err) < 0) {
            json_decref (job);
            if (err.kind == MS_ERR_HTTP && err.http_status == 404) {
                fprintf (stderr,
                         PROG ": job %" JSON_INTEGER_FORMAT
                              " no longer found and exit code not found\n",
                         id);
                return 0;
            }
            fprintf (stderr,
                     PROG ": job %" JSON_INTEGER_FORMAT
                          ": %s; retrying\n",
                     id, err.text);
            continue;
        }
        st = json_string_value (json_object_get (job, "state"));
        if (st
            && (!strcmp (st, "completed") || !strcmp (st, "failed")
                || !strcmp (st, "cancelled") || !strcmp (st, "lost"))) {
            int rc = wait_status (job);
            json_decref (job);
            return rc;
        }
        json_decref (job);
    }
}

/* Take out msbatch's own options (argv[1..]); the rest, jobspec's, go to
 * jargv from *jargc on. -1 on a bad one, 1 where msbatch is done
 * (--help, --version), else 0. */
static int
own_options (int argc, char **argv, char **jargv, int *jargc,
             const char **server, bool *parsable, bool *parse_only)
{
    int i = 1;

    while (i < argc) {
        const char *w = argv[i];
        int r;

        if (!strcmp (w, "--") || w[0] != '-' || !w[1]) {
            while (i < argc)
                jargv[(*jargc)++] = argv[i++];
            break;
        }
        if ((r = clifmt_server_opt (PROG, argc, argv, &i, server)) != 0) {
            if (r < 0)
                return -1;
            continue;
        }
        if (!strcmp (w, "--parsable")) {
            *parsable = true;
            i++;
        } else if (!strcmp (w, "--parse")) {
            *parse_only = true;
            i++;
        } else if (!strcmp (w, "-h") || !strcmp (w, "--help")) {
            usage (stdout);
            return 1;
        } else if (!strcmp (w, "-V") || !strcmp (w, "--version")) {
            printf ("msbatch (metasched) %s\n", PACKAGE_VERSION);
            return 1;
        } else {
            jargv[(*jargc)++] = argv[i++];
            if (takes_value (w) && i < argc)
                jargv[(*jargc)++] = argv[i++];
        }
    }
    return 0;
}

/* The job's script: the one --wrap stands for, the file script_path or
 * standard input ("-" or none); *shownp is what messages call it. An
 * external job (--external, as sbatch takes it: src/sbatch/opt.c and
 * sbatch.c, 25.05) has no script and takes no argument: metaschedd gets
 * a stand-in of two lines that it never sends to Slurm (the job goes
 * without a script), and the job is named "external". */
static int
read_script (ms_jobspec_t *s, const char *script_path, char **scriptp,
             size_t *lenp, const char **shownp)
{
    ms_error_t err;
    size_t len = 0;

    if (s->wrap[0]) {
        /* sbatch --wrap: a script of one command */
        static const char head[] = "#!/bin/sh\n"
                                   "# This script was written by msbatch "
                                   "--wrap.\n\n";
        if (script_path) {
            fprintf (stderr,
                     PROG ": %s: --wrap stands for the script; give one or "
                          "the other\n",
                     script_path);
            return -1;
        }
        len = strlen (head) + strlen (s->wrap) + 1;
        *scriptp = ms_xmalloc (len + 1);
        snprintf (*scriptp, len + 1, "%s%s\n", head, s->wrap);
        *shownp = "(--wrap)";
        if (!s->name[0])
            ms_strlcpy (s->name, "wrap", sizeof (s->name));
    } else if (s->external) {
        static const char stand_in[]
            = "#!/bin/sh\n"
              "# msbatch --external: no script; the job's processes start "
              "outside Slurm\n";
        *scriptp = ms_xstrdup (stand_in);
        len = strlen (stand_in);
        *shownp = "(--external)";
        if (!s->name[0])
            ms_strlcpy (s->name, "external", sizeof (s->name));
    } else if (script_path && strcmp (script_path, "-")) {
        if (ms_read_file (script_path, JOBSPEC_SCRIPT_MAX, scriptp, &len, &err)
            < 0) {
            fprintf (stderr, PROG ": %s\n", err.text);
            return -1;
        }
        *shownp = script_path;
    } else {
        if (isatty (STDIN_FILENO))
            fprintf (stderr, PROG ": reading the script from standard input\n");
        if (read_stream (stdin, scriptp, &len) < 0) {
            fprintf (stderr, PROG ": standard input: %s\n", strerror (errno));
            return -1;
        }
        *shownp = "(standard input)";
    }
    *lenp = len;
    return 0;
}

/* A job without a name is named after its script, as sbatch names it. */
static void
default_name (ms_jobspec_t *s, const char *script_path)
{
    if (!s->name[0]) {
        const char *base = script_path && strcmp (script_path, "-")
                               ? strrchr (script_path, '/')
                               : NULL;
        base = base ? base + 1 : script_path;
        ms_strlcpy (s->name,
                    base && *base && strcmp (base, "-") ? base : "msbatch",
                    sizeof (s->name));
    }
}

/* msbatch --parse: the job as it would be sent, without the script's
 * text and the environment's values; the parsed forms beside. */
static int
print_parsed (const ms_jobspec_t *s, json_t *req, size_t len,
              const json_t *env)
{
    char *text;
    json_object_set_new (req, "script_bytes", json_integer ((json_int_t)len));
    json_object_del (req, "script");
    json_object_set_new (req, "environment_count",
                         json_integer ((json_int_t)json_array_size (env)));
    json_object_set_new (req, "export_mode", json_string (s->export_mode));
    json_object_del (req, "environment");
    if (s->test_only)
        json_object_set_new (req, "test_only", json_true ());
    jobspec_json_put_parsed (s, req);
    text = json_dumps (req, JSON_INDENT (2) | JSON_SORT_KEYS);
    if (!text)
        return -1;
    printf ("%s\n", text);
    free (text);
    return 0;
}

int
main (int argc, char **argv)
{
    const char *server = NULL, *script_path = NULL, *shown;
    bool parsable = false, parse_only = false;
    char **jargv = ms_xcalloc ((size_t)argc + 1, sizeof (char *));
    int jargc = 1, argi, rc = 1, r;
    ms_jobspec_t s;
    ms_error_t err;
    char *script = NULL, cwd[4096];
    size_t len = 0;
    json_t *env = NULL, *req = NULL, *reply = NULL;
    long bound;
    ms_client_t *c = NULL;

    jobspec_init (&s);
    jargv[0] = argv[0];
    /* Take out msbatch's own options; the rest is jobspec's. */
    if ((r = own_options (argc, argv, jargv, &jargc, &server, &parsable,
                          &parse_only))
        != 0) {
        rc = r > 0 ? 0 : 1;
        goto out;
    }
    jargv[jargc] = NULL;

    /* The command line first, to find the script; then the script's
     * #SBATCH lines; then the command line again, so that it wins. */
    if (jobspec_parse_args (&s, jargc, jargv, &argi, &err) < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        goto out;
    }
    if (argi < jargc)
        script_path = jargv[argi];
    if (s.external && !s.wrap[0] && script_path) {
        fprintf (stderr,
                 PROG ": %s: Script arguments not permitted with --external "
                      "option (as in sbatch: an external job has no "
                      "script)\n",
                 script_path);
        goto out;
    }
    if (argi + 1 < jargc) {
        fprintf (stderr,
                 PROG ": %s: arguments after the script are not supported "
                      "(metasched does not pass them on); set them in the "
                      "script or through --export\n",
                 jargv[argi + 1]);
        goto out;
    }
    if (read_script (&s, script_path, &script, &len, &shown) < 0)
        goto out;
    {
        char wrapname[sizeof (s.name)];
        ms_strlcpy (wrapname, s.wrap[0] || s.external ? s.name : "",
                    sizeof (wrapname));
        jobspec_free (&s);
        jobspec_init (&s);
        ms_strlcpy (s.name, wrapname, sizeof (s.name));
    }
    if (jobspec_parse_script (&s, script, len, shown, &err) < 0
        || jobspec_parse_args (&s, jargc, jargv, &argi, &err) < 0
        || jobspec_check (&s, script, len, true, &err) < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        goto out;
    }
    default_name (&s, script_path);
    {
        /* the submission directory: --chdir's, a relative one taken from
         * here as sbatch does */
        bool here = getcwd (cwd, sizeof (cwd)) != NULL;
        int cwd_errno = errno;
        if (jobspec_resolve_chdir (&s, here ? cwd : NULL, &err) < 0) {
            fprintf (stderr, PROG ": %s (the current directory: %s)\n",
                     err.text, strerror (cwd_errno));
            goto out;
        }
        if (s.chdir[0])
            ms_strlcpy (cwd, s.chdir, sizeof (cwd));
        else if (!here) {
            fprintf (stderr,
                     PROG ": the current directory: %s (use --chdir)\n",
                     strerror (cwd_errno));
            goto out;
        }
    }
    env = json_array ();
    if (build_environment (&s, env) < 0)
        goto out;
    req = build_request (&s, script, len, cwd, env);
    if (parse_only) {
        rc = print_parsed (&s, req, len, env) < 0 ? 1 : 0;
        goto out;
    }
    parsable = parsable || s.parsable;

    if ((bound = retry_bound ()) < 0)
        goto out;
    if (!s.test_only) {
        char key[33];
        submit_key (key);
        json_object_set_new (req, "submit_key", json_string (key));
    }
    if (ms_client_open (server, &c, &err) < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        goto out;
    }
    if (post_retrying (c, s.test_only ? "/v1/whatif" : "/v1/jobs", req,
                       s.test_only ? 0 : bound, &reply, &err)
        < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        goto out;
    }
    if (s.test_only) {
        if (!json_is_array (json_object_get (reply, "candidates"))) {
            fprintf (stderr,
                     PROG ": metaschedd at %s answered without a "
                          "'candidates' list\n",
                     ms_client_address (c));
            goto out;
        }
        print_candidates (reply);
    } else {
        json_t *id = json_object_get (reply, "id");
        if (!json_is_integer (id)) {
            fprintf (stderr,
                     PROG ": metaschedd at %s answered without a job id\n",
                     ms_client_address (c));
            goto out;
        }
        print_notes (reply);
        if (parsable)
            printf ("%" JSON_INTEGER_FORMAT "\n", json_integer_value (id));
        else
            printf ("Submitted meta job %" JSON_INTEGER_FORMAT "\n",
                    json_integer_value (id));
        if (s.wait) {
            fflush (stdout);
            rc = wait_for (c, json_integer_value (id));
            goto out;
        }
    }
    rc = 0;
out:
    json_decref (reply);
    json_decref (req);
    json_decref (env);
    ms_client_close (c);
    free (script);
    jobspec_free (&s);
    free (jargv);
    return rc;
}
