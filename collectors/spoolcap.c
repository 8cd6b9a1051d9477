/* spoolcap.c - the spool's cap and its count of what it dropped.
 *
 * A node spools a job_runs row for every job that ends while PostgreSQL
 * cannot take it. A database down for days would fill the node's disk, so
 * the spool (its rows and bad/ together) is held under spool_max_files
 * files and spool_max_bytes bytes, and files in bad/ older than
 * bad_max_age_days are removed. Before a row is written, room is made for
 * it by dropping, oldest first (by modification time):
 *
 *   1. files in bad/: rows the database already refused, which no flush
 *      will ever send; an admin who wanted them has had the time to look;
 *   2. spooled rows: the newest runs describe the machines as they are
 *      now (frequencies, firmware, software), and the models weigh recent
 *      runs; an old run adds less than a new one, and keeping the newest
 *      makes the spool a ring whose cost per job stays the same.
 *
 * The row being written is never dropped (the caps admit at least one
 * record). Every drop is logged (the node's log) and counted in the
 * record SPOOL/dropped, which lives on the node and so counts while the
 * database is down; each flush reports what was dropped since the last
 * report (collect_drops_report).
 *
 * Whoever removes a spooled row (a writer dropping it, a flush or the
 * epilog's send that delivered it) holds SPOOL/.lock meanwhile, so that a
 * row is either dropped or sent, and counted once.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/log.h"
#include "metasched/common/util.h"

#define DROPS_FILE "dropped"
#define LOCK_FILE ".lock"
/* a temporary file this old is a writer's that died (spool_write) */
#define STALE_TMP_S 3600

typedef struct {
    char name[256];
    bool bad;
    off_t size;
    struct timespec mtime;
} entry_t;

typedef struct {
    entry_t *v;
    size_t n, cap;
    uint64_t bytes;
} entries_t;

