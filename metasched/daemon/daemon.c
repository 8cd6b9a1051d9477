/* daemon.c - metaschedd's scheduling cycle (see daemon.h, doc/daemon.md).
 *
 * One thread runs the cycle; the API server (api.c) runs in its own thread
 * and reaches the daemon only through the hooks at the end of this file,
 * which take d->mu around what they read. The cycle holds d->mu only while
 * it changes its in-memory picture (cluster state, the view, the
 * prediction table), never during a call to a cluster or the database.
 *
 * Exactly once (DESIGN.md 9): a job row goes queued -> deciding ->
 * dispatching (choice and decision committed) -> submit with the comment
 * tag metasched:<id> -> submitted (cluster job id and job_submissions
 * committed). A crash between the commit of dispatching and that of
 * submitted leaves a dispatching row; the leader finds the cluster job by
 * its tag (adopt it) or, with every cluster answering and none carrying the
 * tag, queues the job again. Tagged cluster jobs that no submission row
 * knows are duplicates and are cancelled.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "db/db.h"
#include "db/queue.h"
#include "metasched/core/candidates.h"
#include "metasched/daemon/daemon.h"
#include "metasched/core/policy.h"
#include "metasched/core/score.h"
#include "metasched/api/settings.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "predictor/predictor.h"

#define BACKOFF_MAX_S 60.0
#define DISPATCH_CHUNK 64         /* queued rows read at a time, at most */
#define DISPATCH_FIRST 8          /* the first batch of a cycle: the pipeline
                                     fills sooner; each next one doubles */
#define DISPATCH_INFLIGHT 3       /* batches under way at once, at most */
#define CYCLE_DISPATCH_MAX_S 20.0 /* then refresh the clusters */
#define LOST_AFTER_S 120.0        /* a recorded submission no cluster lists */
#define BOOST_PRIORITY 10000      /* PriorityInc: added to the Slurm priority */
#define UNKNOWN_APP "unknown"
#define LEADER_CHECK_S 1.0 /* leadership asked again while dispatching */
/* The refresher yields to dispatch: it does not read any cluster while a
 * cycle dispatches, nor one that took a submit in the last REFRESH_YIELD_S
 * (slurmctld packs its whole job list under the job lock, which stalls
 * submits meanwhile, and slurmrestd turns it into JSON on the same CPUs),
 * unless its last reading is older than REFRESH_MAX_AGE_S. */
#define REFRESH_YIELD_S 0.5
#define REFRESH_MAX_AGE_S 30.0
#define BOOST_WAIT_S 60.0 /* a job to boost that no listing shows: dropped */
#define MAX_REFUSED 5     /* dispatches a cluster refused: then cancelled */

/* ---- logging ---- */

static dconf_log_t log_where = DCONF_LOG_STDERR;

void
daemon_log_open (dconf_log_t where)
{
    log_where = where;
    if (where == DCONF_LOG_SYSLOG)
        openlog ("metaschedd", LOG_PID, LOG_DAEMON);
}

void
daemon_log (int prio, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    if (log_where == DCONF_LOG_SYSLOG)
        vsyslog (prio, fmt, ap);
    else {
        static const char *const names[]
            = { "emerg",   "alert",  "crit", "error",
                "warning", "notice", "info", "debug" };
        char ts[32];
        struct tm tm;
        time_t t = time (NULL);
        localtime_r (&t, &tm);
        strftime (ts, sizeof (ts), "%Y-%m-%d %H:%M:%S", &tm);
        fprintf (stderr, "%s metaschedd[%d]: %s: ", ts, (int)getpid (),
                 names[prio & 7]);
        vfprintf (stderr, fmt, ap);
        fputc ('\n', stderr);
    }
    va_end (ap);
}

/* ---- state ---- */

typedef struct {
    uint64_t id; /* cluster job id */
    double at;   /* mono () when noted */
} boost_t;

typedef struct {
    ms_backend_t *b;
    const ms_clusterconf_t *conf;
    bool up;    /* the last refresh worked */
    bool fresh; /* refreshed in this cycle */
    double retry_at;
    double backoff;
    uint64_t attempts, failures, submits;
    double submit_s; /* time in backend_submit, under mu */
    ms_partition_state_t *parts;
    size_t nparts;
    ms_job_info_t *jobs; /* sorted by id */
    size_t njobs;
    boost_t *boost; /* to boost at the next listing, under rmu */
    size_t nboost, boostcap;
    bool have;          /* parts and jobs were read once */
    double last_action; /* mono () after the cycle's last submit or cancel */
    /* the refresher's own handle and its latest reading, under rmu */
    ms_backend_t *rb;
    double submitted_at; /* mono () of the latest submit, under rmu */
    uint64_t unchanged;  /* readings answered "not modified", under rmu */
    /* the dispatch's submit workers take turns per cluster, in batch
     * order (tickets and serving under wmu); what stopped the cluster in
     * this dispatch is read and written by the worker whose turn it is */
    uint64_t tickets, serving;
    bool dstop;
    char dstopwhy[sizeof (((ms_error_t *)0)->text)];
    bool st_new, st_failed;
    double st_started; /* mono () when the reading began */
    ms_partition_state_t *st_parts;
    size_t st_nparts;
    ms_job_info_t *st_jobs;
    size_t st_njobs;
    ms_error_t st_err;
    char last_error[256];
    char api_version[16]; /* slurmrestd's OpenAPI version spoken, under mu */
    char st_api[16];      /* the version of the refresher's reading, rmu */
} cluster_t;

struct ms_daemon {
    const ms_dconf_t *dc;
    ms_siteconf_t *site; /* the daemon's copy: settings set power caps */
    db_t *db;            /* the cycle's connection (LISTEN too) */
    db_t *lockdb;        /* holds the advisory lock */
    unsigned lock_reconnects;
    unsigned db_reconnects_seen; /* of db, logged */
    unsigned listen_reconnects;
    bool listening;
    bool leader;
    bool reconciled;
    cluster_t *cl;
    size_t ncl;
    int wake[2];

    /* the refresher thread reads the clusters while the cycle dispatches */
    pthread_t refresher;
    bool refresher_on, refresher_stop;
    pthread_mutex_t rmu;
    pthread_cond_t rcond;
    bool dispatch_busy; /* a cycle is dispatching, under rmu */
    /* the submit workers' turns (cluster_t tickets, serving) */
    pthread_mutex_t wmu;
    pthread_cond_t wcond;
    /* copies of jobs cancelled while they were being submitted: cancelled
     * once the dispatch's workers are done with the clusters' handles */
    struct {
        size_t cl;
        uint64_t bid;
        char cluster[MS_NAME_MAX];
    } *late;
    size_t nlate;

    pthread_mutex_t mu; /* guards what the hooks read, below */
    predictor_t *pred;
    ms_predtab_t *tab;
    ms_view_t *view;
    ms_policy_t pol;
    ms_settings_t set;
    ms_cands_t cs;
    double last_refit;
    double leader_checked; /* when leadership() last said yes */
    double last_pred_load;
    double grace_s;
    /* metrics */
    uint64_t cycles, dispatched, decisions, requeued, adopted, dup_cancelled,
        reroutes, boosts, db_errors;
    double last_cycle_s, decide_s;
    uint64_t batches;
    double commit_s, submit_s, record_s; /* of the dispatch batches */
    double submit_mark; /* when the latest batch's submits were done */
};

