/* carbon.c - the grid's carbon and price signals and each candidate's
 * carbon and cost (see carbon.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/util.h"
#include "metasched/core/carbon.h"

#define CSV_MAX_COLS 64

void
carbon_init (ms_carbon_t *cb)
{
    memset (cb, 0, sizeof (*cb));
    cb->stale_s = MS_CARBON_STALE_S;
}

void
carbon_free (ms_carbon_t *cb)
{
    for (size_t i = 0; i < cb->nz; i++) {
        free (cb->z[i].g);
        free (cb->z[i].price);
    }
    free (cb->z);
    free (cb->cluster);
    free (cb->czone);
    carbon_init (cb);
}

bool
carbon_parse_time (const char *s, double *tp)
{
    struct tm tm;
    int y, mo, d, h, mi, sec, n = 0;
    time_t t;

    if (sscanf (s, "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &n) != 5)
        return false;
    sec = 0;
    if (s[n] == ':') {
        int m = 0;
        if (sscanf (s + n, ":%2d%n", &sec, &m) != 1 || m != 3)
            return false;
        n += m;
    }
    if ((s[n] && strcmp (s + n, "Z") != 0) || mo < 1 || mo > 12 || d < 1
        || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970 || h < 0
        || mi < 0 || sec < 0)
        return false;
    memset (&tm, 0, sizeof (tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    t = timegm (&tm);
    if (t == (time_t)-1)
        return false;
    *tp = (double)t;
    return true;
}

/* Split line at commas in place; returns the number of fields (at most
 * max; one more when there are more). */
static size_t
csv_split (char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;

    for (;;) {
        char *c = strchr (p, ',');
        if (n == max)
            return max + 1;
        f[n++] = p;
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    for (size_t i = 0; i < n; i++)
        f[i] = ms_strtrim (f[i]);
    return n;
}

/* A value of field name at path:line: a number >= 0, or empty (NAN). */
static int
csv_value (const char *path, size_t line, const char *name, const char *s,
           double *vp, ms_error_t *errp)
{
    char *end;
    double v;

    if (!*s) {
        *vp = NAN;
        return 0;
    }
    errno = 0;
    v = strtod (s, &end);
    if (*end || errno || !isfinite (v) || v < 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%zu: %s: bad value '%.32s' (a number >= 0, or "
                       "empty for a missing value)",
                       path, line, name, s);
    *vp = v;
    return 0;
}

/* The columns of the header row: time_utc, gco2eq_per_kwh, price_per_mwh
 * (SIZE_MAX: absent). */
static int
csv_header (const char *path, char *line, size_t *ct, size_t *cg, size_t *cp,
            size_t *ncols, ms_error_t *errp)
{
    char *f[CSV_MAX_COLS];
    size_t n = csv_split (line, f, CSV_MAX_COLS);

    if (n > CSV_MAX_COLS)
        return ms_err (errp, MS_ERR_INPUT, "%s:1: more than %d columns", path,
                       CSV_MAX_COLS);
    *ct = *cg = *cp = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t *c = !strcmp (f[i], "time_utc")         ? ct
                    : !strcmp (f[i], "gco2eq_per_kwh") ? cg
                    : !strcmp (f[i], "price_per_mwh")  ? cp
                                                       : NULL;
        if (c && *c != SIZE_MAX)
            return ms_err (errp, MS_ERR_INPUT, "%s:1: column '%s' twice", path,
                           f[i]);
        if (c)
            *c = i;
    }
    if (*ct == SIZE_MAX || *cg == SIZE_MAX)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:1: the header names no '%s' column", path,
                       *ct == SIZE_MAX ? "time_utc" : "gco2eq_per_kwh");
    *ncols = n;
    return 0;
}

/* Put the value of step k (t) into s, growing it; steps skipped stay
 * missing. */
