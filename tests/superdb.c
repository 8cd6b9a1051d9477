/* superdb.c - statements as the test bed's PostgreSQL superuser. */
#include "config.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/superdb.h"

static void
no_notice (void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

int
superdb_exec (const char *sql, char *why, size_t whylen)
{
    PGconn *c = PQconnectdb (getenv ("MS_PG_SUPER_CONNINFO"));
    PGresult *r;
    int ok;

    PQsetNoticeProcessor (c, no_notice, NULL);
    r = PQexec (c, sql);
    ok = PQresultStatus (r) == PGRES_COMMAND_OK
         || PQresultStatus (r) == PGRES_TUPLES_OK;
    if (!ok)
        snprintf (why, whylen, "%s: %s", sql, PQerrorMessage (c));
    PQclear (r);
    PQfinish (c);
    return ok ? 0 : -1;
}
