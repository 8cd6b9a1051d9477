/* window.c - the window assignment with GLPK (see window.h). */
#include "config.h"

#include <glpk.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/util.h"
#include "metasched/core/window.h"

void
window_opts_init (ms_window_opts_t *o)
{
    memset (o, 0, sizeof (*o));
    o->time_budget_s = 0.5;
}

/* The load per partition of window_objective and within_caps: on the
 * stack for a site's few partitions (called a few times a cycle), else
 * allocated; load_free frees what load_new allocated. */
#define WINDOW_LOAD_STACK 64

static double *
load_new (double *buf, size_t nparts)
{
    if (nparts + 1 > WINDOW_LOAD_STACK)
        return ms_xcalloc (nparts + 1, sizeof (double));
    memset (buf, 0, (nparts + 1) * sizeof (double));
    return buf;
}

static void
load_free (double *load, const double *buf)
{
    if (load != buf)
        free (load);
}

double
window_objective (const ms_bid_t *bids, size_t njobs, const size_t *pick,
                  const double *cap, const double *pen, size_t nparts)
{
    double cost = 0, buf[WINDOW_LOAD_STACK];
    double *load = load_new (buf, nparts);
    for (size_t j = 0; j < njobs; j++)
        if (pick[j] != SIZE_MAX) {
            cost += bids[pick[j]].cost;
            load[bids[pick[j]].part] += bids[pick[j]].ns;
        }
    for (size_t p = 0; p < nparts; p++)
        if (load[p] > cap[p])
            cost += pen[p] * (load[p] - cap[p]);
    load_free (load, buf);
    return cost;
}

/* Whether pick puts no more node-seconds on any partition than its cap. */
static bool
within_caps (const ms_bid_t *bids, size_t njobs, const size_t *pick,
             const double *cap, size_t nparts)
{
    double buf[WINDOW_LOAD_STACK], *load = load_new (buf, nparts);
    bool ok = true;

    for (size_t j = 0; j < njobs; j++)
        if (pick[j] != SIZE_MAX)
            load[bids[pick[j]].part] += bids[pick[j]].ns;
    for (size_t p = 0; p < nparts && ok; p++)
        ok = !(load[p] > cap[p]);
    load_free (load, buf);
    return ok;
}

void
window_greedy (const ms_bid_t *bids, size_t nbids, size_t njobs, size_t *pick)
{
    for (size_t j = 0; j < njobs; j++)
        pick[j] = SIZE_MAX;
    for (size_t b = 0; b < nbids; b++) {
        size_t j = bids[b].job;
        if (j < njobs
            && (pick[j] == SIZE_MAX || bids[b].cost < bids[pick[j]].cost))
            pick[j] = b;
    }
}

/* A bid is dominated when another bid of the same job on the same
 * partition costs no more and takes no more node-seconds, one of them
 * strictly (or both equal and the other comes first). */
static bool
dominated (const ms_bid_t *bids, const size_t *same, size_t nsame, size_t b)
{
    for (size_t k = 0; k < nsame; k++) {
        const ms_bid_t *o = &bids[same[k]];
        if (same[k] == b || o->part != bids[b].part)
            continue;
        if (o->cost <= bids[b].cost && o->ns <= bids[b].ns
            && (o->cost < bids[b].cost || o->ns < bids[b].ns || same[k] < b))
            return true;
    }
    return false;
}

static int
silent (void *info, const char *s)
{
    (void)info;
    (void)s;
    return 1; /* GLPK prints nothing */
}

/* Whether bid x comes before bid y by cost, then node-seconds (equals:
 * neither). */
static bool
bid_before (const ms_bid_t *x, const ms_bid_t *y)
{
    return x->cost < y->cost || (x->cost == y->cost && x->ns < y->ns);
}

