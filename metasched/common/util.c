/* util.c - small helpers shared by every part of metasched. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "metasched/common/util.h"

/* Read what is left of fd into a NUL-terminated buffer (path names it in
 * errors); closes fd. */
static int
read_fd (int fd, const char *path, size_t maxlen, char **bufp, size_t *lenp,
         ms_error_t *errp)
{
    struct stat st;
    char *buf;
    size_t len = 0, cap;

    if (fstat (fd, &st) < 0 || S_ISDIR (st.st_mode)) {
        close (fd);
        return ms_err (errp, MS_ERR_INPUT, "%s: not a regular file", path);
    }
    cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
    if (cap > maxlen + 1)
        cap = maxlen + 1;
    buf = ms_xmalloc (cap);
    for (;;) {
        ssize_t n;
        if (len + 1 >= cap) {
            if (cap > maxlen) {
                free (buf);
                close (fd);
                return ms_err (errp, MS_ERR_INPUT,
                               "%s: larger than the limit of %zu bytes", path,
                               maxlen);
            }
            cap = cap * 2 > maxlen + 1 ? maxlen + 1 : cap * 2;
            buf = ms_xrealloc (buf, cap);
        }
        n = read (fd, buf + len, cap - len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free (buf);
            close (fd);
            return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close (fd);
    buf[len] = '\0';
    *bufp = buf;
    if (lenp)
        *lenp = len;
    return 0;
}

int
ms_read_file (const char *path, size_t maxlen, char **bufp, size_t *lenp,
              ms_error_t *errp)
{
    int fd;

    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0) {
        int e = errno;
        ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        if (errp)
            errp->sys_errno = e;
        return -1;
    }
    return read_fd (fd, path, maxlen, bufp, lenp, errp);
}

int
ms_parse_file (const char *path, size_t maxlen, ms_text_fn *parse, void *arg,
               ms_error_t *errp)
{
    char *text;
    size_t len;
    int rc;

    if (ms_read_file (path, maxlen, &text, &len, errp) < 0)
        return -1;
    rc = parse (text, len, path, arg, errp);
    free (text);
    return rc;
}

/* The name of uid, or "no name" (for messages). */
static void
uid_text (uid_t uid, char *buf, size_t size)
{
    struct passwd pw, *pwp = NULL;
    char tmp[4096];

    if (getpwuid_r (uid, &pw, tmp, sizeof (tmp), &pwp) == 0 && pwp)
        snprintf (buf, size, "uid %u, %s", (unsigned)uid, pwp->pw_name);
    else
        snprintf (buf, size, "uid %u, no name", (unsigned)uid);
}

int
ms_open_secret_file (const char *path, int *fdp, ms_error_t *errp)
{
    struct stat st;
    int fd, e;
    char who[128], me[128];

    /* the file itself, never what a link points at; O_NONBLOCK: a FIFO
     * put in its place does not hang the open (and is refused below) */
    fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        e = errno;
        if (e == ELOOP)
            return ms_err (errp, MS_ERR_AUTH,
                           "%s: a symbolic link; a secret file must be "
                           "named as itself, not through a link",
                           path);
        ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        if (errp)
            errp->sys_errno = e;
        return -1;
    }
    if (fstat (fd, &st) < 0) {
        e = errno;
        close (fd);
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
    }
    if (!S_ISREG (st.st_mode)) {
        close (fd);
        return ms_err (errp, MS_ERR_AUTH,
                       "%s: not a regular file; a secret file must be one",
                       path);
    }
    if (st.st_uid != 0 && st.st_uid != geteuid ()) {
        close (fd);
        uid_text (st.st_uid, who, sizeof (who));
        uid_text (geteuid (), me, sizeof (me));
        return ms_err (errp, MS_ERR_AUTH,
                       "%s: owned by %s; a secret file must be owned by "
                       "root or by the user this program runs as (%s)",
                       path, who, me);
    }
    if (st.st_mode & 077) {
        close (fd);
        return ms_err (errp, MS_ERR_AUTH,
                       "%s has mode %04o; a secret file must be 0600 or "
                       "0400, no access for group or others (chmod 600 %s)",
                       path, (unsigned)(st.st_mode & 07777), path);
    }
    *fdp = fd;
    return 0;
}

