/* cmd_simulate.c - `metasched simulate`: replay a workload through every
 * policy on simulated clusters and report the metrics of DESIGN.md 6 side
 * by side, with CSV and plots. With no arguments it runs the embedded
 * default: three clusters built from Table 6.1 of the EAMC chapter and a
 * generated workload, entirely inside the program.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "metasched/api/settings.h"
#include "metasched/core/candidates.h"
#include "metasched/admin/commands.h"
#include "metasched/sim/metrics.h"
#include "metasched/sim/plot.h"
#include "metasched/core/policy.h"
#include "metasched/sim/simulate.h"
#include "metasched/common/util.h"
#include "metasched/sim/workload.h"
#include "partitions/clusterconf.h"
#include "partitions/swf.h"
#include "predictor/predictor.h"
#include "predictor/gpuprof.h"
#include "predictor/speedup.h"

#define MAX_RUNS 64
#define UTIL_BINS 200
#define SIM_DEFAULT_CLUSTERS_CONF MS_SYSCONFDIR "/metasched/clusters.conf"
/* The app metaschedd decides a job of no known app as (daemon_int.h). */
#define SIM_UNKNOWN_APP "unknown"

typedef struct {
    const char *outdir;
    const char *scenario;
    const char *config;
    const char *data;
    const char *trace;
    const char *home;
    const char *profiles;
    const char *mix;
    const char *policies;
    const char *t_weights;
    const char *sweep;
    const char *from_db;       /* conninfo of the report role */
    const char *password_file; /* 0600 file with its password */
    double since_days;
    double gpu_share; /* share of GPU jobs in the workload */
    int gpus_per_job; /* at most this many GPUs per node (0: the most any
                         partition has) */
    const char *gpu_profiles; /* apps' GPU profiles (predictor/gpuprof.h) */
    double moldable_share; /* share of moldable jobs in the workload */
    int mold_lo, mold_hi;  /* their node range (--moldable-range) */
    int cores_per_node;
    size_t replicate;
    bool skip_malformed;
    ms_genparams_t gen;
    bool gen_set;
    double theta, w_energy, max_slowdown, noise, congestion, slack, waitw;
    int same_class;
    bool exact;
    bool plots;
    bool quiet;
    uint64_t seed;
    sim_backfill_t backfill;
} opts_t;

static void
usage (FILE *f)
{
    fprintf (
        f,
        "Usage: metasched simulate [OPTIONS]\n"
        "Replay a workload through every policy on simulated clusters.\n"
        "With no options: the embedded default (Table 6.1 clusters, a\n"
        "generated workload of 2000 jobs).\n\n"
        "  -o, --output DIR         where CSV and plots go (./sim-out)\n"
        "  -s, --scenario NAME      default, eamc, kth or curie\n"
        "  -d, --data DIR           shared data for eamc/kth/curie\n"
        "                           (../shared/data)\n"
        "  -c, --config FILE        cluster configuration (simulated "
        "clusters)\n"
        "  -t, --trace FILE         SWF trace (.swf or .swf.gz) as workload\n"
        "      --home CLUSTER/PART  the trace's home partition (first)\n"
        "      --cores-per-node N   the trace system's cores per node\n"
        "                           (header MaxProcs/MaxNodes, else the\n"
        "                           home architecture's)\n"
        "      --replicate N        repeat the trace N times in sequence\n"
        "      --from-db CONNINFO   the site's own history as the workload:\n"
        "                           the jobs measured in PostgreSQL (report\n"
        "                           role), profiles from its fitted models,\n"
        "                           the daemon's settings as one more row;\n"
        "                           clusters from -c (default\n"
        "                           " SIM_DEFAULT_CLUSTERS_CONF ")\n"
        "      --since DAYS         --from-db: jobs that ended in the last\n"
        "                           DAYS days (30; fractions allowed)\n"
        "      --password-file F    --from-db: 0600 file with the password\n"
        "      --skip-malformed     skip and count malformed trace lines\n"
        "  -n, --jobs N             generated workload: number of jobs\n"
        "      --interarrival S     generated: mean seconds between jobs\n"
        "      --mean-nodes N       generated: mean nodes per job\n"
        "      --mean-runtime S     generated: mean runtime (s)\n"
        "      --profiles P         table61, or eamc2hw:DIR\n"
        "      --gpu-share X        make this share (0-1) of the jobs GPU\n"
        "                           jobs (needs partitions with GPUs)\n"
        "      --gpus-per-job N     GPU jobs ask for 1 to N GPUs per node\n"
        "                           (the most a partition has)\n"
        "      --gpu-profiles FILE  apps' GPU profiles: GPUs per node, busy\n"
        "                           power, time per GPU model\n"
        "      --moldable-share X   make this share (0-1) of the jobs "
        "moldable\n"
        "      --moldable-range A-B moldable jobs take A to B nodes (1-4)\n"
        "      --mix M              uniform, or the percentage of jobs whose\n"
        "                           app favours a partition other than home\n"
        "  -p, --policies LIST      comma-separated (all): base,min_runtime,\n"
        "                           min_energy,ear_min_energy,eamc_reorder,\n"
        "                           eamc_priority_inc,eamc_priority_inc_v,\n"
        "                           metasched,metasched_window (metasched's\n"
        "                           scores, the jobs of one 60 s cycle\n"
        "                           placed together by an integer program)\n"
        "      --t-weight LIST      EAMC t_weight values (1,1.5)\n"
        "      --theta X            ear_min_energy time penalty (0.1)\n"
        "      --w-energy X         metasched energy weight (0.5)\n"
        "      --max-slowdown X     metasched maximum slowdown (1.3)\n"
        "      --sweep LIST         metasched energy weights for the Pareto\n"
        "                           front (0,0.2,0.4,0.5,0.6,0.8,0.9,1)\n"
        "      --backfill B         easy, fcfs or conservative (easy)\n"
        "      --noise SIGMA        runtime noise of the truth (0.05)\n"
        "      --exact-estimates    predictions from true runtimes, not\n"
        "                           from time limits\n"
        "      --seed N             seed of workload, apps and noise (1)\n"
        "      --no-plots           write no plots\n"
        "  -q, --quiet              print only the table\n"
        "  -h, --help\n");
}

static int
parse_double (const char *s, double *out)
{
    char *e;
    errno = 0;
    *out = strtod (s, &e);
    return (*e || e == s || errno || !isfinite (*out)) ? -1 : 0;
}

static size_t
parse_list (const char *s, double *out, size_t max)
{
    char buf[512], *tok, *save;
    size_t n = 0;
    ms_strlcpy (buf, s, sizeof (buf));
    for (tok = strtok_r (buf, ",", &save); tok && n < max;
         tok = strtok_r (NULL, ",", &save)) {
        if (parse_double (tok, &out[n]) < 0)
            return SIZE_MAX;
        n++;
    }
    return n;
}

