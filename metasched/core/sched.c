/* sched.c - the simulator's scheduler: decide, dispatch to the modelled
 * clusters, follow, age, re-route (see policy.h, "the scheduling core"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/core/engine.h"
#include "metasched/core/jobmemo.h"
#include "metasched/core/policy.h"
#include "metasched/core/powerplace.h"
#include "metasched/core/score.h"
#include "metasched/common/util.h"
#include "partitions/simcluster.h"

typedef enum {
    SJ_QUEUED = 0,
    SJ_RUNNING,
    SJ_DONE,
    SJ_REJECTED,
    SJ_WINDOW, /* in the core's window, not yet dispatched */
    SJ_HELD,   /* held for power (sched_release) */
    SJ_DOWN    /* held: every cluster of its candidates down (sched_set_up) */
} sjstate_t;

/* The core's per-job records are what a long run's memory is made of
 * (one a job, one an entry): their fields are as narrow as their values,
 * an entry in 32 bytes and a job in 128 (two cache lines). */
typedef struct {
    uint64_t bid; /* the cluster's job id */
    double pred_t;
    uint32_t f_khz;
    int nodes; /* the entry's node count (a moldable job's chosen one) */
    int nice;
    uint16_t part;
    bool live; /* pending or running on the cluster */
} sentry_t;

#define SJ_NOPART UINT16_MAX /* sjob_t's opt_part, run_part: none */

typedef struct {
    ms_jobdesc_t jd;
    double start_s; /* when its running entry started */
    uint32_t pos;   /* in the pending list */
    uint32_t ent0;  /* first entry in the core's entry pool (a run of
                       fewer than 2^32 entries) */
    uint32_t run_f;
    int reroutes;
    uint16_t opt_part; /* SJ_NOPART: none */
    uint16_t run_part; /* SJ_NOPART: not running */
    uint8_t nent;      /* at most MS_MAX_CHOICES */
    uint8_t state;     /* sjstate_t */
} sjob_t;

/* A part index as sjob_t keeps it (SIZE_MAX: SJ_NOPART), and back. */
static uint16_t
part_narrow (size_t p)
{
    return p < SJ_NOPART ? (uint16_t)p : SJ_NOPART;
}

static size_t
part_wide (uint16_t p)
{
    return p == SJ_NOPART ? SIZE_MAX : p;
}

struct ms_sched {
    ms_policy_t pol;
    const ms_siteconf_t *conf;
    ms_backend_t *const *backends;
    const ms_predtab_t *tab;
    ms_view_t *view;
    bool viewed;  /* the view is kept (view_read) */
    sjob_t *jobs; /* index = id - 1 */
    size_t njobs, cap;
    sentry_t *ents; /* every entry ever submitted, by job */
    size_t nents, capents;
    uint64_t *pending; /* ids of queued jobs */
    size_t npending, cappending;
    ms_cands_t cs;
    ms_schedstats_t st;
    ms_jobmix_t mix;  /* the jobs so far: ref_nodes, the drain price */
    uint64_t *window; /* metasched_window: ids waiting for the cycle */
    size_t nwindow, capwindow;
    /* ...a cycle's candidates, decisions and widths, kept for the next */
    ms_cands_t *wcands;
    const ms_cands_t **wcp;
    ms_decision_t *wdec;
    int *wnodes;
    size_t capw;
    ms_power_t *power; /* the power budgets; NULL: none */
    uint64_t *held;    /* ids held for power, in submit order */
    double *held_w;    /* ...the least draw of any of their candidates */
    size_t nheld, capheld;
    unsigned char *up; /* per cluster: does it take jobs (sched_set_up) */
    size_t ndown;      /* clusters down */
    uint64_t *waiting; /* ids held for their clusters, in submit order */
    size_t nwaiting, capwaiting;
    jobmemo_tab_t *memo; /* job_optimal's table (NULL until used) */
    uint64_t cs_job;     /* s->cs is not this job's list, which it decided
                            last (submit_kept); 0: it is */
    double cs_now;       /* ...when */
    /* the decision rate's clock (decide_clock): sched_submit's calls,
     * those timed and their time, the same of sched_cycle's, and the
     * time of the other calls */
    uint64_t nsubmit, ntimed, ncycle, ncycle_timed;
    double timed_s, cycle_s, other_s;
};

/* sched_submit reads the clock for one call in SCHED_TIME_EVERY (the
 * first, then every 16th: two clock reads a job cost as much as a
 * simple policy's decision), and so does sched_cycle (a window of a job
 * or two, every minute of a trace); the time spent deciding (decide_s,
 * the decision rate's denominator) counts each untimed call at the mean
 * of the timed ones. The other calls are timed each. */
#define SCHED_TIME_EVERY 16

static void
decide_clock (ms_sched_t *s)
{
    s->st.decide_s
        = s->other_s
          + (s->ntimed ? s->timed_s * ((double)s->nsubmit / s->ntimed) : 0)
          + (s->ncycle_timed
                 ? s->cycle_s * ((double)s->ncycle / s->ncycle_timed)
                 : 0);
}

/* The time t0 .. now of a call other than sched_submit. */
static void
decide_other (ms_sched_t *s, double t0)
{
    s->other_s += ms_mono_s () - t0;
    decide_clock (s);
}

