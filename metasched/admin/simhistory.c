/* simhistory.c - the site's own history as the workload of `metasched
 * simulate` (--from-db): the jobs measured in the database, clusters and
 * profiles. It reads PostgreSQL, so only metasched-full links it; in
 * `metasched` the same function runs the command line in metasched-full
 * (fullexec.c, doc/metasched-simulate.1).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "db/db.h"
#include "metasched/admin/siminput.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_json.h"
#include "metasched/api/settings.h"
#include "metasched/core/hetplace.h"
#include "metasched/common/util.h"

/* The app metaschedd decides a job of no known app as (daemon_int.h). */
#define SIM_UNKNOWN_APP "unknown"

/* The daemon's signature of an app never seen (daemon/predict.c): an
 * hour at nominal frequency on the fastest clock, power 2.5 times idle,
 * on every architecture that has none; the default model does the rest. */
static void
add_unknown_app (predictor_t *p, const ms_siteconf_t *site)
{
    uint32_t fmax = 0;
    for (size_t a = 0; a < site->narchs; a++)
        if (site->archs[a].nominal_khz > fmax)
            fmax = site->archs[a].nominal_khz;
    for (size_t a = 0; a < site->narchs; a++) {
        const ms_arch_t *ar = &site->archs[a];
        pred_signature_t sig;
        ms_error_t e;
        if (predictor_get_signature (p, SIM_UNKNOWN_APP, ar->name, &sig, &e)
            == 0)
            continue;
        memset (&sig, 0, sizeof (sig));
        sig.runtime_s = 3600.0 * fmax / ar->nominal_khz;
        sig.power_w = ar->idle_power_w > 0 ? 2.5 * ar->idle_power_w : 250;
        sig.nodes = 1;
        (void)predictor_set_signature (p, SIM_UNKNOWN_APP, ar->name, &sig, &e);
    }
}

static int64_t
user_number (const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ULL;
    return (int64_t)(h & 0x7fffffff);
}

/* A job's home as metaschedd takes it (decide.c job_key): the partition
 * where its app is fastest at nominal frequency among those with its
 * nodes; SIZE_MAX where none. *bestp gets that runtime. */
static size_t
app_home (const ms_siteconf_t *conf, const ms_predtab_t *tab, size_t app,
          int nodes, double *bestp)
{
    size_t home = SIZE_MAX;
    double best = INFINITY;

    for (size_t q = 0; q < tab->nparts; q++) {
        const ms_predent_t *e = predtab_get (tab, app, q, tab->nominal[q]);
        if (e->ok && e->t < best && conf->parts[q].nodes >= nodes) {
            best = e->t;
            home = q;
        }
    }
    if (bestp)
        *bestp = best;
    return home;
}

/* A count of a job's stored options ("tasks"); 0 where none. */
static int
opt_count (json_t *opts, const char *key)
{
    json_t *v = json_object_get (opts, key);
    return json_is_integer (v) && json_integer_value (v) > 0
                   && json_integer_value (v) <= 1000000000
               ? (int)json_integer_value (v)
               : 0;
}

/* The GPUs per node a job's stored options ask for (--gres, --gpus,
 * --gpus-per-node, --gpus-per-task, --tres-per-task), as the daemon counts
 * them when it places the job (jobspec_gpus_per_node_tasks); 0: none, or
 * options that no longer read. nodes: the job's (a hetjob's first
 * component's own where its options hold it, as the daemon reads them). */
static int
opts_gpus (json_t *opts, int nodes)
{
    ms_jobspec_t spec;
    ms_error_t e;
    int gpus = 0;

    jobspec_init (&spec);
    if (jobspec_json_read (&spec, opts, &e) == 0)
        gpus = jobspec_gpus_per_node_tasks (
            &spec, nodes, opt_count (opts, "tasks"),
            opt_count (opts, "tasks_per_node"), NULL);
    jobspec_free (&spec);
    return gpus > 0 ? gpus : 0;
}

/* The GPUs per node of a measured job: its meta job's options (a job
 * submitted to a cluster directly has none stored: a CPU job). */
