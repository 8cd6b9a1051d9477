/* simulate.c - one simulated run (see simulate.h). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metasched/sim/simulate.h"
#include "metasched/common/util.h"

void
simulate_setup_init (ms_simsetup_t *su)
{
    memset (su, 0, sizeof (*su));
    su->backfill = SIM_EASY;
    su->seed = 1;
    su->noise_t = 0.05;
    su->noise_p = 0.02;
    su->reroute_period_s = 600;
    su->window_period_s = 60;
}

typedef struct {
    const ms_simsetup_t *su;
    ms_sched_t *sched;
    ms_jobrec_t *recs;
    ms_polkind_t sched_kind; /* the run's policy kind */
    uint64_t *ids;     /* the core's id of each workload job (0: rejected) */
    double idle_since; /* power: nothing tracked, no arrival left, since */
    ms_outages_t down; /* the outages, on the clock (su->outages + t0) */
    char violation[256];
} run_t;

/* How long held jobs wait for a budget change while nothing runs. */
#define POWER_HORIZON_S (30 * 86400.0)

/* When held jobs may go out next: at the next job end or budget change
 * (a budget change alone only within POWER_HORIZON_S of the last time
 * anything was tracked, once no job is left to come). */
static double
release_time (run_t *r, simworld_t *w, double now, bool arrivals)
{
    const ms_power_t *pw = sched_power (r->sched);
    const ms_budgets_t *bs = power_budgets (pw);
    double t = simworld_next_event (w), b = INFINITY;

    for (size_t c = 0; c <= r->su->conf->nclusters; c++) {
        double x = power_budget_next (
            bs, c == r->su->conf->nclusters ? MS_POWER_SITE : c, now);
        if (x < b)
            b = x;
    }
    if (arrivals || power_ntracked (pw))
        r->idle_since = NAN;
    else if (isnan (r->idle_since))
        r->idle_since = now;
    if (b < t
        && (isnan (r->idle_since) || b <= r->idle_since + POWER_HORIZON_S))
        t = b;
    return t;
}

/* The truth, see simulate.h. The simulated clusters ask it lazily
 * (simworld_lazy_truth): at a submit with rt and pw NULL, only whether
 * it answers; the figures, with the noise's exp, log and cos, only for
 * the entry that starts. */
