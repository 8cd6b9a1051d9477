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
/* qsort order of ms_ranked_t: by key, then by partition. */
int choice_ranked_cmp (const void *a, const void *b);

#endif
