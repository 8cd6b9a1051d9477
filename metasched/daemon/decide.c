/* decide.c - deciding: a job's key in the prediction table, its
 * candidates and the policy's decision (the policy code the simulator
 * runs), every candidate with its score as JSON, and the time limit scaled
 * to the chosen partition.
 */
#define _GNU_SOURCE
#include "config.h"

#include <grp.h>
#include <pwd.h>

#include "metasched/common/jobspec_json.h"
#include "metasched/daemon/daemon_int.h"

/* ---- deciding ---- */

/* The job of key k as the engine sees it (allowed: NULL). */
static void
key_ejob (const jobkey_t *k, ms_ejob_t *ej)
{
    memset (ej, 0, sizeof (*ej));
    ej->app = (size_t)k->app;
    ej->home = k->home;
    ej->nodes = k->nodes;
    ej->nodes_max = k->nodes_max;
    ej->nodes_list = k->nodes_list[0] ? k->nodes_list : NULL;
    ej->gpus = k->gpus;
    ej->base_s = k->base_s;
    ej->limit_s = k->limit_min * 60.0;
    ej->ntasks = k->ntasks;
    ej->max_running = k->max_running;
    ej->cpufreq = k->cpufreq;
    ej->deadline = k->deadline;
}

/* Candidates of the job, in d->ds.cs (engine_candidates), on partitions of
 * reachable clusters (all of them with every_cluster) that it may run on
 * and the user asked for, each partition's MaxTime as its cluster reports
 * it. Caller holds d->ds.mu. */
void
daemon_candidates (ms_daemon_t *d, const jobkey_t *k, bool every_cluster)
{
    size_t np = d->site->nparts;
    unsigned char *ok = ms_xcalloc (np + 1, 1);
    double *mx = ms_xcalloc (np + 1, sizeof (*mx));
    ms_ejob_t ej;

    for (size_t p = 0; p < np; p++) {
        const ms_partconf_t *pc = &d->site->parts[p];
        uint32_t m = partition_max_time (d, p);
        ok[p] = (every_cluster || d->cl[pc->cluster].up)
                && (k->pinned < 0 || (long)p == k->pinned)
                && (!k->allowed || k->allowed[p]);
        mx[p] = m ? m * 60.0 : INFINITY;
    }
    key_ejob (k, &ej);
    ej.allowed = ok;
    engine_candidates (&d->ds.pol, d->site, d->ds.tab, d->ds.view, &ej, mx,
                       wall (), &d->ds.cs);
    free (ok);
    free (mx);
}

/* ... and the policy's decision on them. Caller holds d->ds.mu. */
void
daemon_decide (ms_daemon_t *d, const jobkey_t *k, bool every_cluster,
               ms_decision_t *dec)
{
    daemon_candidates (d, k, every_cluster);
    policy_decide (&d->ds.pol, d->site, &d->ds.cs, d->ds.view, dec);
}

/* Why a job that some partition could run may wait: the clusters of its
 * candidates (d->ds.cs with every cluster's; left with those of the clusters
 * up) that are unreachable (engine_hold_down); NULL when none is. Caller
 * holds d->ds.mu. */
static char *
waiting_why (ms_daemon_t *d)
{
    char names[512] = "";
    size_t len = 0;
    unsigned char *up = ms_xcalloc (d->ncl + 1, 1);
    unsigned char *down = ms_xcalloc (d->ncl + 1, 1);
    ms_hold_t h;
    char *why;

    for (size_t c = 0; c < d->ncl; c++)
        up[c] = d->cl[c].up;
    engine_hold_down (d->site, up, &d->ds.cs, down, &h);
    for (size_t c = 0; c < d->ncl && len < sizeof (names); c++) {
        if (!down[c])
            continue;
        int w = snprintf (names + len, sizeof (names) - len, "%s%s",
                          len ? ", " : "", d->cl[c].conf->name);
        len += w > 0 ? (size_t)w : 0;
    }
    free (up);
    free (down);
    if (!names[0]
        || asprintf (&why,
                     "waits: every cluster that can run it is unreachable (%s)",
                     names)
               < 0)
        return NULL;
    return why;
}

/* The job's candidates on every partition it could run on by its size,
 * GPUs and time limit, whatever was asked for it, into d->ds.mix (the drain
 * price's counts and the calibration); under d->ds.mu. */
void
daemon_mix_count (ms_daemon_t *d, const jobkey_t *k, double when)
{
    jobkey_t any = *k;

    any.allowed = NULL;
    any.pinned = -1;
    memset (&any.cpufreq, 0, sizeof (any.cpufreq));
    daemon_candidates (d, &any, true);
    jobmix_add (&d->ds.mix, d->site, &d->ds.pol, &d->ds.cs, k->nodes, when);
}

void
daemon_mix_live (ms_daemon_t *d, const queue_live_t *live, size_t n)
{
    pthread_mutex_lock (&d->ds.mu);
    mixids_pass (&d->ds.mixed);
    for (size_t i = 0; i < n; i++)
        mixids_seen (&d->ds.mixed, live[i].id);
    pthread_mutex_unlock (&d->ds.mu);
}

