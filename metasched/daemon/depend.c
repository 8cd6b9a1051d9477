/* depend.c - the cycle's dependency step (doc/daemon.md "Dependencies"):
 * every queued job held back by its --dependency is evaluated against
 * what metasched knows of the meta jobs it names (metasched/core/depend.c
 * has the rules); one whose condition holds is released to the dispatch
 * that follows in the same cycle, one whose condition can never hold is
 * cancelled with the reason (or, with --kill-on-invalid-dep=no, kept held
 * as DependencyNeverSatisfied), and one that waits notes what it waits
 * for in last_error when that changes.
 *
 * The held jobs are checked set-wise: one statement reads them all (with
 * singleton in one pass over the live jobs), one reads every job they
 * name, one releases those whose condition holds and one writes the notes
 * that changed, whatever the number of held jobs. A job's --dependency is
 * in its options, which hold its environment too (kilobytes a job): they
 * never change, so the daemon reads them once per held job (one statement
 * for the jobs held since the last cycle) and keeps the dependency in a
 * cache of the held jobs (depcache_t). Only a job that can never run
 * costs a statement of its own, once in its life.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/core/depend.h"
#include "metasched/daemon/daemon_int.h"

/* A held job's dependency as its options say. */
typedef struct {
    int64_t id;
    char *dependency; /* NULL: not read yet */
    bool kill_on_invalid;
} depent_t;

/* The held jobs of the last cycle, sorted by id. */
struct depcache {
    depent_t *e;
    size_t n;
};

void
depcache_free (depcache_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        free (c->e[i].dependency);
    free (c->e);
    free (c);
}

/* The cache for the held jobs held[0..n) (sorted by id): the entries of
 * those still held are kept, the others go, and the dependencies of the
 * new ones are read in one statement. -1 on a database error (the cache
 * then has the new ones unread, read at the next cycle). */
static int
depcache_update (ms_daemon_t *d, const queue_held_t *held, size_t n,
                 ms_error_t *errp)
{
    depcache_t *c = d->depcache;
    depent_t *ne = ms_xcalloc (n + 1, sizeof (*ne));
    int64_t *miss = ms_xcalloc (n + 1, sizeof (*miss));
    size_t *at = ms_xcalloc (n + 1, sizeof (*at));
    queue_held_dep_t *got;
    size_t k = 0, nmiss = 0;
    int rc = 0;

    if (!c)
        c = d->depcache = ms_xcalloc (1, sizeof (*c));
    for (size_t i = 0; i < n; i++) {
        while (k < c->n && c->e[k].id < held[i].id)
            free (c->e[k++].dependency);
        ne[i].id = held[i].id;
        if (k < c->n && c->e[k].id == held[i].id) {
            ne[i] = c->e[k++];
            if (ne[i].dependency)
                continue;
        }
        at[nmiss] = i;
        miss[nmiss++] = held[i].id;
    }
    while (k < c->n)
        free (c->e[k++].dependency);
    free (c->e);
    c->e = ne;
    c->n = n;
    if (nmiss) {
        got = ms_xcalloc (nmiss + 1, sizeof (*got));
        rc = queue_held_deps (d->db, miss, nmiss, got, errp);
        for (size_t j = 0; rc == 0 && j < nmiss; j++) {
            /* a job gone meanwhile stays unread: it is not evaluated */
            ne[at[j]].dependency = got[j].found ? got[j].dependency : NULL;
            ne[at[j]].kill_on_invalid = got[j].kill_on_invalid;
        }
        free (got);
    }
    free (miss);
    free (at);
    return rc;
}

/* What the cycle does with the held jobs, gathered for its statements. */
typedef struct {
    int64_t *ids; /* every job named, sorted, each once */
    size_t nids, capids;
    queue_dep_job_t *q; /* what the database knows of ids[i] */
    int64_t *rel;       /* to release */
    size_t nrel;
    int64_t *nid; /* to note ... */
    char **note;  /* ... with these (malloc'd) */
    size_t nnote;
} depset_t;