static int
truth (void *arg, const void *job, size_t part, uint32_t f_khz, int nodes,
       double *rt, double *pw, ms_error_t *errp)
{
    const ms_simsetup_t *su = arg;
    const ms_wjob_t *j = job;
    const ms_predtab_t *tab = su->tab;
    const ms_predent_t *ref, *d, *m = NULL;
    const ms_arch_t *arch = &su->conf->archs[su->conf->parts[part].arch];
    /* most entries run at nominal, whose index the table keeps (the
     * search's answer, SIZE_MAX where it is none) */
    int fi = f_khz == arch->nominal_khz && tab->nominal[part] != SIZE_MAX
                 ? (int)tab->nominal[part]
                 : clusterconf_freq_index (arch, f_khz);
    const ms_partconf_t *rp = NULL; /* where a measured job ran */
    uint64_t h;

    if (fi < 0 || j->app < 0 || (size_t)j->app >= tab->napps)
        return ms_err (errp, MS_ERR_INPUT, "no profile for job %llu",
                       (unsigned long long)j->id);
    d = predtab_get (tab, (size_t)j->app, part, (size_t)fi);
    ref = predtab_get (tab, (size_t)j->app, su->home, tab->nominal[su->home]);
    if (!d->ok || (!j->measured && !ref->ok))
        return ms_err (errp, MS_ERR_MISSING, "app %s has no profile on %s",
                       tab->apps[j->app], su->conf->parts[part].name);
    if (j->measured) {
        int rfi;
        rp = &su->conf->parts[j->ran_part];
        rfi = clusterconf_freq_index (&su->conf->archs[rp->arch], j->ran_khz);
        if (rfi >= 0)
            m = predtab_get (tab, (size_t)j->app, j->ran_part, (size_t)rfi);
        if (!m || !m->ok)
            return ms_err (errp, MS_ERR_MISSING,
                           "app %s has no profile on %s at %u kHz, where "
                           "job %llu ran",
                           tab->apps[j->app], rp->name, j->ran_khz,
                           (unsigned long long)j->id);
    }
    if (!rt || !pw)
        return 0; /* it answers */
    h = ms_hash64 (su->seed * 0x100000001b3ULL ^ j->id * 64 ^ part);
    if (j->measured) {
        /* Where it ran (the same architecture at the same frequency): what
         * was measured; elsewhere the profile's ratios to it. */
        if (su->conf->parts[part].arch == rp->arch && f_khz == j->ran_khz) {
            *rt = j->ran_runtime_s;
            *pw = j->ran_power_w > 0 ? j->ran_power_w : d->p;
            return 0;
        }
        *rt = j->ran_runtime_s * d->t / m->t
              * exp (su->noise_t * ms_hash_normal (h));
        *pw = (j->ran_power_w > 0 ? j->ran_power_w * d->p / m->p : d->p)
              * exp (su->noise_p * ms_hash_normal (ms_hash64 (h ^ 0x50)));
        return 0;
    }
    /* On the home architecture at nominal frequency the workload's runtime
     * is the truth itself: no noise there. */
    if (su->conf->parts[part].arch == su->conf->parts[su->home].arch
        && (size_t)fi == tab->nominal[su->home])
        *rt = j->runtime;
    else
        *rt = j->runtime * d->t / ref->t
              * exp (su->noise_t * ms_hash_normal (h));
    *pw = d->p * exp (su->noise_p * ms_hash_normal (ms_hash64 (h ^ 0x50)));
    /* A GPU job's GPUs draw their busy power besides the node's (the
     * app's profile's where it gives one), and its GPU model's time ratio
     * scales its runtime. */
    if (j->gpus > 0) {
        const pred_gpuprof_t *g = predtab_gpuprof (tab, (size_t)j->app);
        const ms_partconf_t *pc = &su->conf->parts[part];
        *pw += j->gpus
               * (g && g->busy_power_w > 0 ? g->busy_power_w
                                           : pc->gpu_busy_power_w);
        *rt *= gpuprof_time_ratio (g, pc->gpu_model);
    }
    /* A moldable job on another count than its minimum: Amdahl's law with
     * its app's serial fraction. */
    if (j->nodes_max > 0 && nodes != j->nodes && nodes > 0) {
        double sf = su->serial ? su->serial[j->app] : 0;
        *rt *= (sf + (1 - sf) / nodes) / (sf + (1 - sf) / j->nodes);
    }
    return 0;
}

