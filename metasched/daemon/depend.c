/* depend.c - the cycle's dependency step (doc/daemon.md "Dependencies"):
 * every queued job held back by its --dependency is evaluated against
 * what metasched knows of the meta jobs it names (metasched/core/depend.c
 * has the rules); one whose condition holds is released to the dispatch
 * that follows in the same cycle, one whose condition can never hold is
 * cancelled with the reason (or, with --kill-on-invalid-dep=no, kept held
 * as DependencyNeverSatisfied), and one that waits notes what it waits
 * for in last_error when that changes.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/core/depend.h"
#include "metasched/daemon/daemon_int.h"

/* Evaluate one held job; -1 on a database error. */
static int
depend_one (ms_daemon_t *d, const queue_held_t *h, bool other_users)
{
    ms_deps_t deps;
    ms_dep_target_t t[JOBSPEC_MAX_DEPS];
    queue_dep_job_t q[JOBSPEC_MAX_DEPS];
    int64_t ids[JOBSPEC_MAX_DEPS];
    size_t nids = 0;
    char why[300], msg[400];
    ms_dep_result_t r;
    ms_error_t e;
    bool ok;

    memset (t, 0, sizeof (t));
    if (jobspec_parse_dependency (h->dependency, &deps, &e) < 0) {
        /* the API checked it; a row written otherwise is named here */
        snprintf (why, sizeof (why), "--dependency=%.64s: %.200s", h->dependency,
                  e.text);
        r = DEP_NEVER;
    } else {
        for (size_t i = 0; i < deps.n; i++)
            if (deps.d[i].type != JOBSPEC_DEP_SINGLETON)
                ids[nids++] = (int64_t)deps.d[i].job_id;
        if (nids && queue_dep_jobs (d->db, ids, nids, q, &e) < 0)
            goto fail;
        for (size_t i = 0, k = 0; i < deps.n; i++) {
            if (deps.d[i].type == JOBSPEC_DEP_SINGLETON)
                continue;
            t[i].exists = q[k].exists;
            t[i].other_user = q[k].exists && q[k].uid != h->uid;
            t[i].state = depend_state (q[k].state);
            t[i].started = q[k].started;
            t[i].since_s = q[k].since_s;
            k++;
        }
        r = depend_eval (&deps, h->id, t, h->singleton_clear, other_users,
                         why, sizeof (why));
    }
    switch (r) {
    case DEP_READY:
        if (queue_release (d->db, h->id, &ok, &e) < 0)
            goto fail;
        if (ok)
            daemon_log (LOG_INFO,
                        "job %" PRId64 ": dependency %s holds; released",
                        h->id, h->dependency);
        return 0;
    case DEP_NEVER:
        snprintf (msg, sizeof (msg), "dependency never satisfied: %s", why);
        if (!h->kill_on_invalid) {
            if (queue_hold_never (d->db, h->id, msg, &ok, &e) < 0)
                goto fail;
            if (ok)
                daemon_log (LOG_NOTICE, "job %" PRId64 ": %s; held", h->id,
                            msg);
            return 0;
        }
        if (queue_cancel (d->db, h->id, "queued", msg, &ok, &e) < 0)
            goto fail;
        if (ok)
            daemon_log (LOG_NOTICE, "job %" PRId64 ": %s; cancelled", h->id,
                        msg);
        return 0;
    case DEP_WAIT:
        snprintf (msg, sizeof (msg), "waiting for %s", why);
        if (strcmp (msg, h->last_error) && queue_note (d->db, h->id, msg, &e) < 0)
            goto fail;
        return 0;
    }
    return 0;
fail:
    daemon_log (LOG_ERR, "job %" PRId64 ": dependency: %s", h->id, e.text);
    return -1;
}

int
daemon_dependencies (ms_daemon_t *d)
{
    queue_held_t *held = NULL;
    size_t n = 0;
    ms_error_t e;
    bool other_users;
    int rc = 0;

    if (queue_held_jobs (d->db, &held, &n, &e) < 0) {
        daemon_log (LOG_ERR, "reading held jobs: %s", e.text);
        return -1;
    }
    pthread_mutex_lock (&d->mu);
    other_users = d->set.dependency_other_users;
    pthread_mutex_unlock (&d->mu);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = depend_one (d, &held[i], other_users);
    free (held);
    return rc;
}
