/* dispatch.c - dispatching queued jobs in batches: read, decide, commit
 * (dispatching), submit (submit.c, one thread per cluster) while the next
 * batch is read and decided, record (submitted), then cancel what was
 * cancelled meanwhile.
 *
 * Exactly once (doc/architecture.md "Reliability and security"): a job
 * row goes queued -> deciding -> dispatching (choice and decision
 * committed) -> submit with the comment tag metasched:<id> -> submitted
 * (cluster job id and job_submissions committed). A crash between the
 * commit of dispatching and that of submitted leaves a dispatching row;
 * the leader finds the cluster job by its tag (adopt it) or, with every
 * cluster answering and none carrying the tag, queues the job again
 * (reconcile.c). Tagged cluster jobs that no submission row knows are
 * duplicates and are cancelled.
 */
#define _GNU_SOURCE
#include "config.h"

#include <signal.h>

#include "metasched/common/jobspec_json.h"
#include "metasched/daemon/daemon_int.h"

#define DISPATCH_CHUNK 64 /* queued rows read at a time, at most */
#define DISPATCH_FIRST                                                         \
    8                             /* the first batch of a cycle: the pipeline  \
                                     fills sooner; each next one doubles */
#define DISPATCH_INFLIGHT 3       /* batches under way at once, at most */
#define CYCLE_DISPATCH_MAX_S 20.0 /* then refresh the clusters */
#define LEADER_CHECK_S 1.0        /* leadership asked again while dispatching */

/* Take the policy's decision dec over the job's candidates cs: its
 * entries, the candidates as JSON, the view's queue, the time limit.
 * down (taken) says why it waits when no cluster of a choice is up.
 * Caller holds d->ds.mu. */
static void
take_decision (ms_daemon_t *d, djob_t *x, const jobkey_t *k,
               const ms_cands_t *cs, const ms_decision_t *dec, char *down)
{
    ms_decision_t out;

    /* the entries that go out, at the policy's nice (metasched's graded by
     * each sibling's loss; the first choice's taken back once it has
     * waited: daemon_follow): the engine's sibling set */
    daemon_entries (d, dec, &out);
    for (size_t c = 0; c < out.n; c++) {
        x->chosen[x->nch] = cs->c[out.c[c].cand];
        x->choices[x->nch] = out.c[c];
        x->nch++;
    }
    if (x->nch == 0) {
        /* every cluster that could run it is down, or no power budget
         * lets it start: wait, and say so */
        x->why = down;
        return;
    }
    free (down);
    daemon_power_dispatched (d, x->j.id, &x->chosen[0]);
    x->base_s = k->base_s;
    x->opt
        = policy_optimal_partition (cs, d->site->nparts) == x->chosen[0].part;
    {
        ms_jobspec_t spec;
        ms_error_t e;
        jobspec_init (&spec);
        (void)jobspec_json_read (&spec, x->opts, &e);
        x->cands = candidates_json (d, cs, dec, &spec, &x->score);
        jobspec_free (&spec);
    }
    for (size_t c = 0; c < x->nch; c++) {
        int conc;
        x->maxlim[c] = job_time_cap (d, x->opts, x->j.owner, x->chosen[c].part);
        x->waves[c] = array_waves (d, k, x->chosen[c].part, &conc);
        /* until the next refresh reads it back with its id */
        view_pending_add (
            d->ds.view, x->chosen[c].part, 0,
            (x->chosen[c].nodes > 0 ? x->chosen[c].nodes : k->nodes) * conc,
            x->chosen[c].t, x->choices[c].nice,
            x->choices[c].hold_s > 0 ? wall () + x->choices[c].hold_s : 0);
    }
    /* the limit is each task's */
    for (size_t c = 0; c < x->nch; c++)
        x->limits[c] = daemon_choice_limit (d, k, &x->chosen[c], x->waves[c],
                                            x->maxlim[c]);
    x->limit = x->limits[0];
}

/* metasched_window: the batch's jobs placed together (window.h), each
 * with the candidates it had when its turn in decide_batch came. */
typedef struct {
    size_t n;
    size_t *job; /* index in the batch */
    jobkey_t *key;
    ms_cands_t *cs;
    char **down;
} dwindow_t;

