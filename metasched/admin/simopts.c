/* simopts.c - the options of `metasched simulate` (simopts.h): the
 * program's own (scenario, workload, output) and the policy settings,
 * which are the rows of core/settings_table.c with a simulator flag, so
 * the simulator takes the names, ranges and defaults metaschedd takes.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/admin/simopts.h"
#include "metasched/common/util.h"
#include "metasched/core/settings_table.h"

#define SIM_DEFAULT_CLUSTERS_CONF MS_SYSCONFDIR "/metasched/clusters.conf"

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
    O_SWEEP,
    O_BF,
    O_NOISE,
    O_EXACT,
    O_SEED,
    O_NOPLOTS,
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
    O_CARBON,
    O_CZONES,
    O_CSTART,
    O_DLSHARE,
    O_DLFACTOR,
    O_SHIFTBASE,
    O_OUTAGE,
    O_WORKERS,
    O_TABLE = 1024, /* + the row's index in the settings table */
};

static const struct option fixed[] = {
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
    { "sweep", required_argument, NULL, O_SWEEP },
    { "backfill", required_argument, NULL, O_BF },
    { "noise", required_argument, NULL, O_NOISE },
    { "exact-estimates", no_argument, NULL, O_EXACT },
    { "seed", required_argument, NULL, O_SEED },
    { "no-plots", no_argument, NULL, O_NOPLOTS },
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
    { "carbon", required_argument, NULL, O_CARBON },
    { "carbon-zones", required_argument, NULL, O_CZONES },
    { "carbon-start", required_argument, NULL, O_CSTART },
    { "deadline-share", required_argument, NULL, O_DLSHARE },
    { "deadline-factor", required_argument, NULL, O_DLFACTOR },
    { "shift-base", no_argument, NULL, O_SHIFTBASE },
    { "outage", required_argument, NULL, O_OUTAGE },
    { "workers", required_argument, NULL, O_WORKERS },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
};

#define NFIXED (sizeof (fixed) / sizeof (fixed[0]))

/* The policy settings' lines of the help, from the table. */
static void
table_usage (FILE *f)
{
    const ms_sett_t *rows = NULL;
    size_t n;
    char def[64];

    rows = settings_table (&n);
    fprintf (f, "Policy settings (metasched config list; unset: the "
                "policy's default):\n");
    for (size_t i = 0; i < n; i++) {
        char opt[64];
        if (!(rows[i].where & MS_SETT_SIM))
            continue;
        snprintf (opt, sizeof (opt), "--%s%s", rows[i].flag,
                  rows[i].type == MS_SETT_BOOL ? "" : " X");
        settings_table_format (&rows[i], rows[i].def, def, sizeof (def));
        fprintf (f, "      %-20s %s; default %s\n", opt, rows[i].help, def);
    }
}

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
        "      --workers N          processes the table's runs are shared\n"
        "                           among (1-256; default: the processors\n"
        "                           this process may use); the rows are\n"
        "                           the same for any N\n"
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
        "      --carbon ZONE=FILE,...  grid zones' carbon intensity (CSV, "
        "hourly)\n"
        "      --carbon-zones CLUSTER=ZONE,...  each cluster's zone (default: "
        "in order)\n"
        "      --carbon-start T     the run's time 0 in the signals (ISO 8601\n"
        "                           UTC; default: the first zone's start)\n"
        "      --deadline-share X   give this share (0-1) of the jobs a "
        "deadline\n"
        "      --deadline-factor K  ...at submit + K times the time limit "
        "(2)\n"
        "      --shift-base         rows base-shift and home-shift: base, "
        "and\n"
        "                           home (each job at its home partition),\n"
        "                           deadline jobs held for their cleanest\n"
        "                           run (needs --carbon)\n"
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
        "      --outage CLUSTER@START+DURATION,...  clusters that take no\n"
        "                           new job for DURATION from START after\n"
        "                           the first submit (s, m, h, d); adds the\n"
        "                           outage table\n"
        "      --no-plots           write no plots\n"
        "  -q, --quiet              print only the table\n"
        "  -h, --help\n");
    table_usage (f);
}

