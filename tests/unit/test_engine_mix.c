/* test_engine_mix.c - the job mix (core/jobmix.c: the counts behind
 * metasched's width term, drain price and calibrated energy odds) on both
 * paths. The same jobs go through the simulator's scheduler (sched_submit
 * at each arrival, sched_set_up) and through metaschedd's decision
 * (daemon_decide_job, as the dispatch decides every queued job at each
 * cycle); one of them waits several cycles, for its cluster (down) or
 * under a power budget, and is decided again at each cycle by the daemon.
 * Both paths must count it once (doc/architecture.md, "The job mix counts
 * a job once"): the same counts in both mixes, and the same choice for a
 * job that comes after (counted at each cycle, the waiting job's 40 nodes
 * raised the daemon's mean width and sent ua.C elsewhere). */
#include "config.h"

#include "metasched/daemon/daemon_int.h"
#include "partitions/simcluster.h"
#include "tests/simdaemon.h"
#include "tests/simworld.h"

/* doc/examples/sim-gpu.conf's site: cluster cpu (cpu/batch, 64 nodes) and
 * cluster gpu (gpu/a100, gpu/v100, 16 nodes each). */
static const char site_text[] = SIMWORLD_GPU_SITE;

typedef struct {
    const char *app;
    int nodes;
    uint32_t limit_min; /* 0: none */
} tjob_t;

/* The first job only cpu/batch can run (40 of its 64 nodes): it waits
 * while cluster cpu is down or shut by a budget; the others run on
 * cluster gpu meanwhile. */
static const tjob_t first[] = {
    { "lu.C", 40, 60 },
    { "ep.D", 1, 0 },
    { "DGEMM", 4, 100 },
    { "bt-mz.C", 8, 30 },
};
#define NFIRST (sizeof (first) / sizeof (first[0]))
/* The jobs that come after, one of them decided on each path at a time. */
static const tjob_t later[] = {
    { "ua.C", 16, 240 },
    { "lu.C", 2, 60 },
    { "sp-mz.C", 12, 0 },
    { "ep.D", 4, 30 },
};
#define NLATER (sizeof (later) / sizeof (later[0]))

/* The cycles the daemon decides the waiting job in. */
#define CYCLES 12

/* How the first job waits: its cluster down, or a budget of 1 W on it. */
enum { WAIT_DOWN, WAIT_BUDGET };

static int
truth (void *arg, const void *job, size_t part, uint32_t f_khz, int nodes,
       double *runtime_s, double *power_w, ms_error_t *errp)
{
    (void)arg, (void)job, (void)part, (void)f_khz, (void)nodes, (void)errp;
    *runtime_s = 60;
    *power_w = 200;
    return 0;
}

/* What a path's mix counted, and where the later job went. */
typedef struct {
    size_t njobs;
    double nodes_sum;
    double captive[MS_MAX_RANKED], restricted[MS_MAX_RANKED];
    size_t nring;
    double ref_nodes;
    size_t waiting; /* of the first jobs, those still waiting at the end
                       of the cycles */
    bool sent;      /* the later job went out */
    size_t part;    /* ... its first entry's partition and frequency */
    uint32_t f_khz;
} mixout_t;

static void
mix_read (const ms_jobmix_t *m, const ms_policy_t *pol, mixout_t *o)
{
    o->njobs = jobmix_njobs (m);
    o->nodes_sum = m->nodes_sum;
    memcpy (o->captive, m->captive, sizeof (o->captive));
    memcpy (o->restricted, m->restricted, sizeof (o->restricted));
    o->nring = m->nring;
    o->ref_nodes = pol->ref_nodes;
}

/* The daemon's state as its refresh leaves it (every partition empty),
 * its settings as an admin sets them: one entry a job, the budget. */
