/* rapl.c - package and DRAM energy through the Linux powercap sysfs. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/rapl.h"
#include "metasched/common/util.h"

struct rapl {
    char root[512];
    rapl_zone_t zones[RAPL_MAX_ZONES];
    size_t nzones;
    double max_power_w[RAPL_MAX_ZONES]; /* constraint_0_max_power_uw, 0: none */
};

const char *
rapl_hint_unreadable (void)
{
    return "since Linux 5.10 energy_uj is readable by root only; run the "
           "node side (prolog/epilog) as root, or grant read access to a "
           "group, e.g. a udev rule or a boot-time `chgrp powercap "
           "/sys/class/powercap/intel-rapl:*/energy_uj "
           "/sys/class/powercap/intel-rapl:*/*/energy_uj && chmod g+r ...`";
}

int
rapl_parse_u64 (const char *text, size_t len, const char *what, uint64_t *v,
                ms_error_t *errp)
{
    uint64_t x = 0;
    size_t i = 0;

    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    if (len == 0)
        return ms_err (errp, MS_ERR_INPUT, "%s: empty", what);
    if (len > 20)
        return ms_err (errp, MS_ERR_INPUT, "%s: not a counter (%zu bytes)",
                       what, len);
    for (i = 0; i < len; i++) {
        unsigned d;
        if (!isdigit ((unsigned char)text[i]))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s: not a decimal counter (byte %zu is 0x%02x)",
                           what, i + 1, (unsigned char)text[i]);
        d = (unsigned)(text[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return ms_err (errp, MS_ERR_INPUT, "%s: counter out of range",
                           what);
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* Read a small sysfs file into buf (NUL-terminated). */
static int
read_small (const char *path, char *buf, size_t size, ms_error_t *errp)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    ssize_t n;

    if (fd < 0) {
        int e = errno;
        ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        if (errp)
            errp->sys_errno = e;
        return -1;
    }
    do
        n = read (fd, buf, size - 1);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        int e = errno;
        close (fd);
        ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (e));
        if (errp)
            errp->sys_errno = e;
        return -1;
    }
    close (fd);
    buf[n] = '\0';
    return (int)n;
}

static int
read_u64 (const char *dir, const char *file, uint64_t *v, ms_error_t *errp)
{
    char path[600], buf[64];
    int n;

    snprintf (path, sizeof (path), "%s/%s", dir, file);
    if ((n = read_small (path, buf, sizeof (buf), errp)) < 0)
        return -1;
    return rapl_parse_u64 (buf, (size_t)n, path, v, errp);
}

static int
read_name (const char *dir, char *name, size_t size, ms_error_t *errp)
{
    char path[600];
    int n;

    snprintf (path, sizeof (path), "%s/name", dir);
    if ((n = read_small (path, name, size, errp)) < 0)
        return -1;
    ms_strtrim (name);
    for (char *p = name; *p; p++)
        if (!isprint ((unsigned char)*p))
            return ms_err (errp, MS_ERR_INPUT, "%s: not a zone name", path);
    return 0;
}

/* "intel-rapl:N" -> N, or "intel-rapl:N:M" -> N and sub = M; -1 if neither. */
static int
zone_index (const char *d, int *pkg, int *sub)
{
    char *end;
    long n, m = -1;

    if (strncmp (d, "intel-rapl:", 11) || !isdigit ((unsigned char)d[11]))
        return -1;
    n = strtol (d + 11, &end, 10);
    if (*end == ':') {
        if (!isdigit ((unsigned char)end[1]))
            return -1;
        m = strtol (end + 1, &end, 10);
    }
    if (*end || n > 1024 || m > 1024)
        return -1;
    *pkg = (int)n;
    *sub = (int)m;
    return 0;
}

