/* migrate.c - forward-only numbered migrations (db/migrations/NNNN_*.sql).
 *
 * The schema's version is the highest row of schema_migrations. A migrate
 * takes a transaction-scoped advisory lock (two daemons starting together
 * serialize), applies every migration up to the target that is not
 * recorded yet, in order, inside that one transaction and records each
 * (numbers may have gaps, filled by a later release: such a migration is
 * applied when it arrives, though the version is already above it); any error
 * rolls the whole run back, so a database is always at exactly one version.
 * Re-running is a no-op apart from re-applying the roles' grants
 * (ms_apply_grants, 0002), which are idempotent and pick up roles created after
 * the schema.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/common/util.h"

/* an arbitrary constant naming metasched's migration lock */
#define MIGRATE_LOCK "7316204519"

int
db_schema_latest (void)
{
    size_t n;
    const db_migration_t *m = db_migrations (&n);
    return n ? m[n - 1].version : 0;
}

int
db_schema_version (db_t *db, int *versionp, ms_error_t *errp)
{
    PGresult *res;

    res = db_exec (db, "schema_version",
                   "SELECT CASE WHEN to_regclass ('schema_migrations') IS NULL"
                   " THEN 0 ELSE (SELECT coalesce (max (version), 0)"
                   " FROM schema_migrations) END",
                   0, NULL, errp);
    /* the subquery is planned even when the table is absent: fall back */
    if (!res && errp && !strcmp (errp->sqlstate, "42P01")) {
        *versionp = 0;
        ms_err_clear (errp);
        return 0;
    }
    if (!res)
        return -1;
    *versionp = atoi (PQgetvalue (res, 0, 0));
    PQclear (res);
    return 0;
}

/* Whether version v is in list, an int array's text ("{1,2,10}"). */
static bool
recorded (const char *list, int v)
{
    const char *p = list;

    while (*p) {
        char *end;
        long x;
        if (*p < '0' || *p > '9') {
            p++;
            continue;
        }
        x = strtol (p, &end, 10);
        if (x == v)
            return true;
        p = end;
    }
    return false;
}

int
db_migrate (db_t *db, int target, int *applied, char *missing_roles,
            size_t missing_len, ms_error_t *errp)
{
    size_t n;
    const db_migration_t *m = db_migrations (&n);
    PGresult *res;
    int current, count = 0;
    char applied_list[8192];

    if (target <= 0)
        target = db_schema_latest ();
    if (target > db_schema_latest ())
        return ms_err (errp, MS_ERR_INPUT,
                       "schema version %d asked for; this program knows up "
                       "to %d",
                       target, db_schema_latest ());
    if (db_begin (db, errp) < 0)
        return -1;
    if (db_command (db, "migrate_lock",
                    "SELECT pg_advisory_xact_lock (" MIGRATE_LOCK ")", 0, NULL,
                    NULL, errp) < 0
        || db_command (db, "migrate_table",
                       "CREATE TABLE IF NOT EXISTS schema_migrations ("
                       " version integer PRIMARY KEY CHECK (version > 0),"
                       " name text NOT NULL,"
                       " applied_at timestamptz NOT NULL DEFAULT now ())",
                       0, NULL, NULL, errp) < 0
        || db_schema_version (db, &current, errp) < 0)
        goto fail;
    if (current > db_schema_latest ()) {
        ms_err (errp, MS_ERR_INPUT,
                "the database is at schema version %d, newer than this "
                "program's %d: upgrade metasched",
                current, db_schema_latest ());
        goto fail;
    }
    if (!(res = db_exec (db, "migrate_applied",
                         "SELECT array_agg (version) FROM schema_migrations", 0,
                         NULL, errp)))
        goto fail;
    ms_strlcpy (applied_list,
                PQgetisnull (res, 0, 0) ? "{}" : PQgetvalue (res, 0, 0),
                sizeof (applied_list));
    PQclear (res);
    for (size_t i = 0; i < n; i++) {
        char ver[16];
        const char *p[2];

        if (m[i].version > target || recorded (applied_list, m[i].version))
            continue;
        /* Migration text is part of the program, never outside input; it
         * holds several statements, hence the simple query protocol. */
        res = PQexec (db_conn (db), m[i].sql);
        if (!res || PQresultStatus (res) != PGRES_COMMAND_OK) {
            const char *st = res ? PQresultErrorField (res, PG_DIAG_SQLSTATE)
                                 : NULL;
            char msg[512];
            ms_strlcpy (msg, res ? PQresultErrorMessage (res)
                                 : PQerrorMessage (db_conn (db)),
                        sizeof (msg));
            ms_err (errp, MS_ERR_DB, "migration %s: %s", m[i].name,
                    ms_strtrim (msg));
            if (errp && st)
                ms_strlcpy (errp->sqlstate, st, sizeof (errp->sqlstate));
            PQclear (res);
            goto fail;
        }
        PQclear (res);
        snprintf (ver, sizeof (ver), "%d", m[i].version);
        p[0] = ver;
        p[1] = m[i].name;
        if (db_command (db, "migrate_record",
                        "INSERT INTO schema_migrations (version, name)"
                        " VALUES ($1, $2)",
                        2, p, NULL, errp) < 0)
            goto fail;
        count++;
    }
    if (missing_roles && missing_len)
        missing_roles[0] = '\0';
    if ((count > 0 ? target : current) >= 2) {
        res = db_exec (db, "migrate_grants", "SELECT ms_apply_grants ()", 0,
                       NULL, errp);
        if (!res)
            goto fail;
        if (missing_roles && missing_len && !PQgetisnull (res, 0, 0))
            ms_strlcpy (missing_roles, PQgetvalue (res, 0, 0), missing_len);
        PQclear (res);
    }
    if (db_commit (db, errp) < 0)
        return -1;
    if (applied)
        *applied = count;
    return 0;
fail:
    db_rollback (db);
    return -1;
}
