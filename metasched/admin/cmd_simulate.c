/* cmd_simulate.c - `metasched simulate`: replay a workload through every
 * policy on simulated clusters and report the metrics of doc/architecture.md
 * "Simulator" side by side, with CSV and plots. With no arguments it runs the
 * embedded default: three clusters built from Table 6.1 of the EAMC chapter and
 * a generated workload, entirely inside the program. The site's history
 * (--from-db), GPU profiles and moldable jobs are built in siminput.c.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metasched/core/candidates.h"
#include "metasched/admin/commands.h"
#include "metasched/admin/simcarbon.h"
#include "metasched/admin/siminput.h"
#include "metasched/admin/simopts.h"
#include "metasched/admin/simoutage.h"
#include "metasched/admin/simpar.h"
#include "metasched/admin/simpower.h"
#include "metasched/admin/simrecs.h"
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

static size_t
parse_list (const char *s, double *out, size_t max)
{
    char buf[512], *tok, *save;
    size_t n = 0;
    ms_strlcpy (buf, s, sizeof (buf));
    for (tok = strtok_r (buf, ",", &save); tok && n < max;
         tok = strtok_r (NULL, ",", &save)) {
        if (simopts_double (tok, &out[n]) < 0)
            return SIZE_MAX;
        n++;
    }
    return n;
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
    if (simopts_double (o->mix, &m) < 0 || m < 0 || m > 100)
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

/* One run of every policy over one workload: what its steps share. */
typedef struct {
    opts_t *o;
    ms_error_t err;
    ms_siteconf_t *conf;
    predictor_t *pred;
    ms_predtab_t *tab;
    ms_workload_t *wl;
    swf_trace_t *trace;
    ms_simsetup_t su;
    ms_policy_t pols[MAX_RUNS], sweep[MAX_RUNS];
    ms_summary_t rows[MAX_RUNS + 1], srows[MAX_RUNS];
    size_t npols, nsweep, home, r0, same;
    history_t hist;
    double wts[256];
    ms_jobrec_t *recs;
    size_t recs_mapped; /* bytes, where recs is mapped (run_recs) */
    double *util[2], binw[2], ut0;
    const char *ulabels[2];
    size_t nutil;
    char mixdesc[512], tracepath[4096];
    double *serial;
    ms_bound_t *bound;
    ms_cands_t bcs;
    double brt[2 * MAX_RUNS], bre[2 * MAX_RUNS];
    bool brok[2 * MAX_RUNS];
    ms_budgets_t budgets;  /* --power-budget; none: n 0 */
    simpower_row_t *prows; /* the power table's rows */
    size_t nprows;
    ms_carbon_t cb; /* --carbon (nz 0: none) */
    simcarbon_row_t crows[MAX_RUNS];
    ms_outages_t outages; /* --outage; none: n 0 */
} simrun_t;

/* The clusters (-c or the scenario's) and the home partition; -2: no
 * such scenario. */
static int
run_site (simrun_t *r)
{
    opts_t *o = r->o;
    const char *builtin = simulate_builtin_config (o->scenario);

    if (o->from_db && !o->config)
        o->config = SIM_DEFAULT_CLUSTERS_CONF;
    if (!builtin && !o->config) {
        ms_err (&r->err, MS_ERR_INPUT, "unknown scenario '%s'", o->scenario);
        return -2; /* a usage error */
    }
    if (check_policies (o->policies, &r->err) < 0)
        return -1;
    if (o->config) {
        if (clusterconf_load (o->config, &r->conf, &r->err) < 0)
            return -1;
    } else {
        char name[64];
        snprintf (name, sizeof (name), "(built-in %s)", o->scenario);
        if (clusterconf_parse (builtin, strlen (builtin), name, &r->conf,
                               &r->err)
            < 0)
            return -1;
    }
    if (!r->conf->nparts)
        return ms_err (&r->err, MS_ERR_INPUT, "%s: no partition",
                       r->conf->path);
    if (simpower_budgets (o, r->conf, &r->budgets, &r->err) < 0
        || simoutage_parse (o, r->conf, &r->outages, &r->err) < 0)
        return -1;
    if (o->home) {
        char buf[256], *sl;
        const ms_partconf_t *pc;
        ms_strlcpy (buf, o->home, sizeof (buf));
        if (!(sl = strchr (buf, '/')))
            return ms_err (&r->err, MS_ERR_INPUT,
                           "--home: CLUSTER/PARTITION, not '%s'", o->home);
        *sl = '\0';
        if (!(pc = clusterconf_partition (r->conf, buf, sl + 1)))
            return ms_err (&r->err, MS_ERR_INPUT, "--home: no partition '%s'",
                           o->home);
        r->home = (size_t)(pc - r->conf->parts);
    }
    return 0;
}

