/* eamc.h - the EAMC policies (eamc_reorder, eamc_priority_inc,
 * eamc_priority_inc_v): f_opt per partition and the partitions in
 * part_eff order (seeds/000 section 6.4; score.h) (private to the core).
 */
#ifndef MS_EAMC_H
#define MS_EAMC_H

#include <stddef.h>

#include "metasched/core/candidates.h"
#include "metasched/core/decision.h"

/* The entries of pol's EAMC kind for candidates cs over nparts
 * partitions (at most MS_MAX_RANKED), appended to d; fopt each
 * partition's f_opt at pol's t_weight where the caller has found them
 * (score_eamc_fopt), else NULL. */
void eamc_decide (const ms_policy_t *pol, const ms_cands_t *cs, size_t nparts,
                  const size_t *fopt, ms_decision_t *d);

#endif
