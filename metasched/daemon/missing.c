/* missing.c - a tagged job its controller no longer lists (doc/daemon.md,
 * "Jobs missing from a controller"). slurmctld forgets a job MinJobAge
 * after its end; a daemon or database down longer than that finds the
 * job gone. Its end is then read from the cluster's accounting (slurmdbd,
 * through slurmrestd's /slurmdb endpoints): a copy found there is adopted
 * with the state and exit code Slurm recorded, never submitted again.
 * Only a record whose tag verifies on the cluster and that ran as the
 * meta job's owner counts, as in the controller's list (collect_tags).
 * Where the cluster keeps no accounting the job becomes `unknown`: its
 * dependents wait until an admin resolves it (metasched job resolve).
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

/* Seconds before the dispatch's state change that a copy's record may
 * begin (the commit of dispatching and the submit are not one instant). */
#define SINCE_SLACK_S 120

/* What can be known of a cluster's forgotten jobs. */
typedef enum {
    ACCT_HAVE,   /* its accounting answers: ask it */
    ACCT_NONE,   /* it keeps none (or clusters.conf says accounting = none) */
    ACCT_UNSURE, /* not read yet: wait for it */
} acct_kind_t;

static acct_kind_t
acct_kind (ms_daemon_t *d, size_t ci)
{
    const cluster_t *c = &d->cl[ci];
    acct_kind_t k;

    if (!c->conf->accounting)
        return ACCT_NONE;
    pthread_mutex_lock (&d->ds.mu);
    k = !c->acct_read ? ACCT_UNSURE : c->acct.enabled ? ACCT_HAVE : ACCT_NONE;
    pthread_mutex_unlock (&d->ds.mu);
    return k;
}

/* Does record r of cluster ci prove itself a copy of l? Its tag must
 * verify there and name l, and it must have run as l's owner; a record
 * that claims l without proving it is logged as a forgery and left. */
static bool
proven (ms_daemon_t *d, size_t ci, const queue_live_t *l,
        const ms_acct_job_t *r)
{
    int64_t claim = 0;
    tag_check_t tc;
    const char *why;

    if (r->array_job_id && r->array_job_id != r->id)
        return false; /* a task of an array: the array's record counts */
    tc = tag_check (&d->tag_key, r->comment, d->cl[ci].conf->name, &claim);
    if (tc == TAG_NONE || claim != l->id)
        return false;
    if (tc == TAG_VALID && !strcmp (r->user, l->owner))
        return true;
    why = tc != TAG_VALID ? tag_check_why (tc)
                          : "a valid tag on a job of another user";
    pthread_mutex_lock (&d->ds.mu);
    d->forge.forged++;
    pthread_mutex_unlock (&d->ds.mu);
    daemon_log (LOG_WARNING,
                "forged tag in accounting: %s job %" PRIu64
                " of user %s claims meta job %" PRId64
                " (owner %s) with %s; it is not adopted",
                d->cl[ci].conf->name, r->id, r->user[0] ? r->user : "?", l->id,
                l->owner, why);
    return false;
}

/* The meta job's outcome from record r: its state and exit code as
 * Slurm recorded them. */
static int
finish_from (ms_daemon_t *d, size_t ci, const queue_live_t *l, const char *from,
             uint64_t cjid, const ms_acct_job_t *r, ms_error_t *errp)
{
    const char *cname = d->cl[ci].conf->name;
    char why[400];
    bool ok;

    if (queue_sub_state (d->db, cname, cjid,
                         r->state == MS_JOB_CANCELLED ? "cancelled" : "ended",
                         errp)
        < 0)
        return -1;
    if (r->state == MS_JOB_CANCELLED) {
        snprintf (why, sizeof (why),
                  "cancelled on %s (from its accounting: the controller no "
                  "longer lists job %" PRIu64 ")",
                  cname, cjid);
        return queue_cancel (d->db, l->id, from, why, &ok, errp);
    }
    if (r->state == MS_JOB_COMPLETED)
        return queue_finished (d->db, l->id, "completed", r->exit_code, NULL,
                               &ok, errp);
    snprintf (why, sizeof (why), "%s on %s: %s (from its accounting)",
              r->state_name, cname, r->state_reason);
    return queue_finished (d->db, l->id, "failed", r->exit_code, why, &ok,
                           errp);
}

