/* test_jobmix.c - the job mix's fronts and calibration (core/jobmix.c)
 * against a straightforward reference computation on random jobs: each
 * job's front by comparing every candidate with every other, its hull
 * and choices, the ring's order, and the calibrated scale by a bisection
 * over the plain margins (jobmix_margins). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "metasched/core/candidates.h"
#include "metasched/core/jobmix.h"
#include "metasched/core/policy.h"
#include "tests/testutil.h"

static const char conf_text[]
    = "[architecture a]\ncores_per_node = 4\n"
      "frequencies_khz = 1000000, 2000000\nnominal_khz = 2000000\n"
      "idle_power_w = 50\n"
      "[cluster c]\nbackend = simulated\n"
      "[partition c/p1]\narchitecture = a\nnodes = 10\n"
      "[partition c/p2]\narchitecture = a\nnodes = 10\n";

static ms_siteconf_t *
load_conf (void)
{
    ms_siteconf_t *conf;
    ms_error_t err;
    ck_assert_msg (
        clusterconf_parse (conf_text, strlen (conf_text), "t", &conf, &err)
            == 0,
        "%s", err.text);
    return conf;
}

/* A random job's candidates: 1 to 60, on two partitions; runtimes and
 * energies drawn from a few values so that ties and duplicates occur,
 * upper bounds up to 1.5 times the runtime (some past the slowdown), now
 * and then a candidate with no energy. */
static void
random_cands (ms_cands_t *cs, uint64_t *rng)
{
    size_t n = 1 + (size_t)(test_uniform (rng) * 60);

    if (cs->cap < n) {
        cs->cap = n;
        cs->c = realloc (cs->c, n * sizeof (*cs->c));
    }
    cs->n = n;
    for (size_t i = 0; i < n; i++) {
        ms_cand_t *c = &cs->c[i];
        memset (c, 0, sizeof (*c));
        c->part = i % 2;
        c->t = 100 + 10 * (int)(test_uniform (rng) * 12);
        c->t_hi = c->t * (1 + 0.5 * test_uniform (rng));
        c->p = 200 + 25 * (int)(test_uniform (rng) * 10);
        c->e = c->e_hi = c->t * c->p;
        if (test_uniform (rng) < 0.02)
            c->e = 0;
    }
}

/* The reference front: every candidate against every other (dominated:
 * another within the slowdown is as lean and as fast and leaner, faster
 * or first), the kept ones by runtime (stable); then the energy-delay and
 * energy-delay^1.5 choices and the lower convex hull, as in
 * doc/simulator.md, "metasched's policy" (the calibration). Returns the
 * hull's vertices, 0 where the job has under two points. */
static int
ref_front (const ms_policy_t *pol, const ms_cands_t *cs, float *he, float *ht,
           float *e1, float *t15)
{
    double fe[256], ft[256], tbest = INFINITY, b1 = INFINITY, b15 = INFINITY;
    int nf = 0, nh = 0;

    for (size_t i = 0; i < cs->n; i++)
        tbest = fmin (tbest, cs->c[i].t);
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *a = &cs->c[i];
        bool dom = false;
        if (!(a->t_hi <= pol->max_slowdown * tbest) || !(a->e > 0)
            || !(a->t > 0))
            continue;
        for (size_t k = 0; k < cs->n; k++) {
            const ms_cand_t *b = &cs->c[k];
            if (k != i && b->t_hi <= pol->max_slowdown * tbest && b->e <= a->e
                && b->t <= a->t && (b->e < a->e || b->t < a->t || k < i))
                dom = true;
        }
        if (!dom) {
            fe[nf] = a->e;
            ft[nf] = a->t;
            nf++;
        }
    }
    /* stable by runtime */
    for (int i = 1; i < nf; i++)
        for (int k = i; k > 0 && ft[k - 1] > ft[k]; k--) {
            double x = fe[k], y = ft[k];
            fe[k] = fe[k - 1];
            ft[k] = ft[k - 1];
            fe[k - 1] = x;
            ft[k - 1] = y;
        }
    if (nf < 2)
        return 0;
    for (int i = 0; i < nf; i++) {
        double l1 = log (fe[i]) + log (ft[i]);
        double l15 = log (fe[i]) + 1.5 * log (ft[i]);
        if (l1 < b1) {
            b1 = l1;
            *e1 = (float)fe[i];
        }
        if (l15 < b15) {
            b15 = l15;
            *t15 = (float)ft[i];
        }
    }
    for (int i = 0; i < nf; i++) {
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
    return nh;
}

/* The reference bisection over the plain margins (the calibration's rule:
 * the log scale where energy's margin stops trailing runtime's, and
 * where they are equal over a range, the range's middle). */
