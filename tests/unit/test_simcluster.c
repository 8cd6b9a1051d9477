/* test_simcluster.c - the simulated cluster against hand-computed
 * schedules: EASY backfill (a job that backfills, one that must not, one
 * that uses the extra nodes), FCFS, conservative backfill, time-limit
 * kills, the start gate of sibling entries, begin times, a partition's
 * power cap, the backend operations and a lazy truth. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "partitions/simcluster.h"
#include "tests/testutil.h"

static const char conf_text[]
    = "[architecture a]\n"
      "cores_per_node = 4\n"
      "frequencies_khz = 1000000, 2000000\n"
      "nominal_khz = 2000000\n"
      "idle_power_w = 50\n"
      "[cluster c1]\nbackend = simulated\n"
      "[partition c1/p]\narchitecture = a\nnodes = 10\n"
      "[cluster c2]\nbackend = simulated\n"
      "[partition c2/q]\narchitecture = a\nnodes = 10\n";

/* The same with a power cap of 800 W on c1/p: 10 idle nodes draw 500 W,
 * so running jobs may draw 300 W above idle (a 100 W node: 50 W). */
static const char conf_capped[]
    = "[architecture a]\n"
      "cores_per_node = 4\n"
      "frequencies_khz = 1000000, 2000000\n"
      "nominal_khz = 2000000\n"
      "idle_power_w = 50\n"
      "[cluster c1]\nbackend = simulated\n"
      "[partition c1/p]\narchitecture = a\nnodes = 10\npower_cap_w = 800\n";

/* The truth of a test job: its runtime, doubled at the low frequency. */
typedef struct {
    double rt;
    double power;
} tjob_t;

/* Its calls: checks (rt and pw NULL: simworld_lazy_truth) and figures;
 * with fail_figures set the figures fail. */
static int nchecks, nfigures;
static bool fail_figures;

static int
truth (void *arg, const void *job, size_t part, uint32_t f, int nodes,
       double *rt, double *pw, ms_error_t *errp)
{
    (void)nodes;
    const tjob_t *j = job;
    if (!rt || !pw) {
        nchecks++;
        return 0;
    }
    nfigures++;
    if (fail_figures)
        return ms_err (errp, MS_ERR_INPUT, "no figures");
    *rt = f == 1000000 ? 2 * j->rt : j->rt;
    *pw = j->power;
    return 0;
}

#define MAXJ 32
typedef struct {
    double submit[MAXJ], start[MAXJ], end[MAXJ];
    int starts[MAXJ], ends[MAXJ], cancels[MAXJ];
    bool killed[MAXJ];
    size_t part[MAXJ];
    double energy;
} rec_t;

static void
listen (void *arg, const sim_event_t *ev)
{
    rec_t *r = arg;
    ck_assert_uint_lt (ev->id, MAXJ);
    if (ev->type == SIM_EV_START) {
        r->starts[ev->id]++;
        r->start[ev->id] = ev->t;
        r->part[ev->id] = ev->part;
        /* Invariant: start >= submit. */
        ck_assert (ev->t >= ev->submit);
    } else if (ev->type == SIM_EV_END) {
        r->ends[ev->id]++;
        r->end[ev->id] = ev->t;
        r->killed[ev->id] = ev->killed;
        r->energy += ev->energy_j;
    } else
        r->cancels[ev->id]++;
}

typedef struct {
    ms_siteconf_t *conf;
    simworld_t *w;
    rec_t rec;
    tjob_t jobs[MAXJ];
    sim_hint_t hints[MAXJ];
    int n;
    double power; /* of the next jobs (W per node; 0: 100) */
    double begin; /* of the next jobs: their begin_time (0: none) */
} fixture_t;

static void
fx_init_conf (fixture_t *fx, sim_backfill_t bf, const char *text)
{
    ms_error_t err;
    memset (fx, 0, sizeof (*fx));
    ck_assert_msg (clusterconf_parse (text, strlen (text), "t.conf",
                                      &fx->conf, &err)
                       == 0,
                   "%s", err.text);
    ck_assert_msg (simworld_new (fx->conf, bf, truth, NULL, &fx->w, &err) == 0,
                   "%s", err.text);
    simworld_set_listener (fx->w, listen, &fx->rec);
}

