/* test_engine_paths.c - the same jobs through the simulator's decision path
 * (sched_submit over the simulated clusters) and metaschedd's
 * (daemon_decide_job and daemon_choice_limit, the dispatch's own calls,
 * over the same site, prediction table and empty partitions): each job
 * must get the same candidates, the same choice and the same time limit
 * on both (doc/architecture.md: one engine, two callers). Several apps,
 * wide and narrow, with and without a limit, one near a partition's
 * maximum time, GPU jobs and a moldable job, under metasched and (the
 * moldable one) other policies. Then the entries that go out: the same
 * sibling sets (how many, where, at what nice and hold) in each dispatch
 * mode, the same holds under power budgets, and the same re-routes
 * under them; and a second job of the same kind sent as the first. */
#include "config.h"

#include "metasched/daemon/daemon_int.h"
#include "partitions/simcluster.h"
#include "predictor/speedup.h"
#include "tests/simdaemon.h"
#include "tests/simworld.h"

/* doc/examples/sim-gpu.conf's site; its last partition (gpu/v100) with a
 * maximum time, so that the limit's fit and cap count. */
static const char site_text[] = SIMWORLD_GPU_SITE "max_time = 120\n";

typedef struct {
    const char *app;
    int nodes;
    uint32_t limit_min; /* 0: none */
    const char *opts;   /* the job's options, as the API stores them */
} tjob_t;

/* Several apps, wide and narrow, with and without a time limit, one near
 * gpu/v100's maximum, a GPU job. */
static const tjob_t jobs[] = {
    { "lu.C", 2, 60, "{}" },
    { "ep.D", 1, 0, "{}" },
    { "DGEMM", 4, 100, "{}" },
    { "bt-mz.C", 8, 30, "{}" },
    { "STREAM", 1, 45, "{\"gpus_per_node\": \"1\"}" },
    { "sp-mz.C", 1, 0, "{\"gpus_per_node\": \"1\"}" },
    { "ua.C", 16, 240, "{}" },
    { "lu-mz.C", 2, 90, "{\"nodes_max\": 8}" },
};
#define NJOBS (sizeof (jobs) / sizeof (jobs[0]))
/* The moldable one: sized by its app's speedup model under metasched's
 * kinds, its minimum under the others. */
#define MOLDABLE (NJOBS - 1)

/* The policies of the second test: the moldable job under each. */
static const ms_polkind_t kinds[]
    = { POL_METASCHED, POL_BASE, POL_MIN_ENERGY, POL_EAMC_PRIO_V };

/* The simulated clusters' truth: never consulted before a job starts. */
static int
truth (void *arg, const void *job, size_t part, uint32_t f_khz, int nodes,
       double *runtime_s, double *power_w, ms_error_t *errp)
{
    (void)arg, (void)job, (void)part, (void)f_khz, (void)nodes, (void)errp;
    *runtime_s = 60;
    *power_w = 200;
    return 0;
}

/* What one path decided: its candidates, and each entry's partition,
 * frequency and limit (minutes). */
typedef struct {
    ms_cands_t cs;
    size_t n;
    size_t part[MS_MAX_CHOICES];
    uint32_t f_khz[MS_MAX_CHOICES];
    uint32_t limit[MS_MAX_CHOICES];
} outcome_t;

/* The daemon's path: the dispatch's decision and limits (take_decision). */
static void
daemon_path (world_t *w, ms_polkind_t kind, const tjob_t *tj, outcome_t *o,
             jobkey_t *kp)
{
    ms_daemon_t d;
    ms_dconf_t dc;
    queue_job_t qj;
    ms_decision_t dec;
    unsigned char allowed[MS_MAX_RANKED];
    char *why = NULL, *down = NULL;
    json_t *opts = json_loads (tj->opts, 0, NULL);

    simdaemon_setup (&d, &dc, w, kind);
    memset (&qj, 0, sizeof (qj));
    ms_strlcpy (qj.owner, "nobody", sizeof (qj.owner));
    ms_strlcpy (qj.app, tj->app, sizeof (qj.app));
    qj.nodes = tj->nodes;
    qj.time_limit_min = tj->limit_min;
    ck_assert_msg (
        daemon_decide_job (&d, &qj, opts, allowed, kp, &dec, &why, &down) == 0,
        "%s: %s", tj->app, why ? why : "fits nowhere");
    ck_assert_msg (dec.n > 0, "%s: no choice", tj->app);
    candidates_copy (&o->cs, &d.ds.cs);
    o->n = dec.n;
    for (size_t c = 0; c < dec.n; c++) {
        const ms_cand_t *cd = &d.ds.cs.c[dec.c[c].cand];
        o->part[c] = cd->part;
        o->f_khz[c] = cd->f_khz;
        o->limit[c] = daemon_choice_limit (
            &d, kp, cd, array_waves (&d, kp, cd->part, NULL),
            job_time_cap (&d, opts, qj.owner, cd->part));
    }
    free (why);
    free (down);
    json_decref (opts);
    kp->allowed = NULL;
    simdaemon_teardown (&d);
}

/* The simulator's path: the job as siminput describes a decided job, one
 * sched_submit, the entries as the simulated clusters hold them. */
