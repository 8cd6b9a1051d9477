/* hooks.c - the API's hooks (daemon_api_hooks), called from the API
 * thread: admission and what-if on the latest snapshot of the cycle's
 * picture (snapshot.c, without d->ds.mu), the clusters' state and the
 * metrics under d->ds.mu around what they read.
 */
#define _GNU_SOURCE
#include "config.h"

#include <pwd.h>

#include "metasched/daemon/daemon.h"
#include "metasched/daemon/daemon_int.h"
#include "partitions/slurmrest.h"

/* ---- the API's hooks (called from the API thread) ---- */

/* The user name of uid ("" if none). */
static void
uid_name (uid_t uid, char *buf, size_t size)
{
    struct passwd pw, *pp = NULL;
    char tmp[4096];
    buf[0] = '\0';
    if (getpwuid_r (uid, &pw, tmp, sizeof (tmp), &pp) == 0 && pp)
        ms_strlcpy (buf, pp->pw_name, size);
}

/* Where req may run (placement.h): allowed[] and the excluded places; 0
 * where it may run nowhere, with errp (HTTP 409) listing every reason.
 * d: a snapshot's daemon (snapshot_daemon). */
static int
placement_of_req (ms_daemon_t *d, const ms_apireq_t *req, uid_t uid,
                  unsigned char *allowed, json_t **excluded, json_t **shown,
                  json_t **cshown, ms_error_t *errp)
{
    char user[64];
    size_t n;
    long np;

    uid_name (uid, user, sizeof (user));
    n = job_placement (d, &req->sb, user,
                       req->sb.nhet ? req->first_nodes : req->nodes,
                       req->time_limit_min,
                       req->cwd, req->std_out, req->std_err, req->std_in,
                       req->tasks, req->tasks_per_node, req->cpus_per_task,
                       allowed, excluded);
    /* within what the user's --partition names (honor, map) */
    np = partition_request (d, req->partition, allowed, *excluded, shown,
                            errp);
    if (np == -1)
        return -1;
    /* ... and on the clusters its --clusters names (honor, map) */
    if (n > 0 && np != 0) {
        long nc = cluster_request (d, req->sb.clusters, allowed, *excluded,
                                   cshown, errp);
        if (nc == -1)
            return -1;
        if (nc == 0) {
            char *why = placement_reasons_text (*excluded);
            ms_err (errp, MS_ERR_INPUT,
                    "no partition may run this job on --clusters=%s: %s",
                    req->sb.clusters, why);
            errp->http_status = 409;
            free (why);
            return -1;
        }
    }
    if (n == 0 || np == 0) {
        char *why = placement_reasons_text (*excluded);
        ms_err (errp, MS_ERR_INPUT, "no partition may run this job%s%s: %s",
                np == 0 ? " of --partition=" : "", np == 0 ? req->partition : "",
                why);
        errp->http_status = 409;
        free (why);
        return -1;
    }
    return 0;
}

/* The hooks below read the latest snapshot of the cycle's picture
 * (snapshot.c), never the cycle's own under d->ds.mu: a storm of requests
 * does not hold the cycle up. */

static void
snapshot_daemon_free (ms_daemon_t *w)
{
    candidates_free (&w->ds.cs);
    free (w);
}

/* A submission that may run nowhere is refused with every reason; one
 * taken is told of the hints that a cluster it may run on drops. A
 * daemon without the clusters' picture yet (standby, starting) takes it:
 * the dispatch checks again. */
static int
hook_admit (void *ctx, const ms_apireq_t *req, uid_t uid, json_t *notes,
            ms_error_t *errp)
{
    ms_daemon_t *d = ctx, *w;
    snap_t *snap;
    unsigned char *allowed;
    json_t *ex = NULL;
    const char *gtype;
    int rc = 0,
        gpus = jobspec_gpus_per_node_tasks (&req->sb, req->nodes, req->tasks,
                                            req->tasks_per_node, &gtype);

    /* more GPUs than any partition has: refused whatever the clusters say
     * (clusters.conf alone decides) */
    if (job_gpus_check (d, gpus, gtype, errp) < 0)
        return -1;
    if (!(snap = snapshot_take (d)))
        return 0;
    w = snapshot_daemon (snap);
    allowed = ms_xcalloc (w->site->nparts + 1, 1);
    rc = placement_of_req (w, req, uid, allowed, &ex, NULL, NULL, errp);
    if (rc == 0 && notes)
        job_since_notes (w, &req->sb, allowed, notes);
    free (allowed);
    json_decref (ex);
    snapshot_daemon_free (w);
    snapshot_drop (d, snap);
    return rc;
}