/* Whether anything reads the core's view under policy pol (power budgets
 * aside, sched_set_power): metasched's kinds rank on it (rank.c,
 * window_decide.c) and re-routes weigh its waits (sched_reroute); the
 * other kinds decide on the candidates alone (policy.c decide), from a
 * list made without the view (job_candidates_on's callers). Where none
 * does, the entries are not entered in it: its upkeep was a twentieth
 * of -p min_energy's instructions. */
static bool
view_read (const ms_policy_t *pol)
{
    return policy_is_metasched (pol->kind) || pol->reroute_after_s > 0;
}

ms_sched_t *
sched_new (const ms_policy_t *pol, const ms_siteconf_t *conf,
           ms_backend_t *const *backends, const ms_predtab_t *tab)
{
    ms_sched_t *s = ms_xcalloc (1, sizeof (*s));
    s->pol = *pol;
    s->conf = conf;
    s->backends = backends;
    s->tab = tab;
    s->view = view_new (conf);
    s->viewed = view_read (pol);
    s->up = ms_xcalloc (conf->nclusters + 1, 1);
    memset (s->up, 1, conf->nclusters);
    jobmix_init (&s->mix);
    /* the calibration's fronts only where the run's policy calibrates */
    jobmix_keep_fronts (&s->mix,
                        policy_is_metasched (pol->kind) && pol->cal_lean > 0);
    return s;
}

void
sched_reserve (ms_sched_t *s, size_t njobs)
{
    if (njobs > s->cap) {
        s->cap = njobs;
        s->jobs = ms_xrealloc (s->jobs, s->cap * sizeof (*s->jobs));
    }
    if (njobs > s->capents) {
        s->capents = njobs;
        s->ents = ms_xrealloc (s->ents, s->capents * sizeof (*s->ents));
    }
}

void
sched_free (ms_sched_t *s)
{
    if (!s)
        return;
    view_free (s->view);
    candidates_free (&s->cs);
    free (s->jobs);
    free (s->ents);
    free (s->pending);
    free (s->window);
    for (size_t k = 0; k < s->capw; k++)
        free (s->wcands[k].c);
    free (s->wcands);
    free (s->wcp);
    free (s->wdec);
    free (s->wnodes);
    power_free (s->power);
    free (s->held);
    free (s->held_w);
    free (s->up);
    free (s->waiting);
    jobmix_free (&s->mix);
    jobmemo_free (s->memo);
    free (s);
}

static void
pending_add (ms_sched_t *s, sjob_t *j, uint64_t id)
{
    if (s->npending == s->cappending) {
        s->cappending = s->cappending ? s->cappending * 2 : 256;
        s->pending
            = ms_xrealloc (s->pending, s->cappending * sizeof (*s->pending));
    }
    j->pos = (uint32_t)s->npending;
    s->pending[s->npending++] = id;
}

static void
pending_del (ms_sched_t *s, sjob_t *j)
{
    uint64_t last = s->pending[--s->npending];
    if (j->pos < s->npending) {
        s->pending[j->pos] = last;
        s->jobs[last - 1].pos = j->pos;
    }
}

static int power_submit (ms_sched_t *s, uint64_t id, double now, uint64_t *idp,
                         ms_error_t *errp);
static int power_pass (ms_sched_t *s, double now, ms_error_t *errp);

/* Submit job id's entries ents (n of them), each to its partition's
 * cluster; held as sent's (the decision they come from, its candidates
 * in s->cs; NULL: none held) and, under power budgets, each drawing its
 * candidate's power. */
static int
send_entries (ms_sched_t *s, uint64_t id, const jobmemo_ent_t *ents, size_t n,
              const ms_decision_t *sent, double now, ms_error_t *errp)
{
    static const ms_job_request_t none = { 0 }; /* copied, not zeroed */
    sjob_t *j = &s->jobs[id - 1];
    sim_hint_t hint
        = { .job = j->jd.record, .order_time = j->jd.submit, .gate = id };
    ms_job_request_t req = none;

    /* What the entries' requests share, written once a job, not once an
     * entry, and copied from none, not zeroed in place (the memset of
     * its 150 bytes an entry, one string instruction, was 2% of KTH-SP2
     * -p min_energy's time); each entry's fields follow. No
     * metasched:<id> comment: the simulated clusters tag a job's listing
     * from its hint's gate (simcluster_ops.c fill_job). */
    req.user = j->jd.user ? j->jd.user : "nobody";
    req.name = j->jd.name;
    req.cwd = "/";
    req.exclusive = true;
    req.backend_hint = &hint;

    /* A new decision's entries follow in the pool; a re-routed job's old
     * ones stay behind, cancelled. */
    if (s->nents + n > s->capents) {
        s->capents = (s->capents + n) * 2;
        s->ents = ms_xrealloc (s->ents, s->capents * sizeof (*s->ents));
    }
    j->ent0 = (uint32_t)s->nents;
    j->nent = 0;
    for (size_t k = 0; k < n; k++) {
        const jobmemo_ent_t *en = &ents[k];
        const ms_partconf_t *pc = &s->conf->parts[en->part];
        ms_backend_t *b = s->backends[pc->cluster];
        double hold_s = sent ? sent->c[k].hold_s : 0;
        uint64_t bid;

        if (!b)
            continue;
        hint.pred_runtime_s = en->t;
        hint.rank = en->rank;
        req.partition = pc->name;
        req.cpu_freq_khz = en->f_khz;
        req.time_limit_min = en->limit_min;
        req.nice = en->nice;
        req.begin_time = hold_s > 0 ? (int64_t)ceil (now + hold_s) : 0;
        req.nodes = en->nodes;
        if (backend_submit (b, &req, &bid, errp) < 0)
            return -1;
        s->st.submits++;
        sentry_t *e = &s->ents[s->nents++];
        e->part = (uint16_t)en->part;
        e->bid = bid;
        e->f_khz = en->f_khz;
        e->pred_t = en->t;
        e->nodes = req.nodes;
        e->nice = req.nice;
        e->live = true;
        j->nent++;
        if (s->power) {
            const ms_cand_t *c = &s->cs.c[sent->c[k].cand];
            power_add (s->power, id, bid, pc->cluster,
                       power_cand_watts (s->power, c), c->t_hi, c->w, now);
        }
        if (s->viewed)
            view_pending_add (s->view, en->part, bid, e->nodes, en->t, e->nice,
                              req.begin_time > 0 ? (double)req.begin_time : 0);
    }
    return 0;
}