static void violation (run_t *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void
violation (run_t *r, const char *fmt, ...)
{
    va_list ap;
    if (r->violation[0])
        return;
    va_start (ap, fmt);
    vsnprintf (r->violation, sizeof (r->violation), fmt, ap);
    va_end (ap);
}

static void
listen (void *arg, const sim_event_t *ev)
{
    run_t *r = arg;
    uint64_t id = ev->hint->gate;
    const ms_wjob_t *wj = ev->hint->job;
    size_t wi = (size_t)(wj - r->su->wl->jobs);
    ms_jobrec_t *rec = &r->recs[wi];

    switch (ev->type) {
    case SIM_EV_START:
        sched_entry_started (r->sched, id, ev->part, ev->id, ev->t,
                             ev->power_w);
        rec->starts++;
        rec->start = ev->t;
        rec->part = ev->part;
        rec->f_khz = ev->f_khz;
        rec->nodes = ev->nodes;
        rec->gpus = wj->gpus;
        /* checked here, where wj is at hand (check_invariants) */
        rec->bad_nodes
            = ev->nodes < wj->nodes
              || ev->nodes > (wj->nodes_max > 0 ? wj->nodes_max : wj->nodes);
        if (ev->t < rec->submit)
            violation (r, "job started at %.0f before its submit %.0f", ev->t,
                       rec->submit);
        break;
    case SIM_EV_END:
        sched_entry_ended (r->sched, id, ev->part, ev->id, ev->t);
        rec->ends++;
        rec->end = ev->t;
        rec->energy_j = ev->energy_j;
        rec->killed = ev->killed;
        break;
    case SIM_EV_CANCEL:
        sched_entry_cancelled (r->sched, id, ev->part, ev->id, ev->started);
        if (ev->started)
            violation (r, "a running job was cancelled at %.0f", ev->t);
        break;
    }
}

/* The scheduler's description of workload job wj; jd->user points to
 * uname (the caller's, wj's user name, kept until the job is sent). */
static void
job_desc (const ms_simsetup_t *su, const ms_wjob_t *wj, const char *uname,
          ms_jobdesc_t *jd)
{
    memset (jd, 0, sizeof (*jd));
    jd->record = wj;
    jd->user = uname;
    jd->nodes = wj->nodes;
    jd->nodes_max = wj->nodes_max;
    jd->gpus = wj->gpus;
    jd->app = (size_t)wj->app;
    jd->home = wj->measured ? wj->home : su->home;
    jd->base_s = (su->exact_estimates || wj->req_time <= 0) ? wj->runtime
                                                            : wj->req_time;
    jd->submit = wj->submit;
    jd->limit_s = wj->req_time > 0 ? wj->req_time : 0;
    jd->deadline = wj->deadline;
    jd->allowed = wj->allowed;
}

/* The event loop's state between its steps. */
typedef struct {
    size_t i;           /* the next workload job to submit */
    double next_check;  /* the next age and re-route check */
    double next_cycle;  /* metasched_window's next cycle */
    double next_outage; /* the next start or end of an outage */
    size_t step;        /* progress every step jobs */
    bool tty;           /* progress on stderr */
    uint32_t *uslot;    /* 1 + the name slot of users 0.. by id, 0: none */
    size_t nuslot;
    char (**chunks)[32]; /* the names, UNAME_CHUNK a chunk: never moved */
    size_t nnames;
    bool ahead;        /* next is job i's description */
    ms_jobdesc_t next; /* (submit_due) */
} loop_t;

/* Trace user ids are small: names by id are written once each; a name
 * stays where it was written until the run ends, since a job's
 * description points to it until the job is sent (sched.c). */
#define UNAMES_MAX 65536
#define UNAME_CHUNK 256

/* A new slot for a name, kept until loop_free. */
static char *
uname_slot (loop_t *lp)
{
    size_t c = lp->nnames / UNAME_CHUNK;

    if (lp->nnames % UNAME_CHUNK == 0) {
        lp->chunks = ms_xrealloc (lp->chunks, (c + 1) * sizeof (*lp->chunks));
        lp->chunks[c] = ms_xmalloc (UNAME_CHUNK * sizeof (**lp->chunks));
    }
    return lp->chunks[c][lp->nnames++ % UNAME_CHUNK];
}

/* The name of user, kept until the run ends: one slot a user id (a new
 * one each call for an id beyond UNAMES_MAX, which traces do not have). */
static const char *
user_name (loop_t *lp, int64_t user)
{
    bool byid = user >= 0 && user < UNAMES_MAX;
    char *s;

    if (byid) {
        if ((size_t)user >= lp->nuslot) {
            size_t n = lp->nuslot ? lp->nuslot : 256;
            while (n <= (size_t)user)
                n *= 2;
            lp->uslot = ms_xrealloc (lp->uslot, n * sizeof (*lp->uslot));
            memset (lp->uslot + lp->nuslot, 0,
                    (n - lp->nuslot) * sizeof (*lp->uslot));
            lp->nuslot = n;
        }
        if (lp->uslot[user]) {
            size_t k = lp->uslot[user] - 1;
            return lp->chunks[k / UNAME_CHUNK][k % UNAME_CHUNK];
        }
    }
    s = uname_slot (lp);
    if (byid)
        lp->uslot[user] = (uint32_t)lp->nnames;
    ms_prefix_ll (s, 32, "user", (long long)user);
    return s;
}

static void
loop_free (loop_t *lp)
{
    for (size_t c = 0; c * UNAME_CHUNK < lp->nnames; c++)
        free (lp->chunks[c]);
    free (lp->chunks);
    free (lp->uslot);
}

/* Submit the workload's jobs that arrive at t. */
static int
submit_due (run_t *r, loop_t *lp, double t, ms_error_t *errp)
{
    const ms_simsetup_t *su = r->su;
    const ms_workload_t *wl = su->wl;
    bool windowed = r->sched_kind == POL_METASCHED_WINDOW;

    while (lp->i < wl->njobs && wl->jobs[lp->i].submit == t) {
        const ms_wjob_t *wj = &wl->jobs[lp->i];
        ms_jobdesc_t jd;
        uint64_t id;
        size_t part;
        uint32_t f_khz;
        if (lp->ahead)
            jd = lp->next;
        else
            job_desc (su, wj, user_name (lp, wj->user), &jd);
        lp->ahead = false;
        if (sched_submit (r->sched, &jd, t, &id, errp) < 0)
            return -1;
        r->ids[lp->i] = id;
        if (!id)
            r->recs[lp->i].rejected = true;
        else
            sched_job_choice (r->sched, id, &part, &f_khz,
                              &r->recs[lp->i].opt_part);
        lp->i++;
        /* the next job described now, and what the core kept for its
         * kind read meanwhile (sched_prefetch) */
        if (lp->i < wl->njobs) {
            wj = &wl->jobs[lp->i];
            job_desc (su, wj, user_name (lp, wj->user), &lp->next);
            lp->ahead = true;
            sched_prefetch (r->sched, &lp->next);
        }
        if (windowed && !isfinite (lp->next_cycle))
            lp->next_cycle = t + su->window_period_s;
        if (lp->tty && lp->i % lp->step == 0)
            fprintf (stderr, "\r%s: %zu/%zu jobs submitted", su->progress,
                     lp->i, wl->njobs);
    }
    return 0;
}

/* At an outage's start or end: each cluster up or down as the outages
 * say at t (sched_set_up, which decides the jobs waiting for a cluster
 * up again). */
static int
outage_step (run_t *r, loop_t *lp, double t, ms_error_t *errp)
{
    size_t n = r->su->conf->nclusters;
    unsigned char *up = ms_xcalloc (n + 1, 1);
    int rc;

    for (size_t c = 0; c < n; c++)
        up[c] = !outage_down (&r->down, c, t);
    rc = sched_set_up (r->sched, up, t, errp);
    free (up);
    lp->next_outage = outage_next (&r->down, t);
    return rc;
}

/* The event loop: jump to the next arrival, re-route check or window
 * cycle; the simulated clusters process their own events (job ends) up
 * to it. */
static int
event_loop (run_t *r, simworld_t *w, loop_t *lp, ms_error_t *errp)
{
    const ms_simsetup_t *su = r->su;
    const ms_workload_t *wl = su->wl;

    for (;;) {
        double ta = lp->i < wl->njobs ? wl->jobs[lp->i].submit : INFINITY;
        double t;
        if (lp->i >= wl->njobs && !sched_npending (r->sched))
            lp->next_check = INFINITY;
        t = ta < lp->next_check ? ta : lp->next_check;
        if (lp->next_cycle < t)
            t = lp->next_cycle;
        /* an outage's start or end, while jobs are to come or wait */
        if (lp->next_outage < t
            && (lp->i < wl->njobs || sched_npending (r->sched)))
            t = lp->next_outage;
        if (sched_nheld (r->sched)) {
            double tr
                = release_time (r, w, simworld_now (w), lp->i < wl->njobs);
            if (tr < t)
                t = tr;
        }
        if (!isfinite (t))
            break;
        simworld_advance (w, t);
        if (t == lp->next_outage && outage_step (r, lp, t, errp) < 0)
            return -1;
        /* held jobs first: they came before any arrival now */
        if (sched_nheld (r->sched) && sched_release (r->sched, t, errp) < 0)
            return -1;
        if (t == lp->next_cycle) {
            lp->next_cycle = INFINITY;
            if (sched_cycle (r->sched, t, errp) < 0)
                return -1;
            simworld_schedule (w);
        }
        if (t == lp->next_check) {
            if (sched_age (r->sched, t, errp) < 0
                || sched_reroute (r->sched, t, errp) < 0)
                return -1;
            simworld_schedule (w);
            lp->next_check += su->reroute_period_s;
            if (lp->i >= wl->njobs && !isfinite (simworld_next_event (w)))
                lp->next_check = INFINITY;
        }
        if (submit_due (r, lp, t, errp) < 0)
            return -1;
        simworld_schedule (w);
    }
    return 0;
}

/* Invariants, doc/architecture.md "Simulator": into r->violation. */
static void
check_invariants (run_t *r, simworld_t *w)
{
    const ms_workload_t *wl = r->su->wl;
    const ms_jobrec_t *recs = r->recs;

    if (simworld_violations (w))
        violation (r, "a partition was over-allocated %zu times",
                   simworld_violations (w));
    for (size_t k = 0; k < wl->njobs && !r->violation[0]; k++) {
        const ms_jobrec_t *x = &recs[k];
        if (x->rejected)
            continue;
        if (x->starts != 1 || x->ends != 1)
            violation (r, "job %zu started %d times and ended %d times", k + 1,
                       x->starts, x->ends);
        else if (x->end < x->start)
            violation (r, "a job ended at %.0f before its start %.0f", x->end,
                       x->start);
        else if (x->bad_nodes)
            violation (r, "job %zu ran on %d nodes, out of its %d-%d", k + 1,
                       x->nodes, wl->jobs[k].nodes,
                       wl->jobs[k].nodes_max > 0 ? wl->jobs[k].nodes_max
                                                 : wl->jobs[k].nodes);
    }
}

int
simulate_run (const ms_simsetup_t *su, const ms_policy_t *pol,
              ms_jobrec_t *recs, ms_summary_t *sum, ms_error_t *errp)
{
    const ms_workload_t *wl = su->wl;
    const ms_siteconf_t *conf = su->conf;
    simworld_t *w;
    ms_backend_t **backends;
    run_t r;
    struct timespec w0, w1;
    double t0 = wl->njobs ? wl->jobs[0].submit : 0;
    loop_t lp;
    int rc = 0;

    clock_gettime (CLOCK_MONOTONIC, &w0);
    memset (&r, 0, sizeof (r));
    r.su = su;
    r.recs = recs;
    r.sched_kind = pol->kind;
    r.idle_since = NAN;
    memset (&lp, 0, sizeof (lp));
    lp.next_check = INFINITY;
    lp.next_cycle = INFINITY;
    lp.next_outage = INFINITY;
    lp.step = wl->njobs / 100 + 1;
    lp.tty = su->progress && isatty (2);
    if (simworld_new (conf, su->backfill, truth, (void *)su, &w, errp) < 0)
        return -1;
    simworld_lazy_truth (w);
    r.ids = ms_xcalloc (wl->njobs + 1, sizeof (*r.ids));
    backends = ms_xcalloc (conf->nclusters + 1, sizeof (*backends));
    for (size_t c = 0; c < conf->nclusters; c++)
        backends[c] = simworld_backend (w, c);
    /* The spread of a job's runtime around its app's prediction is what a
     * site learns from its finished jobs; here it is the truth's noise. */
    ms_policy_t upol = *pol;
    upol.job_sd = su->noise_t;
    /* The simulated clusters keep every partition's power cap for every
     * policy (simcluster.c): metasched need not drop a capped partition to
     * keep it; its predicted wait counts the time until the power is
     * there. A real Slurm does not keep metasched's caps, so the daemon
     * keeps them by choice (power_caps). */
    upol.power_caps = false;
    r.sched = sched_new (&upol, conf, backends, su->tab);
    /* every job once, and each at least one entry on the clusters */
    sched_reserve (r.sched, wl->njobs);
    simworld_reserve (w, wl->njobs);
    if (su->budgets && su->budgets->n)
        sched_set_power (r.sched, su->budgets, su->noise_p);
    for (size_t k = 0; k < su->nprime; k++)
        sched_prime (r.sched, &su->prime[k], su->prime[k].submit);
    for (size_t k = 0; k < su->nseen; k++)
        sched_observe (r.sched, su->seen[2 * k], su->seen[2 * k + 1]);
    simworld_set_listener (w, listen, &r);
    for (size_t k = 0; k < wl->njobs; k++) {
        memset (&recs[k], 0, sizeof (recs[k]));
        recs[k].submit = wl->jobs[k].submit;
        recs[k].part = SIZE_MAX;
        recs[k].opt_part = SIZE_MAX;
        recs[k].nodes = wl->jobs[k].nodes;
    }
    /* the periodic check: first choices held back long enough go to nice
     * 0 (sched_age), then the re-routes */
    if ((pol->reroute_after_s > 0 || pol->first_age > 0)
        && su->reroute_period_s > 0)
        lp.next_check = t0 + su->reroute_period_s;
    /* outages: on the clock, from the first submit */
    if (su->outages && su->outages->n) {
        r.down.n = su->outages->n;
        r.down.o = ms_xcalloc (r.down.n, sizeof (*r.down.o));
        for (size_t k = 0; k < r.down.n; k++) {
            r.down.o[k] = su->outages->o[k];
            r.down.o[k].start_s += t0;
        }
        lp.next_outage = outage_next (&r.down, -INFINITY);
    }
    /* metasched_window: the jobs that came since the last cycle are
     * placed together at the next one (event_loop). */
    rc = event_loop (&r, w, &lp, errp);
    if (rc == 0) {
        simworld_drain (w);
        rc = simworld_truth_error (w, errp);
    }
    /* Jobs no budget let start: never started. */
    size_t held_out = sched_nheld (r.sched);
    for (size_t k = 0; rc == 0 && held_out && k < wl->njobs; k++)
        for (size_t h = 0; h < held_out; h++)
            if (r.ids[k] && r.ids[k] == sched_held (r.sched)[h])
                recs[k].rejected = true;
    /* ... nor those still waiting for their clusters (none where every
     * outage ends) */
    for (size_t k = 0; rc == 0 && sched_nwaiting (r.sched) && k < wl->njobs;
         k++)
        for (size_t h = 0; h < sched_nwaiting (r.sched); h++)
            if (r.ids[k] && r.ids[k] == sched_waiting (r.sched)[h])
                recs[k].rejected = true;
    if (lp.tty)
        fprintf (stderr, "\r%*s\r", 60, "");
    clock_gettime (CLOCK_MONOTONIC, &w1);

    if (rc == 0) {
        check_invariants (&r, w);
        if (r.violation[0])
            rc = ms_err (errp, MS_ERR_INPUT, "%s: invariant broken: %s",
                         pol->label, r.violation);
    }
    if (rc == 0) {
        const ms_schedstats_t *st = sched_stats (r.sched);
        memset (sum, 0, sizeof (*sum));
        ms_strlcpy (sum->label, pol->label, sizeof (sum->label));
        sum->decisions_per_s
            = st->decide_s > 0 ? st->decisions / st->decide_s : 0;
        sum->wall_s
            = (w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) * 1e-9;
        sum->rerouted = st->rerouted;
        metrics_summarize (conf, recs, wl->njobs, sum);
        sum->power_holds = st->held;
        sum->power_held = held_out;
        sum->down_held = st->down_held;
        sum->down_moved = st->down_moved;
    }
    sched_free (r.sched);
    simworld_free (w);
    free (backends);
    free (r.ids);
    outages_free (&r.down);
    loop_free (&lp);
    return rc;
}

/* ---- the built-in configurations (doc/examples/sim-*.conf; a test
 * checks that both say the same) ---- */
static const char conf_default[]
    = "# sim-default.conf - the embedded default of `metasched simulate` (the\n"
      "# program carries this text; this file is the same, to read and edit).\n"
      "#\n"
      "# Three simulated clusters, one per Xeon partition of Table 6.1 of the "
      "EAMC\n"
      "# chapter (D'Amico 2021): p1 = 2x Platinum 8168, p2 = 2x Gold 6254,\n"
      "# p3 = 2x Gold 6148, with their frequency ranges. The per-app figures "
      "come\n"
      "# from the predictor's copy of that table. Idle powers are this "
      "example's\n"
      "# assumption (the table gives none).\n"
      "[architecture skx8168]\n"
      "description     = 2x Intel Xeon Platinum 8168 (Table 6.1 p1)\n"
      "cores_per_node  = 48\n"
      "frequencies_khz = 1200000-2700000/100000\n"
      "nominal_khz     = 2700000\n"
      "idle_power_w    = 110\n"
      "\n"
      "[architecture clx6254]\n"
      "description     = 2x Intel Xeon Gold 6254 (Table 6.1 p2)\n"
      "cores_per_node  = 36\n"
      "frequencies_khz = 1200000-3100000/100000\n"
      "nominal_khz     = 3100000\n"
      "idle_power_w    = 100\n"
      "\n"
      "[architecture skx6148]\n"
      "description     = 2x Intel Xeon Gold 6148 (Table 6.1 p3)\n"
      "cores_per_node  = 40\n"
      "frequencies_khz = 1000000-2400000/100000\n"
      "nominal_khz     = 2400000\n"
      "idle_power_w    = 90\n"
      "\n"
      "[cluster alpha]\n"
      "backend = simulated\n"
      "\n"
      "[partition alpha/batch]\n"
      "architecture = skx8168\n"
      "nodes        = 128\n"
      "\n"
      "[cluster beta]\n"
      "backend = simulated\n"
      "\n"
      "[partition beta/compute]\n"
      "architecture = clx6254\n"
      "nodes        = 96\n"
      "\n"
      "[cluster gamma]\n"
      "backend = simulated\n"
      "\n"
      "[partition gamma/short]\n"
      "architecture = skx6148\n"
      "nodes        = 96\n"
      "power_cap_w  = 30000\n";

static const char conf_eamc[]
    = "# sim-eamc.conf - the EAMC reproduction (seeds/000 section 6.5): two\n"
      "# partitions of 512 nodes with the two node models of the EAR learning\n"
      "# phase in ../shared/data/profiles/eamc-2hw (module 0 \"normal\", "
      "module 1\n"
      "# \"normal2\"). Idle powers are an assumption: the source gives none, "
      "and\n"
      "# they only enter the system energy.\n"
      "[architecture normal]\n"
      "description     = 2x Intel Xeon Platinum 8168 (EAMC p1)\n"
      "cores_per_node  = 48\n"
      "frequencies_khz = 1200000-2700000/100000\n"
      "nominal_khz     = 2700000\n"
      "idle_power_w    = 110\n"
      "\n"
      "[architecture normal2]\n"
      "description     = 2x Intel Xeon Gold 6254 (EAMC p2)\n"
      "cores_per_node  = 36\n"
      "frequencies_khz = 1200000-3100000/100000\n"
      "nominal_khz     = 3100000\n"
      "idle_power_w    = 100\n"
      "\n"
      "[cluster eamc]\n"
      "backend = simulated\n"
      "\n"
      "[partition eamc/p1]\n"
      "architecture = normal\n"
      "nodes        = 512\n"
      "\n"
      "[partition eamc/p2]\n"
      "architecture = normal2\n"
      "nodes        = 512\n";

/* The architectures of sim-default.conf without their descriptions, as
 * the trace scenarios declare them. */
#define TABLE61_ARCHS                                                          \
    "[architecture skx8168]\n"                                                 \
    "cores_per_node  = 48\n"                                                   \
    "frequencies_khz = 1200000-2700000/100000\n"                               \
    "nominal_khz     = 2700000\n"                                              \
    "idle_power_w    = 110\n"                                                  \
    "\n"                                                                       \
    "[architecture clx6254]\n"                                                 \
    "cores_per_node  = 36\n"                                                   \
    "frequencies_khz = 1200000-3100000/100000\n"                               \
    "nominal_khz     = 3100000\n"                                              \
    "idle_power_w    = 100\n"                                                  \
    "\n"                                                                       \
    "[architecture skx6148]\n"                                                 \
    "cores_per_node  = 40\n"                                                   \
    "frequencies_khz = 1000000-2400000/100000\n"                               \
    "nominal_khz     = 2400000\n"                                              \
    "idle_power_w    = 90\n"                                                   \
    "\n"

static const char conf_kth[]
    = "# sim-kth.conf - the KTH-SP2 trace (100 nodes, one processor each) as "
      "the\n"
      "# home workload of a three-cluster system: its home partition has the\n"
      "# trace's 100 nodes, two newer clusters add 64 nodes each. "
      "Architectures as\n"
      "# in sim-default.conf (Table 6.1).\n" TABLE61_ARCHS "[cluster home]\n"
      "backend = simulated\n"
      "\n"
      "[partition home/batch]\n"
      "architecture = skx8168\n"
      "nodes        = 100\n"
      "\n"
      "[cluster beta]\n"
      "backend = simulated\n"
      "\n"
      "[partition beta/compute]\n"
      "architecture = clx6254\n"
      "nodes        = 64\n"
      "\n"
      "[cluster gamma]\n"
      "backend = simulated\n"
      "\n"
      "[partition gamma/short]\n"
      "architecture = skx6148\n"
      "nodes        = 64\n";

static const char conf_curie[]
    = "# sim-curie.conf - the CEA Curie sample (93,312 processors, 16 per "
      "node:\n"
      "# 5,832 nodes) as the home workload of a three-cluster system, with "
      "two\n"
      "# newer clusters of 2,048 nodes. Architectures as in "
      "sim-default.conf.\n" TABLE61_ARCHS "[cluster curie]\n"
      "backend = simulated\n"
      "\n"
      "[partition curie/thin]\n"
      "architecture = skx8168\n"
      "nodes        = 5832\n"
      "\n"
      "[cluster beta]\n"
      "backend = simulated\n"
      "\n"
      "[partition beta/compute]\n"
      "architecture = clx6254\n"
      "nodes        = 2048\n"
      "\n"
      "[cluster gamma]\n"
      "backend = simulated\n"
      "\n"
      "[partition gamma/short]\n"
      "architecture = skx6148\n"
      "nodes        = 2048\n";

const char *
simulate_builtin_config (const char *scenario)
{
    if (!strcmp (scenario, "default"))
        return conf_default;
    if (!strcmp (scenario, "eamc"))
        return conf_eamc;
    if (!strcmp (scenario, "kth"))
        return conf_kth;
    if (!strcmp (scenario, "curie"))
        return conf_curie;
    return NULL;
}