/* The newest proven record of l among rs (NULL: none). *blindp: a record
 * of l's owner (of want_id, when given) has no comment at all: the
 * accounting keeps none (slurm.conf without AccountingStoreFlags=
 * job_comment), so no record there can prove or disprove a copy. */
static const ms_acct_job_t *
pick (ms_daemon_t *d, size_t ci, const queue_live_t *l, const ms_acct_job_t *rs,
      size_t n, uint64_t want_id, bool *blindp)
{
    const ms_acct_job_t *best = NULL;

    *blindp = false;
    for (size_t k = 0; k < n; k++) {
        const ms_acct_job_t *r = &rs[k];
        if (want_id && r->id != want_id)
            continue;
        if (!r->comment[0] && !strcmp (r->user, l->owner))
            *blindp = true;
        if (!proven (d, ci, l, r))
            continue;
        /* a copy cancelled by metasched loses to one that ran */
        if (!best
            || (best->state == MS_JOB_CANCELLED && r->state != MS_JOB_CANCELLED)
            || (r->submit_time > best->submit_time
                && (r->state != MS_JOB_CANCELLED
                    || best->state == MS_JOB_CANCELLED)))
            best = r;
    }
    return best;
}

static int
note_wait (ms_daemon_t *d, const queue_live_t *l, const char *cluster,
           const char *what, ms_error_t *errp)
{
    char why[600];

    snprintf (why, sizeof (why),
              "%s no longer lists the job; waiting for its accounting: %s",
              cluster, what);
    return queue_note (d->db, l->id, why, errp);
}

static int
to_unknown (ms_daemon_t *d, const queue_live_t *l, const char *why,
            ms_error_t *errp)
{
    bool ok;

    if (queue_unknown (d->db, l->id, l->state, why, &ok, errp) < 0)
        return -1;
    if (ok)
        daemon_log (LOG_WARNING, "job %" PRId64 ": unknown: %s", l->id, why);
    return 0;
}

/* A dispatching job no cluster lists, every cluster read: its copy may
 * have ended and been forgotten. Returns 1 when it was dealt with
 * (adopted from accounting, unknown, or waiting for an answer), 0 when
 * no copy can exist (queue it again), -1 on a database error. */
int
missing_dispatch (ms_daemon_t *d, const queue_live_t *l, ms_error_t *errp)
{
    time_t since = (time_t)(wall () - l->age_s) - SINCE_SLACK_S;
    const char *none_on = NULL;

    for (size_t ci = 0; ci < d->ncl; ci++) {
        const cluster_t *c = &d->cl[ci];
        ms_acct_query_t q = { 0, since };
        ms_acct_job_t *rs = NULL;
        const ms_acct_job_t *r;
        size_t n = 0;
        ms_error_t e;
        bool blind;
        int rc;

        /* one cluster holds a job's copy, the choice; siblings: any */
        if (d->ds.set.dispatch_mode == DISPATCH_SINGLE && l->cluster[0]
            && strcmp (l->cluster, c->conf->name))
            continue;
        switch (acct_kind (d, ci)) {
        case ACCT_UNSURE:
            return note_wait (d, l, c->conf->name, "not read yet", errp) < 0
                       ? -1
                       : 1;
        case ACCT_NONE:
            /* a copy submitted at the dispatch would still be listed */
            if (l->age_s >= (double)c->conf->min_job_age_s && !none_on)
                none_on = c->conf->name;
            continue;
        case ACCT_HAVE:
            break;
        }
        rc = backend_acct_jobs (c->b, &q, &rs, &n, &e);
        if (rc < 0)
            return note_wait (d, l, c->conf->name, e.text, errp) < 0 ? -1 : 1;
        if (rc == 1) {
            /* no accounting after all (read as enabled a while ago) */
            if (l->age_s >= (double)c->conf->min_job_age_s && !none_on)
                none_on = c->conf->name;
            continue;
        }
        r = pick (d, ci, l, rs, n, 0, &blind);
        if (!r && blind && l->age_s >= (double)c->conf->min_job_age_s
            && !none_on)
            none_on = c->conf->name; /* its records cannot tell */
        if (r) {
            const ms_acct_job_t rec = *r;
            queue_sub_new_t s
                = { c->conf->name,
                    rec.partition,
                    0,
                    rec.id,
                    0,
                    0,
                    d->ds.set.dispatch_mode == DISPATCH_SIBLINGS };
            bool ok;
            free (rs);
            if (queue_sub_record (d->db, l->id, &s, "submitted", errp) < 0
                || queue_adopt (d->db, l->id, s.cluster, s.partition, rec.id,
                                &ok, errp)
                       < 0)
                return -1;
            d->m.adopted += ok;
            daemon_log (LOG_NOTICE,
                        "job %" PRId64 ": found in the accounting of %s as job "
                        "%" PRIu64 " (%s) after an interrupted dispatch",
                        l->id, s.cluster, rec.id, rec.state_name);
            if (ok && ms_job_state_final (rec.state)
                && finish_from (d, ci, l, "submitted", rec.id, &rec, errp) < 0)
                return -1;
            return 1;
        }
        free (rs);
    }
    if (none_on) {
        char why[400];
        snprintf (why, sizeof (why),
                  "dispatch interrupted %.0f s ago, longer than %s's "
                  "min_job_age, whose accounting (none, or without job "
                  "comments) cannot say whether a copy ran there "
                  "(metasched job resolve)",
                  l->age_s, none_on);
        return to_unknown (d, l, why, errp) < 0 ? -1 : 1;
    }
    return 0;
}

