/* report_power.h - `metasched report --power` (doc/metasched-report.1):
 * the budget, predicted and measured power of each cluster and the site
 * over time, from the rows metaschedd writes into power_history.
 */
#ifndef MS_REPORT_POWER_H
#define MS_REPORT_POWER_H

#include <stdbool.h>
#include <time.h>

#include "db/db.h"
#include "metasched/common/error.h"

/* Parse a step: N[smhd] (no unit: seconds), 1 s to 31 days; -1 with errp
 * naming --step otherwise. */
int report_power_step (const char *text, long *stepp, ms_error_t *errp);

/* metasched report's --power options: with neither --ab, --csv nor --plot;
 * --step (into *stepp) and --cluster only with it. 0, or -1 after saying
 * why on standard error. */
int report_power_options (bool power, bool ab, bool csv, const char *plotdir,
                          const char *step_s, const char *cluster, long *stepp);

/* Print, per scope (cluster C, or every cluster and "site" when NULL)
 * and per step of [since, until), the mean and maximum of the budget,
 * the predicted and the measured power, and the seconds the predicted
 * and the measured power were above the budget, as text or one JSON
 * object. Errors: the database's (a role without the right to read
 * power_history is refused by it). */
int report_power (db_t *db, time_t since, time_t until, long step,
                  const char *scope, bool json, ms_error_t *errp);

#endif