static int
history_gpus (const db_replay_job_t *x)
{
    json_t *opts, *v;
    int gpus, nodes = x->nodes;

    if (!x->options || !(opts = json_loads (x->options, 0, NULL)))
        return 0;
    v = json_object_get (opts, "nodes");
    if (json_is_integer (v) && json_integer_value (v) > 0
        && json_integer_value (v) <= 100000)
        nodes = (int)json_integer_value (v);
    gpus = opts_gpus (opts, nodes);
    json_decref (opts);
    return gpus;
}

/* The jobs metaschedd decided before the window (submitted before
 * `before`, Unix time), as it re-reads them at its start
 * (daemon_mix_history, the same db_replay_decided) and counts them in its
 * job mix: each with its app's home (app_home), its user's limit for its
 * length (the app's signature runtime without one), its GPUs and moldable
 * range from its options; times relative to the window's first job (t0).
 * A job whose home no partition is left out, as the daemon leaves it. */
static int
history_prime (db_t *db, const ms_siteconf_t *conf, const ms_predtab_t *tab,
               int unknown, double before, double t0, history_t *h,
               ms_error_t *errp)
{
    db_decided_job_t *dj = NULL;
    size_t n = 0;

    if (db_replay_decided (db, before, MS_MIX_JOBS, &dj, &n, errp) < 0)
        return -1;
    h->decided = n;
    h->prime = ms_xcalloc (n + 1, sizeof (*h->prime));
    h->seen = ms_xcalloc (2 * n + 1, sizeof (*h->seen));
    for (size_t i = 0; i < n; i++) {
        const db_decided_job_t *x = &dj[i];
        ms_jobdesc_t *jd = &h->prime[h->nprime];
        int app = x->app[0] ? predtab_app_index (tab, x->app) : -1;
        size_t home;
        double best;
        int nodes = x->nodes > 0 ? x->nodes : 1;
        json_t *opts;

        /* its wait and runtime, counted whatever its app, as the daemon
         * counted them (the lean) */
        if (x->started > 0 && x->finished > 0) {
            h->seen[2 * h->nseen] = x->started - x->eligible;
            h->seen[2 * h->nseen + 1] = x->finished - x->started;
            h->nseen++;
        }
        if (app < 0)
            app = unknown;
        if (app < 0
            || (home = app_home (conf, tab, (size_t)app, nodes, &best))
                   == SIZE_MAX)
            continue;
        memset (jd, 0, sizeof (*jd));
        jd->app = (size_t)app;
        jd->home = home;
        jd->nodes = nodes;
        jd->limit_s = x->limit_min * 60.0;
        jd->base_s = jd->limit_s > 0 ? jd->limit_s : best;
        jd->submit = x->submit - t0;
        opts = json_loads (x->options ? x->options : "{}", 0, NULL);
        if (opts) {
            json_t *nm = json_object_get (opts, "nodes_max");
            jd->gpus = opts_gpus (opts, nodes);
            if (json_is_integer (nm) && json_integer_value (nm) > nodes
                && json_integer_value (nm) <= 100000)
                jd->nodes_max = (int)json_integer_value (nm);
            json_decref (opts);
        }
        h->nprime++;
    }
    db_decided_free (dj, n);
    return 0;
}

/* Architectures of the configuration the database has not seen */
static int
add_conf_archs (predictor_t *p, const ms_siteconf_t *conf, ms_error_t *errp)
{
    for (size_t a = 0; a < conf->narchs; a++) {
        const ms_arch_t *ar = &conf->archs[a];
        ms_error_t e;
        if (predictor_arch_info (p, ar->name, NULL, NULL, NULL, NULL, NULL, &e)
                < 0
            && predictor_add_arch (p, ar->name, ar->cores_per_node,
                                   ar->freqs_khz, ar->nfreqs, ar->nominal_khz,
                                   ar->idle_power_w, errp)
                   < 0)
            return -1;
    }
    return 0;
}