static void
sim_path (world_t *w, ms_polkind_t kind, const jobkey_t *k, outcome_t *o)
{
    simworld_t *sw;
    ms_backend_t *bk[8];
    ms_sched_t *s;
    ms_policy_t pol;
    ms_jobdesc_t jd;
    ms_error_t err;
    uint64_t id;

    ck_assert (w->conf->nclusters <= 8);
    ck_assert_msg (simworld_new (w->conf, SIM_EASY, truth, NULL, &sw, &err)
                       == 0,
                   "%s", err.text);
    for (size_t i = 0; i < w->conf->nclusters; i++)
        bk[i] = simworld_backend (sw, i);
    policy_init (&pol, kind);
    s = sched_new (&pol, w->conf, bk, w->tab);
    memset (&jd, 0, sizeof (jd));
    jd.user = "nobody";
    jd.name = "job";
    jd.nodes = k->nodes;
    jd.nodes_max = k->nodes_max;
    jd.gpus = k->gpus;
    jd.app = (size_t)k->app;
    jd.home = k->home;
    jd.base_s = k->base_s;
    jd.limit_s = k->limit_min * 60.0;
    ck_assert_msg (sched_submit (s, &jd, 0, &id, &err) == 0, "%s", err.text);
    ck_assert (id != 0);
    candidates_copy (&o->cs, sched_candidates (s));
    o->n = 0;
    for (size_t i = 0; i < w->conf->nclusters; i++) {
        ms_job_info_t *ji = NULL;
        size_t n = 0;
        ck_assert (backend_jobs (bk[i], &ji, &n, &err) == 0);
        for (size_t j = 0; j < n && o->n < MS_MAX_CHOICES; j++) {
            long p = -1;
            for (size_t q = 0; q < w->conf->nparts; q++)
                if (w->conf->parts[q].cluster == i
                    && !strcmp (w->conf->parts[q].name, ji[j].partition))
                    p = (long)q;
            ck_assert (p >= 0);
            /* entries in the order submitted: rank 0 first */
            o->part[o->n] = (size_t)p;
            o->f_khz[o->n] = ji[j].cpu_freq_max_khz;
            o->limit[o->n] = ji[j].time_limit_min;
            o->n++;
        }
        free (ji);
    }
    sched_free (s);
    simworld_free (sw);
}

/* The simulator's entries are listed by cluster; find the daemon's first
 * choice among them. */
static long
find_entry (const outcome_t *o, size_t part, uint32_t f_khz)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->part[i] == part && o->f_khz[i] == f_khz)
            return (long)i;
    return -1;
}

/* An exact speedup model of serial fraction 0.1 for the moldable job's
 * app. */
static void
speedup_model (world_t *w, const char *app)
{
    static const int nodes[] = { 1, 2, 4, 8 };
    double t[4];
    ms_speedup_t sp;
    ms_error_t err;
    int a = predtab_app_index (w->tab, app);

    ck_assert (a >= 0);
    for (size_t i = 0; i < 4; i++)
        t[i] = 1000 * (0.1 + 0.9 / nodes[i]);
    ck_assert_msg (speedup_fit (nodes, t, 4, &sp, &err) == 0, "%s", err.text);
    predtab_set_speedup (w->tab, (size_t)a, &sp);
}

static void
same_decision (ms_polkind_t kind, const tjob_t *tj)
{
    world_t w;
    outcome_t od, os;
    jobkey_t k;
    long e;

    world_init_site (&w, site_text, "paths");
    speedup_model (&w, jobs[MOLDABLE].app);
    memset (&od, 0, sizeof (od));
    memset (&os, 0, sizeof (os));
    daemon_path (&w, kind, tj, &od, &k);
    sim_path (&w, kind, &k, &os);

    /* the same candidates, in the same order, with the same predictions */
    ck_assert_msg (od.cs.n == os.cs.n, "%s: %zu candidates (daemon) vs %zu",
                   tj->app, od.cs.n, os.cs.n);
    for (size_t i = 0; i < od.cs.n; i++) {
        const ms_cand_t *a = &od.cs.c[i], *b = &os.cs.c[i];
        ck_assert_msg (a->part == b->part && a->f_khz == b->f_khz
                           && a->nodes == b->nodes,
                       "%s (%s): candidate %zu: partition %zu at %u kHz on "
                       "%d nodes (daemon) vs %zu at %u kHz on %d",
                       tj->app, policy_kind_name (kind), i, a->part, a->f_khz,
                       a->nodes, b->part, b->f_khz, b->nodes);
        ck_assert_msg (fabs (a->t - b->t) <= 1e-9 * a->t
                           && fabs (a->e - b->e) <= 1e-9 * a->e,
                       "%s: candidate %zu: T %g vs %g, E %g vs %g", tj->app, i,
                       a->t, b->t, a->e, b->e);
    }
    /* the same choice (the simulator submits every sibling; the first
     * choice is among them) */
    e = find_entry (&os, od.part[0], od.f_khz[0]);
    ck_assert_msg (e >= 0,
                   "%s: the daemon's choice %s/%u is not the "
                   "simulator's",
                   tj->app, w.conf->parts[od.part[0]].name, od.f_khz[0]);
    ck_assert_msg (od.n == os.n, "%s: %zu entries (daemon) vs %zu", tj->app,
                   od.n, os.n);
    /* the same time limit on every entry */
    for (size_t c = 0; c < od.n; c++) {
        long x = find_entry (&os, od.part[c], od.f_khz[c]);
        ck_assert_msg (x >= 0, "%s: entry %zu %s/%u not in the simulator's",
                       tj->app, c, w.conf->parts[od.part[c]].name, od.f_khz[c]);
        ck_assert_msg (od.limit[c] == os.limit[x],
                       "%s: limit on %s at %u kHz: %u min (daemon) vs %u "
                       "min (simulator)",
                       tj->app, w.conf->parts[od.part[c]].name, od.f_khz[c],
                       od.limit[c], os.limit[x]);
    }
    candidates_free (&od.cs);
    candidates_free (&os.cs);
    world_fini (&w);
}