static void
fx_init (fixture_t *fx, sim_backfill_t bf)
{
    fx_init_conf (fx, bf, conf_text);
}

static void
fx_fini (fixture_t *fx)
{
    simworld_free (fx->w);
    clusterconf_free (fx->conf);
}

/* Submit at time t a job of `nodes` nodes that runs rt seconds (predicted
 * pred) to cluster cl's partition; return its id. */
static uint64_t
fx_submit_full (fixture_t *fx, double t, size_t cl, const char *part, int nodes,
                double rt, double pred, uint32_t limit_min, uint64_t gate,
                int rank, int nice)
{
    ms_job_request_t req;
    ms_error_t err;
    uint64_t id;
    int k = fx->n++;

    simworld_advance (fx->w, t);
    fx->jobs[k].rt = rt;
    fx->jobs[k].power = fx->power > 0 ? fx->power : 100;
    fx->hints[k].job = &fx->jobs[k];
    fx->hints[k].pred_runtime_s = pred;
    fx->hints[k].order_time = t;
    fx->hints[k].gate = gate;
    fx->hints[k].rank = rank;
    memset (&req, 0, sizeof (req));
    req.user = "u";
    req.partition = part;
    req.nodes = nodes;
    req.nice = nice;
    req.time_limit_min = limit_min;
    req.begin_time = (int64_t)fx->begin;
    req.backend_hint = &fx->hints[k];
    ck_assert_msg (
        backend_submit (simworld_backend (fx->w, cl), &req, &id, &err) == 0,
        "%s", err.text);
    simworld_schedule (fx->w);
    fx->rec.submit[id] = t;
    return id;
}

static uint64_t
fx_submit (fixture_t *fx, double t, int nodes, double rt)
{
    return fx_submit_full (fx, t, 0, "p", nodes, rt, rt, 0, 0, 0, 0);
}

/* Five jobs on 10 nodes (hand-computed):
 *   J1 0:  6 nodes 100 s -> starts at 0.
 *   J2 1:  9 nodes  50 s -> no room; reservation at 100 (J1's end), extra
 *                           nodes then: 10 - 9 = 1.
 *   J3 2:  2 nodes  90 s -> backfills: ends at 92 <= 100.
 *   J4 3:  2 nodes 500 s -> must not backfill: 2 free, but it would end
 *                           after 100 and needs more than the 1 extra node.
 *   J5 4:  1 node  500 s -> backfills on the extra node.
 *   J2 starts at 100, J4 at 150. */
static void
five_jobs (fixture_t *fx)
{
    fx_submit (fx, 0, 6, 100);
    fx_submit (fx, 1, 9, 50);
    fx_submit (fx, 2, 2, 90);
    fx_submit (fx, 3, 2, 500);
    fx_submit (fx, 4, 1, 500);
    simworld_drain (fx->w);
}

START_TEST (test_easy_hand)
{
    fixture_t fx;
    fx_init (&fx, SIM_EASY);
    five_jobs (&fx);
    ck_assert (fx.rec.start[1] == 0 && fx.rec.end[1] == 100);
    ck_assert (fx.rec.start[2] == 100 && fx.rec.end[2] == 150);
    ck_assert (fx.rec.start[3] == 2 && fx.rec.end[3] == 92);
    ck_assert (fx.rec.start[4] == 150 && fx.rec.end[4] == 650);
    ck_assert (fx.rec.start[5] == 4 && fx.rec.end[5] == 504);
    for (int i = 1; i <= 5; i++) {
        ck_assert_int_eq (fx.rec.starts[i], 1);
        ck_assert_int_eq (fx.rec.ends[i], 1);
    }
    /* Energy: 100 W per node over the node-seconds run. */
    ck_assert (
        fabs (fx.rec.energy - 100 * (6 * 100 + 9 * 50 + 2 * 90 + 2 * 500 + 500))
        < 1e-6);
    ck_assert_uint_eq (simworld_violations (fx.w), 0);
    fx_fini (&fx);
}
END_TEST

