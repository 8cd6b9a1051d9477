/* engine.c - the decision rules metaschedd and the simulator share (see
 * engine.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "metasched/core/carbon.h"
#include "metasched/core/engine.h"
#include "metasched/core/policy.h"
#include "metasched/core/rank.h"

double
engine_part_max_s (const ms_siteconf_t *conf, size_t part)
{
    const ms_partconf_t *pc = &conf->parts[part];
    if ((pc->limits.set & MS_LIM_MAX_TIME) && pc->limits.max_time_min > 0)
        return pc->limits.max_time_min * 60.0;
    return INFINITY;
}

/* The limit that covers the upper bound of the job's runtime on c, before
 * the partition's maximum. */
static double
entry_bound (const ms_policy_t *pol, const ms_siteconf_t *conf, size_t home,
             double limit_s, double base_s, const ms_cand_t *c)
{
    const ms_partconf_t *hp = &conf->parts[home], *pc = &conf->parts[c->part];
    double r, sp, h;

    if (!(limit_s > 0) || !isfinite (limit_s))
        return 0;
    if (!pol->scale_limits || !(base_s > 0) || !(c->t > 0))
        return limit_s;
    if (pc->arch == hp->arch && c->f_khz == conf->archs[hp->arch].nominal_khz)
        return limit_s;
    /* The predictor's 90% half-width (log) as an SD, and the job's own
     * spread around its app, together at limit_z SDs. */
    sp = c->t_hi > c->t ? log (c->t_hi / c->t) / 1.6448536269514722 : 0;
    h = pol->limit_z * sqrt (sp * sp + pol->job_sd * pol->job_sd);
    r = c->t / base_s * exp (h);
    return r > 1 ? limit_s * r : limit_s;
}

double
engine_limit (const ms_policy_t *pol, const ms_siteconf_t *conf, size_t home,
              double limit_s, double base_s, const ms_cand_t *c, double max_s)
{
    double l = entry_bound (pol, conf, home, limit_s, base_s, c);
    /* a bound past a year is no prediction (a broken model): the user's
     * own limit */
    if (!isfinite (l) || l > MS_ENGINE_LIMIT_MAX_S)
        l = limit_s;
    /* Slurm refuses a limit over the partition's MaxTime (or holds the job
     * over its QOS's MaxWall): the scaled limit stops there, never below
     * the user's own (placement has checked that one) */
    if (l > max_s)
        l = limit_s > max_s ? limit_s : max_s;
    return l;
}