/* The bids g[0] .. g[n - 1] of one job and partition, in index order,
 * into drop: in order of cost, node-seconds and index (a stable
 * insertion sort), a bid is dominated exactly when one before it takes no
 * more node-seconds (dominated's test, with one sort and one pass for
 * every pair of bids). A NaN has no order: such a group takes
 * dominated's test. */
static void
drop_group (const ms_bid_t *bids, size_t *g, size_t n, bool *drop)
{
    double least = INFINITY;

    for (size_t m = 0; m < n; m++)
        if (isnan (bids[g[m]].cost) || isnan (bids[g[m]].ns)) {
            for (size_t k = 0; k < n; k++)
                drop[g[k]] = dominated (bids, g, n, g[k]);
            return;
        }
    for (size_t m = 1; m < n; m++) {
        size_t x = g[m], k = m;
        for (; k > 0 && bid_before (&bids[x], &bids[g[k - 1]]); k--)
            g[k] = g[k - 1];
        g[k] = x;
    }
    for (size_t m = 0; m < n; m++) {
        drop[g[m]] = m > 0 && least <= bids[g[m]].ns;
        if (bids[g[m]].ns < least)
            least = bids[g[m]].ns;
    }
}

/* Job j's bids (order[0] .. order[n - 1], in index order) with the
 * dominated ones marked in drop. A bid is weighed against the bids of its
 * partition alone (dominated's test is false for the others): grp gets
 * the job's bids by partition, a stable insertion sort that is one pass
 * for bids that come partition by partition, as candidates do. */
static void
drop_dominated (const ms_bid_t *bids, const size_t *order, size_t n,
                size_t *grp, bool *drop)
{
    for (size_t m = 0; m < n; m++) {
        size_t k = m;
        for (; k > 0 && bids[grp[k - 1]].part > bids[order[m]].part; k--)
            grp[k] = grp[k - 1];
        grp[k] = order[m];
    }
    for (size_t g0 = 0, g1; g0 < n; g0 = g1) {
        for (g1 = g0 + 1; g1 < n && bids[grp[g1]].part == bids[grp[g0]].part;
             g1++)
            ;
        drop_group (bids, grp + g0, g1 - g0, drop);
    }
}

/* The scratch of kept_bids: start (njobs + 2), order and grp (nbids + 1
 * each), drop (nbids + 1), carved from one block by kept_bids_mem. */
static size_t
kept_bids_mem (size_t nbids, size_t njobs)
{
    return (njobs + 2 + 2 * (nbids + 1)) * sizeof (size_t)
           + (nbids + 1) * sizeof (bool);
}

/* The bids in job order with the dominated ones left out (bids of jobs
 * past the window dropped): a counting sort of the bids by job. Fills
 * keep (nbids entries) with the kept bids' indices and returns their
 * count; job j's are keep[kstart[j]] .. keep[kstart[j + 1] - 1] (kstart:
 * njobs + 1 entries). mem: kept_bids_mem bytes of scratch. */
static size_t
kept_bids (const ms_bid_t *bids, size_t nbids, size_t njobs, size_t *kstart,
           size_t *keep, void *mem)
{
    size_t *start = mem, *order = start + njobs + 2, *grp = order + nbids + 1;
    bool *drop = (bool *)(grp + nbids + 1);
    size_t nkeep = 0;

    memset (start, 0, (njobs + 2) * sizeof (*start));
    for (size_t b = 0; b < nbids; b++)
        if (bids[b].job < njobs)
            start[bids[b].job + 2]++;
    for (size_t j = 0; j < njobs; j++)
        start[j + 2] += start[j + 1];
    for (size_t b = 0; b < nbids; b++)
        if (bids[b].job < njobs)
            order[start[bids[b].job + 1]++] = b;
    /* start[j] .. start[j + 1] now hold job j's bids. */
    for (size_t j = 0; j < njobs; j++) {
        kstart[j] = nkeep;
        drop_dominated (bids, order + start[j], start[j + 1] - start[j], grp,
                        drop);
        for (size_t m = start[j]; m < start[j + 1]; m++)
            if (!drop[order[m]])
                keep[nkeep++] = order[m];
    }
    kstart[njobs] = nkeep;
    return nkeep;
}