static void
daemon_setup (ms_daemon_t *d, ms_dconf_t *dc, ms_settings_t *set, world_t *w,
              int how)
{
    simdaemon_setup (d, dc, w, POL_METASCHED);
    settings_init (set);
    set->policy = POL_METASCHED;
    set->dispatch_mode = DISPATCH_SINGLE;
    set->siblings = 2;
    if (how == WAIT_BUDGET) {
        ms_strlcpy (set->power_budget, "cpu 1W", sizeof (set->power_budget));
        set->power_budget_set = true;
    }
    daemon_apply_settings (d, set);
    ck_assert (how != WAIT_BUDGET || daemon_power_on (d));
}

static void
daemon_teardown (ms_daemon_t *d)
{
    simdaemon_teardown (d);
    daemon_power_free (d);
}

/* One decision of queued job id as the dispatch makes it: its entries
 * into the view (take_decision); returns whether it went out. */
static bool
daemon_one (ms_daemon_t *d, int64_t id, const tjob_t *tj, jobkey_t *kp,
            size_t *partp, uint32_t *fp)
{
    queue_job_t qj;
    ms_decision_t dec, out;
    unsigned char allowed[MS_MAX_RANKED];
    char *why = NULL, *down = NULL;
    json_t *opts = json_object ();

    memset (&qj, 0, sizeof (qj));
    qj.id = id;
    ms_strlcpy (qj.owner, "nobody", sizeof (qj.owner));
    ms_strlcpy (qj.app, tj->app, sizeof (qj.app));
    qj.nodes = tj->nodes;
    qj.time_limit_min = tj->limit_min;
    ck_assert_msg (
        daemon_decide_job (d, &qj, opts, allowed, kp, &dec, &why, &down) == 0,
        "%s: %s", tj->app, why ? why : "fits nowhere");
    kp->allowed = NULL;
    daemon_entries (d, &dec, &out);
    for (size_t c = 0; c < out.n; c++) {
        const ms_cand_t *cd = &d->ds.cs.c[out.c[c].cand];
        view_pending_add (d->ds.view, cd->part, 0,
                          cd->nodes > 0 ? cd->nodes : kp->nodes, cd->t,
                          out.c[c].nice, 0);
        if (c == 0 && partp) {
            *partp = cd->part;
            *fp = cd->f_khz;
        }
    }
    free (why);
    free (down);
    json_decref (opts);
    return out.n > 0;
}

/* The daemon's path: the first jobs queued at once, decided at each
 * cycle until they go out (the first one waits: cluster cpu down, or
 * shut by the budget); then cluster cpu up again (not under the budget)
 * and the later job. keys[] gets each job's key for the simulator. */
static void
daemon_path (world_t *w, int how, const tjob_t *lj, jobkey_t *keys, mixout_t *o)
{
    ms_daemon_t d;
    ms_dconf_t dc;
    ms_settings_t *set = ms_xcalloc (1, sizeof (*set));
    bool sent[NFIRST] = { false };
    size_t nsent = 0;

    daemon_setup (&d, &dc, set, w, how);
    if (how == WAIT_DOWN)
        d.cl[0].up = false; /* unreachable, as the refresher marks it */
    for (int cyc = 0; cyc < CYCLES; cyc++)
        for (size_t i = 0; i < NFIRST; i++)
            if (!sent[i]) {
                sent[i] = daemon_one (&d, (int64_t)i + 1, &first[i], &keys[i],
                                      NULL, NULL);
                nsent += sent[i];
            }
    ck_assert_msg (!sent[0] && nsent > 0,
                   "the first job waits, others go out: %zu went out", nsent);
    o->waiting = NFIRST - nsent;
    if (how == WAIT_DOWN) {
        d.cl[0].up = true;
        ck_assert_msg (daemon_one (&d, 1, &first[0], &keys[0], NULL, NULL),
                       "%s: still waiting with cluster cpu up", first[0].app);
    }
    o->sent
        = daemon_one (&d, NFIRST + 1, lj, &keys[NFIRST], &o->part, &o->f_khz);
    mix_read (&d.ds.mix, &d.ds.pol, o);
    free (set);
    daemon_teardown (&d);
}