void
daemon_mix_prune (ms_daemon_t *d)
{
    size_t gone, left;

    pthread_mutex_lock (&d->ds.mu);
    gone = mixids_prune (&d->ds.mixed);
    left = mixids_count (&d->ds.mixed);
    pthread_mutex_unlock (&d->ds.mu);
    if (gone)
        daemon_log (LOG_DEBUG,
                    "job mix: %zu counted jobs left the queue, %zu remain",
                    gone, left);
}

int
daemon_decide_job (ms_daemon_t *d, const queue_job_t *j, json_t *opts,
                   unsigned char *allowed, jobkey_t *k, ms_decision_t *dec,
                   char **whyp, char **downp)
{
    *downp = NULL;
    if (job_constraints (d, j, opts, allowed, k, whyp) < 0)
        return -1;
    if (daemon_jstr (opts, "array")) {
        /* an array is decided as a whole (engine_candidates) */
        ms_array_t a;
        ms_error_t e;
        if (jobspec_parse_array (daemon_jstr (opts, "array"), &a, &e) == 0) {
            k->ntasks = a.ntasks;
            k->max_running = a.max_running;
        }
    }
    /* the drain price's counts: the partitions the job could run on by its
     * size, GPUs and time limit, whatever was asked for it; once, at the
     * job's first decision (the simulator counts it at its arrival), with
     * its submission time as the history re-read counts it, not again
     * when it waits or comes back to the queue (doc/daemon.md, "The job
     * mix counts a job once") */
    if (mixids_add (&d->ds.mixed, j->id))
        daemon_mix_count (d, k, wall () - (j->age_s > 0 ? j->age_s : 0));
    jobmix_apply (&d->ds.mix, d->site, &d->ds.pol);
    daemon_decide (d, k, true, dec);
    if (dec->n == 0)
        return -1;
    *downp = waiting_why (d);
    daemon_candidates (d, k, false);
    if (daemon_power_on (d)) {
        /* the engine's place under power budgets (the simulator's rule):
         * where none starts it now, the job waits with the budget and
         * when */
        char *pwhy = NULL;
        if (daemon_power_place (d, dec, &pwhy) != 0 && pwhy) {
            free (*downp);
            *downp = pwhy;
        }
        return 0;
    }
    policy_decide (&d->ds.pol, d->site, &d->ds.cs, d->ds.view, dec);
    return 0;
}

void
daemon_entries (const ms_daemon_t *d, const ms_decision_t *dec,
                ms_decision_t *out)
{
    engine_entries (&d->ds.pol, daemon_power_on (d), dec, out);
}

/* ---- arrays: one meta job, one Slurm array ---- */

double
array_waves (const ms_daemon_t *d, const jobkey_t *k, size_t part, int *concp)
{
    ms_ejob_t ej;

    key_ejob (k, &ej);
    return engine_array_waves (d->site, &ej, part, concp);
}

/* Every candidate with its score, for the decisions row and what-if. */
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
    daemon_reserve (buf, *len, cap, (size_t)n);
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
 * object per candidate cost more than the decision itself). Under
 * metasched's kinds the score is the key the ranking chose by
 * (policy_explain: the calibrated energy odds, the width term, the shared
 * wait, the drain delay), with the frequency score and, for a candidate
 * the ranking set aside, why; the other policies rank by rules of their
 * own (policy.h) and show no score. Cluster and partition names are
 * configuration names (clusterconf.c admits letters, digits, '-', '_'
 * and '.'), which need no escaping; the reasons are the core's own
 * text. */