/* Submit the entries of a decision for job id over the candidates in
 * s->cs: those the engine sends (engine_entries; a held job's under
 * power budgets: engine_power_place's one). Where m is not NULL, they
 * are kept there for the jobs of its key (submit_kept), unless one is
 * held. */
static int
dispatch (ms_sched_t *s, uint64_t id, const ms_decision_t *dec, jobmemo_t *m,
          double now, ms_error_t *errp)
{
    const ms_jobdesc_t *jd = &s->jobs[id - 1].jd;
    jobmemo_ent_t ents[MS_MAX_CHOICES];
    ms_decision_t sent;
    bool held = false;

    engine_entries (&s->pol, false, dec, &sent);
    for (size_t k = 0; k < sent.n; k++) {
        const ms_cand_t *c = &s->cs.c[sent.c[k].cand];
        jobmemo_ent_t *e = &ents[k];
        e->part = (uint32_t)c->part;
        e->f_khz = c->f_khz;
        e->t = c->t;
        e->nodes = c->nodes > 0 ? c->nodes : jd->nodes;
        e->nice = sent.c[k].nice;
        e->rank = (uint16_t)sent.c[k].rank;
        /* the time limit scaled to the chosen candidate (engine.h) */
        e->limit_min = engine_limit_min (&s->pol, s->conf, jd->home,
                                         jd->limit_s, jd->base_s, c,
                                         engine_part_max_s (s->conf, c->part));
        held = held || sent.c[k].hold_s > 0;
    }
    if (m && !held && sent.n <= JOBMEMO_PARTS && jobmemo_sent (s->memo, m)) {
        memcpy (jobmemo_sent (s->memo, m), ents, sent.n * sizeof (*ents));
        m->nsent = (uint8_t)sent.n;
    }
    return send_entries (s, id, ents, sent.n, &sent, now, errp);
}

/* A job's candidates, in s->cs (engine_candidates), with each
 * partition's predicted wait where view is not NULL; while a cluster is
 * down, only those on the clusters up (as metaschedd's, which leaves an
 * unreachable cluster out of every candidate list) unless every_cluster. */
static void
job_candidates_on (ms_sched_t *s, const ms_jobdesc_t *jd, const ms_view_t *view,
                   double now, bool every_cluster)
{
    ms_ejob_t ej;
    unsigned char *ok = NULL;

    memset (&ej, 0, sizeof (ej));
    if (s->ndown && !every_cluster) {
        ok = ms_xcalloc (s->conf->nparts + 1, 1);
        for (size_t p = 0; p < s->conf->nparts; p++)
            ok[p] = s->up[s->conf->parts[p].cluster]
                    && (!jd->allowed || jd->allowed[p]);
        ej.allowed = ok;
    } else
        ej.allowed = jd->allowed;
    ej.app = jd->app;
    ej.home = jd->home;
    ej.nodes = jd->nodes;
    ej.nodes_max = jd->nodes_max;
    ej.gpus = jd->gpus;
    ej.base_s = jd->base_s;
    ej.limit_s = jd->limit_s;
    ej.deadline = jd->deadline;
    engine_candidates (&s->pol, s->conf, s->tab, view, &ej, NULL, now, &s->cs);
    s->cs_job = 0;
    free (ok);
}

static void
job_candidates (ms_sched_t *s, const ms_jobdesc_t *jd, const ms_view_t *view,
                double now)
{
    job_candidates_on (s, jd, view, now, false);
}

void
sched_prime (ms_sched_t *s, const ms_jobdesc_t *jd, double when)
{
    if (!policy_is_metasched (s->pol.kind))
        return; /* no mix to prime (sched_submit) */
    job_candidates (s, jd, NULL, when);
    jobmix_add (&s->mix, s->conf, &s->pol, &s->cs, jd->nodes, when);
}

void
sched_observe (ms_sched_t *s, double wait_s, double run_s)
{
    jobmix_observe (&s->mix, wait_s, run_s);
}

/* ---- outages: clusters that take no job (sched_set_up) ---- */

/* While a cluster is down, metaschedd's rule (daemon/decide.c
 * daemon_decide_job): the decision d on every cluster's candidates (in
 * s->cs) said the job fits somewhere; the candidates on clusters up stay
 * (engine_hold_down) and, when none does, the job waits for its clusters
 * (1); else it is decided again on the clusters up only, into d (0). A
 * job whose first choice was on a cluster down and that goes elsewhere is
 * counted as moved. */
