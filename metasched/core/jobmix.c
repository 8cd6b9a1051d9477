/* jobmix.c - the jobs seen so far: the site's mean width, the drain
 * price's arrival counts and the calibration of metasched's energy odds
 * (see jobmix.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/jobmix.h"
#include "metasched/common/util.h"

/* One job of the mix's ring: its front (mix_keep). */
struct ms_mixjob {
    float nodes;
    float e1, t15; /* its energy-delay choice's energy and its
                      energy-delay^1.5 choice's runtime */
    int nh;        /* its front's lower convex hull, fastest first */
    float e[MS_MIX_PTS], t[MS_MIX_PTS];
    float bp[MS_MIX_PTS]; /* the energy odds over which vertex i + 1
                             scores better than vertex i */
};

void
jobmix_init (ms_jobmix_t *m)
{
    memset (m, 0, sizeof (*m));
    m->first_s = m->last_s = 0;
    m->seen = false;
    m->ring = ms_xcalloc (MS_MIX_JOBS, sizeof (*m->ring));
    m->wj = ms_xcalloc (MS_MIX_JOBS, sizeof (*m->wj));
}

void
jobmix_free (ms_jobmix_t *m)
{
    free (m->ring);
    free (m->wj);
    m->ring = NULL;
    m->wj = NULL;
}

/* The job's front into the ring (mix_calibrate): of its candidates within
 * the maximum slowdown, those that no other is both leaner and faster
 * than (the first of equal ones); kept are its energy-delay and
 * energy-delay^1.5 choices and the front's lower convex hull, the only
 * points a weighted score of energy and runtime can choose. */
static void
mix_keep (ms_jobmix_t *m, const ms_policy_t *pol, const ms_cands_t *cs,
          int nodes)
{
    struct ms_mixjob *r = &m->ring[m->ringpos];
    double fe[256], ft[256], tbest = INFINITY, b1 = INFINITY, b15 = INFINITY;
    int nf = 0, nh = 0;

    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].t < tbest)
            tbest = cs->c[i].t;
    for (size_t i = 0; i < cs->n && nf < 256; i++) {
        const ms_cand_t *a = &cs->c[i];
        bool dominated = false;
        if (!(a->t_hi <= pol->max_slowdown * tbest) || !(a->e > 0)
            || !(a->t > 0))
            continue;
        for (size_t k = 0; k < cs->n && !dominated; k++) {
            const ms_cand_t *b = &cs->c[k];
            dominated = k != i && b->t_hi <= pol->max_slowdown * tbest
                        && b->e <= a->e && b->t <= a->t
                        && (b->e < a->e || b->t < a->t || k < i);
        }
        if (dominated)
            continue;
        /* by runtime, fastest first (a front's energy then falls) */
        int at = nf++;
        while (at > 0 && ft[at - 1] > a->t) {
            fe[at] = fe[at - 1];
            ft[at] = ft[at - 1];
            at--;
        }
        fe[at] = a->e;
        ft[at] = a->t;
    }
    /* a job with one choice has nothing to calibrate */
    if (nf < 2)
        return;
    for (int i = 0; i < nf; i++) {
        double l1 = log (fe[i]) + log (ft[i]);
        double l15 = log (fe[i]) + 1.5 * log (ft[i]);
        if (l1 < b1) {
            b1 = l1;
            r->e1 = (float)fe[i];
        }
        if (l15 < b15) {
            b15 = l15;
            r->t15 = (float)ft[i];
        }
    }
    for (int i = 0; i < nf; i++) {
        /* drop the last vertex while it lies on or over the chord */
        while (nh >= 2
               && (r->e[nh - 1] - r->e[nh - 2]) * (ft[i] - r->t[nh - 1])
                      >= (fe[i] - r->e[nh - 1]) * (r->t[nh - 1] - r->t[nh - 2]))
            nh--;
        if (nh == MS_MIX_PTS)
            break;
        r->e[nh] = (float)fe[i];
        r->t[nh] = (float)ft[i];
        nh++;
    }
    for (int i = 0; i + 1 < nh; i++)
        r->bp[i] = (float)(((r->t[i + 1] - r->t[i]) / r->t[0])
                           / ((r->e[i] - r->e[i + 1]) / r->e[nh - 1]));
    r->nh = nh;
    r->nodes = (float)nodes;
    m->ringpos = (m->ringpos + 1) % MS_MIX_JOBS;
    if (m->nring < MS_MIX_JOBS)
        m->nring++;
    m->since_cal++;
}

