/* simrecs.h - private to `metasched simulate`: one run's records made
 * into --jobs-csv's file and the static bound's rows (simrecs.c). */
#ifndef MS_SIMRECS_H
#define MS_SIMRECS_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/common/error.h"
#include "metasched/core/candidates.h"
#include "metasched/sim/bound.h"
#include "metasched/sim/metrics.h"
#include "metasched/sim/workload.h"
#include "partitions/clusterconf.h"

/* A heterogeneous job of the history given partition part: where each
 * component goes (core/hetplace.h hetplace_component), as
 * CLUSTER/PARTITION joined by '+'; "" for a job of one component. */
void simrecs_het_places (const ms_siteconf_t *conf, const ms_wjob_t *j,
                         size_t part, char *buf, size_t len);
/* Does every component of j go where it ran when j is given part? (true
 * for a job of one component) */
bool simrecs_het_same (const ms_siteconf_t *conf, const ms_wjob_t *j,
                       size_t part);

/* --jobs-csv: every job of one run, in DIR/jobs-LABEL.csv; a
 * heterogeneous job's components' partitions in its last column. */
int simrecs_jobs_csv (const char *dir, const char *label,
                      const ms_siteconf_t *conf, const ms_predtab_t *tab,
                      const ms_workload_t *wl, const ms_jobrec_t *recs,
                      ms_error_t *errp);
/* A job's candidates for the static bound (into cs). */
void simrecs_bound_cands (const ms_siteconf_t *conf, const ms_predtab_t *tab,
                          const ms_wjob_t *j, size_t home, ms_cands_t *cs);
/* One row's totals on the bound's terms; false where a job did not run
 * on one of its candidates. */
bool simrecs_bound_row (const ms_siteconf_t *conf, const ms_predtab_t *tab,
                        const ms_workload_t *wl, size_t home,
                        const ms_jobrec_t *recs, ms_cands_t *cs, double *tp,
                        double *ep);
/* --bound: the table (print) and DIR/bound.csv. */
int simrecs_bound_report (const char *dir, const ms_bound_t *b,
                          const ms_summary_t *rows, size_t nrows,
                          const ms_summary_t *srows, size_t nsweep,
                          const double *rt, const double *re, const bool *rok,
                          bool print, ms_error_t *errp);

#endif