int
collect_spool_lock (const collect_conf_t *c, int wait_ms, ms_error_t *errp)
{
    char path[600];
    int fd, waited = 0;

    snprintf (path, sizeof (path), "%s/%s", c->spool_dir, LOCK_FILE);
    fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    for (;;) {
        if (flock (fd, wait_ms < 0 ? LOCK_EX : LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK || waited >= wait_ms) {
            int e = errno;
            close (fd);
            if (e == EWOULDBLOCK)
                return ms_err (errp, MS_ERR_TIMEOUT,
                               "%s: held by another writer or a flush for "
                               "%d ms",
                               path, wait_ms);
            return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        }
        usleep (10000);
        waited += 10;
    }
}

void
collect_spool_unlock (int fd)
{
    if (fd >= 0)
        close (fd); /* releases the flock */
}

static void
entries_add (entries_t *es, const char *name, bool bad, const struct stat *st)
{
    entry_t *e;

    if (es->n == es->cap) {
        es->cap = es->cap ? es->cap * 2 : 256;
        es->v = ms_xrealloc (es->v, es->cap * sizeof (*es->v));
    }
    e = &es->v[es->n++];
    ms_strlcpy (e->name, name, sizeof (e->name));
    e->bad = bad;
    e->size = st->st_size;
    e->mtime = st->st_mtim;
    es->bytes += (uint64_t)st->st_size;
}

/* The files of dir that count (bad: every file of bad/; else the rows,
 * *.run); stale temporary files are removed, bad/ files past their age
 * too (counted in d->aged). */
static int
scan (const collect_conf_t *c, const char *dir, bool bad, time_t now,
      entries_t *es, collect_drops_t *d, ms_error_t *errp)
{
    DIR *dp = opendir (dir);
    struct dirent *de;
    int dfd;

    if (!dp) {
        if (errno == ENOENT)
            return 0;
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", dir, strerror (errno));
    }
    dfd = dirfd (dp);
    while ((de = readdir (dp))) {
        const char *n = de->d_name;
        size_t l = strlen (n);
        struct stat st;

        if (!strcmp (n, ".") || !strcmp (n, "..") || l >= sizeof (es->v->name))
            continue;
        if (fstatat (dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0
            || !S_ISREG (st.st_mode))
            continue;
        if (n[0] == '.') {
            if (l > 4 && !strcmp (n + l - 4, ".tmp")
                && now - st.st_mtime > STALE_TMP_S)
                unlinkat (dfd, n, 0);
            continue;
        }
        if (bad) {
            if (now - st.st_mtime > (time_t)c->bad_max_age_days * 86400) {
                if (unlinkat (dfd, n, 0) == 0) {
                    d->aged++;
                    d->bytes += (uint64_t)st.st_size;
                    collect_log (LOG_WARNING,
                                 "spool: removed %s/%s: in bad/ for more "
                                 "than bad_max_age_days = %d",
                                 dir, n, c->bad_max_age_days);
                }
                continue;
            }
        } else if (l < 5 || strcmp (n + l - 4, ".run"))
            continue;
        entries_add (es, n, bad, &st);
    }
    closedir (dp);
    return 0;
}

/* bad/ before rows, then oldest first; the name breaks ties */
static int
by_drop_order (const void *a, const void *b)
{
    const entry_t *x = a, *y = b;

    if (x->bad != y->bad)
        return x->bad ? -1 : 1;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp (x->name, y->name);
}

/* Bring the next file to drop to v[i]: at a full spool one write drops
 * one file, found in one pass; past a few (the cap lowered) sort the rest
 * once. */
#define SELECT_MAX 8

static void
next_oldest (entries_t *es, size_t i)
{
    size_t m = i;
    entry_t tmp;

    if (i == SELECT_MAX)
        qsort (es->v + i, es->n - i, sizeof (*es->v), by_drop_order);
    if (i >= SELECT_MAX)
        return;
    for (size_t j = i + 1; j < es->n; j++)
        if (by_drop_order (&es->v[j], &es->v[m]) < 0)
            m = j;
    if (m != i) {
        tmp = es->v[i];
        es->v[i] = es->v[m];
        es->v[m] = tmp;
    }
}

int
collect_drops_read (const collect_conf_t *c, collect_drops_t *d,
                    ms_error_t *errp)
{
    char path[600];
    spool_rec_t *r = NULL;
    struct {
        const char *key;
        uint64_t *v;
    } keys[] = {
        { "rows", &d->rows },
        { "bad", &d->bad },
        { "aged", &d->aged },
        { "bytes", &d->bytes },
        { "reported_rows", &d->reported_rows },
        { "reported_bad", &d->reported_bad },
        { "reported_aged", &d->reported_aged },
        { "last", &d->last },
    };

    memset (d, 0, sizeof (*d));
    snprintf (path, sizeof (path), "%s/%s", c->spool_dir, DROPS_FILE);
    if (spool_read (path, "spool_drops", &r, errp) < 0) {
        if (errp && errp->kind == MS_ERR_SYSTEM && errp->sys_errno == ENOENT) {
            ms_err_clear (errp);
            return 0;
        }
        return -1;
    }
    for (size_t i = 0; i < sizeof (keys) / sizeof (keys[0]); i++)
        if (spool_rec_get_u64 (r, keys[i].key, keys[i].v, errp) < 0) {
            spool_rec_free (r);
            return -1;
        }
    /* the spool's node (absent in a record of an older collector) */
    if (spool_rec_get (r, "cluster"))
        ms_strlcpy (d->cluster, spool_rec_get (r, "cluster"),
                    sizeof (d->cluster));
    if (spool_rec_get (r, "node"))
        ms_strlcpy (d->node, spool_rec_get (r, "node"), sizeof (d->node));
    spool_rec_free (r);
    return 0;
}

static int
drops_write (const collect_conf_t *c, const collect_drops_t *d,
             ms_error_t *errp)
{
    spool_rec_t *r = spool_rec_new ("spool_drops");
    int rc;

    spool_rec_setf (r, "rows", "%llu", (unsigned long long)d->rows);
    spool_rec_setf (r, "bad", "%llu", (unsigned long long)d->bad);
    spool_rec_setf (r, "aged", "%llu", (unsigned long long)d->aged);
    spool_rec_setf (r, "bytes", "%llu", (unsigned long long)d->bytes);
    spool_rec_setf (r, "reported_rows", "%llu",
                    (unsigned long long)d->reported_rows);
    spool_rec_setf (r, "reported_bad", "%llu",
                    (unsigned long long)d->reported_bad);
    spool_rec_setf (r, "reported_aged", "%llu",
                    (unsigned long long)d->reported_aged);
    spool_rec_setf (r, "last", "%llu", (unsigned long long)d->last);
    if (d->cluster[0])
        spool_rec_set (r, "cluster", d->cluster);
    if (d->node[0])
        spool_rec_set (r, "node", d->node);
    rc = spool_write (c->spool_dir, DROPS_FILE, r, 0600, errp);
    spool_rec_free (r);
    return rc;
}

/* Add what this pass dropped to SPOOL/dropped (a record it cannot read is
 * started over, and said so: a count must not stop the spool). */
static void
drops_add (const collect_conf_t *c, const collect_drops_t *now,
           const char *cluster, const char *node)
{
    collect_drops_t d;
    ms_error_t e;

    if (!now->rows && !now->bad && !now->aged)
        return;
    if (collect_drops_read (c, &d, &e) < 0) {
        collect_log (LOG_WARNING,
                     "spool: %s; the count of dropped files "
                     "starts again from 0",
                     e.text);
        memset (&d, 0, sizeof (d));
    }
    d.rows += now->rows;
    d.bad += now->bad;
    d.aged += now->aged;
    d.bytes += now->bytes;
    d.last = (uint64_t)time (NULL);
    if (cluster && cluster[0] && node && node[0]) {
        ms_strlcpy (d.cluster, cluster, sizeof (d.cluster));
        ms_strlcpy (d.node, node, sizeof (d.node));
    }
    if (drops_write (c, &d, &e) < 0)
        collect_log (LOG_WARNING,
                     "spool: count of dropped files not "
                     "written: %s",
                     e.text);
}

int
collect_spool_trim (const collect_conf_t *c, const char *keep, size_t add_bytes,
                    collect_drops_t *dropped, ms_error_t *errp)
{
    return collect_spool_trim_for (c, keep, add_bytes, NULL, NULL, dropped,
                                   errp);
}

int
collect_spool_trim_for (const collect_conf_t *c, const char *keep,
                        size_t add_bytes, const char *cluster, const char *node,
                        collect_drops_t *dropped, ms_error_t *errp)
{
    char bad[600];
    entries_t es = { 0 };
    collect_drops_t now;
    uint64_t files, bytes;
    time_t t = time (NULL);
    int rc = 0;

    memset (&now, 0, sizeof (now));
    snprintf (bad, sizeof (bad), "%s/bad", c->spool_dir);
    if (scan (c, c->spool_dir, false, t, &es, &now, errp) < 0
        || scan (c, bad, true, t, &es, &now, errp) < 0) {
        rc = -1;
        goto out;
    }
    files = es.n;
    bytes = es.bytes;
    /* the file being replaced counts as the new one */
    for (size_t i = 0; keep && i < es.n; i++)
        if (!es.v[i].bad && !strcmp (es.v[i].name, keep)) {
            files--;
            bytes -= (uint64_t)es.v[i].size;
            es.v[i] = es.v[--es.n];
            break;
        }
    if (keep) {
        files++;
        bytes += add_bytes;
    }
    for (size_t i = 0;
         i < es.n && (files > c->spool_max_files || bytes > c->spool_max_bytes);
         i++) {
        char path[1200];
        const entry_t *x;

        next_oldest (&es, i);
        x = &es.v[i];

        snprintf (path, sizeof (path), "%s/%s", x->bad ? bad : c->spool_dir,
                  x->name);
        if (unlink (path) < 0 && errno != ENOENT)
            continue;
        files--;
        bytes -= (uint64_t)x->size;
        now.bytes += (uint64_t)x->size;
        if (x->bad)
            now.bad++;
        else
            now.rows++;
        collect_log (LOG_WARNING,
                     "spool: over its cap (spool_max_files = %llu, "
                     "spool_max_bytes = %llu): dropped %s, the oldest %s "
                     "(%lld s old)",
                     (unsigned long long)c->spool_max_files,
                     (unsigned long long)c->spool_max_bytes, path,
                     x->bad ? "file in bad/" : "spooled row",
                     (long long)(t - x->mtime.tv_sec));
    }
    drops_add (c, &now, cluster, node);
out:
    if (dropped)
        *dropped = now;
    free (es.v);
    return rc;
}

int
collect_drops_report (const collect_conf_t *c, collect_drops_t *d,
                      collect_drops_t *since, ms_error_t *errp)
{
    int fd = collect_spool_lock (c, -1, errp);
    int rc = 0;

    if (fd < 0)
        return -1;
    memset (since, 0, sizeof (*since));
    if (collect_drops_read (c, d, errp) < 0) {
        if (!errp || errp->kind == MS_ERR_SYSTEM) {
            collect_spool_unlock (fd);
            return -1;
        }
        /* not a record of ours (cut, edited): say so and count again,
         * rather than fail every flush from now on */
        collect_log (LOG_WARNING,
                     "spool: %s; the count of dropped files starts again "
                     "from 0",
                     errp->text);
        ms_err_clear (errp);
        memset (d, 0, sizeof (*d));
        rc = drops_write (c, d, errp);
    }
    since->rows = d->rows - d->reported_rows;
    since->bad = d->bad - d->reported_bad;
    since->aged = d->aged - d->reported_aged;
    if (since->rows || since->bad || since->aged) {
        collect_log (LOG_WARNING,
                     "spool: dropped since the last report: %llu spooled "
                     "rows and %llu files of bad/ for the cap, %llu files "
                     "of bad/ for their age (in all: %llu, %llu, %llu; "
                     "%s/%s)",
                     (unsigned long long)since->rows,
                     (unsigned long long)since->bad,
                     (unsigned long long)since->aged,
                     (unsigned long long)d->rows, (unsigned long long)d->bad,
                     (unsigned long long)d->aged, c->spool_dir, DROPS_FILE);
        d->reported_rows = d->rows;
        d->reported_bad = d->bad;
        d->reported_aged = d->aged;
        rc = drops_write (c, d, errp);
    }
    collect_spool_unlock (fd);
    return rc;
}

void
collect_drops_format (const collect_drops_t *d, const collect_drops_t *since,
                      char *out, size_t len)
{
    snprintf (out, len,
              "dropped for the spool's cap: %llu rows, %llu files of bad/; "
              "removed from bad/ for their age: %llu (since the last "
              "report: %llu, %llu, %llu)",
              (unsigned long long)d->rows, (unsigned long long)d->bad,
              (unsigned long long)d->aged, (unsigned long long)since->rows,
              (unsigned long long)since->bad, (unsigned long long)since->aged);
}

int
collect_drops_send (const collect_conf_t *c, db_t *db, ms_error_t *errp)
{
    collect_drops_t d;
    db_spool_drops_t s;

    if (collect_drops_read (c, &d, errp) < 0)
        return -1;
    if (!d.rows && !d.bad && !d.aged)
        return 0;
    memset (&s, 0, sizeof (s));
    ms_strlcpy (s.cluster, d.cluster[0] ? d.cluster : c->cluster,
                sizeof (s.cluster));
    if (d.node[0])
        ms_strlcpy (s.node, d.node, sizeof (s.node));
    else if (gethostname (s.node, sizeof (s.node) - 1) == 0)
        s.node[strcspn (s.node, ".")] = '\0';
    if (!s.cluster[0])
        return ms_err (errp, MS_ERR_INPUT,
                       "%s/%s names no cluster and collect.conf sets none "
                       "(cluster =): its drops are not reported",
                       c->spool_dir, DROPS_FILE);
    s.rows = d.rows;
    s.bad = d.bad;
    s.aged = d.aged;
    s.last = (double)d.last;
    return db_spool_drops_put (db, &s, errp);
}
