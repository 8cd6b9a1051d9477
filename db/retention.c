/* retention.c - a finished job's script and environment emptied after the
 * retention (see retention.h, db/migrations/0011_retention.sql).
 *
 * One UPDATE per batch of RETENTION_BATCH rows: the partial index
 * jobs_retained (finished jobs that still hold a script) finds them
 * without reading the others, so a pass over a database where nothing is
 * due costs one index probe. Rows another transaction holds are skipped
 * (SKIP LOCKED), the next pass takes them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "db/retention.h"

int
db_retention_purge (db_t *db, double days, size_t *np, ms_error_t *errp)
{
    char sdays[32], sbatch[16];
    const char *p[2] = { sdays, sbatch };
    size_t total = 0;

    if (!(days >= 0))
        return ms_err (errp, MS_ERR_INPUT,
                       "script_retention_days: %g is not a number of days "
                       ">= 0",
                       days);
    snprintf (sdays, sizeof (sdays), "%.6f", days);
    snprintf (sbatch, sizeof (sbatch), "%d", RETENTION_BATCH);
    for (int b = 0; b < RETENTION_MAX_BATCHES; b++) {
        PGresult *r;
        long n;

        /* the predicate is jobs_retained's, word for word */
        r = db_exec (db, "retention_purge",
                     "WITH due AS (SELECT id FROM jobs"
                     "  WHERE script IS NOT NULL"
                     "   AND state IN ('completed', 'failed', 'cancelled')"
                     "   AND coalesce (finished_at, submitted_at)"
                     "    < now () - $1::double precision * interval '1 day'"
                     "  ORDER BY coalesce (finished_at, submitted_at)"
                     "  LIMIT $2::integer FOR UPDATE SKIP LOCKED),"
                     " u AS (UPDATE jobs j SET script = NULL,"
                     "   options = j.options - 'environment'"
                     "  FROM due WHERE j.id = due.id RETURNING 1)"
                     " SELECT count (*) FROM u",
                     2, p, errp);
        if (!r) {
            if (np)
                *np = total;
            return ms_err_prefix (errp, "emptying finished jobs' scripts");
        }
        n = atol (PQgetvalue (r, 0, 0));
        PQclear (r);
        total += (size_t)n;
        if (n < RETENTION_BATCH)
            break;
    }
    if (np)
        *np = total;
    return 0;
}
