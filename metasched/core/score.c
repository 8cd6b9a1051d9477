/* score.c - candidate scores (see score.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "metasched/core/score.h"

/* EAMC equation 6.4 (seeds/000 6.4.1): the squared distance from the
 * origin in (energy, time) normalised to the minimum of each. */
double
score_eamc_dist (double e, double emin, double t, double tmin, double t_weight)
{
    double x = e / emin, y = t_weight * t / tmin;
    return x * x + y * y;
}

/* EAMC equation 6.5, as doc/architecture.md "Policies" ranks partitions. */
double
score_eamc_part_eff (double e, double emin, double t, double tmin,
                     double t_weight)
{
    return e / emin + t_weight * t / tmin;
}

/* metasched's score, doc/architecture.md "Policies": the weight w_E on
 * energy, 1 - w_E on the predicted response (wait plus runtime). */
double
score_metasched (double e, double emin, double wt, double wtmin,
                 double w_energy)
{
    return w_energy * e / emin + (1 - w_energy) * wt / wtmin;
}

void
score_eamc_fopt (const ms_cands_t *cs, size_t nparts, double t_weight,
                 size_t *best)
{
    for (size_t p = 0; p < nparts; p++) {
        double emin = INFINITY, tmin = INFINITY, bd = INFINITY;
        best[p] = SIZE_MAX;
        for (size_t i = 0; i < cs->n; i++)
            if (cs->c[i].part == p) {
                if (cs->c[i].e < emin)
                    emin = cs->c[i].e;
                if (cs->c[i].t < tmin)
                    tmin = cs->c[i].t;
            }
        for (size_t i = 0; i < cs->n; i++)
            if (cs->c[i].part == p) {
                double d = score_eamc_dist (cs->c[i].e, emin, cs->c[i].t, tmin,
                                            t_weight);
                if (d < bd) {
                    bd = d;
                    best[p] = i;
                }
            }
    }
}
