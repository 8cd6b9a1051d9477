/* jobmix.c - the jobs seen so far: the site's mean width, the drain
 * price's arrival counts and the calibration of metasched's energy odds
 * (see jobmix.h). */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/jobmix.h"
#include "metasched/common/util.h"

/* One job of the mix's ring (mix_keep): its width, references and where
 * its hull lies in the ring of vertices (m->pts). */
struct ms_mixjob {
    float nodes;
    float e1, t15; /* its energy-delay choice's energy and its
                      energy-delay^1.5 choice's runtime */
    uint32_t off;  /* its first vertex in m->pts */
    int nh;        /* its front's lower convex hull, fastest first */
};

/* A vertex of a kept job's hull: its energy and runtime, and the energy
 * odds over which the next vertex scores better than this one (the
 * last's is not read). A job's vertices lie one after the other, the
 * jobs' in the order they came, so that the bisection (mix_edge) reads
 * each job's in one place and the ring holds only the vertices the jobs
 * have (a few each, MS_MIX_PTS at most). */
struct ms_mixpt {
    float e, t, bp;
};

/* The vertices' ring: room for MS_MIX_JOBS jobs of MS_MIX_PTS vertices
 * and one more job. A job's vertices start again at 0 when they would
 * pass the end (at most MS_MIX_PTS - 1 left unused there), so the
 * vertices of the jobs kept and of the one coming always fit in it
 * without overlapping (mix_keep). */
#define MS_MIX_NPTS ((size_t)(MS_MIX_JOBS + 1) * MS_MIX_PTS)

void
jobmix_init (ms_jobmix_t *m)
{
    memset (m, 0, sizeof (*m));
    m->first_s = m->last_s = 0;
    m->seen = false;
}

void
jobmix_free (ms_jobmix_t *m)
{
    free (m->ring);
    free (m->pts);
    free (m->wj);
    free (m->pick);
    m->ring = NULL;
    m->pts = NULL;
    m->wj = NULL;
    m->pick = NULL;
}

void
jobmix_keep_fronts (ms_jobmix_t *m, bool on)
{
    m->no_fronts = !on;
}

/* A kept job whose vertex the bisection's bounds do not fix yet
 * (mix_edge): the odds of the scale at lo and at hi choose hull vertices
 * lo < hi (the vertex chosen grows with the odds), mid the one at the
 * step's scale, e and t its values; with what the step reads of the job
 * (ring index j, its vertices, width term), so that a step reads the
 * open jobs one after the other. */
struct mixund {
    uint32_t j, off;
    float wj, e, t;
    unsigned char nh, lo, hi, mid;
};

/* The bisection's scratch (mix_edge), by kept job: lo the vertex at the
 * lower bound (where the bounds fix it, the vertex for every scale
 * between), e and t each job's vertex at the last scale looked at (of
 * the open jobs, in und), und the open jobs. */
struct ms_mixpick {
    /* the ring's as mix_widths last read it: the references' sums
     * (energy-delay energy, energy-delay^1.5 runtime, in ring order) and
     * the largest energy and runtime of a hull (mixrun_init) */
    double e1, t15, emax, tmax;
    size_t nsum; /* the jobs they were taken over (the ring's first) */
    /* the last calibration's edge (mix_edge's log scale, a_set: there
     * is one) and how far it moved from the one before, where
     * mix_edge_near looks for the next */
    double a_last, a_move;
    bool a_set;
    float e[MS_MIX_JOBS], t[MS_MIX_JOBS];
    unsigned char lo[MS_MIX_JOBS];
    struct mixund und[MS_MIX_JOBS];
};

/* The candidates that may take part in the front, as mix_keep orders
 * them: by runtime, then energy, then index. */
struct mixcand {
    double t, e;
    size_t i;
    bool kept; /* within the slowdown, with a positive e and t */
};

static int
mixcand_cmp (const void *pa, const void *pb)
{
    const struct mixcand *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->e != b->e)
        return a->e < b->e ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* mc[0..n) (n at most 64) in mixcand_cmp's order: the runs that rise or
 * fall (a partition's candidates by frequency: the runtime falls as the
 * clock rises), the falling ones turned, then merged two by two. The
 * order is total (the index breaks ties), so any sort gives this one. */
