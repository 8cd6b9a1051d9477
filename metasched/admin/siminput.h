/* siminput.h - private to `metasched simulate` (cmd_simulate.c): its
 * options, and the inputs siminput.c builds beyond a trace or the
 * generator: the site's history (--from-db), apps' GPU profiles
 * (--gpu-profiles), moldable jobs (--moldable-share) and what
 * moldability saved. */
#ifndef MS_SIMINPUT_H
#define MS_SIMINPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
#include "metasched/core/candidates.h"
#include "metasched/core/policy.h"
#include "metasched/sim/metrics.h"
#include "metasched/sim/seeds.h"
#include "metasched/sim/simulate.h"
#include "metasched/sim/workload.h"
#include "partitions/clusterconf.h"
#include "predictor/predictor.h"

#define SIMOPTS_MAX 96 /* rows of the settings table */

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
    size_t workers; /* --workers: processes for a table's runs (0: one
                       a processor, simpar.c) */
    bool skip_malformed;
    ms_genparams_t gen;
    bool gen_set;
    double noise;
    /* the policy settings given (rows of core/settings_table.c by index;
     * not given: the policy's default) */
    double setv[SIMOPTS_MAX];
    bool setgiven[SIMOPTS_MAX];
    bool exact;
    bool plots;
    bool quiet;
    uint64_t seed;
    bool seed_set;         /* --seed given */
    const char *seeds;     /* --seeds: the list, one run each */
    const char *versus;    /* --versus: rows to compare against, paired */
    /* --carbon ZONE=FILE,... and --carbon-zones CLUSTER=ZONE,...
     * (simcarbon.h); --deadline-share: the jobs given a deadline at
     * submit + --deadline-factor x limit; --shift-base: the shifting
     * baselines' rows (base's partition, the home partition) */
    const char *carbon;
    const char *carbon_zones;
    const char *carbon_start; /* --carbon-start: the run's time 0 */
    double deadline_share;
    double deadline_factor;
    bool shift_base;
    ms_seedruns_t *collect; /* a run's rows go here (--seeds) */
    bool no_table;         /* print no table (a run of --seeds) */
    bool jobs_csv;         /* every job of every run in jobs-LABEL.csv */
    bool bound;            /* the static bound against every row
                              (metasched/sim/bound.h) */
    sim_backfill_t backfill;
    const char *power_budget; /* --power-budget: SPEC or @FILE */
    bool power_report;        /* --power: the power table without budgets */
    const char *outage;       /* --outage CLUSTER@START+DURATION,... */
} opts_t;

/* The range of the apps' true serial fractions (--moldable-share). */
#define MOLD_SERIAL_LO 0.02
#define MOLD_SERIAL_HI 0.30

/* The site's own history (--from-db). */
typedef struct {
    ms_jobrec_t *recs;  /* as measured, one per workload job */
    ms_policy_t as_run; /* the daemon's policy with its settings */
    size_t read, no_part, no_freq, no_home;
    size_t het, het_parts; /* heterogeneous jobs read whole, components */
    ms_jobdesc_t *prime; /* the jobs metaschedd decided before the window
                            (at most MS_MIX_JOBS, submit relative to the
                            window's first job): counted first, as the
                            daemon had counted them */
    size_t nprime, decided; /* ... and how many of the decided were read */
    double *seen; /* the waits and runtimes (pairs) of those seen to end,
                     observed first as the daemon observed them */
    size_t nseen;
    size_t npairs;
    char ignored[512];
    char mode[16];
} history_t;

int siminput_history_load (const opts_t *o, ms_siteconf_t *conf,
                           predictor_t **predp, ms_predtab_t **tabp,
                           ms_workload_t **wlp, history_t *h,
                           ms_error_t *errp);
int siminput_gpu_profiles (const opts_t *o, const ms_siteconf_t *conf,
                           ms_predtab_t *tab, ms_workload_t *wl,
                           ms_error_t *errp);
int siminput_moldable_models (const opts_t *o, ms_predtab_t *tab,
                              double *serial, ms_error_t *errp);
int siminput_moldable_saved (const opts_t *o, ms_simsetup_t *su,
                             const ms_policy_t *pols, size_t npols,
                             const ms_summary_t *rows, ms_jobrec_t *recs,
                             ms_error_t *errp);

#endif
