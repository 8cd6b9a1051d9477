/* swf.c - reader for the Standard Workload Format (see swf.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "metasched/common/util.h"
#include "partitions/swf.h"

#define SWF_MAX_BYTES ((size_t)1 << 31)

/* Header lines we read: "; MaxProcs: 100". */
static void
parse_header (swf_trace_t *t, const char *s, const char *end)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        { "MaxProcs:", offsetof (swf_trace_t, max_procs) },
        { "MaxNodes:", offsetof (swf_trace_t, max_nodes) },
        { "UnixStartTime:", offsetof (swf_trace_t, unix_start) },
    };

    while (s < end && (*s == ';' || *s == ' ' || *s == '\t'))
        s++;
    for (size_t i = 0; i < sizeof (keys) / sizeof (keys[0]); i++) {
        size_t kl = strlen (keys[i].key);
        char buf[32];
        size_t n;
        if ((size_t)(end - s) <= kl || strncmp (s, keys[i].key, kl))
            continue;
        n = (size_t)(end - s - kl);
        if (n >= sizeof (buf))
            n = sizeof (buf) - 1;
        memcpy (buf, s + kl, n);
        buf[n] = '\0';
        char *e;
        errno = 0;
        long long v = strtoll (buf, &e, 10);
        if (!errno && e != buf && v >= 0)
            *(int64_t *)((char *)t + keys[i].off) = v;
    }
}

/* What ends a field: a separator, or the '\n' after the line. */
static const unsigned char field_end[256]
    = { [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1 };

/* Parse one job line [s, end), *end being its '\n' (the scans stop
 * there without counting); return 0, or -1 with errp. */
static int
parse_line (const char *s, const char *end, const char *name, int line,
            swf_job_t *j, ms_error_t *errp)
{
    double v[SWF_NFIELDS];
    int n = 0;

    while (s < end) {
        char buf[64];
        const char *f;
        size_t len, neg;
        uint64_t u;
        bool digits;
        char *e;

        while (*s != '\n' && field_end[(unsigned char)*s])
            s++;
        if (s >= end)
            break;
        if (n == SWF_NFIELDS)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: more than %d fields",
                           name, line, SWF_NFIELDS);
        /* The field's digits are summed as it is scanned. An optional '-'
         * and 1 to 15 digits is a double exactly, the one strtod returns
         * (-0 included); a trace's fields nearly all are, and strtod's
         * general path was a fifth of reading one. Such a field is below
         * 1e15, and within range where it is -1, -0 or not negative: kept
         * at once, without the checks on a double below (8% of reading
         * KTH-SP2). Other text is copied for strtod. */
        f = s;
        neg = *s == '-';
        s += neg;
        u = 0;
        digits = true;
        while (!field_end[(unsigned char)*s]) {
            unsigned d = (unsigned)(unsigned char)*s++ - '0';
            digits &= d <= 9;
            u = 10 * u + d;
        }
        len = (size_t)(s - f);
        if (digits && len > neg && len - neg <= 15 && (!neg || u <= 1)) {
            /* below 1e15, and -1 or not negative: a field to keep */
            v[n++] = neg ? -(double)u : (double)u;
            continue;
        }
        if (len + 1 >= sizeof (buf))
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: field %d is too long",
                           name, line, n + 1);
        if (digits && len > neg && len - neg <= 15)
            v[n] = neg ? -(double)u : (double)u;
        else {
            memcpy (buf, f, len);
            buf[len] = '\0';
            errno = 0;
            v[n] = strtod (buf, &e);
            if (*e || errno == ERANGE || !isfinite (v[n]))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: field %d '%s' is not a number", name,
                               line, n + 1, buf);
        }
        if (v[n] < 0 && v[n] != -1)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: field %d is negative (%.*s); unknown is -1",
                           name, line, n + 1, (int)len, f);
        if (fabs (v[n]) > 1e15)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: field %d is too large",
                           name, line, n + 1);
        n++;
    }
    if (n < 2)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%d: %d field%s; a job needs at least its number "
                       "and submit time",
                       name, line, n, n == 1 ? "" : "s");
    for (int i = n; i < SWF_NFIELDS; i++)
        v[i] = -1;
    if (v[0] < 0 || v[1] < 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%d: job number and submit time must be known", name,
                       line);
    /* the status is a small code (-1, 0 to 5); what is larger would not
     * fit its int */
    if (v[10] > 1000000)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%d: field 11 (status) %.0f is not a status", name,
                       line, v[10]);
    j->id = (int64_t)v[0];
    j->submit = v[1];
    j->wait = v[2];
    j->runtime = v[3];
    j->procs = (int64_t)v[4];
    j->cpu_avg = v[5];
    j->mem_used = v[6];
    j->procs_req = (int64_t)v[7];
    j->time_req = v[8];
    j->mem_req = v[9];
    j->status = (int)v[10];
    j->user = (int64_t)v[11];
    j->group = (int64_t)v[12];
    j->exe = (int64_t)v[13];
    j->queue = (int64_t)v[14];
    j->partition = (int64_t)v[15];
    j->prev_job = (int64_t)v[16];
    j->think = v[17];
    j->line = line;
    return 0;
}

