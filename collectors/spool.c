/* spool.c - key=value records on disk, written atomically, read strictly. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/spool.h"
#include "metasched/common/util.h"

#define SPOOL_MAGIC "metasched-spool 1 "

struct spool_rec {
    char kind[33];
    char name[256];
    char **keys;
    char **vals;
    size_t n, cap;
};

static bool
valid_key (const char *k, size_t len)
{
    if (len == 0 || len > 64)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)k[i];
        if (!(isalnum (c) || c == '_' || c == '.' || c == ':' || c == '-'))
            return false;
    }
    return true;
}

static bool
valid_kind (const char *k, size_t len)
{
    if (len == 0 || len > 32)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!(islower ((unsigned char)k[i]) || k[i] == '_'))
            return false;
    return true;
}

spool_rec_t *
spool_rec_new (const char *kind)
{
    spool_rec_t *r = ms_xcalloc (1, sizeof (*r));
    ms_strlcpy (r->kind, kind, sizeof (r->kind));
    ms_strlcpy (r->name, kind, sizeof (r->name));
    return r;
}

void
spool_rec_free (spool_rec_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free (r->keys[i]);
        free (r->vals[i]);
    }
    free (r->keys);
    free (r->vals);
    free (r);
}

const char *
spool_rec_kind (const spool_rec_t *r)
{
    return r->kind;
}

const char *
spool_rec_name (const spool_rec_t *r)
{
    return r->name;
}

static ssize_t
find (const spool_rec_t *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp (r->keys[i], key))
            return (ssize_t)i;
    return -1;
}

static char *
clean_value (const char *val)
{
    size_t len = strlen (val);
    char *v;

    if (len > SPOOL_MAX_VALUE)
        len = SPOOL_MAX_VALUE;
    v = ms_xmalloc (len + 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)val[i];
        v[i] = (c < 0x20 || c > 0x7e) ? '?' : (char)c;
    }
    v[len] = '\0';
    return v;
}

void
spool_rec_set (spool_rec_t *r, const char *key, const char *val)
{
    ssize_t i;

    if (!valid_key (key, strlen (key)) || !val)
        return;
    if ((i = find (r, key)) >= 0) {
        free (r->vals[i]);
        r->vals[i] = clean_value (val);
        return;
    }
    if (r->n >= SPOOL_MAX_KEYS)
        return;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 16;
        r->keys = ms_xrealloc (r->keys, r->cap * sizeof (char *));
        r->vals = ms_xrealloc (r->vals, r->cap * sizeof (char *));
    }
    r->keys[r->n] = ms_xstrdup (key);
    r->vals[r->n] = clean_value (val);
    r->n++;
}

void
spool_rec_setf (spool_rec_t *r, const char *key, const char *fmt, ...)
{
    char buf[SPOOL_MAX_VALUE + 1];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    spool_rec_set (r, key, buf);
}

size_t
spool_rec_count (const spool_rec_t *r)
{
    return r->n;
}

const char *
spool_rec_key (const spool_rec_t *r, size_t i)
{
    return i < r->n ? r->keys[i] : NULL;
}

const char *
spool_rec_value (const spool_rec_t *r, size_t i)
{
    return i < r->n ? r->vals[i] : NULL;
}

const char *
spool_rec_get (const spool_rec_t *r, const char *key)
{
    ssize_t i = find (r, key);
    return i >= 0 ? r->vals[i] : NULL;
}

int
spool_rec_get_u64 (const spool_rec_t *r, const char *key, uint64_t *v,
                   ms_error_t *errp)
{
    const char *s = spool_rec_get (r, key);
    char *end;
    unsigned long long x;

    if (!s)
        return 0;
    if (!isdigit ((unsigned char)*s))
        return ms_err (errp, MS_ERR_INPUT, "%s: %s: not a number: '%.40s'",
                       r->name, key, s);
    errno = 0;
    x = strtoull (s, &end, 10);
    if (*end || errno)
        return ms_err (errp, MS_ERR_INPUT, "%s: %s: not a number: '%.40s'",
                       r->name, key, s);
    *v = (uint64_t)x;
    return 1;
}

int
spool_rec_get_i64 (const spool_rec_t *r, const char *key, int64_t *v,
                   ms_error_t *errp)
{
    const char *s = spool_rec_get (r, key);
    char *end;
    long long x;

    if (!s)
        return 0;
    if (!(isdigit ((unsigned char)*s)
          || (*s == '-' && isdigit ((unsigned char)s[1]))))
        return ms_err (errp, MS_ERR_INPUT, "%s: %s: not an integer: '%.40s'",
                       r->name, key, s);
    errno = 0;
    x = strtoll (s, &end, 10);
    if (*end || errno)
        return ms_err (errp, MS_ERR_INPUT, "%s: %s: not an integer: '%.40s'",
                       r->name, key, s);
    *v = (int64_t)x;
    return 1;
}

int
spool_rec_get_double (const spool_rec_t *r, const char *key, double *v,
                      ms_error_t *errp)
{
    const char *s = spool_rec_get (r, key);
    char *end;
    double x;

    if (!s)
        return 0;
    /* plain decimal notation only: no hex floats, inf or nan */
    for (const char *p = s; *p; p++)
        if (!(isdigit ((unsigned char)*p) || *p == '.' || *p == '-'
              || *p == '+' || *p == 'e' || *p == 'E'))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s: %s: not a number: '%.40s'", r->name, key, s);
    errno = 0;
    x = strtod (s, &end);
    if (end == s || *end || errno || !isfinite (x))
        return ms_err (errp, MS_ERR_INPUT, "%s: %s: not a number: '%.40s'",
                       r->name, key, s);
    *v = x;
    return 1;
}

