/* policy.c - policies and the scheduling core (see policy.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/core/engine.h"
#include "metasched/core/policy.h"
#include "metasched/core/score.h"
#include "metasched/core/window.h"
#include "metasched/common/util.h"
#include "partitions/simcluster.h"

static const char *const kind_names[POL_NKINDS] = {
    "base",
    "min_runtime",
    "min_energy",
    "ear_min_energy",
    "eamc_reorder",
    "eamc_priority_inc",
    "eamc_priority_inc_v",
    "metasched",
    "metasched_window",
    "home",
};

const char *
policy_kind_name (ms_polkind_t k)
{
    return k < POL_NKINDS ? kind_names[k] : "?";
}

int
policy_kind_parse (const char *s, ms_polkind_t *k)
{
    for (int i = 0; i < POL_NKINDS; i++)
        if (!strcmp (s, kind_names[i])) {
            *k = (ms_polkind_t)i;
            return 0;
        }
    return -1;
}

void
policy_relabel (ms_policy_t *pol)
{
    const char *n = policy_kind_name (pol->kind);
    switch (pol->kind) {
    case POL_EAR_MIN_ENERGY:
        snprintf (pol->label, sizeof (pol->label), "%s-%g", n, pol->theta);
        break;
    case POL_EAMC_REORDER:
    case POL_EAMC_PRIO:
    case POL_EAMC_PRIO_V:
        snprintf (pol->label, sizeof (pol->label), "%s-%g", n, pol->t_weight);
        break;
    case POL_METASCHED:
    case POL_METASCHED_WINDOW:
        snprintf (pol->label, sizeof (pol->label), "%s-w%g", n, pol->w_energy);
        break;
    default:
        snprintf (pol->label, sizeof (pol->label), "%s", n);
    }
}

bool
policy_is_metasched (ms_polkind_t k)
{
    return k == POL_METASCHED || k == POL_METASCHED_WINDOW;
}

void
policy_init (ms_policy_t *pol, ms_polkind_t k)
{
    memset (pol, 0, sizeof (*pol));
    pol->kind = k;
    pol->theta = 0.1;
    pol->t_weight = 1;
    pol->v_threshold = 0.35;
    pol->w_energy = 0.5;
    pol->max_slowdown = 1.3;
    pol->sibling_slack = INFINITY;
    pol->sibling_grade = 1;
    pol->pref_margin = 0.2;
    pol->first_age = policy_is_metasched (k) ? MS_FIRST_AGE : 0;
    pol->sibling_hold = policy_is_metasched (k) ? 1 : 0;
    pol->hold_busy = 0.5;
    pol->width_exp = 1;
    pol->ref_nodes = 0;
    pol->cal_lean = policy_is_metasched (k) ? 1.2 : 0;
    pol->cal_lean_idle = policy_is_metasched (k) ? 0.95 : 0;
    pol->odds_scale = 0;
    pol->congestion = 0;
    pol->drain_weight = policy_is_metasched (k) ? 1 : 0;
    pol->wait_share = policy_is_metasched (k) ? 0.02 : 0;
    pol->sibling_ahead = policy_is_metasched (k) ? 0.25 : 0;
    pol->stake_margin = policy_is_metasched (k) ? 3 : 0;
    /* The siblings take whichever partition starts the job first, so the
     * first choice is the best partition at equal waits (doc/simulator.md,
     * "metasched's policy"); with one entry (the daemon's single dispatch)
     * the predicted wait counts in full. */
    pol->wait_weight = 0;
    pol->sibling_same_class = false;
    pol->reroute_after_s = policy_is_metasched (k) ? MS_REROUTE_AFTER_S : 0;
    pol->window_budget_s = 0.5;
    pol->reroute_gain = MS_REROUTE_GAIN;
    pol->max_reroutes = MS_MAX_REROUTES;
    pol->power_caps = true;
    pol->scale_limits = true;
    pol->job_sd = 0.05;
    pol->limit_z = 4;
    policy_relabel (pol);
}

size_t
policy_optimal_partition (const ms_cands_t *cs, size_t nparts)
{
    size_t best[MS_MAX_RANKED], opt = SIZE_MAX;
    double emin = INFINITY, tmin = INFINITY, be = INFINITY;

    if (nparts > MS_MAX_RANKED)
        nparts = MS_MAX_RANKED;
    score_eamc_fopt (cs, nparts, 1.0, best);
    for (size_t p = 0; p < nparts; p++)
        if (best[p] != SIZE_MAX) {
            if (cs->c[best[p]].e < emin)
                emin = cs->c[best[p]].e;
            if (cs->c[best[p]].t < tmin)
                tmin = cs->c[best[p]].t;
        }
    for (size_t p = 0; p < nparts; p++)
        if (best[p] != SIZE_MAX) {
            double pe = score_eamc_part_eff (cs->c[best[p]].e, emin,
                                             cs->c[best[p]].t, tmin, 1.0);
            if (pe < be) {
                be = pe;
                opt = p;
            }
        }
    return opt;
}

static ms_choice_t *
add_choice (ms_decision_t *d, const ms_cands_t *cs, size_t ci, int nice)
{
    if (d->n >= MS_MAX_CHOICES)
        return NULL;
    d->c[d->n].part = cs->c[ci].part;
    d->c[d->n].cand = ci;
    d->c[d->n].nice = nice;
    d->c[d->n].rank = (int)d->n;
    d->c[d->n].hold_s = 0;
    return &d->c[d->n++];
}

/* Per partition, the candidate minimizing key (T or E), optionally only
 * among those within (1 + theta) of the partition's nominal T. */
static void
per_partition_min (const ms_cands_t *cs, const ms_siteconf_t *conf,
                   size_t nparts, bool energy, double theta, size_t *best)
{
    for (size_t p = 0; p < nparts; p++) {
        double bk = INFINITY, tnom = INFINITY;
        best[p] = SIZE_MAX;
        if (theta >= 0)
            for (size_t i = 0; i < cs->n; i++)
                if (cs->c[i].part == p
                    && cs->c[i].f_khz
                           == conf->archs[conf->parts[p].arch].nominal_khz)
                    tnom = cs->c[i].t;
        for (size_t i = 0; i < cs->n; i++) {
            const ms_cand_t *c = &cs->c[i];
            double k = energy ? c->e : c->t;
            if (c->part != p)
                continue;
            /* EAR min_energy_to_solution: the time penalty bound. */
            if (theta >= 0 && isfinite (tnom) && c->t > (1 + theta) * tnom)
                continue;
            /* Ties go to the higher frequency (later in the list). */
            if (k <= bk) {
                bk = k;
                best[p] = i;
            }
        }
    }
}

typedef struct {
    size_t part;
    size_t cand;
    double key;
} ranked_t;

static int
ranked_cmp (const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->part < y->part ? -1 : x->part > y->part;
}