char *
candidates_json (const ms_daemon_t *d, const ms_cands_t *cs,
                 const ms_decision_t *dec, const ms_jobspec_t *spec,
                 double *chosen_score)
{
    char notes[1024];

    size_t len = 0, cap = 256 + cs->n * 320;
    char *buf = ms_xmalloc (cap);
    ms_cand_why_t *cw = ms_xcalloc (cs->n + 1, sizeof (*cw));
    ms_explain_t ex;
    bool why = policy_explain (&d->ds.pol, d->site, cs, d->ds.view, &ex, cw);

    cat_printf (&buf, &len, &cap, "[");
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        const ms_partconf_t *pc = &d->site->parts[c->part];
        double s = why ? cw[i].key : NAN;
        int rank = -1;
        for (size_t k = 0; k < dec->n; k++)
            if (dec->c[k].cand == i)
                rank = (int)k;
        if (rank == 0 && chosen_score)
            *chosen_score = isfinite (s) ? s : -1.0;
        cat_printf (&buf, &len, &cap,
                    "%s{\"cluster\":\"%s\",\"partition\":\"%s\","
                    "\"freq_khz\":%u,\"nodes\":%d",
                    i ? "," : "", d->site->clusters[pc->cluster].name, pc->name,
                    (unsigned)c->f_khz, c->nodes);
        cat_num (&buf, &len, &cap, "time_s", c->t);
        cat_num (&buf, &len, &cap, "time_hi_s", c->t_hi);
        cat_num (&buf, &len, &cap, "power_w", c->p);
        cat_num (&buf, &len, &cap, "energy_j", c->e);
        cat_num (&buf, &len, &cap, "wait_s", isfinite (c->w) ? c->w : -1.0);
        if (d->dc && d->dc->ncsig) {
            /* the grid's: over its predicted run (carbon.h; null where
             * its zone has no fresh signal) and a deadline job's delay */
            cat_num (&buf, &len, &cap, "carbon_g", c->carbon_g);
            cat_num (&buf, &len, &cap, "cost", c->cost);
            cat_num (&buf, &len, &cap, "shift_s", c->shift_s);
        }
        cat_num (&buf, &len, &cap, "score", s);
        if (why) {
            cat_num (&buf, &len, &cap, "freq_score", cw[i].freq_score);
            cat_num (&buf, &len, &cap, "drain_s", cw[i].drain_s);
            cat_printf (&buf, &len, &cap, ",\"admissible\":%s,\"pick\":%s",
                        cw[i].admissible ? "true" : "false",
                        cw[i].part_pick ? "true" : "false");
            if (cw[i].excluded)
                cat_printf (&buf, &len, &cap, ",\"excluded\":\"%s\"",
                            cw[i].excluded);
        }
        /* the hints its cluster's Slurm cannot take (jobspec_since.c) */
        if (spec)
            job_since_cluster_notes (d, spec, pc->cluster, notes,
                                     sizeof (notes));
        if (spec && notes[0])
            cat_printf (&buf, &len, &cap, ",\"notes\":[%s]", notes);
        cat_printf (&buf, &len, &cap, ",\"chosen\":%s",
                    rank == 0 ? "true" : "false");
        if (rank >= 0)
            cat_printf (&buf, &len, &cap, ",\"rank\":%d", rank);
        cat_printf (&buf, &len, &cap, "}");
    }
    cat_printf (&buf, &len, &cap, "]");
    free (cw);
    return buf;
}

json_t *
ranking_json (const ms_daemon_t *d, const ms_cands_t *cs)
{
    ms_cand_why_t *cw = ms_xcalloc (cs->n + 1, sizeof (*cw));
    ms_explain_t ex;
    json_t *o = NULL;

    if (policy_explain (&d->ds.pol, d->site, cs, d->ds.view, &ex, cw))
        o = json_pack ("{s:f, s:f, s:f, s:f, s:f}", "w_energy", ex.w_energy,
                       "odds_scale", ex.odds_scale, "shared_wait_s",
                       ex.shared_wait_s, "wait_weight", ex.wait_weight,
                       "best_response_s", ex.best_response_s);
    free (cw);
    return o;
}

uint32_t
partition_max_time (const ms_daemon_t *d, size_t part)
{
    const ms_partconf_t *pc = &d->site->parts[part];
    const cluster_t *c = &d->cl[pc->cluster];

    for (size_t k = 0; k < c->nparts; k++)
        if (!strcmp (c->parts[k].name, pc->name))
            return c->parts[k].max_time_min > 0
                           && c->parts[k].max_time_min < UINT32_MAX
                       ? (uint32_t)c->parts[k].max_time_min
                       : 0;
    return 0;
}

uint32_t
job_time_cap (const ms_daemon_t *d, json_t *opts, const char *user, size_t part)
{
    uint32_t cap = partition_max_time (d, part);
    const cluster_t *c = &d->cl[d->site->parts[part].cluster];
    ms_jobspec_t spec;
    ms_place_req_t r;
    ms_place_acct_t pa;
    ms_error_t e;
    char why[512];

    if (!c->acct_read || !c->acct.enabled || !c->conf->accounting)
        return cap;
    jobspec_init (&spec);
    (void)jobspec_json_read (&spec, opts, &e);
    memset (&r, 0, sizeof (r));
    r.user = user;
    r.account = spec.account;
    r.qos = spec.qos;
    r.nodes = 1;
    /* the QOS and association the job runs under there, and their
     * MaxWall (Slurm holds a job whose limit is over it) */
    if (placement_check_cluster (c->conf, &c->acct, &r, &pa, why, sizeof (why))
        && pa.max_wall_min > 0 && pa.max_wall_min < UINT32_MAX
        && (cap == 0 || (uint32_t)pa.max_wall_min < cap))
        cap = (uint32_t)pa.max_wall_min;
    jobspec_free (&spec);
    return cap;
}

uint32_t
daemon_choice_limit (const ms_daemon_t *d, const jobkey_t *k,
                     const ms_cand_t *c, double waves, uint32_t max_min)
{
    /* an array's candidates count its waves: so does its length */
    return engine_limit_min (&d->ds.pol, d->site, k->home, k->limit_min * 60.0,
                             k->base_s * (waves > 0 ? waves : 1), c,
                             max_min ? max_min * 60.0 : INFINITY);
}