START_TEST (test_fcfs_hand)
{
    fixture_t fx;
    fx_init (&fx, SIM_FCFS);
    five_jobs (&fx);
    /* Nothing passes J2: J3, J4 and J5 wait for its end at 150 (J3 could
     * not start at 100 beside J2: 1 node free). */
    ck_assert (fx.rec.start[2] == 100);
    ck_assert (fx.rec.start[3] == 150 && fx.rec.start[4] == 150
               && fx.rec.start[5] == 150);
    fx_fini (&fx);
}
END_TEST

START_TEST (test_conservative_hand)
{
    fixture_t fx;
    fx_init (&fx, SIM_CONSERVATIVE);
    five_jobs (&fx);
    /* J4 would collide with J2's reservation [100, 150) wherever it starts
     * before 150; J3 and J5 fit around it. */
    ck_assert (fx.rec.start[2] == 100);
    ck_assert (fx.rec.start[3] == 2);
    ck_assert (fx.rec.start[4] == 150);
    ck_assert (fx.rec.start[5] == 4);
    fx_fini (&fx);
}
END_TEST

START_TEST (test_underpredicted_reservation)
{
    fixture_t fx;
    fx_init (&fx, SIM_EASY);
    /* J1 predicted 50 s but runs 100 s; J3 (predicted 40 s, true 40 s)
     * backfills because by the prediction it ends before the shadow time
     * 50; J2 starts when J1 really ends. */
    fx_submit_full (&fx, 0, 0, "p", 6, 100, 50, 0, 0, 0, 0);
    fx_submit (&fx, 1, 9, 50);
    fx_submit_full (&fx, 2, 0, "p", 4, 40, 40, 0, 0, 0, 0);
    simworld_drain (fx.w);
    ck_assert (fx.rec.start[3] == 2);
    ck_assert (fx.rec.start[2] == 100);
    fx_fini (&fx);
}
END_TEST

/* A running job's new limit moves its predicted end, and the reservation
 * sees it there (hand-computed, 10 nodes):
 *   J1 0: 5 nodes, runs 1000 s, limit 100 min (predicted 1000 s).
 *   J2 0: 3 nodes, runs and predicted 500 s. 2 nodes free.
 *   J1's limit becomes 5 min: it is predicted (and killed) at 300.
 *   J3 1: 6 nodes -> reserved at 300 (J1's end: 7 free), 1 extra node;
 *         with J1 at 1000 the reservation would be at 1000, 4 extra.
 *   J4 2: 2 nodes, 800 s -> ends after 300 and needs more than the extra
 *         node: waits (it would have backfilled by 1000). */
START_TEST (test_limit_update_reservation)
{
    fixture_t fx;
    ms_job_update_t upd;
    ms_error_t err;
    uint64_t id;

    fx_init (&fx, SIM_EASY);
    id = fx_submit_full (&fx, 0, 0, "p", 5, 1000, 1000, 100, 0, 0, 0);
    fx_submit (&fx, 0, 3, 500);
    ms_job_update_init (&upd);
    upd.time_limit_min = 5;
    ck_assert_int_eq (
        backend_update (simworld_backend (fx.w, 0), id, &upd, &err), 0);
    fx_submit (&fx, 1, 6, 100);
    fx_submit (&fx, 2, 2, 800);
    simworld_drain (fx.w);
    ck_assert (fx.rec.end[1] == 300 && fx.rec.killed[1]);
    ck_assert (fx.rec.start[3] == 300);
    ck_assert (fx.rec.start[4] >= 300);
    fx_fini (&fx);
}
END_TEST