static void
window_decide (ms_daemon_t *d, djob_t *b, dwindow_t *w)
{
    const ms_cands_t **cp = ms_xcalloc (w->n + 1, sizeof (*cp));
    int *nodes = ms_xcalloc (w->n + 1, sizeof (int));
    ms_decision_t *dec = ms_xcalloc (w->n + 1, sizeof (*dec));
    ms_window_stats_t st;

    for (size_t i = 0; i < w->n; i++) {
        cp[i] = &w->cs[i];
        nodes[i] = w->key[i].nodes;
    }
    policy_decide_window (&d->ds.pol, d->site, cp, nodes, w->n, d->ds.view,
                          wall (), dec, &st);
    daemon_log (LOG_DEBUG, "window: %zu jobs, %zu bids, %.3f s%s%s", w->n,
                st.nvars, st.solve_s, st.optimal ? ", optimal" : "",
                st.fallback ? ", greedy fallback" : "");
    for (size_t i = 0; i < w->n; i++) {
        take_decision (d, &b[w->job[i]], &w->key[i], &w->cs[i], &dec[i],
                       w->down[i]);
        free (w->cs[i].c);
    }
    free (cp);
    free (nodes);
    free (dec);
}

void
daemon_mix_history (ms_daemon_t *d)
{
    db_decided_job_t *jobs = NULL;
    size_t n = 0, used = 0, kept, ended;
    unsigned char *allowed;
    double scale, share, lean;
    ms_error_t e;

    d->ds.mix_loaded = true;
    if (db_replay_decided (d->db, 0, MS_MIX_JOBS, &jobs, &n, &e) < 0) {
        daemon_log (LOG_WARNING,
                    "re-reading the decided jobs: %s (the calibration "
                    "starts empty)",
                    e.text);
        return;
    }
    allowed = ms_xcalloc (d->site->nparts + 1, 1);
    pthread_mutex_lock (&d->ds.mu);
    for (size_t i = 0; i < n; i++) {
        json_t *opts
            = json_loads (jobs[i].options ? jobs[i].options : "{}", 0, NULL);
        queue_job_t qj;
        char *why = NULL;
        jobkey_t k;

        if (!opts)
            opts = json_object ();
        /* what job_constraints reads of the queue's row */
        memset (&qj, 0, sizeof (qj));
        ms_strlcpy (qj.owner, jobs[i].owner, sizeof (qj.owner));
        ms_strlcpy (qj.app, jobs[i].app, sizeof (qj.app));
        qj.nodes = jobs[i].nodes;
        qj.time_limit_min = jobs[i].limit_min;
        /* a job the site's partitions or rules no longer admit is left
         * out, as dispatch would leave it */
        if (job_constraints (d, &qj, opts, allowed, &k, &why) == 0) {
            daemon_mix_count (d, &k, jobs[i].submit);
            used++;
            /* still in the queue (back to queued after a failed submit, a
             * copy lost, a re-route): not counted again when decided */
            if (jobs[i].in_queue)
                mixids_add (&d->ds.mixed, jobs[i].id);
        }
        /* its wait and runtime, as the daemon saw them (the lean) */
        if (jobs[i].started > 0 && jobs[i].finished > 0)
            jobmix_observe (&d->ds.mix, jobs[i].started - jobs[i].eligible,
                            jobs[i].finished - jobs[i].started);
        free (why);
        json_decref (opts);
        /* the API's hooks wait for d->ds.mu: let them in now and then */
        if (i % 1024 == 1023) {
            pthread_mutex_unlock (&d->ds.mu);
            pthread_mutex_lock (&d->ds.mu);
        }
    }
    jobmix_apply (&d->ds.mix, d->site, &d->ds.pol);
    kept = d->ds.mix.nring;
    ended = d->ds.mix.nseen;
    scale = d->ds.pol.odds_scale;
    share = 100 * jobmix_wait_share (&d->ds.mix);
    lean = jobmix_lean (&d->ds.mix, &d->ds.pol);
    pthread_mutex_unlock (&d->ds.mu);
    db_decided_free (jobs, n);
    free (allowed);
    if (scale > 0)
        daemon_log (LOG_INFO,
                    "calibration: %zu of %zu decided jobs re-read, %zu with a "
                    "choice kept, %zu seen to end (waits %.3g%% of their "
                    "response: lean %.4g); energy odds times %.4g",
                    used, n, kept, ended, share, lean, scale);
    else
        daemon_log (LOG_INFO,
                    "calibration: %zu of %zu decided jobs re-read, %zu with a "
                    "choice kept, %zu seen to end; plain energy odds "
                    "(calibrated from %d)",
                    used, n, kept, ended, MS_MIX_MIN);
}