static void
mix_sort (struct mixcand *mc, size_t n)
{
    struct mixcand tmp[64];
    size_t run[65], nr = 0, i = 0;

    while (i < n) {
        size_t j = i + 1;
        run[nr++] = i;
        if (j < n && mixcand_cmp (&mc[i], &mc[j]) > 0) {
            while (j < n && mixcand_cmp (&mc[j - 1], &mc[j]) > 0)
                j++;
            for (size_t a = i, b = j - 1; a < b; a++, b--) {
                struct mixcand x = mc[a];
                mc[a] = mc[b];
                mc[b] = x;
            }
        } else
            while (j < n && mixcand_cmp (&mc[j - 1], &mc[j]) <= 0)
                j++;
        i = j;
    }
    run[nr] = n;
    while (nr > 1) {
        size_t k = 0;
        for (size_t r = 0; r < nr; r += 2) {
            /* runs r and r + 1 (the last alone: m = e = n) */
            size_t a = run[r], m = run[r + 1], e = r + 2 <= nr ? run[r + 2] : n;
            size_t x = a, y = m, o = 0;
            while (x < m && y < e)
                tmp[o++] = mixcand_cmp (&mc[y], &mc[x]) < 0 ? mc[y++] : mc[x++];
            while (x < m)
                tmp[o++] = mc[x++];
            while (y < e)
                tmp[o++] = mc[y++];
            memcpy (&mc[a], tmp, o * sizeof (*mc));
            run[k++] = a;
        }
        run[k] = n;
        nr = k;
    }
}

/* The job's front (fe, ft: at most 256 points, fastest first) of its
 * candidates within the maximum slowdown: those that no other is both
 * leaner and faster than (of equal ones the first), the first 256 of
 * them in candidate order. A candidate b dominates a when b is within
 * the slowdown, e_b <= e_a, t_b <= t_a and one of them is less or b
 * comes first; sorted by (t, e, index), that is when some candidate
 * before a has e_b <= e_a, so one sweep with the least energy so far
 * finds the front: n log n in the candidates. Returns the points. */
static int
mix_front (const ms_policy_t *pol, const ms_cands_t *cs, double *fe, double *ft)
{
    struct mixcand buf[64], *mc = buf;
    bool infront[256], *in = infront;
    double tbest = INFINITY, todd = INFINITY, emin = INFINITY, lim;
    size_t nc = 0, ntot = 0, i0 = 0;
    int nf = 0;

    /* the least runtime, the even and the odd candidates' apart (each
     * comparison then waits on the one two before), then the lesser:
     * the same value (only its product with the slowdown is read, alike
     * for a zero of either sign) */
    for (; i0 + 1 < cs->n; i0 += 2) {
        if (cs->c[i0].t < tbest)
            tbest = cs->c[i0].t;
        if (cs->c[i0 + 1].t < todd)
            todd = cs->c[i0 + 1].t;
    }
    if (i0 < cs->n && cs->c[i0].t < tbest)
        tbest = cs->c[i0].t;
    if (todd < tbest)
        tbest = todd;
    /* the slowdown cap's runtime, read once (the sweep's stores could be
     * the policy's, for all the compiler knows) */
    lim = pol->max_slowdown * tbest;
    if (cs->n > 64)
        mc = ms_xcalloc (cs->n, sizeof (*mc));
    if (cs->n > 256)
        in = ms_xcalloc (cs->n, sizeof (*in));
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *a = &cs->c[i];
        in[i] = false;
        /* a NaN energy or runtime never dominates nor is kept */
        if (!(a->t_hi <= lim) || isnan (a->e) || isnan (a->t))
            continue;
        mc[nc].t = a->t;
        mc[nc].e = a->e;
        mc[nc].i = i;
        mc[nc].kept = a->e > 0 && a->t > 0;
        nc++;
    }
    /* a job has a few dozen candidates, a partition at a time, each by
     * frequency: runs, merged (mix_sort) */
    if (nc > 64)
        qsort (mc, nc, sizeof (*mc), mixcand_cmp);
    else
        mix_sort (mc, nc);
    for (size_t k = 0; k < nc; k++) {
        if (mc[k].kept && !(emin <= mc[k].e)) {
            in[mc[k].i] = true;
            ntot++;
        }
        if (mc[k].e < emin)
            emin = mc[k].e;
    }
    /* the whole front (256 points at most) is mc's front points in their
     * order, by runtime: front points have distinct runtimes (of equal
     * ones the first in mc's order has the least energy) */
    if (ntot <= 256) {
        for (size_t k = 0; k < nc; k++)
            if (in[mc[k].i]) {
                fe[nf] = mc[k].e;
                ft[nf] = mc[k].t;
                nf++;
            }
        ntot = 0; /* done: the sweep below finds no more */
    }
    /* the first 256 of the front in candidate order, then by runtime */
    for (size_t i = 0; i < cs->n && ntot && nf < 256; i++) {
        if (!in[i])
            continue;
        int at = nf++;
        while (at > 0 && ft[at - 1] > cs->c[i].t) {
            fe[at] = fe[at - 1];
            ft[at] = ft[at - 1];
            at--;
        }
        fe[at] = cs->c[i].e;
        ft[at] = cs->c[i].t;
    }
    if (mc != buf)
        free (mc);
    if (in != infront)
        free (in);
    return nf;
}