static int
down_decide (ms_sched_t *s, sjob_t *j, double now, ms_decision_t *d)
{
    size_t first = s->conf->parts[s->cs.c[d->c[0].cand].part].cluster;
    ms_hold_t h;

    if (!engine_hold_down (s->conf, s->up, &s->cs, NULL, &h))
        return 1;
    job_candidates (s, &j->jd,
                    policy_is_metasched (s->pol.kind) ? s->view : NULL, now);
    policy_decide (&s->pol, s->conf, &s->cs, s->view, d);
    if (!d->n)
        return 1;
    if (!s->up[first])
        s->st.down_moved++;
    return 0;
}

/* Job id waits for its clusters, after the others that wait. */
static void
down_wait (ms_sched_t *s, sjob_t *j, uint64_t id)
{
    if (s->nwaiting == s->capwaiting) {
        s->capwaiting = s->capwaiting ? 2 * s->capwaiting : 256;
        s->waiting
            = ms_xrealloc (s->waiting, s->capwaiting * sizeof (*s->waiting));
    }
    s->waiting[s->nwaiting++] = id;
    if (j->state != SJ_DOWN)
        s->st.down_held++;
    j->state = SJ_DOWN;
}

/* The jobs that wait for their clusters, oldest first, decided again as
 * metaschedd decides a queued job at each cycle: on every cluster, then
 * on those up; each goes out or keeps waiting. */
static int
down_pass (ms_sched_t *s, double now, ms_error_t *errp)
{
    size_t n = s->nwaiting;
    uint64_t *ids = s->waiting;
    int rc = 0;

    s->waiting = NULL;
    s->nwaiting = s->capwaiting = 0;
    for (size_t i = 0; i < n; i++) {
        sjob_t *j = &s->jobs[ids[i] - 1];
        ms_decision_t d;
        if (rc == 0) {
            job_candidates_on (
                s, &j->jd, policy_is_metasched (s->pol.kind) ? s->view : NULL,
                now, true);
            policy_decide (&s->pol, s->conf, &s->cs, s->view, &d);
            s->st.decisions++;
        }
        if (rc != 0 || !d.n || (s->ndown && down_decide (s, j, now, &d))) {
            down_wait (s, j, ids[i]);
            continue;
        }
        j->state = SJ_QUEUED;
        pending_add (s, j, ids[i]);
        rc = dispatch (s, ids[i], &d, NULL, now, errp);
    }
    free (ids);
    return rc;
}

int
sched_set_up (ms_sched_t *s, const unsigned char *up, double now,
              ms_error_t *errp)
{
    double t0 = ms_mono_s ();
    bool back = false;
    int rc = 0;

    /* every cluster first, then the jobs: a job released as one cluster
     * returns sees the others as they are now */
    for (size_t c = 0; c < s->conf->nclusters; c++) {
        unsigned char u = up[c] ? 1 : 0;
        if (u == s->up[c])
            continue;
        back |= u;
        s->up[c] = u;
        s->ndown += u ? (size_t)-1 : 1;
    }
    if (back) {
        rc = down_pass (s, now, errp);
        if (rc == 0 && s->power)
            rc = power_pass (s, now, errp);
    }
    decide_other (s, t0);
    return rc;
}

size_t
sched_nwaiting (const ms_sched_t *s)
{
    return s->nwaiting;
}

const uint64_t *
sched_waiting (const ms_sched_t *s)
{
    return s->waiting;
}

/* ---- each job's optimal partition, f_opt and entries, once a kind of
 * job ---- */

/* policy_optimal_fopt reads only the candidates' partitions, E and T,
 * and engine_candidates makes those from the job's key alone (jobmemo.h:
 * its app, home, nodes, GPUs, length and time limit; the view adds
 * waits, which it does not read; the predictions, the site and the
 * policy's limit settings do not change under the core), except for a
 * job restricted to some partitions (allowed), a moldable one (its count
 * follows the view) and where the grid's carbon counts (the time): for
 * the other jobs, what it found for an earlier job of the same key (one
 * of the last two of the key's set, jobmemo.c) is what it would find
 * again; so is each partition's f_opt at an EAMC kind's own t_weight
 * (score_eamc_fopt, which reads the same). Four jobs in five of KTH-SP2
 * find theirs there. */
static bool
memo_keyed (const ms_sched_t *s, const ms_jobdesc_t *jd)
{
    return s->conf->nparts <= JOBMEMO_PARTS && !jd->allowed && !s->pol.carbon
           && jd->nodes_max <= jd->nodes && jd->app <= UINT32_MAX
           && jd->home <= UINT32_MAX;
}

/* ...and where the kind's choice reads nothing but the candidates (every
 * kind's but metasched's, which reads the view: policy_decide) on a list
 * made without the view (job_candidates' for those kinds), the job's
 * decision and entries are those of the last job of its key too, unless
 * power budgets or clusters down decide it (power_submit, down_decide). */
static bool
memo_sends (const ms_sched_t *s)
{
    return !policy_is_metasched (s->pol.kind) && !s->power && !s->ndown;
}

/* An EAMC kind at a t_weight other than 1: its f_opt are not those of
 * the job's optimal partition. */
static bool
eamc_weighted (const ms_policy_t *pol)
{
    return (pol->kind == POL_EAMC_REORDER || pol->kind == POL_EAMC_PRIO
            || pol->kind == POL_EAMC_PRIO_V)
           && pol->t_weight != 1.0;
}

