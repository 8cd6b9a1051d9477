/* simoutage.h - private to `metasched simulate`: its --outage option and
 * outage table (simoutage.c). */
#ifndef MS_SIMOUTAGE_H
#define MS_SIMOUTAGE_H

#include <stdio.h>

#include "metasched/admin/siminput.h"
#include "metasched/sim/outage.h"

/* The outages of --outage (none: os empty). */
int simoutage_parse (const opts_t *o, const ms_siteconf_t *conf,
                     ms_outages_t *os, ms_error_t *errp);
/* The outage table: each row's response and energy, the jobs moved off
 * a cluster down, held for their clusters and re-routed. */
void simoutage_print (FILE *f, const ms_siteconf_t *conf,
                      const ms_outages_t *os, const ms_summary_t *rows,
                      size_t n);
/* OUT/outage-summary.csv. */
int simoutage_csv (const char *dir, const ms_summary_t *rows, size_t n,
                   ms_error_t *errp);

#endif
