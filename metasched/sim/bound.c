/* bound.c - the static bound of a workload (bound.h).
 *
 * Each job's candidates reduce to their lower convex hull in (runtime,
 * energy), from the fastest to the leanest: for a price lambda of a second
 * the job's cheapest candidate (least e + lambda t) is a corner of it, and
 * it moves to the next corner when lambda falls below the slope between
 * the two. Starting with every job at its fastest corner and taking the
 * slopes of all jobs from the steepest down, the totals walk the front of
 * the linear programme corner by corner; between two corners one job is
 * split between two candidates. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "metasched/common/util.h"
#include "metasched/sim/bound.h"

typedef struct {
    double t, e;
} bpt_t;

typedef struct {
    double slope; /* energy saved per second added, J/s */
    double dt, de;
} bstep_t;

struct ms_bound {
    size_t njobs;
    double t0, e0; /* every job at its fastest corner */
    bstep_t *step;
    size_t nstep, capstep;
    double *ct, *ce; /* the front's corners: totals after k steps */
    bool done;
};

/* Points within this relative distance count as the same total. */
#define BOUND_EPS 1e-9

ms_bound_t *
bound_new (void)
{
    return ms_xcalloc (1, sizeof (ms_bound_t));
}

void
bound_free (ms_bound_t *b)
{
    if (!b)
        return;
    free (b->step);
    free (b->ct);
    free (b->ce);
    free (b);
}

static int
pt_cmp (const void *a, const void *b)
{
    const bpt_t *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* > 0 when o -> a -> p turns left (p above the line through o and a). */
static double
cross (const bpt_t *o, const bpt_t *a, const bpt_t *p)
{
    return (a->t - o->t) * (p->e - o->e) - (a->e - o->e) * (p->t - o->t);
}

void
bound_add_job (ms_bound_t *b, const ms_cands_t *cs)
{
    bpt_t *pt, *hull;
    size_t n = 0, nh = 0;

    if (!cs->n)
        return;
    pt = ms_xcalloc (cs->n, sizeof (*pt));
    for (size_t i = 0; i < cs->n; i++)
        if (isfinite (cs->c[i].t) && isfinite (cs->c[i].e) && cs->c[i].t >= 0
            && cs->c[i].e >= 0)
            pt[n++] = (bpt_t){ cs->c[i].t, cs->c[i].e };
    if (!n) {
        free (pt);
        return;
    }
    qsort (pt, n, sizeof (*pt), pt_cmp);
    /* The lower hull of the points that no other beats on both: from the
     * fastest, each next corner is slower and uses less energy. */
    hull = ms_xcalloc (n, sizeof (*hull));
    for (size_t i = 0; i < n; i++) {
        if (nh && !(pt[i].e < hull[nh - 1].e))
            continue;
        while (nh >= 2 && cross (&hull[nh - 2], &hull[nh - 1], &pt[i]) <= 0)
            nh--;
        hull[nh++] = pt[i];
    }
    b->njobs++;
    b->t0 += hull[0].t;
    b->e0 += hull[0].e;
    for (size_t i = 0; i + 1 < nh; i++) {
        bstep_t *s;
        if (b->nstep == b->capstep) {
            b->capstep = b->capstep ? 2 * b->capstep : 1024;
            b->step = ms_xrealloc (b->step, b->capstep * sizeof (*b->step));
        }
        s = &b->step[b->nstep++];
        s->dt = hull[i + 1].t - hull[i].t;
        s->de = hull[i + 1].e - hull[i].e;
        s->slope = -s->de / s->dt;
    }
    b->done = false;
    free (hull);
    free (pt);
}

static int
step_cmp (const void *a, const void *b)
{
    const bstep_t *x = a, *y = b;
    return (x->slope < y->slope) - (x->slope > y->slope);
}

void
bound_finish (ms_bound_t *b)
{
    if (b->nstep)
        qsort (b->step, b->nstep, sizeof (*b->step), step_cmp);
    free (b->ct);
    free (b->ce);
    b->ct = ms_xcalloc (b->nstep + 1, sizeof (double));
    b->ce = ms_xcalloc (b->nstep + 1, sizeof (double));
    b->ct[0] = b->t0;
    b->ce[0] = b->e0;
    for (size_t k = 0; k < b->nstep; k++) {
        b->ct[k + 1] = b->ct[k] + b->step[k].dt;
        b->ce[k + 1] = b->ce[k] + b->step[k].de;
    }
    b->done = true;
}

size_t
bound_njobs (const ms_bound_t *b)
{
    return b->njobs;
}

void
bound_ends (const ms_bound_t *b, double *t_fast, double *e_fast,
            double *t_lean, double *e_lean)
{
    bool ok = b->done && b->njobs;
    *t_fast = ok ? b->ct[0] : NAN;
    *e_fast = ok ? b->ce[0] : NAN;
    *t_lean = ok ? b->ct[b->nstep] : NAN;
    *e_lean = ok ? b->ce[b->nstep] : NAN;
}

double
bound_least_energy (const ms_bound_t *b, double total_t)
{
    size_t lo = 0, hi;

    if (!b->done || !b->njobs || !(total_t >= b->ct[0] * (1 - BOUND_EPS)))
        return NAN;
    hi = b->nstep;
    if (total_t >= b->ct[hi])
        return b->ce[hi];
    if (total_t <= b->ct[0])
        return b->ce[0];
    /* the last corner at or below total_t: ct[lo] <= total_t < ct[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->ct[mid] <= total_t)
            lo = mid;
        else
            hi = mid;
    }
    return b->ce[lo]
           + (b->ce[hi] - b->ce[lo]) * (total_t - b->ct[lo])
                 / (b->ct[hi] - b->ct[lo]);
}

double
bound_least_time (const ms_bound_t *b, double total_e)
{
    size_t lo = 0, hi;

    if (!b->done || !b->njobs
        || !(total_e >= b->ce[b->nstep] * (1 - BOUND_EPS)))
        return NAN;
    hi = b->nstep;
    if (total_e >= b->ce[0])
        return b->ct[0];
    if (total_e <= b->ce[hi])
        return b->ct[hi];
    /* ce falls along the front: ce[lo] > total_e >= ce[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->ce[mid] > total_e)
            lo = mid;
        else
            hi = mid;
    }
    return b->ct[lo]
           + (b->ct[hi] - b->ct[lo]) * (b->ce[lo] - total_e)
                 / (b->ce[lo] - b->ce[hi]);
}