/* The site's own history: workload, profiles and the policy as run, all
 * from the database; the site's clusters, simulated. */
static int
run_history (simrun_t *r)
{
    opts_t *o = r->o;
    history_t *h = &r->hist;

    for (size_t c = 0; c < r->conf->nclusters; c++)
        r->conf->clusters[c].backend = MS_BACKEND_SIMULATED;
    if (siminput_history_load (o, r->conf, &r->pred, &r->tab, &r->wl, h,
                               &r->err)
        < 0)
        return -1;
    r->r0 = 1;
    r->pols[r->npols++] = h->as_run;
    if (!o->quiet) {
        printf ("workload: the history of the last %g days, %zu jobs "
                "(%zu measured, %zu on partitions %s lacks, %zu at "
                "frequencies it lacks, %zu that fit nowhere)\n",
                o->since_days, r->wl->njobs, h->read, h->no_part, r->conf->path,
                h->no_freq, h->no_home);
        if (h->het)
            printf ("heterogeneous jobs: %zu read whole (%zu components, "
                    "their nodes and energy summed)\n",
                    h->het, h->het_parts);
        printf ("profiles: the database's models (%zu apps, %zu EAR "
                "pairs); as run: %s, dispatch %s%s%s\n",
                r->tab->napps, h->npairs, h->as_run.label + 8, h->mode,
                h->ignored[0] ? "; settings ignored: " : "", h->ignored);
        printf ("before the window: %zu jobs metaschedd decided (the "
                "last %d at most), %zu counted first in metasched's "
                "job mix (calibration, drain price) as it counted them, "
                "%zu seen to end (their waits: the lean)\n",
                h->decided, MS_MIX_JOBS, h->nprime, h->nseen);
    }
    snprintf (r->mixdesc, sizeof (r->mixdesc), "as measured");
    o->profiles = "the database's models";
    return 0;
}

/* The profiles and the workload: a trace or a generated one. */
static int
run_workload (simrun_t *r)
{
    opts_t *o = r->o;
    ms_siteconf_t *conf = r->conf;

    if (!o->profiles) {
        if (!strcmp (o->scenario, "eamc")) {
            static char pbuf[4096];
            snprintf (pbuf, sizeof (pbuf), "eamc2hw:%s/profiles/eamc-2hw",
                      o->data);
            o->profiles = pbuf;
        } else
            o->profiles = "table61";
    }
    if (setup_predictor (o, conf, &r->pred, &r->err) < 0
        || predtab_build (r->pred, conf, &r->tab, &r->err) < 0)
        return -1;
    if (!o->trace && !o->gen_set) {
        if (!strcmp (o->scenario, "kth")) {
            snprintf (r->tracepath, sizeof (r->tracepath),
                      "%s/traces/KTH-SP2-1996-2.1-cln.swf.gz", o->data);
            o->trace = r->tracepath;
        } else if (!strcmp (o->scenario, "curie")) {
            snprintf (r->tracepath, sizeof (r->tracepath),
                      "%s/traces/CEA-Curie-2011-sample30k.swf.gz", o->data);
            o->trace = r->tracepath;
            if (!o->cores_per_node)
                o->cores_per_node = 16;
        }
    }
    if (o->trace) {
        int cpn = o->cores_per_node;
        if (swf_load (o->trace, o->skip_malformed ? SWF_SKIP_MALFORMED : 0,
                      &r->trace, &r->err)
            < 0)
            return -1;
        if (!cpn && r->trace->max_procs > 0 && r->trace->max_nodes > 0)
            cpn = (int)(r->trace->max_procs / r->trace->max_nodes);
        if (cpn < 1)
            cpn = conf->archs[conf->parts[r->home].arch].cores_per_node;
        if (workload_from_swf (r->trace, cpn, conf->parts[r->home].nodes,
                               o->replicate, &r->wl, &r->err)
            < 0)
            return -1;
        if (!o->quiet)
            printf ("workload: %s, %zu jobs (%zu without runtime or size "
                    "dropped, %zu clipped to the home partition, %zu "
                    "malformed lines skipped), %d cores per node%s\n",
                    r->trace->name, r->wl->njobs, r->wl->dropped,
                    r->wl->clipped, r->trace->skipped, cpn,
                    o->replicate > 1 ? ", replicated" : "");
        return 0; /* the records are freed in run_simulate */
    }
    if (o->gen.max_nodes > conf->parts[r->home].nodes)
        o->gen.max_nodes = conf->parts[r->home].nodes;
    if (workload_generate (&o->gen, &r->wl, &r->err) < 0)
        return -1;
    if (!o->quiet) {
        const ms_workload_t *wl = r->wl;
        double mn = 0, mr = 0;
        for (size_t i = 0; i < wl->njobs; i++) {
            mn += wl->jobs[i].nodes;
            mr += wl->jobs[i].runtime;
        }
        printf ("workload: generated, %zu jobs, seed %llu, mean %.2f "
                "nodes, mean runtime %.2f h, over %.1f days\n",
                wl->njobs, (unsigned long long)o->seed, mn / wl->njobs,
                mr / wl->njobs / 3600, wl->jobs[wl->njobs - 1].submit / 86400);
    }
    return 0;
}