/* The daemon's policy as its settings say, labelled "as run" */
static void
history_as_run (ms_settings_t *set, ms_siteconf_t *conf, history_t *h)
{
    char lab[sizeof (h->as_run.label)];

    settings_apply_site (set, conf, NULL);
    settings_apply_policy (set, &h->as_run);
    /* One cluster job per job unless the daemon sends siblings. */
    h->as_run.sibling_slack
        = set->dispatch_mode == DISPATCH_SIBLINGS ? INFINITY : 0;
    ms_strlcpy (h->mode,
                set->dispatch_mode == DISPATCH_SIBLINGS ? "siblings" : "single",
                sizeof (h->mode));
    snprintf (lab, sizeof (lab), "as run: %.*s", (int)sizeof (lab) - 9,
              h->as_run.label);
    memcpy (h->as_run.label, lab, sizeof (lab));
}

/* Component k of a heterogeneous job: the partitions it fits (row) by the
 * core's check of a partition (candidates_part_fits), from its own
 * options where its meta job stored them (c: the job's spec for the
 * first, its "components" for the others) or its nodes alone. Returns the
 * nodes it asks for. */
static int
component_fits (const ms_siteconf_t *conf, const ms_jobspec_t *c, int nodes,
                uint32_t limit_min, unsigned char *row)
{
    ms_place_req_t r;
    int gpus = 0;

    memset (&r, 0, sizeof (r));
    r.nodes = nodes > 0 ? nodes : 1;
    r.time_limit_min = limit_min;
    if (c) {
        if (c->nodes > 0)
            r.nodes = c->nodes;
        if (c->time_limit_min && c->time_limit_min != UINT32_MAX)
            r.time_limit_min = c->time_limit_min;
        r.cpus_per_node = (c->ntasks_per_node > 0 ? c->ntasks_per_node : 1)
                          * (c->cpus_per_task > 0 ? c->cpus_per_task : 1);
        r.mem_per_node_mb = c->mem_per_node_mb;
        r.mem_per_cpu_mb = c->mem_per_cpu_mb;
        r.constraint = c->constraint;
        gpus = jobspec_gpus_per_node_tasks (c, r.nodes, c->ntasks,
                                            c->ntasks_per_node, NULL);
    }
    for (size_t p = 0; p < conf->nparts; p++)
        row[p] = candidates_part_fits (conf, p, &r, gpus);
    return r.nodes;
}

/* A heterogeneous job of the history (x->comps) routed as metaschedd
 * routes it (core/hetplace.h): each component's partitions, the clusters
 * where every component fits and whose nodes hold all components together
 * (a cluster's nodes: its partitions' in clusters.conf, summed,
 * hetplace_conf_nodes), and the partition each component ran on. Returns
 * the partitions it may run on (SIZE_MAX: not a hetjob). */
static size_t
history_het (const ms_siteconf_t *conf, const db_replay_job_t *x,
             ms_wjob_t *j)
{
    json_t *comps = x->comps ? json_loads (x->comps, 0, NULL) : NULL;
    json_t *opts = x->options ? json_loads (x->options, 0, NULL) : NULL;
    size_t n = json_array_size (comps), np = conf->nparts;
    uint32_t limit = x->limit_s > 0 ? (uint32_t)ceil (x->limit_s / 60) : 0;
    ms_jobspec_t spec;
    ms_error_t e;
    bool have = false;
    size_t nok = SIZE_MAX;
    int *nodes = NULL, *held = NULL;

    jobspec_init (&spec);
    if (opts && jobspec_json_read (&spec, opts, &e) == 0)
        have = true;
    if (n > 1) {
        j->ncomp = n;
        j->het_fits = ms_xcalloc (n * np + 1, 1);
        j->het_ran = ms_xcalloc (n, sizeof (*j->het_ran));
        j->allowed = ms_xcalloc (np + 1, 1);
        nodes = ms_xcalloc (n, sizeof (*nodes));
        held = ms_xcalloc (conf->nclusters + 1, sizeof (*held));
        for (size_t k = 0; k < n; k++) {
            json_t *c = json_array_get (comps, k);
            const char *pn = json_string_value (json_array_get (c, 0));
            json_t *nv = json_array_get (c, 1);
            const ms_partconf_t *pc
                = pn ? clusterconf_partition (conf, x->cluster, pn) : NULL;
            const ms_jobspec_t *cs
                = !have ? NULL : k == 0 ? &spec
                  : k - 1 < spec.nhet   ? spec.het[k - 1]
                                        : NULL;
            nodes[k] = component_fits (
                conf, cs,
                json_is_integer (nv) ? (int)json_integer_value (nv) : 1, limit,
                j->het_fits + k * np);
            j->het_ran[k] = pc ? (size_t)(pc - conf->parts) : SIZE_MAX;
        }
        memset (j->allowed, 1, np);
        hetplace_clusters (conf, j->het_fits, n, j->allowed, NULL);
        hetplace_conf_nodes (conf, held);
        nok = hetplace_sum (conf, hetplace_nodes (nodes, n), held, j->allowed,
                            NULL);
        free (held);
        free (nodes);
    }
    jobspec_free (&spec);
    json_decref (opts);
    json_decref (comps);
    return nok;
}