static int
cmp_id (const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The job ids dependency names (singleton names none) into s->ids. */
static void
collect_ids (depset_t *s, const char *dependency)
{
    ms_deps_t deps;
    ms_error_t e;

    if (jobspec_parse_dependency (dependency, &deps, &e) < 0)
        return;
    for (size_t i = 0; i < deps.n; i++) {
        if (deps.d[i].type == JOBSPEC_DEP_SINGLETON)
            continue;
        if (s->nids == s->capids) {
            s->capids = s->capids ? 2 * s->capids : 256;
            s->ids = ms_xrealloc (s->ids, s->capids * sizeof (*s->ids));
        }
        s->ids[s->nids++] = (int64_t)deps.d[i].job_id;
    }
}

static void
unique_ids (depset_t *s)
{
    size_t k = 0;

    if (s->nids == 0)
        return;
    qsort (s->ids, s->nids, sizeof (*s->ids), cmp_id);
    for (size_t i = 0; i < s->nids; i++)
        if (k == 0 || s->ids[k - 1] != s->ids[i])
            s->ids[k++] = s->ids[i];
    s->nids = k;
}

/* What is known of job id (one of s->ids). */
static const queue_dep_job_t *
known (const depset_t *s, int64_t id)
{
    static const queue_dep_job_t none = { 0 };
    const int64_t *at
        = s->nids ? bsearch (&id, s->ids, s->nids, sizeof (*s->ids), cmp_id)
                  : NULL;

    return at ? &s->q[at - s->ids] : &none;
}

/* Evaluate one held job: a release or a note goes into s, a job that can
 * never run is held or cancelled at once; -1 on a database error. */
static int
depend_one (ms_daemon_t *d, depset_t *s, const queue_held_t *h,
            const depent_t *de, bool other_users)
{
    ms_deps_t deps;
    ms_dep_target_t t[JOBSPEC_MAX_DEPS];
    char why[300], msg[400];
    ms_dep_result_t r;
    ms_error_t e;
    bool ok;

    if (!de->dependency)
        return 0; /* gone since it was read as held */
    memset (t, 0, sizeof (t));
    if (jobspec_parse_dependency (de->dependency, &deps, &e) < 0) {
        /* the API checked it; a row written otherwise is named here */
        snprintf (why, sizeof (why), "--dependency=%.64s: %.200s",
                  de->dependency, e.text);
        r = DEP_NEVER;
    } else {
        for (size_t i = 0; i < deps.n; i++) {
            const queue_dep_job_t *q;
            if (deps.d[i].type == JOBSPEC_DEP_SINGLETON)
                continue;
            q = known (s, (int64_t)deps.d[i].job_id);
            t[i].exists = q->exists;
            t[i].other_user = q->exists && q->uid != h->uid;
            t[i].state = depend_state (q->state);
            t[i].started = q->started;
            t[i].since_s = q->since_s;
        }
        r = depend_eval (&deps, h->id, t, h->singleton_clear, other_users, why,
                         sizeof (why));
    }
    switch (r) {
    case DEP_READY:
        s->rel[s->nrel++] = h->id;
        return 0;
    case DEP_NEVER:
        snprintf (msg, sizeof (msg), "dependency never satisfied: %s", why);
        if (!de->kill_on_invalid) {
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
        if (strcmp (msg, h->last_error)) {
            s->nid[s->nnote] = h->id;
            s->note[s->nnote++] = ms_xstrdup (msg);
        }
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
    depset_t s;
    int64_t *released = NULL;
    size_t n = 0, nreleased = 0;
    ms_error_t e;
    bool other_users;
    int rc = 0;

    memset (&s, 0, sizeof (s));
    if (queue_held_jobs (d->db, &held, &n, &e) < 0) {
        daemon_log (LOG_ERR, "reading held jobs: %s", e.text);
        return -1;
    }
    if (n == 0) {
        queue_held_free (held, n);
        return 0;
    }
    pthread_mutex_lock (&d->ds.mu);
    other_users = d->ds.set.dependency_other_users;
    pthread_mutex_unlock (&d->ds.mu);
    if (depcache_update (d, held, n, &e) < 0) {
        daemon_log (LOG_ERR, "reading the held jobs' dependencies: %s", e.text);
        queue_held_free (held, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (d->depcache->e[i].dependency)
            collect_ids (&s, d->depcache->e[i].dependency);
    unique_ids (&s);
    s.q = ms_xcalloc (s.nids + 1, sizeof (*s.q));
    if (s.nids && queue_dep_jobs (d->db, s.ids, s.nids, s.q, &e) < 0) {
        daemon_log (LOG_ERR, "reading the jobs dependencies name: %s", e.text);
        rc = -1;
        goto out;
    }
    s.rel = ms_xcalloc (n, sizeof (*s.rel));
    s.nid = ms_xcalloc (n, sizeof (*s.nid));
    s.note = ms_xcalloc (n, sizeof (*s.note));
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = depend_one (d, &s, &held[i], &d->depcache->e[i], other_users);
    if (rc == 0 && s.nrel) {
        if (queue_release_many (d->db, s.rel, s.nrel, &released, &nreleased, &e)
            < 0) {
            daemon_log (LOG_ERR, "releasing %zu held jobs: %s", s.nrel, e.text);
            rc = -1;
        }
        for (size_t i = 0; i < nreleased; i++) {
            depent_t key = { .id = released[i] };
            const depent_t *h
                = bsearch (&key, d->depcache->e, n, sizeof (*h), cmp_id);
            daemon_log (LOG_INFO,
                        "job %" PRId64 ": dependency %s holds; released",
                        released[i], h ? h->dependency : "");
        }
    }
    if (rc == 0 && s.nnote
        && queue_note_many (d->db, s.nid, (const char *const *)s.note, s.nnote,
                            &e)
               < 0) {
        daemon_log (LOG_ERR, "noting what %zu held jobs wait for: %s", s.nnote,
                    e.text);
        rc = -1;
    }
out:
    for (size_t i = 0; i < s.nnote; i++)
        free (s.note[i]);
    free (s.note);
    free (s.nid);
    free (s.rel);
    free (released);
    free (s.q);
    free (s.ids);
    queue_held_free (held, n);
    return rc;
}
