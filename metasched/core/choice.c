/* choice.c - a decision's entries and ranked partitions (see choice.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "metasched/core/choice.h"

ms_choice_t *
choice_add (ms_decision_t *d, const ms_cands_t *cs, size_t ci, int nice)
{
    if (d->n >= MS_MAX_CHOICES)
        return NULL;
    d->c[d->n].part = cs->c[ci].part;
    d->c[d->n].cand = ci;
    d->c[d->n].nice = nice;
    d->c[d->n].rank = (int)d->n;
    d->c[d->n].hold_s = 0;
    d->c[d->n].shift_s = 0;
    return &d->c[d->n++];
}

void
choice_carbon_holds (const ms_policy_t *pol, const ms_cands_t *cs,
                     ms_decision_t *d)
{
    if (!cs->carbon
        || !(pol->carbon_shift
             || (policy_is_metasched (pol->kind) && pol->w_carbon > 0)))
        return;
    for (size_t k = 0; k < d->n; k++) {
        const ms_cand_t *c = &cs->c[d->c[k].cand];
        if (c->shift_s > 0 && c->w + c->shift_s > d->c[k].hold_s)
            d->c[k].hold_s = d->c[k].shift_s = c->w + c->shift_s;
    }
}

int
choice_ranked_cmp (const void *a, const void *b)
{
    const ms_ranked_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->part < y->part ? -1 : x->part > y->part;
}

void
choice_ranked_sort (ms_ranked_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan (r[i].key)) {
            /* no total order: the C library's own */
            qsort (r, n, sizeof (*r), choice_ranked_cmp);
            return;
        }
    for (size_t i = 1; i < n; i++) {
        ms_ranked_t x = r[i];
        size_t k = i;
        while (k > 0 && choice_ranked_cmp (&x, &r[k - 1]) < 0) {
            r[k] = r[k - 1];
            k--;
        }
        r[k] = x;
    }
}