/* The what-if's "carbon": whether the candidates' carbon and cost are in
 * the score, and where not, why (a zone without a fresh signal, a run
 * past a signal's end): energy alone. */
static void
carbon_whatif (const ms_daemon_t *w, json_t *o)
{
    const char *note = daemon_carbon_note (w);
    bool in = w->ds.cs.carbon && w->ds.pol.carbon;
    json_t *c
        = json_pack ("{s:b, s:b, s:f, s:f}", "carbon_known", in, "cost_known",
                     w->ds.cs.cost && w->ds.pol.carbon, "w_carbon",
                     w->ds.pol.w_carbon, "w_cost", w->ds.pol.w_cost);

    if (note || !in) {
        char text[1400];
        snprintf (text, sizeof (text),
                  "carbon signal %s%s%s: scored on energy alone",
                  note ? "stale or missing (" : "missing over a candidate's "
                                                "predicted run",
                  note ? note : "", note ? ")" : "");
        json_object_set_new (c, "note", json_string (text));
    }
    json_object_set_new (o, "carbon", c);
}

static int
hook_whatif (void *ctx, const ms_apireq_t *req, uid_t uid, json_t **out,
             ms_error_t *errp)
{
    ms_daemon_t *d = ctx, *w;
    snap_t *snap;
    jobkey_t k;
    ms_decision_t dec;
    json_t *o, *cands, *ex = NULL, *shown = NULL, *cshown = NULL;
    unsigned char *allowed;
    const char *gtype;
    char *text, *pwhy = NULL;
    double lean, wait_share;
    size_t nseen, nring;
    int gpus = jobspec_gpus_per_node_tasks (&req->sb, req->nodes, req->tasks,
                                            req->tasks_per_node, &gtype);

    if (job_gpus_check (d, gpus, gtype, errp) < 0)
        return -1;

    if (!(snap = snapshot_take (d))) {
        ms_err (errp, MS_ERR_MISSING,
                "this instance has no predictions yet (standby or starting)");
        errp->http_status = 503;
        return -1;
    }
    w = snapshot_daemon (snap);
    if (job_key (w, req->app, req->nodes, req->time_limit_min, req->partition,
                 &k)
        < 0) {
        snapshot_daemon_free (w);
        snapshot_drop (d, snap);
        ms_err (errp, MS_ERR_INPUT,
                "no configured partition can run this job (nodes %d%s%s)",
                req->nodes, req->partition[0] ? ", partition " : "",
                req->partition);
        errp->http_status = 400;
        return -1;
    }
    allowed = ms_xcalloc (w->site->nparts + 1, 1);
    if (placement_of_req (w, req, uid, allowed, &ex, &shown, &cshown, errp)
        < 0) {
        snapshot_daemon_free (w);
        snapshot_drop (d, snap);
        free (allowed);
        json_decref (ex);
        json_decref (shown);
        json_decref (cshown);
        return -1;
    }
    k.allowed = allowed;
    k.gpus = jobspec_gpus_per_node_tasks (&req->sb, k.nodes, req->tasks,
                                          req->tasks_per_node, NULL);
    if (req->sb.cpu_freq[0])
        k.cpufreq = req->sb.cpu_freq_spec;
    k.nodes_max = req->sb.nodes_max > k.nodes ? req->sb.nodes_max : 0;
    ms_strlcpy (k.nodes_list, k.nodes_max ? req->sb.nodes_list : "",
                sizeof (k.nodes_list));
    k.deadline = req->sb.deadline > 0 ? (double)req->sb.deadline : 0;
    daemon_candidates (w, &k, false);
    if (daemon_power_on (w) && w->ds.cs.n) {
        /* the power budgets' rule, as the cycle applies it; held, the
         * candidates are shown with the reason the job would wait for */
        ms_cand_t *all = ms_xcalloc (w->ds.cs.n + 1, sizeof (*all));
        size_t n = w->ds.cs.n;
        memcpy (all, w->ds.cs.c, n * sizeof (*all));
        if (daemon_power_place (w, &dec, &pwhy) != 0) {
            memcpy (w->ds.cs.c, all, n * sizeof (*all));
            w->ds.cs.n = n;
        }
        free (all);
    }
    policy_decide (&w->ds.pol, w->site, &w->ds.cs, w->ds.view, &dec);
    /* the same JSON as the decision rows hold */
    text = candidates_json (w, &w->ds.cs, &dec, &req->sb, NULL);
    cands = json_loads (text, 0, NULL);
    free (text);
    o = cands ? json_pack ("{s:s, s:s, s:o, s:o}", "policy", w->ds.pol.label,
                           "app", req->app[0] ? req->app : UNKNOWN_APP,
                           "candidates", cands, "excluded", ex)
              : NULL;
    if (!cands)
        json_decref (ex);
    /* the hints that a cluster of an older Slurm drops */
    if (o) {
        json_t *notes = json_array ();
        job_since_notes (w, &req->sb, allowed, notes);
        if (json_array_size (notes))
            json_object_set (o, "notes", notes);
        json_decref (notes);
    }
    if (o && pwhy)
        json_object_set_new (o, "power_hold", json_string (pwhy));
    if (o && w->dc->ncsig)
        carbon_whatif (w, o);
    free (pwhy);
    /* what the user's --partition became (honor, map) */
    if (o && shown)
        json_object_set (o, "partition_request", shown);
    /* ... and its --clusters */
    if (o && cshown)
        json_object_set (o, "cluster_request", cshown);
    /* the terms of the ranking the choice was made by */
    if (o) {
        json_t *rk = ranking_json (w, &w->ds.cs);
        if (rk)
            json_object_set_new (o, "ranking", rk);
    }
    /* the energy odds the choice was made with, and what set them */
    snapshot_odds (snap, &lean, &wait_share, &nseen, &nring);
    if (o && policy_is_metasched (w->ds.pol.kind))
        json_object_set_new (o, "odds",
                             json_pack ("{s:f, s:f, s:I, s:f, s:I}", "scale",
                                        w->ds.pol.odds_scale, "lean", lean,
                                        "seen_to_end", (json_int_t)nseen,
                                        "wait_share", wait_share, "kept",
                                        (json_int_t)nring));
    snapshot_daemon_free (w);
    snapshot_drop (d, snap);
    free (allowed);
    json_decref (shown);
    json_decref (cshown);
    if (!o) {
        ms_err (errp, MS_ERR_SYSTEM, "could not encode the candidates");
        errp->http_status = 500;
        return -1;
    }
    *out = o;
    return 0;
}