static double
mono (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
wall (void)
{
    return (double)time (NULL);
}

/* ---- leadership ---- */

/* The lock connection: the daemon's conninfo with keepalives, so that the
 * session of a killed leader on another host ends within seconds. */
static char *
lock_conninfo (const char *conninfo)
{
    static const char ka[] = "keepalives=1 keepalives_idle=2 "
                             "keepalives_interval=1 keepalives_count=2 "
                             "tcp_user_timeout=4000";
    size_t n = strlen (conninfo) + sizeof (ka) + 8;
    char *s = ms_xmalloc (n);

    if (!strncmp (conninfo, "postgres", 8)) {
        /* a URI: parameters after '?' joined by '&' */
        snprintf (s, n, "%s%s%s", conninfo, strchr (conninfo, '?') ? "&" : "?",
                  "keepalives=1&keepalives_idle=2&keepalives_interval=1&"
                  "keepalives_count=2&tcp_user_timeout=4000");
    } else
        snprintf (s, n, "%s %s", conninfo, ka);
    return s;
}

static int
open_lockdb (ms_daemon_t *d, ms_error_t *errp)
{
    char *ci = lock_conninfo (d->dc->database);
    db_opts_t o = { .conninfo = ci,
                    .password_file
                    = d->dc->password_file[0] ? d->dc->password_file : NULL,
                    .application_name = "metaschedd-leader",
                    .connect_timeout_s = 3,
                    .retry_max_ms = 0 };
    int rc = db_open (&o, &d->lockdb, errp);
    free (ci);
    if (rc == 0)
        d->lock_reconnects = db_reconnects (d->lockdb);
    return rc;
}

/* Whether this instance leads now: hold the lock, or try to take it. */
static bool
leadership (ms_daemon_t *d)
{
    char k1[16], k2[16];
    const char *p[2] = { k1, k2 };
    PGresult *r;
    ms_error_t e;
    bool held;

    snprintf (k1, sizeof (k1), "%d", DAEMON_LOCK_CLASS);
    snprintf (k2, sizeof (k2), "%d", DAEMON_LOCK_OBJ);
    if (!d->lockdb && open_lockdb (d, &e) < 0)
        return false;
    if (d->leader) {
        r = db_exec (d->lockdb, "lock_held",
                     "SELECT EXISTS (SELECT 1 FROM pg_locks"
                     " WHERE locktype = 'advisory' AND granted"
                     " AND pid = pg_backend_pid () AND classid = $1::oid"
                     " AND objid = $2::oid AND objsubid = 2)",
                     2, p, &e);
        held = r && !strcmp (PQgetvalue (r, 0, 0), "t")
               && db_reconnects (d->lockdb) == d->lock_reconnects;
        PQclear (r);
        if (held)
            return true;
        daemon_log (LOG_WARNING, "leadership lost%s%s", r ? "" : ": ",
                    r ? "" : e.text);
        d->leader = false;
        d->reconciled = false;
    }
    d->lock_reconnects = db_reconnects (d->lockdb);
    r = db_exec (d->lockdb, "lock_try",
                 "SELECT pg_try_advisory_lock ($1::integer, $2::integer)", 2, p,
                 &e);
    if (!r)
        return false;
    held = !strcmp (PQgetvalue (r, 0, 0), "t");
    PQclear (r);
    d->lock_reconnects = db_reconnects (d->lockdb);
    if (held) {
        daemon_log (LOG_NOTICE, "leading: this instance now schedules");
        d->leader = true;
        d->reconciled = false;
    }
    return held;
}

bool
daemon_is_leader (const ms_daemon_t *d)
{
    return d->leader;
}

/* ---- clusters ---- */

static int
cmp_jobinfo (const void *a, const void *b)
{
    const ms_job_info_t *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static const ms_job_info_t *
cluster_job (const cluster_t *c, uint64_t id)
{
    ms_job_info_t key;
    if (c->njobs == 0)
        return NULL; /* c->jobs may be NULL: no bsearch on it */
    key.id = id;
    return bsearch (&key, c->jobs, c->njobs, sizeof (*c->jobs), cmp_jobinfo);
}

/* The next wait after a failed reading: 1, 2, 4, ... BACKOFF_MAX_S s. */
static double
backoff_next (double cur)
{
    double b = cur > 0 ? cur * 2 : 1;
    return b > BACKOFF_MAX_S ? BACKOFF_MAX_S : b;
}

static void
cluster_failed (ms_daemon_t *d, cluster_t *c, const ms_error_t *e)
{
    double now = mono ();
    c->failures++;
    c->backoff = backoff_next (c->backoff);
    c->retry_at = now + c->backoff;
    ms_strlcpy (c->last_error, e->text, sizeof (c->last_error));
    daemon_log (c->up ? LOG_ERR : LOG_WARNING,
                "cluster %s unreachable (attempt %" PRIu64
                "): %s; next try in %.0f s",
                c->conf->name, c->attempts, e->text, c->backoff);
    pthread_mutex_lock (&d->mu);
    c->up = false;
    c->fresh = false;
    pthread_mutex_unlock (&d->mu);
}

static void apply_boosts (ms_daemon_t *d, cluster_t *c, ms_backend_t *b,
                          const ms_job_info_t *jobs, size_t nj);

/* Install a reading of cluster c (its partitions and jobs, which the
 * cluster now owns) and mark it reachable; fresh: the reading began after
 * the daemon's last submit or cancel there. */
static void
cluster_take (ms_daemon_t *d, cluster_t *c, ms_partition_state_t *parts,
              size_t np, ms_job_info_t *jobs, size_t nj, bool fresh,
              const char *api)
{
    if (!c->up)
        daemon_log (LOG_NOTICE, "cluster %s reachable again", c->conf->name);
    if (api[0] && strcmp (api, c->api_version))
        daemon_log (LOG_NOTICE, "cluster %s: slurmrestd now speaks OpenAPI %s "
                    "(was %s)", c->conf->name, api,
                    c->api_version[0] ? c->api_version : "none");
    pthread_mutex_lock (&d->mu);
    if (api[0])
        ms_strlcpy (c->api_version, api, sizeof (c->api_version));
    free (c->parts);
    free (c->jobs);
    c->parts = parts;
    c->nparts = np;
    c->jobs = jobs;
    c->njobs = nj;
    c->up = c->have = true;
    c->fresh = fresh;
    c->backoff = 0;
    c->last_error[0] = '\0';
    pthread_mutex_unlock (&d->mu);
}

/* Partitions and jobs of every cluster not in backoff. */
static void
refresh_clusters (ms_daemon_t *d)
{
    double now = mono ();

    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        ms_partition_state_t *parts = NULL;
        ms_job_info_t *jobs = NULL;
        size_t np = 0, nj = 0;
        ms_error_t e;

        c->fresh = false;
        if (!c->up && now < c->retry_at)
            continue;
        c->attempts++;
        if (backend_partitions (c->b, &parts, &np, &e) < 0
            || backend_jobs (c->b, &jobs, &nj, &e) < 0) {
            free (parts);
            free (jobs);
            cluster_failed (d, c, &e);
            continue;
        }
        qsort (jobs, nj, sizeof (*jobs), cmp_jobinfo);
        apply_boosts (d, c, c->b, jobs, nj);
        cluster_take (d, c, parts, np, jobs, nj, true, slurmrest_version (c->b));
    }
}

/* The refresher thread: reads every cluster's partitions and jobs with its
 * own handles, one reading after another (a pause of cycle_s between
 * rounds, backoff for a cluster that fails), and leaves the latest for the
 * cycle (take_readings). Reading /jobs from slurmrestd takes about a second
 * per cluster on the test bed: the cycle does not wait for it before it
 * dispatches, and the refresher leaves alone a cluster that is taking
 * submits (REFRESH_YIELD_S) for up to REFRESH_MAX_AGE_S. */
static void *
refresher_main (void *arg)
{
    ms_daemon_t *d = arg;
    double *retry = ms_xcalloc (d->ncl + 1, sizeof (double));
    double *back = ms_xcalloc (d->ncl + 1, sizeof (double));
    double *read_at = ms_xcalloc (d->ncl + 1, sizeof (double));

    pthread_mutex_lock (&d->rmu);
    while (!d->refresher_stop) {
        struct timespec ts;
        double pause = d->dc->cycle_s > 0 ? d->dc->cycle_s : 1;

        for (size_t i = 0; i < d->ncl && !d->refresher_stop; i++) {
            cluster_t *c = &d->cl[i];
            ms_partition_state_t *parts = NULL;
            ms_job_info_t *jobs = NULL;
            size_t np = 0, nj = 0;
            ms_error_t e;
            double started = mono ();
            bool failed;

            if (started < retry[i])
                continue;
            if ((d->dispatch_busy || started - c->submitted_at < REFRESH_YIELD_S)
                && started - read_at[i] < REFRESH_MAX_AGE_S)
                continue; /* dispatch is under way there: later */
            read_at[i] = started;
            pthread_mutex_unlock (&d->rmu);
            failed = backend_partitions (c->rb, &parts, &np, &e) < 0
                     || backend_jobs (c->rb, &jobs, &nj, &e) < 0;
            if (failed) {
                free (parts);
                free (jobs);
                parts = NULL;
                jobs = NULL;
                np = nj = 0;
                back[i] = backoff_next (back[i]);
                retry[i] = mono () + back[i];
            } else {
                qsort (jobs, nj, sizeof (*jobs), cmp_jobinfo);
                back[i] = retry[i] = 0;
                apply_boosts (d, c, c->rb, jobs, nj);
            }
            pthread_mutex_lock (&d->rmu);
            free (c->st_parts);
            free (c->st_jobs);
            c->st_parts = parts;
            c->st_nparts = np;
            c->st_jobs = jobs;
            c->st_njobs = nj;
            c->st_failed = failed;
            if (failed)
                c->st_err = e;
            c->st_started = started;
            c->st_new = true;
            c->unchanged = slurmrest_jobs_unchanged (c->rb);
            ms_strlcpy (c->st_api, slurmrest_version (c->rb),
                        sizeof (c->st_api));
        }
        if (d->refresher_stop)
            break;
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_sec += (time_t)pause;
        ts.tv_nsec += (long)((pause - (double)(time_t)pause) * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait (&d->rcond, &d->rmu, &ts);
    }
    pthread_mutex_unlock (&d->rmu);
    free (retry);
    free (back);
    free (read_at);
    return NULL;
}

/* Take the refresher's latest readings. A cluster is fresh in this cycle
 * only if its reading began after the cycle's last submit or cancel there,
 * so that it shows every job the daemon submitted or cancelled
 * (reconciliation and following rely on it). */
static void
take_readings (ms_daemon_t *d)
{
    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        ms_partition_state_t *parts;
        ms_job_info_t *jobs;
        size_t np, nj;
        bool failed;
        double started;
        ms_error_t e;

        c->fresh = false;
        pthread_mutex_lock (&d->rmu);
        if (!c->st_new) {
            pthread_mutex_unlock (&d->rmu);
            continue;
        }
        parts = c->st_parts;
        np = c->st_nparts;
        jobs = c->st_jobs;
        nj = c->st_njobs;
        failed = c->st_failed;
        e = c->st_err;
        started = c->st_started;
        char api[sizeof (c->st_api)];
        ms_strlcpy (api, c->st_api, sizeof (api));
        c->st_parts = NULL;
        c->st_jobs = NULL;
        c->st_new = false;
        pthread_mutex_unlock (&d->rmu);

        c->attempts++;
        if (failed) {
            cluster_failed (d, c, &e);
            continue;
        }
        cluster_take (d, c, parts, np, jobs, nj, started > c->last_action,
                      api);
    }
}

static void
refresher_start (ms_daemon_t *d)
{
    sigset_t all, old;

    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all,
                     &old); /* signals go to the main thread */
    d->refresher_on
        = pthread_create (&d->refresher, NULL, refresher_main, d) == 0;
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    if (!d->refresher_on)
        daemon_log (LOG_WARNING, "cannot start the cluster refresher: the "
                                 "cycle reads the clusters itself");
}

static bool
all_fresh (const ms_daemon_t *d)
{
    for (size_t i = 0; i < d->ncl; i++)
        if (!d->cl[i].fresh)
            return false;
    return true;
}

static long
cluster_index (const ms_daemon_t *d, const char *name)
{
    for (size_t i = 0; i < d->ncl; i++)
        if (!strcmp (d->cl[i].conf->name, name))
            return (long)i;
    return -1;
}

static long
part_index (const ms_daemon_t *d, const char *cluster, const char *part)
{
    const ms_partconf_t *p = clusterconf_partition (d->site, cluster, part);
    return p ? (long)(p - d->site->parts) : -1;
}

/* The tag metasched:<id> of a cluster job, 0 if none. */
static int64_t
tag_of (const ms_job_info_t *j)
{
    const char *s = j->comment;
    char *end;
    long long v;

    if (strncmp (s, "metasched:", 10))
        return 0;
    v = strtoll (s + 10, &end, 10);
    return *end == '\0' && v > 0 ? (int64_t)v : 0;
}

/* The view from what the clusters run and queue (DESIGN.md 5: W^ from
 * running jobs' predicted ends and the queue). Caller holds d->mu. */
static void
rebuild_view (ms_daemon_t *d)
{
    double now = wall ();

    view_free (d->view);
    d->view = view_new (d->site);
    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        for (size_t k = 0; k < c->njobs; k++) {
            const ms_job_info_t *j = &c->jobs[k];
            long p = part_index (d, c->conf->name, j->partition);
            int nodes = j->nodes > 0 ? j->nodes : 1;
            double lim
                = j->time_limit_min > 0 ? j->time_limit_min * 60.0 : 3600.0;
            if (p < 0)
                continue;
            if (j->state == MS_JOB_RUNNING || j->state == MS_JOB_COMPLETING
                || j->state == MS_JOB_SUSPENDED) {
                double end = j->end_time > (time_t)now ? (double)j->end_time
                                                       : now + 60;
                if (end > now + lim)
                    end = now + lim;
                view_run_start (
                    d->view, (size_t)p, j->id, nodes, end,
                    d->site->archs[d->site->parts[p].arch].idle_power_w * 2);
            } else if (j->state == MS_JOB_PENDING)
                view_pending_add (d->view, (size_t)p, nodes, lim);
        }
    }
}

/* ---- predictions ---- */

/* A signature for jobs of apps never seen ("unknown"), on every arch that
 * has none: an hour at nominal frequency on the fastest clock, power
 * 2.5 times idle; the default model does the rest (DESIGN.md 4.3: no
 * history, nominal frequency and a performance-leaning choice). */
static void
add_unknown_app (predictor_t *p, const ms_siteconf_t *site)
{
    uint32_t fmax = 0;
    for (size_t a = 0; a < site->narchs; a++)
        if (site->archs[a].nominal_khz > fmax)
            fmax = site->archs[a].nominal_khz;
    for (size_t a = 0; a < site->narchs; a++) {
        const ms_arch_t *ar = &site->archs[a];
        pred_signature_t sig;
        ms_error_t e;
        if (predictor_get_signature (p, UNKNOWN_APP, ar->name, &sig, &e) == 0)
            continue;
        memset (&sig, 0, sizeof (sig));
        sig.runtime_s = 3600.0 * fmax / ar->nominal_khz;
        sig.power_w = ar->idle_power_w > 0 ? 2.5 * ar->idle_power_w : 250;
        sig.nodes = 1;
        if (predictor_set_signature (p, UNKNOWN_APP, ar->name, &sig, &e) < 0)
            daemon_log (LOG_WARNING, "architecture %s: %s", ar->name, e.text);
    }
}

static int
load_predictor (ms_daemon_t *d, ms_error_t *errp)
{
    predictor_t *p = predictor_new ();
    ms_predtab_t *tab = NULL;
    size_t npairs = 0;

    if (db_predictor_load (d->db, p, &npairs, errp) < 0) {
        predictor_free (p);
        return ms_err_prefix (errp, "loading the predictor");
    }
    add_unknown_app (p, d->site);
    if (predtab_build (p, d->site, &tab, errp) < 0) {
        predictor_free (p);
        return ms_err_prefix (errp, "building the predictions");
    }
    pthread_mutex_lock (&d->mu);
    predtab_free (d->tab);
    predictor_free (d->pred);
    d->tab = tab;
    d->pred = p;
    pthread_mutex_unlock (&d->mu);
    d->last_pred_load = mono ();
    daemon_log (LOG_INFO, "predictor loaded: %zu apps, %zu stored pairs",
                tab->napps, npairs);
    return 0;
}

static void
refit (ms_daemon_t *d)
{
    predictor_t *p = predictor_new ();
    size_t nruns = 0, stored = 0;
    ms_error_t e;

    if (db_predictor_archs (d->db, p, NULL, &e) < 0
        || db_fit_and_store (d->db, p, PRED_FIT_ROBUST, &nruns, &stored, &e)
               < 0)
        daemon_log (LOG_WARNING, "refit: %s", e.text);
    else
        daemon_log (LOG_INFO,
                    "refit: %zu learning runs, %zu model pairs "
                    "stored",
                    nruns, stored);
    predictor_free (p);
    d->last_refit = mono ();
    if (load_predictor (d, &e) < 0)
        daemon_log (LOG_WARNING, "%s", e.text);
}

/* ---- deciding ---- */

typedef struct {
    int app;
    size_t home;
    double base_s;
    int nodes;
    long pinned; /* partition index or -1 */
} jobkey_t;