START_TEST (test_time_limit_kill)
{
    fixture_t fx;
    fx_init (&fx, SIM_EASY);
    /* Runs 100 s with a 1-minute limit: killed at 60. */
    fx_submit_full (&fx, 0, 0, "p", 1, 100, 50, 1, 0, 0, 0);
    fx_submit_full (&fx, 0, 0, "p", 1, 30, 30, 1, 0, 0, 0);
    simworld_drain (fx.w);
    ck_assert (fx.rec.end[1] == 60 && fx.rec.killed[1]);
    ck_assert (fx.rec.end[2] == 30 && !fx.rec.killed[2]);
    fx_fini (&fx);
}
END_TEST

/* The power cap is the cluster's (hand-computed, 300 W above idle):
 *   J1 0: 4 nodes 100 s 100 W (200 W) -> starts at 0; 100 W left.
 *   J2 1: 4 nodes  50 s 100 W (200 W) -> 6 nodes free but not the power:
 *                          reserved at 100 (J1's end), 100 W spare then.
 *   J3 2: 2 nodes  90 s 100 W (100 W) -> backfills: ends at 92 <= 100.
 *   J4 3: 1 node  500 s 100 W  (50 W) -> no power left until J3 ends at
 *                          92, then starts on the spare power of J2's
 *                          reservation.
 *   J5 4: 5 nodes  10 s 200 W (750 W, more than the cap allows: it runs
 *                          alone) -> starts when J4 ends at 592.
 * Every policy meets the same cap: the cluster keeps it. */
static void
capped_jobs (fixture_t *fx)
{
    fx_submit (fx, 0, 4, 100);
    fx_submit (fx, 1, 4, 50);
    fx_submit (fx, 2, 2, 90);
    fx_submit (fx, 3, 1, 500);
    fx->power = 200;
    fx_submit (fx, 4, 5, 10);
    simworld_drain (fx->w);
}

START_TEST (test_power_cap)
{
    static const sim_backfill_t bfs[] = { SIM_EASY, SIM_CONSERVATIVE };
    for (size_t k = 0; k < 2; k++) {
        fixture_t fx;
        fx_init_conf (&fx, bfs[k], conf_capped);
        capped_jobs (&fx);
        ck_assert_msg (fx.rec.start[1] == 0 && fx.rec.start[2] == 100
                           && fx.rec.start[3] == 2 && fx.rec.start[4] == 92
                           && fx.rec.start[5] == 592,
                       "%s: starts %g %g %g %g %g", sim_backfill_name (bfs[k]),
                       fx.rec.start[1], fx.rec.start[2], fx.rec.start[3],
                       fx.rec.start[4], fx.rec.start[5]);
        ck_assert_uint_eq (simworld_violations (fx.w), 0);
        fx_fini (&fx);
    }
    /* Without the cap J2 starts at once. */
    {
        fixture_t fx;
        fx_init (&fx, SIM_EASY);
        capped_jobs (&fx);
        ck_assert (fx.rec.start[2] == 1);
        fx_fini (&fx);
    }
}
END_TEST

START_TEST (test_gate_siblings)
{
    fixture_t fx;
    uint64_t a, b;
    fx_init (&fx, SIM_EASY);
    /* Fill c1/p; one job submitted to both partitions starts on c2/q and
     * its sibling on c1/p is cancelled. */
    fx_submit (&fx, 0, 10, 100);
    a = fx_submit_full (&fx, 1, 0, "p", 4, 10, 10, 0, 7, 0, 0);
    b = fx_submit_full (&fx, 1, 1, "q", 4, 10, 10, 0, 7, 1, 0);
    simworld_drain (fx.w);
    ck_assert_int_eq (fx.rec.starts[a], 0);
    ck_assert_int_eq (fx.rec.cancels[a], 1);
    ck_assert_int_eq (fx.rec.starts[b], 1);
    ck_assert (fx.rec.start[b] == 1);
    fx_fini (&fx);
}
END_TEST

/* A lazy truth is asked at a submit only whether it answers, and for the
 * figures when an entry starts or a pass weighs it against a power cap:
 * a cancelled sibling never costs them, and the schedules are the eager
 * truth's. Figures that fail when asked are the run's error. */