/* One measured job of the history into the workload and its record of
 * where and how it ran; counted in h->no_* where the configuration cannot
 * take it. *t0 is the first job's submit time (set by the first). */
static void
history_job (const ms_siteconf_t *conf, ms_predtab_t *tab, int unknown,
             const db_replay_job_t *x, ms_workload_t *wl, history_t *h,
             double *t0, ms_cands_t *cs)
{
    const ms_partconf_t *pc
        = clusterconf_partition (conf, x->cluster, x->partition);
    const ms_arch_t *ar;
    const ms_predent_t *m, *hr;
    ms_wjob_t *j;
    ms_jobrec_t *r;
    size_t part, home = SIZE_MAX;
    uint32_t f;
    int fi, app;

    h->het += x->components > 1; /* a hetjob read whole */
    h->het_parts += x->components > 1 ? (size_t)x->components : 0;
    if (!pc) {
        h->no_part++;
        return;
    }
    part = (size_t)(pc - conf->parts);
    ar = &conf->archs[pc->arch];
    f = x->freq_khz ? x->freq_khz : ar->nominal_khz;
    if ((fi = clusterconf_freq_index (ar, f)) < 0) {
        h->no_freq++;
        return;
    }
    app = predtab_app_index (tab, x->app);
    if (app < 0)
        app = unknown;
    m = predtab_get (tab, (size_t)app, part, (size_t)fi);
    if (app >= 0)
        home = app_home (conf, tab, (size_t)app, x->nodes, NULL);
    if (app < 0 || !m->ok || home == SIZE_MAX) {
        h->no_home++;
        return;
    }
    hr = predtab_get (tab, (size_t)app, home, tab->nominal[home]);
    if (!wl->njobs)
        *t0 = x->submit;
    j = &wl->jobs[wl->njobs];
    r = &h->recs[wl->njobs];
    if (history_het (conf, x, j) == 0) {
        /* a hetjob one of whose components fits no cluster with the
         * others: metaschedd refuses it (HTTP 409), as one that fits
         * nowhere */
        free (j->het_fits);
        free (j->allowed);
        free (j->het_ran);
        memset (j, 0, sizeof (*j));
        h->no_home++;
        return;
    }
    wl->njobs++;
    j->id = wl->njobs;
    j->trace_id = x->meta_id ? x->meta_id : (int64_t)x->slurm_job_id;
    j->submit = x->submit - *t0;
    j->nodes = x->nodes;
    j->runtime = x->runtime_s * hr->t / m->t;
    j->req_time = x->limit_s;
    j->user = user_number (x->user_name);
    j->exe = -1;
    j->app = app;
    j->gpus = history_gpus (x);
    j->measured = true;
    j->home = home;
    j->ran_part = part;
    j->ran_khz = f;
    j->ran_runtime_s = x->runtime_s;
    j->ran_power_w = x->node_rows > 0 && x->energy_j > 0
                         ? x->energy_j / x->runtime_s / x->node_rows
                         : 0;
    r->submit = j->submit;
    r->start = x->start - *t0;
    r->end = x->start - *t0 + x->runtime_s;
    r->nodes = x->nodes;
    r->part = part;
    r->f_khz = f;
    r->energy_j
        = (j->ran_power_w > 0 ? j->ran_power_w : m->p) * x->runtime_s * x->nodes;
    r->starts = r->ends = 1;
    candidates_build (tab, (size_t)app, home, j->nodes, j->runtime, NULL, 0, cs);
    candidates_gpus (conf, j->nodes, j->gpus, cs);
    if (j->allowed) { /* a hetjob: the clusters where all its components fit */
        size_t k = 0;
        for (size_t i = 0; i < cs->n; i++)
            if (j->allowed[cs->c[i].part])
                cs->c[k++] = cs->c[i];
        cs->n = k;
    }
    r->opt_part = policy_optimal_partition (cs, tab->nparts);
}

