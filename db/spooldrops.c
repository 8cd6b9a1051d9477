/* spooldrops.c - what the nodes' spools dropped (spool_drops, migration
 * 0017): reported by the collectors through spool_drops_report, read by
 * the daemon for /metrics (doc/daemon.md "Spool drops").
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/common/util.h"

int
db_spool_drops_put (db_t *db, const db_spool_drops_t *d, ms_error_t *errp)
{
    char rows[24], bad[24], aged[24], last[32];
    const char *p[6] = { d->cluster, d->node, rows, bad, aged, last };

    if (!d->cluster[0] || !d->node[0])
        return ms_err (errp, MS_ERR_INPUT,
                       "spool drops: no cluster or node to report them for");
    snprintf (rows, sizeof (rows), "%llu", (unsigned long long)d->rows);
    snprintf (bad, sizeof (bad), "%llu", (unsigned long long)d->bad);
    snprintf (aged, sizeof (aged), "%llu", (unsigned long long)d->aged);
    snprintf (last, sizeof (last), "%.3f", d->last > 0 ? d->last : 0);
    if (db_command (db, "spool_drops_report",
                    "SELECT spool_drops_report ($1, $2, $3::bigint,"
                    " $4::bigint, $5::bigint, $6::double precision)",
                    6, p, NULL, errp)
        < 0)
        return ms_err_prefix (errp, "reporting the spool drops of %s/%s",
                              d->cluster, d->node);
    return 0;
}

int
db_spool_drops_load (db_t *db, size_t max, db_spool_drops_t **out, size_t *n,
                     bool *truncated, ms_error_t *errp)
{
    char lim[24];
    const char *p[1] = { lim };
    db_spool_drops_t *v;
    PGresult *r;
    size_t k;

    *out = NULL;
    *n = 0;
    *truncated = false;
    snprintf (lim, sizeof (lim), "%zu", max + 1);
    r = db_exec (db, "spool_drops_load",
                 "SELECT cluster, node, rows_dropped, bad_dropped,"
                 " aged_removed, coalesce (extract (epoch FROM last_drop), 0)"
                 " FROM spool_drops ORDER BY cluster, node LIMIT $1::bigint",
                 1, p, errp);
    if (!r)
        return ms_err_prefix (errp, "reading the spools' drops");
    k = (size_t)PQntuples (r);
    if (k > max) {
        *truncated = true;
        k = max;
    }
    v = ms_xcalloc (k ? k : 1, sizeof (*v));
    for (size_t i = 0; i < k; i++) {
        ms_strlcpy (v[i].cluster, PQgetvalue (r, (int)i, 0),
                    sizeof (v[i].cluster));
        ms_strlcpy (v[i].node, PQgetvalue (r, (int)i, 1), sizeof (v[i].node));
        v[i].rows = strtoull (PQgetvalue (r, (int)i, 2), NULL, 10);
        v[i].bad = strtoull (PQgetvalue (r, (int)i, 3), NULL, 10);
        v[i].aged = strtoull (PQgetvalue (r, (int)i, 4), NULL, 10);
        v[i].last = strtod (PQgetvalue (r, (int)i, 5), NULL);
    }
    PQclear (r);
    *out = v;
    *n = k;
    return 0;
}
