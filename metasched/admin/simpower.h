/* simpower.h - private to `metasched simulate`: its power budgets and
 * power table (simpower.c). */
#ifndef MS_SIMPOWER_H
#define MS_SIMPOWER_H

#include <stdio.h>

#include "metasched/admin/siminput.h"
#include "metasched/core/power.h"
#include "metasched/sim/powertrace.h"

typedef struct {
    ms_summary_t sum;
    ms_powersum_t p;
} simpower_row_t;

/* The budgets of --power-budget (none: bs empty). */
int simpower_budgets (const opts_t *o, const ms_siteconf_t *conf,
                      ms_budgets_t *bs, ms_error_t *errp);
/* One run's power: its row in out, its draw in OUT/power-LABEL.csv. */
int simpower_add (const opts_t *o, const ms_siteconf_t *conf,
                  const ms_budgets_t *bs, const ms_summary_t *row,
                  const ms_jobrec_t *recs, size_t n, simpower_row_t *out,
                  ms_error_t *errp);
/* The power table; budgets: the budgets as text, NULL for none. */
void simpower_print (FILE *f, const simpower_row_t *rows, size_t n,
                     const char *budgets);
/* OUT/power-summary.csv. */
int simpower_csv (const char *dir, const simpower_row_t *rows, size_t n,
                  ms_error_t *errp);

#endif