/* The workload of the jobs measured in the database since --since, the
 * predictor of its models, and the daemon's policy as its settings say.
 * Every job keeps where it ran, its measured runtime and power (the
 * simulator's truth there), its user's time limit and its submit time;
 * its home is the daemon's: the fastest partition at nominal frequency
 * for its app where it fits (decide.c job_key). */
int
siminput_history_load (const opts_t *o, ms_siteconf_t *conf,
                       predictor_t **predp, ms_predtab_t **tabp,
                       ms_workload_t **wlp, history_t *h, ms_error_t *errp)
{
    db_opts_t dbo;
    db_t *db = NULL;
    db_replay_job_t *hj = NULL;
    size_t nh = 0;
    predictor_t *p = predictor_new ();
    ms_predtab_t *tab = NULL;
    ms_workload_t *wl = NULL;
    ms_settings_t set;
    ms_cands_t cs = { 0 };
    int unknown, rc = -1;
    double t0 = 0;

    memset (&dbo, 0, sizeof (dbo));
    dbo.conninfo = o->from_db;
    dbo.password_file = o->password_file;
    dbo.application_name = "metasched simulate";
    dbo.retry_max_ms = 2000;
    if (db_open (&dbo, &db, errp) < 0) {
        ms_err_prefix (errp, "--from-db");
        goto done;
    }
    if (db_predictor_load (db, p, &h->npairs, errp) < 0
        || settings_load (db, &set, h->ignored, sizeof (h->ignored), errp) < 0
        || db_replay_load (db, (double)time (NULL) - o->since_days * 86400,
                           &hj, &nh, errp)
               < 0) {
        ms_err_prefix (errp, "--from-db");
        goto done;
    }
    if (add_conf_archs (p, conf, errp) < 0)
        goto done;
    add_unknown_app (p, conf);
    if (predtab_build (p, conf, &tab, errp) < 0)
        goto done;
    unknown = predtab_app_index (tab, SIM_UNKNOWN_APP);
    history_as_run (&set, conf, h);

    h->read = nh;
    wl = ms_xcalloc (1, sizeof (*wl));
    wl->jobs = ms_xcalloc (nh + 1, sizeof (*wl->jobs));
    h->recs = ms_xcalloc (nh + 1, sizeof (*h->recs));
    for (size_t i = 0; i < nh; i++)
        history_job (conf, tab, unknown, &hj[i], wl, h, &t0, &cs);
    if (wl->njobs
        && history_prime (db, conf, tab, unknown, wl->jobs[0].submit + t0, t0,
                          h, errp)
               < 0) {
        ms_err_prefix (errp, "--from-db");
        goto done;
    }
    if (!wl->njobs) {
        ms_err (errp, MS_ERR_INPUT,
                "--from-db: no measured job of the last %g days runs on a "
                "partition of %s (%zu read, %zu on partitions it lacks, "
                "%zu at frequencies it lacks)",
                o->since_days, conf->path, nh, h->no_part, h->no_freq);
        goto done;
    }
    *predp = p;
    *tabp = tab;
    *wlp = wl;
    p = NULL;
    tab = NULL;
    wl = NULL;
    rc = 0;
done:
    candidates_free (&cs);
    db_replay_free (hj, nh);
    workload_free (wl);
    predtab_free (tab);
    predictor_free (p);
    db_close (db);
    return rc;
}
