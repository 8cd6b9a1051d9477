/* test_bound.c - the static bound (metasched/sim/bound.h): random tiny
 * workloads against the linear programme solved with GLPK's simplex and
 * against every integral choice enumerated; a dominated candidate, the
 * front's ends, targets out of reach, jobs without candidates. */
#include "config.h"

#include <glpk.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/sim/bound.h"
#include "tests/testutil.h"

#define MAXJ 6
#define MAXC 6

typedef struct {
    size_t njobs, n[MAXJ];
    double t[MAXJ][MAXC], e[MAXJ][MAXC];
} inst_t;

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double
uni (void)
{
    return test_uniform (&rng);
}

static ms_bound_t *
make_bound (const inst_t *in)
{
    ms_bound_t *b = bound_new ();
    ms_cands_t cs = { 0 };
    cs.c = ms_xcalloc (MAXC, sizeof (*cs.c));
    for (size_t j = 0; j < in->njobs; j++) {
        cs.n = in->n[j];
        for (size_t c = 0; c < in->n[j]; c++) {
            memset (&cs.c[c], 0, sizeof (cs.c[c]));
            cs.c[c].t = in->t[j][c];
            cs.c[c].e = in->e[j][c];
        }
        bound_add_job (b, &cs);
    }
    free (cs.c);
    bound_finish (b);
    return b;
}

/* The linear programme with GLPK: minimise the sum of energies (time_obj
 * false) or runtimes (true) with the other sum at most cap, each job's
 * candidates' shares summing to 1. NAN when infeasible. */
static double
lp (const inst_t *in, bool time_obj, double cap)
{
    glp_prob *P = glp_create_prob ();
    glp_smcp parm;
    int ia[1 + MAXJ * MAXC * 2], ja[1 + MAXJ * MAXC * 2], nz = 0, col = 0;
    double ar[1 + MAXJ * MAXC * 2], v = NAN;
    int rows = 0;

    glp_set_obj_dir (P, GLP_MIN);
    for (size_t j = 0; j < in->njobs; j++)
        if (in->n[j])
            rows++;
    glp_add_rows (P, rows + 1);
    for (int r = 1; r <= rows; r++)
        glp_set_row_bnds (P, r, GLP_FX, 1, 1);
    glp_set_row_bnds (P, rows + 1, GLP_UP, 0, cap);
    int r = 0;
    for (size_t j = 0; j < in->njobs; j++) {
        if (!in->n[j])
            continue;
        r++;
        for (size_t c = 0; c < in->n[j]; c++) {
            col = glp_add_cols (P, 1);
            glp_set_col_bnds (P, col, GLP_LO, 0, 0);
            glp_set_obj_coef (P, col, time_obj ? in->t[j][c] : in->e[j][c]);
            nz++;
            ia[nz] = r, ja[nz] = col, ar[nz] = 1;
            nz++;
            ia[nz] = rows + 1, ja[nz] = col;
            ar[nz] = time_obj ? in->e[j][c] : in->t[j][c];
        }
    }
    glp_load_matrix (P, nz, ia, ja, ar);
    glp_init_smcp (&parm);
    parm.msg_lev = GLP_MSG_OFF;
    if (glp_simplex (P, &parm) == 0 && glp_get_status (P) == GLP_OPT)
        v = glp_get_obj_val (P);
    glp_delete_prob (P);
    return v;
}

/* The least energy of one candidate per job with the runtimes' sum at
 * most cap, over every choice; INFINITY when none is that fast. */
static double
brute_energy (const inst_t *in, double cap)
{
    size_t idx[MAXJ] = { 0 };
    double best = INFINITY;
    for (;;) {
        double t = 0, e = 0;
        size_t j;
        for (j = 0; j < in->njobs; j++)
            if (in->n[j]) {
                t += in->t[j][idx[j]];
                e += in->e[j][idx[j]];
            }
        if (t <= cap && e < best)
            best = e;
        for (j = 0; j < in->njobs; j++) {
            if (in->n[j] && ++idx[j] < in->n[j])
                break;
            idx[j] = 0;
        }
        if (j == in->njobs)
            return best;
    }
}

static void
random_inst (inst_t *in)
{
    memset (in, 0, sizeof (*in));
    in->njobs = 1 + (size_t)(uni () * MAXJ);
    for (size_t j = 0; j < in->njobs; j++) {
        /* 0 to MAXC - 1 candidates: 0 is a job that fits nowhere */
        in->n[j] = (size_t)(uni () * MAXC);
        for (size_t c = 0; c < in->n[j]; c++) {
            in->t[j][c] = 10 + uni () * 1000;
            in->e[j][c] = 1e3 + uni () * 1e5;
            if (uni () < 0.1 && c) /* a tie on runtime */
                in->t[j][c] = in->t[j][c - 1];
        }
    }
}