/* Scenario presets: the generator and the data each needs. */
static void
scenario_defaults (opts_t *o)
{
    workload_gen_defaults (&o->gen);
    o->gen.seed = o->seed;
    if (!strcmp (o->scenario, "default")) {
        o->gen.njobs = 2000;
        o->gen.mean_interarrival_s = 110;
        o->gen.mean_nodes = 8;
        o->gen.max_nodes = 96;
        o->gen.mean_runtime_s = 3600;
    } else if (!strcmp (o->scenario, "eamc")) {
        /* seeds/000 6.5: 5000 jobs, 18.29 nodes and 3.65 h on average at
         * the highest frequency, a makespan of 10 to 15 days. */
        o->gen.njobs = 5000;
        o->gen.mean_interarrival_s = 160;
        o->gen.mean_nodes = 18.29;
        o->gen.sigma_nodes = 1.2;
        o->gen.max_nodes = 512;
        o->gen.mean_runtime_s = 3.65 * 3600;
        o->gen.sigma_runtime = 1.0;
        o->gen.max_runtime_s = 48 * 3600;
    }
}

static int
setup_predictor (const opts_t *o, const ms_siteconf_t *conf,
                 predictor_t **predp, ms_error_t *errp)
{
    predictor_t *p = predictor_new ();
    const char *prof = o->profiles;

    for (size_t i = 0; i < conf->narchs; i++) {
        const ms_arch_t *a = &conf->archs[i];
        if (predictor_add_arch (p, a->name, a->cores_per_node, a->freqs_khz,
                                a->nfreqs, a->nominal_khz, a->idle_power_w,
                                errp)
            < 0)
            goto fail;
    }
    if (!strncmp (prof, "eamc2hw:", 8)) {
        if (predictor_load_eamc2hw (p, prof + 8, errp) < 0)
            goto fail;
    } else if (!strcmp (prof, "table61")) {
        /* The three Table 6.1 partitions by architecture name; an arch
         * the configuration lacks is skipped. */
        static const char *const t61[3] = { "skx8168", "clx6254", "skx6148" };
        const char *a[3];
        for (int k = 0; k < 3; k++)
            a[k] = clusterconf_arch (conf, t61[k]) ? t61[k] : NULL;
        if (!a[0] && !a[1] && !a[2]) {
            ms_err (errp, MS_ERR_INPUT,
                    "--profiles table61 needs architectures named skx8168, "
                    "clx6254 or skx6148 (Table 6.1 p1, p2, p3)");
            goto fail;
        }
        if (predictor_load_table61 (p, a[0], a[1], a[2], errp) < 0)
            goto fail;
    } else {
        ms_err (errp, MS_ERR_INPUT, "unknown profile set '%s'", prof);
        goto fail;
    }
    *predp = p;
    return 0;
fail:
    predictor_free (p);
    return -1;
}

/* App weights for the mix (see --mix). */
static int
mix_weights (const opts_t *o, const ms_predtab_t *tab, size_t home, double *wts,
             char *desc, size_t desclen, ms_error_t *errp)
{
    size_t napps = tab->napps, nfav = 0;
    bool fav[256] = { false };
    double m;
    ms_cands_t cs = { 0 };

    for (size_t a = 0; a < napps && a < 256; a++) {
        const ms_predent_t *ref
            = predtab_get (tab, a, home, tab->nominal[home]);
        size_t opt;
        candidates_build (tab, a, home, 1, ref->ok ? ref->t : 1, NULL, 0, &cs);
        opt = policy_optimal_partition (&cs, tab->nparts);
        fav[a] = opt != SIZE_MAX && opt != home;
        nfav += fav[a];
    }
    candidates_free (&cs);
    if (!strcmp (o->mix, "uniform")) {
        for (size_t a = 0; a < napps; a++)
            wts[a] = 1.0 / napps;
        snprintf (desc, desclen,
                  "uniform over %zu apps (%.1f%% favour "
                  "another partition than home)",
                  napps, 100.0 * nfav / napps);
        return 0;
    }
    if (parse_double (o->mix, &m) < 0 || m < 0 || m > 100)
        return ms_err (errp, MS_ERR_INPUT,
                       "--mix: '%s' is neither uniform "
                       "nor a percentage",
                       o->mix);
    m /= 100;
    if (nfav == 0 || nfav == napps)
        return ms_err (errp, MS_ERR_INPUT,
                       "--mix %s: %s app favours another partition than "
                       "home, so no mix can be set",
                       o->mix, nfav ? "every" : "no");
    for (size_t a = 0; a < napps; a++)
        wts[a] = fav[a] ? m / nfav : (1 - m) / (napps - nfav);
    snprintf (desc, desclen,
              "%.0f%% of jobs run apps favouring another "
              "partition than home (",
              100 * m);
    for (size_t a = 0; a < napps; a++)
        if (fav[a] && strlen (desc) + strlen (tab->apps[a]) + 3 < desclen) {
            strcat (desc, tab->apps[a]);
            strcat (desc, " ");
        }
    desc[strlen (desc) - 1] = ')';
    return 0;
}

/* ---- the site's own history (--from-db) ---- */

typedef struct {
    ms_jobrec_t *recs;  /* as measured, one per workload job */
    ms_policy_t as_run; /* the daemon's policy with its settings */
    size_t read, no_part, no_freq, no_home;
    size_t npairs;
    char ignored[512];
    char mode[16];
} history_t;

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

/* The workload of the jobs measured in the database since --since, the
 * predictor of its models, and the daemon's policy as its settings say.
 * Every job keeps where it ran, its measured runtime and power (the
 * simulator's truth there), its user's time limit and its submit time;
 * its home is the daemon's: the fastest partition at nominal frequency
 * for its app where it fits (decide.c job_key). */