/* e t^k for k 1, (e t^k)^2 for k 1.5: they order the points as
 * log e + k log t does. */
static inline double
mix_prod (double e, double t, double k)
{
    return k == 1 ? e * t : e * e * t * t * t;
}

/* The least so far of mix_least's search at one k: the point b (-1:
 * none yet), its product pb and its sum lb (NAN: not taken yet). */
struct mixleast {
    double pb, lb;
    int b;
};

/* Point i of the front (fe, ft) into s's search at k. Each point is
 * compared with the least so far as log e + k log t compare, taken from
 * the products (mix_prod) where both are normal and differ by more than
 * 1e-9 of them (the sums are within 1e-12 of the products' logs, so they
 * compare alike); the logs are taken only for near ties. */
static inline void
mix_least_at (struct mixleast *s, const double *fe, const double *ft, int i,
              double k)
{
    double p = mix_prod (fe[i], ft[i], k), l;

    /* a normal product: e and t finite, the sum under infinity */
    if (isnormal (p) && (s->b < 0 || isnormal (s->pb))) {
        if (s->b >= 0 && p > s->pb * (1 + 1e-9))
            return;
        if (s->b < 0 || p < s->pb * (1 - 1e-9)) {
            s->b = i;
            s->pb = p;
            s->lb = NAN;
            return;
        }
    }
    if (isnan (s->lb))
        s->lb = log (fe[s->b]) + k * log (ft[s->b]);
    l = log (fe[i]) + k * log (ft[i]);
    if (l < s->lb) {
        s->b = i;
        s->pb = p;
        s->lb = l;
    }
}

/* The first of the front's points (fe, ft: nf of them) with the least
 * log e + log t, the energy-delay choice, into *i1, and with the least
 * log e + 1.5 log t, the energy-delay^1.5 one, into *i15 (each -1 where
 * none is under infinity): both searches in one sweep of the points. */
static void
mix_least (const double *fe, const double *ft, int nf, int *i1, int *i15)
{
    struct mixleast s1 = { INFINITY, INFINITY, -1 };
    struct mixleast s15 = { INFINITY, INFINITY, -1 };

    for (int i = 0; i < nf; i++) {
        mix_least_at (&s1, fe, ft, i, 1);
        mix_least_at (&s15, fe, ft, i, 1.5);
    }
    *i1 = s1.b;
    *i15 = s15.b;
}

/* The job's front into the ring (mix_calibrate): of its candidates within
 * the maximum slowdown, those that no other is both leaner and faster
 * than (mix_front); kept are its energy-delay and energy-delay^1.5
 * choices and the front's lower convex hull, the only points a weighted
 * score of energy and runtime can choose. The ring and its scratch are
 * allocated at the first job kept. */