START_TEST (test_against_glpk_and_brute_force)
{
    for (int k = 0; k < 500; k++) {
        inst_t in;
        ms_bound_t *b;
        double tf, ef, tl, el;
        size_t has = 0;

        random_inst (&in);
        b = make_bound (&in);
        for (size_t j = 0; j < in.njobs; j++)
            has += in.n[j] > 0;
        ck_assert_uint_eq (bound_njobs (b), has);
        bound_ends (b, &tf, &ef, &tl, &el);
        if (!has) {
            ck_assert (isnan (bound_least_energy (b, 1e9)));
            bound_free (b);
            continue;
        }
        ck_assert (tf <= tl && ef >= el);
        for (int q = 0; q < 12; q++) {
            /* targets across the front and a little beyond its ends */
            double cap_t = tf + (tl - tf) * (q / 10.0);
            double cap_e = el + (ef - el) * (q / 10.0);
            double got = bound_least_energy (b, cap_t);
            double want = lp (&in, false, cap_t);
            double integral = brute_energy (&in, cap_t);
            ck_assert_msg (fabs (got - want) <= 1e-7 * want,
                           "instance %d, T <= %.9g: bound %.9g, LP %.9g", k,
                           cap_t, got, want);
            ck_assert_msg (got <= integral * (1 + 1e-12),
                           "instance %d: bound %.9g above an integral "
                           "choice %.9g",
                           k, got, integral);
            got = bound_least_time (b, cap_e);
            want = lp (&in, true, cap_e);
            ck_assert_msg (fabs (got - want) <= 1e-7 * want,
                           "instance %d, E <= %.9g: bound %.9g, LP %.9g", k,
                           cap_e, got, want);
        }
        /* out of reach: faster than every job's fastest, leaner than
         * every job's leanest */
        ck_assert (isnan (bound_least_energy (b, tf * 0.99)));
        ck_assert (isnan (bound_least_time (b, el * 0.99)));
        ck_assert (fabs (bound_least_energy (b, tl * 2) - el) <= 1e-9 * el);
        ck_assert (fabs (bound_least_time (b, ef * 2) - tf) <= 1e-9 * tf);
        bound_free (b);
    }
}
END_TEST

/* One job: a candidate slower and hungrier than another never counts; the
 * front runs from the fastest to the leanest, straight between corners. */
START_TEST (test_one_job)
{
    inst_t in;
    ms_bound_t *b;
    double tf, ef, tl, el;

    memset (&in, 0, sizeof (in));
    in.njobs = 1;
    in.n[0] = 4;
    in.t[0][0] = 100, in.e[0][0] = 1000; /* fastest */
    in.t[0][1] = 150, in.e[0][1] = 900;  /* dominated by the hull's chord */
    in.t[0][2] = 200, in.e[0][2] = 600;  /* leanest */
    in.t[0][3] = 300, in.e[0][3] = 700;  /* slower and hungrier than [2] */
    b = make_bound (&in);
    bound_ends (b, &tf, &ef, &tl, &el);
    ck_assert (tf == 100 && ef == 1000 && tl == 200 && el == 600);
    /* halfway along the chord from (100, 1000) to (200, 600) */
    ck_assert (fabs (bound_least_energy (b, 150) - 800) < 1e-9);
    ck_assert (fabs (bound_least_time (b, 800) - 150) < 1e-9);
    ck_assert (bound_least_energy (b, 250) == 600);
    ck_assert (bound_least_time (b, 1200) == 100);
    bound_free (b);
}
END_TEST

/* Before bound_finish, and with no job, the queries say nothing. */
START_TEST (test_unfinished_and_empty)
{
    ms_bound_t *b = bound_new ();
    ms_cands_t cs = { 0 };
    ck_assert (isnan (bound_least_energy (b, 1)));
    bound_add_job (b, &cs);
    bound_finish (b);
    ck_assert_uint_eq (bound_njobs (b), 0);
    ck_assert (isnan (bound_least_time (b, 1)));
    bound_free (b);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("bound");
    TCase *tc = tcase_create ("static bound");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_against_glpk_and_brute_force);
    tcase_add_test (tc, test_one_job);
    tcase_add_test (tc, test_unfinished_and_empty);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