static void
decide_eamc (const ms_policy_t *pol, const ms_cands_t *cs, size_t nparts,
             ms_decision_t *d)
{
    size_t best[MS_MAX_RANKED];
    ranked_t r[MS_MAX_RANKED] = { { 0, 0, 0 } };
    size_t nr = 0;
    double emin = INFINITY, tmin = INFINITY;

    /* Listing 6.1: f_opt per partition (eq. 6.4), then Emin and tmin over
     * the partitions at f_opt, part_eff (eq. 6.5), sort. */
    score_eamc_fopt (cs, nparts, pol->t_weight, best);
    for (size_t p = 0; p < nparts; p++)
        if (best[p] != SIZE_MAX) {
            if (cs->c[best[p]].e < emin)
                emin = cs->c[best[p]].e;
            if (cs->c[best[p]].t < tmin)
                tmin = cs->c[best[p]].t;
        }
    for (size_t p = 0; p < nparts; p++)
        if (best[p] != SIZE_MAX) {
            r[nr].part = p;
            r[nr].cand = best[p];
            r[nr].key = score_eamc_part_eff (
                cs->c[best[p]].e, emin, cs->c[best[p]].t, tmin, pol->t_weight);
            nr++;
        }
    qsort (r, nr, sizeof (*r), ranked_cmp);
    for (size_t i = 0; i < nr; i++) {
        int nice = 0;
        if (pol->kind == POL_EAMC_PRIO || pol->kind == POL_EAMC_PRIO_V)
            nice = (int)i * MS_NICE_STEP;
        /* PriorityInc-V: "the priority is lowered if the evaluated metric
         * is below a certain threshold ... 35% from the optimal part_eff"
         * (seeds/000 6.4.2): such entries go to the bottom of the queue. */
        if (pol->kind == POL_EAMC_PRIO_V && i > 0
            && r[i].key > (1 + pol->v_threshold) * r[0].key)
            nice = MS_MAX_CHOICES * MS_NICE_STEP;
        add_choice (d, cs, r[i].cand, nice);
    }
}

/* metasched's admissible candidates (ok) and the job's energy weight:
 * the maximum slowdown, the power caps, the job's width. Returns how many
 * are admissible (at least the fastest when there is any candidate);
 * why, when not NULL, gets each candidate's reason (ms_cand_why_t). */
static size_t
metasched_filter (const ms_policy_t *pol, const ms_siteconf_t *conf,
                  const ms_cands_t *cs, const ms_view_t *view, bool *ok,
                  double *wep, const char **why)
{
    double tbest = INFINITY;
    size_t nok = 0, fastest = SIZE_MAX;
    double rcap = INFINITY, we = pol->w_energy;
    /* The job's width against the site's mean: mean job energy and mean
     * response weigh every job's response alike but its energy by its
     * nodes, so a wide job's energy weighs more (the odds of w_E times
     * (nodes / ref_nodes)^width_exp) and a narrow one's response. */
    if (pol->ref_nodes > 0 && pol->width_exp != 0 && cs->n && we > 0
        && we < 1) {
        double n = cs->c[0].e / (cs->c[0].p * cs->c[0].t);
        double odds = we / (1 - we) * pow (n / pol->ref_nodes, pol->width_exp);
        if (pol->odds_scale > 0)
            odds *= pol->odds_scale;
        we = odds / (1 + odds);
    }
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].t < tbest) {
            tbest = cs->c[i].t;
            fastest = i;
        }
    /* The best predicted response (wait plus runtime) among candidates
     * within the slowdown cap. */
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].t_hi <= pol->max_slowdown * tbest
            && cs->c[i].w + cs->c[i].t_hi < rcap)
            rcap = cs->c[i].w + cs->c[i].t_hi;
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        const ms_partconf_t *pc = &conf->parts[c->part];
        /* The maximum slowdown against the best candidate, on the upper
         * bound of T (DESIGN.md 4.3); a slower candidate is still allowed
         * when it would end before any candidate within the cap could (the
         * job is not held for a busy fast partition while another is
         * free). */
        if (c->t_hi > pol->max_slowdown * tbest && c->w + c->t_hi >= rcap) {
            if (why)
                why[i] = "over the maximum slowdown against the fastest";
            continue;
        }
        /* The partition's power cap: what runs there now plus this job
         * must stay under it. */
        if (pol->power_caps && pc->power_cap_w > 0 && view) {
            int nodes = (int)lround (c->e / (c->p * c->t));
            double idle = conf->archs[pc->arch].idle_power_w;
            if (view_power (view, c->part) + nodes * (c->p - idle)
                > pc->power_cap_w) {
                if (why)
                    why[i] = "over the partition's power cap";
                continue;
            }
        }
        ok[i] = true;
        nok++;
    }
    if (!nok && fastest != SIZE_MAX) {
        ok[fastest] = true;
        if (why)
            why[fastest] = NULL;
        nok = 1;
    }
    *wep = we;
    return nok;
}

/* The nice of a metasched entry while siblings go out: each partition
 * serves first the jobs that gain most by running there. adv is the
 * entry's advantage over the job's other choices: for the first choice,
 * how much better it scores than the next partition (that one's score over
 * the first's, minus 1); for a sibling, minus its loss graded by
 * sibling_grade (at most 1). A first choice ahead by pref_margin or more
 * gets nice 0; a nearly tied one waits behind those by up to pref_margin of
 * a class step, where its own siblings on its other partitions come right
 * after (doc/simulator.md, "metasched's policy"). */
static int
entry_nice (const ms_policy_t *pol, double adv)
{
    double v = pol->pref_margin - adv;

    if (pol->sibling_same_class || !(v > 0))
        return 0;
    if (v > 1 + pol->pref_margin)
        v = 1 + pol->pref_margin;
    return (int)lround (v * MS_NICE_STEP);
}

/* A sibling's loss against the first choice graded by sibling_grade:
 * 0 to 1 (1: a whole class step). */
static double
sibling_loss (const ms_policy_t *pol, double key, double key0)
{
    double g = pol->sibling_grade > 0 ? (key / key0 - 1) / pol->sibling_grade
                                      : 1;
    return g < 0 ? 0 : g > 1 ? 1 : g;
}

/* How long a sibling is held back (begin_time) after the decision. On a
 * busy partition the nodes that free belong first to the jobs that prefer
 * it: the sibling may take them only once its job has waited at its first
 * choice for its loss (its score over the first's, minus 1) times the
 * first choice's runtime t0, times sibling_hold. Busy: over hold_busy of
 * the job's runtime there, the running jobs keep its nodes (ws) or the
 * first choices queued there would keep the whole partition (wf). The
 * other jobs' siblings queued there do not count: they are not the jobs
 * that prefer it (counted, with their time limits for runtimes, they made
 * partitions with idle nodes look busy for hours, doc/evaluation.md
 * (12)). On a partition with no such wait the sibling may take idle nodes at
 * once: the job starts sooner and nobody who prefers them is waiting. */