/* The integer program. Rows: one per job (= 1), one per partition (<=
 * cap). Columns: the kept bids (col_bid), then one overflow column per
 * partition. */
static glp_prob *
window_program (const ms_bid_t *bids, const size_t *col_bid, size_t nkeep,
                size_t njobs, const size_t *pick, const double *cap,
                const double *pen, size_t nparts)
{
    glp_prob *lp = glp_create_prob ();
    int *ia, *ja;
    double *ar;
    size_t nnz = 0;

    glp_set_obj_dir (lp, GLP_MIN);
    glp_add_rows (lp, (int)(njobs + nparts));
    for (size_t j = 0; j < njobs; j++)
        glp_set_row_bnds (lp, (int)j + 1, pick[j] == SIZE_MAX ? GLP_FR : GLP_FX,
                          1, 1);
    for (size_t p = 0; p < nparts; p++)
        glp_set_row_bnds (lp, (int)(njobs + p) + 1, GLP_UP, 0,
                          cap[p] > 0 ? cap[p] : 0);
    glp_add_cols (lp, (int)(nkeep + nparts));
    ia = ms_xcalloc (2 * nkeep + nparts + 1, sizeof (int));
    ja = ms_xcalloc (2 * nkeep + nparts + 1, sizeof (int));
    ar = ms_xcalloc (2 * nkeep + nparts + 1, sizeof (double));
    for (size_t c = 0; c < nkeep; c++) {
        const ms_bid_t *b = &bids[col_bid[c]];
        int col = (int)c + 1;
        glp_set_col_kind (lp, col, GLP_BV);
        glp_set_obj_coef (lp, col, b->cost);
        nnz++;
        ia[nnz] = (int)b->job + 1;
        ja[nnz] = col;
        ar[nnz] = 1;
        if (b->part < nparts) {
            nnz++;
            ia[nnz] = (int)(njobs + b->part) + 1;
            ja[nnz] = col;
            ar[nnz] = b->ns;
        }
    }
    for (size_t p = 0; p < nparts; p++) {
        int col = (int)(nkeep + p) + 1;
        glp_set_col_bnds (lp, col, GLP_LO, 0, 0);
        glp_set_obj_coef (lp, col, pen[p]);
        nnz++;
        ia[nnz] = (int)(njobs + p) + 1;
        ja[nnz] = col;
        ar[nnz] = -1;
    }
    glp_load_matrix (lp, (int)nnz, ia, ja, ar);
    free (ia);
    free (ja);
    free (ar);
    return lp;
}

/* cand (a bid per job, SIZE_MAX for none) into pick when it places every
 * job the greedy choice placed and costs no more than that choice; else
 * st->fallback. Returns whether every such job is placed. */
static bool
window_accept (const ms_bid_t *bids, size_t njobs, const size_t *cand,
               const double *cap, const double *pen, size_t nparts,
               size_t *pick, ms_window_stats_t *st)
{
    bool ok = true;

    for (size_t j = 0; j < njobs; j++)
        if (pick[j] != SIZE_MAX && cand[j] == SIZE_MAX)
            ok = false;
    /* Taken only when no worse than the greedy choice. */
    if (ok
        && window_objective (bids, njobs, cand, cap, pen, nparts)
               <= window_objective (bids, njobs, pick, cap, pen, nparts))
        memcpy (pick, cand, njobs * sizeof (size_t));
    else
        st->fallback = true;
    return ok;
}

/* The solver's assignment into pick when it has one for every job the
 * greedy choice placed and costs no more (window_accept); else
 * st->fallback. */
