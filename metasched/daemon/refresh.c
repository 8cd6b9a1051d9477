/* refresh.c - reading the clusters: the refresher thread and its
 * readings taken by the cycle, backoff of an unreachable cluster, lookups
 * in the cluster state (jobs, clusters and partitions by name), and
 * the view the policies see, rebuilt from the readings.
 */
#define _GNU_SOURCE
#include "config.h"

#include <signal.h>

#include "metasched/daemon/daemon_int.h"
#include "partitions/slurmrest.h"

#define BACKOFF_MAX_S 60.0
/* The refresher yields to dispatch: it does not read any cluster while a
 * cycle dispatches, nor one that took a submit in the last REFRESH_YIELD_S
 * (slurmctld packs its whole job list under the job lock, which stalls
 * submits meanwhile, and slurmrestd turns it into JSON on the same CPUs),
 * unless its last reading is older than REFRESH_MAX_AGE_S. */
#define REFRESH_YIELD_S 0.5
#define REFRESH_MAX_AGE_S 30.0

/* ---- clusters ---- */

const ms_job_info_t *
cluster_find_job (const cluster_t *c, uint64_t id)
{
    ms_job_info_t key = { 0 };
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

void
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
    pthread_mutex_lock (&d->ds.mu);
    c->up = false;
    c->fresh = false;
    pthread_mutex_unlock (&d->ds.mu);
}

/* Install a reading of cluster c (its partitions and jobs, which the
 * cluster now owns) and mark it reachable; fresh: the reading began after
 * the daemon's last submit or cancel there. */
static void
cluster_take (ms_daemon_t *d, cluster_t *c, ms_partition_state_t *parts,
              size_t np, ms_job_info_t *jobs, size_t nj, bool fresh,
              const char *api)
{
    if (!c->up)
        daemon_log (LOG_NOTICE, "cluster %s reachable %s", c->conf->name,
                    c->have || c->api_version[0] ? "again"
                                                 : "(down since the start)");
    if (api[0] && strcmp (api, c->api_version))
        daemon_log (LOG_NOTICE,
                    "cluster %s: slurmrestd now speaks OpenAPI %s "
                    "(was %s)",
                    c->conf->name, api,
                    c->api_version[0] ? c->api_version : "none");
    /* the limits clusters.conf sets over what the cluster reports */
    for (size_t k = 0; k < np; k++) {
        const ms_partconf_t *pc
            = clusterconf_partition (d->site, c->conf->name, parts[k].name);
        if (pc)
            ms_partition_apply_conf (&parts[k], &pc->limits, pc->nodes);
    }
    pthread_mutex_lock (&d->ds.mu);
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
    pthread_mutex_unlock (&d->ds.mu);
}

/* Install a reading of c's accounting (taken over), or note its failure:
 * the last good reading stays. */
static void
acct_take (ms_daemon_t *d, cluster_t *c, ms_accounting_t *a, bool failed,
           const ms_error_t *e)
{
    pthread_mutex_lock (&d->ds.mu);
    if (failed) {
        if (strcmp (c->acct_error, e->text))
            daemon_log (LOG_WARNING, "cluster %s: accounting not read: %s",
                        c->conf->name, e->text);
        ms_strlcpy (c->acct_error, e->text, sizeof (c->acct_error));
    } else {
        if (!c->acct_read || c->acct.enabled != a->enabled)
            daemon_log (LOG_NOTICE, "cluster %s: %s", c->conf->name,
                        a->enabled ? "accounting (slurmdbd): associations and "
                                     "QOS are checked"
                                   : "no accounting (slurmdbd) to check");
        ms_accounting_free (&c->acct);
        c->acct = *a;
        memset (a, 0, sizeof (*a));
        c->acct_read = true;
        c->acct_error[0] = '\0';
    }
    pthread_mutex_unlock (&d->ds.mu);
}