START_TEST (test_lazy_truth)
{
    static const sim_backfill_t bfs[] = { SIM_EASY, SIM_CONSERVATIVE };
    fixture_t fx;
    ms_error_t err;
    uint64_t a, b;

    fx_init (&fx, SIM_EASY);
    simworld_lazy_truth (fx.w);
    nchecks = nfigures = 0;
    fx_submit (&fx, 0, 10, 100);
    a = fx_submit_full (&fx, 1, 0, "p", 4, 10, 10, 0, 7, 0, 0);
    b = fx_submit_full (&fx, 1, 1, "q", 4, 10, 10, 0, 7, 1, 0);
    simworld_drain (fx.w);
    ck_assert_int_eq (fx.rec.cancels[a], 1);
    ck_assert (fx.rec.start[b] == 1 && fx.rec.end[b] == 11);
    ck_assert_int_eq (nchecks, 3);
    ck_assert_int_eq (nfigures, 2); /* not the cancelled sibling's */
    ck_assert_int_eq (simworld_truth_error (fx.w, &err), 0);
    fx_fini (&fx);
    for (size_t k = 0; k < 2; k++) {
        fx_init_conf (&fx, bfs[k], conf_capped);
        simworld_lazy_truth (fx.w);
        capped_jobs (&fx);
        ck_assert (fx.rec.start[1] == 0 && fx.rec.start[2] == 100
                   && fx.rec.start[3] == 2 && fx.rec.start[4] == 92
                   && fx.rec.start[5] == 592);
        ck_assert_uint_eq (simworld_violations (fx.w), 0);
        fx_fini (&fx);
    }
    fx_init (&fx, SIM_EASY);
    simworld_lazy_truth (fx.w);
    fail_figures = true;
    fx_submit (&fx, 0, 2, 100);
    simworld_drain (fx.w);
    fail_figures = false;
    ck_assert_int_eq (simworld_truth_error (fx.w, &err), -1);
    ck_assert_msg (strstr (err.text, "no figures"), "%s", err.text);
    fx_fini (&fx);
}
END_TEST

START_TEST (test_gate_rank_preferred)
{
    fixture_t fx;
    ms_backend_t *b1;
    ms_job_request_t req;
    ms_error_t err;
    uint64_t id1, id2;
    sim_hint_t h;
    tjob_t tj = { 10, 100 };

    fx_init (&fx, SIM_EASY);
    /* Both partitions free: the rank-0 entry starts even though its
     * sibling was submitted to an earlier partition in the same instant
     * (c2/q is rank 0 here, c1/p rank 1). */
    memset (&req, 0, sizeof (req));
    memset (&h, 0, sizeof (h));
    h.job = &tj;
    h.pred_runtime_s = 10;
    h.gate = 3;
    req.user = "u";
    req.nodes = 2;
    req.backend_hint = &h;
    b1 = simworld_backend (fx.w, 0);
    req.partition = "p";
    h.rank = 1;
    ck_assert (backend_submit (b1, &req, &id1, &err) == 0);
    req.partition = "q";
    h.rank = 0;
    ck_assert (backend_submit (simworld_backend (fx.w, 1), &req, &id2, &err)
               == 0);
    simworld_schedule (fx.w);
    simworld_drain (fx.w);
    ck_assert_int_eq (fx.rec.starts[id2], 1);
    ck_assert_int_eq (fx.rec.starts[id1], 0);
    ck_assert_int_eq (fx.rec.cancels[id1], 1);
    fx_fini (&fx);
}
END_TEST