static void
window_take (glp_prob *lp, int rc, const ms_bid_t *bids, const size_t *col_bid,
             size_t nkeep, size_t njobs, const double *cap, const double *pen,
             size_t nparts, size_t *pick, ms_window_stats_t *st)
{
    int s = glp_mip_status (lp);
    if ((rc == 0 || rc == GLP_ETMLIM) && (s == GLP_OPT || s == GLP_FEAS)) {
        size_t *cand = ms_xcalloc (njobs + 1, sizeof (size_t));
        bool ok;
        for (size_t j = 0; j < njobs; j++)
            cand[j] = SIZE_MAX;
        for (size_t c = 0; c < nkeep; c++)
            if (glp_mip_col_val (lp, (int)c + 1) > 0.5)
                cand[bids[col_bid[c]].job] = col_bid[c];
        ok = window_accept (bids, njobs, cand, cap, pen, nparts, pick, st);
        st->optimal = ok && s == GLP_OPT && rc == 0;
        free (cand);
    } else
        st->fallback = true;
}

/* The direct search (window_search): depth first over each job's kept
 * bids, the partitions' loads of the jobs above carried down (restored
 * from a saved value on the way up). Jobs are taken from the one with the
 * largest bid down, each job's bids from the cheapest with the partitions
 * priced linearly up: a good choice comes early and prunes the most. A
 * leaf's cost and loads are summed in that order, so its objective may
 * differ from window_objective's by rounding, far below window_tie; the
 * choice found is weighed by window_objective (window_accept).
 *
 * A node is pruned by a lower bound of every choice below it. A
 * partition's penalty pen_p max(0, load_p - cap_p) is at least 0 beyond
 * the overflow of the loads so far, and at least pen_p (load_p - cap_p),
 * linear in the load; for a set c of partitions priced linearly the jobs
 * below add at least each one's least cost plus pen_p ns on a partition
 * of c (rest), and the jobs above the overflow of their loads less the
 * room left on the partitions of c. The bound is the best over every set
 * c (a Lagrangian bound of the program at multipliers 0 or pen_p). */
typedef struct {
    const ms_bid_t *bids;
    /* the kept bids in search order: depth d's (job djob[d]) are
     * order[dstart[d]] .. order[dstart[d + 1] - 1] */
    size_t *order, *dstart, *djob;
    size_t njobs, nparts;
    const double *cap, *pen;
    double *load; /* nparts: the loads of the jobs above */
    size_t nsets; /* sets of partitions priced linearly: 2^nparts, or 1 */
    /* rest[c * (njobs + 1) + d]: the least the jobs from depth d on add
     * with the partitions of c priced linearly */
    double *rest;
    size_t *cur, *best; /* njobs: the choice on the way, the best */
    double bestv;       /* its objective */
    bool near;          /* another choice within window_tie of the best */
    size_t nodes;       /* bids tried, at most WINDOW_SEARCH_NODES */
} window_search_t;

/* Past this many bids tried the search gives the window to GLPK. */
#define WINDOW_SEARCH_NODES 4096
/* The bytes of the search's arrays kept on its stack (a window of a few
 * jobs on a site of a few partitions needs about 1 KB). */
#define WINDOW_SEARCH_STACK 4096
/* The most partitions whose every set bounds the search (2^4 sets). */
#define WINDOW_SEARCH_SETS_PARTS 4

/* How close two objectives are taken as a tie the search leaves to GLPK:
 * ten times GLPK's objective tolerance (tol_obj, 1e-7 relative), so that
 * a choice better than every other by more is the one GLPK finds. */
static double
window_tie (double v)
{
    return 1e-6 * (1 + fabs (v));
}

/* The overflow penalty of the loads so far (a lower bound of any choice
 * below: loads only grow and prices are not negative). */
static double
search_overflow (const window_search_t *s)
{
    double o = 0;
    for (size_t p = 0; p < s->nparts; p++)
        if (s->load[p] > s->cap[p])
            o += s->pen[p] * (s->load[p] - s->cap[p]);
    return o;
}

/* The lower bound of every choice below depth j with the jobs above at
 * cost (see window_search_t). */