uint32_t
engine_limit_min (const ms_policy_t *pol, const ms_siteconf_t *conf,
                  size_t home, double limit_s, double base_s,
                  const ms_cand_t *c, double max_s)
{
    double l = engine_limit (pol, conf, home, limit_s, base_s, c, max_s);
    double m;

    if (!(l > 0) || !isfinite (l))
        return 0;
    m = ceil (l / 60.0 - 1e-9);
    return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

/* Whether the limit that covers c's upper bound is within its
 * partition's maximum mx (always, without one). */
static bool
entry_fits (const ms_policy_t *pol, const ms_siteconf_t *conf, size_t home,
            double limit_s, double base_s, const ms_cand_t *c, double mx)
{
    return !isfinite (mx)
           || entry_bound (pol, conf, home, limit_s, base_s, c) <= mx;
}

static double
max_of (const ms_siteconf_t *conf, const double *max_s, size_t part)
{
    return max_s ? max_s[part] : engine_part_max_s (conf, part);
}

void
engine_fit_limits (const ms_policy_t *pol, const ms_siteconf_t *conf,
                   size_t home, double limit_s, double base_s,
                   const double *max_s, ms_cands_t *cs)
{
    size_t k = 0;
    bool any_max = false;

    /* without a partition maximum every candidate fits (the usual case,
     * and the bounds need not be computed): a site whose partitions have
     * none is told from its partitions, not from each candidate */
    for (size_t p = 0; p < conf->nparts && !any_max; p++)
        any_max = isfinite (max_of (conf, max_s, p));
    if (!any_max)
        return;
    any_max = false;
    for (size_t i = 0; i < cs->n && !any_max; i++)
        any_max = isfinite (max_of (conf, max_s, cs->c[i].part));
    if (!any_max)
        return;
    for (size_t i = 0; i < cs->n; i++)
        if (entry_fits (pol, conf, home, limit_s, base_s, &cs->c[i],
                        max_of (conf, max_s, cs->c[i].part)))
            k++;
    if (k == 0) /* none fits: keep them, the limit stops at the maximum */
        return;
    k = 0;
    for (size_t i = 0; i < cs->n; i++)
        if (entry_fits (pol, conf, home, limit_s, base_s, &cs->c[i],
                        max_of (conf, max_s, cs->c[i].part)))
            cs->c[k++] = cs->c[i];
    cs->n = k;
}

/* ---- the candidate list ---- */

double
engine_array_waves (const ms_siteconf_t *conf, const ms_ejob_t *j, size_t part,
                    int *concp)
{
    uint32_t conc, per;

    if (concp)
        *concp = 1;
    if (j->ntasks <= 1)
        return 1;
    per = (uint32_t)(conf->parts[part].nodes / (j->nodes > 0 ? j->nodes : 1));
    conc = j->ntasks;
    if (j->max_running && j->max_running < conc)
        conc = j->max_running;
    if (per < conc)
        conc = per > 0 ? per : 1;
    if (concp)
        *concp = (int)conc;
    return ceil ((double)j->ntasks / conc);
}

/* The policy weighs the whole array: its energy (every task), its width
 * (nodes x the tasks that run at once: the policy reads it as energy over
 * power x time) and its makespan (waves of tasks). */
static void
array_scale (const ms_siteconf_t *conf, const ms_view_t *view,
             const ms_ejob_t *j, double now, ms_cands_t *cs)
{
    if (j->ntasks <= 1)
        return;
    for (size_t i = 0; i < cs->n; i++) {
        ms_cand_t *c = &cs->c[i];
        int conc;
        double waves = engine_array_waves (conf, j, c->part, &conc);
        c->t *= waves;
        c->t_hi *= waves;
        c->e *= j->ntasks;
        c->e_hi *= j->ntasks;
        if (view) {
            ms_partwaits_t pw;
            view_part_waits (view, c->part, j->nodes * conc, now, &pw);
            part_waits_apply (&pw, c);
        }
    }
}

/* The allowed partitions, and on each the frequency the user's --cpu-freq
 * names. */
static void
keep_allowed (const ms_siteconf_t *conf, const ms_ejob_t *j, ms_cands_t *cs)
{
    bool freq = j->cpufreq.max || j->cpufreq.gov;
    size_t n = 0;

    if (!j->allowed && !freq)
        return;
    for (size_t i = 0; i < cs->n; i++) {
        const ms_partconf_t *pc = &conf->parts[cs->c[i].part];
        if (j->allowed && !j->allowed[cs->c[i].part])
            continue;
        if (freq) {
            const ms_arch_t *a = &conf->archs[pc->arch];
            uint32_t lo, hi;
            if (jobspec_cpu_freq_pick (&j->cpufreq, a->freqs_khz, a->nfreqs,
                                       &lo, &hi)
                && (cs->c[i].f_khz < lo || cs->c[i].f_khz > hi))
                continue;
        }
        cs->c[n++] = cs->c[i];
    }
    cs->n = n;
}

void
engine_candidates (const ms_policy_t *pol, const ms_siteconf_t *conf,
                   const ms_predtab_t *tab, const ms_view_t *view,
                   const ms_ejob_t *j, const double *max_s, double now,
                   ms_cands_t *cs)
{
    candidates_build (tab, j->app, j->home, j->nodes, j->base_s, view, now, cs);
    keep_allowed (conf, j, cs);
    candidates_gpus (conf, j->nodes, j->gpus, cs);
    candidates_limits (conf, j->nodes, j->limit_s, cs);
    engine_fit_limits (pol, conf, j->home, j->limit_s, j->base_s, max_s, cs);
    candidates_gpu_profile (tab, j->app, j->gpus, cs);
    /* a moldable job's node count per candidate, from its app's speedup
     * model, under metasched's kinds (the others take its minimum; an
     * array keeps its minimum) */
    if (j->ntasks <= 1 && j->nodes_max > j->nodes
        && policy_is_metasched (pol->kind))
        candidates_mold_sizes (tab, j->app, j->nodes, j->nodes_max,
                               j->nodes_list, pol->w_energy, view, now, cs);
    array_scale (conf, view, j, now, cs);
    /* each candidate's carbon and cost over its predicted run (carbon.h) */
    if (pol->carbon)
        carbon_apply (pol->carbon, conf, now, j->deadline, rank_shift_k (pol),
                      cs);
}

/* ---- sibling sets ---- */

void
engine_dispatch_mode (ms_policy_t *pol, bool siblings, int nsib)
{
    pol->entries = siblings ? (nsib > 0 ? nsib : 0) : 1;
    if (siblings)
        pol->sibling_slack = INFINITY;
    pol->wait_weight = siblings ? 0 : 1;
}

void
engine_entries (const ms_policy_t *pol, bool power, const ms_decision_t *dec,
                ms_decision_t *out)
{
    size_t want = power              ? 1
                  : pol->entries > 0 ? (size_t)pol->entries
                                     : MS_MAX_CHOICES;

    /* only the entries that go out are copied (out's others are not
     * read) */
    if (out != dec) {
        out->n = dec->n < want ? dec->n : want;
        memcpy (out->c, dec->c, out->n * sizeof (*out->c));
    } else if (out->n > want)
        out->n = want;
    if (want == 1 && out->n == 1) {
        /* alone: no sibling to wait behind, but a deadline job still
         * waits for its cleaner run (policy.c, carbon) */
        out->c[0].nice = 0;
        out->c[0].rank = 0;
        out->c[0].hold_s = out->c[0].shift_s;
    }
}

/* ---- holds ---- */

size_t
engine_hold_down (const ms_siteconf_t *conf, const unsigned char *up,
                  ms_cands_t *cs, unsigned char *down, ms_hold_t *h)
{
    size_t k = 0;

    memset (h, 0, sizeof (*h));
    h->until = INFINITY;
    for (size_t i = 0; i < cs->n; i++) {
        size_t c = conf->parts[cs->c[i].part].cluster;
        if (up[c])
            cs->c[k++] = cs->c[i];
        else if (down)
            down[c] = 1;
    }
    cs->n = k;
    if (!k)
        h->why = MS_HOLD_DOWN;
    return k;
}

size_t
engine_hold_power (const ms_power_t *pw, const ms_siteconf_t *conf,
                   ms_cands_t *cs, double now, ms_hold_t *h)
{
    double least = INFINITY;
    size_t kept, scope = MS_POWER_SITE;
    ms_powerwhy_t why = { MS_POWER_SITE, 0, 0, 0 };

    memset (h, 0, sizeof (*h));
    h->until = INFINITY;
    if (!pw || !cs->n)
        return cs->n;
    /* when it could start: its least-drawing candidate's fit time */
    for (size_t i = 0; i < cs->n; i++) {
        double w = power_cand_watts (pw, &cs->c[i]);
        if (w < least) {
            least = w;
            h->until = power_fit_time (pw, conf->parts[cs->c[i].part].cluster,
                                       w, cs->c[i].t_hi, now);
            power_fits (pw, conf->parts[cs->c[i].part].cluster, w, now,
                        now + cs->c[i].t_hi, &why);
        }
    }
    kept = power_filter (pw, conf, cs, now);
    if (kept) {
        h->until = INFINITY;
        return kept;
    }
    if (power_clear_time (pw, now, &scope) > now)
        why.scope = scope;
    h->why = MS_HOLD_POWER;
    h->scope = why.scope;
    h->budget_w = why.budget;
    h->draw_w = why.draw;
    return 0;
}

/* ---- ageing and re-routing ---- */

bool
engine_age_due (const ms_policy_t *pol, double waited_s, double pred_s)
{
    return pol->first_age > 0 && pred_s > 0
           && waited_s >= pol->first_age * pred_s;
}

bool
engine_reroute_due (const ms_policy_t *pol, double waited_s, int reroutes)
{
    return pol->reroute_after_s > 0 && waited_s >= pol->reroute_after_s
           && reroutes < pol->max_reroutes;
}

bool
engine_reroute_gains (const ms_policy_t *pol, bool elsewhere, double wait_cur_s,
                      double wait_new_s)
{
    return elsewhere && wait_new_s < pol->reroute_gain * wait_cur_s;
}

bool
engine_reroute (const ms_policy_t *pol, const ms_power_t *pw,
                const ms_siteconf_t *conf, const ms_view_t *view,
                ms_cands_t *cs, const size_t *cur, size_t ncur,
                double wait_cur_s, double now, ms_decision_t *d)
{
    bool elsewhere = true;

    d->n = 0;
    /* under power budgets, only where its draw fits every budget from its
     * predicted start to its end: a place over a budget would hold the
     * job once it is cancelled where it waits */
    if (pw && !power_filter (pw, conf, cs, now))
        return false;
    if (!cs->n)
        return false;
    policy_decide (pol, conf, cs, view, d);
    if (!d->n)
        return false;
    for (size_t i = 0; i < ncur; i++)
        if (cur[i] == cs->c[d->c[0].cand].part)
            elsewhere = false;
    return engine_reroute_gains (pol, elsewhere, wait_cur_s,
                                 cs->c[d->c[0].cand].w);
}
