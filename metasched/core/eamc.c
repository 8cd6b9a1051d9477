/* eamc.c - the EAMC policies' choice (see eamc.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/choice.h"
#include "metasched/core/eamc.h"
#include "metasched/core/score.h"

void
eamc_decide (const ms_policy_t *pol, const ms_cands_t *cs, size_t nparts,
             const size_t *fopt, ms_decision_t *d)
{
    size_t best[MS_MAX_RANKED];
    ms_ranked_t r[MS_MAX_RANKED]; /* the first nr are set */
    size_t nr = 0;
    double emin = INFINITY, tmin = INFINITY;

    /* Listing 6.1: f_opt per partition (eq. 6.4), then Emin and tmin over
     * the partitions at f_opt, part_eff (eq. 6.5), sort. */
    if (fopt)
        memcpy (best, fopt, nparts * sizeof (*best));
    else
        score_eamc_fopt (cs, nparts, pol->t_weight, best);
    for (size_t p = 0; p < nparts; p++)
        if (best[p] != SIZE_MAX) {
            if (cs->c[best[p]].e < emin)
                emin = cs->c[best[p]].e;
            if (cs->c[best[p]].t < tmin)
                tmin = cs->c[best[p]].t;
        }
    for (size_t p = 0; p < nparts; p++)
        if (best[p] != SIZE_MAX) {
            r[nr].part = p;
            r[nr].cand = best[p];
            r[nr].key = score_eamc_part_eff (
                cs->c[best[p]].e, emin, cs->c[best[p]].t, tmin, pol->t_weight);
            nr++;
        }
    choice_ranked_sort (r, nr);
    for (size_t i = 0; i < nr; i++) {
        int nice = 0;
        if (pol->kind == POL_EAMC_PRIO || pol->kind == POL_EAMC_PRIO_V)
            nice = (int)i * MS_NICE_STEP;
        /* PriorityInc-V: "the priority is lowered if the evaluated metric
         * is below a certain threshold ... 35% from the optimal part_eff"
         * (seeds/000 6.4.2): such entries go to the bottom of the queue. */
        if (pol->kind == POL_EAMC_PRIO_V && i > 0
            && r[i].key > (1 + pol->v_threshold) * r[0].key)
            nice = MS_MAX_CHOICES * MS_NICE_STEP;
        choice_add (d, cs, r[i].cand, nice);
    }
}