/* The job's app in the table, its home partition (the fastest at nominal
 * frequency: the user's limit is taken as the runtime there, so every
 * slower choice gets a longer limit) and its length. Caller holds d->mu. */
static int
job_key (const ms_daemon_t *d, const char *app, int nodes, uint32_t limit_min,
         const char *pinned, jobkey_t *k)
{
    const ms_predtab_t *tab = d->tab;
    double best = INFINITY;

    k->app = app && *app ? predtab_app_index (tab, app) : -1;
    if (k->app < 0)
        k->app = predtab_app_index (tab, UNKNOWN_APP);
    if (k->app < 0)
        return -1;
    k->nodes = nodes > 0 ? nodes : 1;
    k->home = SIZE_MAX;
    for (size_t p = 0; p < tab->nparts; p++) {
        const ms_predent_t *e
            = predtab_get (tab, (size_t)k->app, p, tab->nominal[p]);
        if (e->ok && e->t < best && d->site->parts[p].nodes >= k->nodes) {
            best = e->t;
            k->home = p;
        }
    }
    if (k->home == SIZE_MAX)
        return -1;
    k->base_s = limit_min > 0 ? limit_min * 60.0 : best;
    k->pinned = -1;
    if (pinned && *pinned) {
        char c[130], *slash;
        ms_strlcpy (c, pinned, sizeof (c));
        if ((slash = strchr (c, '/'))) {
            *slash = '\0';
            k->pinned = part_index (d, c, slash + 1);
        }
        if (k->pinned < 0)
            return -1;
    }
    return 0;
}

/* Candidates of the job on partitions of reachable clusters (all of them
 * with every_cluster) and the policy's decision. Caller holds d->mu. */
static void
decide (ms_daemon_t *d, const jobkey_t *k, bool every_cluster,
        ms_decision_t *dec)
{
    ms_cands_t *cs = &d->cs;
    size_t n = 0;

    candidates_build (d->tab, (size_t)k->app, k->home, k->nodes, k->base_s,
                      d->view, wall (), cs);
    for (size_t i = 0; i < cs->n; i++) {
        const ms_partconf_t *pc = &d->site->parts[cs->c[i].part];
        if (!every_cluster && !d->cl[pc->cluster].up)
            continue;
        if (k->pinned >= 0 && (long)cs->c[i].part != k->pinned)
            continue;
        cs->c[n++] = cs->c[i];
    }
    cs->n = n;
    policy_decide (&d->pol, d->site, cs, d->view, dec);
}

/* Every candidate with its score, for the decisions row and what-if. */
/* Make room for need more bytes and the NUL in the growing buffer *buf
 * of *cap bytes, len of them used. */
static void
reserve (char **buf, size_t len, size_t *cap, size_t need)
{
    if (len + need + 1 > *cap) {
        *cap = (len + need + 1) * 2;
        *buf = ms_xrealloc (*buf, *cap);
    }
}

/* Append printf-style text to the growing buffer *buf. */
static void
cat_printf (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n <= 0)
        return;
    reserve (buf, *len, cap, (size_t)n);
    va_start (ap, fmt);
    vsnprintf (*buf + *len, *cap - *len, fmt, ap);
    va_end (ap);
    *len += (size_t)n;
}

/* A number for JSON: nine significant digits (plenty for an audit row,
 * and half the text of seventeen), null where it is not finite. */
static void
cat_num (char **buf, size_t *len, size_t *cap, const char *key, double v)
{
    if (isfinite (v))
        cat_printf (buf, len, cap, ",\"%s\":%.9g", key, v);
    else
        cat_printf (buf, len, cap, ",\"%s\":null", key);
}

/* Every candidate of a decision with its prediction, score and rank, as
 * the JSON text of decisions.candidates (written directly: a jansson
 * object per candidate cost more than the decision itself). Cluster and
 * partition names are configuration names (clusterconf.c admits letters,
 * digits, '-', '_' and '.'), which need no escaping. */
static char *
candidates_json (const ms_daemon_t *d, const ms_cands_t *cs,
                 const ms_decision_t *dec, double *chosen_score)
{
    double emin = INFINITY, wtmin = INFINITY;
    size_t len = 0, cap = 256 + cs->n * 256;
    char *buf = ms_xmalloc (cap);

    for (size_t i = 0; i < cs->n; i++) {
        if (cs->c[i].e < emin)
            emin = cs->c[i].e;
        if (cs->c[i].w + cs->c[i].t < wtmin)
            wtmin = cs->c[i].w + cs->c[i].t;
    }
    cat_printf (&buf, &len, &cap, "[");
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        const ms_partconf_t *pc = &d->site->parts[c->part];
        double s
            = score_metasched (c->e, emin, c->w + c->t, wtmin, d->pol.w_energy);
        int rank = -1;
        for (size_t k = 0; k < dec->n; k++)
            if (dec->c[k].cand == i)
                rank = (int)k;
        if (rank == 0 && chosen_score)
            *chosen_score = s;
        cat_printf (&buf, &len, &cap,
                    "%s{\"cluster\":\"%s\",\"partition\":\"%s\","
                    "\"freq_khz\":%u",
                    i ? "," : "", d->site->clusters[pc->cluster].name,
                    pc->name, (unsigned)c->f_khz);
        cat_num (&buf, &len, &cap, "time_s", c->t);
        cat_num (&buf, &len, &cap, "time_hi_s", c->t_hi);
        cat_num (&buf, &len, &cap, "power_w", c->p);
        cat_num (&buf, &len, &cap, "energy_j", c->e);
        cat_num (&buf, &len, &cap, "wait_s", isfinite (c->w) ? c->w : -1.0);
        cat_num (&buf, &len, &cap, "score", isfinite (s) ? s : -1.0);
        cat_printf (&buf, &len, &cap, ",\"chosen\":%s",
                    rank == 0 ? "true" : "false");
        if (rank >= 0)
            cat_printf (&buf, &len, &cap, ",\"rank\":%d", rank);
        cat_printf (&buf, &len, &cap, "}");
    }
    cat_printf (&buf, &len, &cap, "]");
    return buf;
}

/* The user's limit scaled by the predicted slowdown there (DESIGN.md 5),
 * never below the user's own. */
static uint32_t
scaled_limit (uint32_t user_min, const ms_cand_t *c, double base_s)
{
    double lim = user_min * 60.0;
    if (user_min == 0)
        return 0;
    if (base_s > 0 && c->t_hi > base_s)
        lim *= c->t_hi / base_s;
    if (!isfinite (lim) || lim > 365 * 86400.0)
        return user_min;
    uint32_t m = (uint32_t)ceil (lim / 60.0 - 1e-9);
    return m < user_min ? user_min : m;
}

/* ---- the batch script: the user's script under metasched-collect ---- */

static void
sh_quote (char **buf, size_t *len, size_t *cap, const char *s)
{
    reserve (buf, *len, cap, strlen (s) * 4 + 2);
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
    reserve (buf, *len, cap, n);
    memcpy (*buf + *len, s, n + 1);
    *len += n;
}

/* The user's script travels in a here-document with a delimiter that is
 * no line of it; Slurm runs this as the user, so nothing here runs with
 * more rights than the user's own script. */
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

static const char *
jstr (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_string (v) && *json_string_value (v) ? json_string_value (v)
                                                        : NULL;
}

static int
jint (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_integer (v) ? (int)json_integer_value (v) : 0;
}

/* Submit one choice of job j; *bidp the cluster's id. */
static int
submit_one (ms_daemon_t *d, const queue_job_t *j, json_t *opts,
            const ms_cand_t *c, const ms_choice_t *ch, uint32_t limit_min,
            bool gate, uint64_t *bidp, ms_error_t *errp)
{
    const ms_partconf_t *pc = &d->site->parts[c->part];
    cluster_t *cl = &d->cl[pc->cluster];
    json_t *env = json_object_get (opts, "environment");
    size_t nenv = json_is_array (env) ? json_array_size (env) : 0;
    const char **envv = ms_xcalloc (nenv + 8, sizeof (char *));
    char comment[48], idenv[64], srv[600], munge[600], name[160];
    char *script;
    ms_job_request_t req;
    size_t ne = 0;
    int rc;

    for (size_t i = 0; i < nenv; i++) {
        json_t *v = json_array_get (env, i);
        if (json_is_string (v)
            && strncmp (json_string_value (v), "METASCHED_", 10))
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
        if (d->dc->munge_socket[0]) {
            snprintf (munge, sizeof (munge), "METASCHED_MUNGE_SOCKET=%s",
                      d->dc->munge_socket);
            envv[ne++] = munge;
        }
    }
    envv[ne] = NULL;
    snprintf (comment, sizeof (comment), "metasched:%" PRId64, j->id);
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
    req.cwd = jstr (opts, "cwd") ? jstr (opts, "cwd") : "/tmp";
    req.std_out = jstr (opts, "stdout");
    req.std_err = jstr (opts, "stderr");
    req.std_in = jstr (opts, "stdin");
    req.nodes = j->nodes;
    req.tasks = jint (opts, "tasks");
    if (req.tasks == 0 && jint (opts, "tasks_per_node") > 0)
        req.tasks = jint (opts, "tasks_per_node") * j->nodes;
    req.cpus_per_task = jint (opts, "cpus_per_task");
    req.exclusive = json_is_true (json_object_get (opts, "exclusive"));
    if (json_is_integer (json_object_get (opts, "begin_time")))
        req.begin_time
            = json_integer_value (json_object_get (opts, "begin_time"));
    req.script = script;
    rc = backend_submit (cl->b, &req, bidp, errp);
    cl->last_action = mono ();
    pthread_mutex_lock (&d->rmu);
    cl->submitted_at = cl->last_action;
    pthread_mutex_unlock (&d->rmu);
    free (script);
    free (envv);
    return rc;
}

/* Append b to cluster c's boosts to make; caller holds rmu. */
static void
boost_push (cluster_t *c, boost_t b)
{
    if (c->nboost == c->boostcap) {
        c->boostcap = c->boostcap ? c->boostcap * 2 : 16;
        c->boost = ms_xrealloc (c->boost, c->boostcap * sizeof (*c->boost));
    }
    c->boost[c->nboost++] = b;
}

/* Raise the Slurm priority of a job on its optimal partition (EAMC
 * PriorityInc, DESIGN.md 5). The job is noted here (under rmu) and boosted
 * when the cluster's job list is next read (apply_boosts), which gives its
 * current priority: no round trip stands between one submit and the next,
 * and no listing is read for the boosts alone. */
static void
boost_later (ms_daemon_t *d, cluster_t *cl, uint64_t bid)
{
    pthread_mutex_lock (&d->rmu);
    boost_push (cl, (boost_t){ .id = bid, .at = mono () });
    pthread_mutex_unlock (&d->rmu);
}

/* Boost the noted jobs of cluster c that a fresh listing (jobs, sorted by
 * id) shows pending, with handle b; a job the listing does not show yet
 * waits for the next one, for at most BOOST_WAIT_S. A failure is logged,
 * never fatal. */
static void
apply_boosts (ms_daemon_t *d, cluster_t *c, ms_backend_t *b,
              const ms_job_info_t *jobs, size_t nj)
{
    boost_t *q;
    size_t n, kept = 0;
    uint64_t done = 0;
    double now = mono ();

    pthread_mutex_lock (&d->rmu);
    q = c->boost;
    n = c->nboost;
    c->boost = NULL;
    c->nboost = c->boostcap = 0;
    pthread_mutex_unlock (&d->rmu);
    for (size_t k = 0; k < n; k++) {
        ms_job_info_t key = { .id = q[k].id };
        const ms_job_info_t *info
            = nj ? bsearch (&key, jobs, nj, sizeof (*jobs), cmp_jobinfo)
                 : NULL;
        ms_job_update_t u;
        ms_error_t e;

        if (!info) {
            if (now - q[k].at < BOOST_WAIT_S)
                q[kept++] = q[k]; /* submitted after the listing began */
            else
                daemon_log (LOG_WARNING,
                            "priority boost of %s job %" PRIu64
                            ": not listed by the cluster",
                            c->conf->name, q[k].id);
            continue;
        }
        if (info->state != MS_JOB_PENDING)
            continue; /* started, ended or cancelled meanwhile */
        ms_job_update_init (&u);
        /* saturated below MS_KEEP_PRIORITY: priority/basic starts near
         * 2^32 */
        u.priority = info->priority < UINT32_MAX - 2 - BOOST_PRIORITY
                         ? info->priority + BOOST_PRIORITY
                         : UINT32_MAX - 2;
        if (u.priority == info->priority)
            continue;
        if (backend_update (b, q[k].id, &u, &e) < 0)
            daemon_log (LOG_WARNING, "priority boost of %s job %" PRIu64 ": %s",
                        c->conf->name, q[k].id, e.text);
        else {
            daemon_log (LOG_INFO,
                        "priority boost of %s job %" PRIu64 ": %u -> %u",
                        c->conf->name, q[k].id, info->priority, u.priority);
            done++;
        }
    }
    pthread_mutex_lock (&d->rmu);
    for (size_t k = 0; k < kept; k++)
        boost_push (c, q[k]);
    pthread_mutex_unlock (&d->rmu);
    free (q);
    if (done) {
        pthread_mutex_lock (&d->mu);
        d->boosts += done;
        pthread_mutex_unlock (&d->mu);
    }
}