static void
hold_sibling (const ms_policy_t *pol, ms_choice_t *ch, const ms_cand_t *c,
              double key, double key0, double t0)
{
    if (!ch || !(pol->sibling_hold > 0) || !(key > key0)
        || !((c->ws > c->wf ? c->ws : c->wf) > pol->hold_busy * c->t))
        return;
    ch->hold_s = pol->sibling_hold * (key / key0 - 1) * t0;
}

/* Whether sibling c goes ahead at nice 0 and unheld: the running jobs of
 * its partition free its nodes within sibling_ahead of its runtime there,
 * and it would end before those of the first choice's partition (c0)
 * free the first choice's. The first choice then waits for a drain (a
 * job as wide as its partition, behind jobs that run for hours), and at
 * a sibling's nice the job would not start elsewhere either: a wide
 * entry behind the partition's own jobs gets no reservation and cannot
 * backfill. Only the running jobs count here (the shadow time, ws), not
 * the queue, whose siblings overstate it. */
static bool
sibling_ahead (const ms_policy_t *pol, const ms_cand_t *c, const ms_cand_t *c0)
{
    return pol->sibling_ahead > 0 && c->ws <= pol->sibling_ahead * c->t
           && c->ws + c->t <= c0->ws;
}

/* Whether the job waits for its first choice c0 before sibling c may
 * start: the sibling's loss (key over key0, times key_s, the seconds of
 * the job's response that a unit of its key is worth: its stake in the
 * first choice) is worth over stake_margin times the first choice's
 * predicted wait. A wide job whose first choice saves a large share of
 * its energy then waits for it, busy or idle as the sibling's partition
 * may be, rather than run for hours where it costs more; a job whose
 * first choice is far off, or that loses little, goes as before. The
 * margin stands for the predicted wait's error: it counts time limits
 * for runtimes. */
static bool
sibling_staked (const ms_policy_t *pol, const ms_cand_t *c0, double key,
                double key0, double key_s)
{
    return pol->stake_margin > 0 && key > key0 && isfinite (key_s)
           && c0->w * pol->stake_margin
                  <= pol->sibling_hold * (key - key0) * key_s;
}

/* Add candidate ci of cs, a sibling of the first choice ci0 scoring key
 * against the first's key0 (key_s: what a unit of key is worth, in
 * seconds of the job's response): held until the first choice's
 * predicted wait has passed when the job's stake in it is large
 * (sibling_staked), ahead (sibling_ahead), or at the nice of its loss and
 * held on a busy partition (entry_nice, hold_sibling). The greedy
 * decision and the window's both send their siblings this way. */
static void
add_sibling (const ms_policy_t *pol, ms_decision_t *d, const ms_cands_t *cs,
             size_t ci, size_t ci0, double key, double key0, double key_s)
{
    bool staked = sibling_staked (pol, &cs->c[ci0], key, key0, key_s);
    ms_choice_t *ch;

    if (!staked && sibling_ahead (pol, &cs->c[ci], &cs->c[ci0])) {
        add_choice (d, cs, ci, 0);
        return;
    }
    ch = add_choice (d, cs, ci,
                     entry_nice (pol, -sibling_loss (pol, key, key0)));
    hold_sibling (pol, ch, &cs->c[ci], key, key0, cs->c[ci0].t);
    if (staked && ch && cs->c[ci0].w > ch->hold_s)
        ch->hold_s = cs->c[ci0].w;
}

/* The weight of the predicted wait in metasched's response term: the
 * policy's while siblings go to the other partitions (they take whichever
 * starts the job first), 1 when the job has one entry and waits where it
 * goes. */
static double
wait_weight (const ms_policy_t *pol)
{
    return pol->sibling_slack > 0 ? pol->wait_weight : 1;
}

/* The wait a candidate adds to the captive jobs of its partition, those
 * that no other partition can run (KTH's jobs over 64 nodes at home):
 * such a job cannot go elsewhere when the partition is busy, it waits for
 * enough nodes to free. Arriving at rate lambda while the candidate runs
 * for T, it finds the candidate's nodes among those it waits for with
 * the chance n / N (the candidate's share of the partition) and waits for
 * the rest of its run, T / 2 on average: lambda (n / N) T^2 / 2 seconds of
 * wait, counted as the job's own response (both weigh alike in the mean
 * response), times drain_weight. Long and wide jobs are the ones that
 * delay them; a slow clock on such a job there lengthens every drain it
 * is part of. 0 on a partition without captive jobs. */
static double
drain_delay (const ms_policy_t *pol, const ms_siteconf_t *conf,
             const ms_cand_t *c)
{
    double n;

    if (c->part >= MS_MAX_RANKED || !(pol->captive_rate[c->part] > 0)
        || !(c->p > 0 && c->t > 0))
        return 0;
    n = c->e / (c->p * c->t);
    return pol->drain_weight * pol->captive_rate[c->part] * n
           / conf->parts[c->part].nodes * c->t * c->t / 2;
}

/* Whether the drain delay counts for a job on partition p (drain_delay is
 * asked only then): only with a drain weight, and when none
 * of its other partitions is one that other jobs depend on (a GPU
 * partition where the GPU jobs must run). There, a job moved away from p
 * would delay those instead, and the formula, made for wide jobs that
 * wait for a drain, does not price narrow jobs that wait only when the
 * partition is full. */
static bool
drain_open (const ms_policy_t *pol, const ms_cands_t *cs, size_t p)
{
    if (!(pol->drain_weight > 0))
        return false;
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].part != p && cs->c[i].part < MS_MAX_RANKED
            && pol->restricted_rate[cs->c[i].part] > 0)
            return false;
    return true;
}

/* The wait a job has wherever it goes, counted in its response term on
 * every partition alike: wait_share of its least predicted wait among the
 * admissible candidates. A second of runtime then weighs less against
 * energy where the job waits long anyway (its response is mostly wait),
 * and as before where it starts at once. The predicted wait counts every
 * queued entry, siblings included, and time limits for runtimes, and
 * overstates real waits by an order of magnitude or more
 * (doc/simulator.md, "metasched's policy"): wait_share is the real wait's
 * share of it. */
static double
shared_wait (const ms_policy_t *pol, const ms_cands_t *cs, const bool *ok)
{
    double wmin = INFINITY;

    if (!(pol->wait_share > 0))
        return 0;
    for (size_t i = 0; i < cs->n; i++)
        if (ok[i] && cs->c[i].w < wmin)
            wmin = cs->c[i].w;
    return isfinite (wmin) ? pol->wait_share * wmin : 0;
}