/* parse_line for a last line without its '\n': a copy with one. */
static int
parse_last (const char *s, const char *end, const char *name, int line,
            swf_job_t *j, ms_error_t *errp)
{
    size_t len = (size_t)(end - s);
    char *copy = ms_xmalloc (len + 1);
    int rc;

    memcpy (copy, s, len);
    copy[len] = '\n';
    rc = parse_line (copy, copy + len, name, line, j, errp);
    free (copy);
    return rc;
}

/* A trace being parsed, whole or piece by piece (a .gz as it is
 * decompressed): the jobs so far and the lines read. */
typedef struct {
    swf_trace_t *t;
    size_t cap; /* jobs allocated */
    int line;
    int flags;
} swf_reader_t;

static void
reader_init (swf_reader_t *rd, const char *name, int flags)
{
    swf_trace_t *t = ms_xcalloc (1, sizeof (*t));

    ms_strlcpy (t->name, name ? name : "(trace)", sizeof (t->name));
    t->max_procs = t->max_nodes = t->unix_start = -1;
    rd->t = t;
    rd->cap = 0;
    rd->line = 0;
    rd->flags = flags;
}

/* The lines of [p, end), the last one maybe without its '\n'; 0, or -1
 * with errp at a malformed line (unless SWF_SKIP_MALFORMED). */
static int
reader_lines (swf_reader_t *rd, const char *p, const char *end,
              ms_error_t *errp)
{
    swf_trace_t *t = rd->t;

    while (p < end) {
        const char *nl = memchr (p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *s = p;
        rd->line++;
        p = nl ? nl + 1 : end;
        while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s == le)
            continue;
        if (*s == ';') {
            parse_header (t, s, le);
            continue;
        }
        if (t->njobs == rd->cap) {
            rd->cap = rd->cap ? rd->cap * 2 : 1024;
            t->jobs = ms_xrealloc (t->jobs, rd->cap * sizeof (*t->jobs));
        }
        if ((nl ? parse_line (s, le, t->name, rd->line, &t->jobs[t->njobs],
                              errp)
                : parse_last (s, le, t->name, rd->line, &t->jobs[t->njobs],
                              errp))
            < 0) {
            if (rd->flags & SWF_SKIP_MALFORMED) {
                t->skipped++;
                continue;
            }
            return -1;
        }
        t->njobs++;
    }
    return 0;
}

int
swf_parse (const char *text, size_t len, const char *name, int flags,
           swf_trace_t **tracep, ms_error_t *errp)
{
    swf_reader_t rd;

    reader_init (&rd, name, flags);
    if (reader_lines (&rd, text, text + len, errp) < 0) {
        swf_free (rd.t);
        return -1;
    }
    *tracep = rd.t;
    return 0;
}

#define GZ_IN_BYTES ((size_t)1 << 16)
#define GZ_PIECE_BYTES ((size_t)1 << 16)
#define GZ_PIECES 4

/* A .gz file being decompressed: zlib's stream over the bytes read. */
typedef struct {
    int fd;
    bool eof;       /* the file is read to its end */
    int read_errno; /* where gzin_step said gz_read_failed */
    z_stream z;
    unsigned char in[GZ_IN_BYTES];
} gzin_t;

static const char gz_read_failed[] = "read";

/* Fill the input to the brim, or to the file's end; -1 with read_errno. */
static int
gzin_fill (gzin_t *g)
{
    if (g->eof)
        return 0;
    if (g->z.avail_in)
        memmove (g->in, g->z.next_in, g->z.avail_in);
    g->z.next_in = g->in;
    while (g->z.avail_in < GZ_IN_BYTES) {
        ssize_t n = read (g->fd, g->in + g->z.avail_in,
                          GZ_IN_BYTES - g->z.avail_in);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            g->read_errno = errno;
            return -1;
        }
        if (n == 0) {
            g->eof = true;
            break;
        }
        g->z.avail_in += (uInt)n;
    }
    return 0;
}

