/* choice.h - a decision's entries and the partitions ranked by key: what
 * policy.c, eamc.c, rank.c and window_decide.c share (private to the
 * core).
 */
#ifndef MS_CHOICE_H
#define MS_CHOICE_H

#include <stddef.h>

#include "metasched/core/candidates.h"
#include "metasched/core/decision.h"

/* One partition of a job with the candidate it is ranked by and its key
 * (lower is better). */
typedef struct {
    size_t part;
    size_t cand;
    double key;
} ms_ranked_t;

/* Append candidate ci of cs to d at nice, ranked after the entries there;
 * NULL (nothing added) when d is full. */
ms_choice_t *choice_add (ms_decision_t *d, const ms_cands_t *cs, size_t ci,
                         int nice);
/* A job with a deadline: each entry of d held until the cleaner run
 * carbon_apply found for its candidate before the deadline
 * (doc/architecture.md "Carbon and price"), under metasched's kinds with
 * a carbon weight or a shifting baseline; a job without one has no
 * shift and is never held. policy_decide and policy_decide_window apply
 * it to every decision. */
void choice_carbon_holds (const ms_policy_t *pol, const ms_cands_t *cs,
                          ms_decision_t *d);
/* qsort order of ms_ranked_t: by key, then by partition. */
int choice_ranked_cmp (const void *a, const void *b);
/* r[0..n) in that order (qsort's result: the order is total where no
 * key is NaN and no partition is there twice); an insertion sort for the
 * few partitions of a site, qsort where a key is NaN. */
void choice_ranked_sort (ms_ranked_t *r, size_t n);

#endif
