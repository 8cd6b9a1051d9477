/* policy.c - the policy kinds, their defaults and the choice among a
 * job's candidates by kind (policy_decide); metasched's ranking is in
 * rank.c, EAMC's in eamc.c, the simulator's scheduler in sched.c. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/core/choice.h"
#include "metasched/core/eamc.h"
#include "metasched/core/engine.h"
#include "metasched/core/policy.h"
#include "metasched/core/score.h"
#include "metasched/core/rank.h"
#include "metasched/core/settings_table.h"
#include "metasched/core/window.h"
#include "metasched/common/util.h"

const char *
policy_kind_name (ms_polkind_t k)
{
    return k < POL_NKINDS ? ms_policy_names[k] : "?";
}

int
policy_kind_parse (const char *s, ms_polkind_t *k)
{
    for (int i = 0; i < POL_NKINDS; i++)
        if (!strcmp (s, ms_policy_names[i])) {
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
        /* the grid's weights, where given (doc/architecture.md "Carbon
         * and price") */
        if (pol->w_carbon > 0 || pol->w_cost > 0) {
            size_t l = strlen (pol->label);
            snprintf (pol->label + l, sizeof (pol->label) - l, "-c%g-p%g",
                      pol->w_carbon, pol->w_cost);
        }
        break;
    default:
        snprintf (pol->label, sizeof (pol->label), "%s%s", n,
                  pol->carbon_shift ? "-shift" : "");
    }
}

void
policy_init (ms_policy_t *pol, ms_polkind_t k)
{
    /* every default is a row of the settings table; wait_weight 0: the
     * siblings take whichever partition starts the job first, so the
     * first choice is the best partition at equal waits (doc/simulator.md,
     * "metasched's policy") */
    settings_table_policy (pol, k);
    policy_relabel (pol);
}

size_t
policy_optimal_partition (const ms_cands_t *cs, size_t nparts)
{
    size_t best[MS_MAX_RANKED];

    return policy_optimal_fopt (cs, nparts, best);
}

/* The optimal partition among the first nparts, each at its f_opt best[p]
 * (equation 6.5 at t_weight 1). */
static size_t
optimal_of (const ms_cands_t *cs, size_t nparts, const size_t *best)
{
    size_t opt = SIZE_MAX;
    double emin = INFINITY, tmin = INFINITY, be = INFINITY;

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

size_t
policy_optimal_fopt (const ms_cands_t *cs, size_t nparts, size_t *best)
{
    if (nparts > MS_MAX_RANKED)
        nparts = MS_MAX_RANKED;
    score_eamc_fopt (cs, nparts, 1.0, best);
    return optimal_of (cs, nparts, best);
}

size_t
policy_optimal_wfopt (const ms_cands_t *cs, size_t nparts, double t_weight,
                      size_t *best, size_t *wbest)
{
    if (nparts > MS_MAX_RANKED)
        nparts = MS_MAX_RANKED;
    score_eamc_fopt2 (cs, nparts, t_weight, best, wbest);
    return optimal_of (cs, nparts, best);
}

/* Per partition, the candidate minimizing key (T or E), optionally only
 * among those within (1 + theta) of the partition's nominal T. One
 * sweep of the candidates serves every partition (nparts at most
 * MS_MAX_RANKED), each partition's met in candidate order as a sweep of
 * its own would: the nominal T is its last candidate's at the nominal
 * frequency, and ties go to the later candidate. */
static void
per_partition_min (const ms_cands_t *cs, const ms_siteconf_t *conf,
                   size_t nparts, bool energy, double theta, size_t *best)
{
    double bk[MS_MAX_RANKED], tnom[MS_MAX_RANKED];

    for (size_t p = 0; p < nparts; p++) {
        bk[p] = tnom[p] = INFINITY;
        best[p] = SIZE_MAX;
    }
    if (theta >= 0)
        for (size_t i = 0; i < cs->n; i++) {
            size_t p = cs->c[i].part;
            if (p < nparts
                && cs->c[i].f_khz
                       == conf->archs[conf->parts[p].arch].nominal_khz)
                tnom[p] = cs->c[i].t;
        }
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        size_t p = c->part;
        double k = energy ? c->e : c->t;
        if (p >= nparts)
            continue;
        /* EAR min_energy_to_solution: the time penalty bound. */
        if (theta >= 0 && isfinite (tnom[p]) && c->t > (1 + theta) * tnom[p])
            continue;
        /* Ties go to the higher frequency (later in the list). */
        if (k <= bk[p]) {
            bk[p] = k;
            best[p] = i;
        }
    }
}