/* Decompress into text[*have, cap), the next gzip member started where one
 * ended, as zlib's gzread does: NULL, or why the file cannot be
 * decompressed (gzread's words; gz_read_failed: read_errno's). *member:
 * inside one; *first: none seen yet; *done: the last member ended (what
 * follows it is ignored). */
static const char *
gzin_step (gzin_t *g, char *text, size_t cap, size_t *have, bool *member,
           bool *first, bool *done)
{
    int ret;

    if (!*member) {
        if (g->z.avail_in < 2 && gzin_fill (g) < 0)
            return gz_read_failed;
        if (g->z.avail_in < 2 || g->z.next_in[0] != 0x1f
            || g->z.next_in[1] != 0x8b) {
            *done = true;
            return *first && g->z.avail_in ? "not gzip data" : NULL;
        }
        inflateReset (&g->z);
        *member = true;
        *first = false;
    }
    if (!g->z.avail_in && gzin_fill (g) < 0)
        return gz_read_failed;
    if (!g->z.avail_in)
        return "unexpected end of file";
    g->z.next_out = (unsigned char *)text + *have;
    g->z.avail_out = (uInt)(cap - *have);
    ret = inflate (&g->z, Z_NO_FLUSH);
    *have = cap - g->z.avail_out;
    if (ret == Z_STREAM_ERROR || ret == Z_NEED_DICT)
        return "internal error: inflate stream corrupt";
    if (ret == Z_MEM_ERROR)
        return "out of memory";
    if (ret == Z_DATA_ERROR)
        return g->z.msg ? g->z.msg : "compressed data error";
    if (ret == Z_STREAM_END)
        *member = false;
    return NULL;
}

/* A .gz file decompressed by a thread of its own into a ring of pieces
 * of text, which the calling thread parses as they come: decompressing
 * and parsing take about as long each, and a simulation's machine has a
 * second core. */
typedef struct {
    gzin_t g;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *piece[GZ_PIECES];
    size_t len[GZ_PIECES];
    size_t made, used; /* pieces decompressed, and parsed */
    bool end;          /* no piece will follow */
    /* how it ended, read once the thread is joined */
    const char *why; /* cannot decompress: why */
    bool large;      /* larger than SWF_MAX_BYTES */
    size_t total;    /* bytes of text */
} gzpipe_t;

static void *
gzpipe_decompress (void *arg)
{
    gzpipe_t *gp = arg;
    bool member = false, first = true, done = false;

    while (!gp->end) {
        char *text;
        size_t have = 0;
        pthread_mutex_lock (&gp->mu);
        while (gp->made - gp->used == GZ_PIECES)
            pthread_cond_wait (&gp->cv, &gp->mu);
        text = gp->piece[gp->made % GZ_PIECES];
        pthread_mutex_unlock (&gp->mu);
        while (have < GZ_PIECE_BYTES && !done && !gp->why && !gp->large) {
            size_t had = have;
            gp->why = gzin_step (&gp->g, text, GZ_PIECE_BYTES, &have, &member,
                                 &first, &done);
            gp->total += have - had;
            gp->large = gp->total + 65536 + 1 > SWF_MAX_BYTES;
        }
        pthread_mutex_lock (&gp->mu);
        gp->len[gp->made % GZ_PIECES] = have;
        gp->made++;
        gp->end = done || gp->why || gp->large;
        pthread_cond_broadcast (&gp->cv);
        pthread_mutex_unlock (&gp->mu);
    }
    return NULL;
}

/* The partial line at the end of a piece, kept for the next one. */
typedef struct {
    char *text;
    size_t len, cap;
} carry_t;

static void
carry_add (carry_t *c, const char *p, size_t n)
{
    if (!n)
        return;
    if (c->len + n > c->cap) {
        c->cap = c->len + n > 2 * c->cap ? c->len + n : 2 * c->cap;
        c->text = ms_xrealloc (c->text, c->cap);
    }
    memcpy (c->text + c->len, p, n);
    c->len += n;
}

/* The whole lines of a piece [p, p + n), the first one begun in the
 * carry; what follows the last '\n' is carried. */
static int
reader_piece (swf_reader_t *rd, carry_t *c, const char *p, size_t n,
              ms_error_t *errp)
{
    const char *end = p + n, *last = end;

    if (c->len) {
        const char *nl = memchr (p, '\n', n);
        const char *upto = nl ? nl + 1 : end;
        size_t cl;
        carry_add (c, p, (size_t)(upto - p));
        if (!nl)
            return 0;
        p = upto;
        cl = c->len;
        c->len = 0;
        if (reader_lines (rd, c->text, c->text + cl, errp) < 0)
            return -1;
    }
    while (last > p && last[-1] != '\n')
        last--;
    if (reader_lines (rd, p, last, errp) < 0)
        return -1;
    carry_add (c, last, (size_t)(end - last));
    return 0;
}
/* A .gz trace, decompressed in-process with zlib by a thread while this
 * one parses the text piece by piece (whole lines; the text is never
 * held whole). Members one after another are read, what follows the last
 * is ignored, and a file that is not gzip data is refused, as `gzip -dc`
 * refused it before: a trace named .gz is compressed or wrong. The stream
 * is decompressed to its end before a malformed line is told, so that a
 * file cut short or corrupt says so first. */
