/* submit.c - one submit to a cluster: the batch script (the user's
 * script under metasched-collect), the request with the keyed tag
 * metasched:<id>:<dispatch>.<copy>:<mac> (tag.h), and the submit workers that
 * send a batch's submits to one cluster each, in batch order.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/common/jobspec_json.h"
#include "metasched/daemon/daemon_int.h"

/* ---- the batch script: the user's script under metasched-collect ---- */

static void
sh_quote (char **buf, size_t *len, size_t *cap, const char *s)
{
    daemon_reserve (buf, *len, cap, strlen (s) * 4 + 2);
    (*buf)[(*len)++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy (*buf + *len, "'\\''", 4);
            *len += 4;
        } else
            (*buf)[(*len)++] = *s;
    }
    (*buf)[(*len)++] = '\'';
    (*buf)[*len] = '\0';
}

static void
append (char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen (s);
    daemon_reserve (buf, *len, cap, n);
    memcpy (*buf + *len, s, n + 1);
    *len += n;
}

/* The user's script travels in a here-document with a delimiter that is
 * no line of it; Slurm runs this as the user, so nothing here runs with
 * more rights than the user's own script. USR1 and USR2 sent to the whole
 * job (mscancel --signal, --signal=B:...) are the script's: this shell
 * catches them with a no-op (caught, not ignored, so the script may trap
 * them) and metasched-collect forwards them. */
static char *
wrap_script (const ms_daemon_t *d, int64_t id, const char *app,
             const char *script)
{
    char delim[64], line[256];
    size_t len = 0, cap = strlen (script) + 1024;
    char *buf = ms_xmalloc (cap);
    unsigned r = (unsigned)(id * 2654435761u) ^ (unsigned)time (NULL);

    buf[0] = '\0';
    for (;;) {
        snprintf (delim, sizeof (delim), "METASCHED_SCRIPT_%08x", r);
        if (!strstr (script, delim))
            break;
        r = r * 1103515245u + 12345u;
    }
    snprintf (line, sizeof (line),
              "#!/bin/sh\n"
              "# metasched job %" PRId64 ": the submitted script runs under "
              "metasched-collect\n"
              "trap : USR1 USR2\n"
              "ms_script=$(mktemp \"${TMPDIR:-/tmp}/metasched-%" PRId64
              ".XXXXXX\") || exit 1\n"
              "cat > \"$ms_script\" <<'%s'\n",
              id, id, delim);
    append (&buf, &len, &cap, line);
    append (&buf, &len, &cap, script);
    if (len == 0 || buf[len - 1] != '\n')
        append (&buf, &len, &cap, "\n");
    append (&buf, &len, &cap, delim);
    append (&buf, &len, &cap, "\nchmod 700 \"$ms_script\"\n");
    sh_quote (&buf, &len, &cap, d->dc->collect_wrapper);
    if (d->dc->collect_config[0]) {
        append (&buf, &len, &cap, " --config ");
        sh_quote (&buf, &len, &cap, d->dc->collect_config);
    }
    if (app && *app) {
        append (&buf, &len, &cap, " --app ");
        sh_quote (&buf, &len, &cap, app);
    }
    append (&buf, &len, &cap,
            " -- \"$ms_script\" \"$@\"\n"
            "ms_rc=$?\nrm -f \"$ms_script\"\n"
            "exit $ms_rc\n");
    return buf;
}

/* ---- dispatch ---- */

static int
jint (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_integer (v) ? (int)json_integer_value (v) : 0;
}