static void
sig_put (ms_csig_t *s, size_t *cap, size_t k, double g, double price,
         bool has_price)
{
    if (k >= *cap) {
        size_t nc = *cap ? *cap : 256;
        while (nc <= k)
            nc *= 2;
        s->g = ms_xrealloc (s->g, nc * sizeof (double));
        if (has_price)
            s->price = ms_xrealloc (s->price, nc * sizeof (double));
        for (size_t i = *cap; i < nc; i++) {
            s->g[i] = NAN;
            if (has_price)
                s->price[i] = NAN;
        }
        *cap = nc;
    }
    s->g[k] = g;
    if (has_price)
        s->price[k] = price;
    if (k + 1 > s->n)
        s->n = k + 1;
}

/* One data row of the CSV into s. */
static int
csv_row (const char *path, size_t ln, char *line, size_t ncols, size_t ct,
         size_t cg, size_t cp, ms_csig_t *s, size_t *cap, double *tprev,
         ms_error_t *errp)
{
    char *f[CSV_MAX_COLS], where[sizeof (errp->text)];
    size_t n = csv_split (line, f, CSV_MAX_COLS);
    double t, g, price = NAN;

    if (n != ncols)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%zu: %zu fields where the header has %zu", path, ln,
                       n > CSV_MAX_COLS ? (size_t)CSV_MAX_COLS + 1 : n, ncols);
    if (!carbon_parse_time (f[ct], &t))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%zu: time_utc: bad time '%.32s' (ISO 8601 UTC, "
                       "2022-01-01T00:00:00Z)",
                       path, ln, f[ct]);
    if (csv_value (path, ln, "gco2eq_per_kwh", f[cg], &g, errp) < 0
        || (cp != SIZE_MAX
            && csv_value (path, ln, "price_per_mwh", f[cp], &price, errp) < 0))
        return -1;
    snprintf (where, sizeof (where), "%s:%zu: time_utc", path, ln);
    return carbon_point (s, cap, t, tprev, g, price, cp != SIZE_MAX, where,
                         "row", errp);
}

int
carbon_check_zone (const ms_carbon_t *cb, const char *zone, const char *name,
                   ms_error_t *errp)
{
    if (!*zone || strlen (zone) >= MS_NAME_MAX)
        return ms_err (errp, MS_ERR_INPUT, "%s: bad zone name '%.64s'", name,
                       zone);
    for (size_t i = 0; i < cb->nz; i++)
        if (!strcmp (cb->z[i].zone, zone))
            return ms_err (errp, MS_ERR_INPUT, "%s: zone '%s' given twice",
                           name, zone);
    return 0;
}

void
carbon_add (ms_carbon_t *cb, ms_csig_t *s)
{
    cb->z = ms_xrealloc (cb->z, (cb->nz + 1) * sizeof (*cb->z));
    cb->z[cb->nz++] = *s;
    if (cb->nz == 1)
        cb->epoch = s->t0;
    memset (s, 0, sizeof (*s));
}

int
carbon_keep (ms_carbon_t *cb, ms_csig_t *s, int rc)
{
    if (rc < 0) {
        free (s->g);
        free (s->price);
        return -1;
    }
    carbon_add (cb, s);
    return 0;
}

int
carbon_point (ms_csig_t *s, size_t *cap, double t, double *tprev, double g,
              double price, bool has_price, const char *where, const char *what,
              ms_error_t *errp)
{
    double k;

    if (*tprev < 0) {
        /* the first point: the signal's start */
        s->t0 = t;
        *tprev = t;
        sig_put (s, cap, 0, g, price, has_price);
        return 0;
    }
    if (!(t > *tprev))
        return ms_err (errp, MS_ERR_INPUT, "%s: not after the %s before", where,
                       what);
    /* the second point: the step */
    if (!(s->step > 0))
        s->step = t - *tprev;
    k = (t - s->t0) / s->step;
    if (k != floor (k))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: not a whole number of steps (%g s) after the "
                       "first %s",
                       where, s->step, what);
    if (k >= MS_CARBON_MAX_STEPS)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: more than %d steps (%g s) after the first %s",
                       where, MS_CARBON_MAX_STEPS, s->step, what);
    *tprev = t;
    sig_put (s, cap, (size_t)k, g, price, has_price);
    return 0;
}

