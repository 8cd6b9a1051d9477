/* test_window.c - the window assignment (window.h): tiny instances solved
 * with GLPK against every assignment enumerated, the greedy choice when
 * capacity is ample (no program), dominated bids, jobs without bids, a
 * zero budget; the direct search against the program alone, ties
 * included. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/core/window.h"
#include "tests/testutil.h"

/* The least objective over every choice of one bid per job. */
static double
brute (const ms_bid_t *bids, size_t nbids, size_t njobs, const double *cap,
       const double *pen, size_t nparts)
{
    size_t pick[8], idx[8], per[8][16], nper[8] = { 0 };
    double best = INFINITY;

    for (size_t b = 0; b < nbids; b++)
        per[bids[b].job][nper[bids[b].job]++] = b;
    memset (idx, 0, sizeof (idx));
    for (;;) {
        size_t j;
        for (j = 0; j < njobs; j++)
            pick[j] = nper[j] ? per[j][idx[j]] : SIZE_MAX;
        double o = window_objective (bids, njobs, pick, cap, pen, nparts);
        if (o < best)
            best = o;
        for (j = 0; j < njobs; j++) {
            if (nper[j] && ++idx[j] < nper[j])
                break;
            idx[j] = 0;
        }
        if (j == njobs)
            break;
    }
    return best;
}

static uint64_t rng = 88172645463325252ULL;
static double
uni (void)
{
    return test_uniform (&rng);
}

START_TEST (test_against_brute_force)
{
    ms_window_opts_t o;
    window_opts_init (&o);
    o.time_budget_s = 5; /* tiny: GLPK proves optimality at once */
    for (int inst = 0; inst < 300; inst++) {
        size_t njobs = 1 + (size_t)(uni () * 5), nparts = 1 + (size_t)(uni () * 3);
        ms_bid_t bids[64];
        size_t nbids = 0, pick[8];
        double cap[4], pen[4];
        ms_window_stats_t st;

        for (size_t p = 0; p < nparts; p++) {
            cap[p] = uni () * 200;
            pen[p] = uni () < 0.3 ? 0 : uni () * 0.05;
        }
        for (size_t j = 0; j < njobs; j++) {
            size_t nb = (size_t)(uni () * 4); /* 0..3 bids; 0: no bid */
            for (size_t k = 0; k < nb; k++) {
                ms_bid_t *b = &bids[nbids++];
                b->job = j;
                b->part = (size_t)(uni () * nparts);
                b->cand = k;
                b->ns = 10 + uni () * 100;
                b->cost = 1 + uni ();
            }
        }
        window_solve (bids, nbids, njobs, cap, pen, nparts, &o, pick, &st);
        double want = brute (bids, nbids, njobs, cap, pen, nparts);
        double got = window_objective (bids, njobs, pick, cap, pen, nparts);
        ck_assert_msg (fabs (got - want) <= 1e-6 * (1 + fabs (want)),
                       "instance %d: %zu jobs, %zu partitions: %.9g, brute "
                       "force %.9g",
                       inst, njobs, nparts, got, want);
        ck_assert_msg (fabs (st.cost - got) <= 1e-9 * (1 + fabs (got)),
                       "instance %d: stats' cost", inst);
        for (size_t j = 0; j < njobs; j++) {
            bool has = false;
            for (size_t b = 0; b < nbids; b++)
                has = has || bids[b].job == j;
            if (!has)
                ck_assert_uint_eq (pick[j], SIZE_MAX);
            else {
                ck_assert_uint_lt (pick[j], nbids);
                ck_assert_uint_eq (bids[pick[j]].job, j);
            }
        }
    }
}
END_TEST

/* The direct search of small windows (window_search) takes what the
 * program alone takes: the same bid for every job, the same flags. Half
 * the instances draw costs and node-seconds from a coarse grid, so that
 * ties (which the search leaves to GLPK) are common. */