int
ms_check_secret_file (const char *path, ms_error_t *errp)
{
    int fd;

    if (ms_open_secret_file (path, &fd, errp) < 0)
        return -1;
    close (fd);
    return 0;
}

int
ms_read_secret_file (const char *path, char **secretp, ms_error_t *errp)
{
    char *buf;
    size_t len;
    int fd;

    if (ms_open_secret_file (path, &fd, errp) < 0)
        return -1;
    if (read_fd (fd, path, 64 * 1024, &buf, &len, errp) < 0)
        return -1;
    while (len > 0 && isspace ((unsigned char)buf[len - 1]))
        buf[--len] = '\0';
    if (len == 0) {
        free (buf);
        return ms_err (errp, MS_ERR_INPUT, "%s: secret file is empty", path);
    }
    *secretp = buf;
    return 0;
}

size_t
ms_strlcpy (char *dst, const char *src, size_t size)
{
    size_t n = strlen (src);
    if (size > 0) {
        size_t c = n < size - 1 ? n : size - 1;
        memcpy (dst, src, c);
        dst[c] = '\0';
    }
    return n;
}

size_t
ms_prefix_ll (char *dst, size_t size, const char *prefix, long long v)
{
    char dig[24];
    size_t n = strlen (prefix), k = sizeof (dig), nd;
    /* the magnitude as unsigned: -LLONG_MIN has no long long */
    unsigned long long u
        = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    /* two digits a division: the simulator names each job twice */
    static const char pairs[] = "00010203040506070809"
                                "10111213141516171819"
                                "20212223242526272829"
                                "30313233343536373839"
                                "40414243444546474849"
                                "50515253545556575859"
                                "60616263646566676869"
                                "70717273747576777879"
                                "80818283848586878889"
                                "90919293949596979899";

    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        k -= 2;
        memcpy (dig + k, pairs + 2 * r, 2);
    }
    if (u >= 10) {
        k -= 2;
        memcpy (dig + k, pairs + 2 * u, 2);
    } else
        dig[--k] = (char)('0' + u);
    if (v < 0)
        dig[--k] = '-';
    nd = sizeof (dig) - k;
    if (size > 0) {
        size_t cp = n < size - 1 ? n : size - 1;
        size_t cd = nd < size - 1 - cp ? nd : size - 1 - cp;
        memcpy (dst, prefix, cp);
        memcpy (dst + cp, dig + k, cd);
        dst[cp + cd] = '\0';
    }
    return n + nd;
}

char *
ms_strtrim (char *s)
{
    char *e;
    while (isspace ((unsigned char)*s))
        s++;
    e = s + strlen (s);
    while (e > s && isspace ((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static void
oom (void)
{
    fputs ("metasched: out of memory\n", stderr);
    abort ();
}

void *
ms_xmalloc (size_t n)
{
    void *p = malloc (n ? n : 1);
    if (!p)
        oom ();
    return p;
}

void *
ms_xcalloc (size_t n, size_t size)
{
    void *p = calloc (n ? n : 1, size ? size : 1);
    if (!p)
        oom ();
    return p;
}

void *
ms_xrealloc (void *p, size_t n)
{
    void *q = realloc (p, n ? n : 1);
    if (!q)
        oom ();
    return q;
}

char *
ms_xstrdup (const char *s)
{
    char *p = strdup (s ? s : "");
    if (!p)
        oom ();
    return p;
}

size_t
ms_buf_write (char *ptr, size_t size, size_t nmemb, void *arg)
{
    ms_buf_t *b = arg;
    size_t n = size * nmemb;

    if (b->len + n > b->max) {
        b->overflow = 1;
        return 0;
    }
    b->data = ms_xrealloc (b->data, b->len + n + 1);
    memcpy (b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

double
ms_mono_s (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long
ms_unit_seconds (char c)
{
    switch (c) {
    case 's':
        return 1;
    case 'm':
        return 60;
    case 'h':
        return 3600;
    case 'd':
        return 86400;
    default:
        return 0;
    }
}