/* A begin time holds a job as Slurm's --begin does (hand-computed, 10
 * nodes):
 *   J1 0:  6 nodes 1000 s -> starts at 0.
 *   J2 1: 10 nodes   50 s, begin 2000 -> not eligible: it neither starts
 *                           nor reserves before 2000.
 *   J3 2:  3 nodes 5000 s -> starts at 2 (with J2 eligible it would wait
 *                           behind J2's reservation at 1000).
 *   J4 3:  1 node    10 s, begin 100 -> an idle node: starts at 100.
 *   J2 starts when J3 ends, at 5002.
 * Then siblings: a rank-0 entry not yet eligible does not hold back its
 * rank-1 sibling on a free partition. */
START_TEST (test_begin_time)
{
    fixture_t fx;
    ms_job_info_t ji;
    ms_error_t err;
    uint64_t j1, j2, j3, j4, s0, s1;

    fx_init (&fx, SIM_EASY);
    j1 = fx_submit (&fx, 0, 6, 1000);
    fx.begin = 2000;
    j2 = fx_submit (&fx, 1, 10, 50);
    fx.begin = 0;
    j3 = fx_submit (&fx, 2, 3, 5000);
    fx.begin = 100;
    j4 = fx_submit (&fx, 3, 1, 10);
    fx.begin = 0;
    ck_assert_int_eq (backend_job (simworld_backend (fx.w, 0), j4, &ji, &err),
                      0);
    ck_assert_int_eq (ji.state, MS_JOB_PENDING);
    ck_assert_int_eq ((int)ji.eligible_time, 100);
    ck_assert_int_eq ((int)ji.submit_time, 3);
    simworld_drain (fx.w);
    ck_assert_double_eq (fx.rec.start[j1], 0);
    ck_assert_double_eq (fx.rec.start[j3], 2);
    ck_assert_double_eq (fx.rec.start[j4], 100);
    ck_assert_double_eq (fx.rec.start[j2], 5002);
    fx_fini (&fx);

    fx_init (&fx, SIM_EASY);
    fx.begin = 300;
    s0 = fx_submit_full (&fx, 0, 0, "p", 2, 10, 10, 0, 7, 0, 0);
    fx.begin = 0;
    s1 = fx_submit_full (&fx, 0, 1, "q", 2, 10, 10, 0, 7, 1, 0);
    simworld_drain (fx.w);
    ck_assert_int_eq (fx.rec.starts[s1], 1);
    ck_assert_double_eq (fx.rec.start[s1], 0);
    ck_assert_int_eq (fx.rec.starts[s0], 0);
    ck_assert_int_eq (fx.rec.cancels[s0], 1);
    fx_fini (&fx);
}
END_TEST

START_TEST (test_backend_ops)
{
    fixture_t fx;
    ms_backend_t *b;
    ms_partition_state_t *ps;
    ms_job_info_t *js, ji;
    ms_node_state_t *ns;
    ms_job_request_t req;
    ms_job_update_t upd;
    ms_error_t err;
    size_t n;
    uint64_t id;

    fx_init (&fx, SIM_EASY);
    b = simworld_backend (fx.w, 0);
    ck_assert_str_eq (b->ops->type, "simulated");
    ck_assert_int_eq (backend_ping (b, &err), 0);
    fx_submit (&fx, 0, 6, 100);
    id = fx_submit (&fx, 1, 9, 50);
    ck_assert_int_eq (backend_partitions (b, &ps, &n, &err), 0);
    ck_assert_uint_eq (n, 1);
    ck_assert_str_eq (ps[0].name, "p");
    ck_assert_int_eq (ps[0].nodes_idle, 4);
    ck_assert_int_eq (ps[0].pending_jobs, 1);
    ck_assert_int_eq (ps[0].running_jobs, 1);
    free (ps);
    ck_assert_int_eq (backend_nodes (b, &ns, &n, &err), 0);
    ck_assert_uint_eq (n, 10);
    free (ns);
    ck_assert_int_eq (backend_jobs (b, &js, &n, &err), 0);
    ck_assert_uint_eq (n, 2);
    free (js);
    ck_assert_int_eq (backend_job (b, id, &ji, &err), 0);
    ck_assert_int_eq (ji.state, MS_JOB_PENDING);
    ck_assert_int_eq (ji.nodes, 9);
    /* A lower nice is not a higher priority than an earlier job's: the
     * update is applied and the job still waits for nodes. */
    ms_job_update_init (&upd);
    upd.nice = 5;
    ck_assert_int_eq (backend_update (b, id, &upd, &err), 0);
    ck_assert_int_eq (backend_cancel (b, id, &err), 0);
    ck_assert_int_eq (backend_job (b, id, &ji, &err), 0);
    ck_assert_int_eq (ji.state, MS_JOB_CANCELLED);
    ck_assert_int_eq (backend_job (b, 999, &ji, &err), -1);
    /* Errors: unknown partition, too many nodes, unknown frequency, no
     * job model. */
    memset (&req, 0, sizeof (req));
    req.user = "u";
    req.partition = "nope";
    req.backend_hint = &fx.hints[0];
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), -1);
    ck_assert (strstr (err.text, "no partition 'nope'"));
    req.partition = "p";
    req.nodes = 11;
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), -1);
    req.nodes = 1;
    req.cpu_freq_khz = 1500000;
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), -1);
    req.cpu_freq_khz = 1000000;
    req.backend_hint = NULL;
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), -1);
    /* The low frequency doubles the runtime (the truth above). */
    req.backend_hint = &fx.hints[0];
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), 0);
    simworld_schedule (fx.w);
    simworld_drain (fx.w);
    ck_assert (fx.rec.end[id] - fx.rec.start[id] == 200);
    fx_fini (&fx);
}
END_TEST

