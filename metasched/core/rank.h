/* rank.h - metasched's ranking of a job's partitions (policies metasched
 * and metasched_window): the admissible candidates, each partition's
 * frequency and key, the siblings on the other partitions with their nice
 * and hold, and the drain price (doc/simulator.md, "metasched's policy")
 * (private to the core; policy_explain in decision.h shows its terms).
 */
#ifndef MS_RANK_H
#define MS_RANK_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/core/candidates.h"
#include "metasched/core/choice.h"
#include "metasched/core/decision.h"

/* metasched's key of each partition with an admissible candidate, into r
 * (at most nparts, in partition order): ok gets the admissible
 * candidates, fs (when not NULL) each one's frequency score, *wtminp the
 * job's best predicted response, *key_sp the seconds of response a unit
 * of key is worth. Returns how many partitions were ranked. */
size_t rank_partitions (const ms_policy_t *pol, const ms_siteconf_t *conf,
                        const ms_cands_t *cs, const ms_view_t *view, bool *ok,
                        double *fs, ms_ranked_t *r, size_t nparts,
                        double *wtminp, double *key_sp);
/* The price of a deadline job's delay for carbon_apply's shift_k: the
 * same trade as the joint score makes (rank.c joint_score, at the
 * policy's w_energy), for metasched with a carbon weight; 0 (the
 * cleanest run) for a shifting baseline; INFINITY (never shifted) for
 * every other policy. */
double rank_shift_k (const ms_policy_t *pol);
/* metasched's greedy decision: the best partition and its siblings. */
void rank_decide (const ms_policy_t *pol, const ms_siteconf_t *conf,
                  const ms_cands_t *cs, const ms_view_t *view,
                  ms_decision_t *d);
/* The nice of an entry whose advantage over the job's other choices is
 * adv (negative: a sibling's graded loss). */
int rank_entry_nice (const ms_policy_t *pol, double adv);
/* Add candidate ci, a sibling of the first choice ci0 (keys key, key0;
 * key_s the seconds of response a unit of key is worth), at its nice,
 * held, staked or ahead as rank.c says. */
void rank_add_sibling (const ms_policy_t *pol, ms_decision_t *d,
                       const ms_cands_t *cs, size_t ci, size_t ci0, double key,
                       double key0, double key_s);

#endif