void
jobmix_add (ms_jobmix_t *m, const ms_siteconf_t *conf, const ms_policy_t *pol,
            const ms_cands_t *cs, int nodes, double now)
{
    bool in[MS_MAX_RANKED] = { false };
    size_t k = 0, last = 0, np = conf->nparts;

    if (np > MS_MAX_RANKED)
        np = MS_MAX_RANKED;
    if (!m->seen || now < m->first_s)
        m->first_s = now;
    if (!m->seen || now > m->last_s)
        m->last_s = now;
    m->seen = true;
    m->njobs++;
    m->nodes_sum += nodes;
    if (m->ring)
        mix_keep (m, pol, cs, nodes);
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].part < np && !in[cs->c[i].part]) {
            in[cs->c[i].part] = true;
            last = cs->c[i].part;
            k++;
        }
    if (k && k < conf->nparts)
        for (size_t q = 0; q < np; q++)
            if (in[q])
                m->restricted[q]++;
    /* a narrow job that only one partition can run waits only when it is
     * full, not for a drain: drain_delay's model is not its own */
    if (k == 1 && 2 * nodes > conf->parts[last].nodes)
        m->captive[last]++;
}

/* The kept jobs' energy and runtime at energy odds scale times each one's
 * width term wj (metasched's score chooses the hull vertex past whose
 * breakpoints the odds are), and the references' (energy-delay energy,
 * energy-delay^1.5 runtime). */
static void
mix_sums (const ms_jobmix_t *m, double scale, double *es, double *ts,
          double *e1, double *t15)
{
    *es = *ts = *e1 = *t15 = 0;
    for (size_t j = 0; j < m->nring; j++) {
        const struct ms_mixjob *r = &m->ring[j];
        double odds = scale * m->wj[j];
        int i = 0;
        while (i + 1 < r->nh && odds > r->bp[i])
            i++;
        *es += r->e[i];
        *ts += r->t[i];
        *e1 += r->e1;
        *t15 += r->t15;
    }
}

/* Each kept job's width term into m->wj: (nodes / the mean width)^exp. */
static bool
mix_widths (ms_jobmix_t *m, const ms_policy_t *pol)
{
    double ref = m->njobs ? m->nodes_sum / m->njobs : 0;
    if (!m->nring || !(ref > 0))
        return false;
    for (size_t j = 0; j < m->nring; j++)
        m->wj[j] = (float)pow (m->ring[j].nodes / ref, pol->width_exp);
    return true;
}

size_t
jobmix_margins (ms_jobmix_t *m, const ms_policy_t *pol, double scale,
                double *em, double *tm)
{
    double es, ts, e1, t15;

    *em = *tm = 0;
    if (!mix_widths (m, pol))
        return 0;
    mix_sums (m, scale, &es, &ts, &e1, &t15);
    *em = 1 - es / e1;
    *tm = 1 - ts / t15;
    return m->nring;
}

/* The log scale in [lo, hi] where the energy margin stops trailing the
 * runtime margin (with ties_up, stops trailing or matching it), to
 * 2^-24 of the range by bisection. */