/* metasched's key of each partition for a job: on each partition with an
 * admissible candidate, the frequency that scores best there (energy
 * against runtime, the runtime's weight growing with the partition's
 * congestion), and that candidate's rank key (weighted energy and
 * predicted response against the job's best). Fills r (one per partition,
 * in partition order; at most nparts) and, when fs is not NULL, every
 * admissible candidate's frequency score fs[i]; ok gets the admissible
 * candidates, *wtminp the job's best predicted response, *key_sp the
 * seconds of the job's response a unit of its key is worth (the response
 * term's scale over its weight). Returns how many partitions were
 * ranked. Both the greedy decision and the window's costs
 * come from here. */
static size_t
metasched_rank (const ms_policy_t *pol, const ms_siteconf_t *conf,
                const ms_cands_t *cs, const ms_view_t *view, bool *ok,
                double *fs, ranked_t *r, size_t nparts, double *wtminp,
                double *key_sp)
{
    double emin = INFINITY, wtmin = INFINITY, we, shared;
    size_t nr = 0;

    metasched_filter (pol, conf, cs, view, ok, &we, NULL);
    shared = shared_wait (pol, cs, ok);
    for (size_t i = 0; i < cs->n; i++)
        if (ok[i]) {
            double wt = wait_weight (pol) * cs->c[i].w + cs->c[i].t;
            if (cs->c[i].e < emin)
                emin = cs->c[i].e;
            if (wt < wtmin)
                wtmin = wt;
        }
    for (size_t p = 0; p < nparts; p++) {
        double ep = INFINITY, tp = INFINITY, wp = 0, g, bf = INFINITY;
        size_t bi = SIZE_MAX;
        bool dr;
        for (size_t i = 0; i < cs->n; i++)
            if (ok[i] && cs->c[i].part == p) {
                if (cs->c[i].e < ep)
                    ep = cs->c[i].e;
                if (cs->c[i].t < tp)
                    tp = cs->c[i].t;
                wp = cs->c[i].w;
            }
        if (!isfinite (ep))
            continue;
        /* The frequency on p: energy against runtime, where the runtime's
         * weight grows with the partition's congestion (predicted wait
         * over the job's runtime): a slower clock on a busy partition
         * delays every job queued behind it, on an idle one only itself. */
        g = 1 + pol->congestion * wp / tp;
        dr = drain_open (pol, cs, p);
        for (size_t i = 0; i < cs->n; i++)
            if (ok[i] && cs->c[i].part == p) {
                double f
                    = we * cs->c[i].e / ep
                      + (1 - we)
                            * (shared + g * cs->c[i].t
                               + (dr ? drain_delay (pol, conf, &cs->c[i]) : 0))
                            / (shared + tp);
                if (fs)
                    fs[i] = f;
                if (f <= bf) {
                    bf = f;
                    bi = i;
                }
            }
        r[nr].part = p;
        r[nr].cand = bi;
        r[nr].key = score_metasched (
            cs->c[bi].e, emin,
            shared + wait_weight (pol) * cs->c[bi].w + cs->c[bi].t
                + (dr ? drain_delay (pol, conf, &cs->c[bi]) : 0),
            shared + wtmin, we);
        nr++;
    }
    *wtminp = wtmin;
    /* a unit of the key is worth the best response (with the shared
     * wait) over the response's weight, in seconds of response */
    *key_sp = we < 1 ? (shared + wtmin) / (1 - we) : INFINITY;
    return nr;
}

static void
decide_metasched (const ms_policy_t *pol, const ms_siteconf_t *conf,
                  const ms_cands_t *cs, const ms_view_t *view, ms_decision_t *d)
{
    bool *ok = ms_xcalloc (cs->n + 1, sizeof (bool));
    ranked_t r[MS_MAX_RANKED] = { { 0, 0, 0 } };
    double wtmin, key_s;
    size_t nr;

    nr = metasched_rank (
        pol, conf, cs, view, ok, NULL, r,
        conf->nparts < MS_MAX_RANKED ? conf->nparts : MS_MAX_RANKED, &wtmin,
        &key_s);
    qsort (r, nr, sizeof (*r), ranked_cmp);
    for (size_t i = 0; i < nr; i++) {
        if (i > 0 && r[i].key > (1 + pol->sibling_slack) * r[0].key)
            break;
        /* On each partition the jobs that gain most by running there go
         * first: the first choice by its lead over the next partition (a
         * job with one entry has no sibling to take it elsewhere: nice 0),
         * siblings by their loss against the best (add_sibling). */
        if (i == 0)
            add_choice (
                d, cs, r[0].cand,
                entry_nice (pol, nr > 1 && r[1].key
                                               <= (1 + pol->sibling_slack)
                                                      * r[0].key
                                     ? r[1].key / r[0].key - 1
                                     : pol->pref_margin));
        else
            add_sibling (pol, d, cs, r[i].cand, r[0].cand, r[i].key,
                         r[0].key, key_s);
    }
    free (ok);
}

bool
policy_explain (const ms_policy_t *pol, const ms_siteconf_t *conf,
                const ms_cands_t *cs, const ms_view_t *view, ms_explain_t *ex,
                ms_cand_why_t *cw)
{
    size_t nparts = conf->nparts < MS_MAX_RANKED ? conf->nparts : MS_MAX_RANKED;
    bool *ok;
    double *fs, emin = INFINITY, wtmin, key_s;
    const char **why;
    ranked_t r[MS_MAX_RANKED] = { { 0, 0, 0 } };
    size_t nr;

    memset (ex, 0, sizeof (*ex));
    if (!policy_is_metasched (pol->kind) || !cs->n)
        return false;
    ok = ms_xcalloc (cs->n + 1, sizeof (bool));
    fs = ms_xcalloc (cs->n + 1, sizeof (double));
    why = ms_xcalloc (cs->n + 1, sizeof (*why));
    metasched_filter (pol, conf, cs, view, ok, &ex->w_energy, why);
    nr = metasched_rank (pol, conf, cs, view, ok, fs, r, nparts, &wtmin,
                         &key_s);
    ex->shared_wait_s = shared_wait (pol, cs, ok);
    ex->wait_weight = wait_weight (pol);
    ex->best_response_s = ex->shared_wait_s + wtmin;
    ex->odds_scale = pol->odds_scale;
    for (size_t i = 0; i < cs->n; i++)
        if (ok[i] && cs->c[i].e < emin)
            emin = cs->c[i].e;
    /* each admissible candidate's key as metasched_rank makes its
     * partition's (the partition's own frequency's is that key) */
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        ms_cand_why_t *w = &cw[i];
        bool dr;
        memset (w, 0, sizeof (*w));
        w->admissible = ok[i];
        w->excluded = why[i];
        w->key = w->freq_score = NAN;
        if (!ok[i])
            continue;
        dr = drain_open (pol, cs, c->part);
        w->drain_s = dr ? drain_delay (pol, conf, c) : 0;
        w->freq_score = fs[i];
        w->key = score_metasched (c->e, emin,
                                  ex->shared_wait_s
                                      + ex->wait_weight * c->w + c->t
                                      + w->drain_s,
                                  ex->best_response_s, ex->w_energy);
        for (size_t k = 0; k < nr; k++)
            if (r[k].cand == i)
                w->part_pick = true;
    }
    free (ok);
    free (fs);
    free (why);
    return true;
}