/* Submit choice `copy` of job j; *bidp the cluster's id. */
static int
submit_one (ms_daemon_t *d, const queue_job_t *j, json_t *opts,
            const ms_cand_t *c, const ms_choice_t *ch, int copy,
            uint32_t limit_min, bool gate, uint64_t *bidp, ms_error_t *errp)
{
    const ms_partconf_t *pc = &d->site->parts[c->part];
    cluster_t *cl = &d->cl[pc->cluster];
    json_t *env = json_object_get (opts, "environment");
    size_t nenv = json_is_array (env) ? json_array_size (env) : 0;
    const char **envv = ms_xcalloc (nenv + 8, sizeof (char *));
    char comment[TAG_MAX], idenv[64], srv[600], munge[600], name[160];
    char gwait[48];
    char *script;
    ms_job_request_t req, *het = NULL;
    ms_jobspec_t sb;
    size_t ne = 0;
    int rc;

    for (size_t i = 0; i < nenv; i++) {
        json_t *v = json_array_get (env, i);
        /* neither metasched's variables nor a running job's identity
         * (one submitted from inside a job, or through the API) */
        if (json_is_string (v)
            && strncmp (json_string_value (v), "METASCHED_", 10)
            && !jobspec_env_is_identity (json_string_value (v),
                                         strcspn (json_string_value (v), "=")))
            envv[ne++] = json_string_value (v);
    }
    if (ne == 0)
        envv[ne++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    snprintf (idenv, sizeof (idenv), "METASCHED_JOB_ID=%" PRId64, j->id);
    envv[ne++] = idenv;
    if (gate) {
        /* the start gate (sibling mode): the wrapper claims the job
         * through the API before it runs anything */
        envv[ne++] = "METASCHED_GATE=1";
        snprintf (srv, sizeof (srv), "METASCHED_SERVER=%s",
                  d->dc->api_server_for_jobs);
        envv[ne++] = srv;
        snprintf (gwait, sizeof (gwait), "METASCHED_GATE_WAIT_S=%ld",
                  (long)d->dc->gate_wait_s);
        envv[ne++] = gwait;
        if (d->dc->munge_socket[0]) {
            snprintf (munge, sizeof (munge), "METASCHED_MUNGE_SOCKET=%s",
                      d->dc->munge_socket);
            envv[ne++] = munge;
        }
    }
    envv[ne] = NULL;
    /* the tag proves the copy metasched's (reconcile.c): this dispatch
     * is the job's attempts + 1 (queue_dispatching_many counted it) */
    tag_make (&d->tag_key, j->id, cl->conf->name, j->attempts + 1, copy,
              comment, sizeof (comment));
    snprintf (name, sizeof (name), "%s", j->name[0] ? j->name : "metasched");
    script = wrap_script (d, j->id, j->app, j->script);

    memset (&req, 0, sizeof (req));
    req.user = j->owner;
    req.name = name;
    req.partition = pc->name;
    req.cpu_freq_khz = c->f_khz;
    req.time_limit_min = limit_min;
    req.nice = ch->nice;
    req.comment = comment;
    req.environment = envv;
    req.cwd = daemon_jstr (opts, "cwd") ? daemon_jstr (opts, "cwd") : "/tmp";
    req.std_out = daemon_jstr (opts, "stdout");
    req.std_err = daemon_jstr (opts, "stderr");
    req.std_in = daemon_jstr (opts, "stdin");
    /* a fixed count: a moldable job's chosen one (candidates_mold) */
    req.nodes = c->nodes > 0 ? c->nodes : j->nodes;
    req.tasks = jint (opts, "tasks");
    if (req.tasks == 0 && jint (opts, "tasks_per_node") > 0)
        req.tasks = jint (opts, "tasks_per_node") * req.nodes;
    req.cpus_per_task = jint (opts, "cpus_per_task");
    req.exclusive = json_is_true (json_object_get (opts, "exclusive"));
    if (json_is_integer (json_object_get (opts, "begin_time")))
        req.begin_time
            = json_integer_value (json_object_get (opts, "begin_time"));
    /* a sibling held back on a busy partition (policy.c, hold_sibling):
     * not before its hold is over, nor before the user's own --begin */
    if (ch->hold_s > 0) {
        int64_t held = (int64_t)time (NULL) + (int64_t)ceil (ch->hold_s);
        if (held > req.begin_time)
            req.begin_time = held;
    }
    req.script = script;
    /* the user's other sbatch options, carried as the cluster's version
     * takes them (a value the API checked once cannot fail here) */
    jobspec_init (&sb);
    if (jobspec_json_read (&sb, opts, errp) < 0) {
        free (script);
        free (envv);
        return -1;
    }
    /* nodes = min = max: the range was metasched's to choose in */
    sb.nodes = req.nodes;
    sb.nodes_max = 0;
    req.sbatch = &sb;
    if (sb.nhet) {
        /* a heterogeneous job: its first component's own count, the others
         * beside it on this cluster */
        req.nodes = sb.nodes = hetjob_first_nodes (opts, j->nodes);
        if (jint (opts, "tasks") == 0 && jint (opts, "tasks_per_node") > 0)
            req.tasks = jint (opts, "tasks_per_node") * req.nodes;
        /* each component its own limit, scaled as the job's was (the
         * job's column holds the longest) */
        double scale
            = j->time_limit_min ? (double)limit_min / j->time_limit_min : 1.0;
        if (jint (opts, "time_limit_min") > 0)
            req.time_limit_min
                = (uint32_t)ceil (jint (opts, "time_limit_min") * scale);
        if (!(het = hetjob_requests (d, &sb, &req, c->part, j->owner, scale,
                                     errp))) {
            jobspec_free (&sb);
            free (script);
            free (envv);
            return -1;
        }
        req.het = het;
        req.nhet = sb.nhet;
    }
    rc = backend_submit (cl->b, &req, bidp, errp);
    free (het);
    cl->last_action = mono ();
    pthread_mutex_lock (&d->rf.mu);
    cl->rd.submitted_at = cl->last_action;
    pthread_mutex_unlock (&d->rf.mu);
    jobspec_free (&sb);
    free (script);
    free (envv);
    return rc;
}

bool
unknown_outcome (const ms_error_t *e)
{
    /* the request may have reached slurmctld: only the tag can tell */
    return e->kind == MS_ERR_TIMEOUT || e->kind == MS_ERR_PROTOCOL;
}

void *
submit_worker (void *arg)
{
    sworker_t *w = arg;
    ms_daemon_t *d = w->d;
    cluster_t *cl = &d->cl[w->cl];

    pthread_mutex_lock (&d->sub.mu);
    while (cl->turn.serving != w->ticket)
        pthread_cond_wait (&d->sub.cond, &d->sub.mu);
    pthread_mutex_unlock (&d->sub.mu);
    for (size_t i = 0; i < w->n; i++) {
        djob_t *b = &w->b[i];
        if (!b->committed)
            continue;
        for (size_t c = 0; c < b->nch; c++) {
            const ms_partconf_t *pc = &d->site->parts[b->chosen[c].part];
            ms_error_t *e = &b->err[c];
            if (pc->cluster != w->cl)
                continue;
            if (cl->turn.stop) {
                /* the cluster failed in this dispatch: the rest wait for
                 * the next decision rather than each for its own
                 * timeout */
                b->rc[c] = -1;
                ms_err (e, MS_ERR_CONNECT, "not submitted: %s", cl->turn.why);
                continue;
            }
            double t0 = mono ();
            b->rc[c]
                = submit_one (d, &b->j, b->opts, &b->chosen[c], &b->choices[c],
                              (int)c, b->limits[c], w->siblings, &b->bid[c], e);
            w->busy_s += mono () - t0;
            if (b->rc[c] == 0) {
                w->accepted++;
                continue;
            }
            if (e->kind == MS_ERR_CONNECT && !w->failed) {
                w->failed = true;
                w->fail = *e;
            }
            if (e->kind == MS_ERR_CONNECT || unknown_outcome (e)) {
                cl->turn.stop = true;
                snprintf (cl->turn.why, sizeof (cl->turn.why),
                          "%s failed earlier: %s", cl->conf->name, e->text);
            }
        }
    }
    pthread_mutex_lock (&d->sub.mu);
    cl->turn.serving++;
    pthread_cond_broadcast (&d->sub.cond);
    pthread_mutex_unlock (&d->sub.mu);
    return NULL;
}
