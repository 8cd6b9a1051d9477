/* reconcile.c - the jobs in flight against what the clusters list:
 * reconcile (adopt dispatching jobs by their tags, queue again those no
 * cluster has, cancel duplicates), follow (states, ends, lost jobs,
 * refusals held pending), re-route (a pending job that would start sooner
 * elsewhere).
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

#define LOST_AFTER_S 120.0 /* a recorded submission no cluster lists */

/* ---- reconciliation and following ---- */

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

/* The copy of an interrupted dispatch to adopt among tags[a..b): one not
 * cancelled, a running one first; SIZE_MAX if none. */
static size_t
dispatch_keep (ms_daemon_t *d, const queue_sub_t *subs, size_t nsubs,
               const tagged_t *tags, size_t a, size_t b)
{
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
    return keep;
}

/* Record the copy t found after an interrupted dispatch as the job's. */
static int
dispatch_adopt (ms_daemon_t *d, const queue_live_t *l, const tagged_t *t,
                ms_error_t *errp)
{
    queue_sub_new_t s = { d->cl[t->cl].conf->name,
                          t->j->partition,
                          t->j->cpu_freq_max_khz,
                          t->j->id,
                          0,
                          0,
                          d->ds.set.dispatch_mode == DISPATCH_SIBLINGS };
    bool ok;

    if (queue_sub_record (d->db, l->id, &s, "submitted", errp) < 0
        || queue_adopt (d->db, l->id, s.cluster, s.partition, t->j->id, &ok,
                        errp)
               < 0)
        return -1;
    d->m.adopted += ok;
    daemon_log (LOG_NOTICE,
                "job %" PRId64 ": found on %s as job %" PRIu64
                " after an interrupted dispatch",
                l->id, s.cluster, t->j->id);
    return 0;
}

/* An interrupted dispatch whose copy no cluster lists: with every cluster
 * read, accounting says where it went, else it is queued again; while a
 * cluster was not read, it waits and says for which. */
static int
dispatch_gone (ms_daemon_t *d, const queue_live_t *l, bool every,
               ms_error_t *errp)
{
    bool ok;

    if (every) {
        /* gone from every list: its copy may have ended and been
         * forgotten (MinJobAge); accounting says, else unknown */
        int mrc = missing_dispatch (d, l, errp);
        if (mrc != 0)
            return mrc < 0 ? -1 : 0;
        if (queue_requeue (d->db, l->id, "dispatching",
                           "dispatch interrupted and no cluster has "
                           "the job; queued again",
                           false, &ok, errp)
            < 0)
            return -1;
        d->m.requeued += ok;
        if (ok)
            daemon_log (LOG_NOTICE,
                        "job %" PRId64 ": interrupted "
                        "dispatch, on no cluster: queued again",
                        l->id);
        return 0;
    }
    /* a cluster that was not read may hold the copy: queued again now,
     * the job could run twice; it waits, and says why, until every
     * cluster answers */
    char why[600];
    size_t len = (size_t)snprintf (why, sizeof (why),
                                   "dispatch interrupted; waiting for");
    for (size_t c = 0; c < d->ncl && len < sizeof (why); c++)
        if (!d->cl[c].fresh)
            len += (size_t)snprintf (why + len, sizeof (why) - len, " %s",
                                     d->cl[c].conf->name);
    if (len < sizeof (why))
        snprintf (why + len, sizeof (why) - len,
                  " to answer: it may hold the job");
    return queue_note (d->db, l->id, why, errp);
}

/* Live tagged jobs tags[a..b) of a submitted, running or cancelled job
 * that no submission row knows: in sibling mode a submitted job's copy
 * whose record was lost is recorded; any other is a duplicate,
 * cancelled. */
static void
reconcile_strays (ms_daemon_t *d, const queue_live_t *l,
                  const queue_sub_t *subs, size_t nsubs, const tagged_t *tags,
                  size_t a, size_t b)
{
    ms_error_t e;

    for (size_t k = a; k < b; k++) {
        const tagged_t *t = &tags[k];
        const char *cname = d->cl[t->cl].conf->name;
        if (ms_job_state_final (t->j->state)
            || sub_known (subs, nsubs, cname, t->j->id, NULL))
            continue;
        if (d->ds.set.dispatch_mode == DISPATCH_SIBLINGS
            && !strcmp (l->state, "submitted")) {
            /* a sibling whose record was lost: keep it, record it */
            queue_sub_new_t s = { cname,
                                  t->j->partition,
                                  t->j->cpu_freq_max_khz,
                                  t->j->id,
                                  1,
                                  0,
                                  true };
            queue_sub_record (d->db, l->id, &s, "submitted", &e);
            continue;
        }
        cancel_on (d, t->cl, t->j->id, l->id, "duplicate");
        {
            queue_sub_new_t s = { cname,
                                  t->j->partition,
                                  t->j->cpu_freq_max_khz,
                                  t->j->id,
                                  9,
                                  0,
                                  false };
            queue_sub_record (d->db, l->id, &s, "cancelled", &e);
        }
        d->m.dup_cancelled++;
    }
}