int
carbon_parse_csv (ms_carbon_t *cb, const char *zone, const char *path,
                  char *buf, ms_error_t *errp)
{
    char *line, *next;
    size_t ln = 0, ct, cg, cp, ncols = 0, cap = 0;
    double tprev = -1;
    ms_csig_t s;
    int rc = 0;

    if (carbon_check_zone (cb, zone, path, errp) < 0)
        return -1;
    memset (&s, 0, sizeof (s));
    ms_strlcpy (s.zone, zone, sizeof (s.zone));
    for (line = buf; line && rc == 0; line = next) {
        next = strchr (line, '\n');
        if (next)
            *next++ = '\0';
        ln++;
        if (line[0] && line[strlen (line) - 1] == '\r')
            line[strlen (line) - 1] = '\0';
        if (ln == 1)
            rc = csv_header (path, line, &ct, &cg, &cp, &ncols, errp);
        else if (*line)
            rc = csv_row (path, ln, line, ncols, ct, cg, cp, &s, &cap, &tprev,
                          errp);
    }
    if (rc == 0 && s.n < 2)
        rc = ms_err (errp, MS_ERR_INPUT, "%s: fewer than two rows of data",
                     path);
    return carbon_keep (cb, &s, rc);
}

int
carbon_read_text (const ms_carbon_t *cb, const char *zone, const char *path,
                  char **bufp, size_t *lenp, ms_error_t *errp)
{
    if (carbon_check_zone (cb, zone, path, errp) < 0)
        return -1;
    return ms_read_file (path, MS_CARBON_MAX_BYTES, bufp, lenp, errp);
}

int
carbon_read_csv (ms_carbon_t *cb, const char *zone, const char *path,
                 ms_error_t *errp)
{
    char *buf;
    size_t len;
    int rc;

    if (carbon_read_text (cb, zone, path, &buf, &len, errp) < 0)
        return -1;
    rc = carbon_parse_csv (cb, zone, path, buf, errp);
    free (buf);
    return rc;
}

int
carbon_assign (ms_carbon_t *cb, const char *cluster, const char *zone,
               ms_error_t *errp)
{
    size_t z = SIZE_MAX;

    for (size_t i = 0; i < cb->nz; i++)
        if (!strcmp (cb->z[i].zone, zone))
            z = i;
    if (z == SIZE_MAX)
        return ms_err (errp, MS_ERR_INPUT,
                       "cluster '%.64s': zone '%.64s' has no signal", cluster,
                       zone);
    if (!*cluster || strlen (cluster) >= MS_NAME_MAX)
        return ms_err (errp, MS_ERR_INPUT, "bad cluster name '%.64s'", cluster);
    for (size_t i = 0; i < cb->ncl; i++)
        if (!strcmp (cb->cluster[i], cluster)) {
            cb->czone[i] = z;
            return 0;
        }
    cb->cluster
        = ms_xrealloc (cb->cluster, (cb->ncl + 1) * sizeof (*cb->cluster));
    cb->czone = ms_xrealloc (cb->czone, (cb->ncl + 1) * sizeof (size_t));
    ms_strlcpy (cb->cluster[cb->ncl], cluster, MS_NAME_MAX);
    cb->czone[cb->ncl++] = z;
    return 0;
}

size_t
carbon_zone_of (const ms_carbon_t *cb, const char *cluster)
{
    for (size_t i = 0; i < cb->ncl; i++)
        if (!strcmp (cb->cluster[i], cluster))
            return cb->czone[i];
    return SIZE_MAX;
}

