/* powerplace.c - where a job held under power budgets goes out
 * (powerplace.h).
 */
#include "config.h"

#include <math.h>

#include "metasched/core/policy.h"
#include "metasched/core/powerplace.h"

/* Under power budgets a job goes out only to a place where it starts now:
 * nodes free for it (no predicted wait) and its power under every budget
 * until its predicted end (power_fits); while an older job is held, only
 * if it ends (upper bound) by that job's reservation `until` (EASY's rule,
 * on power and nodes). */
static bool
power_place_ok (const ms_power_t *pw, const ms_siteconf_t *conf,
                const ms_cand_t *c, double now, double until)
{
    double end = now + c->t_hi;

    return c->w <= 0 && end <= until
           && power_fits (pw, conf->parts[c->part].cluster,
                          power_cand_watts (pw, c), now, end, NULL);
}

/* A held job's reservation: the earliest time one of its places has its
 * nodes (the running jobs' predicted ends) and its power
 * (power_fit_time): metasched's kinds over the candidate of each
 * partition that draws least, the others over their choices (d). */
static double
power_reservation (const ms_power_t *pw, const ms_siteconf_t *conf,
                   const ms_view_t *view, const ms_cands_t *cs,
                   const ms_decision_t *d, double now)
{
    double best = INFINITY;

    for (size_t i = 0; i < (d ? d->n : cs->n); i++) {
        const ms_cand_t *c = &cs->c[d ? d->c[i].cand : i];
        double w = power_cand_watts (pw, c), tn, tp;
        bool least = true;
        for (size_t k = 0; !d && least && k < cs->n; k++)
            least = cs->c[k].part != c->part
                    || power_cand_watts (pw, &cs->c[k]) > w
                    || (k >= i && power_cand_watts (pw, &cs->c[k]) == w);
        if (!least)
            continue;
        tn = view_shadow_wait (view, c->part, c->nodes, now);
        tp = power_fit_time (pw, conf->parts[c->part].cluster, w, c->t_hi, now)
             - now;
        if ((tn > tp ? tn : tp) < best)
            best = tn > tp ? tn : tp;
    }
    return now + best;
}

int
engine_power_place (const ms_policy_t *pol, const ms_power_t *pw,
                    const ms_siteconf_t *conf, const ms_view_t *view,
                    ms_cands_t *cs, double now, double until, double *resvp,
                    ms_decision_t *d)
{
    ms_decision_t all;
    size_t k = 0;

    d->n = 0;
    if (!cs->n)
        return -1;
    if (!policy_is_metasched (pol->kind)) {
        policy_decide (pol, conf, cs, view, &all);
        if (!all.n)
            return -1;
        for (size_t i = 0; i < all.n && !d->n; i++)
            if (power_place_ok (pw, conf, &cs->c[all.c[i].cand], now, until)) {
                d->c[0] = all.c[i];
                d->n = 1;
            }
        if (!d->n && resvp)
            *resvp = power_reservation (pw, conf, view, cs, &all, now);
    } else {
        if (resvp)
            *resvp = power_reservation (pw, conf, view, cs, NULL, now);
        for (size_t i = 0; i < cs->n; i++)
            if (power_place_ok (pw, conf, &cs->c[i], now, until))
                cs->c[k++] = cs->c[i];
        cs->n = k;
        if (k)
            policy_decide (pol, conf, cs, view, d);
    }
    if (!d->n)
        return 1;
    /* one entry, at once: nice 0, unheld */
    d->n = 1;
    d->c[0].nice = 0;
    d->c[0].rank = 0;
    d->c[0].hold_s = 0;
    d->c[0].shift_s = 0; /* under budgets a job goes where it starts now */
    return 0;
}
