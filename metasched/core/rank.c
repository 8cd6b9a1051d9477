/* rank.c - metasched's ranking of a job's partitions, its siblings and
 * the drain price (see rank.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/choice.h"
#include "metasched/core/rank.h"
#include "metasched/core/score.h"
#include "metasched/common/util.h"

/* What rank_partitions reads of every candidate, gathered in
 * metasched_filter's sweep (rank_sweep_cand, rank_sweep_ok; below). */
struct rank_sweep;
static inline void rank_sweep_cand (const ms_policy_t *pol,
                                    struct rank_sweep *sw, const ms_cand_t *c);
static inline void rank_sweep_ok (struct rank_sweep *sw, const ms_cands_t *cs,
                                  const ms_cand_t *c);

/* The first of cs's candidates with the least runtime, its runtime
 * into *tbestp (SIZE_MAX and INFINITY: none under infinity). The even
 * and the odd candidates are looked at apart, so that each comparison
 * waits on the one two before, and the lesser taken (of equal ones the
 * first): the candidate a single sweep finds. */
static size_t
rank_fastest (const ms_cands_t *cs, double *tbestp)
{
    double t0 = INFINITY, t1 = INFINITY;
    size_t f0 = SIZE_MAX, f1 = SIZE_MAX, i = 0;

    for (; i + 1 < cs->n; i += 2) {
        if (cs->c[i].t < t0) {
            t0 = cs->c[i].t;
            f0 = i;
        }
        if (cs->c[i + 1].t < t1) {
            t1 = cs->c[i + 1].t;
            f1 = i + 1;
        }
    }
    if (i < cs->n && cs->c[i].t < t0) {
        t0 = cs->c[i].t;
        f0 = i;
    }
    if (t1 < t0 || (!(t0 < t1) && f1 < f0)) {
        *tbestp = t1;
        return f1;
    }
    *tbestp = t0;
    return f0;
}

/* metasched's admissible candidates (ok) and the job's energy weight:
 * the maximum slowdown, the power caps, the job's width. Returns how many
 * are admissible (at least the fastest when there is any candidate);
 * why, when not NULL, gets each candidate's reason (ms_cand_why_t); sw,
 * when not NULL, gets every candidate and the admissible ones, in their
 * order, in the same sweep. */