static double
mix_edge (ms_jobmix_t *m, double lo, double hi, bool ties_up)
{
    double es, ts, e1, t15;

    for (int it = 0; it < 24; it++) {
        double mid = (lo + hi) / 2, em, tm;
        mix_sums (m, exp (mid), &es, &ts, &e1, &t15);
        em = 1 - es / e1;
        tm = 1 - ts / t15;
        if (ties_up ? em <= tm : em < tm)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* The scale of metasched's energy odds at which the kept jobs' static
 * choices (each job's front, at w_E 0.5 and the width term) beat the
 * published criteria by equal margins: their energy against every job at
 * its energy-delay choice (PriorityInc-V at t_weight 1) and their
 * runtime against every job at its energy-delay^1.5 choice (t_weight
 * 1.5). The energy margin grows with the scale and the runtime margin
 * shrinks, so the balance is found by bisection (e^-8 to e^8, to 1e-6 of
 * the scale). One price of a second then means the same on every
 * workload: the odds that give both margins alike. */
static void
mix_calibrate (ms_jobmix_t *m, const ms_policy_t *pol)
{
    double es, ts, e1, t15, a;

    if (!mix_widths (m, pol))
        return;
    a = mix_edge (m, -8, 8, false);
    /* Where the margins are equal over a range of scales (every job's
     * choice the same there: a site whose jobs have one sensible choice
     * each), the bisection stops at the range's low end; the scale is
     * then the range's middle (log), found by a second bisection for
     * its high end. */
    mix_sums (m, exp (a), &es, &ts, &e1, &t15);
    if (1 - es / e1 == 1 - ts / t15)
        a = (a + mix_edge (m, a, 8, true)) / 2;
    m->scale = exp (a);
}

void
jobmix_observe (ms_jobmix_t *m, double wait_s, double run_s)
{
    const double keep = 1 - 1.0 / MS_MIX_OBS;

    if (!(wait_s >= 0 && run_s >= 0 && isfinite (wait_s) && isfinite (run_s)))
        return;
    m->wait_sum = keep * m->wait_sum + wait_s;
    m->run_sum = keep * m->run_sum + run_s;
    m->nseen++;
}

/* Where the jobs wait, metasched's choices win response in the queue
 * that the static margins do not see (the drain price, the nice grading
 * and the siblings' holds shorten waits), and its odds may lean to
 * energy; where they do not wait, response is runtime alone, the
 * siblings that start a job at once elsewhere cost runtime, and the odds
 * lean less (doc/evaluation.md (14)). */
double
jobmix_wait_share (const ms_jobmix_t *m)
{
    return m->wait_sum + m->run_sum > 0
               ? m->wait_sum / (m->wait_sum + m->run_sum)
               : 0;
}

double
jobmix_lean (const ms_jobmix_t *m, const ms_policy_t *pol)
{
    double q;

    if (!(pol->cal_lean_idle > 0) || !m->nseen
        || !(m->wait_sum + m->run_sum > 0))
        return pol->cal_lean;
    q = jobmix_wait_share (m) / MS_LEAN_WAIT_FULL;
    return pol->cal_lean_idle
           + (pol->cal_lean - pol->cal_lean_idle) * (q < 1 ? q : 1);
}

void
jobmix_apply (ms_jobmix_t *m, const ms_siteconf_t *conf, ms_policy_t *pol)
{
    size_t np = conf->nparts > MS_MAX_RANKED ? MS_MAX_RANKED : conf->nparts;
    double span = m->seen ? m->last_s - m->first_s : 0;

    if (span < 86400)
        span = 86400;
    /* the site's mean job width, as the jobs come */
    pol->ref_nodes = m->njobs ? m->nodes_sum / m->njobs : 0;
    /* a few jobs are not a workload: the odds are calibrated once
     * MS_MIX_MIN jobs with a choice are kept, and stay plain before */
    if (policy_is_metasched (pol->kind) && pol->cal_lean > 0
        && m->nring >= MS_MIX_MIN
        && (m->since_cal >= 32 + m->nring / 16 || !(m->scale > 0))) {
        mix_calibrate (m, pol);
        m->since_cal = 0;
    }
    pol->odds_scale = policy_is_metasched (pol->kind) && pol->cal_lean > 0
                              && m->scale > 0
                          ? jobmix_lean (m, pol) * m->scale
                          : 0;
    for (size_t q = 0; q < np; q++) {
        pol->captive_rate[q] = m->captive[q] / span;
        pol->restricted_rate[q] = m->restricted[q] / span;
    }
}