/* Deciding and dispatching rows left by a crash (older than the grace,
 * so that no live leader is still at work on them), and tagged cluster
 * jobs that no submission row knows (duplicates). */
int
daemon_reconcile (ms_daemon_t *d, const queue_live_t *live, size_t nlive,
                  const tagged_t *tags, size_t ntags)
{
    bool every = all_fresh (d);
    ms_error_t e;
    bool ok;

    for (size_t i = 0; i < nlive; i++) {
        const queue_live_t *l = &live[i];
        queue_sub_t *subs = NULL;
        size_t nsubs = 0, a, b;
        int rc = 0;

        if (!strcmp (l->state, "deciding")) {
            if (l->age_s > d->grace_s) {
                if (queue_requeue (d->db, l->id, "deciding",
                                   "decision interrupted; queued again", false,
                                   &ok, &e)
                    < 0)
                    return -1;
                d->m.requeued += ok;
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
            size_t keep = dispatch_keep (d, subs, nsubs, tags, a, b);
            /* adopted: any other copies go as duplicates next cycle */
            rc = keep != SIZE_MAX ? dispatch_adopt (d, l, &tags[keep], &e)
                                  : dispatch_gone (d, l, every, &e);
        } else
            reconcile_strays (d, l, subs, nsubs, tags, a, b);
        free (subs);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Follow every recorded submission on its cluster. */
/* Pending reasons by which slurmctld says it will never start the job
 * where it is: its request breaks the partition's configuration or
 * limits, or names an account or QOS that does not exist there. The last
 * two only where the cluster runs accounting: without it there is no
 * account to be invalid, and Slurm 24.05's main scheduler still marks
 * every pending job InvalidAccount there while its backfill scheduler
 * starts them within a cycle. */
static bool
never_starts (ms_daemon_t *d, size_t ci, const char *reason)
{
    static const char *const r[] = {
        "PartitionConfig",
        "BadConstraints",
        "PartitionTimeLimit",
    };
    bool acct;

    for (size_t i = 0; i < sizeof (r) / sizeof (r[0]); i++)
        if (!strcmp (reason, r[i]))
            return true;
    if (strcmp (reason, "InvalidAccount") && strcmp (reason, "InvalidQOS"))
        return false;
    pthread_mutex_lock (&d->ds.mu);
    acct = d->cl[ci].acct_read && d->cl[ci].acct.enabled;
    pthread_mutex_unlock (&d->ds.mu);
    return acct;
}

/* Slurm took the job but holds it pending for good (never_starts):
 * slurmctld 22.05 refuses such a job at submission, later releases take
 * it through slurmrestd and keep it pending. Both are refusals: the copy
 * is cancelled and the job queued again, or, refused at MAX_REFUSED
 * dispatches in a row, cancelled with the reason (job_refused). */
static int
refused_pending (ms_daemon_t *d, size_t ci, const queue_live_t *l,
                 const queue_sub_t *s, const ms_job_info_t *cj)
{
    char why[400];
    ms_error_t e;

    snprintf (why, sizeof (why),
              "%s took job %" PRIu64 " but holds it pending for good: %s",
              s->cluster, s->cluster_job_id, cj->state_reason);
    cancel_on (d, ci, s->cluster_job_id, l->id, why);
    if (queue_sub_state (d->db, s->cluster, s->cluster_job_id, "cancelled", &e)
        < 0)
        goto fail;
    if (job_refused (d, l->id, "submitted", l->refusals, why, &e) < 0)
        goto fail;
    return 0;
fail:
    daemon_log (LOG_ERR, "job %" PRId64 ": %s", l->id, e.text);
    return -1;
}

/* ---- refused copies (doc/daemon.md, "Refused copies") ---- */

/* A copy sent through the start gate (sibling mode: the script runs only
 * in the copy that claims the job) has ended on its cluster while nobody
 * had claimed the job (cj final; cancelled there only if it is not the
 * job's first choice, whose cancel cancels the job): it never ran the
 * script. Exit 75 is its start gate's refusal (the API or the database
 * could not be reached in gate_wait_s, or answered no): recorded as
 * refused; a cancel as cancelled; any other end (a node failure, a time
 * limit reached in the gate) as ended. Each is that copy's end only while
 * another copy of the dispatch may still start. Once none is left, no
 * copy ran the job: the dispatch was refused, the job is queued again or,
 * at MAX_REFUSED in a row, cancelled (job_refused). A copy that claimed
 * the job ran it and is the job's outcome (daemon_follow). cj NULL: the
 * cluster no longer knows the copy (its end was purged while the daemon
 * did not look): recorded as lost, an end like the others, since without
 * a claim it never ran the script. */
static int
copy_unclaimed_end (ms_daemon_t *d, const queue_live_t *l, const queue_sub_t *s,
                    const ms_job_info_t *cj)
{
    bool refused = cj && cj->state == MS_JOB_FAILED && cj->exit_code == 75;
    bool cancelled = cj && cj->state == MS_JOB_CANCELLED;
    char why[600];
    queue_copies_t c;
    ms_error_t e;

    /* claimed since the cycle read the job: the claimer ran it, and this
     * copy may be it; the next cycle follows it with the claim */
    if (queue_dispatch_copies (d->db, l->id, &c, &e) < 0)
        goto fail;
    if (c.claimed)
        return 0;
    if (queue_sub_state (d->db, s->cluster, s->cluster_job_id,
                         refused     ? "refused"
                         : cancelled ? "cancelled"
                         : !cj       ? "lost"
                                     : "ended",
                         &e)
            < 0
        || queue_dispatch_copies (d->db, l->id, &c, &e) < 0)
        goto fail;
    if (refused) {
        pthread_mutex_lock (&d->ds.mu);
        d->m.copies_refused++;
        pthread_mutex_unlock (&d->ds.mu);
        snprintf (why, sizeof (why),
                  "%s job %" PRIu64 " refused by the start gate (exit 75: "
                  "it could not claim the job)",
                  s->cluster, s->cluster_job_id);
    } else if (!cj)
        snprintf (why, sizeof (why),
                  "%s job %" PRIu64 " no longer known to its cluster, never "
                  "having claimed the job",
                  s->cluster, s->cluster_job_id);
    else if (cancelled)
        snprintf (why, sizeof (why),
                  "%s job %" PRIu64 " cancelled on its cluster before it "
                  "claimed the job",
                  s->cluster, s->cluster_job_id);
    else
        snprintf (why, sizeof (why),
                  "%s job %" PRIu64 " %s before it claimed the job: %s",
                  s->cluster, s->cluster_job_id, cj->state_name,
                  cj->state_reason[0] ? cj->state_reason : "no reason");
    if (c.live > 0) {
        char note[700];
        snprintf (note, sizeof (note), "%s; %d other cop%s may still start",
                  why, c.live, c.live == 1 ? "y" : "ies");
        daemon_log (LOG_NOTICE, "job %" PRId64 ": %s", l->id, note);
        if (queue_note (d->db, l->id, note, &e) < 0)
            goto fail;
        return 0;
    }
    {
        char all[700];
        if (c.ended == 0 && c.lost == 0 && c.refused > 0)
            snprintf (all, sizeof (all),
                      "every copy refused by the start gate (the last: %s)",
                      why);
        else
            snprintf (all, sizeof (all),
                      "no copy ran the job: %d refused by the start gate, %d "
                      "ended before a claim, %d lost (the last: %s)",
                      c.refused, c.ended, c.lost, why);
        if (job_refused (d, l->id, "submitted", l->refusals, all, &e) < 0)
            goto fail;
    }
    return 0;
fail:
    daemon_log (LOG_ERR, "job %" PRId64 ": %s job %" PRIu64 " ended: %s", l->id,
                s->cluster, s->cluster_job_id, e.text);
    return -1;
}

/* ---- arrays: one meta job, one Slurm array ---- */

static const char *
task_word (ms_job_state_t s)
{
    switch (s) {
    case MS_JOB_PENDING:
        return "pending";
    case MS_JOB_RUNNING:
    case MS_JOB_SUSPENDED:
    case MS_JOB_COMPLETING:
        return "running";
    case MS_JOB_COMPLETED:
        return "completed";
    case MS_JOB_FAILED:
        return "failed";
    case MS_JOB_CANCELLED:
        return "cancelled";
    case MS_JOB_TIMEOUT:
        return "timeout";
    case MS_JOB_NODE_FAIL:
        return "node_fail";
    default:
        return "other";
    }
}

static bool
task_final (const char *st)
{
    return strcmp (st, "pending") && strcmp (st, "running");
}

/* A record of array aid on cluster c that is still live (NULL: none). */
/* A job (or array task) seen to end on its cluster, into the job mix's
 * observed waits (jobmix_observe: the lean of the energy odds): its wait
 * from its submission there, or for the first choice from when it became
 * eligible (a user's --begin is not a wait for nodes; a sibling's begin
 * is metasched's hold, which is), and its runtime. */
static void
observe_end (ms_daemon_t *d, const queue_sub_t *s, const ms_job_info_t *j)
{
    time_t from = j->submit_time;

    if (s->rank == 0 && j->eligible_time > from)
        from = j->eligible_time;
    if (!(from > 0 && j->start_time >= from && j->end_time >= j->start_time))
        return;
    pthread_mutex_lock (&d->ds.mu);
    jobmix_observe (&d->ds.mix, (double)(j->start_time - from),
                    (double)(j->end_time - j->start_time));
    pthread_mutex_unlock (&d->ds.mu);
}

static const ms_job_info_t *
array_live (const cluster_t *c, uint64_t aid)
{
    for (size_t k = 0; k < c->njobs; k++)
        if (c->jobs[k].array_job_id == aid
            && !ms_job_state_final (c->jobs[k].state))
            return &c->jobs[k];
    return NULL;
}

/* One task of array aid as the listing shows it (j), as its row. */
static void
task_row (const ms_job_info_t *j, const queue_sub_t *s, queue_task_t *t)
{
    memset (t, 0, sizeof (*t));
    t->task_id = (uint32_t)j->array_task_id;
    ms_strlcpy (t->cluster, s->cluster, sizeof (t->cluster));
    t->cluster_job_id = j->id;
    ms_strlcpy (t->state, task_word (j->state), sizeof (t->state));
    t->exit_code = task_final (t->state) ? j->exit_code : -1;
    if (strcmp (t->state, "completed") && strcmp (t->state, "running"))
        ms_strlcpy (t->reason, j->state_reason, sizeof (t->reason));
    t->start_time = j->start_time > 0 && strcmp (t->state, "pending")
                        ? (int64_t)j->start_time
                        : 0;
    t->end_time = task_final (t->state) && j->end_time > 0
                      ? (int64_t)j->end_time
                      : 0;
}

/* Each task of array aid that cluster c lists, written when it changed
 * from known[0..*nkp) (which follows the rows written); a task seen to
 * end counts as a job ended (the lean). */
static int
sync_tasks (ms_daemon_t *d, const cluster_t *c, const queue_live_t *l,
            const queue_sub_t *s, uint64_t aid, queue_task_t **knownp,
            size_t *nkp, ms_error_t *errp)
{
    for (size_t k = 0; k < c->njobs; k++) {
        const ms_job_info_t *j = &c->jobs[k];
        queue_task_t t, *have = NULL;
        if (j->array_job_id != aid || j->array_task_id < 0)
            continue;
        task_row (j, s, &t);
        for (size_t m = 0; m < *nkp && !have; m++)
            if ((*knownp)[m].task_id == t.task_id)
                have = &(*knownp)[m];
        if (have && !strcmp (have->state, t.state)
            && have->cluster_job_id == t.cluster_job_id
            && have->exit_code == t.exit_code
            && !strcmp (have->cluster, t.cluster))
            continue;
        if (queue_task_set (d->db, l->id, &t, errp) < 0)
            return -1;
        if (task_final (t.state) && !(have && task_final (have->state))
            && t.start_time > 0)
            observe_end (d, s, j);
        if (!have) {
            *knownp = ms_xrealloc (*knownp, (*nkp + 1) * sizeof (**knownp));
            have = &(*knownp)[(*nkp)++];
        }
        *have = t;
    }
    return 0;
}

/* Every task of array aid ended (known[0..nk)): the job completed when
 * all did, failed when one failed (the worst exit code, the first failed
 * task named), else cancelled; the array's submission ended. */
static int
array_ended (ms_daemon_t *d, const queue_live_t *l, const queue_sub_t *s,
             uint64_t aid, const queue_task_t *known, size_t nk,
             ms_error_t *errp)
{
    size_t ncomp = 0, nfail = 0, ncanc = 0, total = nk;
    int worst = 0, rc;
    char why[400] = "", first[200] = "";
    bool ok;

    for (size_t m = 0; m < nk; m++) {
        const queue_task_t *t = &known[m];
        if (!strcmp (t->state, "completed") && t->exit_code <= 0)
            ncomp++;
        else if (!strcmp (t->state, "cancelled"))
            ncanc++;
        else {
            nfail++;
            if (t->exit_code > worst)
                worst = t->exit_code;
            if (!first[0])
                snprintf (first, sizeof (first), "task %u %s%s%s", t->task_id,
                          t->state, t->reason[0] ? ": " : "", t->reason);
        }
    }
    /* tasks that never left the array's pending record were cancelled
     * with it */
    if (l->array_tasks > nk) {
        ncanc += l->array_tasks - nk;
        total = l->array_tasks;
    }
    /* the job's end before its submission's: a daemon killed between the
     * two leaves a live submission of an ended job, which the next cycle
     * marks ended (the other way round the job would stay live for ever:
     * cycles follow live submissions only) */
    if (ncomp == total)
        rc = queue_finished (d->db, l->id, "completed", 0, NULL, &ok, errp);
    else if (nfail > 0) {
        snprintf (why, sizeof (why),
                  "%zu of %zu tasks failed on %s (first: %s)", nfail, total,
                  s->cluster, first);
        rc = queue_finished (d->db, l->id, "failed", worst, why, &ok, errp);
    } else {
        snprintf (why, sizeof (why), "%zu of %zu tasks cancelled on the cluster",
                  ncanc, total);
        rc = queue_cancel (d->db, l->id, l->state, why, &ok, errp);
    }
    if (rc < 0
        || queue_sub_state (d->db, s->cluster, aid,
                            ncanc == total ? "cancelled" : "ended", errp)
               < 0)
        return -1;
    daemon_log (LOG_INFO,
                "job %" PRId64 ": array %s job %" PRIu64 " ended: %zu "
                "tasks completed, %zu failed, %zu cancelled",
                l->id, s->cluster, aid, ncomp, nfail, ncanc);
    return 0;
}

/* Follow the array of submission s (cluster job id: the array's): each
 * task the listing shows into job_tasks when it changed, the meta job
 * running once a task started, and ended once no record of the array is
 * live: completed when every task completed, failed when one failed
 * (timeout, node failure ...), else cancelled. */
static int
follow_array (ms_daemon_t *d, size_t ci, const queue_live_t *l,
              const queue_sub_t *s, bool main_sub)
{
    cluster_t *c = &d->cl[ci];
    uint64_t aid = s->cluster_job_id;
    queue_task_t *known = NULL;
    size_t nk = 0, nrec = 0;
    const ms_job_info_t *rest = NULL;
    bool live = false, started = false, ok;
    ms_error_t e;
    int rc = 0;

    for (size_t k = 0; k < c->njobs; k++) {
        const ms_job_info_t *j = &c->jobs[k];
        if (j->array_job_id != aid)
            continue;
        nrec++;
        live = live || !ms_job_state_final (j->state);
        if (j->array_task_id < 0)
            rest = j;
        else if (j->state != MS_JOB_PENDING)
            started = true;
    }
    if (!main_sub) {
        /* a sibling copy: it becomes the meta job's once a task of it
         * starts first (or the copy claimed the job) */
        bool claimer = l->claimed_cluster[0]
                       && !strcmp (l->claimed_cluster, s->cluster)
                       && l->claimed_job_id == aid;
        if (!started || !(claimer || !strcmp (l->state, "submitted")))
            return 0;
        if (queue_running (d->db, l->id, s->cluster, s->partition, aid, &ok, &e)
            < 0)
            goto fail;
        if (!ok)
            return 0;
    }
    if (queue_job_tasks (d->db, l->id, &known, &nk, &e) < 0)
        goto fail;
    /* each task the listing shows, written when it changed */
    if (sync_tasks (d, c, l, s, aid, &known, &nk, &e) < 0)
        goto fail;
    for (size_t m = 0; m < nk; m++)
        started = started || strcmp (known[m].state, "pending");
    if (nrec == 0) {
        /* the cluster forgot the array: ended if every task was seen
         * ending, else lost as a job would be */
        bool all_final = nk > 0;
        for (size_t m = 0; m < nk; m++)
            all_final = all_final && task_final (known[m].state);
        if (!all_final) {
            if (s->age_s < LOST_AFTER_S)
                goto out;
            if (queue_sub_state (d->db, s->cluster, aid, "lost", &e) < 0
                || queue_finished (
                       d->db, l->id,
                       strcmp (l->state, "submitted") ? "failed" : "lost", -1,
                       "the cluster no longer knows the array", &ok, &e)
                       < 0)
                goto fail;
            goto out;
        }
    } else if (live) {
        if (started && !strcmp (l->state, "submitted")) {
            if (queue_running (d->db, l->id, s->cluster, s->partition, aid, &ok,
                               &e)
                < 0)
                goto fail;
            if (strcmp (s->state, "running")
                && queue_sub_state (d->db, s->cluster, aid, "running", &e) < 0)
                goto fail;
        } else if (!started && rest && !strcmp (l->state, "submitted")
                   && !l->claimed_cluster[0]
                   && d->ds.set.dispatch_mode == DISPATCH_SINGLE
                   && never_starts (d, ci, rest->state_reason))
            rc = refused_pending (d, ci, l, s, rest);
        goto out;
    }
    /* every task ended */
    if (array_ended (d, l, s, aid, known, nk, &e) < 0)
        goto fail;
out:
    free (known);
    return rc;
fail:
    daemon_log (LOG_ERR, "job %" PRId64 ": following its array: %s", l->id,
                e.text);
    free (known);
    return -1;
}

/* A first choice sent with a nice of metasched's (a nearly tied first
 * choice waits behind the jobs that prefer its partition more: entry_nice
 * in policy.c) that has waited first_age times its predicted runtime
 * (engine_age_due, the simulator's rule too). */
static bool
first_aged (ms_daemon_t *d, const queue_live_t *l, const queue_sub_t *s)
{
    bool due;

    pthread_mutex_lock (&d->ds.mu);
    due = engine_age_due (&d->ds.pol, s->age_s, l->predicted_time_s);
    pthread_mutex_unlock (&d->ds.mu);
    return due;
}

/* Take metasched's part of the first choice's nice back (the user's own
 * --nice stays) and record it: once, whichever daemon leads. A cluster job
 * whose nice is already below that part (taken back by a daemon that could
 * not record it, or carrying a privileged user's negative --nice) is only
 * recorded. A failed update is logged and tried again next cycle. */
static int
age_first (ms_daemon_t *d, size_t ci, const queue_sub_t *s,
           const ms_job_info_t *cj)
{
    ms_job_update_t u;
    ms_error_t e;

    ms_job_update_init (&u);
    u.nice = cj->nice - s->nice;
    if (cj->nice < s->nice)
        goto record;
    if (backend_update (d->cl[ci].b, s->cluster_job_id, &u, &e) < 0) {
        daemon_log (LOG_WARNING,
                    "job %" PRId64 ": nice of %s job %" PRIu64 " to %d: %s",
                    s->job_id, s->cluster, s->cluster_job_id, u.nice, e.text);
        return 0;
    }
    d->cl[ci].last_action = mono ();
    daemon_log (LOG_INFO,
                "job %" PRId64 ": first choice %s job %" PRIu64
                " waited %.0f s: nice %d -> %d",
                s->job_id, s->cluster, s->cluster_job_id, s->age_s, cj->nice,
                u.nice);
    pthread_mutex_lock (&d->ds.mu);
    d->m.aged++;
    pthread_mutex_unlock (&d->ds.mu);
record:
    if (queue_sub_aged (d->db, s->cluster, s->cluster_job_id, &e) < 0) {
        daemon_log (LOG_ERR, "job %" PRId64 ": recording its nice: %s",
                    s->job_id, e.text);
        return -1;
    }
    return 0;
}

/* A submission its cluster no longer lists (after LOST_AFTER_S): an
 * unclaimed copy through the start gate never ran the script (that
 * copy's end); the outcome's copy has its end from accounting, or the
 * job is lost (failed once it ran). */
static int
follow_lost (ms_daemon_t *d, size_t ci, const queue_live_t *l,
             const queue_sub_t *s, bool main_sub, ms_error_t *errp)
{
    int rc;
    bool ok;

    if (s->age_s < LOST_AFTER_S)
        return 0;
    if (s->gated && !l->claimed_cluster[0] && !strcmp (l->state, "submitted"))
        return copy_unclaimed_end (d, l, s, NULL);
    if (main_sub || l->claimed_cluster[0]) {
        int mrc = missing_sub (d, ci, l, s, errp);
        if (mrc != 0)
            return mrc < 0 ? -1 : 0;
    }
    rc = queue_sub_state (d->db, s->cluster, s->cluster_job_id, "lost", errp);
    if (rc == 0 && main_sub)
        rc = queue_finished (d->db, l->id,
                             !strcmp (l->state, "submitted") ? "lost"
                                                             : "failed",
                             -1, "the cluster no longer knows the job", &ok,
                             errp);
    return rc;
}

/* A copy's final state on its cluster, when it is the job's outcome or
 * just this copy's end: the submission's state and the job's end are
 * written in one transaction, so that a daemon killed between the two
 * does not leave the submission ended and the job live for ever (the
 * cycles follow live submissions only). */
static int
copy_final_tx (ms_daemon_t *d, const queue_live_t *l, const queue_sub_t *s,
               const ms_job_info_t *cj, bool main_sub, bool *endedp,
               ms_error_t *errp)
{
    const char *to = NULL, *why = NULL;
    char reason[400];
    bool ok = false;
    int rc;

    *endedp = false;
    rc = queue_sub_state (d->db, s->cluster, s->cluster_job_id,
                          cj->state == MS_JOB_CANCELLED ? "cancelled" : "ended",
                          errp);
    /* the outcome is the claimed copy's where one claimed (the
     * others were skipped above), else the row's own */
    if (rc < 0
        || !(main_sub || l->claimed_cluster[0]
             || (!strcmp (l->state, "submitted")
                 && cj->state != MS_JOB_CANCELLED)))
        return rc;
    if (cj->state == MS_JOB_COMPLETED)
        to = "completed";
    else if (cj->state == MS_JOB_CANCELLED) {
        rc = queue_cancel (d->db, l->id, l->state, "cancelled on the cluster",
                           &ok, errp);
        return rc;
    } else {
        to = "failed";
        snprintf (reason, sizeof (reason), "%s on %s: %s", cj->state_name,
                  s->cluster, cj->state_reason);
        why = reason;
    }
    if (!main_sub
        && (rc = queue_running (d->db, l->id, s->cluster, s->partition,
                                s->cluster_job_id, &ok, errp))
               < 0)
        return rc;
    rc = queue_finished (d->db, l->id, to, cj->exit_code, why, &ok, errp);
    *endedp = rc == 0 && ok;
    return rc;
}

static int
copy_final (ms_daemon_t *d, const queue_live_t *l, const queue_sub_t *s,
            const ms_job_info_t *cj, bool main_sub, ms_error_t *errp)
{
    bool ended = false;

    if (queue_begin (d->db, true, errp) < 0)
        return -1;
    if (copy_final_tx (d, l, s, cj, main_sub, &ended, errp) < 0) {
        queue_rollback (d->db);
        return -1;
    }
    if (queue_commit (d->db, errp) < 0)
        return -1;
    /* its wait and runtime on the cluster, for the lean of the energy
     * odds */
    if (ended)
        observe_end (d, s, cj);
    return 0;
}

int
daemon_follow (ms_daemon_t *d, const queue_live_t *live, size_t nlive)
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
            cj = cluster_find_job (&d->cl[ci], s->cluster_job_id);
            if (l && !strcmp (l->state, "cancelled") && d->cl[ci].up && cj
                && !ms_job_state_final (cj->state)) {
                cancel_on (d, (size_t)ci, s->cluster_job_id, s->job_id,
                           "the job was cancelled");
                pthread_mutex_lock (&d->ds.mu);
                ((ms_job_info_t *)cj)->state = MS_JOB_CANCELLED; /* asked */
                pthread_mutex_unlock (&d->ds.mu);
            }
            continue;
        }
        cj = cluster_find_job (&d->cl[ci], s->cluster_job_id);
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
            if (l && l->array_tasks && (!cj || ms_job_state_final (cj->state)))
                cj = array_live (&d->cl[ci], s->cluster_job_id);
            if (l && l->array_tasks && !strcmp (l->state, "cancelled")
                && queue_tasks_cancelled (d->db, l->id, &e) < 0) {
                rc = -1;
                continue;
            }
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
        if (l->array_tasks) {
            rc = follow_array (d, (size_t)ci, l, s, main_sub);
            continue;
        }
        if (!cj) {
            rc = follow_lost (d, (size_t)ci, l, s, main_sub, &e);
            continue;
        }
        switch (cj->state) {
        case MS_JOB_PENDING:
            if (main_sub && !strcmp (l->state, "submitted")
                && !l->claimed_cluster[0]
                && d->ds.set.dispatch_mode == DISPATCH_SINGLE
                && never_starts (d, (size_t)ci, cj->state_reason))
                rc = refused_pending (d, (size_t)ci, l, s, cj);
            else if (s->rank == 0 && s->nice > 0 && first_aged (d, l, s))
                rc = age_first (d, (size_t)ci, s, cj);
            break;
        case MS_JOB_RUNNING:
        case MS_JOB_SUSPENDED:
        case MS_JOB_COMPLETING:
            if (strcmp (s->state, "running"))
                rc = queue_sub_state (d->db, s->cluster, s->cluster_job_id,
                                      "running", &e);
            if (rc == 0
                && ((!strcmp (l->state, "submitted")
                     && (!s->gated || l->claimed_cluster[0]))
                    || (!main_sub && l->claimed_cluster[0]))) {
                /* the first seen running (gated copies: the one that
                 * claimed; a copy still in its start gate may yet be
                 * refused), or the copy that claimed the job (it
                 * replaces a loser seen running first): the winner; its
                 * siblings go next cycle */
                rc = queue_running (d->db, l->id, s->cluster, s->partition,
                                    s->cluster_job_id, &ok, &e);
            }
            break;
        default: {
            /* final */
            if (s->gated && !l->claimed_cluster[0]
                && !strcmp (l->state, "submitted")
                && (cj->state != MS_JOB_CANCELLED || !main_sub)) {
                /* it never ran the script: this copy's end */
                rc = copy_unclaimed_end (d, l, s, cj);
                break;
            }
            rc = copy_final (d, l, s, cj, main_sub, &e);
            break;
        }
        }
    }
    if (rc < 0)
        daemon_log (LOG_ERR, "following jobs: %s", e.text);
    free (subs);
    return rc;
}

