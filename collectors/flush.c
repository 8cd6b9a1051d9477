/* flush.c - the spool of job_runs rows that could not be inserted, and
 * `metasched collect flush`, which sends them.
 *
 * Exactly once: a row is removed from the spool only after the transaction
 * that inserted it committed; if the flush dies in between, the next one
 * sends it again and ON CONFLICT DO NOTHING (unique cluster, job, node,
 * source) stores it once. A row the database rejects does not block the
 * others: rows go one by one after a failed batch; one that refers to a
 * partition not (yet) in the database stays for a later flush, any other
 * rejected row moves to SPOOL/bad/ for an admin to look at.
 *
 * The epilog does not flush: it writes its own row to the spool, tries to
 * send that one row for at most epilog_send_ms (collect_send_row, in a
 * child it kills at the deadline), and returns. The rest is sent by
 * `metasched-collect flush`, which a timer runs (doc/collectors.md,
 * "Spool"). Rows are removed only under the spool's lock (spoolcap.c), so
 * that the cap never drops a row that a flush is sending.
 *
 * Both the flush and the epilog's send, once they reach the database,
 * report the spool's drop totals too (collect_drops_send): metaschedd
 * shows them on /metrics.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/log.h"
#include "metasched/common/util.h"

#define FLUSH_BATCH 1000

int
collect_db_open (const collect_conf_t *c, int retry_ms, db_t **dbp,
                 ms_error_t *errp)
{
    db_opts_t o;

    memset (&o, 0, sizeof (o));
    o.conninfo = c->conninfo;
    o.password_file = c->password_file[0] ? c->password_file : NULL;
    o.application_name = "metasched-collect";
    o.connect_timeout_s = c->db_connect_timeout_s;
    o.retry_max_ms = retry_ms;
    return db_open (&o, dbp, errp);
}

void
collect_spool_name (const db_job_run_t *r, char *out, size_t len)
{
    snprintf (out, len, "%s.%llu.%s.%s.run", r->cluster,
              (unsigned long long)r->slurm_job_id, r->node,
              !strcmp (r->source, "user-reported") ? "user" : "root");
}

/* The spool's lock, for a writer: wait a little (a flush holds it for a
 * batch), then write without making room; the next writer makes it. */
#define WRITER_LOCK_MS 500

int
collect_spool_row (const collect_conf_t *c, const db_job_run_t *r,
                   ms_error_t *errp)
{
    char file[256];
    spool_rec_t *rec;
    int rc, lock;
    struct stat st;
    size_t len;
    char *text;
    ms_error_t e;

    if (mkdir (c->spool_dir, 0700) < 0 && errno != EEXIST)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", c->spool_dir,
                       strerror (errno));
    if (stat (c->spool_dir, &st) == 0 && (st.st_mode & 077))
        chmod (c->spool_dir, 0700);
    collect_spool_name (r, file, sizeof (file));
    rec = collect_jobrun_to_rec (r);
    text = spool_rec_format (rec, &len);
    free (text);
    lock = collect_spool_lock (c, WRITER_LOCK_MS, &e);
    if (lock < 0)
        collect_log (LOG_WARNING, "spool: cap not checked for %s: %s", file,
                     e.text);
    else if (collect_spool_trim_for (c, file, len, r->cluster, r->node, NULL,
                                     &e)
             < 0)
        collect_log (LOG_WARNING, "spool: cap not checked for %s: %s", file,
                     e.text);
    rc = spool_write (c->spool_dir, file, rec, 0600, errp);
    collect_spool_unlock (lock);
    spool_rec_free (rec);
    return rc;
}

/* The child of collect_send_row: connect (no lock held: the slow part),
 * then under the lock insert and remove the file. Writes "0" or the
 * error's kind, SQL state and text to fd. */
static void
send_child (const collect_conf_t *c, const db_job_run_t *r, int fd)
{
    char msg[sizeof (((ms_error_t *)0)->text) + 64];
    db_t *db = NULL;
    ms_error_t e;
    int lock = -1, n;

    ms_err_clear (&e);
    /* no lock to take (the spool cannot be written): no file to remove
     * either, the row is sent all the same */
    if (collect_db_open (c, 0, &db, &e) == 0
        && ((lock = collect_spool_lock (c, -1, &e)), 1)
        && db_job_runs_insert (db, r, 1, NULL, &e) == 0) {
        char file[256], path[1024];
        collect_spool_name (r, file, sizeof (file));
        snprintf (path, sizeof (path), "%s/%s", c->spool_dir, file);
        unlink (path);
        /* and the spool's drops, while the database is reachable: the
         * count reaches /metrics without waiting for the flush */
        if (collect_drops_send (c, db, &e) < 0)
            collect_log (LOG_WARNING, "spool: drops not reported: %s", e.text);
        n = snprintf (msg, sizeof (msg), "0");
    } else
        n = snprintf (msg, sizeof (msg), "%d %s|%s", (int)e.kind,
                      e.sqlstate[0] ? e.sqlstate : "-", e.text);
    collect_spool_unlock (lock);
    db_close (db);
    if (write (fd, msg, (size_t)n) < 0)
        _exit (1);
    _exit (0);
}