START_TEST (test_search_matches_program)
{
    ms_window_opts_t o, po;
    window_opts_init (&o);
    o.time_budget_s = 5;
    po = o;
    po.program_only = true;
    for (int inst = 0; inst < 400; inst++) {
        size_t njobs = 1 + (size_t)(uni () * 7),
               nparts = 1 + (size_t)(uni () * 3);
        bool grid = inst % 2;
        ms_bid_t bids[64];
        size_t nbids = 0, pick[8], ppick[8];
        double cap[4], pen[4];
        ms_window_stats_t st, pst;

        for (size_t p = 0; p < nparts; p++) {
            cap[p] = uni () * 40 * (double)njobs;
            pen[p] = uni () < 0.2 ? 0 : uni () * 0.05;
        }
        for (size_t j = 0; j < njobs; j++) {
            size_t nb = (size_t)(uni () * 7); /* 0..6 bids */
            for (size_t k = 0; k < nb; k++) {
                ms_bid_t *b = &bids[nbids++];
                b->job = j;
                b->part = (size_t)(uni () * nparts);
                b->cand = k;
                b->ns
                    = grid ? 10 * (1 + floor (uni () * 8)) : 10 + uni () * 100;
                b->cost = grid ? 1 + 0.25 * floor (uni () * 4) : 1 + uni ();
            }
        }
        window_solve (bids, nbids, njobs, cap, pen, nparts, &o, pick, &st);
        window_solve (bids, nbids, njobs, cap, pen, nparts, &po, ppick, &pst);
        for (size_t j = 0; j < njobs; j++)
            ck_assert_msg (pick[j] == ppick[j],
                           "instance %d, job %zu: bid %zu, the program's %zu",
                           inst, j, pick[j], ppick[j]);
        ck_assert (st.optimal == pst.optimal && st.fallback == pst.fallback);
        ck_assert_uint_eq (st.nvars, pst.nvars);
        ck_assert (st.cost == pst.cost);
    }
}
END_TEST

/* Two jobs, one partition with room for one of them: the one that loses
 * less elsewhere stays; the greedy choice would send both. */
START_TEST (test_capacity_moves_the_cheaper_loser)
{
    ms_bid_t bids[] = {
        { 0, 0, 0, 100, 1.0 }, { 0, 1, 1, 100, 1.1 }, /* job 0 loses 10% */
        { 1, 0, 0, 100, 1.0 }, { 1, 1, 1, 100, 1.5 }, /* job 1 loses 50% */
    };
    double cap[2] = { 100, 1000 }, pen[2] = { 1, 1 };
    size_t pick[2], g[2];
    ms_window_stats_t st;

    window_greedy (bids, 4, 2, g);
    ck_assert_uint_eq (bids[g[0]].part, 0);
    ck_assert_uint_eq (bids[g[1]].part, 0);
    window_solve (bids, 4, 2, cap, pen, 2, NULL, pick, &st);
    ck_assert_uint_eq (bids[pick[0]].part, 1);
    ck_assert_uint_eq (bids[pick[1]].part, 0);
    ck_assert (st.optimal && !st.fallback);
    ck_assert (fabs (st.cost - 2.1) < 1e-9);
    /* With ample room every job gets its cheapest bid. */
    cap[0] = 1000;
    window_solve (bids, 4, 2, cap, pen, 2, NULL, pick, &st);
    ck_assert_uint_eq (pick[0], g[0]);
    ck_assert_uint_eq (pick[1], g[1]);
}
END_TEST

/* A bid dominated on cost and node-seconds on its partition is pruned;
 * a job without bids stays unplaced; an empty window is no error. */
START_TEST (test_pruning_and_edges)
{
    ms_bid_t bids[] = {
        { 0, 0, 0, 100, 1.0 },
        { 0, 0, 1, 120, 1.2 }, /* dominated by the first */
        { 0, 0, 2, 80, 1.3 },
        { 2, 1, 0, 10, 1.0 },
    };
    /* partition 0 a little short of the cheapest bid's node-seconds, at a
     * price that still keeps it: the program is solved */
    double cap[2] = { 90, 1000 }, pen[2] = { 0.001, 1 };
    size_t pick[3];
    ms_window_stats_t st;

    window_solve (bids, 4, 3, cap, pen, 2, NULL, pick, &st);
    ck_assert_uint_eq (st.nvars, 3);
    ck_assert (st.optimal);
    ck_assert_uint_eq (pick[0], 0);
    ck_assert_uint_eq (pick[1], SIZE_MAX);
    ck_assert_uint_eq (pick[2], 3);
    ck_assert_double_eq_tol (st.cost, 1.0 + 0.001 * 10 + 1.0, 1e-9);
    /* with room for every cheapest bid, that choice is the optimum and
     * no program is built */
    cap[0] = 1000;
    window_solve (bids, 4, 3, cap, pen, 2, NULL, pick, &st);
    ck_assert_uint_eq (st.nvars, 0);
    ck_assert (st.optimal && !st.fallback);
    ck_assert_uint_eq (pick[0], 0);
    ck_assert_uint_eq (pick[1], SIZE_MAX);
    ck_assert_uint_eq (pick[2], 3);
    ck_assert_double_eq_tol (st.cost, 2.0, 1e-9);
    window_solve (bids, 0, 0, cap, pen, 2, NULL, pick, &st);
    ck_assert (st.cost == 0);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("window");
    TCase *tc = tcase_create ("assignment");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_against_brute_force);
    tcase_add_test (tc, test_search_matches_program);
    tcase_add_test (tc, test_capacity_moves_the_cheaper_loser);
    tcase_add_test (tc, test_pruning_and_edges);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