/* Partitions and jobs of every cluster not in backoff. */
void
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
        cluster_take (d, c, parts, np, jobs, nj, true,
                      slurmrest_version (c->b));
        if (c->conf->accounting
            && (!c->acct_read || now - c->rd.acct_at >= ACCT_REFRESH_S)) {
            ms_accounting_t a;
            bool failed = backend_accounting (c->b, &a, &e) < 0;
            c->rd.acct_at = now;
            acct_take (d, c, &a, failed, &e);
            ms_accounting_free (&a);
        }
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

    pthread_mutex_lock (&d->rf.mu);
    while (!d->rf.stop) {
        struct timespec ts;
        double pause = d->dc->cycle_s > 0 ? d->dc->cycle_s : 1;

        for (size_t i = 0; i < d->ncl && !d->rf.stop; i++) {
            cluster_t *c = &d->cl[i];
            ms_partition_state_t *parts = NULL;
            ms_job_info_t *jobs = NULL;
            size_t np = 0, nj = 0;
            ms_error_t e;
            double started = mono ();
            bool failed;

            if (started < retry[i])
                continue;
            if ((d->rf.dispatch_busy
                 || started - c->rd.submitted_at < REFRESH_YIELD_S)
                && started - read_at[i] < REFRESH_MAX_AGE_S)
                continue; /* dispatch is under way there: later */
            read_at[i] = started;
            pthread_mutex_unlock (&d->rf.mu);
            failed = backend_partitions (c->rd.b, &parts, &np, &e) < 0
                     || backend_jobs (c->rd.b, &jobs, &nj, &e) < 0;
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
                apply_boosts (d, c, c->rd.b, jobs, nj);
            }
            /* the accounting, every ACCT_REFRESH_S */
            ms_accounting_t acct;
            ms_error_t ae = { 0 };
            bool acct_new = false, acct_failed = false;
            memset (&acct, 0, sizeof (acct));
            if (!failed && c->conf->accounting
                && (c->rd.acct_at == 0
                    || mono () - c->rd.acct_at >= ACCT_REFRESH_S)) {
                acct_failed = backend_accounting (c->rd.b, &acct, &ae) < 0;
                acct_new = true;
                c->rd.acct_at = mono ();
            }
            pthread_mutex_lock (&d->rf.mu);
            if (acct_new) {
                ms_accounting_free (&c->rd.acct);
                c->rd.acct = acct;
                c->rd.acct_failed = acct_failed;
                if (acct_failed)
                    c->rd.acct_err = ae;
                c->rd.acct_new = true;
            }
            free (c->rd.parts);
            free (c->rd.jobs);
            c->rd.parts = parts;
            c->rd.nparts = np;
            c->rd.jobs = jobs;
            c->rd.njobs = nj;
            c->rd.failed = failed;
            if (failed)
                c->rd.err = e;
            c->rd.started = started;
            c->rd.is_new = true;
            c->rd.unchanged = slurmrest_jobs_unchanged (c->rd.b);
            ms_strlcpy (c->rd.api, slurmrest_version (c->rd.b),
                        sizeof (c->rd.api));
        }
        if (d->rf.stop)
            break;
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_sec += (time_t)pause;
        ts.tv_nsec += (long)((pause - (double)(time_t)pause) * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait (&d->rf.cond, &d->rf.mu, &ts);
    }
    pthread_mutex_unlock (&d->rf.mu);
    free (retry);
    free (back);
    free (read_at);
    return NULL;
}

/* Take the refresher's latest readings. A cluster is fresh in this cycle
 * only if its reading began after the cycle's last submit or cancel there,
 * so that it shows every job the daemon submitted or cancelled
 * (reconciliation and following rely on it). */
void
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
        pthread_mutex_lock (&d->rf.mu);
        if (!c->rd.is_new) {
            pthread_mutex_unlock (&d->rf.mu);
            continue;
        }
        parts = c->rd.parts;
        np = c->rd.nparts;
        jobs = c->rd.jobs;
        nj = c->rd.njobs;
        failed = c->rd.failed;
        e = c->rd.err;
        started = c->rd.started;
        char api[sizeof (c->rd.api)];
        ms_strlcpy (api, c->rd.api, sizeof (api));
        c->rd.parts = NULL;
        c->rd.jobs = NULL;
        c->rd.is_new = false;
        ms_accounting_t acct = c->rd.acct;
        bool acct_new = c->rd.acct_new, acct_failed = c->rd.acct_failed;
        ms_error_t acct_err = c->rd.acct_err;
        memset (&c->rd.acct, 0, sizeof (c->rd.acct));
        c->rd.acct_new = false;
        pthread_mutex_unlock (&d->rf.mu);
        if (acct_new) {
            acct_take (d, c, &acct, acct_failed, &acct_err);
            ms_accounting_free (&acct);
        }

        c->attempts++;
        if (failed) {
            cluster_failed (d, c, &e);
            continue;
        }
        cluster_take (d, c, parts, np, jobs, nj, started > c->last_action, api);
    }
}