bool
daemon_reroute_choice (ms_daemon_t *d, const jobkey_t *k, size_t cur,
                       ms_decision_t *dec, double *wcurp, double *wnewp)
{
    double now = wall ();
    bool go;

    daemon_candidates (d, k, false);
    *wcurp = view_predicted_wait (d->ds.view, cur, k->nodes, now);
    go = engine_reroute (&d->ds.pol, daemon_power_budgets (d), d->site,
                         d->ds.view, &d->ds.cs, &cur, 1, *wcurp, now, dec);
    *wnewp = dec->n ? d->ds.cs.c[dec->c[0].cand].w : INFINITY;
    return go;
}

/* Re-route (doc/architecture.md "Policies"): a job still pending after
 * reroute_after_s, when another partition where it may run (its
 * placement rules and --partition, as at dispatch) has a much earlier
 * predicted start, is cancelled and queued again (submitted -> queued),
 * at most max_reroutes times. */
int
daemon_reroute (ms_daemon_t *d, const queue_live_t *live, size_t nlive)
{
    ms_error_t e;
    bool ok;
    unsigned char *allowed;

    if (d->ds.set.reroute_after_s <= 0
        || d->ds.set.dispatch_mode != DISPATCH_SINGLE)
        return 0;
    allowed = ms_xcalloc (d->site->nparts + 1, 1);
    for (size_t i = 0; i < nlive; i++) {
        const queue_live_t *l = &live[i];
        long ci, cur;
        const ms_job_info_t *cj;
        jobkey_t k;
        ms_decision_t dec;
        double wcur, wnew;

        /* an array is not re-routed: some of its tasks may run already;
         * nor is a job of the A/B baseline: it stays where ab_policy put
         * it */
        if (strcmp (l->state, "submitted") || !l->cluster[0] || l->array_tasks
            || (ab_group (d, l->id)
                && !strcmp (ab_group (d, l->id), AB_BASELINE)))
            continue;
        ci = cluster_index (d, l->cluster);
        if (ci < 0 || !d->cl[ci].fresh
            || !(cj = cluster_find_job (&d->cl[ci], l->cluster_job_id))
            || cj->state != MS_JOB_PENDING || cj->submit_time <= 0
            || !engine_reroute_due (
                &d->ds.pol, wall () - (double)cj->submit_time, l->reroutes))
            continue;
        cur = part_index (d, l->cluster, l->partition);
        if (cur < 0)
            continue;
        /* the job's own constraints: the partitions it may run on */
        queue_job_t qj;
        bool found;
        json_t *opts;
        char *why = NULL;
        int krc;
        if (queue_job_load (d->db, l->id, &qj, &found, &e) < 0) {
            daemon_log (LOG_WARNING, "re-route of job %" PRId64 ": %s", l->id,
                        e.text);
            continue;
        }
        if (!found) {
            queue_job_free (&qj);
            continue;
        }
        opts = json_loads (qj.options ? qj.options : "{}", 0, NULL);
        if (!opts)
            opts = json_object ();
        pthread_mutex_lock (&d->ds.mu);
        krc = job_constraints (d, &qj, opts, allowed, &k, &why);
        json_decref (opts);
        queue_job_free (&qj);
        free (why);
        if (krc < 0) {
            pthread_mutex_unlock (&d->ds.mu);
            continue;
        }
        ok = daemon_reroute_choice (d, &k, (size_t)cur, &dec, &wcur, &wnew);
        pthread_mutex_unlock (&d->ds.mu);
        if (!ok)
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
            free (allowed);
            return -1;
        }
        d->m.reroutes++;
        daemon_log (LOG_INFO,
                    "job %" PRId64 ": re-routed from %s/%s "
                    "(predicted wait %.0f s there, %.0f s elsewhere)",
                    l->id, l->cluster, l->partition, wcur, wnew);
    }
    free (allowed);
    return 0;
}