static double
ref_edge (ms_jobmix_t *m, const ms_policy_t *pol, double lo, double hi,
          bool ties_up)
{
    for (int it = 0; it < 24; it++) {
        double mid = (lo + hi) / 2, em, tm;
        jobmix_margins (m, pol, exp (mid), &em, &tm);
        if (ties_up ? em <= tm : em < tm)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

static double
ref_scale (ms_jobmix_t *m, const ms_policy_t *pol)
{
    double a = ref_edge (m, pol, -8, 8, false), em, tm;
    jobmix_margins (m, pol, exp (a), &em, &tm);
    if (em == tm)
        a = (a + ref_edge (m, pol, a, 8, true)) / 2;
    return exp (a);
}

/* Each random job's front is the reference's, vertex for vertex and in
 * its order (fastest first, energy falling); the ring keeps the last
 * MS_MIX_JOBS in the order they came; the calibrated scale is the
 * reference bisection's, to the bit, at every calibration. */
START_TEST (test_jobmix_random)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_jobmix_t m;
    ms_policy_t pol;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    size_t kept = 0, checked = 0, cals = 0;
    /* the first fronts kept, to find again once the ring has wrapped */
    static float first_e[64][MS_MIX_PTS];
    int first_n[64];

    policy_init (&pol, POL_METASCHED);
    jobmix_init (&m);
    /* until the ring has wrapped by 50 jobs */
    for (size_t j = 0; kept < MS_MIX_JOBS + 50; j++) {
        float he[MS_MIX_PTS], ht[MS_MIX_PTS], e1 = 0, t15 = 0;
        float ge[MS_MIX_PTS], gt[MS_MIX_PTS], ge1, gt15;
        int nh;
        random_cands (&cs, &rng);
        nh = ref_front (&pol, &cs, he, ht, &e1, &t15);
        jobmix_add (&m, conf, &pol, &cs, 1 + (int)(j % 7), (double)j);
        if (nh == 0)
            continue; /* nothing to choose: nothing kept */
        kept++;
        ck_assert_uint_eq (m.nring, kept < MS_MIX_JOBS ? kept : MS_MIX_JOBS);
        ck_assert_uint_eq (
            jobmix_front (&m, 0, ge, gt, MS_MIX_PTS, &ge1, &gt15), (size_t)nh);
        ck_assert (ge1 == e1 && gt15 == t15);
        for (int i = 0; i < nh; i++) {
            ck_assert_msg (ge[i] == he[i] && gt[i] == ht[i],
                           "job %zu vertex %d: (%g, %g), want (%g, %g)", j, i,
                           ge[i], gt[i], he[i], ht[i]);
            if (i > 0)
                ck_assert (gt[i] > gt[i - 1] && ge[i] < ge[i - 1]);
        }
        if (kept <= 64) {
            first_n[kept - 1] = nh;
            memcpy (first_e[kept - 1], he, sizeof (he));
        }
        checked++;
        /* calibrate now and then (often at first: each calibration
         * looks near the last one's edge first), the scale is the
         * reference's */
        if (j % 4000 == 3999
            || (j < 8000 && j % 250 == 249 && m.nring >= MS_MIX_MIN)) {
            double want = ref_scale (&m, &pol);
            m.since_cal = 1u << 30; /* due */
            jobmix_apply (&m, conf, &pol);
            ck_assert_msg (m.scale == want, "%zu jobs: scale %.17g, want %.17g",
                           j + 1, m.scale, want);
            cals++;
        }
    }
    ck_assert (checked == kept && cals >= 8);
    /* the ring wrapped: its oldest kept job is the kept - MS_MIX_JOBS'th;
     * the first ones are gone, and back past the ring is nothing */
    {
        float ge[MS_MIX_PTS], gt[MS_MIX_PTS];
        size_t oldest = kept - MS_MIX_JOBS; /* 0-based index of it */
        ck_assert_uint_eq (
            jobmix_front (&m, MS_MIX_JOBS, ge, gt, MS_MIX_PTS, NULL, NULL), 0);
        size_t nh = jobmix_front (&m, MS_MIX_JOBS - 1, ge, gt, MS_MIX_PTS, NULL,
                                  NULL);
        ck_assert (oldest == 50);
        ck_assert_uint_eq (nh, (size_t)first_n[oldest]);
        ck_assert (memcmp (ge, first_e[oldest], nh * sizeof (float)) == 0);
    }
    jobmix_free (&m);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* Jobs that repeat (a few dozen candidate lists, a few widths, as a
 * site's jobs of the same app and size do): the calibration agrees to
 * the bit with the reference before and after the ring has wrapped (the
 * first lists dying out). */
START_TEST (test_jobmix_repeats)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t pool[40] = { { 0 } };
    ms_jobmix_t m;
    ms_policy_t pol;
    uint64_t rng = 777;
    size_t cals = 0;

    policy_init (&pol, POL_METASCHED);
    /* lists with a choice (a front of two points or more): kept */
    for (int k = 0; k < 40; k++) {
        float he[MS_MIX_PTS], ht[MS_MIX_PTS], e1, t15;
        do
            random_cands (&pool[k], &rng);
        while (ref_front (&pol, &pool[k], he, ht, &e1, &t15) == 0);
    }
    jobmix_init (&m);
    for (size_t j = 0; j < 3 * MS_MIX_JOBS; j++) {
        /* the kinds change over the run: the first ones die out */
        size_t k
            = (size_t)(test_uniform (&rng) * 20) + (j * 20) / (3 * MS_MIX_JOBS);
        jobmix_add (&m, conf, &pol, &pool[k],
                    1 + (int)(test_uniform (&rng) * 4), (double)j);
        if (j % 5000 == 4999) {
            double want = ref_scale (&m, &pol);
            m.since_cal = 1u << 30; /* due */
            jobmix_apply (&m, conf, &pol);
            ck_assert_msg (m.scale == want, "%zu jobs: scale %.17g, want %.17g",
                           j + 1, m.scale, want);
            cals++;
        }
    }
    ck_assert_uint_eq (m.nring, MS_MIX_JOBS);
    ck_assert (cals >= 19);
    jobmix_free (&m);
    for (int k = 0; k < 40; k++)
        candidates_free (&pool[k]);
    clusterconf_free (conf);
}
END_TEST

/* Scales of many magnitudes and jobs of many widths: the calibration
 * still agrees to the bit with the reference, on small rings too. */
START_TEST (test_jobmix_random_widths)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_policy_t pol;
    uint64_t rng = 12345;

    policy_init (&pol, POL_METASCHED);
    for (int round = 0; round < 20; round++) {
        ms_jobmix_t m;
        size_t n = 64 + (size_t)(test_uniform (&rng) * 3000);
        jobmix_init (&m);
        for (size_t j = 0; j < n; j++) {
            random_cands (&cs, &rng);
            /* energies spread over six orders of magnitude */
            double f = pow (10, (int)(test_uniform (&rng) * 6));
            for (size_t i = 0; i < cs.n; i++)
                cs.c[i].e *= f;
            jobmix_add (&m, conf, &pol, &cs,
                        1 + (int)(test_uniform (&rng) * 64), (double)j);
        }
        if (m.nring < MS_MIX_MIN) {
            jobmix_free (&m);
            continue;
        }
        double want = ref_scale (&m, &pol);
        m.since_cal = 1u << 30;
        jobmix_apply (&m, conf, &pol);
        ck_assert_msg (m.scale == want, "round %d: scale %.17g, want %.17g",
                       round, m.scale, want);
        jobmix_free (&m);
    }
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

/* With the fronts off (a policy that never calibrates), jobmix_add keeps
 * none and allocates no ring; the width and drain counts are kept. */
START_TEST (test_jobmix_fronts_off)
{
    ms_siteconf_t *conf = load_conf ();
    ms_cands_t cs = { 0 };
    ms_jobmix_t m;
    ms_policy_t pol;
    uint64_t rng = 7;

    policy_init (&pol, POL_BASE);
    jobmix_init (&m);
    jobmix_keep_fronts (&m, false);
    for (int j = 0; j < 1000; j++) {
        random_cands (&cs, &rng);
        jobmix_add (&m, conf, &pol, &cs, 2 + j % 2, j);
    }
    ck_assert_uint_eq (m.nring, 0);
    ck_assert (m.ring == NULL);
    jobmix_apply (&m, conf, &pol);
    ck_assert (pol.ref_nodes == 2.5 && pol.odds_scale == 0);
    /* on again: kept from then on */
    jobmix_keep_fronts (&m, true);
    for (int j = 0; j < 100; j++) {
        random_cands (&cs, &rng);
        jobmix_add (&m, conf, &pol, &cs, 2, j);
    }
    ck_assert (m.nring > 0 && m.ring != NULL);
    jobmix_free (&m);
    candidates_free (&cs);
    clusterconf_free (conf);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("jobmix");
    TCase *tc = tcase_create ("jobmix");

    tcase_set_timeout (tc, 600);
    tcase_add_test (tc, test_jobmix_random);
    tcase_add_test (tc, test_jobmix_random_widths);
    tcase_add_test (tc, test_jobmix_repeats);
    tcase_add_test (tc, test_jobmix_fronts_off);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