static bool
unknown_outcome (const ms_error_t *e)
{
    /* the request may have reached slurmctld: only the tag can tell */
    return e->kind == MS_ERR_TIMEOUT || e->kind == MS_ERR_PROTOCOL;
}

/* One job of a dispatch batch: what was decided, then what each submit
 * gave. */
typedef struct {
    queue_job_t j;
    json_t *opts;
    double base_s;
    size_t nch;
    ms_cand_t chosen[MS_MAX_CHOICES];
    ms_choice_t choices[MS_MAX_CHOICES];
    uint32_t limit; /* the first choice's scaled limit */
    bool opt;       /* the first choice is the job's optimal partition */
    bool fits_nowhere;
    bool committed; /* dispatching, with its decision, on disk */
    char *cands; /* decisions.candidates, JSON text */
    double score;
    int rc[MS_MAX_CHOICES]; /* of each submit: 0 accepted, -1 not */
    uint64_t bid[MS_MAX_CHOICES];
    ms_error_t err[MS_MAX_CHOICES];
} djob_t;

/* The submits of a batch to one cluster, in one thread of their own: the
 * clusters take their submits side by side, and each cluster takes the
 * batches in order (its workers take turns), so that a cluster that is
 * done with one batch goes on with the next while another cluster still
 * works on the first. */
typedef struct {
    ms_daemon_t *d;
    size_t cl;
    djob_t *b;
    size_t n;
    bool siblings;
    uint64_t ticket; /* this worker's turn on its cluster */
    uint64_t accepted;
    double busy_s; /* in backend_submit */
    bool failed; /* could not connect: the cluster goes into backoff */
    ms_error_t fail;
    pthread_t th;
    bool threaded;
} sworker_t;

static void *
submit_worker (void *arg)
{
    sworker_t *w = arg;
    ms_daemon_t *d = w->d;
    cluster_t *cl = &d->cl[w->cl];

    pthread_mutex_lock (&d->wmu);
    while (cl->serving != w->ticket)
        pthread_cond_wait (&d->wcond, &d->wmu);
    pthread_mutex_unlock (&d->wmu);
    for (size_t i = 0; i < w->n; i++) {
        djob_t *b = &w->b[i];
        if (!b->committed)
            continue;
        for (size_t c = 0; c < b->nch; c++) {
            const ms_partconf_t *pc = &d->site->parts[b->chosen[c].part];
            ms_error_t *e = &b->err[c];
            if (pc->cluster != w->cl)
                continue;
            if (cl->dstop) {
                /* the cluster failed in this dispatch: the rest wait for
                 * the next decision rather than each for its own
                 * timeout */
                b->rc[c] = -1;
                ms_err (e, MS_ERR_CONNECT, "not submitted: %s", cl->dstopwhy);
                continue;
            }
            double t0 = mono ();
            b->rc[c] = submit_one (
                d, &b->j, b->opts, &b->chosen[c], &b->choices[c],
                scaled_limit (b->j.time_limit_min, &b->chosen[c], b->base_s),
                w->siblings, &b->bid[c], e);
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
                cl->dstop = true;
                snprintf (cl->dstopwhy, sizeof (cl->dstopwhy),
                          "%s failed earlier: %s", cl->conf->name, e->text);
            }
        }
    }
    pthread_mutex_lock (&d->wmu);
    cl->serving++;
    pthread_cond_broadcast (&d->wcond);
    pthread_mutex_unlock (&d->wmu);
    return NULL;
}

/* Decide every job of the batch; the view counts each choice, so the
 * batch's later jobs see its earlier ones. */
static void
decide_batch (ms_daemon_t *d, djob_t *b, size_t n)
{
    bool siblings = d->set.dispatch_mode == DISPATCH_SIBLINGS;
    size_t want = siblings ? (size_t)d->set.siblings : 1;
    double t0 = mono ();

    pthread_mutex_lock (&d->mu);
    for (size_t i = 0; i < n; i++) {
        djob_t *x = &b[i];
        jobkey_t k;
        ms_decision_t dec;

        if (job_key (d, x->j.app, x->j.nodes, x->j.time_limit_min,
                     jstr (x->opts, "partition"), &k)
            < 0) {
            x->fits_nowhere = true;
            continue;
        }
        decide (d, &k, true, &dec);
        if (dec.n == 0) {
            x->fits_nowhere = true;
            continue;
        }
        decide (d, &k, false, &dec);
        for (size_t c = 0; c < dec.n && x->nch < want; c++) {
            x->chosen[x->nch] = d->cs.c[dec.c[c].cand];
            x->choices[x->nch] = dec.c[c];
            x->choices[x->nch].nice = siblings ? (int)x->nch * MS_NICE_STEP
                                               : 0;
            x->nch++;
        }
        if (x->nch == 0)
            continue; /* every cluster that could run it is down: wait */
        x->base_s = k.base_s;
        x->opt = policy_optimal_partition (&d->cs, d->site->nparts)
                 == x->chosen[0].part;
        x->cands = candidates_json (d, &d->cs, &dec, &x->score);
        x->limit = scaled_limit (x->j.time_limit_min, &x->chosen[0], k.base_s);
        for (size_t c = 0; c < x->nch; c++)
            view_pending_add (d->view, x->chosen[c].part, k.nodes,
                              x->chosen[c].t);
    }
    d->decisions += n;
    d->decide_s += mono () - t0;
    pthread_mutex_unlock (&d->mu);
}

/* A job that no configured partition can run: cancelled with the reason
 * rather than kept for ever. */
static int
cancel_unfit (ms_daemon_t *d, int64_t id)
{
    ms_error_t e;
    bool ok;

    if (queue_claim (d->db, id, &ok, &e) < 0
        || (ok
            && queue_cancel (d->db, id, "deciding",
                             "no configured partition can run this job "
                             "(nodes, partition or app)",
                             &ok, &e)
                   < 0)) {
        daemon_log (LOG_ERR, "job %" PRId64 ": %s", id, e.text);
        return -1;
    }
    daemon_log (LOG_NOTICE, "job %" PRId64 ": fits on no partition; cancelled",
                id);
    return 0;
}

/* queued -> dispatching for every decided job, with its decision row, in
 * one transaction that reaches the disk before anything is submitted: one
 * flush for the batch instead of one per job. */
static int
commit_batch (ms_daemon_t *d, djob_t *b, size_t n)
{
    ms_error_t e;
    size_t k = 0;
    int64_t *ids = ms_xcalloc (n + 1, sizeof (int64_t));
    queue_choice_t *qc = ms_xcalloc (n + 1, sizeof (queue_choice_t));
    char **cjs = ms_xcalloc (n + 1, sizeof (char *));
    bool *changed = ms_xcalloc (n + 1, sizeof (bool));
    size_t *at = ms_xcalloc (n + 1, sizeof (size_t));
    int rc = -1;

    for (size_t i = 0; i < n; i++) {
        djob_t *x = &b[i];
        const ms_partconf_t *pc;

        x->committed = false;
        if (x->nch == 0)
            continue;
        pc = &d->site->parts[x->chosen[0].part];
        cjs[k] = x->cands;
        ids[k] = x->j.id;
        qc[k] = (queue_choice_t){
            .cluster = d->site->clusters[pc->cluster].name,
            .partition = pc->name,
            .freq_khz = x->chosen[0].f_khz,
            .time_s = x->chosen[0].t,
            .energy_j = x->chosen[0].e,
            .power_w = x->chosen[0].p,
            .wait_s = isfinite (x->chosen[0].w) ? x->chosen[0].w : 0,
            .time_limit_min = x->limit,
            .policy = d->pol.label,
            .score = x->score,
            .candidates_json = cjs[k],
        };
        at[k++] = i;
    }
    if (k == 0)
        rc = 0;
    else if (queue_begin (d->db, true, &e) < 0)
        ;
    else if (queue_dispatching_many (d->db, ids, qc, k, changed, &e) < 0)
        queue_rollback (d->db);
    else if (queue_commit (d->db, &e) == 0) {
        for (size_t m = 0; m < k; m++)
            b[at[m]].committed = changed[m];
        rc = 0;
    }
    if (rc < 0)
        daemon_log (LOG_ERR, "dispatching %zu jobs: %s", k, e.text);
    free (ids);
    free (qc);
    free (cjs);
    free (changed);
    free (at);
    return rc;
}

/* A batch on its way: decided and committed, its submits under way in
 * one thread per cluster while the next batch is read, decided and
 * committed. */
typedef struct {
    djob_t *b;
    size_t n;
    sworker_t *w; /* per cluster */
    double t_start;
} dbatch_t;

/* Start the submits of every committed job of the batch, each cluster's in
 * a thread of its own (inline where a thread cannot be had). */
static void
submit_start (ms_daemon_t *d, dbatch_t *x)
{
    x->w = ms_xcalloc (d->ncl, sizeof (*x->w));
    x->t_start = mono ();
    for (size_t ci = 0; ci < d->ncl; ci++) {
        sworker_t *w = &x->w[ci];
        bool work = false;
        *w = (sworker_t){ .d = d, .cl = ci, .b = x->b, .n = x->n,
                          .siblings = d->set.dispatch_mode
                                      == DISPATCH_SIBLINGS };
        for (size_t i = 0; i < x->n && !work; i++)
            for (size_t c = 0; x->b[i].committed && c < x->b[i].nch; c++)
                if (d->site->parts[x->b[i].chosen[c].part].cluster == ci)
                    work = true;
        if (!work)
            continue;
        w->ticket = d->cl[ci].tickets++; /* only this thread hands them out */
        sigset_t all, old;
        sigfillset (&all);
        pthread_sigmask (SIG_SETMASK, &all, &old);
        w->threaded = pthread_create (&w->th, NULL, submit_worker, w) == 0;
        pthread_sigmask (SIG_SETMASK, &old, NULL);
        if (!w->threaded)
            submit_worker (w);
    }
}

/* Wait for the batch's submits; a cluster that could not be reached goes
 * into backoff. */
static void
submit_join (ms_daemon_t *d, dbatch_t *x)
{
    uint64_t *acc = ms_xcalloc (d->ncl + 1, sizeof (uint64_t));
    double *busy = ms_xcalloc (d->ncl + 1, sizeof (double));
    double end;

    for (size_t ci = 0; ci < d->ncl; ci++) {
        sworker_t *w = &x->w[ci];
        if (w->threaded)
            pthread_join (w->th, NULL);
        w->threaded = false;
        if (w->failed)
            cluster_failed (d, &d->cl[ci], &w->fail);
        acc[ci] = w->accepted;
        busy[ci] = w->busy_s;
    }
    pthread_mutex_lock (&d->mu);
    for (size_t ci = 0; ci < d->ncl; ci++) {
        d->cl[ci].submits += acc[ci];
        d->cl[ci].submit_s += busy[ci];
    }
    /* wall time with submits under way: batches overlap, count it once */
    end = mono ();
    d->submit_s += end - (x->t_start > d->submit_mark ? x->t_start
                                                      : d->submit_mark);
    d->submit_mark = end;
    pthread_mutex_unlock (&d->mu);
    free (acc);
    free (busy);
    free (x->w);
    x->w = NULL;
}

/* A job refused at each of `attempts` dispatches (MAX_REFUSED): from
 * `from` to cancelled, the last refusal its reason, rather than sent
 * again every cycle. */
static int
cancel_refused (ms_daemon_t *d, int64_t id, const char *from, int attempts,
                const char *why, ms_error_t *errp)
{
    char last[1300];
    bool ok;

    snprintf (last, sizeof (last),
              "refused at each of %d dispatches; the last: %s", attempts, why);
    if (queue_cancel (d->db, id, from, last, &ok, errp) < 0)
        return -1;
    daemon_log (LOG_NOTICE, "job %" PRId64 ": cancelled, %s", id, last);
    return 0;
}