/* A refused dispatch (doc/daemon.md, "Refused copies"): job id had
 * `refusals` dispatches refused in a row before this one. Back to queued
 * with the reason and one refusal more; at MAX_REFUSED in a row, from
 * `from` to cancelled, the last refusal its reason, rather than sent again
 * every cycle. */
int
job_refused (ms_daemon_t *d, int64_t id, const char *from, int refusals,
             const char *why, ms_error_t *errp)
{
    char last[1300];
    bool ok;

    if (refusals + 1 < MAX_REFUSED) {
        if (queue_refused (d->db, id, from, why, false, &ok, errp) < 0)
            return -1;
        d->m.requeued += ok;
        if (ok)
            daemon_log (LOG_NOTICE,
                        "job %" PRId64 ": %s; queued again (%d refused in "
                        "a row)",
                        id, why, refusals + 1);
        return 0;
    }
    snprintf (last, sizeof (last),
              "refused at each of %d dispatches in a row; the last: %s",
              refusals + 1, why);
    if (queue_refused (d->db, id, from, last, true, &ok, errp) < 0)
        return -1;
    if (ok) {
        pthread_mutex_lock (&d->ds.mu);
        d->m.refused_cancelled++;
        pthread_mutex_unlock (&d->ds.mu);
        daemon_log (LOG_NOTICE, "job %" PRId64 ": cancelled, %s", id, last);
    }
    return 0;
}
