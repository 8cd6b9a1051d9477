/* engine.c - the decision rules metaschedd and the simulator share (see
 * engine.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "metasched/core/engine.h"

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
     * and the bounds need not be computed) */
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
