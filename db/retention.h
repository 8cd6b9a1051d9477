/* retention.h - how long the database keeps what a job's user wrote
 * (doc/database.md "Retention"): the script and the exported environment
 * of a finished job are emptied once it ended more than the configured
 * number of days ago (metaschedd.conf script_retention_days).
 */
#ifndef MS_RETENTION_H
#define MS_RETENTION_H

#include <stddef.h>

#include "db/db.h"
#include "metasched/common/error.h"

/* Most jobs one call empties (one statement each RETENTION_BATCH). */
#define RETENTION_BATCH 2000
#define RETENTION_MAX_BATCHES 50

/* Empty the script (NULL) and the environment (options' "environment"
 * key) of every job in a final state (completed, failed, cancelled) that
 * ended more than days ago (its finished_at, else its submission), at
 * most RETENTION_BATCH * RETENTION_MAX_BATCHES of them; *np says how many
 * were emptied. days >= 0. */
int db_retention_purge (db_t *db, double days, size_t *np, ms_error_t *errp);

#endif
