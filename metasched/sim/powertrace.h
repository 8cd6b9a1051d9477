/* powertrace.h - the power a simulated run drew, per cluster and for the
 * site, over time, against the power budgets (core/power.h).
 *
 * Built from the run's job records: a job draws, on each of its nodes,
 * its energy over its nodes and runtime (the truth's power), from its
 * start to its end; every node no job holds draws its architecture's idle
 * power. The draw is a step function that changes only at starts and
 * ends (at one time, ends before starts).
 */
#ifndef MS_POWERTRACE_H
#define MS_POWERTRACE_H

#include <stddef.h>
#include <stdio.h>

#include "metasched/common/error.h"
#include "metasched/core/power.h"
#include "metasched/sim/metrics.h"
#include "partitions/clusterconf.h"

typedef struct ms_powertrace ms_powertrace_t;

typedef struct {
    double peak_w, peak_at; /* the site's highest draw and when */
    double mean_w;          /* the site's mean draw from first to last
                               change */
    double over_s;          /* how long the draw of a scope exceeded its
                               budget (any scope) */
    double over_j;          /* the energy above the budgets */
    size_t starts_over;     /* starts after which a draw exceeded a
                               budget in force */
    double budget_w;        /* the site's budget at the peak (INFINITY:
                               none) */
} ms_powersum_t;

/* The trace of n job records of a run on conf; bs may be NULL. */
ms_powertrace_t *powertrace_build (const ms_siteconf_t *conf,
                                   const ms_jobrec_t *recs, size_t n,
                                   const ms_budgets_t *bs);
void powertrace_free (ms_powertrace_t *pt);
void powertrace_summary (const ms_powertrace_t *pt, ms_powersum_t *out);
/* The highest draw of one cluster. */
double powertrace_cluster_peak (const ms_powertrace_t *pt, size_t cluster);
/* Every change as CSV: time_s, the site's draw and budget, then each
 * cluster's (W; an empty budget: none). */
int powertrace_csv (const ms_powertrace_t *pt, const char *path,
                    ms_error_t *errp);

#endif /* MS_POWERTRACE_H */