static void
add_zone (rapl_t *r, const char *dir, const char *name, rapl_kind_t kind,
          int pkg)
{
    rapl_zone_t *z;
    ms_error_t err;
    uint64_t v, pw;

    if (r->nzones >= RAPL_MAX_ZONES)
        return;
    z = &r->zones[r->nzones];
    memset (z, 0, sizeof (*z));
    ms_strlcpy (z->path, dir, sizeof (z->path));
    ms_strlcpy (z->name, name, sizeof (z->name));
    z->kind = kind;
    z->package = pkg;
    if (read_u64 (dir, "max_energy_range_uj", &z->max_range_uj, &err) < 0
        || z->max_range_uj == 0) {
        /* without a range a wrap cannot be undone: treat as unusable */
        snprintf (z->error, sizeof (z->error), "%.250s",
                  z->max_range_uj == 0 && !err.text[0]
                      ? "max_energy_range_uj is 0"
                      : err.text);
        z->readable = false;
    } else if (read_u64 (dir, "energy_uj", &v, &err) < 0) {
        z->readable = false;
        if (err.kind == MS_ERR_SYSTEM
            && (err.sys_errno == EACCES || err.sys_errno == EPERM))
            snprintf (z->error, sizeof (z->error),
                      "%.200s (energy_uj is root-only since Linux 5.10)",
                      err.text);
        else
            ms_strlcpy (z->error, err.text, sizeof (z->error));
    } else
        z->readable = true;
    r->max_power_w[r->nzones] = 0;
    if (read_u64 (dir, "constraint_0_max_power_uw", &pw, NULL) == 0)
        r->max_power_w[r->nzones] = (double)pw / 1e6;
    r->nzones++;
}

static int
cmp_zone (const void *a, const void *b)
{
    const rapl_zone_t *x = a, *y = b;
    if (x->package != y->package)
        return x->package < y->package ? -1 : 1;
    return (int)x->kind - (int)y->kind;
}

int
rapl_open (const char *root, rapl_t **rp, ms_error_t *errp)
{
    rapl_t *r;
    DIR *d;
    struct dirent *de;
    size_t npkg = 0;

    if (!root || !*root)
        root = RAPL_DEFAULT_ROOT;
    if (!(d = opendir (root)))
        return ms_err (errp, MS_ERR_SYSTEM,
                       "powercap root %s: %s (no RAPL on this machine?)", root,
                       strerror (errno));
    r = ms_xcalloc (1, sizeof (*r));
    ms_strlcpy (r->root, root, sizeof (r->root));
    while ((de = readdir (d))) {
        char dir[600], name[32];
        int pkg, sub;
        DIR *sd;
        struct dirent *se;

        if (zone_index (de->d_name, &pkg, &sub) < 0 || sub >= 0)
            continue;
        snprintf (dir, sizeof (dir), "%s/%s", root, de->d_name);
        if (read_name (dir, name, sizeof (name), NULL) < 0
            || strncmp (name, "package-", 8))
            continue; /* psys and others are not per package */
        add_zone (r, dir, name, RAPL_PACKAGE, pkg);
        npkg++;
        /* its DRAM sub-zone, if the platform has one */
        if (!(sd = opendir (dir)))
            continue;
        while ((se = readdir (sd))) {
            char sdir[900], sname[32];
            int p2, s2;
            if (zone_index (se->d_name, &p2, &s2) < 0 || s2 < 0 || p2 != pkg)
                continue;
            snprintf (sdir, sizeof (sdir), "%s/%s", dir, se->d_name);
            if (read_name (sdir, sname, sizeof (sname), NULL) == 0
                && !strcmp (sname, "dram"))
                add_zone (r, sdir, sname, RAPL_DRAM, pkg);
        }
        closedir (sd);
    }
    closedir (d);
    if (npkg == 0) {
        free (r);
        return ms_err (errp, MS_ERR_MISSING,
                       "powercap root %s: no RAPL package zone "
                       "(intel-rapl:N named package-N)",
                       root);
    }
    /* keep the max_power_w entries aligned with the sorted zones */
    {
        struct {
            rapl_zone_t z;
            double w;
        } tmp[RAPL_MAX_ZONES];
        memset (tmp, 0, sizeof (tmp));
        for (size_t i = 0; i < r->nzones; i++)
            tmp[i].z = r->zones[i], tmp[i].w = r->max_power_w[i];
        qsort (tmp, r->nzones, sizeof (tmp[0]), cmp_zone);
        for (size_t i = 0; i < r->nzones; i++)
            r->zones[i] = tmp[i].z, r->max_power_w[i] = tmp[i].w;
    }
    *rp = r;
    return 0;
}

void
rapl_close (rapl_t *r)
{
    free (r);
}

size_t
rapl_nzones (const rapl_t *r)
{
    return r->nzones;
}

const rapl_zone_t *
rapl_zone (const rapl_t *r, size_t i)
{
    return i < r->nzones ? &r->zones[i] : NULL;
}

bool
rapl_any_unreadable (const rapl_t *r)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!r->zones[i].readable)
            return true;
    return false;
}