/* A recorded submission s of l (its main one, or the copy that claimed
 * it) that cluster ci no longer lists: its end from the accounting, or
 * unknown. Returns 1 when dealt with, 0 when the accounting does not know
 * the job either (lost, as before), -1 on a database error. */
int
missing_sub (ms_daemon_t *d, size_t ci, const queue_live_t *l,
             const queue_sub_t *s, ms_error_t *errp)
{
    const cluster_t *c = &d->cl[ci];
    ms_acct_query_t q = { s->cluster_job_id, 0 };
    ms_acct_job_t *rs = NULL;
    const ms_acct_job_t *r;
    size_t n = 0;
    ms_error_t e;
    char why[400];
    bool blind;
    int rc;

    switch (acct_kind (d, ci)) {
    case ACCT_UNSURE:
        return note_wait (d, l, c->conf->name, "not read yet", errp) < 0 ? -1
                                                                         : 1;
    case ACCT_NONE:
        goto unknown;
    case ACCT_HAVE:
        break;
    }
    rc = backend_acct_jobs (c->b, &q, &rs, &n, &e);
    if (rc < 0)
        return note_wait (d, l, c->conf->name, e.text, errp) < 0 ? -1 : 1;
    if (rc == 1)
        goto unknown;
    r = pick (d, ci, l, rs, n, s->cluster_job_id, &blind);
    if (!r) {
        free (rs);
        if (!blind)
            return 0;
        snprintf (why, sizeof (why),
                  "%s no longer lists job %" PRIu64
                  " and its accounting keeps no job comments "
                  "(AccountingStoreFlags=job_comment), which would prove the "
                  "record this job's copy: how it ended is not known "
                  "(metasched job resolve)",
                  c->conf->name, s->cluster_job_id);
        goto to_unknown;
    }
    if (!ms_job_state_final (r->state)) {
        /* the accounting has not seen its end yet (slurmdbd's queue) */
        rc = note_wait (d, l, c->conf->name, "its record is not final yet",
                        errp);
        free (rs);
        return rc < 0 ? -1 : 1;
    }
    daemon_log (LOG_NOTICE,
                "job %" PRId64 ": %s job %" PRIu64
                " no longer listed; its accounting says %s, exit code %d",
                l->id, c->conf->name, s->cluster_job_id, r->state_name,
                r->exit_code);
    rc = finish_from (d, ci, l, l->state, s->cluster_job_id, r, errp);
    free (rs);
    return rc < 0 ? -1 : 1;
unknown:
    snprintf (why, sizeof (why),
              "%s no longer lists job %" PRIu64
              " and keeps no accounting: how it ended cannot be known "
              "(metasched job resolve)",
              c->conf->name, s->cluster_job_id);
to_unknown:
    if (queue_sub_state (d->db, s->cluster, s->cluster_job_id, "unknown", errp)
        < 0)
        return -1;
    return to_unknown (d, l, why, errp) < 0 ? -1 : 1;
}