/* The job's optimal partition (policy_optimal_fopt over its candidates
 * in s->cs) and each partition's f_opt into fopt; under an EAMC kind of
 * another t_weight (eamc_weighted), those at its weight into wfopt where
 * *wsetp says so (else its decision finds them). A job of memo_keyed
 * finds them in *mp, the slot of its key (NULL: none yet, and *mp
 * becomes the slot that keeps them; it stays NULL for a list too long
 * for the slot's indices). */
static size_t
job_optimal (ms_sched_t *s, const ms_jobdesc_t *jd, bool keyed, jobmemo_t **mp,
             size_t *fopt, size_t *wfopt, bool *wsetp)
{
    size_t np = s->conf->nparts, opt;
    bool w = eamc_weighted (&s->pol);
    jobmemo_t *m = *mp;

    *wsetp = false;
    if (!keyed)
        return policy_optimal_fopt (&s->cs, np, fopt);
    if (m) {
        for (size_t p = 0; p < np; p++) {
            fopt[p] = jobmemo_wide (m->fopt[p]);
            wfopt[p] = jobmemo_wide (m->wfopt[p]);
        }
        *wsetp = w;
        return jobmemo_wide (m->opt);
    }
    opt = w ? policy_optimal_wfopt (&s->cs, np, s->pol.t_weight, fopt, wfopt)
            : policy_optimal_fopt (&s->cs, np, fopt);
    *wsetp = w;
    if (s->cs.n >= JOBMEMO_NONE)
        return opt;
    m = *mp = jobmemo_take (s->memo, jd);
    m->opt = jobmemo_narrow (opt);
    for (size_t p = 0; p < np; p++) {
        m->fopt[p] = jobmemo_narrow (fopt[p]);
        m->wfopt[p] = w ? jobmemo_narrow (wfopt[p]) : JOBMEMO_NONE;
    }
    return opt;
}

/* submit for job id, whose key's entries m keeps (memo_sends): decided
 * and sent as the job that left them; its candidates are found only if
 * asked for (sched_candidates). */
static int
submit_kept (ms_sched_t *s, uint64_t id, const jobmemo_t *m, double now,
             uint64_t *idp, ms_error_t *errp)
{
    sjob_t *j = &s->jobs[id - 1];

    j->opt_part = part_narrow (jobmemo_wide (m->opt));
    s->cs_job = id;
    s->cs_now = now;
    s->st.decisions++;
    if (!m->nsent) {
        j->state = SJ_REJECTED;
        s->st.rejected++;
        *idp = 0;
        return 0;
    }
    *idp = id;
    j->state = SJ_QUEUED;
    pending_add (s, j, id);
    return send_entries (s, id, jobmemo_sent (s->memo, m), m->nsent, NULL, now,
                         errp);
}

/* sched_submit's decision and dispatch, untimed. */
static int
submit (ms_sched_t *s, const ms_jobdesc_t *jd, double now, uint64_t *idp,
        ms_error_t *errp)
{
    ms_decision_t d;
    sjob_t *j;
    uint64_t id;
    size_t fopt[MS_MAX_RANKED];  /* each partition's f_opt, t_weight 1 */
    size_t wfopt[MS_MAX_RANKED]; /* ...at the policy's (job_optimal) */
    size_t opt;
    bool wset, sends = memo_sends (s), keyed = memo_keyed (s, jd);
    jobmemo_t *m = NULL;

    if (s->njobs == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->jobs = ms_xrealloc (s->jobs, s->cap * sizeof (*s->jobs));
    }
    id = ++s->njobs;
    j = &s->jobs[id - 1];
    memset (j, 0, sizeof (*j));
    j->jd = *jd;
    j->run_part = SJ_NOPART;
    if (keyed) {
        /* room for the entries under every kind but metasched's */
        if (!s->memo)
            s->memo = jobmemo_new (!policy_is_metasched (s->pol.kind));
        m = jobmemo_find (s->memo, jd);
        if (m && sends && m->nsent != JOBMEMO_NOSENT)
            return submit_kept (s, id, m, now, idp, errp);
    }
    job_candidates_on (
        s, jd, policy_is_metasched (s->pol.kind) ? s->view : NULL, now, true);
    /* the mix feeds metasched's ranking alone (rank.c: the width term,
     * the drain price, the calibrated odds); the run's policy is fixed */
    if (policy_is_metasched (s->pol.kind)) {
        jobmix_add (&s->mix, s->conf, &s->pol, &s->cs, jd->nodes, now);
        jobmix_apply (&s->mix, s->conf, &s->pol);
    }
    opt = job_optimal (s, jd, keyed, &m, fopt, wfopt, &wset);
    j->opt_part = part_narrow (opt);
    if (s->power && s->cs.n)
        return power_submit (s, id, now, idp, errp);
    if (s->pol.kind == POL_METASCHED_WINDOW && s->cs.n) {
        /* Placed with the others of its window at the next cycle. */
        if (s->nwindow == s->capwindow) {
            s->capwindow = s->capwindow ? 2 * s->capwindow : 256;
            s->window
                = ms_xrealloc (s->window, s->capwindow * sizeof (*s->window));
        }
        s->window[s->nwindow++] = id;
        j->state = SJ_WINDOW;
        *idp = id;
        return 0;
    }
    policy_decide_fopt (&s->pol, s->conf, &s->cs, s->view, opt, fopt,
                        wset ? wfopt : NULL, &d);
    s->st.decisions++;
    if (!sends)
        m = NULL;
    if (!d.n) {
        if (m)
            m->nsent = 0;
        j->state = SJ_REJECTED;
        s->st.rejected++;
        *idp = 0;
        return 0;
    }
    *idp = id;
    if (s->ndown && down_decide (s, j, now, &d)) {
        down_wait (s, j, id);
        return 0;
    }
    j->state = SJ_QUEUED;
    pending_add (s, j, id);
    return dispatch (s, id, &d, m, now, errp);
}

