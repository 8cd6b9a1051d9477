/* swf.c - reader for the Standard Workload Format (see swf.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
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

/* Parse one job line [s, end); return 0, or -1 with errp. */
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

        while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s >= end)
            break;
        if (n == SWF_NFIELDS)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: more than %d fields",
                           name, line, SWF_NFIELDS);
        /* The field's digits are summed as it is scanned. An optional '-'
         * and 1 to 15 digits is a double exactly, the one strtod returns
         * (-0 included); a trace's fields nearly all are, and strtod's
         * general path was a fifth of reading one. Other text is copied
         * for strtod. */
        f = s;
        neg = *s == '-';
        s += neg;
        u = 0;
        digits = true;
        while (s < end && *s != ' ' && *s != '\t' && *s != '\r') {
            unsigned d = (unsigned)(unsigned char)*s++ - '0';
            digits &= d <= 9;
            u = 10 * u + d;
        }
        len = (size_t)(s - f);
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

int
swf_parse (const char *text, size_t len, const char *name, int flags,
           swf_trace_t **tracep, ms_error_t *errp)
{
    swf_trace_t *t = ms_xcalloc (1, sizeof (*t));
    size_t cap = 0;
    const char *p = text, *end = text + len;
    int line = 0;

    ms_strlcpy (t->name, name ? name : "(trace)", sizeof (t->name));
    t->max_procs = t->max_nodes = t->unix_start = -1;
    while (p < end) {
        const char *nl = memchr (p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *s = p;
        line++;
        p = nl ? nl + 1 : end;
        while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s == le)
            continue;
        if (*s == ';') {
            parse_header (t, s, le);
            continue;
        }
        if (t->njobs == cap) {
            cap = cap ? cap * 2 : 1024;
            t->jobs = ms_xrealloc (t->jobs, cap * sizeof (*t->jobs));
        }
        if (parse_line (s, le, t->name, line, &t->jobs[t->njobs], errp) < 0) {
            if (flags & SWF_SKIP_MALFORMED) {
                t->skipped++;
                continue;
            }
            swf_free (t);
            return -1;
        }
        t->njobs++;
    }
    *tracep = t;
    return 0;
}

/* Read a gzip file in-process with zlib (gzread: concatenated members
 * too). A file that is not gzip data is refused, as `gzip -dc` refused it
 * before: a trace named .gz is compressed or wrong. */
static int
read_gzip (const char *path, char **bufp, size_t *lenp, ms_error_t *errp)
{
    gzFile gz;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    const char *why = NULL;
    int zerr = Z_OK;

    errno = 0;
    if (!(gz = gzopen (path, "rb")))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path,
                       errno ? strerror (errno) : "cannot open");
    gzbuffer (gz, 1 << 17);
    for (;;) {
        int n;
        if (len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 1 << 22;
            if (cap > SWF_MAX_BYTES) {
                free (buf);
                gzclose (gz);
                return ms_err (errp, MS_ERR_INPUT, "%s: larger than %zu bytes",
                               path, SWF_MAX_BYTES);
            }
            buf = ms_xrealloc (buf, cap);
        }
        n = gzread (gz, buf + len, (unsigned)(cap - len - 1));
        if (n > 0 && len == 0 && gzdirect (gz))
            why = "not gzip data";
        else if (n < 0)
            why = gzerror (gz, &zerr);
        else if (n == 0) {
            /* a cut stream reads as if it ended; zlib tells here */
            const char *m = gzerror (gz, &zerr);
            if (zerr != Z_OK)
                why = m;
            else if (len == 0)
                why = "empty, not gzip data";
        }
        if (why || n == 0)
            break;
        len += (size_t)n;
    }
    if (why) {
        size_t pl = strlen (path);
        int rc;
        if (!strncmp (why, path, pl) && why[pl] == ':') /* zlib's "path: " */
            why += pl + (why[pl + 1] == ' ' ? 2 : 1);
        rc = ms_err (errp, MS_ERR_INPUT,
                     "%s: cannot decompress: %s; is it a gzip file?", path,
                     why);
        free (buf);
        gzclose (gz);
        return rc;
    }
    gzclose (gz);
    buf[len] = '\0';
    *bufp = buf;
    *lenp = len;
    return 0;
}

int
swf_load (const char *path, int flags, swf_trace_t **tracep, ms_error_t *errp)
{
    char *buf;
    size_t len, pl = strlen (path);
    int rc;
    const char *base = strrchr (path, '/');

    if (access (path, R_OK) < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    if (pl > 3 && !strcmp (path + pl - 3, ".gz"))
        rc = read_gzip (path, &buf, &len, errp);
    else
        rc = ms_read_file (path, SWF_MAX_BYTES, &buf, &len, errp);
    if (rc < 0)
        return -1;
    rc = swf_parse (buf, len, base ? base + 1 : path, flags, tracep, errp);
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
