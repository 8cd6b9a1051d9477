/* seeds.h - one simulation over several seeds: the rows of every run
 * gathered, their mean and spread per policy, and the differences
 * against a reference row paired seed by seed (`metasched simulate
 * --seeds`, doc/simulator.md "Over seeds").
 *
 * A row is known by its group ("policy", "sweep", ...) and its label.
 * The paired difference of a row against the reference on a seed is
 * 100 * (x / x_ref - 1) for job energy and for mean response; its mean and
 * sample standard deviation are taken over the seeds both rows have.
 * The spread of a difference paired this way is far smaller than that of
 * either row: the seed's workload moves both alike.
 */
#ifndef MS_SEEDS_H
#define MS_SEEDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "metasched/common/error.h"
#include "metasched/sim/metrics.h"

#define MS_SEEDS_MAX 1000 /* seeds in one --seeds list */

typedef struct ms_seedruns ms_seedruns_t;

/* Mean and spread of one row over the seeds it ran (sd: NAN for one). */
typedef struct {
    char group[16];
    char label[48];
    size_t n;
    double job_energy_j, job_energy_sd;
    double system_energy_j, system_energy_sd;
    double response_s, response_sd;
    double wait_s, wait_sd;
    double killed;
} ms_seedstat_t;

/* A row against the reference, paired seed by seed, in percent. */
typedef struct {
    char group[16];
    char label[48];
    size_t n;           /* seeds both rows ran */
    double d_energy, d_energy_sd;
    double d_response, d_response_sd;
    size_t both_lower;  /* seeds where both differences are below 0 */
} ms_seedpair_t;

/* Parse a list of seeds: numbers and ranges A-B (A <= B) separated by
 * commas, e.g. "1-5" or "1,3,10-12"; no seed twice, at most
 * MS_SEEDS_MAX. The error names the token. */
int seeds_parse (const char *s, uint64_t **out, size_t *n, ms_error_t *errp);

ms_seedruns_t *seedruns_new (void);
void seedruns_free (ms_seedruns_t *r);

/* One run's row. */
void seedruns_add (ms_seedruns_t *r, uint64_t seed, const char *group,
                   const ms_summary_t *s);

/* The rows' statistics, in the order the rows first came; *out is the
 * caller's to free. */
size_t seedruns_stats (const ms_seedruns_t *r, ms_seedstat_t **out);

/* Every other row against the row labelled ref (the first group that has
 * it); -1 with the labels there are when no row has it. */
int seedruns_versus (const ms_seedruns_t *r, const char *ref,
                     ms_seedpair_t **out, size_t *n, ms_error_t *errp);

/* The tables as `metasched simulate --seeds` prints them: the rows'
 * mean and spread; against ref (when not NULL), the paired differences. */
void seedruns_print_stats (FILE *f, const ms_seedstat_t *st, size_t n);
void seedruns_print_versus (FILE *f, const char *ref, const ms_seedpair_t *pr,
                            size_t n);

/* CSV: every run's key figures (seeds.csv); the statistics
 * (seeds-summary.csv); the paired differences (seeds-versus.csv, one
 * block per reference, the reference's label in the first column). */
void seedruns_csv_runs (FILE *f, const ms_seedruns_t *r);
void seedruns_csv_stats (FILE *f, const ms_seedstat_t *st, size_t n);
void seedruns_csv_versus_header (FILE *f);
void seedruns_csv_versus (FILE *f, const char *ref, const ms_seedpair_t *pr,
                          size_t n);

#endif /* !MS_SEEDS_H */
