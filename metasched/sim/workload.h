/* workload.h - the jobs a simulation replays: from an SWF trace or from
 * the seeded generator of the embedded default, each with an app.
 *
 * A job's runtime is its runtime at the nominal frequency on the home
 * partition's architecture (doc/architecture.md "Simulator"); the
 * simulator scales it by the app's profile to other architectures and
 * frequencies. A job keeps its
 * node count on every partition.
 */
#ifndef MS_WORKLOAD_H
#define MS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
#include "partitions/swf.h"

typedef struct {
    uint64_t id;      /* 1..n in submit order */
    int64_t trace_id; /* job number in the trace (or id) */
    double submit;    /* s since the first submit */
    int nodes;       /* a moldable job's minimum */
    int nodes_max;   /* moldable: at most this many nodes (0: fixed) */
    double runtime;  /* s, nominal frequency, home architecture, on
                        `nodes` nodes */
    double req_time; /* the user's time limit, s; <= 0: none */
    int64_t user;
    int64_t exe; /* executable number, -1 unknown */
    int app;     /* index into the app list; -1 until assigned */
    int gpus;    /* GPUs per node; 0: a CPU job */
    /* its --deadline, s since the first submit; 0: none (simulate
     * --deadline-share) */
    double deadline;
    /* A job of the site's own history (simulate --from-db): where it ran,
     * at which frequency, and what it took and drew per node there. The
     * truth on that architecture at that frequency is what was measured;
     * elsewhere the profile's ratios carry it. runtime is then its length
     * at the nominal frequency of its own home partition (home), the
     * fastest where its app runs, as metaschedd takes a job's home.
     * (measured sits beside ran_khz: a job is 152 bytes, not 160.) */
    size_t home;
    size_t ran_part;
    uint32_t ran_khz;
    bool measured;
    double ran_runtime_s, ran_power_w; /* ran_power_w <= 0: the profile's */
    /* A heterogeneous job of the history (--from-db), routed whole as
     * metaschedd routes it (core/hetplace.h): het_fits, ncomp rows of the
     * partitions each component fits; allowed, the partitions of the
     * clusters where every component fits; het_ran, the partition each
     * component ran on (SIZE_MAX: one the configuration lacks). NULL and
     * 0 for any other job; owned by the workload. */
    size_t ncomp;
    unsigned char *het_fits, *allowed;
    size_t *het_ran;
} ms_wjob_t;

typedef struct {
    ms_wjob_t *jobs;
    size_t njobs;
    size_t dropped; /* trace jobs without a runtime or a size */
    size_t clipped; /* trace jobs larger than max_nodes, made max_nodes */
} ms_workload_t;

/* The workload generator of the embedded default (doc/simulator.md):
 *   arrivals  Poisson with a daily cycle: the rate at hour h of the day is
 *             the mean rate times 1 + day_amp * cos (2 pi (h - 14) / 24);
 *   sizes     nodes = round (lognormal) with the given mean and sigma_nodes,
 *             clipped to [1, max_nodes];
 *   runtimes  lognormal with the given mean and sigma_runtime, clipped to
 *             [min_runtime_s, max_runtime_s];
 *   limits    runtime times a factor uniform in [1, est_factor_max],
 *             rounded up to 5 minutes, as users overestimate.
 * Every draw comes from one seeded generator: same seed, same workload. */
typedef struct {
    uint64_t seed;
    size_t njobs;
    double mean_interarrival_s;
    double day_amp;
    double mean_nodes, sigma_nodes;
    int max_nodes;
    double mean_runtime_s, sigma_runtime;
    double min_runtime_s, max_runtime_s;
    double est_factor_max;
    int nusers;
} ms_genparams_t;

void workload_gen_defaults (ms_genparams_t *gp);
int workload_generate (const ms_genparams_t *gp, ms_workload_t **wlp,
                       ms_error_t *errp);

/* Jobs of an SWF trace: processors become nodes by cores_per_node (the
 * home system's); jobs without a runtime or processor count are dropped
 * (counted); jobs larger than max_nodes are clipped (counted). The trace is
 * repeated `replicate` times (1: once), copy k shifted by k times the
 * trace's span, so a bigger workload keeps the trace's shape. */
int workload_from_swf (const swf_trace_t *t, int cores_per_node, int max_nodes,
                       size_t replicate, ms_workload_t **wlp, ms_error_t *errp);

/* Give every job an app: app i with probability weights[i] (normalised).
 * Where jobs have executables, the same executable gets the same app (the
 * draw is a hash of the seed and the executable); otherwise a hash of the
 * seed and the job id. */
void workload_assign_apps (ms_workload_t *wl, const double *weights,
                           size_t napps, uint64_t seed);

/* Make a share of the jobs GPU jobs: each job, by a hash of the seed and
 * its id (the rest of the workload is unchanged), is one with probability
 * share, asking for 1 to max_gpus GPUs per node (uniform) and clipped to
 * max_nodes nodes (the largest GPU partition). Returns how many. */
size_t workload_assign_gpus (ms_workload_t *wl, double share, int max_gpus,
                             int max_nodes, uint64_t seed);

/* Make a share of the jobs moldable (msbatch -N lo-hi): each job, by a
 * hash of the seed and its id, is one with probability share; it then
 * asks for lo to hi nodes (hi clipped to max_nodes, the largest
 * partition), its runtime being its runtime on lo nodes. Returns how
 * many. */
size_t workload_assign_moldable (ms_workload_t *wl, double share, int lo,
                                 int hi, int max_nodes, uint64_t seed);

void workload_free (ms_workload_t *wl);

/* Deterministic helpers shared by the simulator's truth. */
uint64_t ms_hash64 (uint64_t x);
/* Uniform in (0, 1) from a 64-bit hash. */
double ms_hash_unit (uint64_t h);
/* Standard normal from two hashes (Box-Muller). */
double ms_hash_normal (uint64_t h);

#endif /* MS_WORKLOAD_H */