/* Decide every job of the batch; the view counts each choice, so the
 * batch's later jobs see its earlier ones (with metasched_window the
 * batch is decided at once, after every job's candidates are known). */
static void
decide_batch (ms_daemon_t *d, djob_t *b, size_t n)
{
    double t0 = mono ();
    dwindow_t win = { 0, NULL, NULL, NULL, NULL };

    unsigned char *allowed = ms_xcalloc (d->site->nparts + 1, 1);
    /* under power budgets one job at a time (engine_power_place), as the
     * simulator places them */
    if (d->ds.pol.kind == POL_METASCHED_WINDOW && !daemon_power_on (d)) {
        win.job = ms_xcalloc (n + 1, sizeof (*win.job));
        win.key = ms_xcalloc (n + 1, sizeof (*win.key));
        win.cs = ms_xcalloc (n + 1, sizeof (*win.cs));
        win.down = ms_xcalloc (n + 1, sizeof (*win.down));
    }

    pthread_mutex_lock (&d->ds.mu);
    for (size_t i = 0; i < n; i++) {
        djob_t *x = &b[i];
        jobkey_t k;
        ms_decision_t dec;
        char *down;

        if (daemon_decide_job (d, &x->j, x->opts, allowed, &k, &dec, &x->why,
                               &down)
            < 0) {
            x->fits_nowhere = true;
            continue;
        }
        /* a job of the A/B baseline: one entry, by the baseline */
        if ((x->ab = ab_group (d, x->j.id)) && !strcmp (x->ab, AB_BASELINE)) {
            ab_decide (d, &dec);
            take_decision (d, x, &k, &d->ds.cs, &dec, down);
            continue;
        }
        if (win.job) {
            /* decided with the rest of the batch (window_decide) */
            size_t m = win.n++;
            win.job[m] = i;
            win.key[m] = k;
            win.key[m].allowed = NULL; /* the buffer is the next job's */
            /* with the list's home and the grid's flags: the window
             * weighs carbon and cost, the decision's JSON shows them */
            candidates_copy (&win.cs[m], &d->ds.cs);
            win.down[m] = down;
            continue;
        }
        take_decision (d, x, &k, &d->ds.cs, &dec, down);
    }
    if (win.n)
        window_decide (d, b, &win);
    free (win.job);
    free (win.key);
    free (win.cs);
    free (win.down);
    d->m.decisions += n;
    d->m.decide_s += mono () - t0;
    pthread_mutex_unlock (&d->ds.mu);
    free (allowed);
}

/* A job that no configured partition can run: cancelled with the reason
 * rather than kept for ever. */
static int
cancel_unfit (ms_daemon_t *d, int64_t id, const char *why)
{
    ms_error_t e;
    bool ok;
    char *reason = NULL;

    if (why && *why
        && asprintf (&reason, "no partition may run this job: %s", why) < 0)
        reason = NULL;
    if (queue_claim (d->db, id, &ok, &e) < 0
        || (ok
            && queue_cancel (d->db, id, "deciding",
                             reason ? reason
                                    : "no configured partition can run this "
                                      "job (nodes, partition or app)",
                             &ok, &e)
                   < 0)) {
        daemon_log (LOG_ERR, "job %" PRId64 ": %s", id, e.text);
        free (reason);
        return -1;
    }
    daemon_log (LOG_NOTICE,
                "job %" PRId64 ": fits on no partition; cancelled%s%s", id,
                reason ? ": " : "", reason ? reason : "");
    free (reason);
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
    char ablabel[64];

    snprintf (ablabel, sizeof (ablabel), "ab_baseline:%s",
              policy_kind_name ((ms_polkind_t)d->ds.set.ab_policy));

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
            .policy
            = x->ab && !strcmp (x->ab, AB_BASELINE) ? ablabel : d->ds.pol.label,
            .ab_group = x->ab,
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
        *w = (sworker_t){ .d = d,
                          .cl = ci,
                          .b = x->b,
                          .n = x->n,
                          .siblings
                          = d->ds.set.dispatch_mode == DISPATCH_SIBLINGS };
        for (size_t i = 0; i < x->n && !work; i++)
            for (size_t c = 0; x->b[i].committed && c < x->b[i].nch; c++)
                if (d->site->parts[x->b[i].chosen[c].part].cluster == ci)
                    work = true;
        if (!work)
            continue;
        /* only this thread hands them out */
        w->ticket = d->cl[ci].turn.tickets++;
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
    pthread_mutex_lock (&d->ds.mu);
    for (size_t ci = 0; ci < d->ncl; ci++) {
        d->cl[ci].submits += acc[ci];
        d->cl[ci].submit_s += busy[ci];
    }
    /* wall time with submits under way: batches overlap, count it once */
    end = mono ();
    d->m.submit_s
        += end
           - (x->t_start > d->m.submit_mark ? x->t_start : d->m.submit_mark);
    d->m.submit_mark = end;
    pthread_mutex_unlock (&d->ds.mu);
    free (acc);
    free (busy);
    free (x->w);
    x->w = NULL;
}