/* A heterogeneous job on a simulated cluster: all its components' nodes
 * at once for the longest limit, as metaschedd decides it; one larger than
 * the partition is refused. */
START_TEST (test_hetjob_whole)
{
    fixture_t fx;
    ms_backend_t *b;
    ms_job_request_t req, comp[2];
    ms_job_info_t ji;
    ms_error_t err;
    uint64_t id;

    fx_init (&fx, SIM_EASY);
    b = simworld_backend (fx.w, 0);
    fx.jobs[0].rt = 100;
    fx.jobs[0].power = 100;
    fx.hints[0].job = &fx.jobs[0];
    fx.hints[0].pred_runtime_s = 100;
    memset (&req, 0, sizeof (req));
    memset (comp, 0, sizeof (comp));
    req.user = "u";
    req.partition = "p";
    req.backend_hint = &fx.hints[0];
    req.nodes = 3;
    req.time_limit_min = 5;
    comp[0] = req;
    comp[0].nodes = 4;
    comp[0].time_limit_min = 10;
    comp[1] = req;
    comp[1].nodes = 2;
    comp[1].time_limit_min = 7;
    req.het = comp;
    req.nhet = 2;
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), 0);
    ck_assert_int_eq (backend_job (b, id, &ji, &err), 0);
    ck_assert_int_eq (ji.nodes, 9);
    ck_assert_uint_eq (ji.time_limit_min, 10);
    comp[1].nodes = 4; /* 3 + 4 + 4 of 10 nodes */
    ck_assert_int_eq (backend_submit (b, &req, &id, &err), -1);
    ck_assert_msg (strstr (err.text, "job asks 11 nodes"), "%s", err.text);
    fx_fini (&fx);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("simcluster");
    TCase *tc = tcase_create ("schedules");

    tcase_add_test (tc, test_easy_hand);
    tcase_add_test (tc, test_hetjob_whole);
    tcase_add_test (tc, test_fcfs_hand);
    tcase_add_test (tc, test_conservative_hand);
    tcase_add_test (tc, test_underpredicted_reservation);
    tcase_add_test (tc, test_time_limit_kill);
    tcase_add_test (tc, test_limit_update_reservation);
    tcase_add_test (tc, test_power_cap);
    tcase_add_test (tc, test_gate_siblings);
    tcase_add_test (tc, test_gate_rank_preferred);
    tcase_add_test (tc, test_lazy_truth);
    tcase_add_test (tc, test_begin_time);
    tcase_add_test (tc, test_backend_ops);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