/* Record what the submits gave, in one transaction that need not wait for
 * the flush (a lost commit leaves the rows dispatching: reconciliation
 * adopts the cluster jobs by their tags). Then cancel the copies of jobs
 * cancelled meanwhile, log, and note the boosts. */
static int
record_batch (ms_daemon_t *d, djob_t *b, size_t n)
{
    bool siblings = d->set.dispatch_mode == DISPATCH_SIBLINGS;
    queue_sub_new_t(*subs)[MS_MAX_CHOICES]
        = ms_xcalloc (n + 1, sizeof (*subs));
    size_t *nsub = ms_xcalloc (n + 1, sizeof (size_t));
    bool *kept = ms_xcalloc (n + 1, sizeof (bool));
    ms_error_t e;
    int rc = -1;
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        k += b[i].committed;
    if (k == 0) {
        rc = 0;
        goto out;
    }
    if (queue_begin (d->db, false, &e) < 0)
        goto dberr;
    for (size_t i = 0; i < n; i++) {
        djob_t *x = &b[i];
        char why[1200] = "";
        bool unknown = false, refused = false, ok;

        if (!x->committed)
            continue;
        for (size_t c = 0; c < x->nch; c++) {
            const ms_partconf_t *pc = &d->site->parts[x->chosen[c].part];
            const char *cname = d->site->clusters[pc->cluster].name;
            if (x->rc[c] < 0) {
                daemon_log (LOG_WARNING, "job %" PRId64 ": submit to %s/%s: %s",
                            x->j.id, cname, pc->name, x->err[c].text);
                snprintf (why, sizeof (why), "submit to %s/%s: %s", cname,
                          pc->name, x->err[c].text);
                unknown = unknown || unknown_outcome (&x->err[c]);
                /* slurmctld or slurmrestd said no to this request: sent
                 * again unchanged, it would be refused again */
                refused = refused || x->err[c].kind == MS_ERR_HTTP
                          || x->err[c].kind == MS_ERR_REMOTE;
                continue;
            }
            subs[i][nsub[i]] = (queue_sub_new_t){
                .cluster = cname,
                .partition = pc->name,
                .freq_khz = x->chosen[c].f_khz,
                .cluster_job_id = x->bid[c],
                .rank = (int)c,
            };
            nsub[i]++;
        }
        if (unknown) {
            /* left dispatching: reconciliation finds the tag */
            if (queue_note (d->db, x->j.id, why, &e) < 0)
                goto rollback;
            nsub[i] = 0;
            continue;
        }
        if (nsub[i] == 0 && refused && x->j.attempts + 1 >= MAX_REFUSED) {
            if (cancel_refused (d, x->j.id, "dispatching", x->j.attempts + 1,
                                why, &e)
                < 0)
                goto rollback;
            continue;
        }
        if (nsub[i] == 0) {
            if (queue_requeue (d->db, x->j.id, "dispatching", why, false, &ok,
                               &e)
                < 0)
                goto rollback;
            d->requeued++;
            continue;
        }
        if (queue_submitted_tx (d->db, x->j.id, subs[i], nsub[i], &kept[i],
                                &e)
            < 0)
            goto rollback;
    }
    if (queue_commit (d->db, &e) < 0)
        goto dberr;
    rc = 0;
    for (size_t i = 0; i < n; i++) {
        djob_t *x = &b[i];
        if (nsub[i] == 0)
            continue;
        d->dispatched++;
        if (!kept[i]) {
            /* cancelled while it was being submitted: its copies are
             * cancelled once the workers are done with the handles */
            for (size_t s = 0; s < nsub[i]; s++) {
                d->late = ms_xrealloc (d->late,
                                       (d->nlate + 1) * sizeof (*d->late));
                d->late[d->nlate].cl
                    = (size_t)cluster_index (d, subs[i][s].cluster);
                d->late[d->nlate].bid = subs[i][s].cluster_job_id;
                ms_strlcpy (d->late[d->nlate].cluster, subs[i][s].cluster,
                            sizeof (d->late[d->nlate].cluster));
                d->nlate++;
            }
            continue;
        }
        daemon_log (LOG_INFO,
                    "job %" PRId64 " (%s): %s/%s at %u kHz, limit %u min, "
                    "cluster job %" PRIu64 "%s",
                    x->j.id, x->j.owner, subs[i][0].cluster,
                    subs[i][0].partition, subs[i][0].freq_khz, x->limit,
                    subs[i][0].cluster_job_id,
                    nsub[i] > 1 ? " and siblings" : "");
        if (!siblings && x->opt && d->set.priority_boost)
            boost_later (d, &d->cl[cluster_index (d, subs[i][0].cluster)],
                         subs[i][0].cluster_job_id);
    }
    goto out;
rollback:
    queue_rollback (d->db);
dberr:
    /* the rows stay dispatching; the tags find the cluster jobs after the
     * database is back */
    daemon_log (LOG_ERR, "recording %zu submissions: %s", n, e.text);
out:
    free (subs);
    free (nsub);
    free (kept);
    return rc;
}

/* Read, decide and commit one batch of queued jobs (owned by the batch
 * from here). Returns -1 on a database error (the cycle stops), with no
 * job of the batch committed. */
static int
batch_prepare (ms_daemon_t *d, queue_job_t *jobs, size_t n, dbatch_t *x)
{
    int rc = 0;
    double t0;

    x->b = ms_xcalloc (n, sizeof (*x->b));
    x->n = n;
    x->w = NULL;
    for (size_t i = 0; i < n; i++) {
        x->b[i].j = jobs[i];
        x->b[i].opts = json_loads (jobs[i].options, 0, NULL);
        if (!json_is_object (x->b[i].opts)) {
            json_decref (x->b[i].opts);
            x->b[i].opts = json_object ();
        }
    }
    decide_batch (d, x->b, n);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (x->b[i].fits_nowhere)
            rc = cancel_unfit (d, x->b[i].j.id);
    if (rc < 0)
        return -1;
    /* the leader may have changed while we decided (asked at most every
     * LEADER_CHECK_S within a cycle: the rows' state transitions keep the
     * dispatch exactly-once whoever leads) */
    if (mono () - d->leader_checked > LEADER_CHECK_S) {
        if (!leadership (d))
            return 0; /* nothing committed: nothing goes out */
        d->leader_checked = mono ();
    }
    t0 = mono ();
    rc = commit_batch (d, x->b, n);
    pthread_mutex_lock (&d->mu);
    d->commit_s += mono () - t0;
    d->batches++;
    pthread_mutex_unlock (&d->mu);
    return rc;
}

/* Wait for a started batch's submits, record them and free the batch. */
static int
batch_finish (ms_daemon_t *d, dbatch_t *x)
{
    int rc;
    double t0;

    if (x->w)
        submit_join (d, x);
    t0 = mono ();
    rc = record_batch (d, x->b, x->n);
    pthread_mutex_lock (&d->mu);
    d->record_s += mono () - t0;
    pthread_mutex_unlock (&d->mu);
    for (size_t i = 0; i < x->n; i++) {
        free (x->b[i].cands);
        json_decref (x->b[i].opts);
        queue_job_free (&x->b[i].j);
    }
    free (x->b);
    x->b = NULL;
    x->n = 0;
    return rc;
}

static void
set_dispatch_busy (ms_daemon_t *d, bool busy)
{
    pthread_mutex_lock (&d->rmu);
    d->dispatch_busy = busy;
    pthread_mutex_unlock (&d->rmu);
}

/* Cancel the copies of jobs cancelled while they were being submitted
 * (record_batch noted them); no submit worker runs. */
static void
cancel_late (ms_daemon_t *d)
{
    for (size_t k = 0; k < d->nlate; k++) {
        cluster_t *c = &d->cl[d->late[k].cl];
        ms_error_t e;
        if (backend_cancel (c->b, d->late[k].bid, &e) < 0) {
            daemon_log (LOG_WARNING,
                        "cancelling %s job %" PRIu64 " (its meta job was "
                        "cancelled while it was submitted): %s",
                        d->late[k].cluster, d->late[k].bid, e.text);
            continue;
        }
        c->last_action = mono ();
        queue_sub_state (d->db, d->late[k].cluster, d->late[k].bid,
                         "cancelled", &e);
    }
    d->nlate = 0;
}

/* Dispatch the queued jobs in batches, oldest first, as a pipeline: while
 * the batches before it are submitted, the next batch is read, decided (on
 * a view that counts the batches before it) and committed, and its
 * submits queue behind theirs on each cluster; the oldest is recorded
 * while the newer ones' submits go on. At most DISPATCH_INFLIGHT batches
 * are under way. */
static int
dispatch_batches (ms_daemon_t *d)
{
    double t0 = mono ();
    int64_t last = 0;
    dbatch_t fl[DISPATCH_INFLIGHT]; /* under way, oldest first */
    size_t nfl = 0;
    bool more = true;
    int rc = 0;
    size_t chunk = DISPATCH_FIRST;

    for (size_t ci = 0; ci < d->ncl; ci++)
        d->cl[ci].dstop = false; /* no worker runs */
    for (;;) {
        /* jobs left queued in this cycle (ids up to `last`) wait for the
         * next one */
        more = more && rc == 0 && d->leader
               && mono () - t0 <= CYCLE_DISPATCH_MAX_S;
        if (more) {
            queue_job_t *jobs = NULL;
            size_t n = 0;
            ms_error_t e;

            if (queue_take_queued (d->db, last, chunk, &jobs, &n, &e) < 0) {
                daemon_log (LOG_ERR, "reading the queue: %s", e.text);
                rc = -1;
            } else if (n > 0) {
                dbatch_t x = { 0 };
                if (last == 0)
                    set_dispatch_busy (d, true);
                last = jobs[n - 1].id;
                if (chunk < DISPATCH_CHUNK)
                    chunk *= 2;
                if (batch_prepare (d, jobs, n, &x) < 0) {
                    /* nothing of it committed: freed unsent, its rows
                     * are queued still */
                    rc = -1;
                    for (size_t i = 0; i < x.n; i++)
                        x.b[i].committed = false;
                    batch_finish (d, &x);
                } else {
                    submit_start (d, &x);
                    fl[nfl++] = x;
                }
            }
            more = n > 0;
            free (jobs);
        }
        if (nfl == 0)
            break;
        /* the oldest batch: recorded once the pipeline is full or nothing
         * more comes (whatever happened to the newer ones: its submits
         * were made) */
        if (nfl == DISPATCH_INFLIGHT || !more || rc < 0) {
            if (batch_finish (d, &fl[0]) < 0)
                rc = -1;
            memmove (&fl[0], &fl[1], (nfl - 1) * sizeof (fl[0]));
            nfl--;
        }
    }
    cancel_late (d);
    return rc;
}

/* Dispatch the queued jobs; the refresher reads no cluster meanwhile. */
static int
dispatch_queued (ms_daemon_t *d)
{
    int rc = dispatch_batches (d);
    set_dispatch_busy (d, false);
    return rc;
}

/* ---- reconciliation and following ---- */

typedef struct {
    int64_t tag;
    size_t cl;
    const ms_job_info_t *j;
} tagged_t;

static int
cmp_tagged (const void *a, const void *b)
{
    const tagged_t *x = a, *y = b;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->j->id < y->j->id ? -1 : x->j->id > y->j->id;
}

/* Every cluster job with a tag, by tag. */
static tagged_t *
collect_tags (ms_daemon_t *d, size_t *np)
{
    size_t n = 0, cap = 0;
    tagged_t *t = NULL;

    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        if (!c->fresh)
            continue;
        for (size_t k = 0; k < c->njobs; k++) {
            int64_t tag = tag_of (&c->jobs[k]);
            if (!tag)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                t = ms_xrealloc (t, cap * sizeof (*t));
            }
            t[n].tag = tag;
            t[n].cl = i;
            t[n].j = &c->jobs[k];
            n++;
        }
    }
    if (n)
        qsort (t, n, sizeof (*t), cmp_tagged);
    *np = n;
    return t;
}

static bool
sub_known (const queue_sub_t *s, size_t n, const char *cluster, uint64_t id,
           const char **state)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].cluster_job_id == id && !strcmp (s[i].cluster, cluster)) {
            if (state)
                *state = s[i].state;
            return true;
        }
    return false;
}