static void
mix_keep (ms_jobmix_t *m, const ms_policy_t *pol, const ms_cands_t *cs,
          int nodes)
{
    struct ms_mixjob *r;
    struct ms_mixpt *v;
    double fe[256], ft[256];
    float he[MS_MIX_PTS], ht[MS_MIX_PTS];
    int nf = mix_front (pol, cs, fe, ft), nh = 0, i1, i15;

    /* a job with one choice has nothing to calibrate */
    if (nf < 2)
        return;
    if (!m->ring) {
        /* Only the ring's jobs and the bisection's figures start at
         * zero (a job's slot keeps its references where it has none);
         * the vertices, width terms and the bisection's arrays are
         * written before they are read, and left as the allocator gives
         * them: the pages a short run never reaches are never touched
         * (the vertices' ring is 6 MiB). */
        m->ring = ms_xcalloc (MS_MIX_JOBS, sizeof (*m->ring));
        m->pts = ms_xmalloc (MS_MIX_NPTS * sizeof (*m->pts));
        m->wj = ms_xmalloc (MS_MIX_JOBS * sizeof (*m->wj));
        m->pick = ms_xmalloc (sizeof (*m->pick));
        memset (m->pick, 0, offsetof (struct ms_mixpick, e));
    }
    r = &m->ring[m->ringpos];
    mix_least (fe, ft, nf, &i1, &i15);
    if (i1 >= 0)
        r->e1 = (float)fe[i1];
    if (i15 >= 0)
        r->t15 = (float)ft[i15];
    for (int i = 0; i < nf; i++) {
        /* drop the last vertex while it lies on or over the chord */
        while (nh >= 2
               && (he[nh - 1] - he[nh - 2]) * (ft[i] - ht[nh - 1])
                      >= (fe[i] - he[nh - 1]) * (ht[nh - 1] - ht[nh - 2]))
            nh--;
        if (nh == MS_MIX_PTS)
            break;
        he[nh] = (float)fe[i];
        ht[nh] = (float)ft[i];
        nh++;
    }
    /* the vertices after the last job's (MS_MIX_NPTS) */
    if (m->ptspos + (size_t)nh > MS_MIX_NPTS)
        m->ptspos = 0;
    v = &m->pts[m->ptspos];
    for (int i = 0; i < nh; i++) {
        v[i].e = he[i];
        v[i].t = ht[i];
        v[i].bp = 0;
    }
    for (int i = 0; i + 1 < nh; i++)
        v[i].bp = (float)(((ht[i + 1] - ht[i]) / ht[0])
                          / ((he[i] - he[i + 1]) / he[nh - 1]));
    r->off = (uint32_t)m->ptspos;
    r->nh = nh;
    r->nodes = (float)nodes;
    m->ptspos += (size_t)nh;
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
    size_t k = 0, last = 0, np = conf->nparts, prev = SIZE_MAX;

    if (np > MS_MAX_RANKED)
        np = MS_MAX_RANKED;
    if (!m->seen || now < m->first_s)
        m->first_s = now;
    if (!m->seen || now > m->last_s)
        m->last_s = now;
    m->seen = true;
    m->njobs++;
    m->nodes_sum += nodes;
    if (!m->no_fronts)
        mix_keep (m, pol, cs, nodes);
    /* the partitions the job can run on (a partition's candidates come
     * together: the first of a run says all its run can) */
    for (size_t i = 0; i < cs->n; i++) {
        size_t q = cs->c[i].part;
        if (q == prev)
            continue;
        prev = q;
        if (q < np && !in[q]) {
            in[q] = true;
            last = q;
            k++;
        }
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

size_t
jobmix_njobs (const ms_jobmix_t *m)
{
    return (size_t)m->njobs;
}

/* The kept jobs' energy and runtime at energy odds scale times each one's
 * width term wj (metasched's score chooses the hull vertex past whose
 * breakpoints the odds are). from, when not NULL, gives each job's
 * vertex at a scale at most this one (mix_edge's lower bound): the odds
 * are over every breakpoint before it, so the search for the vertex
 * starts there and finds the same one. The references' sums, which no
 * scale changes, are mix_widths' (m->pick). */
static void
mix_sums (const ms_jobmix_t *m, double scale, const unsigned char *from,
          double *es, double *ts)
{
    *es = *ts = 0;
    for (size_t j = 0; j < m->nring; j++) {
        const struct ms_mixjob *r = &m->ring[j];
        const struct ms_mixpt *v = &m->pts[r->off];
        double odds = scale * m->wj[j];
        int i = from ? from[j] : 0;
        while (i + 1 < r->nh && odds > v[i].bp)
            i++;
        *es += v[i].e;
        *ts += v[i].t;
    }
}

/* Each kept job's width term into m->wj: (nodes / the mean width)^exp;
 * and the figures of the ring that no scale changes, into m->pick (its
 * e1, t15, emax, tmax). */
static bool
mix_widths (ms_jobmix_t *m, const ms_policy_t *pol)
{
    struct ms_mixpick *pk = m->pick;
    double ref = m->njobs ? m->nodes_sum / m->njobs : 0;
    double e1 = 0, t15 = 0, emax = 0, tmax = 0;
    size_t from = 0;

    if (!m->nring || !(ref > 0))
        return false;
    for (size_t j = 0; j < m->nring; j++) {
        const struct ms_mixjob *r = &m->ring[j];
        /* x^1 is x (pow is exact where the power is a double) */
        m->wj[j] = (float)(pol->width_exp == 1
                               ? r->nodes / ref
                               : pow (r->nodes / ref, pol->width_exp));
    }
    /* Until the ring is full, its jobs lie in the order they came from
     * index 0 and none is replaced: the sums go on from the jobs summed
     * before (pk->nsum), the same additions in the same order. */
    if (m->nring < MS_MIX_JOBS && pk->nsum <= m->nring) {
        from = pk->nsum;
        e1 = pk->e1;
        t15 = pk->t15;
        emax = pk->emax;
        tmax = pk->tmax;
    }
    for (size_t j = from; j < m->nring; j++) {
        const struct ms_mixjob *r = &m->ring[j];
        const struct ms_mixpt *v = &m->pts[r->off];
        e1 += r->e1;
        t15 += r->t15;
        if (v[0].e > emax) /* fastest first: the energy falls */
            emax = v[0].e;
        if (v[r->nh - 1].t > tmax)
            tmax = v[r->nh - 1].t;
    }
    pk->e1 = e1;
    pk->t15 = t15;
    pk->emax = emax;
    pk->tmax = tmax;
    pk->nsum = m->nring;
    return true;
}

size_t
jobmix_margins (ms_jobmix_t *m, const ms_policy_t *pol, double scale,
                double *em, double *tm)
{
    double es, ts;

    *em = *tm = 0;
    if (!mix_widths (m, pol))
        return 0;
    mix_sums (m, scale, NULL, &es, &ts);
    *em = 1 - es / m->pick->e1;
    *tm = 1 - ts / m->pick->t15;
    return m->nring;
}

/* The sums of one bisection step, e and t at each job's vertex: in ring
 * order, as mix_sums adds them, for the step's decision where the
 * running sums cannot decide it (mix_edge); the open jobs' (und, nu of
 * them) are theirs at the step. */
static void
mix_pick_sums (const ms_jobmix_t *m, size_t nu, double *es, double *ts)
{
    struct ms_mixpick *pk = m->pick;

    for (size_t u = 0; u < nu; u++) {
        pk->e[pk->und[u].j] = pk->und[u].e;
        pk->t[pk->und[u].j] = pk->und[u].t;
    }
    *es = *ts = 0;
    for (size_t j = 0; j < m->nring; j++) {
        *es += pk->e[j];
        *ts += pk->t[j];
    }
}

/* mix_edge's running sums (below; only where the compiler has 128-bit
 * integers). */
typedef struct mixrun mixrun_t;

#ifdef __SIZEOF_INT128__
/* The running sums of mix_edge: e and t of every job's vertex as whole
 * multiples of 2^(top - 100), top the exponent of the largest value a
 * hull holds, in 128 bits: adding and taking away a job's value is
 * exact, so a step costs the jobs it moves, not the ring. What a value
 * has under the unit is cut, the same for adding and taking away; the
 * sums are within n units of the values' exact sum. */
struct mixrun {
    double se, st; /* 2^(100 - top) for e and t */
    int xe, xt;    /* 100 - top for e and t */
    __int128 e, t;
};

/* The units from the hulls' largest values (mix_widths'). */
static bool
mixrun_init (const ms_jobmix_t *m, mixrun_t *rs)
{
    double emax = m->pick->emax, tmax = m->pick->tmax;
    int xe, xt;

    if (!(emax > 0 && tmax > 0 && isfinite (emax) && isfinite (tmax)))
        return false;
    frexp (emax, &xe);
    frexp (tmax, &xt);
    rs->xe = 100 - xe;
    rs->xt = 100 - xt;
    rs->se = ldexp (1, rs->xe);
    rs->st = ldexp (1, rs->xt);
    rs->e = rs->t = 0;
    return true;
}

/* x (a positive float) times 2^sh, cut to a whole number: from its bits
 * (a conversion of the double through the runtime library costs more
 * than the rest of a step). */
static inline __int128
mixrun_fix (float x, int sh)
{
    uint32_t b;
    uint32_t m;
    int ex;

    memcpy (&b, &x, sizeof (b));
    m = b & 0x7fffffu;
    ex = (int)((b >> 23) & 0xffu);
    if (ex)
        m |= 0x800000u;
    else
        ex = 1; /* subnormal: m 2^-149 */
    sh += ex - 150;
    if (sh >= 0)
        return (__int128)m << sh;
    return sh > -32 ? (__int128)(m >> -sh) : 0;
}

/* Whether the step's sums decide it: the margins from the running sums
 * are within 1e-10 (relative) of those the ring-order sums give (n
 * additions in a double: at most n 2^-53 of the sum, 3.7e-12 at 32,768
 * jobs; the running sums much closer), so where they differ by more,
 * the ring-order sums would compare alike. *up then says which way. */
static bool
mixrun_decide (const mixrun_t *rs, double e1, double t15, bool *up)
{
    double q = (double)rs->e / rs->se / e1, r = (double)rs->t / rs->st / t15;
    double d = (1 - q) - (1 - r), tol = 1e-10 * (q + r + 2);

    if (!(fabs (d) > tol))
        return false;
    *up = d < 0; /* em < tm; with ties_up em <= tm, the same here */
    return true;
}
#endif

/* A step of the bisection on the open jobs (und, nu of them) at scale:
 * each one's vertex, looked up from its lower bound x->lo, into x->mid,
 * x->e and x->t, and the running sums rs (NULL: none) moved by the
 * change. */
static void
mix_step (const ms_jobmix_t *m, struct mixund *und, size_t nu, double scale,
          mixrun_t *rs)
{
    for (size_t u = 0; u < nu; u++) {
        struct mixund *x = &und[u];
        const struct ms_mixpt *v = &m->pts[x->off];
        double odds = scale * x->wj;
        int i = x->lo;
        while (i + 1 < x->nh && odds > v[i].bp)
            i++;
        x->mid = (unsigned char)i;
#ifdef __SIZEOF_INT128__
        if (rs && (x->e != v[i].e || x->t != v[i].t)) {
            rs->e += mixrun_fix (v[i].e, rs->xe) - mixrun_fix (x->e, rs->xe);
            rs->t += mixrun_fix (v[i].t, rs->xt) - mixrun_fix (x->t, rs->xt);
        }
#else
        (void)rs;
#endif
        x->e = v[i].e;
        x->t = v[i].t;
    }
}

/* The log scale in [lo, hi] where the energy margin stops trailing the
 * runtime margin (with ties_up, stops trailing or matching it), to
 * 2^-24 of the range by bisection. Each step compares what mix_sums
 * sums, in its order and with its values, or where the running sums
 * decide it (mixrun_decide), the same comparison without the ring's
 * sweep; a job whose vertex the bounds already fix is not looked up
 * again, so the bisection reads the hulls of fewer jobs at every step
 * (the scale is the same to the bit). */
static double
mix_edge (ms_jobmix_t *m, double lo, double hi, bool ties_up)
{
    struct ms_mixpick *pk = m->pick;
    struct mixund *und = pk->und;
    double e1 = pk->e1, t15 = pk->t15;
    size_t nu = 0;
    mixrun_t *rsp = NULL; /* &rs where the running sums hold */
#ifdef __SIZEOF_INT128__
    mixrun_t rs = { 0, 0, 0, 0, 0, 0 };
    if (mixrun_init (m, &rs))
        rsp = &rs;
#endif

    for (size_t j = 0; j < m->nring; j++) {
        const struct ms_mixjob *r = &m->ring[j];
        const struct ms_mixpt *v = &m->pts[r->off];
        pk->lo[j] = 0;
        pk->e[j] = v[0].e;
        pk->t[j] = v[0].t;
#ifdef __SIZEOF_INT128__
        if (rsp) {
            rs.e += mixrun_fix (v[0].e, rs.xe);
            rs.t += mixrun_fix (v[0].t, rs.xt);
        }
#endif
        if (r->nh > 1) {
            struct mixund *x = &und[nu++];
            x->j = (uint32_t)j;
            x->off = r->off;
            x->wj = m->wj[j];
            x->e = v[0].e;
            x->t = v[0].t;
            x->nh = (unsigned char)r->nh;
            x->lo = 0;
            x->hi = (unsigned char)(r->nh - 1);
        }
    }
    for (int it = 0; it < 24; it++) {
        double mid = (lo + hi) / 2, scale = exp (mid);
        bool up = false, decided = false;
        size_t k = 0;
        /* the vertices the bounds leave open, at mid */
        mix_step (m, und, nu, scale, rsp);
#ifdef __SIZEOF_INT128__
        if (rsp)
            decided = mixrun_decide (rsp, e1, t15, &up);
#endif
        if (!decided) {
            /* mix_sums' sums: the same values in the same order */
            double es, ts, em, tm;
            mix_pick_sums (m, nu, &es, &ts);
            em = 1 - es / e1;
            tm = 1 - ts / t15;
            up = ties_up ? em <= tm : em < tm;
        }
        if (up)
            lo = mid;
        else
            hi = mid;
        /* mid is a bound now; a job it fixes leaves und with its vertex */
        for (size_t u = 0; u < nu; u++) {
            struct mixund *x = &und[u];
            if (up)
                x->lo = x->mid;
            else
                x->hi = x->mid;
            if (x->lo != x->hi)
                und[k++] = *x;
            else {
                pk->lo[x->j] = x->lo;
                pk->e[x->j] = x->e;
                pk->t[x->j] = x->t;
            }
        }
        nu = k;
    }
    for (size_t u = 0; u < nu; u++) {
        pk->lo[und[u].j] = und[u].lo;
        pk->e[und[u].j] = und[u].e;
        pk->t[und[u].j] = und[u].t;
    }
    return (lo + hi) / 2;
}

#ifdef __SIZEOF_INT128__
/* Whether the energy margin trails the runtime margin at scale (the
 * bisection goes up): from the running sums rs at scale where they
 * decide it (mixrun_decide), else from mix_sums' ring-order sums, which
 * are the values mix_pick_sums adds (each job's vertex at scale). */
static bool
mix_up_at (const ms_jobmix_t *m, const mixrun_t *rs, double scale)
{
    double es, ts, em, tm;
    bool up;

    if (mixrun_decide (rs, m->pick->e1, m->pick->t15, &up))
        return up;
    mix_sums (m, scale, NULL, &es, &ts);
    em = 1 - es / m->pick->e1;
    tm = 1 - ts / m->pick->t15;
    return em < tm;
}

/* One sweep of the ring at scales sx < sy: the running sums at both
 * (rx, ry, from mixrun_init), and the jobs whose vertex differs between
 * them into und (lo the vertex at sx, hi at sy, e and t at sx), the only
 * ones a scale between reads. Returns how many. */
static size_t
mix_bracket_sweep (ms_jobmix_t *m, double sx, double sy, mixrun_t *rx,
                   mixrun_t *ry)
{
    struct mixund *und = m->pick->und;
    __int128 de = 0, dt = 0;
    size_t nu = 0;

    for (size_t j = 0; j < m->nring; j++) {
        const struct ms_mixjob *r = &m->ring[j];
        const struct ms_mixpt *v = &m->pts[r->off];
        double ox = sx * m->wj[j], oy = sy * m->wj[j];
        int i = 0, k;
        while (i + 1 < r->nh && ox > v[i].bp)
            i++;
        /* the odds at sy are over every breakpoint those at sx are */
        k = i;
        while (k + 1 < r->nh && oy > v[k].bp)
            k++;
        rx->e += mixrun_fix (v[i].e, rx->xe);
        rx->t += mixrun_fix (v[i].t, rx->xt);
        if (k != i) {
            struct mixund *x = &und[nu++];
            de += mixrun_fix (v[k].e, rx->xe) - mixrun_fix (v[i].e, rx->xe);
            dt += mixrun_fix (v[k].t, rx->xt) - mixrun_fix (v[i].t, rx->xt);
            x->j = (uint32_t)j;
            x->off = r->off;
            x->wj = m->wj[j];
            x->e = v[i].e;
            x->t = v[i].t;
            x->nh = (unsigned char)r->nh;
            x->lo = (unsigned char)i;
            x->hi = (unsigned char)k;
        }
    }
    *ry = *rx;
    ry->e += de;
    ry->t += dt;
    return nu;
}

/* mix_edge (lo, hi, not ties_up) near the last calibration's edge a0:
 * the margins' difference moves one way with the scale (each job's
 * vertex, so each sum, moves one way: mix_calibrate), so where the
 * energy margin trails at sx = e^(a0 - h) and no longer does at
 * sy = e^(a0 + h), every step of the bisection at a scale up to sx goes
 * up and every one from sy down, as mix_edge's would, and only the steps
 * between read the jobs: those whose vertex differs at sx and sy
 * (mix_bracket_sweep). The same steps, so the same scale to the bit, for
 * one sweep of the ring instead of mix_edge's several. Returns false
 * where the edge is not between sx and sy (nothing found); else the log
 * scale into *ap, and *ne true where the running sums say the margins
 * differ there (mix_calibrate's test of a tie, then not needed). */
static bool
mix_edge_near (ms_jobmix_t *m, double lo, double hi, double a0, double h,
               double *ap, bool *ne)
{
    struct mixund *und = m->pick->und;
    double sx = exp (a0 - h), sy = exp (a0 + h), s;
    mixrun_t rx, ry;
    size_t nu;
    bool up;

    if (!(sx < sy) || !mixrun_init (m, &rx))
        return false;
    ry = rx;
    nu = mix_bracket_sweep (m, sx, sy, &rx, &ry);
    if (!mix_up_at (m, &rx, sx) || mix_up_at (m, &ry, sy))
        return false;
    for (int it = 0; it < 24; it++) {
        double mid = (lo + hi) / 2, scale = exp (mid);
        size_t k = 0;
        if (!(scale > sx))
            up = true;
        else if (!(scale < sy))
            up = false;
        else {
            mix_step (m, und, nu, scale, &rx);
            up = mix_up_at (m, &rx, scale);
            /* mid is a bound now; a job it fixes leaves und */
            for (size_t u = 0; u < nu; u++) {
                struct mixund *x = &und[u];
                if (up)
                    x->lo = x->mid;
                else
                    x->hi = x->mid;
                if (x->lo != x->hi)
                    und[k++] = *x;
            }
            nu = k;
        }
        if (up)
            lo = mid;
        else
            hi = mid;
    }
    *ap = (lo + hi) / 2;
    s = exp (*ap);
    *ne = false;
    if (s > sx && s < sy) {
        mix_step (m, und, nu, s, &rx);
        *ne = mixrun_decide (&rx, m->pick->e1, m->pick->t15, &up);
    }
    return true;
}
#endif

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
    struct ms_mixpick *pk = m->pick;
    double es, ts, a = 0;
    bool near = false, ne = false;

    if (!mix_widths (m, pol))
        return;
#ifdef __SIZEOF_INT128__
    /* the edge moves little from one calibration to the next: looked
     * for first within twice its last move (at least 1/16: on KTH it
     * moves up to 0.06 from one to the next) of the last */
    if (pk->a_set) {
        double h = 2 * pk->a_move > 1.0 / 16 ? 2 * pk->a_move : 1.0 / 16;
        near = mix_edge_near (m, -8, 8, pk->a_last, h, &a, &ne);
    }
#endif
    if (!near)
        a = mix_edge (m, -8, 8, false);
    pk->a_move = pk->a_set ? fabs (a - pk->a_last) : 0;
    pk->a_last = a;
    pk->a_set = true;
    /* Where the margins are equal over a range of scales (every job's
     * choice the same there: a site whose jobs have one sensible choice
     * each), the bisection stops at the range's low end; the scale is
     * then the range's middle (log), found by a second bisection for
     * its high end. */
    if (!ne) {
        /* mix_edge leaves each job's vertex at its lower bound in
         * pk->lo; mix_edge_near does not, and mix_sums looks it up */
        mix_sums (m, exp (a), near ? NULL : pk->lo, &es, &ts);
        if (1 - es / pk->e1 == 1 - ts / pk->t15)
            a = (a + mix_edge (m, a, 8, true)) / 2;
    }
    m->scale = exp (a);
}

size_t
jobmix_front (const ms_jobmix_t *m, size_t back, float *e, float *t, size_t max,
              float *e1, float *t15)
{
    const struct ms_mixjob *r;

    if (back >= m->nring)
        return 0;
    r = &m->ring[(m->ringpos + MS_MIX_JOBS - 1 - back) % MS_MIX_JOBS];
    for (int i = 0; i < r->nh && (size_t)i < max; i++) {
        e[i] = m->pts[r->off + (size_t)i].e;
        t[i] = m->pts[r->off + (size_t)i].t;
    }
    if (e1)
        *e1 = r->e1;
    if (t15)
        *t15 = r->t15;
    return (size_t)r->nh;
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
    pol->odds_scale
        = policy_is_metasched (pol->kind) && pol->cal_lean > 0 && m->scale > 0
              ? jobmix_lean (m, pol) * m->scale
              : 0;
    for (size_t q = 0; q < np; q++) {
        pol->captive_rate[q] = m->captive[q] / span;
        pol->restricted_rate[q] = m->restricted[q] / span;
    }
}
