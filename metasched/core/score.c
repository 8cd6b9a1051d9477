/* score.c - candidate scores (see score.h). */
#include "config.h"

#include <math.h>
#include <stdbool.h>
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

/* score_eamc_dist with its two quotients in one division of pairs (each
 * lane is the same IEEE quotient): the division is most of a sweep's
 * time. */
typedef double eamc_pair_t __attribute__ ((vector_size (16)));

static inline double
eamc_dist2 (double e, double emin, double t, double tmin, double t_weight)
{
    eamc_pair_t num = { e, t_weight * t }, den = { emin, tmin };
    eamc_pair_t q = num / den;
    return q[0] * q[0] + q[1] * q[1];
}

/* partitions score_eamc_fopt keeps side by side (policy.h's MS_MAX_RANKED) */
#define SCORE_PARTS 64

/* The least E and T of each of the first np partitions (score_eamc_fopt's
 * first sweep; inlined, as it was before the sweep had two callers). */
static inline __attribute__ ((always_inline)) void
part_minima (const ms_cand_t *c, size_t n, size_t np, double *emin,
             double *tmin)
{
    size_t i, k;

    for (size_t p = 0; p < np; p++)
        emin[p] = tmin[p] = INFINITY;
    for (i = 0; i < n; i = k) {
        size_t p = c[i].part;
        double em, tm;
        if (p >= np) {
            k = i + 1;
            continue;
        }
        em = emin[p];
        tm = tmin[p];
        for (k = i; k < n && c[k].part == p; k++) {
            em = c[k].e < em ? c[k].e : em;
            tm = c[k].t < tm ? c[k].t : tm;
        }
        emin[p] = em;
        tmin[p] = tm;
    }
}

/* Partitions np to nparts, each by a sweep of its own. */
static void
fopt_past (const ms_cands_t *cs, size_t np, size_t nparts, double t_weight,
           size_t *best)
{
    const ms_cand_t *c = cs->c;
    size_t n = cs->n, k;

    for (size_t p = np; p < nparts; p++) {
        double em = INFINITY, tm = INFINITY, b = INFINITY;
        best[p] = SIZE_MAX;
        for (k = 0; k < n; k++)
            if (c[k].part == p) {
                if (c[k].e < em)
                    em = c[k].e;
                if (c[k].t < tm)
                    tm = c[k].t;
            }
        for (k = 0; k < n; k++)
            if (c[k].part == p) {
                double d = score_eamc_dist (c[k].e, em, c[k].t, tm, t_weight);
                if (d < b) {
                    b = d;
                    best[p] = k;
                }
            }
    }
}

/* Two sweeps over the candidates whatever the number of partitions (it
 * was two a partition): the least E and T of each partition, then each
 * candidate's distance against its partition's best so far, in candidate
 * order, so the ties and the figures are those of a sweep per partition.
 * Each sweep goes by runs of one partition (candidates_build lists a
 * partition's frequencies in a row): a run's minima stay in registers and
 * are taken without a branch (a < m ? a : m, as `if (a < m) m = a`), and
 * a run's best joins its partition's only when strictly better, so the
 * first of equal distances still wins. Partitions past SCORE_PARTS are
 * looked at one at a time. */
void
score_eamc_fopt (const ms_cands_t *cs, size_t nparts, double t_weight,
                 size_t *best)
{
    double emin[SCORE_PARTS], tmin[SCORE_PARTS], bd[SCORE_PARTS];
    size_t np = nparts < SCORE_PARTS ? nparts : SCORE_PARTS;
    const ms_cand_t *c = cs->c;
    size_t n = cs->n, i, k;

    part_minima (c, n, np, emin, tmin);
    for (size_t p = 0; p < np; p++) {
        bd[p] = INFINITY;
        best[p] = SIZE_MAX;
    }
    for (i = 0; i < n; i = k) {
        size_t p = c[i].part, bi = SIZE_MAX;
        double em, tm, b = INFINITY;
        if (p >= np) {
            k = i + 1;
            continue;
        }
        em = emin[p];
        tm = tmin[p];
        for (k = i; k < n && c[k].part == p; k++) {
            double d = eamc_dist2 (c[k].e, em, c[k].t, tm, t_weight);
            bool lt = d < b;
            b = lt ? d : b;
            bi = lt ? k : bi;
        }
        if (b < bd[p]) {
            bd[p] = b;
            best[p] = bi;
        }
    }
    fopt_past (cs, np, nparts, t_weight, best);
}

/* score_eamc_fopt's sweeps once for both weights: the minima are the
 * same, and each distance is the one a sweep of its own takes. */
void
score_eamc_fopt2 (const ms_cands_t *cs, size_t nparts, double t_weight,
                  size_t *best, size_t *wbest)
{
    double emin[SCORE_PARTS], tmin[SCORE_PARTS];
    double bd[SCORE_PARTS], wbd[SCORE_PARTS];
    size_t np = nparts < SCORE_PARTS ? nparts : SCORE_PARTS;
    const ms_cand_t *c = cs->c;
    size_t n = cs->n, i, k;

    part_minima (c, n, np, emin, tmin);
    for (size_t p = 0; p < np; p++) {
        bd[p] = wbd[p] = INFINITY;
        best[p] = wbest[p] = SIZE_MAX;
    }
    for (i = 0; i < n; i = k) {
        size_t p = c[i].part, bi = SIZE_MAX, wbi = SIZE_MAX;
        double em, tm, b = INFINITY, wb = INFINITY;
        if (p >= np) {
            k = i + 1;
            continue;
        }
        em = emin[p];
        tm = tmin[p];
        for (k = i; k < n && c[k].part == p; k++) {
            double d = eamc_dist2 (c[k].e, em, c[k].t, tm, 1.0);
            double wd = eamc_dist2 (c[k].e, em, c[k].t, tm, t_weight);
            bool lt = d < b, wlt = wd < wb;
            b = lt ? d : b;
            bi = lt ? k : bi;
            wb = wlt ? wd : wb;
            wbi = wlt ? k : wbi;
        }
        if (b < bd[p]) {
            bd[p] = b;
            best[p] = bi;
        }
        if (wb < wbd[p]) {
            wbd[p] = wb;
            wbest[p] = wbi;
        }
    }
    fopt_past (cs, np, nparts, 1.0, best);
    fopt_past (cs, np, nparts, t_weight, wbest);
}