static int
history_load (const opts_t *o, ms_siteconf_t *conf, predictor_t **predp,
              ms_predtab_t **tabp, ms_workload_t **wlp, history_t *h,
              ms_error_t *errp)
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
    /* Architectures of the configuration the database has not seen. */
    for (size_t a = 0; a < conf->narchs; a++) {
        const ms_arch_t *ar = &conf->archs[a];
        ms_error_t e;
        if (predictor_arch_info (p, ar->name, NULL, NULL, NULL, NULL, NULL, &e)
                < 0
            && predictor_add_arch (p, ar->name, ar->cores_per_node,
                                   ar->freqs_khz, ar->nfreqs, ar->nominal_khz,
                                   ar->idle_power_w, errp)
                   < 0)
            goto done;
    }
    add_unknown_app (p, conf);
    if (predtab_build (p, conf, &tab, errp) < 0)
        goto done;
    unknown = predtab_app_index (tab, SIM_UNKNOWN_APP);
    settings_apply_site (&set, conf, NULL);
    settings_apply_policy (&set, &h->as_run);
    /* One cluster job per job unless the daemon sends siblings. */
    h->as_run.sibling_slack
        = set.dispatch_mode == DISPATCH_SIBLINGS ? INFINITY : 0;
    ms_strlcpy (h->mode,
                set.dispatch_mode == DISPATCH_SIBLINGS ? "siblings" : "single",
                sizeof (h->mode));
    {
        char lab[sizeof (h->as_run.label)];
        snprintf (lab, sizeof (lab), "as run: %.*s", (int)sizeof (lab) - 9,
                  h->as_run.label);
        memcpy (h->as_run.label, lab, sizeof (lab));
    }

    h->read = nh;
    wl = ms_xcalloc (1, sizeof (*wl));
    wl->jobs = ms_xcalloc (nh + 1, sizeof (*wl->jobs));
    h->recs = ms_xcalloc (nh + 1, sizeof (*h->recs));
    for (size_t i = 0; i < nh; i++) {
        const db_replay_job_t *x = &hj[i];
        const ms_partconf_t *pc
            = clusterconf_partition (conf, x->cluster, x->partition);
        const ms_arch_t *ar;
        const ms_predent_t *m, *hr;
        ms_wjob_t *j;
        ms_jobrec_t *r;
        size_t part, home = SIZE_MAX;
        double best = INFINITY;
        uint32_t f;
        int fi, app;

        if (!pc) {
            h->no_part++;
            continue;
        }
        part = (size_t)(pc - conf->parts);
        ar = &conf->archs[pc->arch];
        f = x->freq_khz ? x->freq_khz : ar->nominal_khz;
        if ((fi = clusterconf_freq_index (ar, f)) < 0) {
            h->no_freq++;
            continue;
        }
        app = predtab_app_index (tab, x->app);
        if (app < 0)
            app = unknown;
        m = predtab_get (tab, (size_t)app, part, (size_t)fi);
        for (size_t q = 0; q < tab->nparts; q++) {
            const ms_predent_t *e
                = predtab_get (tab, (size_t)app, q, tab->nominal[q]);
            if (e->ok && e->t < best && conf->parts[q].nodes >= x->nodes) {
                best = e->t;
                home = q;
            }
        }
        if (app < 0 || !m->ok || home == SIZE_MAX) {
            h->no_home++;
            continue;
        }
        hr = predtab_get (tab, (size_t)app, home, tab->nominal[home]);
        if (!wl->njobs)
            t0 = x->submit;
        j = &wl->jobs[wl->njobs];
        r = &h->recs[wl->njobs];
        wl->njobs++;
        j->id = wl->njobs;
        j->trace_id = x->meta_id ? x->meta_id : (int64_t)x->slurm_job_id;
        j->submit = x->submit - t0;
        j->nodes = x->nodes;
        j->runtime = x->runtime_s * hr->t / m->t;
        j->req_time = x->limit_s;
        j->user = user_number (x->user_name);
        j->exe = -1;
        j->app = app;
        j->measured = true;
        j->home = home;
        j->ran_part = part;
        j->ran_khz = f;
        j->ran_runtime_s = x->runtime_s;
        j->ran_power_w = x->node_rows > 0 && x->energy_j > 0
                             ? x->energy_j / x->runtime_s / x->node_rows
                             : 0;
        r->submit = j->submit;
        r->start = x->start - t0;
        r->end = x->start - t0 + x->runtime_s;
        r->nodes = x->nodes;
        r->part = part;
        r->f_khz = f;
        r->energy_j = (j->ran_power_w > 0 ? j->ran_power_w : m->p)
                      * x->runtime_s * x->nodes;
        r->starts = r->ends = 1;
        candidates_build (tab, (size_t)app, home, j->nodes, j->runtime, NULL,
                          0, &cs);
        r->opt_part = policy_optimal_partition (&cs, tab->nparts);
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
    free (hj);
    workload_free (wl);
    predtab_free (tab);
    predictor_free (p);
    db_close (db);
    return rc;
}

static int
mkdir_p (const char *dir, ms_error_t *errp)
{
    char buf[4096];
    ms_strlcpy (buf, dir, sizeof (buf));
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir (buf, 0777) < 0 && errno != EEXIST)
                return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", buf,
                               strerror (errno));
            *p = '/';
        }
    if (mkdir (buf, 0777) < 0 && errno != EEXIST)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", buf, strerror (errno));
    return 0;
}

static int
wanted (const char *list, ms_polkind_t k)
{
    char buf[512], *tok, *save;
    if (!list)
        return 1;
    ms_strlcpy (buf, list, sizeof (buf));
    for (tok = strtok_r (buf, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save))
        if (!strcmp (tok, policy_kind_name (k)))
            return 1;
    return 0;
}

static int
check_policies (const char *list, ms_error_t *errp)
{
    char buf[512], *tok, *save;
    ms_polkind_t k;
    if (!list)
        return 0;
    ms_strlcpy (buf, list, sizeof (buf));
    for (tok = strtok_r (buf, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save))
        if (policy_kind_parse (tok, &k) < 0)
            return ms_err (errp, MS_ERR_INPUT, "unknown policy '%s'", tok);
    return 0;
}

/* ---- apps' GPU profiles (--gpu-profiles) ---- */

/* Load the profiles into the prediction table; the jobs of an app whose
 * profile gives gpus_per_node become GPU jobs with that many GPUs per
 * node (their nodes clipped to the largest partition with as many). */
static int
gpu_profiles (const opts_t *o, const ms_siteconf_t *conf, ms_predtab_t *tab,
              ms_workload_t *wl, ms_error_t *errp)
{
    pred_gpuprof_t *gp = NULL;
    size_t n = 0, njobs = 0;

    if (gpuprof_load (o->gpu_profiles, &gp, &n, errp) < 0)
        return ms_err_prefix (errp, "--gpu-profiles");
    for (size_t i = 0; i < n; i++) {
        int a = predtab_app_index (tab, gp[i].app), maxn = 0;
        if (a < 0) {
            ms_err (errp, MS_ERR_INPUT,
                    "--gpu-profiles: %s:%d: app %s is not in the profiles "
                    "(%s)",
                    o->gpu_profiles, gp[i].line, gp[i].app, o->profiles);
            free (gp);
            return -1;
        }
        predtab_set_gpuprof (tab, (size_t)a, &gp[i]);
        if (!gp[i].gpus_per_node)
            continue;
        for (size_t p = 0; p < conf->nparts; p++)
            if (conf->parts[p].gpus_per_node >= gp[i].gpus_per_node
                && conf->parts[p].nodes > maxn)
                maxn = conf->parts[p].nodes;
        if (!maxn) {
            ms_err (errp, MS_ERR_INPUT,
                    "--gpu-profiles: %s:%d: app %s uses %d GPUs per node; "
                    "the most a partition of %s has is %d",
                    o->gpu_profiles, gp[i].line, gp[i].app,
                    gp[i].gpus_per_node, conf->path,
                    candidates_max_gpus (conf));
            free (gp);
            return -1;
        }
        for (size_t k = 0; k < wl->njobs; k++)
            if (wl->jobs[k].app == a) {
                wl->jobs[k].gpus = gp[i].gpus_per_node;
                if (wl->jobs[k].nodes > maxn)
                    wl->jobs[k].nodes = maxn;
                njobs++;
            }
    }
    if (!o->quiet)
        printf ("GPU profiles: %s, %zu apps; %zu jobs of GPU apps\n",
                o->gpu_profiles, n, njobs);
    free (gp);
    return 0;
}

