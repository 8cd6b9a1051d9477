/* leader.c - leadership: the PostgreSQL advisory lock that makes one
 * instance the leader (doc/daemon.md), held on a connection of its own
 * with keepalives so that a killed leader's lock ends within seconds.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

/* ---- leadership ---- */

/* The lock connection: the daemon's conninfo with keepalives, so that the
 * session of a killed leader on another host ends within seconds. */
static char *
lock_conninfo (const char *conninfo)
{
    static const char ka[] = "keepalives=1 keepalives_idle=2 "
                             "keepalives_interval=1 keepalives_count=2 "
                             "tcp_user_timeout=4000";
    size_t n = strlen (conninfo) + sizeof (ka) + 8;
    char *s = ms_xmalloc (n);

    if (!strncmp (conninfo, "postgres", 8)) {
        /* a URI: parameters after '?' joined by '&' */
        snprintf (s, n, "%s%s%s", conninfo, strchr (conninfo, '?') ? "&" : "?",
                  "keepalives=1&keepalives_idle=2&keepalives_interval=1&"
                  "keepalives_count=2&tcp_user_timeout=4000");
    } else
        snprintf (s, n, "%s %s", conninfo, ka);
    return s;
}

static int
open_lockdb (ms_daemon_t *d, ms_error_t *errp)
{
    char *ci = lock_conninfo (d->dc->database);
    db_opts_t o = { .conninfo = ci,
                    .password_file
                    = d->dc->password_file[0] ? d->dc->password_file : NULL,
                    .application_name = "metaschedd-leader",
                    .connect_timeout_s = 3,
                    .retry_max_ms = 0 };
    int rc = db_open (&o, &d->lockdb, errp);
    free (ci);
    if (rc == 0)
        d->lock_reconnects = db_reconnects (d->lockdb);
    return rc;
}

/* Whether this instance leads now: hold the lock, or try to take it. */
bool
daemon_leadership (ms_daemon_t *d)
{
    char k1[16], k2[16];
    const char *p[2] = { k1, k2 };
    PGresult *r;
    ms_error_t e;
    bool held;

    snprintf (k1, sizeof (k1), "%d", DAEMON_LOCK_CLASS);
    snprintf (k2, sizeof (k2), "%d", DAEMON_LOCK_OBJ);
    if (!d->lockdb && open_lockdb (d, &e) < 0)
        return false;
    if (d->leader) {
        r = db_exec (d->lockdb, "lock_held",
                     "SELECT EXISTS (SELECT 1 FROM pg_locks"
                     " WHERE locktype = 'advisory' AND granted"
                     " AND pid = pg_backend_pid () AND classid = $1::oid"
                     " AND objid = $2::oid AND objsubid = 2)",
                     2, p, &e);
        held = r && !strcmp (PQgetvalue (r, 0, 0), "t")
               && db_reconnects (d->lockdb) == d->lock_reconnects;
        PQclear (r);
        if (held)
            return true;
        daemon_log (LOG_WARNING, "leadership lost%s%s", r ? "" : ": ",
                    r ? "" : e.text);
        d->leader = false;
        d->reconciled = false;
    }
    d->lock_reconnects = db_reconnects (d->lockdb);
    r = db_exec (d->lockdb, "lock_try",
                 "SELECT pg_try_advisory_lock ($1::integer, $2::integer)", 2, p,
                 &e);
    if (!r)
        return false;
    held = !strcmp (PQgetvalue (r, 0, 0), "t");
    PQclear (r);
    d->lock_reconnects = db_reconnects (d->lockdb);
    if (held) {
        daemon_log (LOG_NOTICE, "leading: this instance now schedules");
        d->leader = true;
        d->reconciled = false;
    }
    return held;
}

bool
daemon_is_leader (const ms_daemon_t *d)
{
    return d->leader;
}