/* A job's entries on the simulated clusters as its comment names it
 * (metasched:<id>): partition, frequency, limit and nice, in cluster
 * order. */
typedef struct {
    size_t n;
    size_t part[MS_MAX_CHOICES];
    uint32_t f_khz[MS_MAX_CHOICES], limit[MS_MAX_CHOICES];
    int nice[MS_MAX_CHOICES];
} kept_t;

static void
sent_of (const world_t *w, ms_backend_t *const *bk, uint64_t id, kept_t *o)
{
    char tag[32];
    ms_error_t err;

    snprintf (tag, sizeof (tag), "metasched:%llu", (unsigned long long)id);
    o->n = 0;
    for (size_t i = 0; i < w->conf->nclusters; i++) {
        ms_job_info_t *ji = NULL;
        size_t n = 0;
        ck_assert (backend_jobs (bk[i], &ji, &n, &err) == 0);
        for (size_t j = 0; j < n; j++) {
            if (strcmp (ji[j].comment, tag))
                continue;
            ck_assert (o->n < MS_MAX_CHOICES);
            for (size_t q = 0; q < w->conf->nparts; q++)
                if (w->conf->parts[q].cluster == i
                    && !strcmp (w->conf->parts[q].name, ji[j].partition))
                    o->part[o->n] = q;
            o->f_khz[o->n] = ji[j].cpu_freq_max_khz;
            o->limit[o->n] = ji[j].time_limit_min;
            o->nice[o->n] = ji[j].nice;
            o->n++;
        }
        free (ji);
    }
}

/* Candidates a and b of list cs say the same, field by field (not their
 * padding, nor what holds only for some jobs: carbon and cost where cs
 * has none, shift_s, which these jobs without a deadline leave unset). */
static bool
same_cand (const ms_cands_t *cs, const ms_cand_t *a, const ms_cand_t *b)
{
    return a->part == b->part && a->fi == b->fi && a->f_khz == b->f_khz
           && a->t == b->t && a->t_hi == b->t_hi && a->p == b->p
           && a->e == b->e && a->e_hi == b->e_hi && a->w == b->w
           && a->ws == b->ws && a->wf == b->wf && a->nodes == b->nodes
           && (!cs->carbon || a->carbon_g == b->carbon_g)
           && (!cs->cost || a->cost == b->cost);
}

/* The simulator keeps what it decided for a kind of job (sched.c,
 * core/jobmemo.h): a job of the same key as one before (another
 * between them) under a kind that reads only its candidates goes out as
 * that one, and sched_candidates gives it the same list. */
static void
same_kept (ms_polkind_t kind, const tjob_t *tj)
{
    world_t w;
    outcome_t od;
    jobkey_t k;
    simworld_t *sw;
    ms_backend_t *bk[8];
    ms_sched_t *s;
    ms_policy_t pol;
    ms_jobdesc_t jd;
    ms_error_t err;
    ms_cands_t cs1 = { 0 };
    const ms_cands_t *cs2;
    kept_t a, b;
    uint64_t id1, id2;

    world_init_site (&w, site_text, "kept");
    speedup_model (&w, jobs[MOLDABLE].app);
    memset (&od, 0, sizeof (od));
    daemon_path (&w, kind, tj, &od, &k);
    ck_assert (w.conf->nclusters <= 8);
    ck_assert_msg (simworld_new (w.conf, SIM_EASY, truth, NULL, &sw, &err) == 0,
                   "%s", err.text);
    for (size_t i = 0; i < w.conf->nclusters; i++)
        bk[i] = simworld_backend (sw, i);
    policy_init (&pol, kind);
    s = sched_new (&pol, w.conf, bk, w.tab);
    memset (&jd, 0, sizeof (jd));
    jd.user = "nobody";
    jd.name = "job";
    jd.nodes = k.nodes;
    jd.nodes_max = k.nodes_max;
    jd.gpus = k.gpus;
    jd.app = (size_t)k.app;
    jd.home = k.home;
    jd.base_s = k.base_s;
    jd.limit_s = k.limit_min * 60.0;
    ck_assert_msg (sched_submit (s, &jd, 0, &id1, &err) == 0, "%s", err.text);
    candidates_copy (&cs1, sched_candidates (s));
    /* a job of another key between them: the core's list is its */
    jd.base_s *= 2;
    ck_assert_msg (sched_submit (s, &jd, 5, &id2, &err) == 0, "%s", err.text);
    jd.base_s = k.base_s;
    ck_assert_msg (sched_submit (s, &jd, 10, &id2, &err) == 0, "%s", err.text);
    ck_assert (id1 != 0 && id2 != 0 && id1 != id2);
    cs2 = sched_candidates (s);
    ck_assert_msg (cs1.n == cs2->n && cs1.n > 0 && cs1.home == cs2->home
                       && cs1.carbon == cs2->carbon && cs1.cost == cs2->cost,
                   "%s (%s): the later job's candidates differ: %zu vs %zu",
                   tj->app, policy_kind_name (kind), cs1.n, cs2->n);
    for (size_t i = 0; i < cs1.n; i++)
        ck_assert_msg (same_cand (&cs1, &cs1.c[i], &cs2->c[i]),
                       "%s (%s): the later job's candidate %zu differs",
                       tj->app, policy_kind_name (kind), i);
    sent_of (&w, bk, id1, &a);
    sent_of (&w, bk, id2, &b);
    ck_assert_msg (a.n > 0 && a.n == b.n, "%s (%s): %zu entries vs %zu",
                   tj->app, policy_kind_name (kind), a.n, b.n);
    for (size_t i = 0; i < a.n; i++)
        ck_assert_msg (
            a.part[i] == b.part[i] && a.f_khz[i] == b.f_khz[i]
                && a.limit[i] == b.limit[i] && a.nice[i] == b.nice[i],
            "%s (%s): entry %zu: %s/%u, %u min, nice %d vs %s/%u, "
            "%u min, nice %d",
            tj->app, policy_kind_name (kind), i, w.conf->parts[a.part[i]].name,
            a.f_khz[i], a.limit[i], a.nice[i], w.conf->parts[b.part[i]].name,
            b.f_khz[i], b.limit[i], b.nice[i]);
    candidates_free (&cs1);
    candidates_free (&od.cs);
    sched_free (s);
    simworld_free (sw);
    world_fini (&w);
}