/* ---- moldable jobs (--moldable-share) ---- */

#define MOLD_SERIAL_LO 0.02
#define MOLD_SERIAL_HI 0.30

/* Each app's true serial fraction (a hash of the seed and the app,
 * uniform in MOLD_SERIAL_LO..HI), and the speedup model the core sizes
 * its moldable jobs with: fitted, as a site would, from runs of the app
 * at 1, 2, 4 and 8 nodes (three each) drawn from that truth with the
 * truth's runtime noise. */
static int
moldable_models (const opts_t *o, ms_predtab_t *tab, double *serial,
                 ms_error_t *errp)
{
    static const int counts[] = { 1, 2, 4, 8 };
    for (size_t a = 0; a < tab->napps; a++) {
        int nodes[12];
        double t[12];
        size_t n = 0;
        ms_speedup_t sp;
        uint64_t h = ms_hash64 (o->seed * 0x100000001b3ULL ^ a ^ 0x73706475ULL);
        double sf = MOLD_SERIAL_LO
                    + (MOLD_SERIAL_HI - MOLD_SERIAL_LO) * ms_hash_unit (h);
        serial[a] = sf;
        for (size_t k = 0; k < 4; k++)
            for (int r = 0; r < 3; r++) {
                h = ms_hash64 (h + 1);
                nodes[n] = counts[k];
                t[n++] = 3600 * (sf + (1 - sf) / counts[k])
                         * exp (o->noise * ms_hash_normal (h));
            }
        if (speedup_fit (nodes, t, n, &sp, errp) < 0)
            return ms_err_prefix (errp, "--moldable-share: app %s",
                                  tab->apps[a]);
        predtab_set_speedup (tab, a, &sp);
    }
    return 0;
}

/* What moldability saved: metasched (the first of its rows) on the same
 * workload with every moldable job fixed at its minimum. */
static int
moldable_saved (const opts_t *o, ms_simsetup_t *su, const ms_policy_t *pols,
                size_t npols, const ms_summary_t *rows, ms_jobrec_t *recs,
                ms_error_t *errp)
{
    ms_workload_t fixed = *su->wl;
    const ms_workload_t *wl = su->wl;
    ms_summary_t fs;
    size_t k, nmold = 0;
    double wider = 0;
    int rc;

    for (k = 0; k < npols; k++)
        if (pols[k].kind == POL_METASCHED)
            break;
    if (k == npols)
        return 0;
    fixed.jobs = ms_xcalloc (wl->njobs + 1, sizeof (*fixed.jobs));
    memcpy (fixed.jobs, wl->jobs, wl->njobs * sizeof (*fixed.jobs));
    for (size_t i = 0; i < wl->njobs; i++)
        fixed.jobs[i].nodes_max = 0;
    su->wl = &fixed;
    su->progress = "metasched, moldable jobs fixed";
    rc = simulate_run (su, &pols[k], recs, &fs, errp);
    su->wl = wl;
    free (fixed.jobs);
    if (rc < 0)
        return -1;
    (void)o;
    /* the moldable run's counts: simulate_run left the last policy's
     * records, so run the moldable one again for them */
    ms_summary_t ms;
    if (simulate_run (su, &pols[k], recs, &ms, errp) < 0)
        return -1;
    for (size_t i = 0; i < wl->njobs; i++)
        if (wl->jobs[i].nodes_max > 0 && !recs[i].rejected) {
            nmold++;
            wider += recs[i].nodes - wl->jobs[i].nodes;
        }
    printf ("\nmoldable jobs under %s: %zu ran on %.2f nodes more than "
            "their minimum on average; against the same workload with every "
            "job on its minimum: job energy %.4f GJ against %.4f GJ "
            "(%+.2f%%), system energy %+.2f%%, mean response %.2f h against "
            "%.2f h (%+.2f%%), mean wait %.2f h against %.2f h\n",
            rows[k].label, nmold, nmold ? wider / nmold : 0,
            ms.job_energy_j / 1e9, fs.job_energy_j / 1e9,
            fs.job_energy_j > 0
                ? 100 * (ms.job_energy_j / fs.job_energy_j - 1)
                : 0,
            fs.system_energy_j > 0
                ? 100 * (ms.system_energy_j / fs.system_energy_j - 1)
                : 0,
            ms.mean_response / 3600, fs.mean_response / 3600,
            fs.mean_response > 0
                ? 100 * (ms.mean_response / fs.mean_response - 1)
                : 0,
            ms.mean_wait / 3600, fs.mean_wait / 3600);
    return 0;
}