static void
sim_job (const jobkey_t *k, ms_jobdesc_t *jd)
{
    memset (jd, 0, sizeof (*jd));
    jd->user = "nobody";
    jd->name = "job";
    jd->nodes = k->nodes;
    jd->nodes_max = k->nodes_max;
    jd->gpus = k->gpus;
    jd->app = (size_t)k->app;
    jd->home = k->home;
    jd->base_s = k->base_s;
    jd->limit_s = k->limit_min * 60.0;
}

/* The simulator's path: the same jobs, each sched_submit at its arrival,
 * the cluster down (sched_set_up) or the budget (sched_set_power), the
 * cycles' time passing, then the cluster up and the later job. */
static void
sim_path (world_t *w, int how, const jobkey_t *keys, mixout_t *o)
{
    simworld_t *sw;
    ms_backend_t *bk[8];
    unsigned char up[8] = { 0, 1, 1, 1, 1, 1, 1, 1 };
    ms_sched_t *s;
    ms_policy_t pol;
    ms_jobdesc_t jd;
    ms_error_t err;
    uint64_t id;
    char tag[64];
    double now = 0;

    ck_assert (w->conf->nclusters <= 8);
    ck_assert_msg (simworld_new (w->conf, SIM_EASY, truth, NULL, &sw, &err)
                       == 0,
                   "%s", err.text);
    for (size_t i = 0; i < w->conf->nclusters; i++)
        bk[i] = simworld_backend (sw, i);
    policy_init (&pol, POL_METASCHED);
    engine_dispatch_mode (&pol, false, 2);
    s = sched_new (&pol, w->conf, bk, w->tab);
    if (how == WAIT_BUDGET) {
        ms_budgets_t bs = { NULL, 0 };
        ck_assert_msg (
            power_budgets_parse ("cpu 1W", "test", w->conf, 0, &bs, &err) == 0,
            "%s", err.text);
        sched_set_power (s, &bs, pol.job_sd);
        power_budgets_free (&bs);
    } else
        ck_assert (sched_set_up (s, up, now, &err) == 0);
    for (size_t i = 0; i < NFIRST; i++) {
        sim_job (&keys[i], &jd);
        ck_assert_msg (sched_submit (s, &jd, now, &id, &err) == 0, "%s",
                       err.text);
        ck_assert (id != 0);
    }
    /* the cycles pass: nothing changes for the waiting job */
    for (int cyc = 1; cyc < CYCLES; cyc++) {
        now += 15;
        if (how == WAIT_BUDGET)
            ck_assert (sched_release (s, now, &err) == 0);
        else
            ck_assert (sched_set_up (s, up, now, &err) == 0);
    }
    o->waiting = sched_nheld (s) + sched_nwaiting (s);
    if (how == WAIT_DOWN) {
        up[0] = 1;
        ck_assert (sched_set_up (s, up, now, &err) == 0);
        ck_assert_uint_eq (sched_nwaiting (s), 0);
    }
    sim_job (&keys[NFIRST], &jd);
    jd.name = "later";
    ck_assert_msg (sched_submit (s, &jd, now, &id, &err) == 0, "%s", err.text);
    snprintf (tag, sizeof (tag), "metasched:%" PRIu64, id);
    o->sent = false;
    for (size_t i = 0; i < w->conf->nclusters && id; i++) {
        ms_job_info_t *ji = NULL;
        size_t n = 0;
        ck_assert (backend_jobs (bk[i], &ji, &n, &err) == 0);
        for (size_t j = 0; j < n && !o->sent; j++) {
            if (strcmp (ji[j].comment, tag))
                continue;
            for (size_t q = 0; q < w->conf->nparts; q++)
                if (w->conf->parts[q].cluster == i
                    && !strcmp (w->conf->parts[q].name, ji[j].partition))
                    o->part = q;
            o->f_khz = ji[j].cpu_freq_max_khz;
            o->sent = true;
        }
        free (ji);
    }
    mix_read (sched_jobmix (s), &pol, o);
    /* the simulator's policy as its last decision had it */
    o->ref_nodes = sched_jobmix (s)->njobs > 0
                       ? sched_jobmix (s)->nodes_sum / sched_jobmix (s)->njobs
                       : 0;
    sched_free (s);
    simworld_free (sw);
}

