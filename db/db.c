/* db.c - one libpq connection with named, parameterized statements,
 * reconnect with backoff, and errors that carry the SQL state. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db/db.h"
#include "metasched/common/util.h"

#define DB_MAX_PREPARED 64

struct db {
    PGconn *conn;
    db_opts_t opts;
    char *conninfo;
    char *password;       /* from password_file; cleared on close */
    char *dbname;
    char *appname;
    char *prepared[DB_MAX_PREPARED]; /* names prepared on this connection */
    char *prepared_sql[DB_MAX_PREPARED]; /* and the text of each */
    size_t nprepared;
    bool in_tx;
    unsigned reconnects;
};

static void
sleep_ms (int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
        ;
}

int
db_check_passfile (const char *conninfo, ms_error_t *errp)
{
    PQconninfoOption *opts, *o;
    char *perr = NULL;
    int rc = 0;

    if (!conninfo)
        return 0;
    if (!(opts = PQconninfoParse (conninfo, &perr))) {
        /* never echo the conninfo: it might hold a password after all */
        ms_err (errp, MS_ERR_INPUT, "invalid connection string: %s",
                perr ? ms_strtrim (perr) : "out of memory");
        PQfreemem (perr);
        return -1;
    }
    for (o = opts; o->keyword; o++) {
        ms_error_t e;
        if (!strcmp (o->keyword, "password") && o->val && *o->val) {
            rc = ms_err (errp, MS_ERR_AUTH,
                         "the connection string holds a password; put it "
                         "in a 0600 file (passfile=... or password_file)");
            break;
        }
        if (strcmp (o->keyword, "passfile") || !o->val || !*o->val)
            continue;
        /* the same checks as a password_file's (libpq opens it again
         * by name: it must pass them there too, see its docs) */
        if (ms_check_secret_file (o->val, &e) < 0) {
            rc = ms_err (errp, e.kind, "passfile %s", e.text);
            break;
        }
    }
    PQconninfoFree (opts);
    return rc;
}