/* GPU jobs, apps, GPU profiles and moldable jobs on the workload. */
static int
run_jobkinds (simrun_t *r)
{
    opts_t *o = r->o;
    ms_siteconf_t *conf = r->conf;
    ms_workload_t *wl = r->wl;

    if (o->gpu_share > 0) {
        int maxg = candidates_max_gpus (conf), maxn = 0;
        size_t ng;
        if (!maxg)
            return ms_err (&r->err, MS_ERR_INPUT,
                           "--gpu-share: no partition of %s has "
                           "gpus_per_node",
                           conf->path);
        if (o->gpus_per_job > maxg)
            return ms_err (&r->err, MS_ERR_INPUT,
                           "--gpus-per-job %d: the most GPUs per node a "
                           "partition has is %d",
                           o->gpus_per_job, maxg);
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
    if (mix_weights (o, r->tab, r->home, r->wts, r->mixdesc,
                     sizeof (r->mixdesc), &r->err)
        < 0)
        return -1;
    workload_assign_apps (wl, r->wts, r->tab->napps, o->seed);
    if (o->gpu_profiles
        && siminput_gpu_profiles (o, conf, r->tab, wl, &r->err) < 0)
        return -1;
    if (o->deadline_share > 0) {
        size_t nd = simcarbon_deadlines (wl, o->deadline_share,
                                         o->deadline_factor, o->seed);
        if (!o->quiet)
            printf ("jobs with a deadline: %zu (%.1f%%), submit + %g times "
                    "the time limit\n",
                    nd, 100.0 * nd / wl->njobs, o->deadline_factor);
    }
    if (o->moldable_share > 0) {
        int maxn = 0;
        size_t nm;
        for (size_t p = 0; p < conf->nparts; p++)
            if (conf->parts[p].nodes > maxn)
                maxn = conf->parts[p].nodes;
        nm = workload_assign_moldable (wl, o->moldable_share, o->mold_lo,
                                       o->mold_hi, maxn, o->seed);
        r->serial = ms_xcalloc (r->tab->napps + 1, sizeof (double));
        if (siminput_moldable_models (o, r->tab, r->serial, &r->err) < 0)
            return -1;
        if (!o->quiet)
            printf ("moldable jobs: %zu (%.1f%%), %d to %d nodes; apps' "
                    "serial fractions %.2f to %.2f, speedup models fitted "
                    "from runs at 1, 2, 4 and 8 nodes\n",
                    nm, 100.0 * nm / wl->njobs, o->mold_lo,
                    o->mold_hi < maxn ? o->mold_hi : maxn, MOLD_SERIAL_LO,
                    MOLD_SERIAL_HI);
    }
    return 0;
}

/* What the run is made of, on stdout. */
static void
run_header (const simrun_t *r)
{
    const opts_t *o = r->o;
    const ms_siteconf_t *conf = r->conf;

    if (o->quiet)
        return;
    if (o->from_db)
        printf ("clusters: %s (each job's home: where its app is "
                "fastest):",
                conf->path);
    else
        printf ("clusters: %s (home %s/%s):", conf->path,
                conf->clusters[conf->parts[r->home].cluster].name,
                conf->parts[r->home].name);
    for (size_t p = 0; p < conf->nparts; p++)
        printf ("%s %s/%s %d x %s", p ? "," : "",
                conf->clusters[conf->parts[p].cluster].name,
                conf->parts[p].name, conf->parts[p].nodes,
                conf->archs[conf->parts[p].arch].name);
    printf ("\napps: %s; profiles: %s\n", r->mixdesc, o->profiles);
    printf ("backfill: %s; truth noise: runtime sigma %.3f; "
            "predictions from %s\n\n",
            sim_backfill_name (o->backfill), o->noise,
            o->exact ? "true runtimes" : "time limits");
}

/* The policies asked for, with the settings given, and the sweep's. */
static int
run_policies (simrun_t *r)
{
    opts_t *o = r->o;
    double tw[8], sw[MAX_RUNS];
    size_t ntw, nsw;

    if ((ntw = parse_list (o->t_weights, tw, 8)) == SIZE_MAX
        || (nsw = parse_list (o->sweep, sw, MAX_RUNS)) == SIZE_MAX)
        return ms_err (&r->err, MS_ERR_INPUT,
                       "--t-weight/--sweep: numbers separated "
                       "by commas");
    if (!o->carbon && (o->carbon_start || o->shift_base))
        return ms_err (&r->err, MS_ERR_INPUT, "%s needs --carbon",
                       o->carbon_start ? "--carbon-start" : "--shift-base");
    if (o->carbon
        && simcarbon_load (o->carbon, o->carbon_zones, o->carbon_start, r->conf,
                           &r->cb, &r->err)
               < 0)
        return -1;
    for (int k = 0; k < POL_NKINDS; k++) {
        if (!wanted (o->policies, (ms_polkind_t)k))
            continue;
        /* the capped baseline: asked for, or beside a power budget */
        if (k == POL_HOME && !o->policies && !r->budgets.n)
            continue;
        bool eamc = k == POL_EAMC_REORDER || k == POL_EAMC_PRIO
                    || k == POL_EAMC_PRIO_V;
        for (size_t t = 0; t < (eamc ? ntw : 1) && r->npols < MAX_RUNS; t++) {
            ms_policy_t *pol = &r->pols[r->npols++];
            policy_init (pol, (ms_polkind_t)k);
            simopts_policy (o, pol, false);
            if (eamc)
                pol->t_weight = tw[t];
            if (r->cb.nz)
                pol->carbon = &r->cb;
            policy_relabel (pol);
        }
    }
    /* the shifting baselines, a job with a deadline held for its
     * cleanest run before it: at base's partition and frequency (the
     * job's optimal partition), and at its home partition at nominal
     * frequency (time shifting alone where the job was submitted) */
    for (int k = 0; k < 2 && o->shift_base && r->npols < MAX_RUNS; k++) {
        ms_policy_t *pol = &r->pols[r->npols++];
        policy_init (pol, k ? POL_HOME : POL_BASE);
        pol->carbon_shift = true;
        pol->carbon = &r->cb;
        policy_relabel (pol);
    }
    if (wanted (o->policies, POL_METASCHED))
        for (size_t i = 0; i < nsw && r->nsweep < MAX_RUNS; i++) {
            ms_policy_t *pol = &r->sweep[r->nsweep++];
            policy_init (pol, POL_METASCHED);
            simopts_policy (o, pol, true);
            pol->w_energy = sw[i];
            if (r->cb.nz)
                pol->carbon = &r->cb;
            policy_relabel (pol);
        }
    return 0;
}

/* The policy row that sweep row i repeats (the same settings but the
 * label: metasched at the default weight), or SIZE_MAX. Such a run gives
 * the same row to the digit, so its row is copied rather than run again;
 * not where each run's records are written (--jobs-csv, the power
 * table), which are the last run's. */
static size_t
run_repeats (const simrun_t *r, size_t i)
{
    ms_policy_t a;

    if (r->o->jobs_csv || r->prows)
        return SIZE_MAX;
    memcpy (&a, &r->sweep[i], sizeof (a));
    for (size_t j = 0; j < r->npols; j++) {
        memcpy (a.label, r->pols[j].label, sizeof (a.label));
        if (!memcmp (&a, &r->pols[j], sizeof (a)))
            return j;
    }
    return SIZE_MAX;
}

/* What one run gives back (from a worker process where the table's runs
 * are shared out, simpar.c). */
typedef struct {
    ms_summary_t row;
    simcarbon_row_t crow; /* --carbon, a policy row */
    bool brok;            /* --bound */
    double brt, bre;
    size_t same; /* --from-db's replay: jobs placed where they ran */
    double ut0, binw;
    double util[]; /* UTIL_BINS x partitions, a run whose utilization
                      is kept */
} simout_t;

/* The runs of a table: the rows that are not repeats, in order. */
typedef struct {
    simrun_t *r;
    size_t run[2 * MAX_RUNS], nrun;
    int util[2 * MAX_RUNS]; /* row i's utilization series, or -1 */
    size_t size;            /* of a simout_t with its series */
} simjobs_t;

/* Run sj->run[t] (a row's index) through the simulator, with what its
 * records give. */
static int
run_one (void *arg, size_t t, void *outp, ms_error_t *errp)
{
    simjobs_t *sj = arg;
    simrun_t *r = sj->r;
    opts_t *o = r->o;
    size_t i = sj->run[t];
    const ms_policy_t *pol
        = i < r->npols ? &r->pols[i] : &r->sweep[i - r->npols];
    const ms_workload_t *wl = r->wl;
    ms_jobrec_t *recs = r->recs;
    simout_t *out = outp;

    r->su.progress = pol->label;
    if (simulate_run (&r->su, pol, recs, &out->row, errp) < 0)
        return -1;
    if (o->jobs_csv
        && simrecs_jobs_csv (o->outdir, pol->label, r->conf, r->tab, wl, recs,
                             errp)
               < 0)
        return -1;
    if (r->cb.nz && i < r->npols)
        simcarbon_row (&r->cb, r->conf, wl, recs, &out->crow);
    if (r->bound)
        out->brok = simrecs_bound_row (r->conf, r->tab, wl, r->home, recs,
                                       &r->bcs, &out->brt, &out->bre);
    /* (one process: run_workers) */
    if (r->prows
        && simpower_add (o, r->conf, &r->budgets, &out->row, recs, wl->njobs,
                         &r->prows[r->nprows++], errp)
               < 0)
        return -1;
    /* The replay of the policy as run against where jobs ran. */
    if (r->r0 && i == 0)
        for (size_t k = 0; k < wl->njobs; k++)
            out->same += recs[k].part == r->hist.recs[k].part
                         && recs[k].f_khz == r->hist.recs[k].f_khz
                         && simrecs_het_same (r->conf, &wl->jobs[k],
                                              recs[k].part);
    if (sj->util[i] >= 0)
        metrics_utilization_series (r->conf, recs, wl->njobs, UTIL_BINS,
                                    out->util, &out->ut0, &out->binw);
    return 0;
}

/* The processes a table's runs are shared among: --workers, or the
 * processors this process may use; one where each run appends to the
 * power table. */
static size_t
run_workers (const simrun_t *r)
{
    if (r->prows)
        return 1;
    return r->o->workers ? r->o->workers : simpar_default_workers ();
}

/* A run's results into the table, in the rows' order. */
static void
run_take (simrun_t *r, const simjobs_t *sj, const simout_t *out, size_t i)
{
    const ms_policy_t *pol
        = i < r->npols ? &r->pols[i] : &r->sweep[i - r->npols];
    size_t nb = UTIL_BINS * r->conf->nparts;

    if (i < r->npols)
        r->rows[r->r0 + i] = out->row;
    else
        r->srows[i - r->npols] = out->row;
    if (r->cb.nz && i < r->npols)
        r->crows[i] = out->crow;
    r->brok[i] = out->brok;
    r->brt[i] = out->brt;
    r->bre[i] = out->bre;
    r->same += out->same;
    if (sj->util[i] >= 0) {
        size_t k = (size_t)sj->util[i];
        r->util[k] = ms_xcalloc (nb, sizeof (double));
        memcpy (r->util[k], out->util, nb * sizeof (double));
        r->ut0 = out->ut0;
        r->binw[k] = out->binw;
        r->ulabels[k] = pol->label;
        r->nutil = k + 1;
    }
}

/* A run's cost class: the window policy's cycles, metasched's ranking
 * and calibration, the rest (about 3, 2 and 1 to 0.6 on KTH-SP2). */
static int
run_cost (const ms_policy_t *pol)
{
    return pol->kind == POL_METASCHED_WINDOW ? 2
           : pol->kind == POL_METASCHED      ? 1
                                             : 0;
}

/* The costliest runs first, so that the workers end together (the
 * longest run is not the last one taken); the order of the rows does
 * not move, each run's results go to its own. */
static void
run_order (const simrun_t *r, simjobs_t *sj)
{
    size_t n = 0, run[2 * MAX_RUNS];

    for (int c = 2; c >= 0; c--)
        for (size_t t = 0; t < sj->nrun; t++) {
            size_t i = sj->run[t];
            const ms_policy_t *pol
                = i < r->npols ? &r->pols[i] : &r->sweep[i - r->npols];
            if (run_cost (pol) == c)
                run[n++] = i;
        }
    memcpy (sj->run, run, n * sizeof (run[0]));
}

/* The records every run writes. Where the runs go to forked workers,
 * in a mapping of their own that this process does not touch: each
 * process then writes pages of its own (zero until written), where
 * memory from the heap would be the parent's pages, shared after the
 * fork and copied 4 KiB at a time at the first write (KTH-SP2 -p
 * eamc_reorder: 1,670 page faults, 650 so). */
static void
run_recs (simrun_t *r, bool forked)
{
    size_t huge = 2 << 20,
           len = (r->wl->njobs * sizeof (*r->recs) + huge - 1) & ~(huge - 1);
    void *p;

    if (forked && len
        && (p = mmap (NULL, len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
               != MAP_FAILED) {
        (void)madvise (p, len, MADV_HUGEPAGE);
        r->recs = p;
        r->recs_mapped = len;
        return;
    }
    r->recs = ms_xcalloc (r->wl->njobs, sizeof (*r->recs));
}

/* Every policy through the simulator, one row each; the runs shared out
 * among run_workers processes, each run the computation it is alone. */
static int
run_simulate (simrun_t *r)
{
    opts_t *o = r->o;
    ms_siteconf_t *conf = r->conf;
    const ms_workload_t *wl = r->wl;
    ms_simsetup_t *su = &r->su;
    size_t nrun = r->npols + r->nsweep, nutil = 0;
    simjobs_t *sj;
    char *outs;
    bool forked;
    int rc;

    if (mkdir_p (o->outdir, &r->err) < 0)
        return -1;
    simulate_setup_init (su);
    su->conf = conf;
    su->tab = r->tab;
    su->wl = r->wl;
    su->home = r->home;
    su->backfill = o->backfill;
    su->seed = o->seed;
    su->noise_t = o->noise;
    su->exact_estimates = o->exact;
    su->serial = r->serial;
    su->prime = r->hist.prime;
    su->nprime = r->hist.nprime;
    su->seen = r->hist.seen;
    su->nseen = r->hist.nseen;
    su->budgets = &r->budgets;
    su->outages = &r->outages;
    if (r->budgets.n || o->power_report)
        r->prows = ms_xcalloc (nrun + 1, sizeof (*r->prows));
    if (o->bound) {
        r->bound = bound_new ();
        for (size_t k = 0; k < wl->njobs; k++) {
            simrecs_bound_cands (conf, r->tab, &wl->jobs[k], r->home, &r->bcs);
            bound_add_job (r->bound, &r->bcs);
        }
        bound_finish (r->bound);
    }
    sj = ms_xcalloc (1, sizeof (*sj));
    sj->r = r;
    sj->size = sizeof (simout_t) + UTIL_BINS * conf->nparts * sizeof (double);
    sj->size = (sj->size + 15) / 16 * 16;
    for (size_t i = 0; i < nrun; i++) {
        const ms_policy_t *pol
            = i < r->npols ? &r->pols[i] : &r->sweep[i - r->npols];
        /* utilization over time of min_runtime and metasched */
        sj->util[i] = -1;
        if (i < r->npols && nutil < 2
            && (pol->kind == POL_MIN_RUNTIME || pol->kind == POL_METASCHED))
            sj->util[i] = (int)nutil++;
        if (i < r->npols || run_repeats (r, i - r->npols) == SIZE_MAX)
            sj->run[sj->nrun++] = i;
    }
    run_order (r, sj);
    /* Nothing reads the trace's records now. Freed, their pages go to
     * the runs' arrays instead of new ones, but not where the runs are
     * shared among forked workers: a page the parent touched is shared,
     * and the first write to it in either process copies it, 4 KiB at a
     * time (its 2 MiB page split). There the records are kept and the
     * runs' arrays take pages of their own (KTH-SP2 -p eamc_reorder:
     * 2,310 page faults, 1,670 so). */
    forked = sj->nrun > 1 && run_workers (r) > 1;
    if (!forked) {
        swf_free (r->trace);
        r->trace = NULL;
    }
    run_recs (r, forked);
    outs = ms_xcalloc (sj->nrun ? sj->nrun : 1, sj->size);
    rc = simpar_run (sj->nrun, run_workers (r), sj->size, run_one, sj, outs,
                     &r->err);
    /* in the rows' order (the last series' start is the plot's) */
    for (size_t i = 0; rc == 0 && i < nrun; i++)
        for (size_t t = 0; t < sj->nrun; t++)
            if (sj->run[t] == i)
                run_take (r, sj, (const simout_t *)(outs + t * sj->size), i);
    /* a sweep row that repeats a policy row takes that row */
    for (size_t i = r->npols; rc == 0 && i < nrun; i++) {
        size_t same = run_repeats (r, i - r->npols);
        if (same == SIZE_MAX)
            continue;
        r->srows[i - r->npols] = r->rows[r->r0 + same];
        ms_strlcpy (r->srows[i - r->npols].label, r->sweep[i - r->npols].label,
                    sizeof (r->srows[i - r->npols].label));
        r->brok[i] = r->brok[same];
        r->brt[i] = r->brt[same];
        r->bre[i] = r->bre[same];
    }
    free (outs);
    free (sj);
    return rc;
}

/* The tables on stdout (and to --seeds' collection, the moldable runs'
 * and the bound's files). */
static int
run_tables (simrun_t *r)
{
    opts_t *o = r->o;

    if (r->r0) {
        metrics_summarize (r->conf, r->hist.recs, r->wl->njobs, &r->rows[0]);
        ms_strlcpy (r->rows[0].label, "measured", sizeof (r->rows[0].label));
    }
    if (o->collect) {
        for (size_t i = 0; i < r->npols + r->r0; i++)
            seedruns_add (o->collect, o->seed,
                          i < r->r0             ? "measured"
                          : i == r->r0 && r->r0 ? "as-run"
                                                : "policy",
                          &r->rows[i]);
        for (size_t i = 0; i < r->nsweep; i++)
            seedruns_add (o->collect, o->seed, "sweep", &r->srows[i]);
    }
    if (!o->no_table)
        metrics_print_table (stdout, r->conf, r->rows, r->npols + r->r0);
    if (r->cb.nz && !o->no_table) {
        const char *lab[MAX_RUNS];
        for (size_t i = 0; i < r->npols; i++)
            lab[i] = r->pols[i].label;
        simcarbon_print (stdout, &r->cb, lab, r->crows, r->npols);
    }
    if (r->r0 && !o->no_table) {
        const ms_summary_t *m = &r->rows[0], *a = &r->rows[1];
        printf ("\nas run against measured, %zu jobs: job energy %+.2f%%, "
                "runtime %+.2f%%, mean wait %.1f s (measured %.1f s), mean "
                "response %.1f s (measured %.1f s); %zu jobs on the "
                "partition and at the frequency where they ran\n",
                r->wl->njobs,
                m->job_energy_j > 0
                    ? 100 * (a->job_energy_j / m->job_energy_j - 1)
                    : 0,
                m->sum_runtime > 0 ? 100 * (a->sum_runtime / m->sum_runtime - 1)
                                   : 0,
                a->mean_wait, m->mean_wait, a->mean_response, m->mean_response,
                r->same);
    }
    if (r->serial
        && siminput_moldable_saved (o, &r->su, r->pols, r->npols,
                                    r->rows + r->r0, r->recs, &r->err)
               < 0)
        return -1;
    if (r->prows) {
        char btext[2048];
        power_budgets_format (&r->budgets, r->conf, btext, sizeof (btext));
        if (!o->no_table)
            simpower_print (stdout, r->prows, r->nprows,
                            r->budgets.n ? btext : NULL);
        if (simpower_csv (o->outdir, r->prows, r->nprows, &r->err) < 0)
            return -1;
    }
    if (r->outages.n) {
        if (!o->no_table)
            simoutage_print (stdout, r->conf, &r->outages, r->rows + r->r0,
                             r->npols);
        if (simoutage_csv (o->outdir, r->rows + r->r0, r->npols, &r->err) < 0)
            return -1;
    }
    if (r->nsweep && !o->quiet && !o->no_table) {
        printf ("\nmetasched energy-weight sweep (the Pareto front):\n");
        metrics_print_table (stdout, r->conf, r->srows, r->nsweep);
    }
    if (r->bound
        && simrecs_bound_report (o->outdir, r->bound, r->rows + r->r0, r->npols,
                                 r->srows, r->nsweep, r->brt, r->bre, r->brok,
                                 !o->no_table, &r->err)
               < 0)
        return -1;
    return 0;
}

/* summary.csv, table.txt and the plots. */
static int
run_files (simrun_t *r)
{
    opts_t *o = r->o;
    char path[4096];
    FILE *f;

    /* CSV and the table as text. */
    snprintf (path, sizeof (path), "%s/summary.csv", o->outdir);
    if (!(f = fopen (path, "w"))) {
        ms_err (&r->err, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
        return -1;
    }
    metrics_csv_header (f, r->conf);
    for (size_t i = 0; i < r->npols + r->r0; i++)
        metrics_csv_row (f, r->conf, &r->rows[i],
                         i < r->r0             ? "measured"
                         : i == r->r0 && r->r0 ? "as-run"
                                               : "policy");
    for (size_t i = 0; i < r->nsweep; i++)
        metrics_csv_row (f, r->conf, &r->srows[i], "sweep");
    fclose (f);
    snprintf (path, sizeof (path), "%s/table.txt", o->outdir);
    if ((f = fopen (path, "w"))) {
        metrics_print_table (f, r->conf, r->rows, r->npols + r->r0);
        if (r->nsweep) {
            fprintf (f, "\nmetasched energy-weight sweep:\n");
            metrics_print_table (f, r->conf, r->srows, r->nsweep);
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
                  o->from_db ? "history" : o->scenario, r->wl->njobs);
        r1 = plot_pareto (o->outdir, title, r->rows, r->npols + r->r0, r->srows,
                          r->nsweep, &r->err);
        if (r1 >= 0 && r->nutil)
            r2 = plot_utilization (o->outdir, title, r->conf, r->ulabels,
                                   (const double *const *)r->util, r->nutil,
                                   UTIL_BINS, r->ut0, r->binw, &r->err);
        if (r1 < 0 || r2 < 0)
            fprintf (stderr, "metasched simulate: plots: %s\n", r->err.text);
        else if (r1 == 1 || r2 == 1)
            printf ("plots skipped: gnuplot was not found (data and scripts "
                    "are in %s)\n",
                    o->outdir);
        else if (!o->quiet)
            printf ("plots: %s/pareto.png, %s/pareto.svg, "
                    "%s/utilization.png, %s/utilization.svg\n",
                    o->outdir, o->outdir, o->outdir, o->outdir);
    }
    return 0;
}

static void
run_free (simrun_t *r)
{
    free (r->util[0]);
    free (r->util[1]);
    free (r->prows);
    power_budgets_free (&r->budgets);
    outages_free (&r->outages);
    if (r->recs_mapped)
        munmap (r->recs, r->recs_mapped);
    else
        free (r->recs);
    free (r->serial);
    free (r->hist.recs);
    free (r->hist.prime);
    free (r->hist.seen);
    bound_free (r->bound);
    free (r->bcs.c);
    workload_free (r->wl);
    swf_free (r->trace);
    carbon_free (&r->cb);
    predtab_free (r->tab);
    predictor_free (r->pred);
    clusterconf_free (r->conf);
    free (r);
}

/* The last run's memory, kept to the exit (still reachable there, so a
 * leak check does not count it; volatile, as no one reads it, or the
 * compiler drops the store). */
static simrun_t *volatile run_kept;

/* One run: its steps in order; the first to fail says why. last: the
 * process exits after it, so what it allocated is left to the exit, which
 * takes the whole heap back at once (freeing KTH-SP2's arrays one by one
 * took 0.2 to 0.4 ms; doc/evaluation.md, "Speed"). */
static int
run (opts_t *o, bool last)
{
    simrun_t *r = ms_xcalloc (1, sizeof (*r));
    int rc;

    r->o = o;
    rc = run_site (r);
    if (rc == 0 && o->from_db)
        rc = run_history (r);
    else if (rc == 0)
        rc = run_workload (r) < 0 ? -1 : run_jobkinds (r);
    if (rc == 0) {
        run_header (r);
        rc = run_policies (r);
    }
    if (rc == 0)
        rc = run_simulate (r);
    if (rc == 0)
        rc = run_tables (r);
    if (rc == 0)
        rc = run_files (r);
    if (rc < 0)
        fprintf (stderr, "metasched simulate: %s\n", r->err.text);
    if (last)
        run_kept = r;
    else
        run_free (r);
    return rc == -2 ? 2 : rc < 0 ? 1 : 0;
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
        if (run (&oi, false) != 0)
            goto done; /* run() said why */
        if (!o->quiet)
            printf ("seed %llu: %s\n", (unsigned long long)sv[i], dir);
        /* The rows to compare against exist once the first run is in. */
        if (i == 0 && o->versus
            && versus_each (sr, o->versus, NULL, &err) < 0) {
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
                o->versus ? o->outdir : "",
                o->versus ? "/seeds-versus.csv" : "");
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
    opts_t o;
    int rc = simopts_parse (argc, argv, &o);

    if (rc >= 0)
        return rc;
    return o.seeds ? run_seeds (&o) : run (&o, true);
}
