/* power.c - power budgets and the rule that keeps the predicted power
 * under them (see power.h). */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/core/power.h"
#include "metasched/common/util.h"

#define DAY 86400.0

/* ---- the text form ---- */

typedef struct {
    const char *origin;
    unsigned line;
    const char *entry;
    ms_error_t *errp;
} place_t;

static int bad (const place_t *pl, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static int
bad (const place_t *pl, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    return ms_err (pl->errp, MS_ERR_INPUT, "%s:%u: '%s': %s", pl->origin,
                   pl->line, pl->entry, msg);
}

/* "600", "600kW", with the unit in the next token ("600 kW") when *next
 * names one (then *used is set). */
static int
parse_watts (const place_t *pl, const char *tok, const char *next, bool *used,
             double *out)
{
    char *end;
    const char *unit;
    double v, mul = 1;

    errno = 0;
    v = strtod (tok, &end);
    if (end == tok || errno || !isfinite (v))
        return bad (pl, "watts: a number with W, kW or MW, not '%s'", tok);
    unit = *end ? end : NULL;
    *used = false;
    if (!unit && next
        && (!strcasecmp (next, "w") || !strcasecmp (next, "kw")
            || !strcasecmp (next, "mw"))) {
        unit = next;
        *used = true;
    }
    if (unit) {
        if (!strcasecmp (unit, "w"))
            mul = 1;
        else if (!strcasecmp (unit, "kw"))
            mul = 1e3;
        else if (!strcasecmp (unit, "mw"))
            mul = 1e6;
        else
            return bad (pl, "watts: unknown unit '%s' (W, kW or MW)", unit);
    }
    v *= mul;
    if (!(v > 0) || v > 1e12)
        return bad (pl, "watts: more than 0 and at most 1e12 W, not '%s'", tok);
    *out = v;
    return 0;
}

/* An optional ":SS" at s + *n: its two digits into *sec and *n past it;
 * false when a ':' is not followed by two digits. */
static bool
opt_seconds (const char *s, int *n, int *sec)
{
    int n2 = 0;

    if (s[*n] != ':')
        return true;
    if (sscanf (s + *n + 1, "%2d%n", sec, &n2) != 1 || n2 != 2)
        return false;
    *n += 1 + n2;
    return true;
}

/* HH:MM[:SS] into seconds of the day (24:00 allowed as the day's end). */
static bool
parse_tod (const char *s, double *out)
{
    int h, m, sec = 0, n = 0;

    if (sscanf (s, "%2d:%2d%n", &h, &m, &n) != 2)
        return false;
    if (!opt_seconds (s, &n, &sec))
        return false;
    if (s[n] || n < 5 || h < 0 || h > 24 || m < 0 || m > 59 || sec < 0
        || sec > 59 || (h == 24 && (m || sec)))
        return false;
    *out = h * 3600.0 + m * 60.0 + sec;
    return true;
}

/* YYYY-MM-DDTHH:MM[:SS], UTC, into seconds since the epoch. */
static bool
parse_abs (const char *s, double *out)
{
    struct tm tm;
    int y, mo, d, h, mi, sec = 0, n = 0;

    if (sscanf (s, "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &n) != 5)
        return false;
    if (!opt_seconds (s, &n, &sec))
        return false;
    if (s[n] || n < 16 || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1
        || d > 31 || h > 23 || h < 0 || mi < 0 || mi > 59 || sec < 0
        || sec > 59)
        return false;
    memset (&tm, 0, sizeof (tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    *out = (double)timegm (&tm);
    /* 2026-02-31 normalizes to March: refuse it */
    {
        time_t t = (time_t)*out;
        struct tm back;
        gmtime_r (&t, &back);
        if (back.tm_mday != d || back.tm_mon != mo - 1)
            return false;
    }
    return true;
}

/* +N[s|m|h|d] after base. */
static bool
parse_rel (const char *s, double base, double *out)
{
    char *end;
    double v, mul = 1;

    if (*s != '+' || !isdigit ((unsigned char)s[1]))
        return false;
    errno = 0;
    v = strtod (s + 1, &end);
    if (errno || !isfinite (v))
        return false;
    if (*end && (end[1] || !(mul = (double)ms_unit_seconds (*end))))
        return false;
    v *= mul;
    if (v > 100 * 366 * DAY)
        return false;
    *out = base + v;
    return true;
}

/* A TIME: *daily tells which kind it was. */
static int
parse_time (const place_t *pl, const char *what, const char *s, double base,
            bool *daily, double *out)
{
    if (parse_tod (s, out)) {
        *daily = true;
        return 0;
    }
    *daily = false;
    if (parse_abs (s, out) || parse_rel (s, base, out))
        return 0;
    return bad (pl,
                "%s: HH:MM[:SS] (every day), YYYY-MM-DDTHH:MM[:SS] (UTC) "
                "or +N[s|m|h|d], not '%s'",
                what, s);
}

static int
parse_scope (const place_t *pl, const ms_siteconf_t *conf, const char *s,
             size_t *out)
{
    char names[512];
    size_t len = 0;

    if (!strcmp (s, "site")) {
        *out = MS_POWER_SITE;
        return 0;
    }
    for (size_t c = 0; c < conf->nclusters; c++)
        if (!strcmp (conf->clusters[c].name, s)) {
            *out = c;
            return 0;
        }
    names[0] = '\0';
    for (size_t c = 0; c < conf->nclusters && len + 2 < sizeof (names); c++)
        len += (size_t)snprintf (names + len, sizeof (names) - len, "%s%s",
                                 c ? ", " : "", conf->clusters[c].name);
    return bad (pl, "scope: 'site' or a cluster (%s), not '%s'", names, s);
}

#define MAX_TOKS 8

/* One entry (its text in buf, split in place). */
static int
parse_entry (const place_t *pl, const ms_siteconf_t *conf, char *buf,
             double base, ms_budget_t *b)
{
    char *tok[MAX_TOKS + 1], *save = NULL, *t;
    size_t n = 0, i = 2;
    bool used, dfrom = false, duntil = false, has_from = false,
               has_until = false;
    double from = 0, until = 0;

    for (t = strtok_r (buf, " \t", &save); t; t = strtok_r (NULL, " \t", &save))
        if (n < MAX_TOKS)
            tok[n++] = t;
        else
            return bad (pl, "too many words: SCOPE WATTS [from TIME] "
                            "[until TIME]");
    tok[n] = NULL;
    if (n < 2)
        return bad (pl, "SCOPE WATTS [from TIME] [until TIME]: no watts");
    memset (b, 0, sizeof (*b));
    b->line = pl->line;
    if (parse_scope (pl, conf, tok[0], &b->scope) < 0
        || parse_watts (pl, tok[1], tok[2], &used, &b->watts) < 0)
        return -1;
    if (used)
        i++;
    while (i < n) {
        bool isfrom = !strcmp (tok[i], "from");
        if (!isfrom && strcmp (tok[i], "until"))
            return bad (pl, "'from' or 'until' expected, not '%s'", tok[i]);
        if (i + 1 >= n)
            return bad (pl, "'%s' needs a time", tok[i]);
        if (isfrom ? has_from : has_until)
            return bad (pl, "'%s' given twice", tok[i]);
        if (isfrom) {
            if (has_until)
                return bad (pl, "'from' goes before 'until'");
            if (parse_time (pl, "from", tok[i + 1], base, &dfrom, &from) < 0)
                return -1;
            has_from = true;
        } else {
            if (parse_time (pl, "until", tok[i + 1], base, &duntil, &until) < 0)
                return -1;
            has_until = true;
        }
        i += 2;
    }
    if (!has_from && !has_until) {
        b->win = MS_BW_ALWAYS;
        return 0;
    }
    if (has_from && has_until && dfrom != duntil)
        return bad (pl, "'from' and 'until' must both be times of day or "
                        "both absolute");
    if ((has_from ? dfrom : duntil)) {
        b->win = MS_BW_DAILY;
        b->from = has_from ? from : 0;
        b->until = has_until ? until : DAY;
        if (b->from >= DAY)
            return bad (pl, "from: 24:00 is the day's end");
        if (b->until == b->from)
            return bad (pl, "an empty window: 'from' and 'until' are the "
                            "same time");
        return 0;
    }
    b->win = MS_BW_ABS;
    b->from = has_from ? from : -INFINITY;
    b->until = has_until ? until : INFINITY;
    if (!(b->until > b->from))
        return bad (pl, "'until' must come after 'from'");
    return 0;
}

int
power_budgets_parse (const char *text, const char *origin,
                     const ms_siteconf_t *conf, double base, ms_budgets_t *out,
                     ms_error_t *errp)
{
    const char *p = text;
    unsigned line = 1;
    size_t n0 = out->n;
    ms_budget_t *nb = NULL;
    size_t nn = 0;

    if (!origin)
        origin = "power budget";
    while (p && *p) {
        const char *eol = strpbrk (p, "\n;");
        size_t len = eol ? (size_t)(eol - p) : strlen (p);
        char buf[512], shown[512];
        char *hash, *s, *e;
        place_t pl = { origin, line, shown, errp };

        if (len >= sizeof (buf)) {
            snprintf (shown, sizeof (shown), "%.40s...", p);
            free (nb);
            return bad (&pl, "an entry of over %zu characters",
                        sizeof (buf) - 1);
        }
        memcpy (buf, p, len);
        buf[len] = '\0';
        if ((hash = strchr (buf, '#')))
            *hash = '\0';
        for (s = buf; isspace ((unsigned char)*s); s++)
            ;
        for (e = s + strlen (s); e > s && isspace ((unsigned char)e[-1]); e--)
            ;
        *e = '\0';
        for (char *c = s; *c; c++)
            if (*c == '\r' || *c == '\v' || *c == '\f')
                *c = ' ';
            else if (!isprint ((unsigned char)*c) && *c != '\t') {
                ms_strlcpy (shown, "?", sizeof (shown));
                free (nb);
                return bad (&pl, "a control or non-ASCII byte (0x%02x)",
                            (unsigned char)*c);
            }
        ms_strlcpy (shown, s, sizeof (shown));
        if (*s) {
            if (n0 + nn >= MS_POWER_MAX_BUDGETS) {
                free (nb);
                return bad (&pl, "over %d budgets", MS_POWER_MAX_BUDGETS);
            }
            nb = ms_xrealloc (nb, (nn + 1) * sizeof (*nb));
            if (parse_entry (&pl, conf, s, base, &nb[nn]) < 0) {
                free (nb);
                return -1;
            }
            nn++;
        }
        if (!eol)
            break;
        if (*eol == '\n')
            line++;
        p = eol + 1;
    }
    if (nn) {
        out->b = ms_xrealloc (out->b, (n0 + nn) * sizeof (*out->b));
        memcpy (out->b + n0, nb, nn * sizeof (*nb));
        out->n = n0 + nn;
    }
    free (nb);
    return 0;
}

void
power_budgets_free (ms_budgets_t *bs)
{
    free (bs->b);
    bs->b = NULL;
    bs->n = 0;
}

const char *
power_scope_name (const ms_siteconf_t *conf, size_t scope)
{
    if (scope == MS_POWER_SITE || scope >= conf->nclusters)
        return "site";
    return conf->clusters[scope].name;
}

size_t
power_scope_at (const ms_siteconf_t *conf, size_t i)
{
    return i >= conf->nclusters ? MS_POWER_SITE : i;
}

size_t
power_scope_slot (const ms_siteconf_t *conf, size_t scope)
{
    return scope >= conf->nclusters ? conf->nclusters : scope;
}

static void
fmt_tod (double s, char *buf, size_t len)
{
    long v = lround (s);
    snprintf (buf, len, "%02ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
}

void
power_budgets_format (const ms_budgets_t *bs, const ms_siteconf_t *conf,
                      char *buf, size_t len)
{
    size_t o = 0;

    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < bs->n && o + 1 < len; i++) {
        const ms_budget_t *b = &bs->b[i];
        char f[32] = "", u[32] = "";
        if (b->win == MS_BW_DAILY) {
            fmt_tod (b->from, f, sizeof (f));
            fmt_tod (b->until, u, sizeof (u));
        } else if (b->win == MS_BW_ABS) {
            if (isfinite (b->from))
                snprintf (f, sizeof (f), "+%.0f", b->from);
            if (isfinite (b->until))
                snprintf (u, sizeof (u), "+%.0f", b->until);
        }
        o += (size_t)snprintf (buf + o, len - o, "%s%s %.17gW%s%s%s%s",
                               i ? "; " : "", power_scope_name (conf, b->scope),
                               b->watts, f[0] ? " from " : "", f,
                               u[0] ? " until " : "", u);
        if (o >= len)
            o = len - 1;
    }
}

/* ---- the schedule ---- */

static double
tod (double t)
{
    double d = fmod (t, DAY);
    return d < 0 ? d + DAY : d;
}

static bool
covers (const ms_budget_t *b, double t)
{
    double d;

    switch (b->win) {
    case MS_BW_ALWAYS:
        return true;
    case MS_BW_DAILY:
        d = tod (t);
        if (b->from < b->until)
            return d >= b->from && d < b->until;
        return d >= b->from || d < b->until;
    case MS_BW_ABS:
        return t >= b->from && t < b->until;
    }
    return false;
}

double
power_budget_at (const ms_budgets_t *bs, size_t scope, double t)
{
    double w = INFINITY;

    for (size_t i = 0; i < bs->n; i++)
        if (bs->b[i].scope == scope && bs->b[i].watts < w
            && covers (&bs->b[i], t))
            w = bs->b[i].watts;
    return w;
}

/* The first time after t that is `at` seconds into a day. */
static double
next_daily (double t, double at)
{
    double day0 = t - tod (t), x = day0 + at;
    while (x <= t)
        x += DAY;
    return x;
}

double
power_budget_next (const ms_budgets_t *bs, size_t scope, double t)
{
    double next = INFINITY;

    for (size_t i = 0; i < bs->n; i++) {
        const ms_budget_t *b = &bs->b[i];
        double x[2] = { INFINITY, INFINITY };
        if (b->scope != scope)
            continue;
        if (b->win == MS_BW_DAILY) {
            x[0] = next_daily (t, b->from);
            x[1] = next_daily (t, b->until >= DAY ? 0 : b->until);
        } else if (b->win == MS_BW_ABS) {
            x[0] = b->from > t ? b->from : INFINITY;
            x[1] = b->until > t ? b->until : INFINITY;
        }
        for (int k = 0; k < 2; k++)
            if (x[k] < next)
                next = x[k];
    }
    return next;
}

bool
power_budget_has (const ms_budgets_t *bs, size_t scope)
{
    for (size_t i = 0; i < bs->n; i++)
        if (bs->b[i].scope == scope)
            return true;
    return false;
}

/* ---- the tracked entries ---- */

typedef struct {
    uint64_t job, key;
    size_t cluster;
    double watts; /* above idle, upper bound */
    double t_hi;
    double end; /* pending: dispatch + wait + t_hi; running: start + t_hi */
    bool running;
} pitem_t;

struct ms_power {
    const ms_siteconf_t *conf;
    ms_budgets_t bs;
    size_t nscopes; /* clusters, then the site */
    double *idle;   /* per scope: every node at idle */
    double *load;   /* per scope: the tracked entries now, above idle */
    double spread;  /* p_hi at least p times this (power_set_spread) */
    pitem_t *it;    /* sorted by job */
    size_t n, cap;
};

static size_t
sidx (const ms_power_t *pw, size_t scope)
{
    return power_scope_slot (pw->conf, scope);
}

ms_power_t *
power_new (const ms_siteconf_t *conf, const ms_budgets_t *bs)
{
    ms_power_t *pw = ms_xcalloc (1, sizeof (*pw));

    pw->conf = conf;
    pw->spread = 1;
    pw->nscopes = conf->nclusters + 1;
    pw->idle = ms_xcalloc (pw->nscopes, sizeof (double));
    pw->load = ms_xcalloc (pw->nscopes, sizeof (double));
    for (size_t p = 0; p < conf->nparts; p++) {
        const ms_partconf_t *pc = &conf->parts[p];
        double w = pc->nodes * conf->archs[pc->arch].idle_power_w;
        pw->idle[pc->cluster] += w;
        pw->idle[pw->nscopes - 1] += w;
    }
    power_set_budgets (pw, bs);
    return pw;
}

void
power_free (ms_power_t *pw)
{
    if (!pw)
        return;
    power_budgets_free (&pw->bs);
    free (pw->idle);
    free (pw->load);
    free (pw->it);
    free (pw);
}

void
power_set_budgets (ms_power_t *pw, const ms_budgets_t *bs)
{
    power_budgets_free (&pw->bs);
    if (bs && bs->n) {
        pw->bs.b = ms_xcalloc (bs->n, sizeof (*bs->b));
        memcpy (pw->bs.b, bs->b, bs->n * sizeof (*bs->b));
        pw->bs.n = bs->n;
    }
}

const ms_budgets_t *
power_budgets (const ms_power_t *pw)
{
    return &pw->bs;
}

void
power_set_spread (ms_power_t *pw, double sd, double z)
{
    pw->spread = sd > 0 && z > 0 && isfinite (sd * z) ? exp (sd * z) : 1;
}

double
power_cand_watts (const ms_power_t *pw, const ms_cand_t *c)
{
    const ms_siteconf_t *conf = pw->conf;
    const ms_partconf_t *pc = &conf->parts[c->part];
    int n = c->nodes > 0 ? c->nodes : 1;
    double p = c->p * pw->spread, w;

    if (c->t_hi > 0 && c->e_hi / (c->t_hi * n) > p)
        p = c->e_hi / (c->t_hi * n);
    w = n * (p - conf->archs[pc->arch].idle_power_w);
    return w > 0 ? w : 0;
}

/* The first item of job (or where it would go). */
static size_t
job_lo (const ms_power_t *pw, uint64_t job)
{
    size_t lo = 0, hi = pw->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pw->it[mid].job < job)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t
job_hi (const ms_power_t *pw, size_t lo, uint64_t job)
{
    while (lo < pw->n && pw->it[lo].job == job)
        lo++;
    return lo;
}

/* Add sign times the draw of items [lo, hi) (one job's) to the loads:
 * the largest item on each cluster, and the largest on the site, counted
 * only where still predicted to run at t (t <= now: all). */
static void
group_add (const ms_power_t *pw, size_t lo, size_t hi, double sign,
           double *load, double t, double now)
{
    double site = 0;

    for (size_t i = lo; i < hi; i++) {
        const pitem_t *x = &pw->it[i];
        double end = x->end, m = 0;
        bool first = true;
        if (!x->running && end < now + x->t_hi)
            end = now + x->t_hi; /* still pending: its run is ahead */
        if (t > now && end <= t)
            continue;
        /* the largest of this job's items on x's cluster, counted once
         * (at its first item there) */
        for (size_t k = lo; k < hi; k++) {
            if (pw->it[k].cluster != x->cluster)
                continue;
            if (k < i)
                first = false;
            if (pw->it[k].watts > m)
                m = pw->it[k].watts;
        }
        if (first)
            load[x->cluster] += sign * m;
        if (x->watts > site)
            site = x->watts;
    }
    load[pw->nscopes - 1] += sign * site;
}

void
power_add (ms_power_t *pw, uint64_t job, uint64_t key, size_t cluster,
           double watts, double t_hi, double wait_s, double now)
{
    size_t lo = job_lo (pw, job), hi = job_hi (pw, lo, job);
    pitem_t *x;

    group_add (pw, lo, hi, -1, pw->load, now, now);
    if (pw->n == pw->cap) {
        pw->cap = pw->cap ? 2 * pw->cap : 256;
        pw->it = ms_xrealloc (pw->it, pw->cap * sizeof (*pw->it));
    }
    memmove (&pw->it[hi + 1], &pw->it[hi], (pw->n - hi) * sizeof (*pw->it));
    pw->n++;
    x = &pw->it[hi];
    x->job = job;
    x->key = key;
    x->cluster = cluster < pw->nscopes - 1 ? cluster : 0;
    x->watts = watts > 0 && isfinite (watts) ? watts : 0;
    x->t_hi = t_hi > 0 && isfinite (t_hi) ? t_hi : 0;
    x->end = now + (wait_s > 0 && isfinite (wait_s) ? wait_s : 0) + x->t_hi;
    x->running = false;
    group_add (pw, lo, hi + 1, 1, pw->load, now, now);
}

void
power_start (ms_power_t *pw, uint64_t job, size_t cluster, uint64_t key,
             double now)
{
    size_t lo = job_lo (pw, job), hi = job_hi (pw, lo, job);

    for (size_t i = lo; i < hi; i++)
        if (pw->it[i].key == key && pw->it[i].cluster == cluster) {
            pw->it[i].running = true;
            pw->it[i].end = now + pw->it[i].t_hi;
        }
}

void
power_remove (ms_power_t *pw, uint64_t job, size_t cluster, uint64_t key)
{
    size_t lo = job_lo (pw, job), hi = job_hi (pw, lo, job);

    for (size_t i = lo; i < hi; i++)
        if (pw->it[i].key == key && pw->it[i].cluster == cluster) {
            group_add (pw, lo, hi, -1, pw->load, 0, 0);
            memmove (&pw->it[i], &pw->it[i + 1],
                     (pw->n - i - 1) * sizeof (*pw->it));
            pw->n--;
            hi--;
            group_add (pw, lo, hi, 1, pw->load, 0, 0);
            break;
        }
    /* sums of doubles drift: exact zero once nothing is tracked */
    if (!pw->n)
        memset (pw->load, 0, pw->nscopes * sizeof (double));
}

size_t
power_ntracked (const ms_power_t *pw)
{
    return pw->n;
}

double
power_draw (const ms_power_t *pw, size_t scope)
{
    size_t s = sidx (pw, scope);
    return pw->idle[s] + pw->load[s];
}

double
power_draw_at (const ms_power_t *pw, size_t scope, double t, double now)
{
    double *load;
    size_t s = sidx (pw, scope);
    double r;

    if (t <= now)
        return power_draw (pw, scope);
    load = ms_xcalloc (pw->nscopes, sizeof (double));
    for (size_t lo = 0; lo < pw->n;) {
        size_t hi = job_hi (pw, lo, pw->it[lo].job);
        group_add (pw, lo, hi, 1, load, t, now);
        lo = hi;
    }
    r = pw->idle[s] + load[s];
    free (load);
    return r;
}

/* A small tolerance: sums of doubles in another order. */
#define SLACK_W 1e-6

double
power_room (const ms_power_t *pw, double now)
{
    double site, cl = -INFINITY;

    site = power_budget_at (&pw->bs, MS_POWER_SITE, now)
           - power_draw (pw, MS_POWER_SITE);
    for (size_t c = 0; c + 1 < pw->nscopes; c++) {
        double r = power_budget_at (&pw->bs, c, now) - power_draw (pw, c);
        if (r > cl)
            cl = r;
    }
    return (site < cl ? site : cl) + SLACK_W;
}

/* One scope over [start, end] (start >= now): its draw only falls
 * between the budget's changes (entries end), so each stretch of one
 * budget is checked at its start. */
static bool
scope_fits (const ms_power_t *pw, size_t scope, double watts, double start,
            double end, double now, ms_powerwhy_t *why)
{
    const ms_budgets_t *bs = &pw->bs;
    double t = start;

    if (!power_budget_has (bs, scope))
        return true;
    for (int k = 0; k < 10000 && t <= end; k++) {
        double b = power_budget_at (bs, scope, t);
        if (isfinite (b)) {
            double d = power_draw_at (pw, scope, t, now) + watts;
            if (d > b + SLACK_W) {
                if (why) {
                    why->scope = scope;
                    why->at = t;
                    why->budget = b;
                    why->draw = d;
                }
                return false;
            }
        }
        t = power_budget_next (bs, scope, t);
    }
    return true;
}

static bool
fits_from (const ms_power_t *pw, size_t cluster, double watts, double start,
           double end, double now, ms_powerwhy_t *why)
{
    if (end < start)
        end = start;
    return scope_fits (pw, cluster, watts, start, end, now, why)
           && scope_fits (pw, MS_POWER_SITE, watts, start, end, now, why);
}

bool
power_fits (const ms_power_t *pw, size_t cluster, double watts, double now,
            double end, ms_powerwhy_t *why)
{
    return fits_from (pw, cluster, watts, now, end, now, why);
}

static int
dbl_cmp (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The times at which a fit may change after now: the tracked entries'
 * predicted ends and the budgets' changes (up to horizon). */
static double *
change_times (const ms_power_t *pw, double now, double horizon, size_t *np)
{
    size_t n = 0, cap = pw->n + 64;
    double *ts = ms_xmalloc (cap * sizeof (double));

    ts[n++] = now;
    for (size_t i = 0; i < pw->n; i++) {
        double e = pw->it[i].end;
        if (!pw->it[i].running && e < now + pw->it[i].t_hi)
            e = now + pw->it[i].t_hi;
        if (e > now && e <= horizon)
            ts[n++] = e;
    }
    for (size_t s = 0; s < pw->nscopes; s++) {
        size_t scope = s == pw->nscopes - 1 ? MS_POWER_SITE : s;
        for (double t = power_budget_next (&pw->bs, scope, now);
             t <= horizon && n < 100000;
             t = power_budget_next (&pw->bs, scope, t)) {
            if (n == cap) {
                cap *= 2;
                ts = ms_xrealloc (ts, cap * sizeof (double));
            }
            ts[n++] = t;
        }
    }
    qsort (ts, n, sizeof (double), dbl_cmp);
    *np = n;
    return ts;
}

/* How far ahead a fit is looked for: past it, "not by what is known". */
#define HORIZON (30 * DAY)

/* The least budget of scope over [a, b]. */
static double
budget_min (const ms_budgets_t *bs, size_t scope, double a, double b)
{
    double m = power_budget_at (bs, scope, a);

    for (double t = power_budget_next (bs, scope, a); t <= b;
         t = power_budget_next (bs, scope, t)) {
        double x = power_budget_at (bs, scope, t);
        if (x < m)
            m = x;
    }
    return m;
}

typedef struct {
    double end;
    size_t cluster;
    double w;
} pend_t;

static int
pend_cmp (const void *a, const void *b)
{
    const pend_t *x = a, *y = b;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The draws of every scope from now on fall as the tracked entries end
 * (by their predicted ends; each entry on its own, so that a job's
 * siblings make the fall an estimate). The first time a fit may change
 * (an end or a budget change) at which `watts` on cluster fits for dur
 * seconds, or, with cluster SIZE_MAX, every scope is under its budget;
 * INFINITY when none within HORIZON. The draw at that time stands for
 * the whole stretch (it only falls). */
static double
sweep (const ms_power_t *pw, double now, size_t cluster, double watts,
       double dur, size_t *overp)
{
    size_t ns = pw->nscopes, nt, k = 0;
    double *ts = change_times (pw, now, now + HORIZON, &nt), r = INFINITY;
    double *d = ms_xcalloc (ns, sizeof (double));
    pend_t *e = ms_xcalloc (pw->n + 1, sizeof (*e));

    for (size_t i = 0; i < pw->n; i++) {
        const pitem_t *x = &pw->it[i];
        e[i].end = x->end;
        if (!x->running && e[i].end < now + x->t_hi)
            e[i].end = now + x->t_hi;
        e[i].cluster = x->cluster;
        e[i].w = x->watts;
    }
    qsort (e, pw->n, sizeof (*e), pend_cmp);
    for (size_t s = 0; s < ns; s++)
        d[s] = pw->load[s];
    for (size_t i = 0; i < nt && !isfinite (r); i++) {
        bool ok = true;
        if (i && ts[i] == ts[i - 1])
            continue;
        while (k < pw->n && e[k].end <= ts[i]) {
            d[e[k].cluster] -= e[k].w;
            d[ns - 1] -= e[k].w;
            k++;
        }
        for (size_t s = 0; s < ns && ok; s++) {
            size_t scope = s == ns - 1 ? MS_POWER_SITE : s;
            double b, draw = pw->idle[s] + (d[s] > 0 ? d[s] : 0);
            if (cluster != SIZE_MAX && s != cluster && s != ns - 1)
                continue;
            if (cluster == SIZE_MAX)
                b = power_budget_at (&pw->bs, scope, ts[i]);
            else {
                b = budget_min (&pw->bs, scope, ts[i], ts[i] + dur);
                draw += watts;
            }
            if (draw > b + SLACK_W) {
                ok = false;
                if (i == 0 && overp)
                    *overp = scope;
            }
        }
        if (ok)
            r = ts[i];
    }
    free (ts);
    free (d);
    free (e);
    return r;
}

double
power_fit_time (const ms_power_t *pw, size_t cluster, double watts, double dur,
                double now)
{
    if (cluster >= pw->nscopes - 1)
        return INFINITY;
    return sweep (pw, now, cluster, watts, dur, NULL);
}

double
power_clear_time (const ms_power_t *pw, double now, size_t *scopep)
{
    if (scopep)
        *scopep = MS_POWER_SITE;
    return sweep (pw, now, SIZE_MAX, 0, 0, scopep);
}

size_t
power_filter (const ms_power_t *pw, const ms_siteconf_t *conf, ms_cands_t *cs,
              double now)
{
    size_t k = 0;

    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        double end = now + (c->w > 0 ? c->w : 0) + c->t_hi;
        if (power_fits (pw, conf->parts[c->part].cluster,
                        power_cand_watts (pw, c), now, end, NULL))
            cs->c[k++] = *c;
    }
    cs->n = k;
    return k;
}

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double
power_correction (const double *ratios, size_t n)
{
    double v[MS_POWER_CORR_RUNS], m;
    size_t k = 0;

    for (size_t i = 0; i < n && i < MS_POWER_CORR_RUNS; i++)
        if (isfinite (ratios[i]) && ratios[i] > 0)
            v[k++] = ratios[i];
    if (!k)
        return 1;
    qsort (v, k, sizeof (*v), cmp_double);
    m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    if (m < MS_POWER_CORR_MIN)
        m = MS_POWER_CORR_MIN;
    if (m > MS_POWER_CORR_MAX)
        m = MS_POWER_CORR_MAX;
    return m;
}
