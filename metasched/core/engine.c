/* engine.c - the decision rules metaschedd and the simulator share (see
 * engine.h). */
#include "config.h"

#include <math.h>

#include "metasched/core/engine.h"

/* The partition's maximum time (s) as clusters.conf declares it;
 * INFINITY without one. */
static double
part_max_s (const ms_partconf_t *pc)
{
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
              double limit_s, double base_s, const ms_cand_t *c)
{
    double l = entry_bound (pol, conf, home, limit_s, base_s, c);
    double mx = part_max_s (&conf->parts[c->part]);
    /* Slurm refuses a limit over the partition's MaxTime: the scaled limit
     * stops there (never below the user's own, which candidates_limits
     * has checked). */
    if (l > mx)
        l = limit_s > mx ? limit_s : mx;
    return l;
}

/* Whether the limit that covers c's upper bound is within its
 * partition's maximum (always, without one). */
static bool
entry_fits (const ms_policy_t *pol, const ms_siteconf_t *conf, size_t home,
            double limit_s, double base_s, const ms_cand_t *c)
{
    double mx = part_max_s (&conf->parts[c->part]);
    return !isfinite (mx)
           || entry_bound (pol, conf, home, limit_s, base_s, c) <= mx;
}

void
engine_fit_limits (const ms_policy_t *pol, const ms_siteconf_t *conf,
                   size_t home, double limit_s, double base_s, ms_cands_t *cs)
{
    size_t k = 0;
    bool any_max = false;

    /* without a partition maximum every candidate fits (the usual case,
     * and the bounds need not be computed) */
    for (size_t i = 0; i < cs->n && !any_max; i++)
        any_max = isfinite (part_max_s (&conf->parts[cs->c[i].part]));
    if (!any_max)
        return;
    for (size_t i = 0; i < cs->n; i++)
        if (entry_fits (pol, conf, home, limit_s, base_s, &cs->c[i]))
            k++;
    if (k == 0) /* none fits: keep them, the limit stops at the maximum */
        return;
    k = 0;
    for (size_t i = 0; i < cs->n; i++)
        if (entry_fits (pol, conf, home, limit_s, base_s, &cs->c[i]))
            cs->c[k++] = cs->c[i];
    cs->n = k;
}