void
sched_prefetch (const ms_sched_t *s, const ms_jobdesc_t *jd)
{
    if (s->memo && memo_keyed (s, jd))
        jobmemo_prefetch (s->memo, jd);
}

int
sched_submit (ms_sched_t *s, const ms_jobdesc_t *jd, double now, uint64_t *idp,
              ms_error_t *errp)
{
    bool timed = s->nsubmit++ % SCHED_TIME_EVERY == 0;
    double t0 = timed ? ms_mono_s () : 0;
    int rc = submit (s, jd, now, idp, errp);

    if (timed) {
        s->timed_s += ms_mono_s () - t0;
        s->ntimed++;
    }
    decide_clock (s);
    return rc;
}

static sentry_t *
find_entry (ms_sched_t *s, uint64_t id, size_t part, uint64_t bid)
{
    if (id == 0 || id > s->njobs)
        return NULL;
    sjob_t *j = &s->jobs[id - 1];
    for (size_t k = j->ent0; k < j->ent0 + j->nent; k++)
        if (s->ents[k].part == part && s->ents[k].bid == bid)
            return &s->ents[k];
    return NULL;
}

void
sched_entry_started (ms_sched_t *s, uint64_t id, size_t part, uint64_t bid,
                     double now, double power_w)
{
    sentry_t *e = find_entry (s, id, part, bid);
    sjob_t *j;
    if (!e)
        return;
    j = &s->jobs[id - 1];
    if (s->viewed) {
        view_pending_remove (s->view, part, bid, e->nodes, e->pred_t);
        view_run_start (s->view, part, bid, e->nodes, now + e->pred_t,
                        power_w);
    }
    if (s->power)
        power_start (s->power, id, s->conf->parts[part].cluster, bid, now);
    if (j->state == SJ_QUEUED)
        pending_del (s, j);
    j->state = SJ_RUNNING;
    j->run_part = part_narrow (part);
    j->run_f = e->f_khz;
    j->start_s = now;
}

void
sched_entry_ended (ms_sched_t *s, uint64_t id, size_t part, uint64_t bid,
                   double now)
{
    sentry_t *e = find_entry (s, id, part, bid);
    sjob_t *j;
    if (!e)
        return;
    j = &s->jobs[id - 1];
    jobmix_observe (&s->mix, j->start_s - j->jd.submit, now - j->start_s);
    e->live = false;
    if (s->viewed)
        view_run_end (s->view, part, bid);
    if (s->power)
        power_remove (s->power, id, s->conf->parts[part].cluster, bid);
    j->state = SJ_DONE;
}

void
sched_entry_cancelled (ms_sched_t *s, uint64_t id, size_t part, uint64_t bid,
                       bool started)
{
    sentry_t *e = find_entry (s, id, part, bid);
    if (!e || !e->live)
        return;
    e->live = false;
    if (s->power)
        power_remove (s->power, id, s->conf->parts[part].cluster, bid);
    if (!s->viewed)
        return;
    if (started)
        view_run_end (s->view, part, bid);
    else
        view_pending_remove (s->view, part, bid, e->nodes, e->pred_t);
}

int
sched_job_choice (const ms_sched_t *s, uint64_t id, size_t *part,
                  uint32_t *f_khz, size_t *opt_part)
{
    const sjob_t *j;
    if (id == 0 || id > s->njobs)
        return -1;
    j = &s->jobs[id - 1];
    *part = part_wide (j->run_part);
    *f_khz = j->run_f;
    *opt_part = part_wide (j->opt_part);
    return 0;
}

/* A first choice held back behind the jobs that prefer its partition more
 * (rank_entry_nice) goes to nice 0 once its job has waited first_age times its
 * predicted runtime there: a job nearly indifferent between partitions
 * waits behind others for a while, never for ever. */
int
sched_age (ms_sched_t *s, double now, ms_error_t *errp)
{
    if (s->pol.first_age <= 0)
        return 0;
    for (size_t i = 0; i < s->npending; i++) {
        sjob_t *j = &s->jobs[s->pending[i] - 1];
        sentry_t *e = &s->ents[j->ent0];
        ms_job_update_t u;

        /* metaschedd updates no job of a cluster it cannot reach */
        if (!j->nent || !e->live || e->nice <= 0
            || !s->up[s->conf->parts[e->part].cluster]
            || !engine_age_due (&s->pol, now - j->jd.submit, e->pred_t))
            continue;
        ms_job_update_init (&u);
        u.nice = 0;
        if (backend_update (s->backends[s->conf->parts[e->part].cluster],
                            e->bid, &u, errp)
            < 0)
            return -1;
        e->nice = 0;
        if (s->viewed)
            view_pending_renice (s->view, e->part, e->bid, 0);
    }
    return 0;
}