/* The kinds whose decision is kept for the jobs of a key. */
static const ms_polkind_t kept_kinds[]
    = { POL_BASE,         POL_MIN_RUNTIME, POL_MIN_ENERGY, POL_EAR_MIN_ENERGY,
        POL_EAMC_REORDER, POL_EAMC_PRIO_V, POL_HOME };
#define NKEPT (sizeof (kept_kinds) / sizeof (kept_kinds[0]))

START_TEST (test_same_kept)
{
    same_kept (kept_kinds[_i % NKEPT], &jobs[_i / NKEPT]);
}
END_TEST

/* Each job under metasched, the policy users run. */
START_TEST (test_same_decision)
{
    same_decision (POL_METASCHED, &jobs[_i]);
}
END_TEST

/* The moldable job under other policies as well. */
START_TEST (test_same_decision_kinds)
{
    same_decision (kinds[_i], &jobs[MOLDABLE]);
}
END_TEST

/* The rules after dispatch: metaschedd's default settings give the policy
 * the simulator evaluates its ageing and re-routing with. */
START_TEST (test_same_defaults)
{
    ms_settings_t set;
    ms_policy_t dpol, spol;

    settings_init (&set);
    settings_apply_policy (&set, &dpol);
    policy_init (&spol, POL_METASCHED);
    ck_assert_msg (dpol.first_age == spol.first_age, "first_age %g vs %g",
                   dpol.first_age, spol.first_age);
    ck_assert_msg (dpol.reroute_after_s == spol.reroute_after_s,
                   "reroute_after_s %g (daemon) vs %g (simulator)",
                   dpol.reroute_after_s, spol.reroute_after_s);
    ck_assert_msg (dpol.max_reroutes == spol.max_reroutes,
                   "max_reroutes %d (daemon) vs %d (simulator)",
                   dpol.max_reroutes, spol.max_reroutes);
    ck_assert (dpol.reroute_gain == spol.reroute_gain);
    /* and the same decisions from them */
    ck_assert (!engine_reroute_due (&dpol, 3 * 3600, 0));
    ck_assert (engine_reroute_due (&dpol, 4 * 3600, 0));
    ck_assert (!engine_reroute_due (&dpol, 5 * 3600, 1));
    ck_assert (engine_reroute_gains (&dpol, true, 1000, 200));
    ck_assert (!engine_reroute_gains (&dpol, true, 1000, 300));
    ck_assert (!engine_reroute_gains (&dpol, false, 1000, 0));
    ck_assert (!engine_age_due (&dpol, 299, 100));
    ck_assert (engine_age_due (&dpol, 300, 100));
    ck_assert (!engine_age_due (&dpol, 1e9, 0));
}
END_TEST

/* ---- holds and sibling sets ---- */

/* metaschedd's dispatch modes of the third test: one entry a job, or
 * siblings (2, 3, every partition of the site). */
static const struct {
    ms_dispatch_mode_t mode;
    int siblings;
} modes[] = {
    { DISPATCH_SINGLE, 2 },
    { DISPATCH_SIBLINGS, 2 },
    { DISPATCH_SIBLINGS, 3 },
    { DISPATCH_SIBLINGS, 8 },
};
#define NMODES (sizeof (modes) / sizeof (modes[0]))

/* The power budgets of the fourth test: none that binds, one cluster's
 * shut (its jobs go to the other), the whole site's shut (every job held). */
static const char *const budgets[]
    = { "site 1MW", "cpu 1W", "gpu 1W", "site 1W" };
#define NBUDGETS (sizeof (budgets) / sizeof (budgets[0]))

/* What went out for a job: each entry's place, nice and hold (whole
 * seconds after the decision it may not start before; 0: none), or that
 * it is held back (no entry). */
typedef struct {
    bool held;
    size_t n;
    size_t part[MS_MAX_CHOICES];
    uint32_t f_khz[MS_MAX_CHOICES];
    int nice[MS_MAX_CHOICES];
    long hold[MS_MAX_CHOICES];
} sent_t;

/* The daemon's path: its settings as the admin sets them (the dispatch
 * mode, the siblings, the power budget), the dispatch's decision and the
 * entries it sends (daemon_entries, as take_decision does). */