char *
spool_rec_format (const spool_rec_t *r, size_t *lenp)
{
    size_t cap = 64 + strlen (r->kind), len;
    char *buf;

    for (size_t i = 0; i < r->n; i++)
        cap += strlen (r->keys[i]) + strlen (r->vals[i]) + 2;
    buf = ms_xmalloc (cap);
    len = (size_t)snprintf (buf, cap, SPOOL_MAGIC "%s\n", r->kind);
    for (size_t i = 0; i < r->n; i++)
        len += (size_t)snprintf (buf + len, cap - len, "%s=%s\n", r->keys[i],
                                 r->vals[i]);
    len += (size_t)snprintf (buf + len, cap - len, "end\n");
    if (lenp)
        *lenp = len;
    return buf;
}

int
spool_rec_parse (const char *text, size_t len, const char *name,
                 spool_rec_t **rp, ms_error_t *errp)
{
    spool_rec_t *r;
    size_t pos = 0;
    int line = 0;
    bool ended = false;

    if (!name)
        name = "record";
    if (len > SPOOL_MAX_BYTES)
        return ms_err (errp, MS_ERR_INPUT, "%s: larger than %d bytes", name,
                       SPOOL_MAX_BYTES);
    r = spool_rec_new ("unknown");
    ms_strlcpy (r->name, name, sizeof (r->name));
    while (pos < len) {
        const char *l = text + pos, *nl = memchr (l, '\n', len - pos), *eq;
        size_t ll = nl ? (size_t)(nl - l) : len - pos;

        line++;
        pos += ll + (nl ? 1 : 0);
        if (!nl) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: line not terminated (cut?)",
                    name, line);
            goto fail;
        }
        if (ended) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: text after 'end'", name, line);
            goto fail;
        }
        if (line == 1) {
            size_t ml = sizeof (SPOOL_MAGIC) - 1;
            if (ll <= ml || memcmp (l, SPOOL_MAGIC, ml)
                || !valid_kind (l + ml, ll - ml)) {
                ms_err (errp, MS_ERR_INPUT,
                        "%s:1: not a metasched spool record "
                        "(expected '" SPOOL_MAGIC "KIND')",
                        name);
                goto fail;
            }
            memcpy (r->kind, l + ml, ll - ml);
            r->kind[ll - ml] = '\0';
            continue;
        }
        if (ll == 3 && !memcmp (l, "end", 3)) {
            ended = true;
            continue;
        }
        if (!(eq = memchr (l, '=', ll)) || !valid_key (l, (size_t)(eq - l))) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: expected key=value", name,
                    line);
            goto fail;
        }
        {
            size_t kl = (size_t)(eq - l), vl = ll - kl - 1;
            char key[65], *val;
            memcpy (key, l, kl);
            key[kl] = '\0';
            if (vl > SPOOL_MAX_VALUE) {
                ms_err (errp, MS_ERR_INPUT, "%s:%d: %s: value longer than %d",
                        name, line, key, SPOOL_MAX_VALUE);
                goto fail;
            }
            for (size_t i = 0; i < vl; i++) {
                unsigned char c = (unsigned char)eq[1 + i];
                if (c < 0x20 || c > 0x7e) {
                    ms_err (errp, MS_ERR_INPUT,
                            "%s:%d: %s: control or non-ASCII byte in value",
                            name, line, key);
                    goto fail;
                }
            }
            if (find (r, key) >= 0) {
                ms_err (errp, MS_ERR_INPUT, "%s:%d: %s given twice", name,
                        line, key);
                goto fail;
            }
            if (r->n >= SPOOL_MAX_KEYS) {
                ms_err (errp, MS_ERR_INPUT, "%s:%d: more than %d keys", name,
                        line, SPOOL_MAX_KEYS);
                goto fail;
            }
            val = ms_xmalloc (vl + 1);
            memcpy (val, eq + 1, vl);
            val[vl] = '\0';
            spool_rec_set (r, key, val);
            free (val);
        }
    }
    if (line == 0) {
        ms_err (errp, MS_ERR_INPUT, "%s: empty", name);
        goto fail;
    }
    if (!ended) {
        ms_err (errp, MS_ERR_INPUT, "%s: no 'end' line (cut?)", name);
        goto fail;
    }
    *rp = r;
    return 0;
