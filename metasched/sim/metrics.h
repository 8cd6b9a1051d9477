/* metrics.h - what a simulated run measured, with the definitions of
 * doc/architecture.md "Simulator" (the same everywhere):
 *   wait = start - submit; response = end - submit;
 *   bounded slowdown = max (1, response / max (runtime, 10 s));
 *   makespan = last end - first submit;
 *   job energy = sum of P * T * nodes;
 *   system energy = job energy + idle energy of every powered node over
 *   the makespan (idle power times the node-seconds no job held);
 *   EDP = system energy * makespan; mean frequency (GHz, over jobs);
 *   share of jobs on their optimal partition; utilization per partition
 *   (busy node-seconds / (nodes * makespan)); decisions per second (of
 *   time spent deciding and dispatching); where partitions have GPUs, GPU
 *   energy (busy GPU-seconds at gpu_busy_power_w, idle GPU-seconds at
 *   gpu_idle_power_w, the idle part added to the system energy) and GPU
 *   utilization per partition (busy GPU-seconds / (GPUs * makespan)).
 */
#ifndef MS_METRICS_H
#define MS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "metasched/common/error.h"
#include "partitions/clusterconf.h"

#define MS_METRICS_MAXP 16

/* One job of a run (72 bytes, one per job and run: widest fields first,
 * no padding between them). */
typedef struct {
    double submit, start, end;
    double energy_j;
    size_t part; /* SIZE_MAX: never ran */
    size_t opt_part;
    int nodes;
    uint32_t f_khz;
    int starts, ends; /* invariants: exactly one of each */
    int gpus;         /* per node */
    bool killed;      /* ended at its time limit */
    bool rejected;    /* fitted nowhere */
    bool bad_nodes;   /* invariants: started out of its node range */
} ms_jobrec_t;

typedef struct {
    char label[48];
    size_t njobs, done, killed, rejected, rerouted;
    double mean_wait, mean_response, mean_bsld;
    double makespan;
    double job_energy_j, idle_energy_j, system_energy_j, edp;
    double sum_runtime;
    double mean_ghz;
    double opt_share;
    size_t nparts;
    double util[MS_METRICS_MAXP];
    size_t part_jobs[MS_METRICS_MAXP];
    double part_ghz[MS_METRICS_MAXP];
    double part_response[MS_METRICS_MAXP];
    double decisions_per_s;
    double wall_s;
    /* GPUs (partitions with gpus_per_node): the energy of every GPU, busy
     * (its jobs', included in job energy) and idle (included in idle
     * energy), and the share of GPU-seconds busy per partition. */
    bool gpus;
    double gpu_energy_j;
    double gpu_util[MS_METRICS_MAXP];
    /* Power budgets: jobs held for power at least once, and those never
     * started (no budget let them; counted in rejected). */
    size_t power_holds, power_held;
    /* Outages: jobs held for their clusters at least once, and those
     * whose first choice was on a cluster down that went elsewhere. */
    size_t down_held, down_moved;
} ms_summary_t;

void metrics_summarize (const ms_siteconf_t *conf, const ms_jobrec_t *recs,
                        size_t n, ms_summary_t *out);

/* The idle floor of a run: every node at idle power over the makespan. */
double metrics_idle_floor (const ms_siteconf_t *conf, double makespan);

/* Utilization of each partition over nbins equal bins of the makespan:
 * out[bin * nparts + part], in [0, 1]. */
void metrics_utilization_series (const ms_siteconf_t *conf,
                                 const ms_jobrec_t *recs, size_t n,
                                 size_t nbins, double *out, double *t0,
                                 double *binw);

void metrics_csv_header (FILE *f, const ms_siteconf_t *conf);
void metrics_csv_row (FILE *f, const ms_siteconf_t *conf, const ms_summary_t *s,
                      const char *group);

/* The table for a terminal: one row per policy. */
void metrics_print_table (FILE *f, const ms_siteconf_t *conf,
                          const ms_summary_t *rows, size_t n);

#endif /* MS_METRICS_H */