static void
same_mix (int how, const tjob_t *lj)
{
    const char *hw = how == WAIT_DOWN ? "cluster down" : "budget";
    world_t w;
    jobkey_t keys[NFIRST + 1];
    mixout_t od, os;

    world_init_site (&w, site_text, "mix");
    memset (&od, 0, sizeof (od));
    memset (&os, 0, sizeof (os));
    daemon_path (&w, how, lj, keys, &od);
    sim_path (&w, how, keys, &os);

    ck_assert_msg (od.waiting == os.waiting,
                   "%s: %zu jobs waiting (daemon) vs %zu (simulator)", hw,
                   od.waiting, os.waiting);
    /* each job counted once on both paths */
    ck_assert_msg (od.njobs == os.njobs,
                   "%s: %zu jobs counted (daemon) vs %zu (simulator), "
                   "%zu decided",
                   hw, od.njobs, os.njobs, NFIRST + 1);
    ck_assert_uint_eq (os.njobs, NFIRST + 1);
    ck_assert_msg (od.nodes_sum == os.nodes_sum,
                   "%s: %g nodes counted (daemon) vs %g (simulator)", hw,
                   od.nodes_sum, os.nodes_sum);
    ck_assert_msg (od.nring == os.nring,
                   "%s: %zu fronts kept (daemon) vs %zu (simulator)", hw,
                   od.nring, os.nring);
    for (size_t q = 0; q < w.conf->nparts; q++)
        ck_assert_msg (od.captive[q] == os.captive[q]
                           && od.restricted[q] == os.restricted[q],
                       "%s: %s: captive %g restricted %g (daemon) vs "
                       "%g, %g (simulator)",
                       hw, w.conf->parts[q].name, od.captive[q],
                       od.restricted[q], os.captive[q], os.restricted[q]);
    ck_assert_msg (fabs (od.ref_nodes - os.ref_nodes) <= 1e-12 * os.ref_nodes,
                   "%s: mean width %g (daemon) vs %g (simulator)", hw,
                   od.ref_nodes, os.ref_nodes);
    /* and the job after them goes to the same place (under the budget it
     * waits on both: cluster gpu's partitions hold the first jobs, and
     * cluster cpu is shut) */
    ck_assert_msg (od.sent == os.sent, "%s: %s sent %d (daemon) vs %d", hw,
                   lj->app, od.sent, os.sent);
    ck_assert_msg (od.sent || how == WAIT_BUDGET, "%s: %s not sent", hw,
                   lj->app);
    ck_assert_msg (!od.sent || (od.part == os.part && od.f_khz == os.f_khz),
                   "%s: %s (%d nodes) after the waiting job: %s at %u kHz "
                   "(daemon) vs %s at %u kHz (simulator)",
                   hw, lj->app, lj->nodes, w.conf->parts[od.part].name,
                   od.f_khz, w.conf->parts[os.part].name, os.f_khz);
    world_fini (&w);
}

START_TEST (test_mix_down)
{
    same_mix (WAIT_DOWN, &later[_i]);
}
END_TEST

START_TEST (test_mix_budget)
{
    same_mix (WAIT_BUDGET, &later[_i]);
}
END_TEST

/* The daemon's state stays bounded: each pass over the queue keeps the
 * jobs in flight (they may come back to it) and the queued ones it
 * decides, and forgets, once it has read the whole queue, the jobs that
 * have left it; a job back in the queue is not counted again. */
