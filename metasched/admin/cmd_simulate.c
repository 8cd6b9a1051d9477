/* cmd_simulate.c - `metasched simulate`: replay a workload through every
 * policy on simulated clusters and report the metrics of DESIGN.md 6 side
 * by side, with CSV and plots. With no arguments it runs the embedded
 * default: three clusters built from Table 6.1 of the EAMC chapter and a
 * generated workload, entirely inside the program. The site's history
 * (--from-db), GPU profiles and moldable jobs are built in siminput.c.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metasched/core/candidates.h"
#include "metasched/admin/commands.h"
#include "metasched/admin/siminput.h"
#include "metasched/admin/simpower.h"
#include "metasched/sim/bound.h"
#include "metasched/sim/metrics.h"
#include "metasched/sim/plot.h"
#include "metasched/core/policy.h"
#include "metasched/sim/simulate.h"
#include "metasched/common/util.h"
#include "metasched/sim/workload.h"
#include "partitions/clusterconf.h"
#include "partitions/swf.h"
#include "predictor/predictor.h"

#define MAX_RUNS 64
#define UTIL_BINS 200
#define SIM_DEFAULT_CLUSTERS_CONF MS_SYSCONFDIR "/metasched/clusters.conf"

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
        "      --seeds LIST         one run per seed (1-5, 1,3,7), each in\n"
        "                           OUTPUT/seed-N; then every row's mean\n"
        "                           and spread over the seeds\n"
        "      --versus LIST        with --seeds: every row against these\n"
        "                           rows (labels), paired seed by seed\n"
        "      --bound              every row against the static bound: the\n"
        "                           least job energy at its mean runtime\n"
        "                           and the least mean runtime at its job\n"
        "                           energy of any choice of partition and\n"
        "                           frequency per job, with no queue\n"
        "      --power-budget SPEC  power budgets (SPEC, or @FILE): site or\n"
        "                           per cluster, with schedules ('site\n"
        "                           600kW; alpha 200kW from 14:00 until\n"
        "                           18:00'); adds the home policy (capped\n"
        "                           FCFS) and the power table\n"
        "      --power              the power table without a budget\n"
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

/* A partition as cluster/partition; "" for none (a job that never ran). */
static void
part_name (const ms_siteconf_t *conf, size_t p, char *buf, size_t len)
{
    if (p >= conf->nparts)
        snprintf (buf, len, "%s", "");
    else
        snprintf (buf, len, "%s/%s", conf->clusters[conf->parts[p].cluster].name,
                  conf->parts[p].name);
}

/* --jobs-csv: every job of one run, in OUT/jobs-LABEL.csv. */
static int
write_jobs_csv (const char *dir, const char *label, const ms_siteconf_t *conf,
                const ms_predtab_t *tab, const ms_workload_t *wl,
                const ms_jobrec_t *recs, ms_error_t *errp)
{
    char path[MS_PATH_MAX + 64], pn[160], on[160];
    FILE *f;

    snprintf (path, sizeof (path), "%s/jobs-%s.csv", dir, label);
    if (!(f = fopen (path, "w")))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    fprintf (f, "job,user,app,nodes,submit_s,start_s,end_s,wait_s,"
                "response_s,partition,optimal_partition,f_khz,energy_j,"
                "killed,rejected\n");
    for (size_t k = 0; k < wl->njobs; k++) {
        const ms_wjob_t *j = &wl->jobs[k];
        const ms_jobrec_t *r = &recs[k];
        bool ran = r->part < conf->nparts;
        part_name (conf, r->part, pn, sizeof (pn));
        part_name (conf, r->opt_part, on, sizeof (on));
        fprintf (f, "%lld,%lld,%s,%d,%.3f,", (long long)j->trace_id,
                 (long long)j->user,
                 j->app >= 0 && (size_t)j->app < tab->napps ? tab->apps[j->app]
                                                            : "",
                 r->nodes, r->submit);
        if (ran)
            fprintf (f, "%.3f,%.3f,%.3f,%.3f,", r->start, r->end,
                     r->start - r->submit, r->end - r->submit);
        else
            fprintf (f, ",,,,");
        fprintf (f, "%s,%s,%u,%.6e,%d,%d\n", pn, on, r->f_khz, r->energy_j,
                 r->killed, r->rejected);
    }
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    return 0;
}

