/* report_ab.h - `metasched report --ab` (doc/metasched-report.1): the
 * measured energy, runtime and wait of the A/B comparison's two groups
 * per app, with their difference (abstats.h).
 */
#ifndef MS_REPORT_AB_H
#define MS_REPORT_AB_H

#include <stdbool.h>
#include <time.h>

#include "db/db.h"
#include "metasched/common/error.h"

/* Print the comparison of the jobs measured to end in [since, until) (app
 * NULL: every app) on stdout, as text or one JSON object. Errors: the
 * database's. */
int report_ab (db_t *db, time_t since, time_t until, const char *app, bool json,
               ms_error_t *errp);

#endif