/* A partition busy on both paths: every node of part (SIZE_MAX: none)
 * taken by a job of another user until `now` plus two hours. */
static void
busy_view (ms_view_t *v, const ms_siteconf_t *conf, size_t part, double now)
{
    if (part < conf->nparts)
        view_run_start (v, part, 1, conf->parts[part].nodes, now + 7200, 0);
}

static void
daemon_sent (world_t *w, ms_polkind_t kind, const tjob_t *tj,
             ms_dispatch_mode_t mode, int nsib, const char *budget, size_t busy,
             unsigned down, sent_t *o, jobkey_t *kp)
{
    ms_daemon_t d;
    ms_dconf_t dc;
    ms_settings_t *set = ms_xcalloc (1, sizeof (*set));
    queue_job_t qj;
    ms_decision_t dec, out;
    unsigned char allowed[MS_MAX_RANKED];
    char *why = NULL, *why_down = NULL;
    json_t *opts = json_loads (tj->opts, 0, NULL);

    simdaemon_setup (&d, &dc, w, kind);
    settings_init (set);
    set->policy = kind;
    set->dispatch_mode = mode;
    set->siblings = nsib;
    if (budget) {
        ms_strlcpy (set->power_budget, budget, sizeof (set->power_budget));
        set->power_budget_set = true;
    }
    daemon_apply_settings (&d, set);
    ck_assert (!budget || daemon_power_on (&d));
    busy_view (d.ds.view, w->conf, busy, wall ());
    /* the clusters down: unreachable, as the refresher marks them */
    for (size_t c = 0; c < d.ncl; c++)
        if (down & (1u << c))
            d.cl[c].up = false;
    memset (&qj, 0, sizeof (qj));
    ms_strlcpy (qj.owner, "nobody", sizeof (qj.owner));
    ms_strlcpy (qj.app, tj->app, sizeof (qj.app));
    qj.nodes = tj->nodes;
    qj.time_limit_min = tj->limit_min;
    ck_assert_msg (
        daemon_decide_job (&d, &qj, opts, allowed, kp, &dec, &why, &why_down)
            == 0,
        "%s: %s", tj->app, why ? why : "fits nowhere");
    memset (o, 0, sizeof (*o));
    o->held = dec.n == 0;
    if (o->held)
        ck_assert_msg (
            why_down
                && strstr (why_down, budget ? "power budget" : "unreachable"),
            "%s: held, but not by the %s: %s", tj->app,
            budget ? "budget" : "clusters down",
            why_down ? why_down : "(no reason)");
    daemon_entries (&d, &dec, &out);
    for (size_t c = 0; c < out.n; c++) {
        const ms_cand_t *cd = &d.ds.cs.c[out.c[c].cand];
        o->part[c] = cd->part;
        o->f_khz[c] = cd->f_khz;
        o->nice[c] = out.c[c].nice;
        o->hold[c] = out.c[c].hold_s > 0 ? (long)ceil (out.c[c].hold_s) : 0;
    }
    o->n = out.n;
    free (why);
    free (why_down);
    free (set);
    json_decref (opts);
    kp->allowed = NULL;
    daemon_power_free (&d);
    simdaemon_teardown (&d);
}

/* The simulator's path: the same dispatch mode as its policy, the budget
 * through sched_set_power, one sched_submit at time 0; the entries as the
 * simulated clusters hold them (nice, and the begin time as the time the
 * job is eligible), or the job among the held ones. */
