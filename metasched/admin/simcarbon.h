/* simcarbon.h - the grid's signals in `metasched simulate` (--carbon,
 * --carbon-zones; doc/metasched-simulate.1): the zones read, the zone of
 * each simulated cluster, and each run's carbon per job from where and
 * when its jobs ran. */
#ifndef MS_SIMCARBON_H
#define MS_SIMCARBON_H

#include <stdio.h>

#include "metasched/common/error.h"
#include "metasched/core/carbon.h"
#include "metasched/sim/metrics.h"
#include "metasched/sim/workload.h"
#include "partitions/clusterconf.h"

/* spec "ZONE=FILE,..." (CSV files, carbon.h); zones "CLUSTER=ZONE,..."
 * or NULL: the n-th cluster of conf draws from the n-th zone of spec
 * (clusters past the last zone: none). Time 0 of the run is the first
 * zone's first step, or start (an ISO 8601 time on one of its steps)
 * where not NULL. Errors name the flag. */
int simcarbon_load (const char *spec, const char *zones, const char *start,
                    const ms_siteconf_t *conf, ms_carbon_t *cb,
                    ms_error_t *errp);

/* Give a share of wl's jobs (drawn by seed) a deadline: submit plus k
 * times the job's time limit (its runtime without one). Returns how
 * many. */
size_t simcarbon_deadlines (ms_workload_t *wl, double share, double k,
                            uint64_t seed);

/* One run's carbon: each finished job's measured energy times its zone's
 * intensity over when it ran. */
typedef struct {
    double g_per_job;     /* over the jobs with a signal */
    double mean_response; /* s, every finished job */
    size_t jobs, missing; /* finished jobs; those without a signal */
    size_t late;          /* jobs that ended past their deadline */
} simcarbon_row_t;

void simcarbon_row (const ms_carbon_t *cb, const ms_siteconf_t *conf,
                    const ms_workload_t *wl, const ms_jobrec_t *recs,
                    simcarbon_row_t *row);
/* The "carbon" table: one line per label. */
void simcarbon_print (FILE *f, const ms_carbon_t *cb, const char *const *labels,
                      const simcarbon_row_t *rows, size_t n);

#endif /* MS_SIMCARBON_H */