/* A job's candidates for the static bound: every partition that has its
 * nodes (and GPUs), at every frequency, for its true runtime at the home's
 * nominal frequency, with no queue: the truth's expected runtime and
 * energy there (simulate.c's truth without its noise). */
static void
bound_cands (const ms_siteconf_t *conf, const ms_predtab_t *tab,
             const ms_wjob_t *j, size_t home, ms_cands_t *cs)
{
    cs->n = 0;
    if (j->app < 0 || (size_t)j->app >= tab->napps)
        return;
    candidates_build (tab, (size_t)j->app, home, j->nodes, j->runtime, NULL, 0,
                      cs);
    candidates_gpus (conf, j->nodes, j->gpus, cs);
    candidates_gpu_profile (tab, (size_t)j->app, j->gpus, cs);
}

/* One row's own totals on the bound's terms: each job's expected runtime
 * and energy where the row ran it. false when a job with candidates did
 * not run on one of them (rejected, or a node count the bound does not
 * know). */
static bool
bound_row (const ms_siteconf_t *conf, const ms_predtab_t *tab,
           const ms_workload_t *wl, size_t home, const ms_jobrec_t *recs,
           ms_cands_t *cs, double *tp, double *ep)
{
    double t = 0, e = 0;

    for (size_t k = 0; k < wl->njobs; k++) {
        size_t i;
        bound_cands (conf, tab, &wl->jobs[k], home, cs);
        if (!cs->n)
            continue;
        for (i = 0; i < cs->n; i++)
            if (cs->c[i].part == recs[k].part
                && cs->c[i].f_khz == recs[k].f_khz
                && recs[k].nodes == wl->jobs[k].nodes)
                break;
        if (i == cs->n)
            return false;
        t += cs->c[i].t;
        e += cs->c[i].e;
    }
    *tp = t;
    *ep = e;
    return true;
}

/* --bound: the table and OUT/bound.csv. */
static int
bound_report (const char *dir, const ms_bound_t *b, const ms_summary_t *rows,
              size_t nrows, const ms_summary_t *srows, size_t nsweep,
              const double *rt, const double *re, const bool *rok, bool print,
              ms_error_t *errp)
{
    char path[MS_PATH_MAX + 16];
    double n = (double)bound_njobs (b), tf, ef, tl, el;
    FILE *f;

    snprintf (path, sizeof (path), "%s/bound.csv", dir);
    if (!(f = fopen (path, "w")))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    bound_ends (b, &tf, &ef, &tl, &el);
    fprintf (f, "policy,jobs,mean_runtime_s,job_energy_j,least_energy_j,"
                "least_mean_runtime_s\n");
    fprintf (f, "fastest,%.0f,%.3f,%.6e,,\n", n, tf / n, ef);
    fprintf (f, "leanest,%.0f,%.3f,%.6e,,\n", n, tl / n, el);
    if (print)
        printf ("\nstatic bound (%.0f jobs at their expected runtime and "
                "energy, no queue): every job at its fastest candidate "
                "%.1f s mean runtime, %.2f GJ; at its leanest %.1f s, "
                "%.2f GJ\n%-26s %12s %10s %13s %13s\n",
                n, tf / n, ef / 1e9, tl / n, el / 1e9, "policy",
                "runtime_s", "jobE_GJ", "leastE_at_T", "leastT_at_E");
    for (size_t i = 0; i < nrows + nsweep; i++) {
        const ms_summary_t *r = i < nrows ? &rows[i] : &srows[i - nrows];
        double le, lt;
        if (!rok[i]) {
            fprintf (f, "%s,,,,,\n", r->label);
            if (print)
                printf ("%-26s (a job did not run on one of the bound's "
                        "candidates: rejected, or on another node count)\n",
                        r->label);
            continue;
        }
        le = bound_least_energy (b, rt[i]);
        lt = bound_least_time (b, re[i]);
        fprintf (f, "%s,%.0f,%.3f,%.6e,%.6e,%.3f\n", r->label, n, rt[i] / n,
                 re[i], le, lt / n);
        if (print)
            printf ("%-26s %12.1f %10.2f %+12.2f%% %+12.2f%%\n", r->label,
                    rt[i] / n, re[i] / 1e9, 100 * (le / re[i] - 1),
                    100 * (lt / rt[i] - 1));
    }
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    if (print)
        printf ("leastE_at_T: the least job energy of any choice at the "
                "row's mean runtime, against the row's; leastT_at_E: the "
                "least mean runtime at its job energy. CSV: %s\n",
                path);
    return 0;
}