/* home: the job's home partition at its nominal frequency (the highest
 * listed there when the nominal has no prediction); a job its home cannot
 * run (too wide, GPUs it lacks) goes to the first partition in the
 * configuration's order that can, as its user would send it. */
static void
decide_home (const ms_siteconf_t *conf, const ms_cands_t *cs, ms_decision_t *d)
{
    size_t h = cs->home, bi = SIZE_MAX;
    uint32_t nom, bf = 0;
    bool there = false;

    for (size_t i = 0; i < cs->n && !there; i++)
        there = cs->c[i].part == h;
    if (!there && cs->n) {
        h = cs->c[0].part;
        for (size_t i = 1; i < cs->n; i++)
            if (cs->c[i].part < h)
                h = cs->c[i].part;
    }
    if (h >= conf->nparts)
        return;
    nom = conf->archs[conf->parts[h].arch].nominal_khz;
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].part == h && cs->c[i].f_khz == nom)
            bi = i;
    for (size_t i = 0; bi == SIZE_MAX && i < cs->n; i++)
        if (cs->c[i].part == h && cs->c[i].f_khz >= bf) {
            bf = cs->c[i].f_khz;
            bi = i;
        }
    if (bi != SIZE_MAX)
        add_choice (d, cs, bi, 0);
}

void
policy_decide (const ms_policy_t *pol, const ms_siteconf_t *conf,
               const ms_cands_t *cs, const ms_view_t *view, ms_decision_t *d)
{
    size_t nparts = conf->nparts > MS_MAX_RANKED ? MS_MAX_RANKED : conf->nparts;
    size_t best[MS_MAX_RANKED];

    d->n = 0;
    if (!cs->n)
        return;
    switch (pol->kind) {
    case POL_BASE: {
        size_t opt = policy_optimal_partition (cs, nparts);
        /* The nominal frequency: the highest-listed candidate there. */
        size_t bi = SIZE_MAX;
        uint32_t bf = 0;
        for (size_t i = 0; i < cs->n; i++)
            if (cs->c[i].part == opt
                && cs->c[i].f_khz
                       == conf->archs[conf->parts[opt].arch].nominal_khz)
                bi = i;
        for (size_t i = 0; bi == SIZE_MAX && i < cs->n; i++)
            if (cs->c[i].part == opt && cs->c[i].f_khz >= bf) {
                bf = cs->c[i].f_khz;
                bi = i;
            }
        if (bi != SIZE_MAX)
            add_choice (d, cs, bi, 0);
        break;
    }
    case POL_MIN_RUNTIME:
    case POL_MIN_ENERGY:
    case POL_EAR_MIN_ENERGY:
        per_partition_min (cs, conf, nparts, pol->kind != POL_MIN_RUNTIME,
                           pol->kind == POL_EAR_MIN_ENERGY ? pol->theta : -1,
                           best);
        for (size_t p = 0; p < nparts; p++)
            if (best[p] != SIZE_MAX)
                add_choice (d, cs, best[p], 0);
        break;
    case POL_EAMC_REORDER:
    case POL_EAMC_PRIO:
    case POL_EAMC_PRIO_V:
        decide_eamc (pol, cs, nparts, d);
        break;
    case POL_METASCHED:
    case POL_METASCHED_WINDOW:
        decide_metasched (pol, conf, cs, view, d);
        break;
    case POL_HOME:
        decide_home (conf, cs, d);
        break;
    default:
        break;
    }
}

/* ---- the scheduling core ---- */

typedef enum {
    SJ_QUEUED = 0,
    SJ_RUNNING,
    SJ_DONE,
    SJ_REJECTED,
    SJ_WINDOW, /* in the core's window, not yet dispatched */
    SJ_HELD    /* held for power (sched_release) */
} sjstate_t;

typedef struct {
    uint64_t bid; /* the cluster's job id */
    double pred_t;
    uint32_t f_khz;
    uint16_t part;
    int nodes; /* the entry's node count (a moldable job's chosen one) */
    int nice;
    bool live; /* pending or running on the cluster */
} sentry_t;

typedef struct {
    ms_jobdesc_t jd;
    sjstate_t state;
    int reroutes;
    size_t opt_part;
    size_t run_part;
    uint32_t run_f;
    size_t pos;  /* in the pending list */
    size_t ent0; /* first entry in the core's entry pool */
    size_t nent;
    double start_s; /* when its running entry started */
} sjob_t;

struct ms_sched {
    ms_policy_t pol;
    const ms_siteconf_t *conf;
    ms_backend_t *const *backends;
    const ms_predtab_t *tab;
    ms_view_t *view;
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
    ms_power_t *power; /* the power budgets; NULL: none */
    uint64_t *held;    /* ids held for power, in submit order */
    double *held_w;    /* ...the least draw of any of their candidates */
    size_t nheld, capheld;
};

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
    jobmix_init (&s->mix);
    /* the calibration's fronts only where the run's policy calibrates */
    jobmix_keep_fronts (&s->mix,
                        policy_is_metasched (pol->kind) && pol->cal_lean > 0);
    return s;
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
    power_free (s->power);
    free (s->held);
    free (s->held_w);
    jobmix_free (&s->mix);
    free (s);
}