int
collect_send_row (const collect_conf_t *c, const db_job_run_t *r,
                  int timeout_ms, ms_error_t *errp)
{
    char buf[sizeof (((ms_error_t *)0)->text) + 64];
    struct timespec t0, t1;
    struct pollfd pfd;
    size_t len = 0;
    int p[2], status, kind;
    bool killed = false;
    pid_t pid;

    if (timeout_ms <= 0)
        return ms_err (errp, MS_ERR_TIMEOUT,
                       "epilog_send_ms = 0: left to the flush");
    if (pipe (p) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "pipe: %s", strerror (errno));
    fflush (NULL);
    if ((pid = fork ()) < 0) {
        int e = errno;
        close (p[0]);
        close (p[1]);
        return ms_err (errp, MS_ERR_SYSTEM, "fork: %s", strerror (e));
    }
    if (pid == 0) {
        close (p[0]);
        send_child (c, r, p[1]);
    }
    close (p[1]);
    clock_gettime (CLOCK_MONOTONIC, &t0);
    pfd.fd = p[0];
    pfd.events = POLLIN;
    for (;;) {
        long left;
        ssize_t n;

        clock_gettime (CLOCK_MONOTONIC, &t1);
        left = timeout_ms
               - ((t1.tv_sec - t0.tv_sec) * 1000
                  + (t1.tv_nsec - t0.tv_nsec) / 1000000);
        if (left > 0) {
            int pr = poll (&pfd, 1, (int)left);
            if (pr < 0 && errno == EINTR)
                continue;
            left = pr > 0 ? 1 : 0;
        }
        if (left <= 0) {
            kill (pid, SIGKILL);
            killed = true;
            len = 0;
            break;
        }
        n = read (p[0], buf + len, sizeof (buf) - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len + 1 >= sizeof (buf))
            break;
    }
    close (p[0]);
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    buf[len] = '\0';
    if (!len && !killed)
        return ms_err (errp, MS_ERR_SYSTEM,
                       "the process sending the row ended without an "
                       "answer (wait status %d)",
                       status);
    if (!len)
        return ms_err (errp, MS_ERR_TIMEOUT,
                       "PostgreSQL did not take the row within "
                       "epilog_send_ms = %d",
                       timeout_ms);
    if (!strcmp (buf, "0"))
        return 0;
    kind = atoi (buf);
    {
        char *sp = strchr (buf, ' '), *bar = sp ? strchr (sp, '|') : NULL;
        ms_err (errp, kind > 0 ? (ms_errkind_t)kind : MS_ERR_CONNECT, "%s",
                bar ? bar + 1 : buf);
        if (errp && sp && bar && sp[1] != '-') {
            *bar = '\0';
            ms_strlcpy (errp->sqlstate, sp + 1, sizeof (errp->sqlstate));
        }
    }
    return -1;
}

static void
move_bad (const collect_conf_t *c, const char *name)
{
    char from[1024], dir[600], to[1200];

    snprintf (from, sizeof (from), "%s/%s", c->spool_dir, name);
    snprintf (dir, sizeof (dir), "%s/bad", c->spool_dir);
    mkdir (dir, 0700);
    snprintf (to, sizeof (to), "%s/%s", dir, name);
    if (rename (from, to) < 0)
        unlink (from);
}

static void
remove_sent (const collect_conf_t *c, char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf (path, sizeof (path), "%s/%s", c->spool_dir, names[i]);
        unlink (path);
    }
}