START_TEST (test_mix_forget)
{
    world_t w;
    ms_daemon_t d;
    ms_dconf_t dc;
    ms_settings_t *set = ms_xcalloc (1, sizeof (*set));
    jobkey_t k;
    queue_live_t live[2];

    world_init_site (&w, site_text, "mix");
    daemon_setup (&d, &dc, set, &w, WAIT_DOWN);
    pthread_mutex_init (&d.ds.mu, NULL);
    /* a pass: the four jobs queued, decided, sent */
    daemon_mix_live (&d, NULL, 0);
    for (size_t i = 0; i < NFIRST; i++)
        ck_assert (daemon_one (&d, (int64_t)i + 1, &first[i], &k, NULL, NULL));
    daemon_mix_prune (&d);
    ck_assert_uint_eq (jobmix_njobs (&d.ds.mix), NFIRST);
    ck_assert_uint_eq (mixids_count (&d.ds.mixed), NFIRST);
    /* the next: jobs 1 and 2 in flight, 3 and 4 ended; job 2 back in the
     * queue (its submit failed) and decided again */
    memset (live, 0, sizeof (live));
    live[0].id = 1;
    live[1].id = 2;
    daemon_mix_live (&d, live, 2);
    ck_assert (daemon_one (&d, 2, &first[1], &k, NULL, NULL));
    daemon_mix_prune (&d);
    ck_assert_uint_eq (jobmix_njobs (&d.ds.mix), NFIRST);
    ck_assert_uint_eq (mixids_count (&d.ds.mixed), 2);
    ck_assert (mixids_has (&d.ds.mixed, 1) && mixids_has (&d.ds.mixed, 2));
    ck_assert (!mixids_has (&d.ds.mixed, 3) && !mixids_has (&d.ds.mixed, 4));
    /* the next: job 1 in flight still, job 2 ended */
    daemon_mix_live (&d, live, 1);
    daemon_mix_prune (&d);
    ck_assert_uint_eq (mixids_count (&d.ds.mixed), 1);
    /* none left */
    daemon_mix_live (&d, NULL, 0);
    daemon_mix_prune (&d);
    ck_assert_uint_eq (mixids_count (&d.ds.mixed), 0);
    ck_assert_uint_eq (jobmix_njobs (&d.ds.mix), NFIRST);
    pthread_mutex_destroy (&d.ds.mu);
    free (set);
    daemon_teardown (&d);
    world_fini (&w);
}
END_TEST

/* The set itself, with many ids (its table grows, and shrinks at a
 * prune): each id counted once, those seen kept, the others forgotten. */
START_TEST (test_mixids_many)
{
    ms_mixids_t s;
    const int64_t n = 50000;

    mixids_init (&s);
    ck_assert (!mixids_has (&s, 7));
    mixids_seen (&s, 7); /* not counted: nothing */
    ck_assert_uint_eq (mixids_count (&s), 0);
    for (int64_t id = 1; id <= n; id++)
        ck_assert (mixids_add (&s, id * 7919));
    for (int64_t id = 1; id <= n; id++)
        ck_assert (!mixids_add (&s, id * 7919));
    ck_assert_uint_eq (mixids_count (&s), (size_t)n);
    ck_assert_uint_eq (mixids_prune (&s), 0);
    mixids_pass (&s);
    for (int64_t id = 1; id <= n; id += 10)
        mixids_seen (&s, id * 7919);
    ck_assert_uint_eq (mixids_prune (&s), (size_t)(n - n / 10));
    ck_assert_uint_eq (mixids_count (&s), (size_t)(n / 10));
    for (int64_t id = 1; id <= n; id++)
        ck_assert (mixids_has (&s, id * 7919) == (id % 10 == 1));
    ck_assert (!mixids_add (&s, 1 * 7919));
    ck_assert (mixids_add (&s, 2 * 7919));
    mixids_pass (&s);
    ck_assert_uint_eq (mixids_prune (&s), (size_t)(n / 10 + 1));
    ck_assert_uint_eq (mixids_count (&s), 0);
    mixids_free (&s);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("engine_mix");
    TCase *tc = tcase_create ("mix");
    tcase_set_timeout (tc, 120);
    tcase_add_loop_test (tc, test_mix_down, 0, (int)NLATER);
    tcase_add_loop_test (tc, test_mix_budget, 0, (int)NLATER);
    tcase_add_test (tc, test_mix_forget);
    tcase_add_test (tc, test_mixids_many);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