/* Re-routing, doc/architecture.md "Policies": a job queued longer than
 * reroute_after_s whose best candidate now is on a partition where none of its
 * entries is, and whose predicted wait there is below reroute_gain times the
 * predicted wait where it is queued, is cancelled and submitted again (keeping
 * its place in age order), at most max_reroutes times. */
/* Whether every live entry of j is on a cluster up: metaschedd re-routes
 * a job only from a cluster it reads (and can cancel on). */
static bool
entries_up (const ms_sched_t *s, const sjob_t *j)
{
    for (size_t k = j->ent0; k < j->ent0 + j->nent; k++)
        if (s->ents[k].live && !s->up[s->conf->parts[s->ents[k].part].cluster])
            return false;
    return true;
}

int
sched_reroute (ms_sched_t *s, double now, ms_error_t *errp)
{
    if (s->pol.reroute_after_s <= 0)
        return 0;
    for (size_t i = 0; i < s->npending; i++) {
        uint64_t id = s->pending[i];
        sjob_t *j = &s->jobs[id - 1];
        ms_decision_t d;
        double wcur = INFINITY;
        size_t cur[MS_MAX_CHOICES], ncur = 0;

        if (!engine_reroute_due (&s->pol, now - j->jd.submit, j->reroutes)
            || !entries_up (s, j))
            continue;
        for (size_t k = j->ent0; k < j->ent0 + j->nent; k++)
            if (s->ents[k].live) {
                double w = view_predicted_wait (s->view, s->ents[k].part,
                                                s->ents[k].nodes, now);
                if (w < wcur)
                    wcur = w;
                if (ncur < MS_MAX_CHOICES)
                    cur[ncur++] = s->ents[k].part;
            }
        job_candidates (s, &j->jd, s->view, now);
        /* the engine's rule: under power budgets, only where the job fits */
        if (!engine_reroute (&s->pol, s->power, s->conf, s->view, &s->cs, cur,
                             ncur, wcur, now, &d))
            continue;
        for (size_t k = j->ent0; k < j->ent0 + j->nent; k++)
            if (s->ents[k].live) {
                const ms_partconf_t *pc = &s->conf->parts[s->ents[k].part];
                if (backend_cancel (s->backends[pc->cluster], s->ents[k].bid,
                                    errp)
                    < 0)
                    return -1;
            }
        j->reroutes++;
        s->st.rerouted++;
        if (dispatch (s, id, &d, NULL, now, errp) < 0)
            return -1;
    }
    return 0;
}

size_t
sched_npending (const ms_sched_t *s)
{
    return s->npending + s->nwindow + s->nheld + s->nwaiting;
}

/* ---- power budgets (power.h) ---- */

void
sched_set_power (ms_sched_t *s, const ms_budgets_t *bs, double power_sd)
{
    power_free (s->power);
    s->power = bs && bs->n ? power_new (s->conf, bs) : NULL;
    if (s->power)
        power_set_spread (s->power, power_sd, s->pol.limit_z);
    /* the budgets place on the view (engine_power_place) */
    s->viewed = view_read (&s->pol) || s->power;
}

const ms_power_t *
sched_power (const ms_sched_t *s)
{
    return s->power;
}

size_t
sched_nheld (const ms_sched_t *s)
{
    return s->nheld;
}

const uint64_t *
sched_held (const ms_sched_t *s)
{
    return s->held;
}

/* The decision for a held job whose candidates (with waits) are in s->cs:
 * the engine's place under power budgets (engine_power_place). */
static int
power_decide (ms_sched_t *s, double now, double until, double *resvp,
              ms_decision_t *d)
{
    return engine_power_place (&s->pol, s->power, s->conf, s->view, &s->cs, now,
                               until, resvp, d);
}

/* One pass over the held jobs, oldest first: each goes out where
 * power_decide lets it; the oldest that stays held holds a reservation
 * that the others must end by. A job whose least draw exceeds the room
 * left is not decided again (the oldest always is, for its
 * reservation). */
static int
power_pass (ms_sched_t *s, double now, ms_error_t *errp)
{
    double until = INFINITY, room = power_room (s->power, now);
    size_t k = 0;
    int rc = 0;

    for (size_t i = 0; i < s->nheld; i++) {
        uint64_t id = s->held[i];
        sjob_t *j = &s->jobs[id - 1];
        double least = s->held_w[i], resv = INFINITY;
        ms_decision_t d;
        if (rc == 0 && (k == 0 || least <= room)) {
            job_candidates (s, &j->jd, s->view, now);
            if (power_decide (s, now, until, k == 0 ? &resv : NULL, &d) == 0) {
                j->state = SJ_QUEUED;
                pending_add (s, j, id);
                rc = dispatch (s, id, &d, NULL, now, errp);
                room = power_room (s->power, now);
                continue;
            }
            if (k == 0)
                until = resv;
        }
        s->held_w[k] = least;
        s->held[k++] = id;
    }
    s->nheld = k;
    return rc;
}

/* sched_submit under power budgets: the job joins the held jobs (a job
 * the kind's choice puts nowhere is rejected, as without budgets) and
 * the pass decides whether it goes out now. */