void
refresher_start (ms_daemon_t *d)
{
    sigset_t all, old;

    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all,
                     &old); /* signals go to the main thread */
    d->rf.on = pthread_create (&d->rf.th, NULL, refresher_main, d) == 0;
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    if (!d->rf.on)
        daemon_log (LOG_WARNING, "cannot start the cluster refresher: the "
                                 "cycle reads the clusters itself");
}

void
refresher_stop (ms_daemon_t *d)
{
    if (!d->rf.on)
        return;
    pthread_mutex_lock (&d->rf.mu);
    d->rf.stop = true;
    pthread_cond_broadcast (&d->rf.cond);
    pthread_mutex_unlock (&d->rf.mu);
    pthread_join (d->rf.th, NULL);
    d->rf.on = false;
}

bool
all_fresh (const ms_daemon_t *d)
{
    for (size_t i = 0; i < d->ncl; i++)
        if (!d->cl[i].fresh)
            return false;
    return true;
}

long
cluster_index (const ms_daemon_t *d, const char *name)
{
    for (size_t i = 0; i < d->ncl; i++)
        if (!strcmp (d->cl[i].conf->name, name))
            return (long)i;
    return -1;
}

long
part_index (const ms_daemon_t *d, const char *cluster, const char *part)
{
    const ms_partconf_t *p = clusterconf_partition (d->site, cluster, part);
    return p ? (long)(p - d->site->parts) : -1;
}

/* The predicted end of a cluster job that holds its nodes (running,
 * completing or suspended): its end time, at most its limit (an hour
 * without one) from now, at least a minute ahead; -1 for any other job. */
static double
held_until (const ms_job_info_t *j, double now)
{
    double lim = j->time_limit_min > 0 ? j->time_limit_min * 60.0 : 3600.0;
    double end;

    if (j->state != MS_JOB_RUNNING && j->state != MS_JOB_COMPLETING
        && j->state != MS_JOB_SUSPENDED)
        return -1;
    end = j->end_time > (time_t)now ? (double)j->end_time : now + 60;
    return end > now + lim ? now + lim : end;
}

/* Partitions that share nodes (Slurm's overlapping partitions: short and
 * long on the same nodes): a job running on one holds nodes of the
 * others, which their own jobs do not show. The nodes the cluster
 * reports in use on a partition (neither idle nor down) beyond those its
 * own running jobs hold count as held until the last predicted end of
 * the cluster's running jobs, so that a partition whose nodes another
 * partition's job holds does not look free. */
static void
held_elsewhere (ms_daemon_t *d, const cluster_t *c, double now)
{
    double last = now + 60;

    for (size_t k = 0; k < c->njobs; k++) {
        double end = held_until (&c->jobs[k], now);
        if (end > last)
            last = end;
    }
    for (size_t k = 0; k < c->nparts; k++) {
        const ms_partition_state_t *ps = &c->parts[k];
        long p = part_index (d, c->conf->name, ps->name);
        int used, own, room;
        if (p < 0)
            continue;
        used = ps->nodes_total - ps->nodes_idle - ps->nodes_down;
        own = view_busy (d->ds.view, (size_t)p);
        room = d->site->parts[p].nodes - own;
        if (used - own > room)
            used = own + room;
        if (used > own)
            view_run_start (d->ds.view, (size_t)p, 0, used - own, last,
                            d->site->archs[d->site->parts[p].arch].idle_power_w
                                * 2);
    }
}

/* The view from what the clusters run and queue (doc/architecture.md
 * "Policies": W^ from running jobs' predicted ends and the queue). Caller holds
 * d->ds.mu. */
void
rebuild_view (ms_daemon_t *d)
{
    double now = wall ();

    view_free (d->ds.view);
    d->ds.view = view_new (d->site);
    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        for (size_t k = 0; k < c->njobs; k++) {
            const ms_job_info_t *j = &c->jobs[k];
            long p = part_index (d, c->conf->name, j->partition);
            int nodes = j->nodes > 0 ? j->nodes : 1;
            double lim
                = j->time_limit_min > 0 ? j->time_limit_min * 60.0 : 3600.0;
            double end = held_until (j, now);
            if (p < 0)
                continue;
            if (end >= 0)
                view_run_start (
                    d->ds.view, (size_t)p, j->id, nodes, end,
                    d->site->archs[d->site->parts[p].arch].idle_power_w * 2);
            else if (j->state == MS_JOB_PENDING)
                view_pending_add (
                    d->ds.view, (size_t)p, j->id, nodes, lim, j->nice,
                    (double)j->eligible_time > now ? (double)j->eligible_time
                                                   : 0);
        }
        held_elsewhere (d, c, now);
    }
}