/* Libraries never print: the server's NOTICEs are dropped. */
static void
quiet_notice (void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static void
forget_prepared (db_t *db)
{
    for (size_t i = 0; i < db->nprepared; i++) {
        free (db->prepared[i]);
        free (db->prepared_sql[i]);
    }
    db->nprepared = 0;
}

static int
connect_once (db_t *db, ms_error_t *errp)
{
    const char *keys[8], *vals[8];
    char timeout[16];
    int k = 0;

    snprintf (timeout, sizeof (timeout), "%d",
              db->opts.connect_timeout_s > 0 ? db->opts.connect_timeout_s : 5);
    keys[k] = "dbname", vals[k++] = db->conninfo ? db->conninfo : "";
    keys[k] = "application_name", vals[k++] = db->appname;
    keys[k] = "connect_timeout", vals[k++] = timeout;
    if (db->password)
        keys[k] = "password", vals[k++] = db->password;
    if (db->dbname)
        keys[k] = "dbname", vals[k++] = db->dbname;
    keys[k] = NULL, vals[k] = NULL;

    if (db->conn)
        PQfinish (db->conn);
    forget_prepared (db);
    db->in_tx = false;
    db->conn = PQconnectdbParams (keys, vals, 1);
    if (!db->conn)
        return ms_err (errp, MS_ERR_CONNECT, "PostgreSQL: out of memory");
    PQsetNoticeProcessor (db->conn, quiet_notice, NULL);
    if (PQstatus (db->conn) != CONNECTION_OK) {
        char msg[512];
        ms_strlcpy (msg, PQerrorMessage (db->conn), sizeof (msg));
        ms_err (errp, MS_ERR_CONNECT, "cannot connect to PostgreSQL: %s",
                ms_strtrim (msg));
        if (strstr (msg, "password authentication failed")
            || strstr (msg, "no password supplied")) {
            if (errp) {
                errp->kind = MS_ERR_AUTH;
                ms_strlcpy (errp->sqlstate, "28P01", sizeof (errp->sqlstate));
            }
        }
        return -1;
    }
    return 0;
}

/* Connect, retrying with exponential backoff (100 ms doubling to 5 s) for
 * at most retry_max_ms; a refused password is not retried. */
static int
connect_backoff (db_t *db, ms_error_t *errp)
{
    int waited = 0, delay = 100;

    for (;;) {
        if (connect_once (db, errp) == 0)
            return 0;
        if ((errp && errp->kind == MS_ERR_AUTH)
            || waited >= db->opts.retry_max_ms)
            return -1;
        if (delay > db->opts.retry_max_ms - waited)
            delay = db->opts.retry_max_ms - waited;
        sleep_ms (delay);
        waited += delay;
        delay = delay * 2 > 5000 ? 5000 : delay * 2;
    }
}

int
db_open (const db_opts_t *opts, db_t **dbp, ms_error_t *errp)
{
    db_t *db;

    if (db_check_passfile (opts->conninfo, errp) < 0)
        return -1;
    db = ms_xcalloc (1, sizeof (*db));
    db->opts = *opts;
    db->conninfo = ms_xstrdup (opts->conninfo ? opts->conninfo : "");
    db->dbname = opts->dbname ? ms_xstrdup (opts->dbname) : NULL;
    db->appname = ms_xstrdup (opts->application_name ? opts->application_name
                                                     : "metasched");
    db->opts.conninfo = db->conninfo;
    db->opts.dbname = db->dbname;
    db->opts.application_name = db->appname;
    db->opts.password_file = NULL;
    if (opts->password_file
        && ms_read_secret_file (opts->password_file, &db->password, errp) < 0) {
        db_close (db);
        return -1;
    }
    if (connect_backoff (db, errp) < 0) {
        db_close (db);
        return -1;
    }
    *dbp = db;
    return 0;
}

void
db_close (db_t *db)
{
    if (!db)
        return;
    if (db->conn)
        PQfinish (db->conn);
    forget_prepared (db);
    if (db->password) {
        memset (db->password, 0, strlen (db->password));
        free (db->password);
    }
    free (db->conninfo);
    free (db->dbname);
    free (db->appname);
    free (db);
}

PGconn *
db_conn (db_t *db)
{
    return db->conn;
}

const char *
db_user (db_t *db)
{
    return PQuser (db->conn);
}

unsigned
db_reconnects (db_t *db)
{
    return db->reconnects;
}

/* Whether name is prepared with this text. A name reused for other text
 * is deallocated first, so a name can never run the wrong statement. */
static bool
is_prepared (db_t *db, const char *name, const char *sql)
{
    for (size_t i = 0; i < db->nprepared; i++) {
        char dealloc[128];
        PGresult *r;
        if (strcmp (db->prepared[i], name))
            continue;
        if (!sql || !strcmp (db->prepared_sql[i], sql))
            return true;
        snprintf (dealloc, sizeof (dealloc), "DEALLOCATE \"%s\"", name);
        r = PQexec (db->conn, dealloc);
        PQclear (r);
        free (db->prepared[i]);
        free (db->prepared_sql[i]);
        db->nprepared--;
        db->prepared[i] = db->prepared[db->nprepared];
        db->prepared_sql[i] = db->prepared_sql[db->nprepared];
        return false;
    }
    return false;
}

/* Fill errp from a failed result: "name: message" with the SQL state. */
static int
result_error (db_t *db, const char *name, PGresult *res, ms_error_t *errp)
{
    const char *state = res ? PQresultErrorField (res, PG_DIAG_SQLSTATE) : NULL;
    const char *prim = res ? PQresultErrorField (res, PG_DIAG_MESSAGE_PRIMARY)
                           : NULL;
    const char *detail = res ? PQresultErrorField (res, PG_DIAG_MESSAGE_DETAIL)
                             : NULL;
    char msg[512];

    if (!prim) {
        ms_strlcpy (msg, PQerrorMessage (db->conn), sizeof (msg));
        prim = ms_strtrim (msg);
    }
    ms_err (errp, PQstatus (db->conn) == CONNECTION_OK ? MS_ERR_DB
                                                       : MS_ERR_CONNECT,
            "statement %s: %s%s%s%s%s", name, prim, state ? " (SQLSTATE " : "",
            state ? state : "", state ? ")" : "", detail ? "; " : "");
    if (errp && detail) {
        size_t l = strlen (errp->text);
        ms_strlcpy (errp->text + l, detail, sizeof (errp->text) - l);
    }
    if (errp && state)
        ms_strlcpy (errp->sqlstate, state, sizeof (errp->sqlstate));
    if (errp && state && !strcmp (state, "42501"))
        errp->kind = MS_ERR_AUTH;
    return -1;
}

/* Whether a statement failed because the connection broke. A server that
 * went away without a word (a crash, an immediate shutdown) fails the
 * statement with libpq's "server closed the connection unexpectedly" and
 * no SQLSTATE, while PQstatus may still say CONNECTION_OK until libpq reads
 * again; a failure that no server explained reads once to find out, so
 * that the caller reconnects (and the API answers 503, not 500). */
static bool
conn_lost (db_t *db, PGresult *res)
{
    if (PQstatus (db->conn) != CONNECTION_OK)
        return true;
    if (res && PQresultErrorField (res, PG_DIAG_SQLSTATE))
        return false;
    (void)PQconsumeInput (db->conn);
    return PQstatus (db->conn) != CONNECTION_OK;
}

/* Prepare name as sql on this connection unless it is already. */
static int
prepare (db_t *db, const char *name, const char *sql, int n, bool *lost,
         ms_error_t *errp)
{
    PGresult *res;

    if (is_prepared (db, name, sql))
        return 0;
    res = PQprepare (db->conn, name, sql, n, NULL);
    if (!res || PQresultStatus (res) != PGRES_COMMAND_OK) {
        *lost = conn_lost (db, res);
        result_error (db, name, res, errp);
        PQclear (res);
        return -1;
    }
    PQclear (res);
    /* past DB_MAX_PREPARED names, a statement is deallocated after use
     * (exec_once) rather than remembered */
    if (db->nprepared < DB_MAX_PREPARED) {
        db->prepared_sql[db->nprepared] = ms_xstrdup (sql);
        db->prepared[db->nprepared++] = ms_xstrdup (name);
    }
    return 0;
}

/* One attempt: prepare if needed, execute. *lost says whether the
 * connection broke (then a retry on a fresh connection may succeed). */
static PGresult *
exec_once (db_t *db, const char *name, const char *sql, int n,
           const char *const *params, bool *lost, ms_error_t *errp)
{
    PGresult *res;
    ExecStatusType st;

    *lost = false;
    if (PQstatus (db->conn) != CONNECTION_OK) {
        *lost = true;
        ms_err (errp, MS_ERR_CONNECT, "statement %s: connection lost", name);
        return NULL;
    }
    if (prepare (db, name, sql, n, lost, errp) < 0)
        return NULL;
    res = PQexecPrepared (db->conn, name, n, params, NULL, NULL, 0);
    st = res ? PQresultStatus (res) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        *lost = conn_lost (db, res);
        result_error (db, name, res, errp);
        PQclear (res);
        return NULL;
    }
    if (!is_prepared (db, name, NULL)) {
        char dealloc[128];
        PGresult *r2;
        /* a name is an identifier chosen by this program, never a value */
        snprintf (dealloc, sizeof (dealloc), "DEALLOCATE \"%s\"", name);
        r2 = PQexec (db->conn, dealloc);
        PQclear (r2);
    }
    return res;
}