static double
search_bound (const window_search_t *s, size_t j, double cost)
{
    double room[1 << WINDOW_SEARCH_SETS_PARTS], base, lb;

    base = cost + search_overflow (s);
    lb = base + s->rest[j];
    room[0] = 0;
    for (size_t c = 1; c < s->nsets; c++) {
        /* c's room: c less its lowest partition's, plus that one's */
        size_t p = 0;
        while (!(c >> p & 1))
            p++;
        room[c]
            = room[c & (c - 1)]
              + (s->load[p] < s->cap[p] ? s->pen[p] * (s->load[p] - s->cap[p])
                                        : 0);
        if (base + room[c] + s->rest[c * (s->njobs + 1) + j] > lb)
            lb = base + room[c] + s->rest[c * (s->njobs + 1) + j];
    }
    return lb;
}

/* rest of the set c (see window_search_t). */
static void
search_rest (window_search_t *s, size_t c)
{
    double *rest = s->rest + c * (s->njobs + 1);

    rest[s->njobs] = 0;
    for (size_t d = s->njobs; d-- > 0;) {
        double least = 0;
        for (size_t m = s->dstart[d]; m < s->dstart[d + 1]; m++) {
            const ms_bid_t *b = &s->bids[s->order[m]];
            double v = b->cost;
            if (b->part < s->nparts && (c >> b->part & 1))
                v += s->pen[b->part] * b->ns;
            if (m == s->dstart[d] || v < least)
                least = v;
        }
        rest[d] = rest[d + 1] + least;
    }
}

/* A bid's place in its job's order: its cost with the partitions priced
 * linearly. */
static double
search_key (const window_search_t *s, size_t b)
{
    const ms_bid_t *o = &s->bids[b];
    return o->cost + (o->part < s->nparts ? s->pen[o->part] * o->ns : 0);
}

/* The search's order (djob, dstart, order) of the kept bids (kept_bids'
 * keep and kstart): jobs by their largest bid's node-seconds, most
 * first, each job's bids by search_key, least first (insertion sorts:
 * a job's bids are few; equals keep their order). */
static void
search_order (window_search_t *s, const size_t *keep, const size_t *kstart)
{
    double *big = s->rest; /* scratch: filled by search_rest after */
    size_t n = 0;

    for (size_t j = 0; j < s->njobs; j++) {
        size_t d = j;
        big[j] = 0;
        for (size_t m = kstart[j]; m < kstart[j + 1]; m++)
            if (s->bids[keep[m]].ns > big[j])
                big[j] = s->bids[keep[m]].ns;
        for (; d > 0 && big[s->djob[d - 1]] < big[j]; d--)
            s->djob[d] = s->djob[d - 1];
        s->djob[d] = j;
    }
    for (size_t d = 0; d < s->njobs; d++) {
        size_t j = s->djob[d];
        s->dstart[d] = n;
        for (size_t m = kstart[j]; m < kstart[j + 1]; m++) {
            size_t b = keep[m], k = n++;
            double key = search_key (s, b);
            for (; k > s->dstart[d] && search_key (s, s->order[k - 1]) > key;
                 k--)
                s->order[k] = s->order[k - 1];
            s->order[k] = b;
        }
    }
    s->dstart[s->njobs] = n;
}

static void
search_leaf (window_search_t *s, double cost)
{
    double v = cost + search_overflow (s);

    if (v < s->bestv) {
        s->near = s->bestv - v <= window_tie (v);
        s->bestv = v;
        memcpy (s->best, s->cur, s->njobs * sizeof (size_t));
    } else if (v - s->bestv <= window_tie (s->bestv))
        s->near = true;
}

/* The bids of the job at depth d below a choice of the jobs above it
 * costing cost. */