/* A partition's limits as the cluster reports them (and clusters.conf
 * overrides), for GET /v1/clusters. */
static json_t *
limits_json (const ms_partition_state_t *p)
{
    json_t *fs = json_array ();
    for (size_t i = 0; i < p->nfeatsets; i++)
        json_array_append_new (fs, json_pack ("{s:s, s:i}", "features",
                                              p->featsets[i].features, "nodes",
                                              p->featsets[i].nodes));
    return json_pack (
        "{s:I, s:i, s:i, s:I, s:o, s:s, s:s, s:s, s:s, s:s}", "max_time_min",
        (json_int_t)p->max_time_min, "max_nodes", p->max_nodes, "min_nodes",
        p->min_nodes, "mem_per_node_mb", (json_int_t)p->mem_per_node_mb,
        "node_features", fs, "allow_accounts", p->allow_accounts,
        "deny_accounts", p->deny_accounts, "allow_groups", p->allow_groups,
        "allow_qos", p->allow_qos, "deny_qos", p->deny_qos);
}

static int
hook_clusters (void *ctx, json_t **out, ms_error_t *errp)
{
    ms_daemon_t *d = ctx;
    json_t *a = json_array ();

    (void)errp;
    pthread_mutex_lock (&d->ds.mu);
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
            if (pc->gpus_per_node > 0) {
                json_object_set_new (po, "gpus_per_node",
                                     json_integer (pc->gpus_per_node));
                json_object_set_new (po, "gpu_model",
                                     json_string (pc->gpu_model));
            }
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
                    json_object_set_new (po, "limits",
                                         limits_json (&c->parts[k]));
                    json_object_set_new (po, "gpus_total",
                                         json_integer (c->parts[k].gpus_total));
                    json_object_set_new (po, "gpus_idle",
                                         json_integer (c->parts[k].gpus_idle));
                }
            json_array_append_new (parts, po);
        }
        json_t *fs = json_array ();
        for (size_t f = 0; f < c->conf->nfilesystems; f++)
            json_array_append_new (fs, json_string (c->conf->filesystems[f]));
        json_array_append_new (
            a, json_pack ("{s:s, s:b, s:s, s:s, s:s, s:o, s:o, s:o}", "name",
                          c->conf->name, "reachable", c->up, "api_version",
                          c->api_version, "api_version_source",
                          c->conf->api_version[0] ? "pinned" : "negotiated",
                          "last_error", c->last_error, "partitions", parts,
                          "filesystems", fs, "accounting",
                          json_pack ("{s:b, s:b, s:i, s:i, s:s}", "read",
                                     c->acct_read, "enabled",
                                     c->acct_read && c->acct.enabled,
                                     "associations", (int)c->acct.nassocs,
                                     "qos", (int)c->acct.nqos, "last_error",
                                     c->acct_error)));
    }
    pthread_mutex_unlock (&d->ds.mu);
    *out = json_pack ("{s:o, s:b}", "clusters", a, "leader", d->ld.leader);
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
    pthread_mutex_lock (&d->ds.mu);
    P ("# TYPE metaschedd_leader gauge\nmetaschedd_leader %d\n", d->ld.leader);
    P ("# TYPE metaschedd_cycles_total counter\nmetaschedd_cycles_total "
       "%" PRIu64 "\n",
       d->m.cycles);
    P ("# TYPE metaschedd_cycle_seconds gauge\nmetaschedd_cycle_seconds "
       "%.6f\n",
       d->m.last_cycle_s);
    P ("# TYPE metaschedd_decisions_total counter\n"
       "metaschedd_decisions_total %" PRIu64 "\n",
       d->m.decisions);
    /* the job mix: the jobs counted (each once), and those of them still
     * in the queue, remembered so as not to count them again */
    P ("# TYPE metaschedd_jobmix_jobs gauge\nmetaschedd_jobmix_jobs %zu\n"
       "# TYPE metaschedd_jobmix_queued gauge\n"
       "metaschedd_jobmix_queued %zu\n",
       jobmix_njobs (&d->ds.mix), mixids_count (&d->ds.mixed));
    P ("# TYPE metaschedd_decide_seconds_total counter\n"
       "metaschedd_decide_seconds_total %.6f\n",
       d->m.decide_s);
    P ("# TYPE metaschedd_dispatch_batches_total counter\n"
       "metaschedd_dispatch_batches_total %" PRIu64 "\n",
       d->m.batches);
    P ("# TYPE metaschedd_dispatch_seconds_total counter\n"
       "metaschedd_dispatch_seconds_total{phase=\"commit\"} %.6f\n"
       "metaschedd_dispatch_seconds_total{phase=\"submit\"} %.6f\n"
       "metaschedd_dispatch_seconds_total{phase=\"record\"} %.6f\n",
       d->m.commit_s, d->m.submit_s, d->m.record_s);
    P ("# TYPE metaschedd_dispatched_total counter\n"
       "metaschedd_dispatched_total %" PRIu64 "\n",
       d->m.dispatched);
    P ("# TYPE metaschedd_copies_refused_total counter\n"
       "metaschedd_copies_refused_total %" PRIu64 "\n",
       d->m.copies_refused);
    P ("# TYPE metaschedd_refused_cancelled_total counter\n"
       "metaschedd_refused_cancelled_total %" PRIu64 "\n",
       d->m.refused_cancelled);
    P ("# TYPE metaschedd_requeued_total counter\n"
       "metaschedd_requeued_total %" PRIu64 "\n",
       d->m.requeued);
    P ("# TYPE metaschedd_adopted_total counter\n"
       "metaschedd_adopted_total %" PRIu64 "\n",
       d->m.adopted);
    P ("# TYPE metaschedd_duplicates_cancelled_total counter\n"
       "metaschedd_duplicates_cancelled_total %" PRIu64 "\n",
       d->m.dup_cancelled);
    P ("# TYPE metaschedd_forged_tags_total counter\n"
       "metaschedd_forged_tags_total %" PRIu64 "\n",
       d->forge.forged);
    P ("# TYPE metaschedd_reroutes_total counter\n"
       "metaschedd_reroutes_total %" PRIu64 "\n",
       d->m.reroutes);
    P ("# TYPE metaschedd_priority_boosts_total counter\n"
       "metaschedd_priority_boosts_total %" PRIu64 "\n",
       d->m.boosts);
    P ("# TYPE metaschedd_first_choices_aged_total counter\n"
       "metaschedd_first_choices_aged_total %" PRIu64 "\n",
       d->m.aged);
    P ("# TYPE metaschedd_cycle_errors_total counter\n"
       "metaschedd_cycle_errors_total %" PRIu64 "\n",
       d->m.db_errors);
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
    daemon_spool_drops_metrics (d, &buf, &len, &cap);
    daemon_power_metrics (d, &buf, &len, &cap);
    daemon_power_measured_metrics (d, &buf, &len, &cap);
    daemon_carbon_metrics (d, &buf, &len, &cap);
    pthread_mutex_unlock (&d->ds.mu);
    P ("# TYPE metaschedd_cluster_readings_unchanged_total counter\n");
    pthread_mutex_lock (&d->rf.mu);
    for (size_t i = 0; i < d->ncl; i++)
        P ("metaschedd_cluster_readings_unchanged_total{cluster=\"%s\"} "
           "%" PRIu64 "\n",
           d->cl[i].conf->name, d->cl[i].rd.unchanged);
    pthread_mutex_unlock (&d->rf.mu);