int
simopts_double (const char *s, double *out)
{
    char *e;
    errno = 0;
    *out = strtod (s, &e);
    return (*e || e == s || errno || !isfinite (*out)) ? -1 : 0;
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
/* The options that take text or nothing; 1: not one of them. */
static int
text_option (opts_t *o, int c, const char *arg)
{
    switch (c) {
    case 'o':
        o->outdir = arg;
        break;
    case 's':
        o->scenario = arg;
        break;
    case 'd':
        o->data = arg;
        break;
    case 'c':
        o->config = arg;
        break;
    case 't':
        o->trace = arg;
        break;
    case O_HOME:
        o->home = arg;
        break;
    case O_PROF:
        o->profiles = arg;
        break;
    case O_MIX:
        o->mix = arg;
        break;
    case 'p':
        o->policies = arg;
        break;
    case O_TW:
        o->t_weights = arg;
        break;
    case O_SWEEP:
        o->sweep = arg;
        break;
    case O_SEEDS:
        o->seeds = arg;
        break;
    case O_VERSUS:
        o->versus = arg;
        break;
    case O_PBUDGET:
        if (o->power_budget) {
            fprintf (stderr, "metasched simulate: --power-budget given "
                             "twice (separate budgets with ';')\n");
            return 2;
        }
        o->power_budget = arg;
        break;
    case O_POWER:
        o->power_report = true;
        break;
    case O_OUTAGE:
        if (o->outage) {
            fprintf (stderr, "metasched simulate: --outage given twice "
                             "(separate outages with ',')\n");
            return 2;
        }
        o->outage = arg;
        break;
    case O_CARBON:
        o->carbon = arg;
        break;
    case O_CZONES:
        o->carbon_zones = arg;
        break;
    case O_CSTART:
        o->carbon_start = arg;
        break;
    case O_DLSHARE:
        if (simopts_double (arg, &o->deadline_share) < 0
            || o->deadline_share < 0 || o->deadline_share > 1)
            return -1;
        break;
    case O_DLFACTOR:
        if (simopts_double (arg, &o->deadline_factor) < 0
            || o->deadline_factor < 1 || o->deadline_factor > 1000)
            return -1;
        break;
    case O_SHIFTBASE:
        o->shift_base = true;
        break;
    case O_FROMDB:
        o->from_db = arg;
        break;
    case O_PWFILE:
        o->password_file = arg;
        break;
    case O_GPUPROF:
        o->gpu_profiles = arg;
        break;
    case O_SKIP:
        o->skip_malformed = true;
        break;
    case O_EXACT:
        o->exact = true;
        break;
    case O_NOPLOTS:
        o->plots = false;
        break;
    case O_JOBSCSV:
        o->jobs_csv = true;
        break;
    case O_BOUND:
        o->bound = true;
        break;
    case 'q':
        o->quiet = true;
        break;
    default:
        return 1;
    }
    return 0;
}

/* The generator's options given before the scenario is known. */
struct gen_given {
    double ia, mn, mr;
    long njobs;
};

/* The options that take a number: 0, -1 a bad value, 2 an error told. */
static int
number_option (opts_t *o, struct gen_given *g, int c, const char *arg)
{
    double v;

    if (c == O_BF)
        return sim_backfill_parse (arg, &o->backfill) < 0 ? -1 : 0;
    if (c == O_MOLDRANGE) {
        int mlo, mhi, end = 0;
        if (sscanf (arg, "%d-%d%n", &mlo, &mhi, &end) != 2 || arg[end]
            || mlo < 1 || mhi < mlo || mhi > 100000) {
            fprintf (stderr,
                     "metasched simulate: --moldable-range: "
                     "MIN-MAX nodes, 1 <= MIN <= MAX, not '%s'\n",
                     arg);
            return 2;
        }
        o->mold_lo = mlo;
        o->mold_hi = mhi;
        return 0;
    }
    if (simopts_double (arg, &v) < 0)
        return -1;
    switch (c) {
    case O_CPN:
        if (v < 1 || v > 1e6)
            return -1;
        o->cores_per_node = (int)v;
        break;
    case O_REPL:
        if (v < 1 || v > 1000)
            return -1;
        o->replicate = (size_t)v;
        break;
    case O_WORKERS:
        if (v < 1 || v > 256 || v != (size_t)v)
            return -1;
        o->workers = (size_t)v;
        break;
    case 'n':
        if (v < 1 || v > 1e8)
            return -1;
        g->njobs = (long)v;
        break;
    case O_IA:
    case O_MR:
        if (v <= 0)
            return -1;
        *(c == O_IA ? &g->ia : &g->mr) = v;
        break;
    case O_MN:
        if (v < 1)
            return -1;
        g->mn = v;
        break;
    case O_NOISE:
        if (v < 0 || v > 2)
            return -1;
        o->noise = v;
        break;
    case O_SEED:
        if (v < 0)
            return -1;
        o->seed = (uint64_t)v;
        o->seed_set = true;
        break;
    case O_SINCE:
        if (v <= 0 || v > 36500)
            return -1;
        o->since_days = v;
        break;
    case O_GPUSHARE:
        if (v < 0 || v > 1)
            return -1;
        o->gpu_share = v;
        break;
    case O_GPUSPJ:
        if (v < 1 || v > 64)
            return -1;
        o->gpus_per_job = (int)v;
        break;
    case O_MOLDSHARE:
        if (v < 0 || v > 1) {
            fprintf (stderr,
                     "metasched simulate: --moldable-share: a "
                     "share from 0 to 1, not '%s'\n",
                     arg);
            return 2;
        }
        o->moldable_share = v;
        break;
    default:
        return -1;
    }
    return 0;
}

/* A policy setting's option: its row's parser and range, whose message
 * names the flag, the value and the setting ("--first-age: bad value
 * '-1': first_age: -1 is out of range 0..100"). */
static int
table_option (opts_t *o, size_t row, const char *arg)
{
    const ms_sett_t *r = &settings_table (NULL)[row];
    char place[160];
    ms_error_t e;
    double v = 1;

    snprintf (place, sizeof (place), "--%s: bad value '%.64s'", r->flag,
              arg);
    if (r->type != MS_SETT_BOOL
        && settings_table_parse (r, arg, place, &v, &e) < 0) {
        fprintf (stderr, "metasched simulate: %s\n", e.text);
        return 2;
    }
    o->setv[row] = v;
    o->setgiven[row] = true;
    return 0;
}

/* The options that go together or exclude each other; 2 when they do not. */
static int
check_options (opts_t *o, const struct gen_given *g)
{
    scenario_defaults (o);
    if (g->njobs > 0)
        o->gen.njobs = (size_t)g->njobs;
    if (g->ia > 0)
        o->gen.mean_interarrival_s = g->ia;
    if (g->mn > 0)
        o->gen.mean_nodes = g->mn;
    if (g->mr > 0)
        o->gen.mean_runtime_s = g->mr;
    o->gen_set = g->njobs > 0 || g->ia > 0 || g->mn > 0 || g->mr > 0;
    if (o->mold_lo && o->moldable_share <= 0) {
        fprintf (stderr, "metasched simulate: --moldable-range goes with "
                         "--moldable-share\n");
        return 2;
    }
    if (!o->mold_lo) {
        o->mold_lo = 1;
        o->mold_hi = 4;
    }
    if (o->from_db
        && (o->trace || o->gen_set || o->profiles || o->gpu_share > 0
            || o->moldable_share > 0 || o->gpu_profiles)) {
        fprintf (stderr, "metasched simulate: --from-db takes the workload and "
                         "the profiles from the database: no --trace, "
                         "generator options or --profiles with it\n");
        return 2;
    }
    if (!o->from_db && (o->password_file || o->since_days != 30)) {
        fprintf (stderr, "metasched simulate: --since and --password-file "
                         "go with --from-db\n");
        return 2;
    }
    if (o->bound && (o->from_db || o->moldable_share > 0)) {
        fprintf (stderr,
                 "metasched simulate: --bound: not with %s (the bound "
                 "takes each job on its own node count, from the "
                 "profiles' runtime at home)\n",
                 o->from_db ? "--from-db" : "--moldable-share");
        return 2;
    }
    if (o->trace && o->gen_set) {
        fprintf (stderr, "metasched simulate: a trace and generator options "
                         "exclude each other\n");
        return 2;
    }
    if (o->seeds && o->seed_set) {
        fprintf (stderr, "metasched simulate: --seed and --seeds exclude "
                         "each other\n");
        return 2;
    }
    if (o->versus && !o->seeds) {
        fprintf (stderr, "metasched simulate: --versus goes with --seeds\n");
        return 2;
    }
    return -1;
}

static void
opts_defaults (opts_t *o)
{
    memset (o, 0, sizeof (*o));
    o->outdir = "sim-out";
    o->scenario = "default";
    o->data = "../shared/data";
    o->mix = "uniform";
    o->t_weights = "1,1.5";
    o->sweep = "0,0.2,0.4,0.5,0.6,0.8,0.9,1";
    o->replicate = 1;
    o->noise = 0.05;
    o->since_days = 30;
    o->plots = true;
    o->seed = 1;
    o->backfill = SIM_EASY;
    o->deadline_factor = 2;
}

int
simopts_parse (int argc, char **argv, opts_t *o)
{
    struct option lo[NFIXED + SIMOPTS_MAX + 1];
    struct gen_given g = { -1, -1, -1, -1 };
    const ms_sett_t *rows = settings_table (NULL);
    size_t nrows, nlo = NFIXED;
    int c, li, rc;

    opts_defaults (o);
    memcpy (lo, fixed, sizeof (fixed));
    settings_table (&nrows);
    for (size_t i = 0; i < nrows && i < SIMOPTS_MAX; i++)
        if (rows[i].where & MS_SETT_SIM)
            lo[nlo++] = (struct option){ rows[i].flag,
                                         rows[i].type == MS_SETT_BOOL
                                             ? no_argument
                                             : required_argument,
                                         NULL, O_TABLE + (int)i };
    memset (&lo[nlo], 0, sizeof (lo[nlo]));
    optind = 1;
    while ((li = -1, c = getopt_long (argc, argv, "o:s:d:c:t:n:p:qh", lo, &li))
           != -1) {
        if (c == 'h') {
            usage (stdout);
            return 0;
        }
        if (c == '?' || c == ':') {
            usage (stderr);
            return 2;
        }
        if (c >= O_TABLE)
            rc = table_option (o, (size_t)(c - O_TABLE), optarg);
        else if ((rc = text_option (o, c, optarg)) == 1)
            rc = number_option (o, &g, c, optarg);
        if (rc == 2)
            return 2;
        if (rc < 0) {
            if (li >= 0)
                fprintf (stderr, "metasched simulate: --%s: bad value '%s'\n",
                         lo[li].name, optarg);
            else
                fprintf (stderr, "metasched simulate: -%c: bad value '%s'\n", c,
                         optarg);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "metasched simulate: unexpected argument '%s'\n",
                 argv[optind]);
        usage (stderr);
        return 2;
    }
    return check_options (o, &g);
}

void
simopts_policy (const opts_t *o, ms_policy_t *pol, bool sweep)
{
    size_t n;
    const ms_sett_t *rows = settings_table (&n);

    for (size_t i = 0; i < n && i < SIMOPTS_MAX; i++) {
        if (!o->setgiven[i])
            continue;
        /* a sweep's rows take their own energy weights (and theta is
         * ear_min_energy's) */
        if (sweep
            && (!strcmp (rows[i].name, "w_energy")
                || !strcmp (rows[i].name, "theta")))
            continue;
        settings_table_apply (&rows[i], pol, o->setv[i]);
    }
}