fail:
    spool_rec_free (r);
    return -1;
}

int
spool_write (const char *dir, const char *file, const spool_rec_t *r,
             mode_t mode, ms_error_t *errp)
{
    char tmp[1024], path[1024];
    size_t len, off = 0;
    char *text;
    int fd, dfd;

    if (strchr (file, '/') || file[0] == '.')
        return ms_err (errp, MS_ERR_INPUT, "spool file name '%s'", file);
    snprintf (path, sizeof (path), "%s/%s", dir, file);
    snprintf (tmp, sizeof (tmp), "%s/.%s.%ld.tmp", dir, file, (long)getpid ());
    fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
               mode);
    if (fd < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", tmp, strerror (errno));
    text = spool_rec_format (r, &len);
    while (off < len) {
        ssize_t n = write (fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            free (text);
            close (fd);
            unlink (tmp);
            return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", tmp, strerror (e));
        }
        off += (size_t)n;
    }
    free (text);
    if (fchmod (fd, mode) < 0 || fsync (fd) < 0) {
        int e = errno;
        close (fd);
        unlink (tmp);
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", tmp, strerror (e));
    }
    close (fd);
    if (rename (tmp, path) < 0) {
        int e = errno;
        unlink (tmp);
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
    }
    /* make the rename itself durable */
    if ((dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync (dfd);
        close (dfd);
    }
    return 0;
}

int
spool_read (const char *path, const char *want_kind, spool_rec_t **rp,
            ms_error_t *errp)
{
    char buf[SPOOL_MAX_BYTES + 1];
    size_t len = 0;
    int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;

    if (fd < 0) {
        int e = errno;
        ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        if (errp)
            errp->sys_errno = e;
        return -1;
    }
    if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)) {
        close (fd);
        return ms_err (errp, MS_ERR_INPUT, "%s: not a regular file", path);
    }
    for (;;) {
        ssize_t n = read (fd, buf + len, sizeof (buf) - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close (fd);
            return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > SPOOL_MAX_BYTES) {
            close (fd);
            return ms_err (errp, MS_ERR_INPUT, "%s: larger than %d bytes",
                           path, SPOOL_MAX_BYTES);
        }
    }
    close (fd);
    if (spool_rec_parse (buf, len, path, rp, errp) < 0)
        return -1;
    if (want_kind && strcmp ((*rp)->kind, want_kind)) {
        ms_err (errp, MS_ERR_INPUT, "%s: a '%s' record, expected '%s'", path,
                (*rp)->kind, want_kind);
        spool_rec_free (*rp);
        *rp = NULL;
        return -1;
    }
    return 0;
}

static int
cmp_str (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

int
spool_list (const char *dir, const char *prefix, const char *suffix,
            char ***namesp, size_t *np, ms_error_t *errp)
{
    DIR *d = opendir (dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0, pl = prefix ? strlen (prefix) : 0,
           sl = suffix ? strlen (suffix) : 0;

    if (!d)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", dir, strerror (errno));
    while ((de = readdir (d))) {
        size_t l = strlen (de->d_name);
        if (de->d_name[0] == '.' || l < pl + sl
            || (pl && strncmp (de->d_name, prefix, pl))
            || (sl && strcmp (de->d_name + l - sl, suffix)))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = ms_xrealloc (names, cap * sizeof (char *));
        }
        names[n++] = ms_xstrdup (de->d_name);
    }
    closedir (d);
    if (n)
        qsort (names, n, sizeof (char *), cmp_str);
    *namesp = names;
    *np = n;
    return 0;
}

void
spool_list_free (char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (names[i]);
    free (names);
}
