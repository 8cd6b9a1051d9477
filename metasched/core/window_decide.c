/* window_decide.c - metasched_window's decision for a cycle's jobs:
 * metasched's cost of each bid and the entries from the solved window
 * (see policy.h, policy_decide_window; the solver is window.c). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/choice.h"
#include "metasched/core/policy.h"
#include "metasched/core/rank.h"
#include "metasched/core/window.h"
#include "metasched/common/util.h"

/* The scratch of window_job_bids, sized once a window for its largest job
 * (ok and fs: the most candidates plus one; r and rk: a partition each). */
typedef struct {
    bool *ok;
    double *fs;
    ms_ranked_t *r;
    size_t *rk; /* rk[p]: the entry of r ranking partition p, or SIZE_MAX */
} window_scratch_t;

/* Job k's costs and bids: metasched's cost of each admissible candidate
 * (INFINITY for the others), built so that the cheapest is metasched's
 * own choice: the rank key of its partition at metasched's frequency
 * there (weighted energy and predicted response against the job's best),
 * plus the candidate's frequency score over the best one's on that
 * partition. A bid for each candidate of finite cost follows the nbids
 * already in bids; cheap (nparts entries) gets each partition's cheapest
 * candidate, the first of equals (SIZE_MAX for none). *wtminp gets the
 * job's best predicted response, *key_sp what a unit of cost is worth in
 * seconds of it (rank_partitions). Returns the bids' count. One pass over
 * the candidates does both: a job has tens of them, a few admissible. */
static size_t
window_job_bids (const ms_policy_t *pol, const ms_siteconf_t *conf,
                 const ms_cands_t *cs, const ms_view_t *view,
                 window_scratch_t *ws, size_t k, int nodes, double *cost,
                 double *wtminp, double *key_sp, ms_bid_t *bids, size_t nbids,
                 size_t *cheap)
{
    bool *ok = ws->ok;
    double *fs = ws->fs;
    ms_ranked_t *r = ws->r;
    size_t nr, nparts = conf->nparts;

    /* rank_partitions marks the admissible ones; it writes fs and r
     * wherever they are read below */
    memset (ok, 0, (cs->n + 1) * sizeof (*ok));
    nr = rank_partitions (pol, conf, cs, view, ok, fs, r, nparts, wtminp,
                          key_sp);
    /* r holds each ranked partition once, in partition order */
    for (size_t p = 0; p < nparts; p++) {
        ws->rk[p] = SIZE_MAX;
        cheap[p] = SIZE_MAX;
    }
    for (size_t q = 0; q < nr; q++)
        ws->rk[r[q].part] = q;
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        size_t p, q;
        double ck;

        /* most are not admissible: their candidate is not read */
        cost[i] = INFINITY;
        if (!ok[i])
            continue;
        p = c->part;
        q = p < nparts ? ws->rk[p] : SIZE_MAX;
        if (q == SIZE_MAX)
            continue;
        ck = cost[i] = r[q].key + (fs[i] - fs[r[q].cand]);
        if (!isfinite (ck))
            continue;
        if (cheap[p] == SIZE_MAX || ck < cost[cheap[p]])
            cheap[p] = i;
        bids[nbids].job = k;
        bids[nbids].part = p;
        bids[nbids].cand = i;
        bids[nbids].ns = (c->nodes > 0 ? c->nodes : nodes) * c->t;
        bids[nbids].cost = ck;
        nbids++;
    }
    return nbids;
}

/* The arrays of a cycle's window, taken from one block (window_mem): a
 * window is a job or two at a time on a site like KTH's, where a dozen
 * allocations a cycle cost more than the window's costs. Each array is
 * written before it is read, so the block is not zeroed. bids has room
 * for every candidate's (at most one each). A block that fits in
 * WINDOW_MEM_STACK bytes is the caller's stack buffer (most windows: a
 * few KB). */
#define WINDOW_MEM_STACK 8192

typedef struct {
    double *cost, *key_s, *cap, *pen;
    size_t *cand0, *pick, *sib, *cheap;
    ms_bid_t *bids;
    window_scratch_t ws;
    void *block; /* to free: NULL when on the stack */
} window_mem_t;

/* The next n elements of `size` bytes at *at bytes into base (each
 * array 8-byte aligned); NULL while base is (the block's size counted). */
static void *
window_take_mem (char *base, size_t *at, size_t n, size_t size)
{
    void *p = base ? base + *at : NULL;
    *at += (n * size + 7) & ~(size_t)7;
    return p;
}

/* Lays the arrays out over one block: a first pass gives its size, the
 * second carves it (from stack, WINDOW_MEM_STACK bytes, when it fits). */