static int
load_gzip (const char *path, const char *name, int flags,
           swf_trace_t **tracep, ms_error_t *errp)
{
    gzpipe_t *gp = ms_xcalloc (1, sizeof (*gp));
    carry_t c = { NULL, 0, 0 };
    swf_reader_t rd;
    ms_error_t lerr;
    pthread_t th;
    bool bad = false;
    const char *why;
    int rc = -1, e;

    if ((gp->g.fd = open (path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
        free (gp);
        return rc;
    }
    if (inflateInit2 (&gp->g.z, 15 + 16) != Z_OK) {
        rc = ms_err (errp, MS_ERR_INPUT,
                     "%s: cannot decompress: out of memory; is it a gzip "
                     "file?",
                     path);
        close (gp->g.fd);
        free (gp);
        return rc;
    }
    for (size_t i = 0; i < GZ_PIECES; i++)
        gp->piece[i] = ms_xmalloc (GZ_PIECE_BYTES);
    pthread_mutex_init (&gp->mu, NULL);
    pthread_cond_init (&gp->cv, NULL);
    reader_init (&rd, name, flags);
    if ((e = pthread_create (&th, NULL, gzpipe_decompress, gp)) != 0) {
        ms_err (errp, MS_ERR_SYSTEM, "%s: cannot start a thread: %s", path,
                strerror (e));
        goto out;
    }
    for (;;) {
        const char *p;
        size_t n;
        pthread_mutex_lock (&gp->mu);
        while (gp->made == gp->used && !gp->end)
            pthread_cond_wait (&gp->cv, &gp->mu);
        if (gp->made == gp->used) {
            pthread_mutex_unlock (&gp->mu);
            break;
        }
        p = gp->piece[gp->used % GZ_PIECES];
        n = gp->len[gp->used % GZ_PIECES];
        pthread_mutex_unlock (&gp->mu);
        if (!bad && reader_piece (&rd, &c, p, n, &lerr) < 0)
            bad = true;
        pthread_mutex_lock (&gp->mu);
        gp->used++;
        pthread_cond_broadcast (&gp->cv);
        pthread_mutex_unlock (&gp->mu);
    }
    pthread_join (th, NULL);
    /* the last line, without its '\n' */
    if (!bad && reader_lines (&rd, c.text, c.text + c.len, &lerr) < 0)
        bad = true;
    why = gp->why == gz_read_failed ? strerror (gp->g.read_errno) : gp->why;
    if (!why && !gp->large && gp->total == 0)
        why = "empty, not gzip data";
    if (gp->large)
        ms_err (errp, MS_ERR_INPUT, "%s: larger than %zu bytes", path,
                SWF_MAX_BYTES);
    else if (why)
        ms_err (errp, MS_ERR_INPUT,
                "%s: cannot decompress: %s; is it a gzip file?", path, why);
    else if (bad) {
        if (errp)
            *errp = lerr;
    } else {
        *tracep = rd.t;
        rd.t = NULL;
        rc = 0;
    }
out:
    swf_free (rd.t);
    free (c.text);
    pthread_cond_destroy (&gp->cv);
    pthread_mutex_destroy (&gp->mu);
    for (size_t i = 0; i < GZ_PIECES; i++)
        free (gp->piece[i]);
    inflateEnd (&gp->g.z);
    close (gp->g.fd);
    free (gp);
    return rc;
}


int
swf_load (const char *path, int flags, swf_trace_t **tracep, ms_error_t *errp)
{
    char *buf;
    size_t len, pl = strlen (path);
    int rc;
    const char *base = strrchr (path, '/'), *name = base ? base + 1 : path;

    if (access (path, R_OK) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    if (pl > 3 && !strcmp (path + pl - 3, ".gz"))
        return load_gzip (path, name, flags, tracep, errp);
    if (ms_read_file (path, SWF_MAX_BYTES, &buf, &len, errp) < 0)
        return -1;
    rc = swf_parse (buf, len, name, flags, tracep, errp);
    free (buf);
    return rc;
}

void
swf_free (swf_trace_t *t)
{
    if (!t)
        return;
    free (t->jobs);
    free (t);
}