static void
sim_sent (world_t *w, ms_polkind_t kind, const jobkey_t *k,
          ms_dispatch_mode_t mode, int nsib, const char *budget, size_t busy,
          unsigned down, sent_t *o)
{
    simworld_t *sw;
    ms_backend_t *bk[8];
    unsigned char up[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    ms_sched_t *s;
    ms_policy_t pol;
    ms_jobdesc_t jd;
    ms_error_t err;
    uint64_t id;

    ck_assert_msg (simworld_new (w->conf, SIM_EASY, truth, NULL, &sw, &err)
                       == 0,
                   "%s", err.text);
    for (size_t i = 0; i < w->conf->nclusters; i++)
        bk[i] = simworld_backend (sw, i);
    policy_init (&pol, kind);
    engine_dispatch_mode (&pol, mode == DISPATCH_SIBLINGS, nsib);
    s = sched_new (&pol, w->conf, bk, w->tab);
    if (budget) {
        ms_budgets_t bs = { NULL, 0 };
        ck_assert_msg (
            power_budgets_parse (budget, "test", w->conf, 0, &bs, &err) == 0,
            "%s", err.text);
        sched_set_power (s, &bs, pol.job_sd);
        power_budgets_free (&bs);
    }
    /* the simulator's view of its clusters, as the daemon's is given */
    busy_view ((ms_view_t *)sched_view (s), w->conf, busy, 0);
    /* the clusters down: an outage from time 0 */
    for (size_t c = 0; c < w->conf->nclusters && c < 8; c++)
        up[c] = !(down & (1u << c));
    ck_assert (sched_set_up (s, up, 0, &err) == 0);
    memset (&jd, 0, sizeof (jd));
    jd.user = "nobody";
    jd.name = "job";
    jd.nodes = k->nodes;
    jd.nodes_max = k->nodes_max;
    jd.gpus = k->gpus;
    jd.app = (size_t)k->app;
    jd.home = k->home;
    jd.base_s = k->base_s;
    jd.limit_s = k->limit_min * 60.0;
    ck_assert_msg (sched_submit (s, &jd, 0, &id, &err) == 0, "%s", err.text);
    ck_assert (id != 0);
    memset (o, 0, sizeof (*o));
    o->held = sched_nheld (s) + sched_nwaiting (s) > 0;
    for (size_t i = 0; i < w->conf->nclusters; i++) {
        ms_job_info_t *ji = NULL;
        size_t n = 0;
        ck_assert (backend_jobs (bk[i], &ji, &n, &err) == 0);
        for (size_t j = 0; j < n && o->n < MS_MAX_CHOICES; j++) {
            for (size_t q = 0; q < w->conf->nparts; q++)
                if (w->conf->parts[q].cluster == i
                    && !strcmp (w->conf->parts[q].name, ji[j].partition))
                    o->part[o->n] = q;
            o->f_khz[o->n] = ji[j].cpu_freq_max_khz;
            o->nice[o->n] = ji[j].nice;
            o->hold[o->n] = (long)(ji[j].eligible_time - ji[j].submit_time);
            o->n++;
        }
        free (ji);
    }
    sched_free (s);
    simworld_free (sw);
}

/* The same job through both paths: held on both or on neither; the same
 * entries (place, nice, hold), the simulator's listed by cluster. */
static void
same_sent (ms_polkind_t kind, const tjob_t *tj, ms_dispatch_mode_t mode,
           int nsib, const char *budget, size_t busy, unsigned down)
{
    world_t w;
    sent_t od, os;
    jobkey_t k;
    const char *m = mode == DISPATCH_SIBLINGS ? "siblings" : "single";

    world_init_site (&w, site_text, "paths");
    speedup_model (&w, jobs[MOLDABLE].app);
    daemon_sent (&w, kind, tj, mode, nsib, budget, busy, down, &od, &k);
    sim_sent (&w, kind, &k, mode, nsib, budget, busy, down, &os);
    ck_assert_msg (od.held == os.held,
                   "%s (%s, %s %d, budget %s, down %u): held %d (daemon) vs "
                   "%d (simulator)",
                   tj->app, policy_kind_name (kind), m, nsib,
                   budget ? budget : "none", down, od.held, os.held);
    ck_assert_msg (od.n == os.n,
                   "%s (%s, %s %d, budget %s): %zu entries (daemon) vs %zu "
                   "(simulator)",
                   tj->app, policy_kind_name (kind), m, nsib,
                   budget ? budget : "none", od.n, os.n);
    for (size_t c = 0; c < od.n; c++) {
        long x = -1;
        for (size_t i = 0; i < os.n; i++)
            if (os.part[i] == od.part[c] && os.f_khz[i] == od.f_khz[c])
                x = (long)i;
        ck_assert_msg (x >= 0,
                       "%s (%s %d): entry %zu %s/%u not the "
                       "simulator's",
                       tj->app, m, nsib, c, w.conf->parts[od.part[c]].name,
                       od.f_khz[c]);
        ck_assert_msg (od.nice[c] == os.nice[x] && od.hold[c] == os.hold[x],
                       "%s (%s, %s %d): entry %s/%u: nice %d held %ld s "
                       "(daemon) vs nice %d held %ld s (simulator)",
                       tj->app, policy_kind_name (kind), m, nsib,
                       w.conf->parts[od.part[c]].name, od.f_khz[c], od.nice[c],
                       od.hold[c], os.nice[x], os.hold[x]);
    }
    world_fini (&w);
}

/* Each job in each dispatch mode under metasched. */
START_TEST (test_same_siblings)
{
    same_sent (POL_METASCHED, &jobs[(size_t)_i % NJOBS],
               modes[(size_t)_i / NJOBS].mode,
               modes[(size_t)_i / NJOBS].siblings, NULL, SIZE_MAX, 0);
}
END_TEST

/* Every policy's siblings (its own nice: PriorityInc's classes). */
START_TEST (test_same_siblings_kinds)
{
    static const ms_polkind_t more[]
        = { POL_EAMC_REORDER, POL_EAMC_PRIO, POL_EAMC_PRIO_V, POL_MIN_ENERGY };
    for (size_t j = 0; j < 4; j++)
        same_sent (more[_i], &jobs[j], DISPATCH_SIBLINGS, 8, NULL, SIZE_MAX, 0);
}
END_TEST

/* Under power budgets: one entry where the budget lets it start, held
 * where none does, in either dispatch mode. */
START_TEST (test_same_holds)
{
    const char *b = budgets[(size_t)_i % NBUDGETS];
    for (size_t j = 0; j < 4; j++) {
        same_sent (POL_METASCHED, &jobs[j], DISPATCH_SINGLE, 2, b, SIZE_MAX, 0);
        same_sent (POL_METASCHED, &jobs[j], DISPATCH_SIBLINGS, 3, b, SIZE_MAX,
                   0);
    }
}
END_TEST

/* ... with a partition busy: under a budget a job goes out only where it
 * starts now (elsewhere, or held), on both paths; the CPU partition
 * (the first) and a GPU one, under each policy kind of the first test. */
START_TEST (test_same_holds_busy)
{
    const char *b = budgets[(size_t)_i % NBUDGETS];
    for (size_t j = 0; j < NJOBS; j++)
        for (size_t busy = 0; busy < 2; busy++) {
            same_sent (POL_METASCHED, &jobs[j], DISPATCH_SIBLINGS, 3, b, busy,
                       0);
            same_sent (POL_METASCHED, &jobs[j], DISPATCH_SINGLE, 2, b, busy, 0);
            same_sent (POL_EAMC_PRIO, &jobs[j], DISPATCH_SIBLINGS, 3, b, busy,
                       0);
        }
}
END_TEST

/* With clusters down (1: cpu, 2: gpu, 3: both; the outages of
 * `metasched simulate --outage`): each job goes to the clusters up or is
 * held for its clusters on both paths, with the same entries; an empty
 * site or a CPU partition busy, in either dispatch mode, under metasched
 * and PriorityInc. */
START_TEST (test_same_outage)
{
    unsigned down = (unsigned)_i + 1;
    for (size_t j = 0; j < NJOBS; j++)
        for (size_t busy = 0; busy < 2; busy++) {
            size_t b = busy ? 0 : SIZE_MAX;
            same_sent (POL_METASCHED, &jobs[j], DISPATCH_SIBLINGS, 3, NULL, b,
                       down);
            same_sent (POL_METASCHED, &jobs[j], DISPATCH_SINGLE, 2, NULL, b,
                       down);
            same_sent (POL_EAMC_PRIO, &jobs[j], DISPATCH_SIBLINGS, 3, NULL, b,
                       down);
        }
}
END_TEST

/* Re-routing under power budgets: a job sent under metasched in single
 * dispatch, its partition then busy for ten days, a budget set since
 * (none, one that does not bind, every other cluster's shut), past
 * reroute_after_s. Both paths re-route it or neither does, and to the same
 * partition: under a budget only to a place within it. */
#define BUSY_S (10 * 86400.0)
#define REROUTE_AT (MS_REROUTE_AFTER_S + 60)

typedef struct {
    size_t from; /* where it was sent */
    bool rerouted;
    size_t to; /* ... its first choice, when re-routed */
} rerouted_t;

/* The budget of case b for a job waiting on cluster cl; NULL: none. */
static const char *
reroute_budget (const world_t *w, size_t b, size_t cl, char *buf, size_t len)
{
    size_t n = 0;

    if (b == 0)
        return NULL;
    if (b == 1)
        return "site 1MW";
    buf[0] = 0;
    for (size_t i = 0; i < w->conf->nclusters; i++)
        if (i != cl) {
            int k = snprintf (buf + n, len - n, "%s%s 1W", n ? ", " : "",
                              w->conf->clusters[i].name);
            n += k > 0 ? (size_t)k : 0;
        }
    return buf;
}

/* The partition of a job pending on the simulated clusters, other than
 * `skip` (SIZE_MAX: any); -1: none. */
static long
sim_pending (world_t *w, ms_backend_t *const *bk, size_t skip)
{
    ms_error_t err;
    long part = -1;

    for (size_t i = 0; i < w->conf->nclusters; i++) {
        ms_job_info_t *ji = NULL;
        size_t n = 0;
        ck_assert (backend_jobs (bk[i], &ji, &n, &err) == 0);
        for (size_t j = 0; j < n; j++)
            for (size_t q = 0; q < w->conf->nparts; q++)
                if (ji[j].state == MS_JOB_PENDING && q != skip
                    && w->conf->parts[q].cluster == i
                    && !strcmp (w->conf->parts[q].name, ji[j].partition))
                    part = (long)q;
        free (ji);
    }
    return part;
}

static void
sim_rerouted (world_t *w, const jobkey_t *k, size_t b, rerouted_t *o)
{
    simworld_t *sw;
    ms_backend_t *bk[8];
    ms_sched_t *s;
    ms_policy_t pol;
    ms_jobdesc_t jd;
    ms_error_t err;
    uint64_t id;
    char text[256];
    const char *budget;
    long from = -1;

    ck_assert (simworld_new (w->conf, SIM_EASY, truth, NULL, &sw, &err) == 0);
    for (size_t i = 0; i < w->conf->nclusters; i++)
        bk[i] = simworld_backend (sw, i);
    policy_init (&pol, POL_METASCHED);
    engine_dispatch_mode (&pol, false, 2);
    s = sched_new (&pol, w->conf, bk, w->tab);
    memset (&jd, 0, sizeof (jd));
    jd.user = "nobody";
    jd.name = "job";
    jd.nodes = k->nodes;
    jd.gpus = k->gpus;
    jd.app = (size_t)k->app;
    jd.home = k->home;
    jd.base_s = k->base_s;
    jd.limit_s = k->limit_min * 60.0;
    ck_assert_msg (sched_submit (s, &jd, 0, &id, &err) == 0, "%s", err.text);
    memset (o, 0, sizeof (*o));
    from = sim_pending (w, bk, SIZE_MAX);
    ck_assert (from >= 0);
    o->from = (size_t)from;
    view_run_start ((ms_view_t *)sched_view (s), o->from, 1,
                    w->conf->parts[o->from].nodes, BUSY_S, 0);
    budget = reroute_budget (w, b, w->conf->parts[o->from].cluster, text,
                             sizeof (text));
    if (budget) {
        ms_budgets_t bs = { NULL, 0 };
        ck_assert_msg (
            power_budgets_parse (budget, "test", w->conf, 0, &bs, &err) == 0,
            "%s", err.text);
        sched_set_power (s, &bs, pol.job_sd);
        power_budgets_free (&bs);
    }
    ck_assert_msg (sched_reroute (s, REROUTE_AT, &err) == 0, "%s", err.text);
    o->rerouted = sched_stats (s)->rerouted > 0;
    if (o->rerouted) {
        long to = sim_pending (w, bk, o->from);
        ck_assert (to >= 0);
        o->to = (size_t)to;
    }
    sched_free (s);
    simworld_free (sw);
}

static void
daemon_rerouted (world_t *w, const tjob_t *tj, size_t b, size_t from,
                 rerouted_t *o)
{
    ms_daemon_t d;
    ms_dconf_t dc;
    ms_settings_t *set = ms_xcalloc (1, sizeof (*set));
    queue_job_t qj;
    ms_decision_t dec;
    unsigned char allowed[MS_MAX_RANKED];
    char *why = NULL, *down = NULL, text[256];
    const char *budget;
    json_t *opts = json_loads (tj->opts, 0, NULL);
    jobkey_t k;
    double wcur, wnew;

    simdaemon_setup (&d, &dc, w, POL_METASCHED);
    settings_init (set);
    set->policy = POL_METASCHED;
    set->dispatch_mode = DISPATCH_SINGLE;
    set->siblings = 2;
    daemon_apply_settings (&d, set);
    memset (&qj, 0, sizeof (qj));
    ms_strlcpy (qj.owner, "nobody", sizeof (qj.owner));
    ms_strlcpy (qj.app, tj->app, sizeof (qj.app));
    qj.nodes = tj->nodes;
    qj.time_limit_min = tj->limit_min;
    ck_assert (daemon_decide_job (&d, &qj, opts, allowed, &k, &dec, &why, &down)
               == 0);
    memset (o, 0, sizeof (*o));
    o->from = d.ds.cs.c[dec.c[0].cand].part;
    ck_assert_msg (o->from == from,
                   "%s: sent to %s (daemon) vs %s "
                   "(simulator)",
                   tj->app, w->conf->parts[o->from].name,
                   w->conf->parts[from].name);
    /* its partition busy for ten days from the dispatch, the budget set
     * since, the re-route past reroute_after_s */
    view_run_start (d.ds.view, from, 1, w->conf->parts[from].nodes,
                    wall () + BUSY_S - REROUTE_AT, 0);
    budget = reroute_budget (w, b, w->conf->parts[from].cluster, text,
                             sizeof (text));
    if (budget) {
        ms_strlcpy (set->power_budget, budget, sizeof (set->power_budget));
        set->power_budget_set = true;
        daemon_apply_settings (&d, set);
        ck_assert (daemon_power_on (&d));
    }
    o->rerouted = daemon_reroute_choice (&d, &k, from, &dec, &wcur, &wnew);
    if (o->rerouted)
        o->to = d.ds.cs.c[dec.c[0].cand].part;
    free (why);
    free (down);
    free (set);
    json_decref (opts);
    daemon_power_free (&d);
    simdaemon_teardown (&d);
}

START_TEST (test_same_reroute)
{
    static const char *const bname[] = { "none", "site 1MW", "others 1W" };
    world_t w;
    jobkey_t k;
    sent_t od;
    rerouted_t rs, rd;
    const tjob_t *tj = &jobs[(size_t)_i % 4];
    size_t b = (size_t)_i / 4;

    world_init_site (&w, site_text, "paths");
    /* the job's key as the daemon makes it */
    daemon_sent (&w, POL_METASCHED, tj, DISPATCH_SINGLE, 2, NULL, SIZE_MAX, 0, &od,
                 &k);
    sim_rerouted (&w, &k, b, &rs);
    daemon_rerouted (&w, tj, b, rs.from, &rd);
    ck_assert_msg (rd.rerouted == rs.rerouted,
                   "%s (budget %s) waiting on %s: re-routed %d (daemon, to "
                   "%s) vs %d (simulator, to %s)",
                   tj->app, bname[b], w.conf->parts[rs.from].name, rd.rerouted,
                   w.conf->parts[rd.to].name, rs.rerouted,
                   w.conf->parts[rs.to].name);
    /* without a budget its busy partition sends it elsewhere */
    ck_assert_msg (b > 0 || rs.rerouted, "%s: not re-routed from %s", tj->app,
                   w.conf->parts[rs.from].name);
    if (rd.rerouted)
        ck_assert_msg (rd.to == rs.to,
                       "%s (budget %s): re-routed to %s (daemon) vs %s "
                       "(simulator)",
                       tj->app, bname[b], w.conf->parts[rd.to].name,
                       w.conf->parts[rs.to].name);
    world_fini (&w);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("engine_paths");
    TCase *tc = tcase_create ("paths");
    tcase_set_timeout (tc, 120);
    tcase_add_loop_test (tc, test_same_decision, 0, (int)NJOBS);
    tcase_add_test (tc, test_same_defaults);
    tcase_add_loop_test (tc, test_same_decision_kinds, 0,
                         (int)(sizeof (kinds) / sizeof (kinds[0])));
    tcase_add_loop_test (tc, test_same_siblings, 0, (int)(NJOBS * NMODES));
    tcase_add_loop_test (tc, test_same_siblings_kinds, 0, 4);
    tcase_add_loop_test (tc, test_same_holds, 0, (int)NBUDGETS);
    tcase_add_loop_test (tc, test_same_holds_busy, 0, (int)NBUDGETS);
    tcase_add_loop_test (tc, test_same_reroute, 0, 12);
    tcase_add_loop_test (tc, test_same_outage, 0, 3);
    tcase_add_loop_test (tc, test_same_kept, 0, (int)(NJOBS * NKEPT));
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
