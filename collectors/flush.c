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
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/collect.h"
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
    o.connect_timeout_s = 3;
    o.retry_max_ms = retry_ms;
    return db_open (&o, dbp, errp);
}

int
collect_spool_row (const collect_conf_t *c, const db_job_run_t *r,
                   ms_error_t *errp)
{
    char file[256];
    spool_rec_t *rec;
    int rc;
    struct stat st;

    if (mkdir (c->spool_dir, 0700) < 0 && errno != EEXIST)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", c->spool_dir,
                       strerror (errno));
    if (stat (c->spool_dir, &st) == 0 && (st.st_mode & 077))
        chmod (c->spool_dir, 0700);
    snprintf (file, sizeof (file), "%s.%llu.%s.%s.run", r->cluster,
              (unsigned long long)r->slurm_job_id, r->node,
              !strcmp (r->source, "user-reported") ? "user" : "root");
    rec = collect_jobrun_to_rec (r);
    rc = spool_write (c->spool_dir, file, rec, 0600, errp);
    spool_rec_free (rec);
    return rc;
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
    int rc = 0;

    if (spool_list (c->spool_dir, NULL, ".run", &names, &n, errp) < 0) {
        if (errp && errp->kind == MS_ERR_SYSTEM && !strstr (errp->text, "No such"))
            return -1;
        ms_err_clear (errp);
        n = 0;
    }
    rows = ms_xcalloc (FLUSH_BATCH, sizeof (*rows));
    rownames = ms_xcalloc (FLUSH_BATCH, sizeof (char *));
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        ms_error_t e;

        /* parse up to a batch; unreadable files go to bad/ */
        for (; i < n && k < FLUSH_BATCH; i++) {
            char path[1024];
            spool_rec_t *rec = NULL;
            snprintf (path, sizeof (path), "%s/%s", c->spool_dir, names[i]);
            if (spool_read (path, "job_run", &rec, &e) < 0
                || collect_jobrun_from_rec (rec, &rows[k], &e) < 0) {
                spool_rec_free (rec);
                move_bad (c, names[i]);
                continue;
            }
            spool_rec_free (rec);
            rownames[k++] = names[i];
        }
        if (k == 0)
            continue;
        if (db_job_runs_insert (db, rows, k, NULL, &e) == 0) {
            remove_sent (c, rownames, k);
            nsent += k;
            continue;
        }
        if (e.kind != MS_ERR_DB) {
            /* the connection is gone: leave everything for next time */
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