PGresult *
db_exec (db_t *db, const char *name, const char *sql, int n,
         const char *const *params, ms_error_t *errp)
{
    PGresult *res;
    bool lost;

    res = exec_once (db, name, sql, n, params, &lost, errp);
    if (res || !lost || db->in_tx)
        return res;
    /* the server went away between statements: reconnect and retry once */
    if (connect_backoff (db, errp) < 0)
        return ms_err_prefix (errp, "statement %s: reconnecting", name), NULL;
    db->reconnects++;
    return exec_once (db, name, sql, n, params, &lost, errp);
}

int
db_command (db_t *db, const char *name, const char *sql, int n,
            const char *const *params, long *affected, ms_error_t *errp)
{
    PGresult *res = db_exec (db, name, sql, n, params, errp);

    if (!res)
        return -1;
    if (affected)
        *affected = atol (PQcmdTuples (res));
    PQclear (res);
    return 0;
}

int
db_pipeline (db_t *db, db_stmt_t *st, size_t n, ms_error_t *errp)
{
    PGconn *c = db->conn;
    PGresult *res;
    bool lost = false, failed = false;
    int rc = 0;

    if (n == 0)
        return 0;
    if (PQstatus (c) != CONNECTION_OK)
        return ms_err (errp, MS_ERR_CONNECT, "statement %s: connection lost",
                       st[0].name);
    /* names past DB_MAX_PREPARED would be deallocated after each use:
     * every statement here must stay prepared for the whole pipeline */
    for (size_t i = 0; i < n; i++) {
        if (prepare (db, st[i].name, st[i].sql, st[i].n, &lost, errp) < 0)
            return -1;
        if (!is_prepared (db, st[i].name, NULL))
            return ms_err (errp, MS_ERR_DB,
                           "statement %s: too many prepared statements for a "
                           "pipeline",
                           st[i].name);
    }
    if (!PQenterPipelineMode (c))
        return ms_err (errp, MS_ERR_DB, "statement %s: cannot enter pipeline "
                                        "mode: %s",
                       st[0].name, PQerrorMessage (c));
    for (size_t i = 0; i < n && !failed; i++)
        if (!PQsendQueryPrepared (c, st[i].name, st[i].n, st[i].params, NULL,
                                  NULL, 0)) {
            result_error (db, st[i].name, NULL, errp);
            failed = true;
        }
    if (!PQpipelineSync (c) && !failed) {
        result_error (db, st[0].name, NULL, errp);
        failed = true;
    }
    /* the results, in order: each statement's then NULL; then the sync */
    for (size_t i = 0; i < n; i++) {
        ExecStatusType s;

        res = PQgetResult (c);
        if (!res)
            break; /* the connection broke */
        s = PQresultStatus (res);
        if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
            st[i].affected = atol (PQcmdTuples (res));
        else if (!failed) {
            result_error (db, st[i].name, res, errp);
            failed = true;
        }
        PQclear (res);
        while ((res = PQgetResult (c))) /* the NULL after each statement */
            PQclear (res);
    }
    while ((res = PQgetResult (c))) {
        ExecStatusType s = PQresultStatus (res);
        PQclear (res);
        if (s == PGRES_PIPELINE_SYNC)
            break;
    }
    if (!PQexitPipelineMode (c) && !failed) {
        ms_err (errp, MS_ERR_DB, "statement %s: cannot leave pipeline mode: %s",
                st[0].name, PQerrorMessage (c));
        failed = true;
    }
    if (failed)
        rc = -1;
    return rc;
}

int
db_begin (db_t *db, ms_error_t *errp)
{
    if (db_command (db, "begin", "BEGIN", 0, NULL, NULL, errp) < 0)
        return -1;
    db->in_tx = true;
    return 0;
}

int
db_commit (db_t *db, ms_error_t *errp)
{
    int rc = db_command (db, "commit", "COMMIT", 0, NULL, NULL, errp);
    db->in_tx = false;
    return rc;
}

void
db_rollback (db_t *db)
{
    if (PQstatus (db->conn) == CONNECTION_OK) {
        PGresult *res = PQexec (db->conn, "ROLLBACK");
        PQclear (res);
    }
    db->in_tx = false;
}