/* The candidate at partition part's nominal frequency, else the highest
 * listed there (the nominal has no prediction); SIZE_MAX: none there. */
static size_t
nominal_at (const ms_siteconf_t *conf, const ms_cands_t *cs, size_t part)
{
    size_t bi = SIZE_MAX;
    uint32_t nom, bf = 0;

    if (part >= conf->nparts)
        return SIZE_MAX;
    nom = conf->archs[conf->parts[part].arch].nominal_khz;
    /* the last such candidate, found from the end */
    for (size_t i = cs->n; i-- > 0;)
        if (cs->c[i].part == part && cs->c[i].f_khz == nom) {
            bi = i;
            break;
        }
    for (size_t i = 0; bi == SIZE_MAX && i < cs->n; i++)
        if (cs->c[i].part == part && cs->c[i].f_khz >= bf) {
            bf = cs->c[i].f_khz;
            bi = i;
        }
    return bi;
}

void
policy_home_choice (const ms_siteconf_t *conf, const ms_cands_t *cs,
                    size_t home, ms_decision_t *d)
{
    size_t h = home, bi;
    bool there = false;

    for (size_t i = 0; i < cs->n && !there; i++)
        there = cs->c[i].part == h;
    if (!there && cs->n) {
        h = cs->c[0].part;
        for (size_t i = 1; i < cs->n; i++)
            if (cs->c[i].part < h)
                h = cs->c[i].part;
    }
    bi = nominal_at (conf, cs, h);
    if (bi != SIZE_MAX)
        choice_add (d, cs, bi, 0);
}

/* policy_decide's body; opt the job's optimal partition, fopt each
 * partition's f_opt at t_weight 1 and wfopt at the policy's t_weight
 * where the caller has them, else NULL. */
static void
decide (const ms_policy_t *pol, const ms_siteconf_t *conf, const ms_cands_t *cs,
        const ms_view_t *view, const size_t *opt, const size_t *fopt,
        const size_t *wfopt, ms_decision_t *d)
{
    size_t nparts = conf->nparts > MS_MAX_RANKED ? MS_MAX_RANKED : conf->nparts;
    size_t best[MS_MAX_RANKED];

    d->n = 0;
    if (!cs->n)
        return;
    switch (pol->kind) {
    case POL_BASE: {
        size_t bi = nominal_at (
            conf, cs, opt ? *opt : policy_optimal_partition (cs, nparts));
        if (bi != SIZE_MAX)
            choice_add (d, cs, bi, 0);
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
                choice_add (d, cs, best[p], 0);
        break;
    case POL_EAMC_REORDER:
    case POL_EAMC_PRIO:
    case POL_EAMC_PRIO_V:
        eamc_decide (pol, cs, nparts, pol->t_weight == 1.0 ? fopt : wfopt, d);
        break;
    case POL_METASCHED:
    case POL_METASCHED_WINDOW:
        rank_decide (pol, conf, cs, view, d);
        break;
    case POL_HOME:
        policy_home_choice (conf, cs, cs->home, d);
        break;
    default:
        break;
    }
    /* a job with a deadline: held for its cleaner run */
    choice_carbon_holds (pol, cs, d);
}

void
policy_decide (const ms_policy_t *pol, const ms_siteconf_t *conf,
               const ms_cands_t *cs, const ms_view_t *view, ms_decision_t *d)
{
    decide (pol, conf, cs, view, NULL, NULL, NULL, d);
}

void
policy_decide_opt (const ms_policy_t *pol, const ms_siteconf_t *conf,
                   const ms_cands_t *cs, const ms_view_t *view, size_t opt_part,
                   ms_decision_t *d)
{
    decide (pol, conf, cs, view, &opt_part, NULL, NULL, d);
}

void
policy_decide_fopt (const ms_policy_t *pol, const ms_siteconf_t *conf,
                    const ms_cands_t *cs, const ms_view_t *view,
                    size_t opt_part, const size_t *fopt, const size_t *wfopt,
                    ms_decision_t *d)
{
    decide (pol, conf, cs, view, &opt_part, fopt, wfopt, d);
}