static void
cancel_on (ms_daemon_t *d, size_t ci, uint64_t bid, int64_t id, const char *why)
{
    ms_error_t e;
    int crc = backend_cancel (d->cl[ci].b, bid, &e);
    d->cl[ci].last_action = mono ();
    if (crc < 0)
        daemon_log (LOG_WARNING,
                    "job %" PRId64 ": cancel %s job %" PRIu64 ": %s", id,
                    d->cl[ci].conf->name, bid, e.text);
    else
        daemon_log (LOG_INFO,
                    "job %" PRId64 ": cancelled %s job %" PRIu64 " (%s)", id,
                    d->cl[ci].conf->name, bid, why);
}

/* Deciding and dispatching rows left by a crash (older than the grace,
 * so that no live leader is still at work on them), and tagged cluster
 * jobs that no submission row knows (duplicates). */
static int
reconcile (ms_daemon_t *d, const queue_live_t *live, size_t nlive,
           const tagged_t *tags, size_t ntags)
{
    bool every = all_fresh (d);
    ms_error_t e;
    bool ok;

    for (size_t i = 0; i < nlive; i++) {
        const queue_live_t *l = &live[i];
        queue_sub_t *subs = NULL;
        size_t nsubs = 0, a, b;

        if (!strcmp (l->state, "deciding")) {
            if (l->age_s > d->grace_s) {
                if (queue_requeue (d->db, l->id, "deciding",
                                   "decision interrupted; queued again", false,
                                   &ok, &e)
                    < 0)
                    return -1;
                d->requeued += ok;
            }
            continue;
        }
        /* the tagged cluster jobs of this meta job: tags[a..b) */
        for (a = 0; a < ntags && tags[a].tag < l->id; a++)
            ;
        for (b = a; b < ntags && tags[b].tag == l->id; b++)
            ;
        if (strcmp (l->state, "dispatching") && a == b)
            continue;
        if (!strcmp (l->state, "dispatching") && l->age_s <= d->grace_s)
            continue;
        if (queue_job_subs (d->db, l->id, &subs, &nsubs, &e) < 0)
            return -1;
        if (!strcmp (l->state, "dispatching")) {
            size_t keep = SIZE_MAX;
            for (size_t k = a; k < b; k++) {
                const char *st;
                if (sub_known (subs, nsubs, d->cl[tags[k].cl].conf->name,
                               tags[k].j->id, &st)
                    && !strcmp (st, "cancelled"))
                    continue;
                if (tags[k].j->state == MS_JOB_CANCELLED)
                    continue;
                if (keep == SIZE_MAX
                    || (tags[k].j->state == MS_JOB_RUNNING
                        && tags[keep].j->state != MS_JOB_RUNNING))
                    keep = k;
            }
            if (keep != SIZE_MAX) {
                const tagged_t *t = &tags[keep];
                queue_sub_new_t s = { d->cl[t->cl].conf->name, t->j->partition,
                                      t->j->cpu_freq_max_khz, t->j->id, 0 };
                if (queue_sub_record (d->db, l->id, &s, "submitted", &e) < 0
                    || queue_adopt (d->db, l->id, s.cluster, s.partition,
                                    t->j->id, &ok, &e)
                           < 0) {
                    free (subs);
                    return -1;
                }
                d->adopted += ok;
                daemon_log (LOG_NOTICE,
                            "job %" PRId64 ": found on %s as job %" PRIu64
                            " after an interrupted dispatch",
                            l->id, s.cluster, t->j->id);
                free (subs);
                /* any other copies go as duplicates next cycle */
                continue;
            }
            if (every) {
                if (queue_requeue (d->db, l->id, "dispatching",
                                   "dispatch interrupted and no cluster has "
                                   "the job; queued again",
                                   false, &ok, &e)
                    < 0) {
                    free (subs);
                    return -1;
                }
                d->requeued += ok;
                if (ok)
                    daemon_log (LOG_NOTICE,
                                "job %" PRId64 ": interrupted "
                                "dispatch, on no cluster: queued again",
                                l->id);
            }
            free (subs);
            continue;
        }
        /* submitted, running, cancelled: live tagged jobs nobody knows */
        for (size_t k = a; k < b; k++) {
            const tagged_t *t = &tags[k];
            const char *cname = d->cl[t->cl].conf->name;
            if (ms_job_state_final (t->j->state)
                || sub_known (subs, nsubs, cname, t->j->id, NULL))
                continue;
            if (d->set.dispatch_mode == DISPATCH_SIBLINGS
                && !strcmp (l->state, "submitted")) {
                /* a sibling whose record was lost: keep it, record it */
                queue_sub_new_t s = { cname, t->j->partition,
                                      t->j->cpu_freq_max_khz, t->j->id, 1 };
                queue_sub_record (d->db, l->id, &s, "submitted", &e);
                continue;
            }
            cancel_on (d, t->cl, t->j->id, l->id, "duplicate");
            {
                queue_sub_new_t s = { cname, t->j->partition,
                                      t->j->cpu_freq_max_khz, t->j->id, 9 };
                queue_sub_record (d->db, l->id, &s, "cancelled", &e);
            }
            d->dup_cancelled++;
        }
        free (subs);
    }
    return 0;
}