static void
window_mem (window_mem_t *m, size_t njobs, size_t total, size_t maxn,
            size_t nparts, char *stack)
{
    char *b = NULL;

    m->block = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        m->cost = window_take_mem (b, &at, total + 1, sizeof (double));
        m->bids = window_take_mem (b, &at, total + 1, sizeof (ms_bid_t));
        m->ws.fs = window_take_mem (b, &at, maxn + 1, sizeof (double));
        m->ws.r = window_take_mem (b, &at, nparts + 1, sizeof (ms_ranked_t));
        m->cand0 = window_take_mem (b, &at, njobs + 1, sizeof (size_t));
        m->key_s = window_take_mem (b, &at, njobs + 1, sizeof (double));
        m->pick = window_take_mem (b, &at, njobs + 1, sizeof (size_t));
        m->cap = window_take_mem (b, &at, nparts + 1, sizeof (double));
        m->pen = window_take_mem (b, &at, nparts + 1, sizeof (double));
        m->sib = window_take_mem (b, &at, nparts + 1, sizeof (size_t));
        m->cheap
            = window_take_mem (b, &at, njobs * nparts + 1, sizeof (size_t));
        m->ws.rk = window_take_mem (b, &at, nparts + 1, sizeof (size_t));
        m->ws.ok = window_take_mem (b, &at, maxn + 1, sizeof (bool));
        if (!pass)
            b = at <= WINDOW_MEM_STACK ? stack : (m->block = ms_xmalloc (at));
    }
}

/* The window (window.h): bids are every admissible candidate of every job
 * with metasched's cost; each partition offers the node-seconds it has
 * free within the horizon (the window's mean best predicted response)
 * after its predicted wait; a node-second over that delays the jobs
 * behind by 1/nodes s, priced at the response's weight per the window's
 * mean best response. Each job then gets its chosen candidate and
 * siblings on the other partitions, their nice set by their cost against
 * each other as metasched sets it (rank_entry_nice). */
void
policy_decide_window (const ms_policy_t *pol, const ms_siteconf_t *conf,
                      const ms_cands_t *const *cs, const int *nodes,
                      size_t njobs, const ms_view_t *view, double now,
                      ms_decision_t *dec, ms_window_stats_t *st)
{
    size_t nparts = conf->nparts, nbids = 0, ncost = 0, nh = 0;
    ms_bid_t *bids;
    double *cost, *cap, *pen, *key_s, hsum = 0, h;
    size_t *pick, *cand0, *sib, total = 0, maxn = 0;
    ms_window_opts_t wo;
    window_scratch_t ws;
    window_mem_t mem;
    double stack[WINDOW_MEM_STACK / sizeof (double)]; /* 8-byte aligned */

    for (size_t k = 0; k < njobs; k++) {
        total += cs[k]->n;
        if (cs[k]->n > maxn)
            maxn = cs[k]->n;
    }
    /* every job's costs in one array, the scratch once for all */
    window_mem (&mem, njobs, total, maxn, nparts, (char *)stack);
    cost = mem.cost;
    bids = mem.bids;
    ws = mem.ws;
    cand0 = mem.cand0;
    key_s = mem.key_s;
    cap = mem.cap;
    pen = mem.pen;
    pick = mem.pick;
    sib = mem.sib;
    for (size_t k = 0; k < njobs; k++) {
        double wtmin;
        nbids = window_job_bids (pol, conf, cs[k], view, &ws, k, nodes[k],
                                 cost + ncost, &wtmin, &key_s[k], bids, nbids,
                                 mem.cheap + k * nparts);
        cand0[k] = ncost;
        if (cs[k]->n && isfinite (wtmin)) {
            hsum += wtmin;
            nh++;
        }
        ncost += cs[k]->n;
    }
    h = nh ? hsum / (double)nh : 0;
    for (size_t p = 0; p < nparts; p++) {
        double pn = conf->parts[p].nodes;
        double w = view ? view_predicted_wait (view, p, 1, now) : 0;
        cap[p] = h > w ? pn * (h - w) : 0;
        pen[p] = h > 0 ? (1 - pol->w_energy) / (pn * h) : 0;
    }
    window_opts_init (&wo);
    wo.time_budget_s = pol->window_budget_s;
    window_solve (bids, nbids, njobs, cap, pen, nparts, &wo, pick, st);

    for (size_t k = 0; k < njobs; k++) {
        const ms_cands_t *c = cs[k];
        const double *ck = cost + cand0[k];
        double lead = INFINITY;
        size_t chosen;

        dec[k].n = 0;
        if (pick[k] == SIZE_MAX)
            continue;
        chosen = bids[pick[k]].cand;
        /* each other partition's cheapest candidate (window_job_bids')
         * within the slack */
        for (size_t p = 0; p < nparts; p++) {
            sib[p]
                = p == c->c[chosen].part ? SIZE_MAX : mem.cheap[k * nparts + p];
            if (sib[p] != SIZE_MAX
                && ck[sib[p]] > (1 + pol->sibling_slack) * ck[chosen])
                sib[p] = SIZE_MAX;
            if (sib[p] != SIZE_MAX && ck[sib[p]] / ck[chosen] - 1 < lead)
                lead = ck[sib[p]] / ck[chosen] - 1;
        }
        /* the chosen one at metasched's nice for its lead over the next
         * partition (none taken over its own best: 0), the siblings by
         * their loss, as metasched does */
        choice_add (&dec[k], c, chosen,
                    rank_entry_nice (pol, isfinite (lead)
                                              ? (lead > 0 ? lead : 0)
                                              : pol->pref_margin));
        for (size_t p = 0; p < nparts; p++)
            if (sib[p] != SIZE_MAX)
                rank_add_sibling (pol, &dec[k], c, sib[p], chosen, ck[sib[p]],
                                  ck[chosen], key_s[k]);
        /* a deadline job held for the cleaner run its cost counted
         * (rank.c shift_delay), as policy_decide holds it */
        choice_carbon_holds (pol, c, &dec[k]);
    }
    free (mem.block);
}
