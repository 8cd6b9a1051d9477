/* spooldrops.c - what the nodes' spools dropped (doc/daemon.md, "Spool
 * drops"): the collectors report their totals to spool_drops (migration
 * 0017) when they reach the database; the cycle re-reads the table at
 * most every SPOOL_DROPS_EVERY_S and /metrics prints what it last read,
 * so that a scrape never waits on the database.
 *
 * A node's name is what its collector said it is: it is printed as a
 * label value escaped as the Prometheus text format asks (backslash,
 * double quote and line feed as \\, \" and \n), other control bytes as
 * '?', so that no name can end a line or a label early.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdarg.h>

#include "metasched/daemon/daemon_int.h"

#define SPOOL_DROPS_EVERY_S 5.0
/* nodes shown at most (the collectors' role could fill the table) */
#define SPOOL_DROPS_MAX 20000

/* This file's part of the daemon's state (d->spool, made at the first
 * reading): the latest reading, swapped in under d->ds.mu. */
struct dspool {
    db_spool_drops_t *v;
    size_t n;
    bool truncated;
    double read; /* mono () of the latest reading (the cycle's thread) */
};

void
daemon_spool_drops_free (ms_daemon_t *d)
{
    if (!d->spool)
        return;
    free (d->spool->v);
    free (d->spool);
    d->spool = NULL;
}

void
daemon_spool_drops (ms_daemon_t *d)
{
    db_spool_drops_t *v = NULL, *old;
    size_t n = 0;
    bool trunc = false, was;
    ms_error_t e;
    struct dspool *sp;

    if (!d->spool)
        d->spool = ms_xcalloc (1, sizeof (*d->spool));
    sp = d->spool;
    if (sp->read > 0 && mono () - sp->read < SPOOL_DROPS_EVERY_S)
        return;
    sp->read = mono ();
    if (db_spool_drops_load (d->db, SPOOL_DROPS_MAX, &v, &n, &trunc, &e) < 0) {
        /* the figures of the last reading stay */
        daemon_log (LOG_ERR, "%s", e.text);
        return;
    }
    pthread_mutex_lock (&d->ds.mu);
    old = sp->v;
    was = sp->truncated;
    sp->v = v;
    sp->n = n;
    sp->truncated = trunc;
    pthread_mutex_unlock (&d->ds.mu);
    free (old);
    if (trunc && !was)
        daemon_log (LOG_WARNING,
                    "spool_drops holds more than %d nodes: /metrics shows "
                    "the first %d by cluster and node",
                    SPOOL_DROPS_MAX, SPOOL_DROPS_MAX);
}

static void
append (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start (ap, fmt);
        n = vsnprintf (*buf + *len, *cap - *len, fmt, ap);
        va_end (ap);
        if (n < 0)
            return;
        if ((size_t)n < *cap - *len)
            break;
        *cap = (*len + (size_t)n + 1) * 2;
        *buf = ms_xrealloc (*buf, *cap);
    }
    *len += (size_t)n;
}

/* s as a label value of the text format, into out (len >= 2 * strlen + 1
 * is always enough) */
static void
label_escape (const char *s, char *out, size_t len)
{
    size_t o = 0;

    for (; *s && o + 3 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\\' || ch == '"') {
            out[o++] = '\\';
            out[o++] = (char)ch;
        } else if (ch == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if (ch < 0x20 || ch == 0x7f)
            out[o++] = '?';
        else
            out[o++] = (char)ch;
    }
    out[o] = '\0';
}

void
daemon_spool_drops_metrics (const ms_daemon_t *d, char **buf, size_t *len,
                            size_t *cap)
{
    static const struct {
        const char *name, *type;
        int what;
    } m[] = {
        { "metaschedd_spool_dropped_rows_total", "counter", 0 },
        { "metaschedd_spool_dropped_bad_total", "counter", 1 },
        { "metaschedd_spool_removed_aged_total", "counter", 2 },
        { "metaschedd_spool_last_drop_timestamp_seconds", "gauge", 3 },
    };
    const struct dspool *sp = d->spool;
    char cl[2 * sizeof (sp->v->cluster)], node[2 * sizeof (sp->v->node)];

    for (size_t k = 0; k < sizeof (m) / sizeof (m[0]); k++) {
        append (buf, len, cap, "# TYPE %s %s\n", m[k].name, m[k].type);
        for (size_t i = 0; sp && i < sp->n; i++) {
            const db_spool_drops_t *x = &sp->v[i];
            label_escape (x->cluster, cl, sizeof (cl));
            label_escape (x->node, node, sizeof (node));
            append (buf, len, cap, "%s{cluster=\"%s\",node=\"%s\"} ", m[k].name,
                    cl, node);
            if (m[k].what == 3)
                append (buf, len, cap, "%.3f\n", x->last);
            else
                append (buf, len, cap, "%" PRIu64 "\n",
                        m[k].what == 0   ? x->rows
                        : m[k].what == 1 ? x->bad
                                         : x->aged);
        }
    }
    append (buf, len, cap,
            "# TYPE metaschedd_spool_drops_truncated gauge\n"
            "metaschedd_spool_drops_truncated %d\n",
            sp && sp->truncated ? 1 : 0);
}