static const queue_live_t *
find_live (const queue_live_t *live, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (live[mid].id == id)
            return &live[mid];
        if (live[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Follow every recorded submission on its cluster. */
/* Pending reasons by which slurmctld says it will never start the job
 * where it is: its request breaks the partition's configuration or
 * limits, or names an account or QOS that does not exist there. */
static bool
never_starts (const char *reason)
{
    static const char *const r[] = {
        "PartitionConfig", "BadConstraints", "PartitionTimeLimit",
        "InvalidAccount",  "InvalidQOS",
    };
    for (size_t i = 0; i < sizeof (r) / sizeof (r[0]); i++)
        if (!strcmp (reason, r[i]))
            return true;
    return false;
}

/* Slurm took the job but holds it pending for good (never_starts):
 * slurmctld 22.05 refuses such a job at submission, later releases take
 * it through slurmrestd and keep it pending. Both are refusals: the copy
 * is cancelled and the job queued again, or, refused at MAX_REFUSED
 * dispatches, cancelled with the reason. */
static int
refused_pending (ms_daemon_t *d, size_t ci, const queue_live_t *l,
                 const queue_sub_t *s, const ms_job_info_t *cj)
{
    char why[400];
    ms_error_t e;
    bool ok;

    snprintf (why, sizeof (why),
              "%s took job %" PRIu64 " but holds it pending for good: %s",
              s->cluster, s->cluster_job_id, cj->state_reason);
    cancel_on (d, ci, s->cluster_job_id, l->id, why);
    if (queue_sub_state (d->db, s->cluster, s->cluster_job_id, "cancelled",
                         &e)
        < 0)
        goto fail;
    if (l->attempts >= MAX_REFUSED) {
        if (cancel_refused (d, l->id, "submitted", l->attempts, why, &e) < 0)
            goto fail;
        return 0;
    }
    if (queue_requeue (d->db, l->id, "submitted", why, false, &ok, &e) < 0)
        goto fail;
    d->requeued++;
    daemon_log (LOG_NOTICE, "job %" PRId64 ": %s; queued again", l->id, why);
    return 0;
fail:
    daemon_log (LOG_ERR, "job %" PRId64 ": %s", l->id, e.text);
    return -1;
}

static int
follow (ms_daemon_t *d, const queue_live_t *live, size_t nlive)
{
    queue_sub_t *subs = NULL;
    size_t n = 0;
    ms_error_t e;
    bool ok;
    int rc = 0;

    if (queue_live_subs (d->db, &subs, &n, &e) < 0) {
        daemon_log (LOG_ERR, "reading submissions: %s", e.text);
        return -1;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const queue_sub_t *s = &subs[i];
        const queue_live_t *l = find_live (live, nlive, s->job_id);
        long ci = cluster_index (d, s->cluster);
        const ms_job_info_t *cj;
        bool main_sub, claimed_other;

        if (ci < 0)
            continue;
        if (!d->cl[ci].fresh) {
            /* a cancel through the API need not wait for a fresh reading:
             * cancel the cluster job the last reading shows live (once),
             * and record the submission on a fresh one */
            cj = cluster_job (&d->cl[ci], s->cluster_job_id);
            if (l && !strcmp (l->state, "cancelled") && d->cl[ci].up && cj
                && !ms_job_state_final (cj->state)) {
                cancel_on (d, (size_t)ci, s->cluster_job_id, s->job_id,
                           "the job was cancelled");
                pthread_mutex_lock (&d->mu);
                ((ms_job_info_t *)cj)->state = MS_JOB_CANCELLED; /* asked */
                pthread_mutex_unlock (&d->mu);
            }
            continue;
        }
        cj = cluster_job (&d->cl[ci], s->cluster_job_id);
        main_sub = l && !strcmp (l->cluster, s->cluster)
                   && l->cluster_job_id == s->cluster_job_id;
        claimed_other = l && l->claimed_cluster[0]
                        && (strcmp (l->claimed_cluster, s->cluster)
                            || l->claimed_job_id != s->cluster_job_id);
        /* once a copy has claimed the job (the start gate), every other
         * copy lost, the row's first choice included */
        if (!l || !strcmp (l->state, "cancelled") || claimed_other
            || (!strcmp (l->state, "running") && !main_sub
                && !l->claimed_cluster[0])) {
            /* the meta job ended, was cancelled, or another sibling won */
            if (cj && !ms_job_state_final (cj->state))
                cancel_on (d, (size_t)ci, s->cluster_job_id, s->job_id,
                           l && !strcmp (l->state, "cancelled")
                               ? "the job was cancelled"
                               : "another submission runs the job");
            rc = queue_sub_state (d->db, s->cluster, s->cluster_job_id,
                                  cj && cj->state != MS_JOB_CANCELLED
                                          && ms_job_state_final (cj->state)
                                      ? "ended"
                                      : "cancelled",
                                  &e);
            continue;
        }
        if (!cj) {
            if (s->age_s < LOST_AFTER_S)
                continue;
            rc = queue_sub_state (d->db, s->cluster, s->cluster_job_id, "lost",
                                  &e);
            if (rc == 0 && main_sub) {
                if (!strcmp (l->state, "submitted"))
                    rc = queue_finished (d->db, l->id, "lost", -1,
                                         "the cluster no longer knows the job",
                                         &ok, &e);
                else
                    rc = queue_finished (d->db, l->id, "failed", -1,
                                         "the cluster no longer knows the job",
                                         &ok, &e);
            }
            continue;
        }
        switch (cj->state) {
        case MS_JOB_PENDING:
            if (main_sub && !strcmp (l->state, "submitted")
                && !l->claimed_cluster[0]
                && d->set.dispatch_mode == DISPATCH_SINGLE
                && never_starts (cj->state_reason))
                rc = refused_pending (d, (size_t)ci, l, s, cj);
            break;
        case MS_JOB_RUNNING:
        case MS_JOB_SUSPENDED:
        case MS_JOB_COMPLETING:
            if (strcmp (s->state, "running"))
                rc = queue_sub_state (d->db, s->cluster, s->cluster_job_id,
                                      "running", &e);
            if (rc == 0
                && (!strcmp (l->state, "submitted")
                    || (!main_sub && l->claimed_cluster[0]))) {
                /* the first seen running, or the copy that claimed the
                 * job (it replaces a loser seen running first): the
                 * winner; its siblings go next cycle */
                rc = queue_running (d->db, l->id, s->cluster, s->partition,
                                    s->cluster_job_id, &ok, &e);
            }
            break;
        default: {
            /* final */
            const char *to = NULL, *why = NULL;
            char reason[400];
            rc = queue_sub_state (
                d->db, s->cluster, s->cluster_job_id,
                cj->state == MS_JOB_CANCELLED ? "cancelled" : "ended", &e);
            /* the outcome is the claimed copy's where one claimed (the
             * others were skipped above), else the row's own */
            if (rc < 0
                || !(main_sub || l->claimed_cluster[0]
                     || (!strcmp (l->state, "submitted")
                         && cj->state != MS_JOB_CANCELLED)))
                break;
            if (cj->state == MS_JOB_COMPLETED)
                to = "completed";
            else if (cj->state == MS_JOB_CANCELLED) {
                rc = queue_cancel (d->db, l->id, l->state,
                                   "cancelled on the cluster", &ok, &e);
                break;
            } else {
                to = "failed";
                snprintf (reason, sizeof (reason), "%s on %s: %s",
                          cj->state_name, s->cluster, cj->state_reason);
                why = reason;
            }
            if (!main_sub
                && (rc = queue_running (d->db, l->id, s->cluster, s->partition,
                                        s->cluster_job_id, &ok, &e))
                       < 0)
                break;
            rc = queue_finished (d->db, l->id, to, cj->exit_code, why, &ok, &e);
            break;
        }
        }
    }
    if (rc < 0)
        daemon_log (LOG_ERR, "following jobs: %s", e.text);
    free (subs);
    return rc;
}

/* Re-route (DESIGN.md 5): a job still pending after reroute_after_s, when
 * another partition's predicted start is much earlier, is cancelled and
 * queued again (submitted -> queued), at most max_reroutes times. */
static int
reroute (ms_daemon_t *d, const queue_live_t *live, size_t nlive)
{
    ms_error_t e;
    bool ok;

    if (d->set.reroute_after_s <= 0 || d->set.dispatch_mode != DISPATCH_SINGLE)
        return 0;
    for (size_t i = 0; i < nlive; i++) {
        const queue_live_t *l = &live[i];
        long ci, cur;
        const ms_job_info_t *cj;
        jobkey_t k;
        ms_decision_t dec;
        double wcur, wnew;
        size_t best;

        if (strcmp (l->state, "submitted") || l->reroutes >= d->set.max_reroutes
            || !l->cluster[0])
            continue;
        ci = cluster_index (d, l->cluster);
        if (ci < 0 || !d->cl[ci].fresh
            || !(cj = cluster_job (&d->cl[ci], l->cluster_job_id))
            || cj->state != MS_JOB_PENDING || cj->submit_time <= 0
            || wall () - (double)cj->submit_time < d->set.reroute_after_s)
            continue;
        cur = part_index (d, l->cluster, l->partition);
        if (cur < 0)
            continue;
        pthread_mutex_lock (&d->mu);
        if (job_key (d, l->app, l->nodes, 0, NULL, &k) < 0) {
            pthread_mutex_unlock (&d->mu);
            continue;
        }
        decide (d, &k, false, &dec);
        if (dec.n == 0) {
            pthread_mutex_unlock (&d->mu);
            continue;
        }
        best = d->cs.c[dec.c[0].cand].part;
        wnew = d->cs.c[dec.c[0].cand].w;
        wcur = view_predicted_wait (d->view, (size_t)cur, k.nodes, wall ());
        pthread_mutex_unlock (&d->mu);
        if ((long)best == cur || !(wnew < d->pol.reroute_gain * wcur))
            continue;
        int crc = backend_cancel (d->cl[ci].b, l->cluster_job_id, &e);
        d->cl[ci].last_action = mono ();
        if (crc < 0) {
            daemon_log (LOG_WARNING, "re-route of job %" PRId64 ": %s", l->id,
                        e.text);
            continue;
        }
        if (queue_sub_state (d->db, l->cluster, l->cluster_job_id, "cancelled",
                             &e)
                < 0
            || queue_requeue (d->db, l->id, "submitted",
                              "re-routed: another partition starts it sooner",
                              true, &ok, &e)
                   < 0) {
            daemon_log (LOG_ERR, "re-route of job %" PRId64 ": %s", l->id,
                        e.text);
            return -1;
        }
        d->reroutes++;
        daemon_log (LOG_INFO,
                    "job %" PRId64 ": re-routed from %s/%s "
                    "(predicted wait %.0f s there, %.0f s elsewhere)",
                    l->id, l->cluster, l->partition, wcur, wnew);
    }
    return 0;
}

/* ---- the cycle ---- */

static void
load_settings (ms_daemon_t *d)
{
    ms_settings_t s;
    char ignored[512] = "";
    ms_error_t e;

    settings_init (&s);
    if (settings_load (d->db, &s, ignored, sizeof (ignored), &e) < 0) {
        daemon_log (LOG_WARNING, "settings: %s (keeping the last ones)",
                    e.text);
        return;
    }
    pthread_mutex_lock (&d->mu);
    d->set = s;
    settings_apply_policy (&s, &d->pol);
    settings_apply_site (&s, d->site, NULL);
    if (s.dispatch_mode == DISPATCH_SIBLINGS)
        d->pol.sibling_slack = INFINITY; /* the top k, whatever their score */
    pthread_mutex_unlock (&d->mu);
}

static int
cycle (ms_daemon_t *d)
{
    queue_live_t *live = NULL;
    tagged_t *tags = NULL;
    size_t nlive = 0, ntags = 0;
    double t0 = mono (), refit_s;
    ms_error_t e;
    int rc = 0;

    load_settings (d);
    if (!d->tab || mono () - d->last_pred_load > 600) {
        if (load_predictor (d, &e) < 0) {
            daemon_log (LOG_ERR, "%s", e.text);
            if (!d->tab)
                return -1;
        }
    }
    if (d->refresher_on)
        take_readings (d);
    else {
        /* the first cycle reads the clusters itself: nothing is decided
         * on an empty view */
        refresh_clusters (d);
        for (size_t i = 0; i < d->ncl; i++)
            d->cl[i].have = d->cl[i].have || d->cl[i].fresh;
        if (d->cl[0].rb)
            refresher_start (d);
    }
    pthread_mutex_lock (&d->mu);
    rebuild_view (d);
    pthread_mutex_unlock (&d->mu);

    if (queue_live_jobs (d->db, &live, &nlive, &e) < 0) {
        daemon_log (LOG_ERR, "reading the queue: %s", e.text);
        return -1;
    }
    tags = collect_tags (d, &ntags);
    if (reconcile (d, live, nlive, tags, ntags) < 0)
        rc = -1;
    if (!d->reconciled && rc == 0 && all_fresh (d)) {
        daemon_log (LOG_NOTICE,
                    "reconciled %zu in-flight jobs with the "
                    "clusters",
                    nlive);
        d->reconciled = true;
    }
    if (rc == 0)
        rc = follow (d, live, nlive);
    if (rc == 0)
        rc = reroute (d, live, nlive);
    free (tags);
    free (live);
    if (rc == 0)
        rc = dispatch_queued (d);
    /* the setting, where an admin set one, else the configuration's
     * refit_s; 0 in both: never */
    refit_s = d->set.refit_interval_s > 0 ? d->set.refit_interval_s
                                          : d->dc->refit_s;
    if (rc == 0 && refit_s > 0 && mono () - d->last_refit > refit_s)
        refit (d);
    if (db_reconnects (d->db) != d->db_reconnects_seen) {
        /* a statement found the server gone and made the connection
         * again (db/db.c): say so, once */
        d->db_reconnects_seen = db_reconnects (d->db);
        daemon_log (LOG_WARNING,
                    "database connection lost and made again (%u times "
                    "since the start)",
                    d->db_reconnects_seen);
    }
    pthread_mutex_lock (&d->mu);
    d->cycles++;
    d->last_cycle_s = mono () - t0;
    pthread_mutex_unlock (&d->mu);
    return rc;
}

/* LISTEN on the cycle's connection (again after a reconnect). */
static void
listen_jobs (ms_daemon_t *d)
{
    ms_error_t e;
    if (d->listening && db_reconnects (d->db) == d->listen_reconnects
        && PQstatus (db_conn (d->db)) == CONNECTION_OK)
        return;
    d->listening = db_command (d->db, "listen", "LISTEN metasched_jobs", 0,
                               NULL, NULL, &e)
                   == 0;
    d->listen_reconnects = db_reconnects (d->db);
}

/* Wait up to timeout_s for a notification that asks for a cycle (a job
 * queued or cancelled), a kick, or the timeout. */
static void
wait_wake (ms_daemon_t *d, double timeout_s, volatile sig_atomic_t *stop,
           volatile sig_atomic_t *reload)
{
    double until = mono () + timeout_s;

    while (!*stop && !*reload) {
        struct pollfd pf[2];
        int nfd = 1, ms;
        double left = until - mono ();
        PGconn *c = db_conn (d->db);
        bool wake = false;

        if (left <= 0)
            return;
        ms = (int)(left * 1000) + 1;
        pf[0].fd = d->wake[0];
        pf[0].events = POLLIN;
        if (d->listening && PQstatus (c) == CONNECTION_OK
            && PQsocket (c) >= 0) {
            pf[1].fd = PQsocket (c);
            pf[1].events = POLLIN;
            nfd = 2;
        }
        if (poll (pf, (nfds_t)nfd, ms) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (pf[0].revents & POLLIN) {
            char buf[64];
            while (read (d->wake[0], buf, sizeof (buf)) > 0)
                ;
            wake = true;
        }
        if (nfd == 2 && (pf[1].revents & (POLLIN | POLLERR | POLLHUP))) {
            PGnotify *n;
            if (!PQconsumeInput (c)) {
                d->listening = false;
                return;
            }
            while ((n = PQnotifies (c))) {
                const char *sp = strchr (n->extra, ' ');
                if (sp
                    && (!strcmp (sp + 1, "queued")
                        || !strcmp (sp + 1, "cancelled")))
                    wake = true;
                PQfreemem (n);
            }
        }
        if (wake) {
            /* let a burst of submissions gather for a moment (a cycle
             * dispatches what arrives meanwhile in batches anyway) */
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep (&ts, NULL);
            return;
        }
    }
}

int
daemon_run (ms_daemon_t *d, volatile sig_atomic_t *stop,
            volatile sig_atomic_t *reload)
{
    double errwait = 0;

    while (!*stop && !*reload) {
        double wait_s;
        if (leadership (d)) {
            d->leader_checked = mono ();
            listen_jobs (d);
            if (cycle (d) < 0) {
                d->db_errors++;
                errwait = errwait > 0 ? errwait * 2 : 1;
                if (errwait > 30)
                    errwait = 30;
            } else
                errwait = 0;
            wait_s = errwait > 0 ? errwait : d->dc->cycle_s;
        } else
            wait_s = 1; /* a standby tries the lock every second */
        wait_wake (d, wait_s, stop, reload);
    }
    return 0;
}

void
daemon_kick (ms_daemon_t *d)
{
    char c = 1;
    ssize_t n = write (d->wake[1], &c, 1);
    (void)n;
}

/* ---- setup ---- */

int
daemon_new (const ms_dconf_t *dc, ms_daemon_t **dp, ms_error_t *errp)
{
    ms_daemon_t *d = ms_xcalloc (1, sizeof (*d));
    const ms_siteconf_t *s = dc->site;
    db_opts_t o
        = { .conninfo = dc->database,
            .password_file = dc->password_file[0] ? dc->password_file : NULL,
            .application_name = "metaschedd",
            .connect_timeout_s = 5,
            .retry_max_ms = 5000 };
    ms_error_t e;
    int version = 0;
    long tmo = 0;

    d->dc = dc;
    d->wake[0] = d->wake[1] = -1;
    pthread_mutex_init (&d->mu, NULL);
    pthread_mutex_init (&d->rmu, NULL);
    pthread_cond_init (&d->rcond, NULL);
    pthread_mutex_init (&d->wmu, NULL);
    pthread_cond_init (&d->wcond, NULL);
    settings_init (&d->set);
    policy_init (&d->pol, POL_METASCHED);
    if (pipe2 (d->wake, O_NONBLOCK | O_CLOEXEC) < 0) {
        ms_err (errp, MS_ERR_SYSTEM, "pipe: %s", strerror (errno));
        goto fail;
    }
    /* a private copy of the site: settings change its power caps */
    if (clusterconf_load (s->path, &d->site, &e) < 0) {
        ms_err (errp, e.kind, "%s", e.text);
        goto fail;
    }
    if (db_open (&o, &d->db, &e) < 0) {
        ms_err (errp, e.kind, "%s:%d: database: %s", dc->path,
                dc->database_line, e.text);
        goto fail;
    }
    if (db_schema_version (d->db, &version, &e) < 0) {
        ms_err (errp, e.kind, "%s:%d: database: %s", dc->path,
                dc->database_line, e.text);
        goto fail;
    }
    if (version < db_schema_latest ()) {
        ms_err (errp, MS_ERR_INPUT,
                "%s:%d: database: schema version %d, this program needs %d: "
                "run 'metasched db migrate' first",
                dc->path, dc->database_line, version, db_schema_latest ());
        goto fail;
    }
    if (db_sync_site (d->db, d->site, NULL, &e) < 0) {
        ms_err (errp, e.kind, "%s: storing the clusters: %s", s->path, e.text);
        goto fail;
    }
    d->ncl = d->site->nclusters;
    d->cl = ms_xcalloc (d->ncl + 1, sizeof (*d->cl));
    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        c->conf = &d->site->clusters[i];
        if (c->conf->timeout_ms > tmo)
            tmo = c->conf->timeout_ms;
        if (slurmrest_from_conf (c->conf, &c->b, &e) < 0) {
            ms_err (errp, e.kind, "%s:%d: [cluster %s]: %s", s->path,
                    c->conf->line, c->conf->name, e.text);
            goto fail;
        }
        if (slurmrest_from_conf (c->conf, &c->rb, &e) < 0) {
            ms_err (errp, e.kind, "%s:%d: [cluster %s]: %s", s->path,
                    c->conf->line, c->conf->name, e.text);
            goto fail;
        }
        if (backend_ping (c->b, &e) < 0 || slurmrest_negotiate (c->rb, &e) < 0) {
            ms_err (errp, e.kind, "%s:%d: [cluster %s]: %s is unreachable: %s",
                    s->path, c->conf->line, c->conf->name, c->conf->url,
                    e.text);
            goto fail;
        }
        ms_strlcpy (c->api_version, slurmrest_version (c->b),
                    sizeof (c->api_version));
        daemon_log (LOG_INFO, "cluster %s: slurmrestd at %s, OpenAPI %s (%s)",
                    c->conf->name, c->conf->url, c->api_version,
                    slurmrest_version_source (c->b));
        c->up = true;
    }
    d->grace_s = tmo / 1000.0 + 5;
    if (d->grace_s < dc->cycle_s)
        d->grace_s = dc->cycle_s;
    d->last_refit = mono ();
    *dp = d;
    return 0;
fail:
    daemon_free (d);
    return -1;
}

void
daemon_free (ms_daemon_t *d)
{
    if (!d)
        return;
    if (d->refresher_on) {
        pthread_mutex_lock (&d->rmu);
        d->refresher_stop = true;
        pthread_cond_broadcast (&d->rcond);
        pthread_mutex_unlock (&d->rmu);
        pthread_join (d->refresher, NULL);
    }
    for (size_t i = 0; i < d->ncl; i++) {
        backend_destroy (d->cl[i].b);
        backend_destroy (d->cl[i].rb);
        free (d->cl[i].st_parts);
        free (d->cl[i].st_jobs);
        free (d->cl[i].boost);
        free (d->cl[i].parts);
        free (d->cl[i].jobs);
    }
    free (d->cl);
    db_close (d->lockdb);
    db_close (d->db);
    predtab_free (d->tab);
    predictor_free (d->pred);
    view_free (d->view);
    candidates_free (&d->cs);
    clusterconf_free (d->site);
    if (d->wake[0] >= 0)
        close (d->wake[0]);
    if (d->wake[1] >= 0)
        close (d->wake[1]);
    pthread_mutex_destroy (&d->mu);
    pthread_mutex_destroy (&d->rmu);
    pthread_cond_destroy (&d->rcond);
    pthread_mutex_destroy (&d->wmu);
    pthread_cond_destroy (&d->wcond);
    free (d->late);
    free (d);
}

/* ---- the API's hooks (called from the API thread) ---- */

static int
hook_whatif (void *ctx, const ms_apireq_t *req, uid_t uid, json_t **out,
             ms_error_t *errp)
{
    ms_daemon_t *d = ctx;
    jobkey_t k;
    ms_decision_t dec;
    json_t *o, *cands;

    (void)uid;
    pthread_mutex_lock (&d->mu);
    if (!d->tab || !d->view) {
        pthread_mutex_unlock (&d->mu);
        ms_err (errp, MS_ERR_MISSING,
                "this instance has no predictions yet (standby or starting)");
        errp->http_status = 503;
        return -1;
    }
    if (job_key (d, req->app, req->nodes, req->time_limit_min, req->partition,
                 &k)
        < 0) {
        pthread_mutex_unlock (&d->mu);
        ms_err (errp, MS_ERR_INPUT,
                "no configured partition can run this job (nodes %d%s%s)",
                req->nodes, req->partition[0] ? ", partition " : "",
                req->partition);
        errp->http_status = 400;
        return -1;
    }
    /* a private candidate list: the cycle's is d->cs */
    {
        ms_cands_t save = d->cs;
        char *text;
        memset (&d->cs, 0, sizeof (d->cs));
        decide (d, &k, false, &dec);
        /* the same JSON as the decision rows hold */
        text = candidates_json (d, &d->cs, &dec, NULL);
        cands = json_loads (text, 0, NULL);
        free (text);
        o = cands ? json_pack ("{s:s, s:s, s:o}", "policy", d->pol.label,
                               "app", req->app[0] ? req->app : UNKNOWN_APP,
                               "candidates", cands)
                  : NULL;
        candidates_free (&d->cs);
        d->cs = save;
    }
    pthread_mutex_unlock (&d->mu);
    if (!o) {
        ms_err (errp, MS_ERR_SYSTEM, "could not encode the candidates");
        errp->http_status = 500;
        return -1;
    }
    *out = o;
    return 0;
}

static int
hook_clusters (void *ctx, json_t **out, ms_error_t *errp)
{
    ms_daemon_t *d = ctx;
    json_t *a = json_array ();

    (void)errp;
    pthread_mutex_lock (&d->mu);
    for (size_t i = 0; i < d->ncl; i++) {
        const cluster_t *c = &d->cl[i];
        json_t *parts = json_array ();
        for (size_t p = 0; p < d->site->nparts; p++) {
            const ms_partconf_t *pc = &d->site->parts[p];
            json_t *po;
            if (pc->cluster != i)
                continue;
            po = json_pack ("{s:s, s:s, s:i, s:I}", "name", pc->name,
                            "architecture", d->site->archs[pc->arch].name,
                            "nodes", pc->nodes, "nominal_khz",
                            (json_int_t)d->site->archs[pc->arch].nominal_khz);
            for (size_t k = 0; k < c->nparts; k++)
                if (!strcmp (c->parts[k].name, pc->name)) {
                    json_object_set_new (po, "up",
                                         json_boolean (c->parts[k].up));
                    json_object_set_new (po, "nodes_idle",
                                         json_integer (c->parts[k].nodes_idle));
                    json_object_set_new (
                        po, "pending_jobs",
                        json_integer (c->parts[k].pending_jobs));
                    json_object_set_new (
                        po, "running_jobs",
                        json_integer (c->parts[k].running_jobs));
                }
            json_array_append_new (parts, po);
        }
        json_array_append_new (
            a, json_pack ("{s:s, s:b, s:s, s:s, s:s, s:o}", "name",
                          c->conf->name, "reachable", c->up, "api_version",
                          c->api_version, "api_version_source",
                          c->conf->api_version[0] ? "pinned" : "negotiated",
                          "last_error", c->last_error, "partitions", parts));
    }
    pthread_mutex_unlock (&d->mu);
    *out = json_pack ("{s:o, s:b}", "clusters", a, "leader", d->leader);
    return 0;
}

static int
hook_metrics (void *ctx, char **textp, ms_error_t *errp)
{
    ms_daemon_t *d = ctx;
    size_t cap = 4096, len = 0;
    char *buf = ms_xmalloc (cap);

    (void)errp;
#define P(...)                                                                 \
    do {                                                                       \
        int n_ = snprintf (buf + len, cap - len, __VA_ARGS__);                 \
        if (n_ > 0 && (size_t)n_ >= cap - len) {                               \
            cap = (len + (size_t)n_ + 1) * 2;                                  \
            buf = ms_xrealloc (buf, cap);                                      \
            n_ = snprintf (buf + len, cap - len, __VA_ARGS__);                 \
        }                                                                      \
        if (n_ > 0)                                                            \
            len += (size_t)n_;                                                 \
    } while (0)
    pthread_mutex_lock (&d->mu);
    P ("# TYPE metaschedd_leader gauge\nmetaschedd_leader %d\n", d->leader);
    P ("# TYPE metaschedd_cycles_total counter\nmetaschedd_cycles_total "
       "%" PRIu64 "\n",
       d->cycles);
    P ("# TYPE metaschedd_cycle_seconds gauge\nmetaschedd_cycle_seconds "
       "%.6f\n",
       d->last_cycle_s);
    P ("# TYPE metaschedd_decisions_total counter\n"
       "metaschedd_decisions_total %" PRIu64 "\n",
       d->decisions);
    P ("# TYPE metaschedd_decide_seconds_total counter\n"
       "metaschedd_decide_seconds_total %.6f\n",
       d->decide_s);
    P ("# TYPE metaschedd_dispatch_batches_total counter\n"
       "metaschedd_dispatch_batches_total %" PRIu64 "\n",
       d->batches);
    P ("# TYPE metaschedd_dispatch_seconds_total counter\n"
       "metaschedd_dispatch_seconds_total{phase=\"commit\"} %.6f\n"
       "metaschedd_dispatch_seconds_total{phase=\"submit\"} %.6f\n"
       "metaschedd_dispatch_seconds_total{phase=\"record\"} %.6f\n",
       d->commit_s, d->submit_s, d->record_s);
    P ("# TYPE metaschedd_dispatched_total counter\n"
       "metaschedd_dispatched_total %" PRIu64 "\n",
       d->dispatched);
    P ("# TYPE metaschedd_requeued_total counter\n"
       "metaschedd_requeued_total %" PRIu64 "\n",
       d->requeued);
    P ("# TYPE metaschedd_adopted_total counter\n"
       "metaschedd_adopted_total %" PRIu64 "\n",
       d->adopted);
    P ("# TYPE metaschedd_duplicates_cancelled_total counter\n"
       "metaschedd_duplicates_cancelled_total %" PRIu64 "\n",
       d->dup_cancelled);
    P ("# TYPE metaschedd_reroutes_total counter\n"
       "metaschedd_reroutes_total %" PRIu64 "\n",
       d->reroutes);
    P ("# TYPE metaschedd_priority_boosts_total counter\n"
       "metaschedd_priority_boosts_total %" PRIu64 "\n",
       d->boosts);
    P ("# TYPE metaschedd_cycle_errors_total counter\n"
       "metaschedd_cycle_errors_total %" PRIu64 "\n",
       d->db_errors);
    P ("# TYPE metaschedd_cluster_up gauge\n");
    for (size_t i = 0; i < d->ncl; i++)
        P ("metaschedd_cluster_up{cluster=\"%s\"} %d\n", d->cl[i].conf->name,
           d->cl[i].up);
    P ("# TYPE metaschedd_cluster_attempts_total counter\n");
    for (size_t i = 0; i < d->ncl; i++)
        P ("metaschedd_cluster_attempts_total{cluster=\"%s\"} %" PRIu64 "\n",
           d->cl[i].conf->name, d->cl[i].attempts);
    P ("# TYPE metaschedd_cluster_failures_total counter\n");
    for (size_t i = 0; i < d->ncl; i++)
        P ("metaschedd_cluster_failures_total{cluster=\"%s\"} %" PRIu64 "\n",
           d->cl[i].conf->name, d->cl[i].failures);
    P ("# TYPE metaschedd_cluster_submits_total counter\n");
    for (size_t i = 0; i < d->ncl; i++)
        P ("metaschedd_cluster_submits_total{cluster=\"%s\"} %" PRIu64 "\n",
           d->cl[i].conf->name, d->cl[i].submits);
    P ("# TYPE metaschedd_cluster_submit_seconds_total counter\n");
    for (size_t i = 0; i < d->ncl; i++)
        P ("metaschedd_cluster_submit_seconds_total{cluster=\"%s\"} %.6f\n",
           d->cl[i].conf->name, d->cl[i].submit_s);
    pthread_mutex_unlock (&d->mu);
    P ("# TYPE metaschedd_cluster_readings_unchanged_total counter\n");
    pthread_mutex_lock (&d->rmu);
    for (size_t i = 0; i < d->ncl; i++)
        P ("metaschedd_cluster_readings_unchanged_total{cluster=\"%s\"} "
           "%" PRIu64 "\n",
           d->cl[i].conf->name, d->cl[i].unchanged);
    pthread_mutex_unlock (&d->rmu);
#undef P
    *textp = buf;
    return 0;
}

static void
hook_kick (void *ctx)
{
    daemon_kick (ctx);
}

static const ms_api_hooks_t hooks = {
    .whatif = hook_whatif,
    .clusters = hook_clusters,
    .metrics = hook_metrics,
    .kick = hook_kick,
};

const ms_api_hooks_t *
daemon_api_hooks (void)
{
    return &hooks;
}