/* metasched's parameters from the options (those given; -1 or 0: the
 * policy's default), on a policy of any kind. */
static void
metasched_options (const opts_t *o, ms_policy_t *pol)
{
    pol->max_slowdown = o->max_slowdown;
    if (o->congestion >= 0)
        pol->congestion = o->congestion;
    if (o->slack >= 0)
        pol->sibling_slack = o->slack;
    if (o->same_class)
        pol->sibling_same_class = true;
    if (o->waitw >= 0)
        pol->wait_weight = o->waitw;
    if (o->pref_margin >= 0)
        pol->pref_margin = o->pref_margin;
    if (o->first_age >= 0 && policy_is_metasched (pol->kind))
        pol->first_age = o->first_age;
    if (o->sibling_hold >= 0 && policy_is_metasched (pol->kind))
        pol->sibling_hold = o->sibling_hold;
    if (o->drain_weight >= 0 && policy_is_metasched (pol->kind))
        pol->drain_weight = o->drain_weight;
    if (o->wait_share >= 0 && policy_is_metasched (pol->kind))
        pol->wait_share = o->wait_share;
    if (o->sibling_ahead >= 0 && policy_is_metasched (pol->kind))
        pol->sibling_ahead = o->sibling_ahead;
    if (o->stake_margin >= 0 && policy_is_metasched (pol->kind))
        pol->stake_margin = o->stake_margin;
    if (o->cal_lean >= 0 && policy_is_metasched (pol->kind))
        pol->cal_lean = o->cal_lean;
    if (o->cal_lean_idle >= 0 && policy_is_metasched (pol->kind))
        pol->cal_lean_idle = o->cal_lean_idle;
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
    ms_bound_t *bound = NULL;
    ms_cands_t bcs = { NULL, 0, 0, 0 };
    double brt[2 * MAX_RUNS], bre[2 * MAX_RUNS];
    bool brok[2 * MAX_RUNS];
    ms_budgets_t budgets = { NULL, 0 };
    simpower_row_t *prows = NULL;
    size_t nprows = 0;

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
    if (simpower_budgets (o, conf, &budgets, &err) < 0)
        goto fail;
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
        if (siminput_history_load (o, conf, &pred, &tab, &wl, &hist, &err) < 0)
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
            printf ("before the window: %zu jobs metaschedd decided (the "
                    "last %d at most), %zu counted first in every policy's "
                    "job mix (calibration, drain price) as it counted them, "
                    "%zu seen to end (their waits: the lean)\n",
                    hist.decided, MS_MIX_JOBS, hist.nprime, hist.nseen);
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
    if (o->gpu_profiles && siminput_gpu_profiles (o, conf, tab, wl, &err) < 0)
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
        if (siminput_moldable_models (o, tab, serial, &err) < 0)
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
        /* the capped baseline: asked for, or beside a power budget */
        if (k == POL_HOME && !o->policies && !budgets.n)
            continue;
        bool eamc = k == POL_EAMC_REORDER || k == POL_EAMC_PRIO
                    || k == POL_EAMC_PRIO_V;
        for (size_t t = 0; t < (eamc ? ntw : 1) && npols < MAX_RUNS; t++) {
            ms_policy_t *pol = &pols[npols++];
            policy_init (pol, (ms_polkind_t)k);
            pol->theta = o->theta;
            pol->w_energy = o->w_energy;
            metasched_options (o, pol);
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
            metasched_options (o, pol);
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
    su.prime = hist.prime;
    su.nprime = hist.nprime;
    su.seen = hist.seen;
    su.nseen = hist.nseen;
    su.budgets = &budgets;
    recs = ms_xcalloc (wl->njobs, sizeof (*recs));
    if (budgets.n || o->power_report)
        prows = ms_xcalloc (npols + nsweep + 1, sizeof (*prows));
    if (o->bound) {
        bound = bound_new ();
        for (size_t k = 0; k < wl->njobs; k++) {
            bound_cands (conf, tab, &wl->jobs[k], home, &bcs);
            bound_add_job (bound, &bcs);
        }
        bound_finish (bound);
    }
    for (size_t i = 0; i < npols + nsweep; i++) {
        const ms_policy_t *pol = i < npols ? &pols[i] : &sweep[i - npols];
        ms_summary_t *row = i < npols ? &rows[r0 + i] : &srows[i - npols];
        su.progress = pol->label;
        if (simulate_run (&su, pol, recs, row, &err) < 0)
            goto fail;
        if (o->jobs_csv
            && write_jobs_csv (o->outdir, pol->label, conf, tab, wl, recs,
                               &err)
                   < 0)
            goto fail;
        if (bound)
            brok[i] = bound_row (conf, tab, wl, home, recs, &bcs, &brt[i],
                                 &bre[i]);
        if (prows
            && simpower_add (o, conf, &budgets, row, recs, wl->njobs,
                             &prows[nprows++], &err)
                   < 0)
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
    if (o->collect) {
        for (size_t i = 0; i < npols + r0; i++)
            seedruns_add (o->collect, o->seed,
                          i < r0 ? "measured" : i == r0 && r0 ? "as-run"
                                                                : "policy",
                          &rows[i]);
        for (size_t i = 0; i < nsweep; i++)
            seedruns_add (o->collect, o->seed, "sweep", &srows[i]);
    }
    if (!o->no_table)
        metrics_print_table (stdout, conf, rows, npols + r0);
    if (r0 && !o->no_table) {
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
    if (serial
        && siminput_moldable_saved (o, &su, pols, npols, rows + r0, recs, &err)
               < 0)
        goto fail;
    if (prows) {
        char btext[2048];
        power_budgets_format (&budgets, conf, btext, sizeof (btext));
        if (!o->no_table)
            simpower_print (stdout, prows, nprows, budgets.n ? btext : NULL);
        if (simpower_csv (o->outdir, prows, nprows, &err) < 0)
            goto fail;
    }
    if (nsweep && !o->quiet && !o->no_table) {
        printf ("\nmetasched energy-weight sweep (the Pareto front):\n");
        metrics_print_table (stdout, conf, srows, nsweep);
    }
    if (bound
        && bound_report (o->outdir, bound, rows + r0, npols, srows, nsweep,
                         brt, bre, brok, !o->no_table, &err)
               < 0)
        goto fail;
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
    free (prows);
    power_budgets_free (&budgets);
    free (recs);
    free (serial);
    free (hist.recs);
    free (hist.prime);
    free (hist.seen);
    bound_free (bound);
    free (bcs.c);
    workload_free (wl);
    swf_free (trace);
    predtab_free (tab);
    predictor_free (pred);
    clusterconf_free (conf);
    return status;
}

/* Every row against each label of the comma-separated list: printed and
 * written to csv where csv is not NULL, only checked otherwise. */
static int
versus_each (const ms_seedruns_t *sr, const char *list, FILE *csv,
             ms_error_t *errp)
{
    char *copy = ms_xstrdup (list), *tok, *save = NULL;
    int rc = 0;

    for (tok = strtok_r (copy, ",", &save); tok && rc == 0;
         tok = strtok_r (NULL, ",", &save)) {
        ms_seedpair_t *pr = NULL;
        size_t np = 0;
        if ((rc = seedruns_versus (sr, tok, &pr, &np, errp)) < 0)
            break;
        if (csv) {
            printf ("\n");
            seedruns_print_versus (stdout, tok, pr, np);
            seedruns_csv_versus (csv, tok, pr, np);
        }
        free (pr);
    }
    free (copy);
    return rc;
}

/* --seeds: run() once per seed, each in OUTPUT/seed-N, then every row's
 * mean and spread over the seeds and, with --versus, the rows against the
 * named ones paired seed by seed (metasched/sim/seeds.h). */
static int
run_seeds (opts_t *o)
{
    ms_error_t err;
    uint64_t *sv = NULL;
    size_t ns = 0, nst = 0;
    ms_seedruns_t *sr = NULL;
    ms_seedstat_t *st = NULL;
    char dir[4096], path[4096];
    int status = 1, rc;
    FILE *f;

    if (seeds_parse (o->seeds, &sv, &ns, &err) < 0) {
        fprintf (stderr, "metasched simulate: %s\n", err.text);
        return 2;
    }
    if (mkdir_p (o->outdir, &err) < 0)
        goto fail;
    sr = seedruns_new ();
    for (size_t i = 0; i < ns; i++) {
        opts_t oi = *o;
        snprintf (dir, sizeof (dir), "%s/seed-%llu", o->outdir,
                  (unsigned long long)sv[i]);
        oi.outdir = dir;
        oi.seed = sv[i];
        oi.gen.seed = sv[i];
        oi.quiet = true;
        oi.no_table = true;
        oi.collect = sr;
        if (run (&oi) != 0)
            goto done; /* run() said why */
        if (!o->quiet)
            printf ("seed %llu: %s\n", (unsigned long long)sv[i], dir);
        /* The rows to compare against exist once the first run is in. */
        if (i == 0 && o->versus && versus_each (sr, o->versus, NULL, &err) < 0) {
            fprintf (stderr, "metasched simulate: %s\n", err.text);
            status = 2;
            goto done;
        }
    }
    nst = seedruns_stats (sr, &st);
    printf ("%sover seeds %s (%zu runs):\n", o->quiet ? "" : "\n", o->seeds,
            ns);
    seedruns_print_stats (stdout, st, nst);
    snprintf (path, sizeof (path), "%s/seeds.csv", o->outdir);
    if (!(f = fopen (path, "w")))
        goto fail_file;
    seedruns_csv_runs (f, sr);
    fclose (f);
    snprintf (path, sizeof (path), "%s/seeds-summary.csv", o->outdir);
    if (!(f = fopen (path, "w")))
        goto fail_file;
    seedruns_csv_stats (f, st, nst);
    fclose (f);
    if (o->versus) {
        snprintf (path, sizeof (path), "%s/seeds-versus.csv", o->outdir);
        if (!(f = fopen (path, "w")))
            goto fail_file;
        seedruns_csv_versus_header (f);
        rc = versus_each (sr, o->versus, f, &err);
        fclose (f);
        if (rc < 0)
            goto fail;
    }
    if (!o->quiet)
        printf ("\nenergies in GJ, times in hours; sd: the sample standard "
                "deviation over the seeds.\nCSV: %s/seeds.csv, "
                "%s/seeds-summary.csv%s%s%s\n",
                o->outdir, o->outdir, o->versus ? ", " : "",
                o->versus ? o->outdir : "", o->versus ? "/seeds-versus.csv" : "");
    status = 0;
    goto done;
fail_file:
    ms_err (&err, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
fail:
    fprintf (stderr, "metasched simulate: %s\n", err.text);
done:
    free (st);
    free (sv);
    seedruns_free (sr);
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
        O_PREFM,
        O_FIRSTAGE,
        O_HOLD,
        O_DRAIN,
        O_WAITSHARE,
        O_AHEAD,
        O_STAKE,
        O_CALLEAN,
        O_CALIDLE,
        O_JOBSCSV,
        O_BOUND,
        O_FROMDB,
        O_SINCE,
        O_PWFILE,
        O_GPUSHARE,
        O_GPUSPJ,
        O_MOLDSHARE,
        O_GPUPROF,
        O_MOLDRANGE,
        O_SEEDS,
        O_VERSUS,
        O_PBUDGET,
        O_POWER,
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
        { "pref-margin", required_argument, NULL, O_PREFM },
        { "first-age", required_argument, NULL, O_FIRSTAGE },
        { "sibling-hold", required_argument, NULL, O_HOLD },
        { "drain-weight", required_argument, NULL, O_DRAIN },
        { "wait-share", required_argument, NULL, O_WAITSHARE },
        { "sibling-ahead", required_argument, NULL, O_AHEAD },
        { "stake-margin", required_argument, NULL, O_STAKE },
        { "cal-lean", required_argument, NULL, O_CALLEAN },
        { "cal-lean-idle", required_argument, NULL, O_CALIDLE },
        { "jobs-csv", no_argument, NULL, O_JOBSCSV },
        { "bound", no_argument, NULL, O_BOUND },
        { "from-db", required_argument, NULL, O_FROMDB },
        { "since", required_argument, NULL, O_SINCE },
        { "password-file", required_argument, NULL, O_PWFILE },
        { "gpu-share", required_argument, NULL, O_GPUSHARE },
        { "gpus-per-job", required_argument, NULL, O_GPUSPJ },
        { "moldable-share", required_argument, NULL, O_MOLDSHARE },
        { "gpu-profiles", required_argument, NULL, O_GPUPROF },
        { "moldable-range", required_argument, NULL, O_MOLDRANGE },
        { "seeds", required_argument, NULL, O_SEEDS },
        { "versus", required_argument, NULL, O_VERSUS },
        { "power-budget", required_argument, NULL, O_PBUDGET },
        { "power", no_argument, NULL, O_POWER },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    opts_t o;
    int c, li = -1;
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
    o.pref_margin = -1;
    o.first_age = -1;
    o.sibling_hold = -1;
    o.drain_weight = -1;
    o.wait_share = -1;
    o.sibling_ahead = -1;
    o.stake_margin = -1;
    o.cal_lean = -1;
    o.cal_lean_idle = -1;
    o.since_days = 30;
    o.plots = true;
    o.seed = 1;
    o.backfill = SIM_EASY;
    optind = 1;
    while ((li = -1,
            c = getopt_long (argc, argv, "o:s:d:c:t:n:p:qh", lo, &li))
           != -1) {
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
            o.seed_set = true;
            break;
        case O_SEEDS:
            o.seeds = optarg;
            break;
        case O_VERSUS:
            o.versus = optarg;
            break;
        case O_PBUDGET:
            if (o.power_budget) {
                fprintf (stderr, "metasched simulate: --power-budget given "
                                 "twice (separate budgets with ';')\n");
                return 2;
            }
            o.power_budget = optarg;
            break;
        case O_POWER:
            o.power_report = true;
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
        case O_PREFM:
            if (parse_double (optarg, &o.pref_margin) < 0 || o.pref_margin < 0
                || o.pref_margin > 1)
                goto bad;
            break;
        case O_JOBSCSV:
            o.jobs_csv = true;
            break;
        case O_BOUND:
            o.bound = true;
            break;
        case O_FIRSTAGE:
            if (parse_double (optarg, &o.first_age) < 0 || o.first_age < 0)
                goto bad;
            break;
        case O_HOLD:
            if (parse_double (optarg, &o.sibling_hold) < 0
                || o.sibling_hold < 0 || o.sibling_hold > 100)
                goto bad;
            break;
        case O_DRAIN:
            if (parse_double (optarg, &o.drain_weight) < 0 || o.drain_weight < 0
                || o.drain_weight > 100)
                goto bad;
            break;
        case O_WAITSHARE:
            if (parse_double (optarg, &o.wait_share) < 0 || o.wait_share < 0
                || o.wait_share > 1)
                goto bad;
            break;
        case O_AHEAD:
            if (parse_double (optarg, &o.sibling_ahead) < 0
                || o.sibling_ahead < 0 || o.sibling_ahead > 100)
                goto bad;
            break;
        case O_STAKE:
            if (parse_double (optarg, &o.stake_margin) < 0
                || o.stake_margin < 0 || o.stake_margin > 1000)
                goto bad;
            break;
        case O_CALLEAN:
            if (parse_double (optarg, &o.cal_lean) < 0 || o.cal_lean < 0
                || o.cal_lean > 100)
                goto bad;
            break;
        case O_CALIDLE:
            if (parse_double (optarg, &o.cal_lean_idle) < 0
                || o.cal_lean_idle < 0 || o.cal_lean_idle > 100)
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
    if (o.bound && (o.from_db || o.moldable_share > 0)) {
        fprintf (stderr, "metasched simulate: --bound: not with %s (the bound "
                         "takes each job on its own node count, from the "
                         "profiles' runtime at home)\n",
                 o.from_db ? "--from-db" : "--moldable-share");
        return 2;
    }
    if (o.trace && o.gen_set) {
        fprintf (stderr, "metasched simulate: a trace and generator options "
                         "exclude each other\n");
        return 2;
    }
    if (o.seeds && o.seed_set) {
        fprintf (stderr, "metasched simulate: --seed and --seeds exclude "
                         "each other\n");
        return 2;
    }
    if (o.versus && !o.seeds) {
        fprintf (stderr, "metasched simulate: --versus goes with --seeds\n");
        return 2;
    }
    return o.seeds ? run_seeds (&o) : run (&o);
bad:
    if (li >= 0)
        fprintf (stderr, "metasched simulate: --%s: bad value '%s'\n",
                 lo[li].name, optarg);
    else
        fprintf (stderr, "metasched simulate: -%c: bad value '%s'\n", c,
                 optarg);
    return 2;
}