static size_t
metasched_filter (const ms_policy_t *pol, const ms_siteconf_t *conf,
                  const ms_cands_t *cs, const ms_view_t *view, bool *ok,
                  double *wep, const char **why, struct rank_sweep *sw)
{
    double tbest = INFINITY, lim;
    size_t nok = 0, fastest = SIZE_MAX;
    double rcap = INFINITY, we = pol->w_energy;
    bool caps = pol->power_caps && view;
    /* The job's width against the site's mean: mean job energy and mean
     * response weigh every job's response alike but its energy by its
     * nodes, so a wide job's energy weighs more (the odds of w_E times
     * (nodes / ref_nodes)^width_exp) and a narrow one's response. */
    if (pol->ref_nodes > 0 && pol->width_exp != 0 && cs->n && we > 0
        && we < 1) {
        double n = cs->c[0].e / (cs->c[0].p * cs->c[0].t);
        /* x^1 is x (pow is exact where the power is a double) */
        double odds = we / (1 - we)
                      * (pol->width_exp == 1
                             ? n / pol->ref_nodes
                             : pow (n / pol->ref_nodes, pol->width_exp));
        if (pol->odds_scale > 0)
            odds *= pol->odds_scale;
        we = odds / (1 + odds);
    }
    fastest = rank_fastest (cs, &tbest);
    /* the slowdown cap's runtime (read once: the sweep's stores could
     * be the policy's, for all the compiler knows) */
    lim = pol->max_slowdown * tbest;
    /* The best predicted response (wait plus runtime) among candidates
     * within the slowdown cap. */
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].t_hi <= lim && cs->c[i].w + cs->c[i].t_hi < rcap)
            rcap = cs->c[i].w + cs->c[i].t_hi;
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        if (sw)
            rank_sweep_cand (pol, sw, c);
        /* The maximum slowdown against the best candidate, on the upper
         * bound of T (doc/architecture.md "Uncertainty"); a slower candidate is
         * still allowed when it would end before any candidate within the cap
         * could (the job is not held for a busy fast partition while another is
         * free). */
        if (c->t_hi > lim && c->w + c->t_hi >= rcap) {
            if (why)
                why[i] = "over the maximum slowdown against the fastest";
            continue;
        }
        /* The partition's power cap: what runs there now plus this job
         * must stay under it. */
        if (caps && conf->parts[c->part].power_cap_w > 0) {
            const ms_partconf_t *pc = &conf->parts[c->part];
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
        if (sw)
            rank_sweep_ok (sw, cs, c);
    }
    if (!nok && fastest != SIZE_MAX) {
        ok[fastest] = true;
        if (why)
            why[fastest] = NULL;
        if (sw)
            rank_sweep_ok (sw, cs, &cs->c[fastest]);
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
int
rank_entry_nice (const ms_policy_t *pol, double adv)
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
    double g
        = pol->sibling_grade > 0 ? (key / key0 - 1) / pol->sibling_grade : 1;
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
 * held on a busy partition (rank_entry_nice, hold_sibling). The greedy
 * decision and the window's both send their siblings this way. */
void
rank_add_sibling (const ms_policy_t *pol, ms_decision_t *d,
                  const ms_cands_t *cs, size_t ci, size_t ci0, double key,
                  double key0, double key_s)
{
    bool staked = sibling_staked (pol, &cs->c[ci0], key, key0, key_s);
    ms_choice_t *ch;

    if (!staked && sibling_ahead (pol, &cs->c[ci], &cs->c[ci0])) {
        choice_add (d, cs, ci, 0);
        return;
    }
    ch = choice_add (d, cs, ci,
                     rank_entry_nice (pol, -sibling_loss (pol, key, key0)));
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
static inline double
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

/* The grid's terms of the score (doc/architecture.md "Carbon and
 * price"): the least predicted carbon and cost of the admissible
 * candidates, where the weights ask for them and every candidate has
 * them (carbon_apply); *use false otherwise: energy alone, as without a
 * signal. wsum: the weights of the terms in use. */
typedef struct {
    bool use;
    double cmin, pmin, wsum;
} grid_min_t;

static void
grid_mins (const ms_policy_t *pol, const ms_cands_t *cs, const bool *ok,
           grid_min_t *gm)
{
    bool wc = pol->w_carbon > 0 && cs->carbon;
    bool wp = pol->w_cost > 0 && cs->cost;

    gm->use = false;
    gm->cmin = gm->pmin = INFINITY;
    gm->wsum = 0;
    if (!wc && !wp)
        return;
    for (size_t i = 0; i < cs->n; i++)
        if (ok[i]) {
            if (cs->c[i].carbon_g < gm->cmin)
                gm->cmin = cs->c[i].carbon_g;
            if (cs->c[i].cost < gm->pmin)
                gm->pmin = cs->c[i].cost;
        }
    if (!wc || !(gm->cmin > 0) || !isfinite (gm->cmin))
        gm->cmin = NAN;
    if (!wp || !(gm->pmin > 0) || !isfinite (gm->pmin))
        gm->pmin = NAN;
    gm->wsum = (isnan (gm->cmin) ? 0 : pol->w_carbon)
               + (isnan (gm->pmin) ? 0 : pol->w_cost);
    gm->use = !isnan (gm->cmin) || !isnan (gm->pmin);
}

/* w_carbon C / C_min + w_cost $ / $_min of candidate c. */
static double
grid_term (const ms_policy_t *pol, const grid_min_t *gm, const ms_cand_t *c)
{
    double v = 0;

    if (!isnan (gm->cmin))
        v += pol->w_carbon * c->carbon_g / gm->cmin;
    if (!isnan (gm->pmin))
        v += pol->w_cost * c->cost / gm->pmin;
    return v;
}

/* The joint score of candidate c: its resources (energy against eref,
 * carbon and cost against the job's least) against its response wt
 * (against wtref), we the resources' weight. The carbon and cost terms
 * share the resources' weight with energy, in the proportion of their
 * weights (1 : w_carbon : w_cost), rather than add to the score: the
 * response keeps its weight 1 - we whatever the grid's weights, and the
 * grid's terms trade carbon for energy, never for the response. Added
 * on top, w_carbon 1 halved the response's share of the score at we 0.5
 * (4 halved it again) and sent jobs to the cleanest zone's queue at any
 * wait (doc/evaluation.md "Carbon"). Without them (gm->use false) the
 * score is score_metasched's. */
static inline double
joint_score (const ms_policy_t *pol, const grid_min_t *gm, const ms_cand_t *c,
             double eref, double wt, double wtref, double we)
{
    if (!gm->use)
        return score_metasched (c->e, eref, wt, wtref, we);
    return we * (c->e / eref + grid_term (pol, gm, c)) / (1 + gm->wsum)
           + (1 - we) * wt / wtref;
}

/* The delay a deadline job's hold adds to candidate c's response: its
 * shift (carbon_apply), where the policy holds for it (policy.c). */
static double
shift_delay (const ms_policy_t *pol, const ms_cands_t *cs, const ms_cand_t *c)
{
    return cs->carbon && pol->w_carbon > 0 && c->shift_s > 0 ? c->shift_s : 0;
}

double
rank_shift_k (const ms_policy_t *pol)
{
    double we = pol->w_energy, wc = pol->w_carbon;
    double ws = wc + (pol->w_cost > 0 ? pol->w_cost : 0);

    if (pol->carbon_shift && !policy_is_metasched (pol->kind))
        return 0;
    if (!policy_is_metasched (pol->kind) || !(wc > 0) || !(we > 0))
        return INFINITY;
    /* joint_score's carbon term we wc / (1 + ws) g / g0 against its
     * response term (1 - we) s / R, over the first's factor, where R,
     * the response a delay s is a share of, is the time the user allows
     * the job (carbon_apply): its deadline says how long a wait it takes
     * in its stride */
    return (1 - we) * (1 + ws) / (we * wc);
}

/* Where the drain delay counts (drain_open) for every partition of a
 * job at once: the candidates on a partition with restricted jobs are
 * noted (drain_opens_add, in metasched_filter's sweep), and the drain
 * counts on p when there are none, or when all of them are on p
 * itself. */
typedef struct {
    bool weight;  /* a drain weight at all */
    bool any;     /* a candidate on a partition with restricted jobs */
    size_t rpart; /* the partition of the first of them */
    bool multi;   /* they are on more than one partition */
    size_t last;  /* the partition of the candidate before */
} drain_opens_t;

static void
drain_opens_init (const ms_policy_t *pol, drain_opens_t *d)
{
    d->weight = pol->drain_weight > 0;
    d->any = false;
    d->rpart = 0;
    d->multi = false;
    d->last = SIZE_MAX;
}

/* Note candidate c (every candidate, admissible or not) in d: one of a
 * partition's candidates (they come together) says all it can. */
static inline void
drain_opens_add (const ms_policy_t *pol, drain_opens_t *d, const ms_cand_t *c)
{
    size_t q = c->part;

    if (q == d->last)
        return;
    d->last = q;
    if (d->weight && q < MS_MAX_RANKED && pol->restricted_rate[q] > 0) {
        if (!d->any)
            d->rpart = q;
        else if (q != d->rpart)
            d->multi = true;
        d->any = true;
    }
}

/* drain_open (pol, cs, p), from drain_opens' notes. */
static bool
drain_open_at (const drain_opens_t *d, size_t p)
{
    return d->weight && (!d->any || (!d->multi && d->rpart == p));
}

/* rank_partitions' figures of the sweep: the least energy, response and
 * wait (shared_wait's) of the admissible candidates; where the drain
 * counts; of each of the first np partitions (at most MS_MAX_RANKED),
 * the least energy and runtime of its admissible candidates and the
 * predicted wait of its last, met in their order (rank_block's first
 * block); and the admissible candidates' indices in their order (nok of
 * them; over: more than RANK_OKL, not listed), so that rank_block reads
 * only those (on KTH-SP2 about one candidate in three). */
#define RANK_OKL 256

struct rank_sweep {
    double emin, wtmin, wmin;
    drain_opens_t dop;
    size_t np;
    double ep[MS_MAX_RANKED], tp[MS_MAX_RANKED], wp[MS_MAX_RANKED];
    size_t nok;
    bool over;
    size_t okl[RANK_OKL];
    double ww;  /* wait_weight's */
    bool shift; /* shift_delay's: a deadline's hold counts */
};

static inline void
rank_sweep_cand (const ms_policy_t *pol, struct rank_sweep *sw,
                 const ms_cand_t *c)
{
    drain_opens_add (pol, &sw->dop, c);
}

static inline void
rank_sweep_ok (struct rank_sweep *sw, const ms_cands_t *cs, const ms_cand_t *c)
{
    /* wait_weight (pol) * c->w + c->t + shift_delay (pol, cs, c) */
    double wt
        = sw->ww * c->w + c->t + (sw->shift && c->shift_s > 0 ? c->shift_s : 0);

    /* the least so far, stored either way (no branch to mispredict:
     * which candidate is leaner follows no pattern) */
    sw->emin = c->e < sw->emin ? c->e : sw->emin;
    sw->wtmin = wt < sw->wtmin ? wt : sw->wtmin;
    sw->wmin = c->w < sw->wmin ? c->w : sw->wmin;
    if (sw->nok < RANK_OKL)
        sw->okl[sw->nok++] = (size_t)(c - cs->c);
    else
        sw->over = true;
    if (c->part < sw->np) {
        double *ep = &sw->ep[c->part], *tp = &sw->tp[c->part];
        *ep = c->e < *ep ? c->e : *ep;
        *tp = c->t < *tp ? c->t : *tp;
        sw->wp[c->part] = c->w;
    }
}

/* A block of partitions [base, base + MS_MAX_RANKED) of rank_partitions,
 * each partition's figures gathered in one sweep of the candidates:
 * the least energy and runtime of its admissible ones, the predicted wait
 * of its last, then its frequency's best score and candidate. The
 * candidates of a partition are met in their order, so each figure is
 * the one a sweep of that partition alone finds. */
typedef struct {
    double ep, tp, wp, g, bf;
    size_t bi;
    bool dr;
} rank_part_t;

static void
rank_block (const ms_policy_t *pol, const ms_siteconf_t *conf,
            const ms_cands_t *cs, const bool *ok, double *fs,
            const grid_min_t *gm, const struct rank_sweep *sw, double shared,
            double we, size_t base, size_t nb, rank_part_t *pp)
{
    const drain_opens_t *dop = &sw->dop;
    /* the admissible candidates, from the sweep's list where it has
     * them all (candidate k is list[k], else k itself) */
    const size_t *list = sw->over ? NULL : sw->okl;
    size_t nl = list ? sw->nok : cs->n;

    for (size_t q = 0; q < nb; q++) {
        pp[q].ep = pp[q].tp = pp[q].bf = INFINITY;
        pp[q].wp = 0;
        pp[q].bi = SIZE_MAX;
    }
    /* the first block's figures come from metasched_filter's sweep */
    if (base == 0 && nb <= sw->np)
        for (size_t q = 0; q < nb; q++) {
            pp[q].ep = sw->ep[q];
            pp[q].tp = sw->tp[q];
            pp[q].wp = sw->wp[q];
        }
    else
        for (size_t k = 0; k < nl; k++) {
            size_t i = list ? list[k] : k;
            size_t q = cs->c[i].part - base;
            if (!ok[i] || cs->c[i].part < base || q >= nb)
                continue;
            if (cs->c[i].e < pp[q].ep)
                pp[q].ep = cs->c[i].e;
            if (cs->c[i].t < pp[q].tp)
                pp[q].tp = cs->c[i].t;
            pp[q].wp = cs->c[i].w;
        }
    /* The frequency on p: energy against runtime, where the runtime's
     * weight grows with the partition's congestion (predicted wait over
     * the job's runtime): a slower clock on a busy partition delays
     * every job queued behind it, on an idle one only itself. */
    for (size_t q = 0; q < nb; q++)
        if (isfinite (pp[q].ep)) {
            pp[q].g = 1 + pol->congestion * pp[q].wp / pp[q].tp;
            pp[q].dr = drain_open_at (dop, base + q);
        }
    for (size_t k = 0; k < nl; k++) {
        size_t i = list ? list[k] : k;
        size_t q = cs->c[i].part - base;
        double f;
        if (!ok[i] || cs->c[i].part < base || q >= nb)
            continue;
        f = joint_score (
            pol, gm, &cs->c[i], pp[q].ep,
            shared + pp[q].g * cs->c[i].t + shift_delay (pol, cs, &cs->c[i])
                + (pp[q].dr ? drain_delay (pol, conf, &cs->c[i]) : 0),
            shared + pp[q].tp, we);
        if (fs)
            fs[i] = f;
        if (f <= pp[q].bf) {
            pp[q].bf = f;
            pp[q].bi = i;
        }
    }
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
 * come from here. The partitions are taken MS_MAX_RANKED at a time, each
 * block in two sweeps of the candidates (rank_block), not two a
 * partition. */
size_t
rank_partitions (const ms_policy_t *pol, const ms_siteconf_t *conf,
                 const ms_cands_t *cs, const ms_view_t *view, bool *ok,
                 double *fs, ms_ranked_t *r, size_t nparts, double *wtminp,
                 double *key_sp)
{
    double emin, wtmin, wmin, we, shared;
    size_t nr = 0;
    grid_min_t gm;
    struct rank_sweep sw;
    rank_part_t pp[MS_MAX_RANKED];

    /* the admissible candidates, and in the same sweep their least
     * energy, response and wait (shared_wait's); where the drain counts;
     * each partition's figures for rank_block */
    sw.emin = sw.wtmin = sw.wmin = INFINITY;
    drain_opens_init (pol, &sw.dop);
    sw.np = conf->nparts < MS_MAX_RANKED ? conf->nparts : MS_MAX_RANKED;
    sw.nok = 0;
    sw.over = false;
    sw.ww = wait_weight (pol);
    sw.shift = cs->carbon && pol->w_carbon > 0;
    for (size_t q = 0; q < sw.np; q++) {
        sw.ep[q] = sw.tp[q] = INFINITY;
        sw.wp[q] = 0;
    }
    metasched_filter (pol, conf, cs, view, ok, &we, NULL, &sw);
    emin = sw.emin;
    wtmin = sw.wtmin;
    wmin = sw.wmin;
    grid_mins (pol, cs, ok, &gm);
    shared
        = pol->wait_share > 0 && isfinite (wmin) ? pol->wait_share * wmin : 0;
    for (size_t base = 0; base < nparts; base += MS_MAX_RANKED) {
        size_t nb
            = nparts - base < MS_MAX_RANKED ? nparts - base : MS_MAX_RANKED;
        rank_block (pol, conf, cs, ok, fs, &gm, &sw, shared, we, base, nb, pp);
        for (size_t q = 0; q < nb; q++) {
            size_t bi = pp[q].bi;
            if (!isfinite (pp[q].ep))
                continue;
            r[nr].part = base + q;
            r[nr].cand = bi;
            r[nr].key = joint_score (
                pol, &gm, &cs->c[bi], emin,
                shared + wait_weight (pol) * cs->c[bi].w + cs->c[bi].t
                    + shift_delay (pol, cs, &cs->c[bi])
                    + (pp[q].dr ? drain_delay (pol, conf, &cs->c[bi]) : 0),
                shared + wtmin, we);
            nr++;
        }
    }
    *wtminp = wtmin;
    /* a unit of the key is worth the best response (with the shared
     * wait) over the response's weight, in seconds of response */
    *key_sp = we < 1 ? (shared + wtmin) / (1 - we) : INFINITY;
    return nr;
}

void
rank_decide (const ms_policy_t *pol, const ms_siteconf_t *conf,
             const ms_cands_t *cs, const ms_view_t *view, ms_decision_t *d)
{
    /* a job's few dozen candidates' marks on the stack: no allocation
     * per decision */
    bool okbuf[256], *ok = okbuf;
    ms_ranked_t r[MS_MAX_RANKED]; /* rank_partitions fills the first nr */
    double wtmin, key_s;
    size_t nr;

    if (cs->n + 1 > sizeof (okbuf) / sizeof (okbuf[0]))
        ok = ms_xcalloc (cs->n + 1, sizeof (bool));
    else
        memset (ok, 0, (cs->n + 1) * sizeof (bool));
    nr = rank_partitions (pol, conf, cs, view, ok, NULL, r,
                          conf->nparts < MS_MAX_RANKED ? conf->nparts
                                                       : MS_MAX_RANKED,
                          &wtmin, &key_s);
    qsort (r, nr, sizeof (*r), choice_ranked_cmp);
    for (size_t i = 0; i < nr; i++) {
        if (i > 0 && r[i].key > (1 + pol->sibling_slack) * r[0].key)
            break;
        /* On each partition the jobs that gain most by running there go
         * first: the first choice by its lead over the next partition (a
         * job with one entry has no sibling to take it elsewhere: nice 0),
         * siblings by their loss against the best (rank_add_sibling). */
        if (i == 0)
            choice_add (
                d, cs, r[0].cand,
                rank_entry_nice (
                    pol,
                    nr > 1 && r[1].key <= (1 + pol->sibling_slack) * r[0].key
                        ? r[1].key / r[0].key - 1
                        : pol->pref_margin));
        else
            rank_add_sibling (pol, d, cs, r[i].cand, r[0].cand, r[i].key,
                              r[0].key, key_s);
    }
    if (ok != okbuf)
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
    ms_ranked_t r[MS_MAX_RANKED] = { { 0, 0, 0 } };
    size_t nr;
    grid_min_t gm;

    memset (ex, 0, sizeof (*ex));
    if (!policy_is_metasched (pol->kind) || !cs->n)
        return false;
    ok = ms_xcalloc (cs->n + 1, sizeof (bool));
    fs = ms_xcalloc (cs->n + 1, sizeof (double));
    why = ms_xcalloc (cs->n + 1, sizeof (*why));
    metasched_filter (pol, conf, cs, view, ok, &ex->w_energy, why, NULL);
    nr = rank_partitions (pol, conf, cs, view, ok, fs, r, nparts, &wtmin,
                          &key_s);
    ex->shared_wait_s = shared_wait (pol, cs, ok);
    ex->wait_weight = wait_weight (pol);
    ex->best_response_s = ex->shared_wait_s + wtmin;
    ex->odds_scale = pol->odds_scale;
    grid_mins (pol, cs, ok, &gm);
    for (size_t i = 0; i < cs->n; i++)
        if (ok[i] && cs->c[i].e < emin)
            emin = cs->c[i].e;
    /* each admissible candidate's key as rank_partitions makes its
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
        w->key = joint_score (pol, &gm, c, emin,
                              ex->shared_wait_s + ex->wait_weight * c->w + c->t
                                  + shift_delay (pol, cs, c) + w->drain_s,
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
