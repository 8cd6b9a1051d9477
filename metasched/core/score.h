/* score.h - the scores that rank candidates (doc/architecture.md
 * "Policies").
 *
 * EAMC (seeds/000 section 6.4, equations 6.4 and 6.5, as
 * doc/architecture.md "Policies" reads them):
 *   frequency per partition  f_opt = argmin (E/Emin)^2 + (w_t T/Tmin)^2,
 *                            Emin, Tmin over that partition's frequencies;
 *   partition efficiency     part_eff = E/Emin + w_t T/Tmin at f_opt,
 *                            Emin, Tmin over the job's partitions.
 * metasched:
 *   score = w_E E/Emin + w_T (W + T)/(W + T)min over all candidates.
 */
#ifndef MS_SCORE_H
#define MS_SCORE_H

#include <stddef.h>

#include "metasched/core/candidates.h"

double score_eamc_dist (double e, double emin, double t, double tmin,
                        double t_weight);
double score_eamc_part_eff (double e, double emin, double t, double tmin,
                            double t_weight);
/* metasched's score, doc/architecture.md "Policies": the weight w_E on
 * energy, 1 - w_E on the predicted response (wait plus runtime). Inline:
 * a decision computes it for every admissible candidate (rank.c). */
static inline double
score_metasched (double e, double emin, double wt, double wtmin,
                 double w_energy)
{
    return w_energy * e / emin + (1 - w_energy) * wt / wtmin;
}

/* Per partition of cs: the index into cs->c of the candidate with the
 * EAMC-optimal frequency (SIZE_MAX where the job has none). best has room
 * for nparts entries. */
void score_eamc_fopt (const ms_cands_t *cs, size_t nparts, double t_weight,
                      size_t *best);
/* score_eamc_fopt at t_weight 1 into best and at t_weight into wbest, in
 * one pass (the same indices as two calls). */
void score_eamc_fopt2 (const ms_cands_t *cs, size_t nparts, double t_weight,
                       size_t *best, size_t *wbest);

#endif /* MS_SCORE_H */