static double
clock_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
pending_add (ms_sched_t *s, sjob_t *j, uint64_t id)
{
    if (s->npending == s->cappending) {
        s->cappending = s->cappending ? s->cappending * 2 : 256;
        s->pending
            = ms_xrealloc (s->pending, s->cappending * sizeof (*s->pending));
    }
    j->pos = s->npending;
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

/* Submit the entries of a decision for job id. */
static int
dispatch (ms_sched_t *s, uint64_t id, const ms_decision_t *d, double now,
          ms_error_t *errp)
{
    sjob_t *j = &s->jobs[id - 1];
    char comment[64];

    snprintf (comment, sizeof (comment), "metasched:%llu",
              (unsigned long long)id);
    /* A new decision's entries follow in the pool; a re-routed job's old
     * ones stay behind, cancelled. */
    if (s->nents + d->n > s->capents) {
        s->capents = (s->capents + d->n) * 2;
        s->ents = ms_xrealloc (s->ents, s->capents * sizeof (*s->ents));
    }
    j = &s->jobs[id - 1];
    j->ent0 = s->nents;
    j->nent = 0;
    for (size_t k = 0; k < d->n; k++) {
        const ms_cand_t *c = &s->cs.c[d->c[k].cand];
        const ms_partconf_t *pc = &s->conf->parts[c->part];
        ms_backend_t *b = s->backends[pc->cluster];
        ms_job_request_t req;
        sim_hint_t hint;
        uint64_t bid;

        if (!b)
            continue;
        memset (&req, 0, sizeof (req));
        memset (&hint, 0, sizeof (hint));
        hint.job = j->jd.record;
        hint.pred_runtime_s = c->t;
        hint.order_time = j->jd.submit;
        hint.gate = id;
        hint.rank = d->c[k].rank;
        req.user = j->jd.user ? j->jd.user : "nobody";
        req.name = j->jd.name;
        req.partition = pc->name;
        req.cpu_freq_khz = c->f_khz;
        /* the time limit scaled to the chosen candidate (engine.h) */
        req.time_limit_min = engine_limit_min (
            &s->pol, s->conf, j->jd.home, j->jd.limit_s, j->jd.base_s, c,
            engine_part_max_s (s->conf, c->part));
        req.nice = d->c[k].nice;
        if (d->c[k].hold_s > 0)
            req.begin_time = (int64_t)ceil (now + d->c[k].hold_s);
        req.comment = comment;
        req.cwd = "/";
        req.nodes = c->nodes > 0 ? c->nodes : j->jd.nodes;
        req.exclusive = true;
        req.backend_hint = &hint;
        if (backend_submit (b, &req, &bid, errp) < 0)
            return -1;
        s->st.submits++;
        sentry_t *e = &s->ents[s->nents++];
        e->part = (uint16_t)c->part;
        e->bid = bid;
        e->f_khz = c->f_khz;
        e->pred_t = c->t;
        e->nodes = req.nodes;
        e->nice = req.nice;
        e->live = true;
        j->nent++;
        if (s->power)
            power_add (s->power, id, bid, pc->cluster,
                       power_cand_watts (s->power, c), c->t_hi, c->w, now);
        view_pending_add (s->view, c->part, bid, e->nodes, c->t, e->nice,
                          req.begin_time > 0 ? (double)req.begin_time : 0);
    }
    return 0;
}

/* A job's candidates, in s->cs (engine_candidates), with each
 * partition's predicted wait where view is not NULL. */
static void
job_candidates (ms_sched_t *s, const ms_jobdesc_t *jd, const ms_view_t *view,
                double now)
{
    ms_ejob_t ej;

    memset (&ej, 0, sizeof (ej));
    ej.app = jd->app;
    ej.home = jd->home;
    ej.nodes = jd->nodes;
    ej.nodes_max = jd->nodes_max;
    ej.gpus = jd->gpus;
    ej.base_s = jd->base_s;
    ej.limit_s = jd->limit_s;
    engine_candidates (&s->pol, s->conf, s->tab, view, &ej, NULL, now,
                       &s->cs);
}

void
sched_prime (ms_sched_t *s, const ms_jobdesc_t *jd, double when)
{
    job_candidates (s, jd, NULL, when);
    jobmix_add (&s->mix, s->conf, &s->pol, &s->cs, jd->nodes, when);
}

void
sched_observe (ms_sched_t *s, double wait_s, double run_s)
{
    jobmix_observe (&s->mix, wait_s, run_s);
}

int
sched_submit (ms_sched_t *s, const ms_jobdesc_t *jd, double now, uint64_t *idp,
              ms_error_t *errp)
{
    ms_decision_t d;
    sjob_t *j;
    uint64_t id;
    double t0 = clock_now ();
    int rc;

    if (s->njobs == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->jobs = ms_xrealloc (s->jobs, s->cap * sizeof (*s->jobs));
    }
    id = ++s->njobs;
    j = &s->jobs[id - 1];
    memset (j, 0, sizeof (*j));
    j->jd = *jd;
    j->run_part = SIZE_MAX;
    job_candidates (s, jd, policy_is_metasched (s->pol.kind) ? s->view : NULL,
                    now);
    jobmix_add (&s->mix, s->conf, &s->pol, &s->cs, jd->nodes, now);
    jobmix_apply (&s->mix, s->conf, &s->pol);
    j->opt_part = policy_optimal_partition (&s->cs, s->conf->nparts);
    if (s->power && s->cs.n) {
        rc = power_submit (s, id, now, idp, errp);
        s->st.decide_s += clock_now () - t0;
        return rc;
    }
    if (s->pol.kind == POL_METASCHED_WINDOW && s->cs.n) {
        /* Placed with the others of its window at the next cycle. */
        if (s->nwindow == s->capwindow) {
            s->capwindow = s->capwindow ? 2 * s->capwindow : 256;
            s->window = ms_xrealloc (s->window,
                                     s->capwindow * sizeof (*s->window));
        }
        s->window[s->nwindow++] = id;
        j->state = SJ_WINDOW;
        s->st.decide_s += clock_now () - t0;
        *idp = id;
        return 0;
    }
    policy_decide (&s->pol, s->conf, &s->cs, s->view, &d);
    s->st.decisions++;
    if (!d.n) {
        j->state = SJ_REJECTED;
        s->st.rejected++;
        s->st.decide_s += clock_now () - t0;
        *idp = 0;
        return 0;
    }
    j->state = SJ_QUEUED;
    pending_add (s, j, id);
    rc = dispatch (s, id, &d, now, errp);
    s->st.decide_s += clock_now () - t0;
    *idp = id;
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
    view_pending_remove (s->view, part, bid, e->nodes, e->pred_t);
    view_run_start (s->view, part, bid, e->nodes, now + e->pred_t, power_w);
    if (s->power)
        power_start (s->power, id, s->conf->parts[part].cluster, bid, now);
    if (j->state == SJ_QUEUED)
        pending_del (s, j);
    j->state = SJ_RUNNING;
    j->run_part = part;
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
    *part = j->run_part;
    *f_khz = j->run_f;
    *opt_part = j->opt_part;
    return 0;
}

/* A first choice held back behind the jobs that prefer its partition more
 * (entry_nice) goes to nice 0 once its job has waited first_age times its
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

        if (!j->nent || !e->live || e->nice <= 0
            || !engine_age_due (&s->pol, now - j->jd.submit, e->pred_t))
            continue;
        ms_job_update_init (&u);
        u.nice = 0;
        if (backend_update (s->backends[s->conf->parts[e->part].cluster],
                            e->bid, &u, errp)
            < 0)
            return -1;
        e->nice = 0;
        view_pending_renice (s->view, e->part, e->bid, 0);
    }
    return 0;
}

/* Re-routing, DESIGN.md 5: a job queued longer than reroute_after_s whose
 * best candidate now is on a partition where none of its entries is, and
 * whose predicted wait there is below reroute_gain times the predicted
 * wait where it is queued, is cancelled and submitted again (keeping its
 * place in age order), at most max_reroutes times. */
int
sched_reroute (ms_sched_t *s, double now, ms_error_t *errp)
{
    if (s->pol.reroute_after_s <= 0)
        return 0;
    for (size_t i = 0; i < s->npending; i++) {
        uint64_t id = s->pending[i];
        sjob_t *j = &s->jobs[id - 1];
        ms_decision_t d;
        double wcur = INFINITY, wnew;
        bool elsewhere = true;

        if (!engine_reroute_due (&s->pol, now - j->jd.submit, j->reroutes))
            continue;
        job_candidates (s, &j->jd, s->view, now);
        /* under power budgets, only where the job fits */
        if (s->power && !power_filter (s->power, s->conf, &s->cs, now))
            continue;
        policy_decide (&s->pol, s->conf, &s->cs, s->view, &d);
        if (!d.n)
            continue;
        for (size_t k = j->ent0; k < j->ent0 + j->nent; k++)
            if (s->ents[k].live) {
                double w = view_predicted_wait (s->view, s->ents[k].part,
                                                s->ents[k].nodes, now);
                if (w < wcur)
                    wcur = w;
                if (s->ents[k].part == d.c[0].part)
                    elsewhere = false;
            }
        wnew = s->cs.c[d.c[0].cand].w;
        if (!engine_reroute_gains (&s->pol, elsewhere, wcur, wnew))
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
        if (dispatch (s, id, &d, now, errp) < 0)
            return -1;
    }
    return 0;
}

size_t
sched_npending (const ms_sched_t *s)
{
    return s->npending + s->nwindow + s->nheld;
}

/* ---- power budgets (power.h) ---- */

void
sched_set_power (ms_sched_t *s, const ms_budgets_t *bs, double power_sd)
{
    power_free (s->power);
    s->power = bs && bs->n ? power_new (s->conf, bs) : NULL;
    if (s->power)
        power_set_spread (s->power, power_sd, s->pol.limit_z);
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

/* Under power budgets a job goes out only to a place where it starts now:
 * nodes free for it (no predicted wait) and its power under every budget
 * until its predicted end (power_fits); while an older job is held, only
 * if it ends (upper bound) by that job's reservation `until` (EASY's rule,
 * on power and nodes). */
static bool
power_place_ok (const ms_sched_t *s, const ms_cand_t *c, double now,
                double until)
{
    double end = now + c->t_hi;

    return c->w <= 0 && end <= until
           && power_fits (s->power, s->conf->parts[c->part].cluster,
                          power_cand_watts (s->power, c), now, end, NULL);
}

/* A held job's reservation: the earliest time one of its places has its
 * nodes (the running jobs' predicted ends) and its power
 * (power_fit_time): metasched's kinds over the candidate of each
 * partition that draws least, the others over their choices (d). */
static double
power_reservation (const ms_sched_t *s, const ms_decision_t *d, double now)
{
    double best = INFINITY;

    for (size_t i = 0; i < (d ? d->n : s->cs.n); i++) {
        const ms_cand_t *c = &s->cs.c[d ? d->c[i].cand : i];
        double w = power_cand_watts (s->power, c), tn, tp;
        bool least = true;
        for (size_t k = 0; !d && least && k < s->cs.n; k++)
            least
                = s->cs.c[k].part != c->part
                  || power_cand_watts (s->power, &s->cs.c[k]) > w
                  || (k >= i && power_cand_watts (s->power, &s->cs.c[k]) == w);
        if (!least)
            continue;
        tn = view_shadow_wait (s->view, c->part, c->nodes, now);
        tp = power_fit_time (s->power, s->conf->parts[c->part].cluster, w,
                             c->t_hi, now)
             - now;
        if ((tn > tp ? tn : tp) < best)
            best = tn > tp ? tn : tp;
    }
    return now + best;
}

/* The decision for a held job whose candidates (with waits) are in s->cs:
 * metasched's kinds choose by their scores among the places that are ok
 * (another cluster with room, a lower frequency), the others take the
 * first of their own choices that is; one entry, at once. 0: d to
 * dispatch; 1: it stays held (*resvp, when not NULL, gets its
 * reservation); -1: it fits nowhere at all. */
static int
power_decide (ms_sched_t *s, double now, double until, double *resvp,
              ms_decision_t *d)
{
    ms_decision_t all;
    size_t k = 0;

    d->n = 0;
    if (!s->cs.n)
        return -1;
    if (!policy_is_metasched (s->pol.kind)) {
        policy_decide (&s->pol, s->conf, &s->cs, s->view, &all);
        if (!all.n)
            return -1;
        for (size_t i = 0; i < all.n && !d->n; i++)
            if (power_place_ok (s, &s->cs.c[all.c[i].cand], now, until)) {
                d->c[0] = all.c[i];
                d->n = 1;
            }
        if (!d->n && resvp)
            *resvp = power_reservation (s, &all, now);
    } else {
        if (resvp)
            *resvp = power_reservation (s, NULL, now);
        for (size_t i = 0; i < s->cs.n; i++)
            if (power_place_ok (s, &s->cs.c[i], now, until))
                s->cs.c[k++] = s->cs.c[i];
        s->cs.n = k;
        if (k)
            policy_decide (&s->pol, s->conf, &s->cs, s->view, d);
    }
    if (!d->n)
        return 1;
    d->n = 1;
    d->c[0].nice = 0;
    d->c[0].rank = 0;
    d->c[0].hold_s = 0;
    return 0;
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
                rc = dispatch (s, id, &d, now, errp);
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
    double t0 = clock_now ();
    int rc = s->power ? power_pass (s, now, errp) : 0;

    s->st.decide_s += clock_now () - t0;
    return rc;
}

/* metasched's cost of each admissible candidate of a job (INFINITY for
 * the others), built so that the cheapest is metasched's own choice: the
 * rank key of its partition at metasched's frequency there (weighted
 * energy and predicted response against the job's best), plus the
 * candidate's frequency score over the best one's on that partition.
 * *wtminp gets the job's best predicted response, *key_sp what a unit of
 * cost is worth in seconds of it (metasched_rank). */
static void
window_costs (const ms_policy_t *pol, const ms_siteconf_t *conf,
              const ms_cands_t *cs, const ms_view_t *view, double *cost,
              double *wtminp, double *key_sp)
{
    bool *ok = ms_xcalloc (cs->n + 1, sizeof (bool));
    double *fs = ms_xcalloc (cs->n + 1, sizeof (double));
    ranked_t *r = ms_xcalloc (conf->nparts + 1, sizeof (*r));
    size_t nr;

    for (size_t i = 0; i < cs->n; i++)
        cost[i] = INFINITY;
    nr = metasched_rank (pol, conf, cs, view, ok, fs, r, conf->nparts, wtminp,
                         key_sp);
    for (size_t k = 0; k < nr; k++)
        for (size_t i = 0; i < cs->n; i++)
            if (ok[i] && cs->c[i].part == r[k].part)
                cost[i] = r[k].key + (fs[i] - fs[r[k].cand]);
    free (r);
    free (fs);
    free (ok);
}

/* The window (window.h): bids are every admissible candidate of every job
 * with metasched's cost; each partition offers the node-seconds it has
 * free within the horizon (the window's mean best predicted response)
 * after its predicted wait; a node-second over that delays the jobs
 * behind by 1/nodes s, priced at the response's weight per the window's
 * mean best response. Each job then gets its chosen candidate and
 * siblings on the other partitions, their nice set by their cost against
 * each other as metasched sets it (entry_nice). */
void
policy_decide_window (const ms_policy_t *pol, const ms_siteconf_t *conf,
                      const ms_cands_t *const *cs, const int *nodes,
                      size_t njobs, const ms_view_t *view, double now,
                      ms_decision_t *dec, ms_window_stats_t *st)
{
    size_t nparts = conf->nparts, nbids = 0, capbids = 0, ncost = 0, nh = 0;
    ms_bid_t *bids = NULL;
    double *cost = NULL, *cap, *pen, *key_s, hsum = 0, h;
    size_t *pick, *cand0, *sib;
    ms_window_opts_t wo;

    cand0 = ms_xcalloc (njobs + 1, sizeof (size_t));
    key_s = ms_xcalloc (njobs + 1, sizeof (double));
    for (size_t k = 0; k < njobs; k++) {
        double wtmin;
        cost = ms_xrealloc (cost, (ncost + cs[k]->n + 1) * sizeof (double));
        window_costs (pol, conf, cs[k], view, cost + ncost, &wtmin,
                      &key_s[k]);
        cand0[k] = ncost;
        if (cs[k]->n && isfinite (wtmin)) {
            hsum += wtmin;
            nh++;
        }
        for (size_t i = 0; i < cs[k]->n; i++) {
            if (!isfinite (cost[ncost + i]))
                continue;
            if (nbids == capbids) {
                capbids = capbids ? 2 * capbids : 1024;
                bids = ms_xrealloc (bids, capbids * sizeof (*bids));
            }
            bids[nbids].job = k;
            bids[nbids].part = cs[k]->c[i].part;
            bids[nbids].cand = i;
            bids[nbids].ns = (cs[k]->c[i].nodes > 0 ? cs[k]->c[i].nodes
                                                    : nodes[k])
                             * cs[k]->c[i].t;
            bids[nbids].cost = cost[ncost + i];
            nbids++;
        }
        ncost += cs[k]->n;
    }
    cap = ms_xcalloc (nparts + 1, sizeof (double));
    pen = ms_xcalloc (nparts + 1, sizeof (double));
    h = nh ? hsum / (double)nh : 0;
    for (size_t p = 0; p < nparts; p++) {
        double pn = conf->parts[p].nodes;
        double w = view ? view_predicted_wait (view, p, 1, now) : 0;
        cap[p] = h > w ? pn * (h - w) : 0;
        pen[p] = h > 0 ? (1 - pol->w_energy) / (pn * h) : 0;
    }
    pick = ms_xcalloc (njobs + 1, sizeof (size_t));
    window_opts_init (&wo);
    wo.time_budget_s = pol->window_budget_s;
    window_solve (bids, nbids, njobs, cap, pen, nparts, &wo, pick, st);

    sib = ms_xcalloc (nparts + 1, sizeof (size_t));
    for (size_t k = 0; k < njobs; k++) {
        const ms_cands_t *c = cs[k];
        const double *ck = cost + cand0[k];
        double lead = INFINITY;
        size_t chosen;

        dec[k].n = 0;
        if (pick[k] == SIZE_MAX)
            continue;
        chosen = bids[pick[k]].cand;
        /* each other partition's cheapest candidate within the slack */
        for (size_t p = 0; p < nparts; p++) {
            sib[p] = SIZE_MAX;
            if (p == c->c[chosen].part)
                continue;
            for (size_t i = 0; i < c->n; i++)
                if (c->c[i].part == p && isfinite (ck[i])
                    && (sib[p] == SIZE_MAX || ck[i] < ck[sib[p]]))
                    sib[p] = i;
            if (sib[p] != SIZE_MAX
                && ck[sib[p]] > (1 + pol->sibling_slack) * ck[chosen])
                sib[p] = SIZE_MAX;
            if (sib[p] != SIZE_MAX && ck[sib[p]] / ck[chosen] - 1 < lead)
                lead = ck[sib[p]] / ck[chosen] - 1;
        }
        /* the chosen one at metasched's nice for its lead over the next
         * partition (none taken over its own best: 0), the siblings by
         * their loss, as metasched does */
        add_choice (&dec[k], c, chosen,
                    entry_nice (pol, isfinite (lead)
                                         ? (lead > 0 ? lead : 0)
                                         : pol->pref_margin));
        for (size_t p = 0; p < nparts; p++)
            if (sib[p] != SIZE_MAX)
                add_sibling (pol, &dec[k], c, sib[p], chosen, ck[sib[p]],
                             ck[chosen], key_s[k]);
    }
    free (bids);
    free (cost);
    free (cap);
    free (pen);
    free (pick);
    free (cand0);
    free (key_s);
    free (sib);
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
    double t0 = clock_now ();
    int rc = 0;

    if (s->pol.kind != POL_METASCHED_WINDOW || !nw)
        return 0;
    cands = ms_xcalloc (nw, sizeof (*cands));
    cp = ms_xcalloc (nw, sizeof (*cp));
    dec = ms_xcalloc (nw, sizeof (*dec));
    nodes = ms_xcalloc (nw, sizeof (*nodes));
    for (size_t k = 0; k < nw; k++) {
        sjob_t *j = &s->jobs[s->window[k] - 1];
        job_candidates (s, &j->jd, s->view, now);
        cands[k].n = cands[k].cap = s->cs.n;
        cands[k].c = ms_xcalloc (s->cs.n + 1, sizeof (ms_cand_t));
        memcpy (cands[k].c, s->cs.c, s->cs.n * sizeof (ms_cand_t));
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
        if (!dec[k].n) {
            j->state = SJ_REJECTED;
            s->st.rejected++;
            continue;
        }
        /* dispatch reads the decision's candidates from s->cs */
        s->cs.n = 0;
        for (size_t i = 0; i < cands[k].n; i++) {
            if (s->cs.n == s->cs.cap) {
                s->cs.cap = s->cs.cap ? s->cs.cap * 2 : 64;
                s->cs.c = ms_xrealloc (s->cs.c, s->cs.cap * sizeof (*s->cs.c));
            }
            s->cs.c[s->cs.n++] = cands[k].c[i];
        }
        j->state = SJ_QUEUED;
        pending_add (s, j, id);
        rc = dispatch (s, id, &dec[k], now, errp);
    }
    s->nwindow = 0;
    for (size_t k = 0; k < nw; k++)
        free (cands[k].c);
    free (cands);
    free (cp);
    free (dec);
    free (nodes);
    s->st.decide_s += clock_now () - t0;
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
sched_candidates (const ms_sched_t *s)
{
    return &s->cs;
}
