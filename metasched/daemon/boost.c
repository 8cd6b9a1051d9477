/* boost.c - priority boost (EAMC PriorityInc, doc/architecture.md "Policies"):
 * jobs noted at submit and boosted when their cluster's job list is next read.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

#define BOOST_PRIORITY 10000 /* PriorityInc: added to the Slurm priority */
#define BOOST_WAIT_S 60.0 /* a job to boost that no listing shows: dropped */

/* Append b to cluster c's boosts to make; caller holds d->rf.mu. */
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
 * PriorityInc, doc/architecture.md "Policies"). The job is noted here (under
 * rf.mu) and boosted when the cluster's job list is next read (apply_boosts),
 * which gives its current priority: no round trip stands between one submit and
 * the next, and no listing is read for the boosts alone. */
void
boost_later (ms_daemon_t *d, cluster_t *cl, uint64_t bid)
{
    pthread_mutex_lock (&d->rf.mu);
    boost_push (cl, (boost_t){ .id = bid, .at = mono () });
    pthread_mutex_unlock (&d->rf.mu);
}

void
priority_later (ms_daemon_t *d, cluster_t *cl, uint64_t bid, uint32_t prio)
{
    pthread_mutex_lock (&d->rf.mu);
    boost_push (cl, (boost_t){ .id = bid, .at = mono (), .set = prio });
    pthread_mutex_unlock (&d->rf.mu);
}

/* Boost the noted jobs of cluster c that a fresh listing (jobs, sorted by
 * id) shows pending, with handle b; a job the listing does not show yet
 * waits for the next one, for at most BOOST_WAIT_S. A failure is logged,
 * never fatal. */
void
apply_boosts (ms_daemon_t *d, cluster_t *c, ms_backend_t *b,
              const ms_job_info_t *jobs, size_t nj)
{
    boost_t *q;
    size_t n, kept = 0;
    uint64_t done = 0;
    double now = mono ();

    pthread_mutex_lock (&d->rf.mu);
    q = c->boost;
    n = c->nboost;
    c->boost = NULL;
    c->nboost = c->boostcap = 0;
    pthread_mutex_unlock (&d->rf.mu);
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
                            "priority %s of %s job %" PRIu64
                            ": not listed by the cluster",
                            q[k].set ? "set" : "boost", c->conf->name,
                            q[k].id);
            continue;
        }
        if (info->state != MS_JOB_PENDING)
            continue; /* started, ended or cancelled meanwhile */
        ms_job_update_init (&u);
        /* saturated below MS_KEEP_PRIORITY: priority/basic starts near
         * 2^32; an operator's --priority is set as given */
        u.priority = q[k].set ? q[k].set
                     : info->priority < UINT32_MAX - 2 - BOOST_PRIORITY
                         ? info->priority + BOOST_PRIORITY
                         : UINT32_MAX - 2;
        if (u.priority == info->priority)
            continue;
        if (backend_update (b, q[k].id, &u, &e) < 0)
            daemon_log (LOG_WARNING, "priority %s of %s job %" PRIu64 ": %s",
                        q[k].set ? "set" : "boost", c->conf->name, q[k].id,
                        e.text);
        else {
            daemon_log (LOG_INFO,
                        "priority %s of %s job %" PRIu64 ": %u -> %u",
                        q[k].set ? "set (--priority)" : "boost",
                        c->conf->name, q[k].id, info->priority, u.priority);
            done += !q[k].set;
        }
    }
    pthread_mutex_lock (&d->rf.mu);
    for (size_t k = 0; k < kept; k++)
        boost_push (c, q[k]);
    pthread_mutex_unlock (&d->rf.mu);
    free (q);
    if (done) {
        pthread_mutex_lock (&d->ds.mu);
        d->m.boosts += done;
        pthread_mutex_unlock (&d->ds.mu);
    }
}