bool
carbon_over (const ms_csig_t *s, double stale_s, double t, double dur,
             double *gp, double *pp)
{
    double end = t + (dur > 0 ? dur : 0), sg = 0, sp = 0, span = 0;
    double last = s->t0 + s->n * s->step;
    size_t k;

    *gp = *pp = NAN;
    if (!(s->n > 0) || t < s->t0 || end > last + stale_s)
        return false;
    /* a zero-length run: the step it falls in */
    if (!(end > t))
        end = t + 1e-9;
    k = (size_t)floor ((t - s->t0) / s->step);
    for (double a = t; a < end; k++) {
        /* past the signal's end (within stale_s), its last step holds */
        size_t kk = k < s->n ? k : s->n - 1;
        double b = k < s->n ? s->t0 + (k + 1) * s->step : end;
        if (b > end)
            b = end;
        if (isnan (s->g[kk]))
            return false;
        sg += (b - a) * s->g[kk];
        if (s->price)
            sp += (b - a) * s->price[kk];
        span += b - a;
        a = b;
    }
    *gp = sg / span;
    *pp = s->price ? sp / span : NAN;
    return isfinite (*gp);
}

double
carbon_best_start (const ms_carbon_t *cb, size_t z, double earliest, double t,
                   double t_hi, double deadline, double delay_k, double *gp)
{
    const ms_csig_t *s = &cb->z[z];
    double best = earliest, bg, g, p, k0, g0, bv;

    if (!carbon_over (s, cb->stale_s, cb->epoch + earliest, t, &bg, &p)
        || !(deadline > 0) || earliest + t_hi > deadline || !(delay_k >= 0)
        || isinf (delay_k)) {
        *gp = bg;
        return earliest;
    }
    /* a start's value: its intensity plus its delay's price in the same
     * unit (the intensity at once, delay_k per second); delay_k 0: the
     * cleanest run */
    g0 = bv = bg;
    /* the first step boundary after earliest */
    k0 = floor ((cb->epoch + earliest - s->t0) / s->step) + 1;
    for (double k = k0 > 0 ? k0 : 0; k < k0 + MS_CARBON_SHIFT_STEPS; k++) {
        double st = s->t0 + k * s->step - cb->epoch, v;
        if (st + t_hi > deadline)
            break;
        if (!carbon_over (s, cb->stale_s, cb->epoch + st, t, &g, &p))
            continue;
        v = g + g0 * delay_k * (st - earliest);
        if (v < bv) {
            bv = v;
            bg = g;
            best = st;
        }
    }
    *gp = bg;
    return best;
}

size_t
carbon_apply (const ms_carbon_t *cb, const ms_siteconf_t *conf, double now,
              double deadline, double shift_k, ms_cands_t *cs)
{
    size_t none = 0, nocost = 0;

    for (size_t i = 0; i < cs->n; i++) {
        ms_cand_t *c = &cs->c[i];
        size_t z = carbon_zone_of (
            cb, conf->clusters[conf->parts[c->part].cluster].name);
        double g, price, kwh = c->e / 3.6e6, st;
        c->carbon_g = c->cost = NAN;
        c->shift_s = 0;
        if (z == SIZE_MAX)
            st = now + c->w;
        else
            st = carbon_best_start (
                cb, z, now + c->w, c->t, c->t_hi, deadline,
                shift_k > 0
                    ? shift_k / (deadline - now > 1 ? deadline - now : 1)
                    : 0,
                &g);
        if (z == SIZE_MAX
            || !carbon_over (&cb->z[z], cb->stale_s, cb->epoch + st, c->t, &g,
                             &price)) {
            none++;
            nocost++;
            continue;
        }
        c->shift_s = st - (now + c->w);
        c->carbon_g = kwh * g;
        /* $/MWh: kWh / 1000 MWh */
        c->cost = kwh / 1000 * price;
        if (isnan (c->cost))
            nocost++;
    }
    cs->carbon = cs->n > 0 && none == 0;
    cs->cost = cs->n > 0 && nocost == 0;
    return none;
}