#undef P
    *textp = buf;
    return 0;
}

static void
hook_kick (void *ctx)
{
    daemon_kick (ctx);
}

/* The start gate's claimer as its cluster records it: the daemon's latest
 * listing where it shows the job, else the cluster asked now on a handle
 * of the API thread's own (a copy that just started may not be listed
 * yet; the daemon's handles belong to its own threads). */
static int
hook_cluster_job (void *ctx, const char *cluster, uint64_t id, uid_t *uidp,
                  uint64_t *array_idp, ms_error_t *errp)
{
    ms_daemon_t *d = ctx;
    const ms_job_info_t *j;
    cluster_t *c = NULL;
    ms_backend_t *b = NULL;
    ms_job_info_t info;
    int rc;
    long ci = cluster_index (d, cluster);

    if (ci < 0)
        return ms_err (errp, MS_ERR_MISSING, "no cluster %s", cluster);
    c = &d->cl[ci];
    pthread_mutex_lock (&d->ds.mu);
    if ((j = cluster_find_job (c, id))) {
        *uidp = (uid_t)j->user_id;
        *array_idp = j->array_job_id;
        pthread_mutex_unlock (&d->ds.mu);
        return 0;
    }
    pthread_mutex_unlock (&d->ds.mu);
    if (slurmrest_from_conf (c->conf, &b, errp) < 0)
        return -1;
    rc = backend_job (b, id, &info, errp);
    backend_destroy (b);
    if (rc < 0)
        return -1;
    *uidp = (uid_t)info.user_id;
    *array_idp = info.array_job_id;
    return 0;
}

/* A signal to a cluster job (mscancel --signal), through a connection of
 * its own as hook_cluster_job asks. */
static int
hook_signal (void *ctx, const char *cluster, uint64_t id, int sig,
             ms_error_t *errp)
{
    ms_daemon_t *d = ctx;
    cluster_t *c = NULL;
    ms_backend_t *b = NULL;
    int rc;
    long ci = cluster_index (d, cluster);

    if (ci < 0)
        return ms_err (errp, MS_ERR_MISSING, "no cluster %s", cluster);
    c = &d->cl[ci];
    if (slurmrest_from_conf (c->conf, &b, errp) < 0)
        return -1;
    rc = backend_signal (b, id, sig, errp);
    backend_destroy (b);
    return rc;
}

static const ms_api_hooks_t hooks = {
    .cluster_job = hook_cluster_job,
    .signal = hook_signal,
    .whatif = hook_whatif,
    .admit = hook_admit,
    .clusters = hook_clusters,
    .metrics = hook_metrics,
    .kick = hook_kick,
    .check_power = daemon_power_check,
};

const ms_api_hooks_t *
daemon_api_hooks (void)
{
    return &hooks;
}
