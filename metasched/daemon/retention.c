/* retention.c - the cycle's retention step: finished jobs' scripts and
 * environments emptied after script_retention_days (db/retention.c,
 * doc/daemon.md "Retention"). Cheap (one index probe when nothing is
 * due), it still runs at most every RETENTION_EVERY_S, and at a leader's
 * first cycle.
 */
#define _GNU_SOURCE
#include "config.h"

#include "db/retention.h"
#include "metasched/daemon/daemon_int.h"

#define RETENTION_EVERY_S 600.0

void
daemon_retention (ms_daemon_t *d)
{
    ms_error_t e;
    size_t n = 0;

    if (d->last_retention > 0
        && mono () - d->last_retention < RETENTION_EVERY_S)
        return;
    d->last_retention = mono ();
    if (db_retention_purge (d->db, d->dc->script_retention_days, &n, &e) < 0)
        daemon_log (LOG_ERR, "retention: %s", e.text);
    if (n > 0)
        daemon_log (LOG_INFO,
                    "retention: emptied the script and environment of %zu "
                    "jobs that ended more than %g days ago",
                    n, d->dc->script_retention_days);
}