int
rapl_read (rapl_t *r, rapl_sample_t *s, ms_error_t *errp)
{
    struct timespec ts;
    int nread = 0;
    ms_error_t first;

    ms_err_clear (&first);
    clock_gettime (CLOCK_REALTIME, &ts);
    memset (s, 0, sizeof (*s));
    s->time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    for (size_t i = 0; i < r->nzones; i++) {
        ms_error_t e;
        if (read_u64 (r->zones[i].path, "energy_uj", &s->uj[i], &e) < 0) {
            if (!first.kind)
                first = e;
            continue;
        }
        if (s->uj[i] > r->zones[i].max_range_uj) {
            if (!first.kind)
                ms_err (&first, MS_ERR_INPUT,
                        "%s/energy_uj: %llu is above max_energy_range_uj "
                        "%llu",
                        r->zones[i].path, (unsigned long long)s->uj[i],
                        (unsigned long long)r->zones[i].max_range_uj);
            continue;
        }
        s->ok[i] = true;
        nread++;
    }
    if (nread == 0) {
        if (errp)
            *errp = first;
        return -1;
    }
    return nread;
}

uint64_t
rapl_delta (uint64_t before, uint64_t after, uint64_t max_range)
{
    if (after >= before)
        return after - before;
    /* wrapped once: the counter went up to max_range, then from 0 */
    if (before > max_range)
        return after;
    return (max_range - before) + after;
}

double
rapl_interval_watts (const rapl_t *r, const rapl_sample_t *a,
                     const rapl_sample_t *b)
{
    double uj = 0, dt = b->time - a->time;
    bool any = false;

    if (!(dt > 0))
        return -1;
    for (size_t i = 0; i < r->nzones; i++) {
        if (!a->ok[i] || !b->ok[i])
            continue;
        uj += (double)rapl_delta (a->uj[i], b->uj[i], r->zones[i].max_range_uj);
        any = true;
    }
    return any ? uj / 1e6 / dt : -1;
}

double
rapl_sample_interval (uint64_t max_range_uj, double max_power_w)
{
    double t;

    if (max_power_w <= 0)
        max_power_w = 1000; /* no limit known: a generous socket */
    t = (double)max_range_uj / 1e6 / max_power_w / 2;
    if (t < 0.05)
        t = 0.05;
    if (t > 3600)
        t = 3600;
    return t;
}

double
rapl_min_interval (const rapl_t *r, double max_power_w)
{
    double best = 3600;

    for (size_t i = 0; i < r->nzones; i++) {
        double w = r->max_power_w[i] > 0 ? r->max_power_w[i] : max_power_w;
        double t = rapl_sample_interval (r->zones[i].max_range_uj, w);
        if (t < best)
            best = t;
    }
    return best;
}

void
rapl_accum_start (rapl_accum_t *a, const rapl_t *r, const rapl_sample_t *s)
{
    memset (a, 0, sizeof (*a));
    a->first = *s;
    a->last = *s;
    for (size_t i = 0; i < r->nzones; i++)
        a->valid[i] = s->ok[i];
}

void
rapl_accum_add (rapl_accum_t *a, const rapl_t *r, const rapl_sample_t *s)
{
    for (size_t i = 0; i < r->nzones; i++) {
        if (!a->valid[i])
            continue;
        if (!s->ok[i]) {
            /* a missed reading: keep the last one and go on; the next delta
             * still spans at most one wrap if sampling keeps up */
            continue;
        }
        if (s->uj[i] < a->last.uj[i])
            a->wraps[i]++;
        a->total_uj[i] += (double)rapl_delta (a->last.uj[i], s->uj[i],
                                              r->zones[i].max_range_uj);
        a->last.uj[i] = s->uj[i];
    }
    a->last.time = s->time;
}

void
rapl_accum_energy (const rapl_accum_t *a, const rapl_t *r, double *pkg_j,
                   double *dram_j)
{
    double pkg = 0, dram = 0;
    bool any_pkg = false, any_dram = false;

    for (size_t i = 0; i < r->nzones; i++) {
        if (!a->valid[i])
            continue;
        if (r->zones[i].kind == RAPL_PACKAGE)
            pkg += a->total_uj[i] / 1e6, any_pkg = true;
        else
            dram += a->total_uj[i] / 1e6, any_dram = true;
    }
    *pkg_j = any_pkg ? pkg : -1;
    *dram_j = any_dram ? dram : -1;
}