int
collect_flush (const collect_conf_t *c, db_t *db, size_t *sent, size_t *left,
               ms_error_t *errp)
{
    char **names = NULL;
    size_t n = 0, nsent = 0, nleft = 0;
    db_job_run_t *rows;
    char **rownames;
    int rc = 0, lock;

    if (spool_list (c->spool_dir, NULL, ".run", &names, &n, errp) < 0) {
        if (errp && errp->kind == MS_ERR_SYSTEM && !strstr (errp->text, "No such"))
            return -1;
        ms_err_clear (errp);
        if (sent)
            *sent = 0;
        if (left)
            *left = 0;
        return 0; /* no spool: nothing to send */
    }
    /* bad/ past its age, and the cap should it have been lowered */
    if ((lock = collect_spool_lock (c, -1, errp)) < 0
        || collect_spool_trim (c, NULL, 0, NULL, errp) < 0) {
        collect_spool_unlock (lock);
        spool_list_free (names, n);
        return -1;
    }
    collect_spool_unlock (lock);
    rows = ms_xcalloc (FLUSH_BATCH, sizeof (*rows));
    rownames = ms_xcalloc (FLUSH_BATCH, sizeof (char *));
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        ms_error_t e;

        /* a batch is read, sent and removed under the spool's lock: the
         * cap drops no row that is being sent */
        if ((lock = collect_spool_lock (c, -1, &e)) < 0) {
            if (errp)
                *errp = e;
            rc = -1;
            nleft += n - i;
            break;
        }
        /* parse up to a batch; unreadable files go to bad/ */
        for (; i < n && k < FLUSH_BATCH; i++) {
            char path[1024];
            spool_rec_t *rec = NULL;
            snprintf (path, sizeof (path), "%s/%s", c->spool_dir, names[i]);
            if (spool_read (path, "job_run", &rec, &e) < 0
                && e.kind == MS_ERR_SYSTEM && e.sys_errno == ENOENT)
                continue; /* sent by its epilog, or dropped for the cap */
            if (!rec || collect_jobrun_from_rec (rec, &rows[k], &e) < 0) {
                spool_rec_free (rec);
                move_bad (c, names[i]);
                continue;
            }
            spool_rec_free (rec);
            rownames[k++] = names[i];
        }
        if (k == 0) {
            collect_spool_unlock (lock);
            continue;
        }
        if (db_job_runs_insert (db, rows, k, NULL, &e) == 0) {
            remove_sent (c, rownames, k);
            collect_spool_unlock (lock);
            nsent += k;
            continue;
        }
        if (e.kind != MS_ERR_DB) {
            /* the connection is gone: leave everything for next time */
            collect_spool_unlock (lock);
            if (errp)
                *errp = e;
            rc = -1;
            nleft += k + (n - i);
            break;
        }
        /* some row was rejected: go one by one */
        for (size_t r = 0; r < k; r++) {
            if (db_job_runs_insert (db, &rows[r], 1, NULL, &e) == 0) {
                remove_sent (c, &rownames[r], 1);
                nsent++;
            } else if (e.kind == MS_ERR_DB && strcmp (e.sqlstate, "23503")
                       && strcmp (e.sqlstate, "42703")) {
                move_bad (c, rownames[r]);
            } else {
                /* unknown partition (not synced yet), a schema older than
                 * the collector (a column it does not have yet: not
                 * migrated), or lost */
                nleft++;
                if (errp && !rc) {
                    *errp = e;
                    rc = -1;
                }
            }
        }
        collect_spool_unlock (lock);
    }
    free (rows);
    free (rownames);
    spool_list_free (names, n);
    if (sent)
        *sent = nsent;
    if (left)
        *left = nleft;
    return rc;
}

/* A program's flush: used by `metasched-collect flush` and `metasched
 * collect flush` (the timer runs the first). Prints to stdout and stderr:
 * it is the programs' code, kept here so that both say the same. */
int
collect_flush_main (const collect_conf_t *c, const char *prog)
{
    collect_drops_t d, since;
    size_t sent = 0, left = 0;
    char line[400];
    db_t *db;
    ms_error_t e;
    int rc = 0;

    if (access (c->spool_dir, F_OK) < 0 && errno == ENOENT) {
        printf ("sent 0, left 0 (no spool %s)\n", c->spool_dir);
        return 0;
    }
    if (collect_drops_report (c, &d, &since, &e) < 0) {
        fprintf (stderr, "%s: %s\n", prog, e.text);
        rc = 1;
    } else if (d.rows || d.bad || d.aged) {
        collect_drops_format (&d, &since, line, sizeof (line));
        printf ("%s\n", line);
    }
    if (collect_db_open (c, c->db_retry_ms, &db, &e) < 0) {
        fprintf (stderr, "%s: %s\n", prog, e.text);
        return 1;
    }
    /* the totals, to the database (the larger totals win there: a report
     * sent again changes nothing); a separate statement from the rows', so
     * that a database without spool_drops still takes the rows */
    if (collect_drops_send (c, db, &e) < 0) {
        fprintf (stderr, "%s: spool drops not reported: %s\n", prog, e.text);
        collect_log (LOG_WARNING, "spool: drops not reported: %s", e.text);
        rc = 1;
    }
    if (collect_flush (c, db, &sent, &left, &e) < 0) {
        fprintf (stderr, "%s: %s\n", prog, e.text);
        rc = 1;
    }
    db_close (db);
    printf ("sent %zu, left %zu\n", sent, left);
    return rc;
}