static int
power_submit (ms_sched_t *s, uint64_t id, double now, uint64_t *idp,
              ms_error_t *errp)
{
    sjob_t *j = &s->jobs[id - 1];
    double least = INFINITY;
    int rc;

    s->st.decisions++;
    *idp = id;
    if (!policy_is_metasched (s->pol.kind)) {
        ms_decision_t d;
        policy_decide (&s->pol, s->conf, &s->cs, s->view, &d);
        if (!d.n) {
            j->state = SJ_REJECTED;
            s->st.rejected++;
            *idp = 0;
            return 0;
        }
    }
    for (size_t i = 0; i < s->cs.n; i++) {
        double w = power_cand_watts (s->power, &s->cs.c[i]);
        if (w < least)
            least = w;
    }
    if (s->nheld == s->capheld) {
        s->capheld = s->capheld ? 2 * s->capheld : 256;
        s->held = ms_xrealloc (s->held, s->capheld * sizeof (*s->held));
        s->held_w = ms_xrealloc (s->held_w, s->capheld * sizeof (*s->held_w));
    }
    s->held_w[s->nheld] = least;
    s->held[s->nheld++] = id;
    j->state = SJ_HELD;
    rc = power_pass (s, now, errp);
    if (j->state == SJ_HELD)
        s->st.held++;
    return rc;
}

int
sched_release (ms_sched_t *s, double now, ms_error_t *errp)
{
    double t0 = ms_mono_s ();
    int rc = s->power ? power_pass (s, now, errp) : 0;

    decide_other (s, t0);
    return rc;
}

/* a's list for b's, arrays and all (no copy). */
static void
cands_swap (ms_cands_t *a, ms_cands_t *b)
{
    ms_cands_t t = *a;
    *a = *b;
    *b = t;
}

/* The core's window: the jobs that came since the last cycle, decided
 * together (policy_decide_window) and dispatched. */
int
sched_cycle (ms_sched_t *s, double now, ms_error_t *errp)
{
    size_t nw = s->nwindow;
    ms_cands_t *cands;
    const ms_cands_t **cp;
    ms_decision_t *dec;
    int *nodes;
    ms_window_stats_t wst;
    double t0;
    int rc = 0;
    bool sent = false, timed;

    if (s->pol.kind != POL_METASCHED_WINDOW || !nw)
        return 0;
    timed = s->ncycle++ % SCHED_TIME_EVERY == 0;
    t0 = timed ? ms_mono_s () : 0;
    if (nw > s->capw) {
        size_t cw = nw > 2 * s->capw ? nw : 2 * s->capw;
        s->wcands = ms_xrealloc (s->wcands, cw * sizeof (*s->wcands));
        memset (s->wcands + s->capw, 0, (cw - s->capw) * sizeof (*s->wcands));
        s->wcp = ms_xrealloc (s->wcp, cw * sizeof (*s->wcp));
        s->wdec = ms_xrealloc (s->wdec, cw * sizeof (*s->wdec));
        s->wnodes = ms_xrealloc (s->wnodes, cw * sizeof (*s->wnodes));
        s->capw = cw;
    }
    cands = s->wcands;
    cp = s->wcp;
    dec = s->wdec;
    nodes = s->wnodes;
    memset (dec, 0, nw * sizeof (*dec));
    for (size_t k = 0; k < nw; k++) {
        sjob_t *j = &s->jobs[s->window[k] - 1];
        job_candidates (s, &j->jd, s->view, now);
        /* with the list's home and the grid's flags (carbon_apply's):
         * the window's costs weigh carbon and cost by them; the lists
         * trade places, not copied (tens of KB a job) */
        cands_swap (&cands[k], &s->cs);
        cp[k] = &cands[k];
        nodes[k] = j->jd.nodes;
    }
    policy_decide_window (&s->pol, s->conf, cp, nodes, nw, s->view, now, dec,
                          &wst);
    s->st.windows++;
    s->st.window_solve_s += wst.solve_s;
    if (wst.fallback)
        s->st.window_fallbacks++;

    for (size_t k = 0; k < nw && rc == 0; k++) {
        uint64_t id = s->window[k];
        sjob_t *j = &s->jobs[id - 1];

        s->st.decisions++;
        if (!dec[k].n && s->ndown && !cands[k].n) {
            /* its candidates all on clusters down: it waits for them */
            down_wait (s, j, id);
            continue;
        }
        if (!dec[k].n) {
            j->state = SJ_REJECTED;
            s->st.rejected++;
            continue;
        }
        /* dispatch reads the decision's candidates from s->cs */
        cands_swap (&s->cs, &cands[k]);
        sent = true;
        s->cs_job = 0;
        j->state = SJ_QUEUED;
        pending_add (s, j, id);
        rc = dispatch (s, id, &dec[k], NULL, now, errp);
    }
    if (!sent)
        cands_swap (&s->cs, &cands[nw - 1]); /* the last list built */
    s->nwindow = 0;
    if (timed) {
        s->cycle_s += ms_mono_s () - t0;
        s->ncycle_timed++;
    }
    decide_clock (s);
    return rc;
}

const ms_schedstats_t *
sched_stats (const ms_sched_t *s)
{
    return &s->st;
}

const ms_view_t *
sched_view (const ms_sched_t *s)
{
    return s->view;
}

const ms_cands_t *
sched_candidates (ms_sched_t *s)
{
    /* a job sent as its key's entries were (submit_kept): its list, as
     * it was not found then */
    if (s->cs_job)
        job_candidates_on (s, &s->jobs[s->cs_job - 1].jd, NULL, s->cs_now,
                           true);
    return &s->cs;
}

const ms_jobmix_t *
sched_jobmix (const ms_sched_t *s)
{
    return &s->mix;
}