/* Record what the submits gave, in one transaction that need not wait for
 * the flush (a lost commit leaves the rows dispatching: reconciliation
 * adopts the cluster jobs by their tags). Then cancel the copies of jobs
 * cancelled meanwhile, log, and note the boosts. */
static int
record_batch (ms_daemon_t *d, djob_t *b, size_t n)
{
    bool siblings = d->ds.set.dispatch_mode == DISPATCH_SIBLINGS;
    queue_sub_new_t (*subs)[MS_MAX_CHOICES]
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
            daemon_power_record (d, x->chosen[c].part, x->bid[c],
                                 &x->chosen[c], x->j.app);
            subs[i][nsub[i]] = (queue_sub_new_t){
                .cluster = cname,
                .partition = pc->name,
                .freq_khz = x->chosen[c].f_khz,
                .cluster_job_id = x->bid[c],
                .rank = (int)c,
                .nice = x->choices[c].nice,
                .gated = siblings,
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
        if (nsub[i] == 0 && refused) {
            /* refused in a row: a dispatch taken and started resets the
             * count (queue_running), one refused at submission adds one */
            if (job_refused (d, x->j.id, "dispatching", x->j.refusals, why, &e)
                < 0)
                goto rollback;
            continue;
        }
        if (nsub[i] == 0) {
            if (queue_requeue (d->db, x->j.id, "dispatching", why, false, &ok,
                               &e)
                < 0)
                goto rollback;
            d->m.requeued++;
            continue;
        }
        if (queue_submitted_tx (d->db, x->j.id, subs[i], nsub[i], &kept[i], &e)
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
        d->m.dispatched++;
        if (!kept[i]) {
            /* cancelled while it was being submitted: its copies are
             * cancelled once the workers are done with the handles */
            for (size_t s = 0; s < nsub[i]; s++) {
                d->sub.late = ms_xrealloc (
                    d->sub.late, (d->sub.nlate + 1) * sizeof (*d->sub.late));
                d->sub.late[d->sub.nlate].cl
                    = (size_t)cluster_index (d, subs[i][s].cluster);
                d->sub.late[d->sub.nlate].bid = subs[i][s].cluster_job_id;
                ms_strlcpy (d->sub.late[d->sub.nlate].cluster,
                            subs[i][s].cluster,
                            sizeof (d->sub.late[d->sub.nlate].cluster));
                d->sub.nlate++;
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
        {
            /* an operator's --priority (the API took it from admins only)
             * is the job's on every copy; metasched's boost then stays
             * off it */
            json_t *pr = json_object_get (x->opts, "priority");
            if (json_is_integer (pr) && json_integer_value (pr) > 0
                && json_integer_value (pr) <= JOBSPEC_PRIORITY_MAX) {
                for (size_t s = 0; s < nsub[i]; s++)
                    priority_later (
                        d, &d->cl[cluster_index (d, subs[i][s].cluster)],
                        subs[i][s].cluster_job_id,
                        (uint32_t)json_integer_value (pr));
            } else if (!siblings && x->opt && d->ds.set.priority_boost)
                boost_later (d, &d->cl[cluster_index (d, subs[i][0].cluster)],
                             subs[i][0].cluster_job_id);
        }
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
            rc = cancel_unfit (d, x->b[i].j.id, x->b[i].why);
        else if (x->b[i].nch == 0 && x->b[i].why) {
            ms_error_t e;
            if (queue_note (d->db, x->b[i].j.id, x->b[i].why, &e) < 0)
                daemon_log (LOG_ERR, "job %" PRId64 ": %s", x->b[i].j.id,
                            e.text);
        }
    if (rc < 0)
        return -1;
    /* the leader may have changed while we decided (asked at most every
     * LEADER_CHECK_S within a cycle: the rows' state transitions keep the
     * dispatch exactly-once whoever leads) */
    if (mono () - d->ld.checked > LEADER_CHECK_S) {
        if (!daemon_leadership (d))
            return 0; /* nothing committed: nothing goes out */
        d->ld.checked = mono ();
    }
    t0 = mono ();
    rc = commit_batch (d, x->b, n);
    pthread_mutex_lock (&d->ds.mu);
    d->m.commit_s += mono () - t0;
    d->m.batches++;
    pthread_mutex_unlock (&d->ds.mu);
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
    pthread_mutex_lock (&d->ds.mu);
    d->m.record_s += mono () - t0;
    pthread_mutex_unlock (&d->ds.mu);
    for (size_t i = 0; i < x->n; i++) {
        free (x->b[i].cands);
        free (x->b[i].why);
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
    pthread_mutex_lock (&d->rf.mu);
    d->rf.dispatch_busy = busy;
    pthread_mutex_unlock (&d->rf.mu);
}

/* Cancel the copies of jobs cancelled while they were being submitted
 * (record_batch noted them); no submit worker runs. */
static void
cancel_late (ms_daemon_t *d)
{
    for (size_t k = 0; k < d->sub.nlate; k++) {
        cluster_t *c = &d->cl[d->sub.late[k].cl];
        ms_error_t e;
        if (backend_cancel (c->b, d->sub.late[k].bid, &e) < 0) {
            daemon_log (LOG_WARNING,
                        "cancelling %s job %" PRIu64 " (its meta job was "
                        "cancelled while it was submitted): %s",
                        d->sub.late[k].cluster, d->sub.late[k].bid, e.text);
            continue;
        }
        c->last_action = mono ();
        queue_sub_state (d->db, d->sub.late[k].cluster, d->sub.late[k].bid,
                         "cancelled", &e);
    }
    d->sub.nlate = 0;
}

/* Dispatch the queued jobs in batches, oldest first, as a pipeline: while
 * the batches before it are submitted, the next batch is read, decided (on
 * a view that counts the batches before it) and committed, and its
 * submits queue behind theirs on each cluster; the oldest is recorded
 * while the newer ones' submits go on. At most DISPATCH_INFLIGHT batches
 * are under way. */
static int
dispatch_batches (ms_daemon_t *d, bool *drainedp)
{
    double t0 = mono ();
    int64_t last = 0;
    dbatch_t fl[DISPATCH_INFLIGHT]; /* under way, oldest first */
    size_t nfl = 0;
    bool more = true;
    int rc = 0;
    size_t chunk = DISPATCH_FIRST;

    for (size_t ci = 0; ci < d->ncl; ci++)
        d->cl[ci].turn.stop = false; /* no worker runs */
    for (;;) {
        /* jobs left queued in this cycle (ids up to `last`) wait for the
         * next one */
        more = more && rc == 0 && d->ld.leader
               && mono () - t0 <= CYCLE_DISPATCH_MAX_S;
        if (more) {
            queue_job_t *jobs = NULL;
            size_t n = 0;
            ms_error_t e;

            if (queue_take_queued (d->db, last, chunk, &jobs, &n, &e) < 0) {
                daemon_log (LOG_ERR, "reading the queue: %s", e.text);
                rc = -1;
            } else if (n == 0)
                *drainedp = true; /* every queued job was read */
            else {
                dbatch_t x = { 0 };
                if (last == 0) {
                    /* The settings again, read after these jobs: a job
                     * queued once `metasched config set` has returned is
                     * decided by what it set, also when the change came
                     * while this cycle read the clusters. */
                    daemon_load_settings (d);
                    set_dispatch_busy (d, true);
                }
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
int
dispatch_queued (ms_daemon_t *d)
{
    bool drained = false;
    int rc;

    pthread_mutex_lock (&d->ds.mu);
    daemon_power_pass (d);
    pthread_mutex_unlock (&d->ds.mu);
    rc = dispatch_batches (d, &drained);
    set_dispatch_busy (d, false);
    /* the whole queue seen in this pass: the counted jobs it did not see
     * have left it (not when the pass stopped early: the jobs after the
     * last read would be forgotten and counted again) */
    if (rc == 0 && drained)
        daemon_mix_prune (d);
    return rc;
}