static void
search_job (window_search_t *s, size_t d, double cost)
{
    while (d < s->njobs && s->dstart[d] == s->dstart[d + 1])
        d++; /* no bid: unplaced */
    if (d == s->njobs) {
        search_leaf (s, cost);
        return;
    }
    if (search_bound (s, d, cost) > s->bestv + window_tie (s->bestv))
        return; /* neither better nor near the best */
    for (size_t m = s->dstart[d]; m < s->dstart[d + 1]; m++) {
        const ms_bid_t *b = &s->bids[s->order[m]];
        double saved = 0;

        if (++s->nodes > WINDOW_SEARCH_NODES)
            return;
        if (b->part < s->nparts) {
            saved = s->load[b->part];
            s->load[b->part] += b->ns;
        }
        s->cur[s->djob[d]] = s->order[m];
        search_job (s, d + 1, cost + b->cost);
        if (b->part < s->nparts)
            s->load[b->part] = saved;
    }
}

/* Whether the search applies: what it assumes of the program (loads
 * only grow, prices and capacities as GLPK's rows read them). */
static bool
search_applies (const ms_bid_t *bids, const size_t *keep, size_t nkeep,
                const double *cap, const double *pen, size_t nparts)
{
    for (size_t p = 0; p < nparts; p++)
        if (!(isfinite (cap[p]) && cap[p] >= 0 && isfinite (pen[p])
              && pen[p] >= 0))
            return false;
    for (size_t m = 0; m < nkeep; m++)
        if (!(isfinite (bids[keep[m]].cost) && isfinite (bids[keep[m]].ns)
              && bids[keep[m]].ns >= 0))
            return false;
    return true;
}

/* A small window's optimum without the solver: every choice of one kept
 * bid per job searched, pruned by a bound (search_bound). Fills cand and
 * returns true when one choice beats every other by more than a tie
 * (window_tie): the program's optimum is then that choice, and GLPK
 * would return it. Returns false (GLPK decides) on a near tie, past
 * WINDOW_SEARCH_NODES bids tried, or where search_applies does not. */
static bool
window_search (const ms_bid_t *bids, const size_t *keep, const size_t *kstart,
               size_t nkeep, size_t njobs, const double *cap, const double *pen,
               size_t nparts, size_t *cand)
{
    window_search_t s = { .bids = bids,
                          .njobs = njobs,
                          .nparts = nparts,
                          .cap = cap,
                          .pen = pen,
                          .bestv = INFINITY,
                          .best = cand };
    double lbuf[WINDOW_LOAD_STACK];
    double stack[WINDOW_SEARCH_STACK / sizeof (double)];
    void *block = NULL; /* to free: NULL when on the stack */
    size_t *idx, placed = 0, nmem;
    bool found;

    /* the first choice alone tries a bid of every job with one: past
     * WINDOW_SEARCH_NODES such jobs the search could not end */
    for (size_t j = 0; j < njobs; j++)
        placed += kstart[j + 1] > kstart[j];
    if (placed > WINDOW_SEARCH_NODES
        || !search_applies (bids, keep, nkeep, cap, pen, nparts))
        return false;
    s.load = load_new (lbuf, nparts);
    s.nsets = nparts <= WINDOW_SEARCH_SETS_PARTS ? (size_t)1 << nparts : 1;
    /* rest and the indices in one block, on the stack when it fits */
    nmem = s.nsets * (njobs + 1) * sizeof (double)
           + (3 * (njobs + 1) + nkeep) * sizeof (size_t);
    s.rest = nmem <= sizeof (stack) ? stack : (block = ms_xmalloc (nmem));
    idx = (size_t *)(s.rest + s.nsets * (njobs + 1));
    s.cur = idx;
    s.dstart = idx + njobs + 1;
    s.djob = idx + 2 * (njobs + 1);
    s.order = idx + 3 * (njobs + 1);
    for (size_t j = 0; j < njobs; j++)
        s.cur[j] = cand[j] = SIZE_MAX;
    search_order (&s, keep, kstart);
    for (size_t c = 0; c < s.nsets; c++)
        search_rest (&s, c);
    search_job (&s, 0, 0);
    found = s.nodes <= WINDOW_SEARCH_NODES && !s.near && isfinite (s.bestv);
    load_free (s.load, lbuf);
    free (block);
    return found;
}