static int
run (opts_t *o)
{
    ms_error_t err;
    ms_siteconf_t *conf = NULL;
    predictor_t *pred = NULL;
    ms_predtab_t *tab = NULL;
    ms_workload_t *wl = NULL;
    swf_trace_t *trace = NULL;
    ms_simsetup_t su;
    ms_policy_t pols[MAX_RUNS], sweep[MAX_RUNS];
    ms_summary_t rows[MAX_RUNS + 1], srows[MAX_RUNS];
    size_t npols = 0, nsweep = 0, home = 0, r0 = 0, same = 0;
    history_t hist;
    double tw[8], sw[MAX_RUNS], wts[256];
    size_t ntw, nsw;
    ms_jobrec_t *recs = NULL;
    double *util[2] = { NULL, NULL }, binw[2] = { 0, 0 }, ut0 = 0;
    const char *ulabels[2];
    size_t nutil = 0;
    char mixdesc[512], path[4096], tracepath[4096];
    int status = 1;
    FILE *f;
    const char *builtin = simulate_builtin_config (o->scenario);
    double *serial = NULL;

    memset (&hist, 0, sizeof (hist));
    if (o->from_db && !o->config)
        o->config = SIM_DEFAULT_CLUSTERS_CONF;
    if (!builtin && !o->config) {
        fprintf (stderr, "metasched simulate: unknown scenario '%s'\n",
                 o->scenario);
        return 2;
    }
    if (check_policies (o->policies, &err) < 0)
        goto fail;
    /* The cluster configuration. */
    if (o->config) {
        if (clusterconf_load (o->config, &conf, &err) < 0)
            goto fail;
    } else {
        char name[64];
        snprintf (name, sizeof (name), "(built-in %s)", o->scenario);
        if (clusterconf_parse (builtin, strlen (builtin), name, &conf, &err)
            < 0)
            goto fail;
    }
    if (!conf->nparts) {
        ms_err (&err, MS_ERR_INPUT, "%s: no partition", conf->path);
        goto fail;
    }
    if (o->home) {
        char buf[256], *sl;
        const ms_partconf_t *pc;
        ms_strlcpy (buf, o->home, sizeof (buf));
        if (!(sl = strchr (buf, '/'))) {
            ms_err (&err, MS_ERR_INPUT, "--home: CLUSTER/PARTITION, not '%s'",
                    o->home);
            goto fail;
        }
        *sl = '\0';
        if (!(pc = clusterconf_partition (conf, buf, sl + 1))) {
            ms_err (&err, MS_ERR_INPUT, "--home: no partition '%s'", o->home);
            goto fail;
        }
        home = (size_t)(pc - conf->parts);
    }
    if (o->from_db) {
        /* The site's own history: workload, profiles and the policy as
         * run, all from the database; the site's clusters, simulated. */
        for (size_t c = 0; c < conf->nclusters; c++)
            conf->clusters[c].backend = MS_BACKEND_SIMULATED;
        if (history_load (o, conf, &pred, &tab, &wl, &hist, &err) < 0)
            goto fail;
        r0 = 1;
        pols[npols++] = hist.as_run;
        if (!o->quiet) {
            printf ("workload: the history of the last %g days, %zu jobs "
                    "(%zu measured, %zu on partitions %s lacks, %zu at "
                    "frequencies it lacks, %zu that fit nowhere)\n",
                    o->since_days, wl->njobs, hist.read, hist.no_part,
                    conf->path, hist.no_freq, hist.no_home);
            printf ("profiles: the database's models (%zu apps, %zu EAR "
                    "pairs); as run: %s, dispatch %s%s%s\n",
                    tab->napps, hist.npairs, hist.as_run.label + 8,
                    hist.mode, hist.ignored[0] ? "; settings ignored: " : "",
                    hist.ignored);
        }
        snprintf (mixdesc, sizeof (mixdesc), "as measured");
        o->profiles = "the database's models";
        goto policies;
    }
    /* Profiles. */
    if (!o->profiles) {
        if (!strcmp (o->scenario, "eamc")) {
            static char pbuf[4096];
            snprintf (pbuf, sizeof (pbuf), "eamc2hw:%s/profiles/eamc-2hw",
                      o->data);
            o->profiles = pbuf;
        } else
            o->profiles = "table61";
    }
    if (setup_predictor (o, conf, &pred, &err) < 0
        || predtab_build (pred, conf, &tab, &err) < 0)
        goto fail;
    /* The workload. */
    if (!o->trace && !o->gen_set) {
        if (!strcmp (o->scenario, "kth")) {
            snprintf (tracepath, sizeof (tracepath),
                      "%s/traces/KTH-SP2-1996-2.1-cln.swf.gz", o->data);
            o->trace = tracepath;
        } else if (!strcmp (o->scenario, "curie")) {
            snprintf (tracepath, sizeof (tracepath),
                      "%s/traces/CEA-Curie-2011-sample30k.swf.gz", o->data);
            o->trace = tracepath;
            if (!o->cores_per_node)
                o->cores_per_node = 16;
        }
    }
    if (o->trace) {
        int cpn = o->cores_per_node;
        if (swf_load (o->trace, o->skip_malformed ? SWF_SKIP_MALFORMED : 0,
                      &trace, &err)
            < 0)
            goto fail;
        if (!cpn && trace->max_procs > 0 && trace->max_nodes > 0)
            cpn = (int)(trace->max_procs / trace->max_nodes);
        if (cpn < 1)
            cpn = conf->archs[conf->parts[home].arch].cores_per_node;
        if (workload_from_swf (trace, cpn, conf->parts[home].nodes,
                               o->replicate, &wl, &err)
            < 0)
            goto fail;
        if (!o->quiet)
            printf ("workload: %s, %zu jobs (%zu without runtime or size "
                    "dropped, %zu clipped to the home partition, %zu "
                    "malformed lines skipped), %d cores per node%s\n",
                    trace->name, wl->njobs, wl->dropped, wl->clipped,
                    trace->skipped, cpn,
                    o->replicate > 1 ? ", replicated" : "");
    } else {
        if (o->gen.max_nodes > conf->parts[home].nodes)
            o->gen.max_nodes = conf->parts[home].nodes;
        if (workload_generate (&o->gen, &wl, &err) < 0)
            goto fail;
        if (!o->quiet) {
            double mn = 0, mr = 0;
            for (size_t i = 0; i < wl->njobs; i++) {
                mn += wl->jobs[i].nodes;
                mr += wl->jobs[i].runtime;
            }
            printf ("workload: generated, %zu jobs, seed %llu, mean %.2f "
                    "nodes, mean runtime %.2f h, over %.1f days\n",
                    wl->njobs, (unsigned long long)o->seed, mn / wl->njobs,
                    mr / wl->njobs / 3600,
                    wl->jobs[wl->njobs - 1].submit / 86400);
        }
    }
    if (o->gpu_share > 0) {
        int maxg = candidates_max_gpus (conf), maxn = 0;
        size_t ng;
        if (!maxg) {
            ms_err (&err, MS_ERR_INPUT,
                    "--gpu-share: no partition of %s has gpus_per_node",
                    conf->path);
            goto fail;
        }
        if (o->gpus_per_job > maxg) {
            ms_err (&err, MS_ERR_INPUT,
                    "--gpus-per-job %d: the most GPUs per node a partition "
                    "has is %d",
                    o->gpus_per_job, maxg);
            goto fail;
        }
        for (size_t p = 0; p < conf->nparts; p++)
            if (conf->parts[p].gpus_per_node > 0 && conf->parts[p].nodes > maxn)
                maxn = conf->parts[p].nodes;
        ng = workload_assign_gpus (wl, o->gpu_share,
                                   o->gpus_per_job ? o->gpus_per_job : maxg,
                                   maxn, o->seed);
        if (!o->quiet)
            printf ("GPU jobs: %zu (%.1f%%), 1 to %d GPUs per node, at most "
                    "%d nodes\n",
                    ng, 100.0 * ng / wl->njobs,
                    o->gpus_per_job ? o->gpus_per_job : maxg, maxn);
    }
    if (mix_weights (o, tab, home, wts, mixdesc, sizeof (mixdesc), &err) < 0)
        goto fail;
    workload_assign_apps (wl, wts, tab->napps, o->seed);
    if (o->gpu_profiles && gpu_profiles (o, conf, tab, wl, &err) < 0)
        goto fail;
    if (o->moldable_share > 0) {
        int maxn = 0;
        size_t nm;
        for (size_t p = 0; p < conf->nparts; p++)
            if (conf->parts[p].nodes > maxn)
                maxn = conf->parts[p].nodes;
        nm = workload_assign_moldable (wl, o->moldable_share, o->mold_lo,
                                       o->mold_hi, maxn, o->seed);
        serial = ms_xcalloc (tab->napps + 1, sizeof (double));
        if (moldable_models (o, tab, serial, &err) < 0)
            goto fail;
        if (!o->quiet)
            printf ("moldable jobs: %zu (%.1f%%), %d to %d nodes; apps' "
                    "serial fractions %.2f to %.2f, speedup models fitted "
                    "from runs at 1, 2, 4 and 8 nodes\n",
                    nm, 100.0 * nm / wl->njobs, o->mold_lo,
                    o->mold_hi < maxn ? o->mold_hi : maxn, MOLD_SERIAL_LO,
                    MOLD_SERIAL_HI);
    }
policies:
    if (!o->quiet) {
        if (o->from_db)
            printf ("clusters: %s (each job's home: where its app is "
                    "fastest):",
                    conf->path);
        else
            printf ("clusters: %s (home %s/%s):", conf->path,
                    conf->clusters[conf->parts[home].cluster].name,
                    conf->parts[home].name);
        for (size_t p = 0; p < conf->nparts; p++)
            printf ("%s %s/%s %d x %s", p ? "," : "",
                    conf->clusters[conf->parts[p].cluster].name,
                    conf->parts[p].name, conf->parts[p].nodes,
                    conf->archs[conf->parts[p].arch].name);
        printf ("\napps: %s; profiles: %s\n", mixdesc, o->profiles);
        printf ("backfill: %s; truth noise: runtime sigma %.3f; "
                "predictions from %s\n\n",
                sim_backfill_name (o->backfill), o->noise,
                o->exact ? "true runtimes" : "time limits");
    }
    /* The policies. */
    if ((ntw = parse_list (o->t_weights, tw, 8)) == SIZE_MAX
        || (nsw = parse_list (o->sweep, sw, MAX_RUNS)) == SIZE_MAX) {
        ms_err (&err, MS_ERR_INPUT,
                "--t-weight/--sweep: numbers separated "
                "by commas");
        goto fail;
    }
    for (int k = 0; k < POL_NKINDS; k++) {
        if (!wanted (o->policies, (ms_polkind_t)k))
            continue;
        bool eamc = k == POL_EAMC_REORDER || k == POL_EAMC_PRIO
                    || k == POL_EAMC_PRIO_V;
        for (size_t t = 0; t < (eamc ? ntw : 1) && npols < MAX_RUNS; t++) {
            ms_policy_t *pol = &pols[npols++];
            policy_init (pol, (ms_polkind_t)k);
            pol->theta = o->theta;
            pol->w_energy = o->w_energy;
            pol->max_slowdown = o->max_slowdown;
            if (o->congestion >= 0)
                pol->congestion = o->congestion;
            if (o->slack >= 0)
                pol->sibling_slack = o->slack;
            if (o->same_class)
                pol->sibling_same_class = true;
            if (o->waitw >= 0)
                pol->wait_weight = o->waitw;
            if (eamc)
                pol->t_weight = tw[t];
            policy_relabel (pol);
        }
    }
    if (wanted (o->policies, POL_METASCHED))
        for (size_t i = 0; i < nsw && nsweep < MAX_RUNS; i++) {
            ms_policy_t *pol = &sweep[nsweep++];
            policy_init (pol, POL_METASCHED);
            pol->w_energy = sw[i];
            pol->max_slowdown = o->max_slowdown;
            if (o->congestion >= 0)
                pol->congestion = o->congestion;
            if (o->slack >= 0)
                pol->sibling_slack = o->slack;
            if (o->same_class)
                pol->sibling_same_class = true;
            if (o->waitw >= 0)
                pol->wait_weight = o->waitw;
            policy_relabel (pol);
        }
    if (mkdir_p (o->outdir, &err) < 0)
        goto fail;
    simulate_setup_init (&su);
    su.conf = conf;
    su.tab = tab;
    su.wl = wl;
    su.home = home;
    su.backfill = o->backfill;
    su.seed = o->seed;
    su.noise_t = o->noise;
    su.exact_estimates = o->exact;
    su.serial = serial;
    recs = ms_xcalloc (wl->njobs, sizeof (*recs));
    for (size_t i = 0; i < npols + nsweep; i++) {
        const ms_policy_t *pol = i < npols ? &pols[i] : &sweep[i - npols];
        ms_summary_t *row = i < npols ? &rows[r0 + i] : &srows[i - npols];
        su.progress = pol->label;
        if (simulate_run (&su, pol, recs, row, &err) < 0)
            goto fail;
        /* The replay of the policy as run against where jobs ran. */
        if (r0 && i == 0)
            for (size_t k = 0; k < wl->njobs; k++)
                same += recs[k].part == hist.recs[k].part
                        && recs[k].f_khz == hist.recs[k].f_khz;
        /* Utilization over time of min_runtime and metasched. */
        if (i < npols && nutil < 2
            && (pol->kind == POL_MIN_RUNTIME || pol->kind == POL_METASCHED)) {
            util[nutil]
                = ms_xcalloc (UTIL_BINS * conf->nparts, sizeof (double));
            metrics_utilization_series (conf, recs, wl->njobs, UTIL_BINS,
                                        util[nutil], &ut0, &binw[nutil]);
            ulabels[nutil] = pol->label;
            nutil++;
        }
    }
    if (r0) {
        metrics_summarize (conf, hist.recs, wl->njobs, &rows[0]);
        ms_strlcpy (rows[0].label, "measured", sizeof (rows[0].label));
    }
    metrics_print_table (stdout, conf, rows, npols + r0);
    if (r0) {
        const ms_summary_t *m = &rows[0], *a = &rows[1];
        printf ("\nas run against measured, %zu jobs: job energy %+.2f%%, "
                "runtime %+.2f%%, mean wait %.1f s (measured %.1f s), mean "
                "response %.1f s (measured %.1f s); %zu jobs on the "
                "partition and at the frequency where they ran\n",
                wl->njobs,
                m->job_energy_j > 0
                    ? 100 * (a->job_energy_j / m->job_energy_j - 1)
                    : 0,
                m->sum_runtime > 0
                    ? 100 * (a->sum_runtime / m->sum_runtime - 1)
                    : 0,
                a->mean_wait, m->mean_wait, a->mean_response,
                m->mean_response, same);
    }
    if (serial && moldable_saved (o, &su, pols, npols, rows + r0, recs, &err)
                      < 0)
        goto fail;
    if (nsweep && !o->quiet) {
        printf ("\nmetasched energy-weight sweep (the Pareto front):\n");
        metrics_print_table (stdout, conf, srows, nsweep);
    }
    /* CSV and the table as text. */
    snprintf (path, sizeof (path), "%s/summary.csv", o->outdir);
    if (!(f = fopen (path, "w"))) {
        ms_err (&err, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
        goto fail;
    }
    metrics_csv_header (f, conf);
    for (size_t i = 0; i < npols + r0; i++)
        metrics_csv_row (f, conf, &rows[i],
                         i < r0 ? "measured" : i == r0 && r0 ? "as-run"
                                                               : "policy");
    for (size_t i = 0; i < nsweep; i++)
        metrics_csv_row (f, conf, &srows[i], "sweep");
    fclose (f);
    snprintf (path, sizeof (path), "%s/table.txt", o->outdir);
    if ((f = fopen (path, "w"))) {
        metrics_print_table (f, conf, rows, npols + r0);
        if (nsweep) {
            fprintf (f, "\nmetasched energy-weight sweep:\n");
            metrics_print_table (f, conf, srows, nsweep);
        }
        fclose (f);
    }
    if (!o->quiet)
        printf ("\nwait/resp in hours, mksp(an) in days, energies in GJ, "
                "dJob%% = job energy against the first row, opt%% = jobs on "
                "their optimal partition, then utilization per partition.\n"
                "CSV: %s/summary.csv\n",
                o->outdir);
    if (o->plots) {
        char title[256];
        int r1, r2 = 0;
        snprintf (title, sizeof (title), "%s: %zu jobs",
                  o->from_db ? "history" : o->scenario, wl->njobs);
        r1 = plot_pareto (o->outdir, title, rows, npols + r0, srows, nsweep,
                          &err);
        if (r1 >= 0 && nutil)
            r2 = plot_utilization (o->outdir, title, conf, ulabels,
                                   (const double *const *)util, nutil,
                                   UTIL_BINS, ut0, binw, &err);
        if (r1 < 0 || r2 < 0)
            fprintf (stderr, "metasched simulate: plots: %s\n", err.text);
        else if (r1 == 1 || r2 == 1)
            printf ("plots skipped: gnuplot was not found (data and scripts "
                    "are in %s)\n",
                    o->outdir);
        else if (!o->quiet)
            printf ("plots: %s/pareto.png, %s/pareto.svg, "
                    "%s/utilization.png, %s/utilization.svg\n",
                    o->outdir, o->outdir, o->outdir, o->outdir);
    }
    status = 0;
    goto done;
fail:
    fprintf (stderr, "metasched simulate: %s\n", err.text);
done:
    free (util[0]);
    free (util[1]);
    free (recs);
    free (serial);
    free (hist.recs);
    workload_free (wl);
    swf_free (trace);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
    return status;
}

int
cmd_simulate (int argc, char **argv)
{
    enum {
        O_HOME = 256,
        O_CPN,
        O_REPL,
        O_SKIP,
        O_IA,
        O_MN,
        O_MR,
        O_PROF,
        O_MIX,
        O_TW,
        O_THETA,
        O_WE,
        O_MS,
        O_SWEEP,
        O_BF,
        O_NOISE,
        O_EXACT,
        O_SEED,
        O_NOPLOTS,
        O_CONG,
        O_SLACK,
        O_SAME,
        O_WAITW,
        O_FROMDB,
        O_SINCE,
        O_PWFILE,
        O_GPUSHARE,
        O_GPUSPJ,
        O_MOLDSHARE,
        O_GPUPROF,
        O_MOLDRANGE,
    };
    static const struct option lo[] = {
        { "output", required_argument, NULL, 'o' },
        { "scenario", required_argument, NULL, 's' },
        { "data", required_argument, NULL, 'd' },
        { "config", required_argument, NULL, 'c' },
        { "trace", required_argument, NULL, 't' },
        { "home", required_argument, NULL, O_HOME },
        { "cores-per-node", required_argument, NULL, O_CPN },
        { "replicate", required_argument, NULL, O_REPL },
        { "skip-malformed", no_argument, NULL, O_SKIP },
        { "jobs", required_argument, NULL, 'n' },
        { "interarrival", required_argument, NULL, O_IA },
        { "mean-nodes", required_argument, NULL, O_MN },
        { "mean-runtime", required_argument, NULL, O_MR },
        { "profiles", required_argument, NULL, O_PROF },
        { "mix", required_argument, NULL, O_MIX },
        { "policies", required_argument, NULL, 'p' },
        { "t-weight", required_argument, NULL, O_TW },
        { "theta", required_argument, NULL, O_THETA },
        { "w-energy", required_argument, NULL, O_WE },
        { "max-slowdown", required_argument, NULL, O_MS },
        { "sweep", required_argument, NULL, O_SWEEP },
        { "backfill", required_argument, NULL, O_BF },
        { "noise", required_argument, NULL, O_NOISE },
        { "exact-estimates", no_argument, NULL, O_EXACT },
        { "seed", required_argument, NULL, O_SEED },
        { "no-plots", no_argument, NULL, O_NOPLOTS },
        { "congestion", required_argument, NULL, O_CONG },
        { "sibling-slack", required_argument, NULL, O_SLACK },
        { "sibling-same-class", no_argument, NULL, O_SAME },
        { "wait-weight", required_argument, NULL, O_WAITW },
        { "from-db", required_argument, NULL, O_FROMDB },
        { "since", required_argument, NULL, O_SINCE },
        { "password-file", required_argument, NULL, O_PWFILE },
        { "gpu-share", required_argument, NULL, O_GPUSHARE },
        { "gpus-per-job", required_argument, NULL, O_GPUSPJ },
        { "moldable-share", required_argument, NULL, O_MOLDSHARE },
        { "gpu-profiles", required_argument, NULL, O_GPUPROF },
        { "moldable-range", required_argument, NULL, O_MOLDRANGE },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    opts_t o;
    int c;
    double v;
    /* Generator options given before the scenario is known. */
    double ia = -1, mn = -1, mr = -1;
    long njobs = -1;

    memset (&o, 0, sizeof (o));
    o.outdir = "sim-out";
    o.scenario = "default";
    o.data = "../shared/data";
    o.mix = "uniform";
    o.t_weights = "1,1.5";
    o.sweep = "0,0.2,0.4,0.5,0.6,0.8,0.9,1";
    o.replicate = 1;
    o.theta = 0.1;
    o.w_energy = 0.5;
    o.max_slowdown = 1.3;
    o.noise = 0.05;
    o.congestion = -1;
    o.slack = -1;
    o.waitw = -1;
    o.since_days = 30;
    o.plots = true;
    o.seed = 1;
    o.backfill = SIM_EASY;
    optind = 1;
    while ((c = getopt_long (argc, argv, "o:s:d:c:t:n:p:qh", lo, NULL)) != -1) {
        switch (c) {
        case 'o':
            o.outdir = optarg;
            break;
        case 's':
            o.scenario = optarg;
            break;
        case 'd':
            o.data = optarg;
            break;
        case 'c':
            o.config = optarg;
            break;
        case 't':
            o.trace = optarg;
            break;
        case O_HOME:
            o.home = optarg;
            break;
        case O_CPN:
            if (parse_double (optarg, &v) < 0 || v < 1 || v > 1e6)
                goto bad;
            o.cores_per_node = (int)v;
            break;
        case O_REPL:
            if (parse_double (optarg, &v) < 0 || v < 1 || v > 1000)
                goto bad;
            o.replicate = (size_t)v;
            break;
        case O_SKIP:
            o.skip_malformed = true;
            break;
        case 'n':
            if (parse_double (optarg, &v) < 0 || v < 1 || v > 1e8)
                goto bad;
            njobs = (long)v;
            break;
        case O_IA:
            if (parse_double (optarg, &ia) < 0 || ia <= 0)
                goto bad;
            break;
        case O_MN:
            if (parse_double (optarg, &mn) < 0 || mn < 1)
                goto bad;
            break;
        case O_MR:
            if (parse_double (optarg, &mr) < 0 || mr <= 0)
                goto bad;
            break;
        case O_PROF:
            o.profiles = optarg;
            break;
        case O_MIX:
            o.mix = optarg;
            break;
        case 'p':
            o.policies = optarg;
            break;
        case O_TW:
            o.t_weights = optarg;
            break;
        case O_THETA:
            if (parse_double (optarg, &o.theta) < 0 || o.theta < 0)
                goto bad;
            break;
        case O_WE:
            if (parse_double (optarg, &o.w_energy) < 0 || o.w_energy < 0
                || o.w_energy > 1)
                goto bad;
            break;
        case O_MS:
            if (parse_double (optarg, &o.max_slowdown) < 0
                || o.max_slowdown < 1)
                goto bad;
            break;
        case O_SWEEP:
            o.sweep = optarg;
            break;
        case O_BF:
            if (sim_backfill_parse (optarg, &o.backfill) < 0)
                goto bad;
            break;
        case O_NOISE:
            if (parse_double (optarg, &o.noise) < 0 || o.noise < 0
                || o.noise > 2)
                goto bad;
            break;
        case O_EXACT:
            o.exact = true;
            break;
        case O_SEED:
            if (parse_double (optarg, &v) < 0 || v < 0)
                goto bad;
            o.seed = (uint64_t)v;
            break;
        case O_NOPLOTS:
            o.plots = false;
            break;
        case O_CONG:
            if (parse_double (optarg, &o.congestion) < 0 || o.congestion < 0)
                goto bad;
            break;
        case O_SLACK:
            if (parse_double (optarg, &o.slack) < 0 || o.slack < 0)
                goto bad;
            break;
        case O_SAME:
            o.same_class = 1;
            break;
        case O_WAITW:
            if (parse_double (optarg, &o.waitw) < 0 || o.waitw < 0)
                goto bad;
            break;
        case O_FROMDB:
            o.from_db = optarg;
            break;
        case O_SINCE:
            if (parse_double (optarg, &o.since_days) < 0 || o.since_days <= 0
                || o.since_days > 36500)
                goto bad;
            break;
        case O_PWFILE:
            o.password_file = optarg;
            break;
        case O_GPUSHARE:
            if (parse_double (optarg, &o.gpu_share) < 0 || o.gpu_share < 0
                || o.gpu_share > 1)
                goto bad;
            break;
        case O_GPUSPJ:
            if (parse_double (optarg, &v) < 0 || v < 1 || v > 64)
                goto bad;
            o.gpus_per_job = (int)v;
            break;
        case O_GPUPROF:
            o.gpu_profiles = optarg;
            break;
        case O_MOLDSHARE:
            if (parse_double (optarg, &o.moldable_share) < 0
                || o.moldable_share < 0 || o.moldable_share > 1) {
                fprintf (stderr, "metasched simulate: --moldable-share: a "
                                 "share from 0 to 1, not '%s'\n",
                         optarg);
                return 2;
            }
            break;
        case O_MOLDRANGE: {
            int mlo, mhi, end = 0;
            if (sscanf (optarg, "%d-%d%n", &mlo, &mhi, &end) != 2
                || optarg[end] || mlo < 1 || mhi < mlo || mhi > 100000) {
                fprintf (stderr, "metasched simulate: --moldable-range: "
                                 "MIN-MAX nodes, 1 <= MIN <= MAX, not "
                                 "'%s'\n",
                         optarg);
                return 2;
            }
            o.mold_lo = mlo;
            o.mold_hi = mhi;
            break;
        }
        case 'q':
            o.quiet = true;
            break;
        case 'h':
            usage (stdout);
            return 0;
        default:
            usage (stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "metasched simulate: unexpected argument '%s'\n",
                 argv[optind]);
        usage (stderr);
        return 2;
    }
    scenario_defaults (&o);
    if (njobs > 0) {
        o.gen.njobs = (size_t)njobs;
        o.gen_set = true;
    }
    if (ia > 0) {
        o.gen.mean_interarrival_s = ia;
        o.gen_set = true;
    }
    if (mn > 0) {
        o.gen.mean_nodes = mn;
        o.gen_set = true;
    }
    if (mr > 0) {
        o.gen.mean_runtime_s = mr;
        o.gen_set = true;
    }
    if (o.mold_lo && o.moldable_share <= 0) {
        fprintf (stderr, "metasched simulate: --moldable-range goes with "
                         "--moldable-share\n");
        return 2;
    }
    if (!o.mold_lo) {
        o.mold_lo = 1;
        o.mold_hi = 4;
    }
    if (o.from_db
        && (o.trace || o.gen_set || o.profiles || o.gpu_share > 0
            || o.moldable_share > 0 || o.gpu_profiles)) {
        fprintf (stderr, "metasched simulate: --from-db takes the workload and "
                         "the profiles from the database: no --trace, "
                         "generator options or --profiles with it\n");
        return 2;
    }
    if (!o.from_db && (o.password_file || o.since_days != 30)) {
        fprintf (stderr, "metasched simulate: --since and --password-file "
                         "go with --from-db\n");
        return 2;
    }
    if (o.trace && o.gen_set) {
        fprintf (stderr, "metasched simulate: a trace and generator options "
                         "exclude each other\n");
        return 2;
    }
    return run (&o);
bad:
    fprintf (stderr, "metasched simulate: bad value '%s' for an option\n",
             optarg);
    return 2;
}