/* The program solved by GLPK within the budget and its answer taken
 * (window_take). */
static void
window_glpk (const ms_bid_t *bids, const size_t *keep, size_t nkeep,
             size_t njobs, const double *cap, const double *pen, size_t nparts,
             const ms_window_opts_t *opts, size_t *pick, ms_window_stats_t *st)
{
    glp_prob *lp
        = window_program (bids, keep, nkeep, njobs, pick, cap, pen, nparts);
    glp_iocp parm;
    int rc;

    glp_term_hook (silent, NULL);
    glp_init_iocp (&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    parm.tm_lim = (int)(opts->time_budget_s * 1000);
    if (parm.tm_lim < 1)
        parm.tm_lim = 1;
    rc = glp_intopt (lp, &parm);
    window_take (lp, rc, bids, keep, nkeep, njobs, cap, pen, nparts, pick, st);
    glp_term_hook (NULL, NULL);
    glp_delete_prob (lp);
}

/* The bytes of window_solve's arrays kept on its stack: most windows
 * that reach a search have a few jobs and tens of bids (under 2 KB). */
#define WINDOW_SOLVE_STACK 4096

void
window_solve (const ms_bid_t *bids, size_t nbids, size_t njobs,
              const double *cap, const double *pen, size_t nparts,
              const ms_window_opts_t *opts, size_t *pick, ms_window_stats_t *st)
{
    ms_window_opts_t defo;
    size_t *keep, *kstart, *cand, nkeep, nmem;
    size_t stack[WINDOW_SOLVE_STACK / sizeof (size_t)];
    void *block = NULL; /* to free: NULL when on the stack */
    double t0;
    bool any_job = false;

    memset (st, 0, sizeof (*st));
    if (!opts) {
        window_opts_init (&defo);
        opts = &defo;
    }
    window_greedy (bids, nbids, njobs, pick);
    for (size_t j = 0; j < njobs; j++)
        if (pick[j] != SIZE_MAX)
            any_job = true;
    if (!any_job || !nparts) {
        st->optimal = true;
        st->cost = 0;
        return;
    }
    /* Every job at its cheapest bid is a lower bound of the objective;
     * when that choice overfills no partition it pays no penalty and is
     * the optimum: no program to solve (most windows of a lightly loaded
     * site). Nothing is solved then and the clock is not read (solve_s
     * 0): a simulated trace has such a window every cycle or so. */
    if (within_caps (bids, njobs, pick, cap, nparts)) {
        st->optimal = true;
        st->cost = window_objective (bids, njobs, pick, cap, pen, nparts);
        return;
    }

    t0 = ms_mono_s ();
    /* one block for the solve's arrays, on the stack when it fits */
    nmem = (2 * (njobs + 1) + nbids + 1) * sizeof (size_t)
           + kept_bids_mem (nbids, njobs);
    kstart = nmem <= sizeof (stack) ? stack : (block = ms_xmalloc (nmem));
    cand = kstart + njobs + 1;
    keep = cand + njobs + 1;
    nkeep = kept_bids (bids, nbids, njobs, kstart, keep, keep + nbids + 1);
    st->nvars = nkeep;
    /* A small window's optimum by search when it is clear of ties (the
     * program's answer), else the program. */
    if (!opts->program_only
        && window_search (bids, keep, kstart, nkeep, njobs, cap, pen, nparts,
                          cand)) {
        st->optimal
            = window_accept (bids, njobs, cand, cap, pen, nparts, pick, st);
    } else {
        window_glpk (bids, keep, nkeep, njobs, cap, pen, nparts, opts, pick,
                     st);
    }
    free (block);
    st->cost = window_objective (bids, njobs, pick, cap, pen, nparts);
    st->solve_s = ms_mono_s () - t0;
}
