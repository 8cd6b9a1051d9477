/* outage.c - the simulator's cluster outages (see outage.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/sim/outage.h"

/* A bound on START and DURATION: a hundred years. */
#define OUTAGE_MAX_S (100 * 366 * 86400.0)

/* A time of the item: digits, a fraction, one unit letter at most. */
static int
parse_span (const char *s, size_t len, double *out)
{
    char buf[64], *end;
    double v, mul = 1;

    if (!len || len >= sizeof (buf) || !isdigit ((unsigned char)s[0]))
        return -1;
    memcpy (buf, s, len);
    buf[len] = '\0';
    errno = 0;
    v = strtod (buf, &end);
    if (errno || !isfinite (v) || end == buf)
        return -1;
    if (*end && (end[1] || !(mul = (double)ms_unit_seconds (*end))))
        return -1;
    v *= mul;
    if (v > OUTAGE_MAX_S)
        return -1;
    *out = v;
    return 0;
}

/* One item, s[0..len). */
static int
parse_item (const char *s, size_t len, const char *what, size_t idx,
            const ms_siteconf_t *conf, ms_outage_t *o, ms_error_t *errp)
{
    const char *at = memchr (s, '@', len), *plus;
    size_t c;

    if (!len)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: item %zu is empty (CLUSTER@START+DURATION)", what,
                       idx);
    if (!at || at == s)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: item %zu '%.*s': not CLUSTER@START+DURATION", what,
                       idx, (int)len, s);
    for (c = 0; c < conf->nclusters; c++)
        if (strlen (conf->clusters[c].name) == (size_t)(at - s)
            && !memcmp (conf->clusters[c].name, s, (size_t)(at - s)))
            break;
    if (c == conf->nclusters) {
        char names[256] = "";
        size_t k = 0;
        for (size_t i = 0; i < conf->nclusters && k < sizeof (names); i++) {
            int w = snprintf (names + k, sizeof (names) - k, "%s%s",
                              i ? ", " : "", conf->clusters[i].name);
            k += w > 0 ? (size_t)w : 0;
        }
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: item %zu '%.*s': no cluster '%.*s' (%s)", what, idx,
                       (int)len, s, (int)(at - s), s, names);
    }
    plus = memchr (at, '+', len - (size_t)(at - s));
    if (!plus)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: item %zu '%.*s': no +DURATION after the start",
                       what, idx, (int)len, s);
    o->cluster = c;
    if (parse_span (at + 1, (size_t)(plus - at - 1), &o->start_s) < 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: item %zu '%.*s': start '%.*s' is not a time "
                       "(seconds, or a number with s, m, h or d; at most "
                       "100 years)",
                       what, idx, (int)len, s, (int)(plus - at - 1), at + 1);
    if (parse_span (plus + 1, len - (size_t)(plus + 1 - s), &o->dur_s) < 0
        || o->dur_s <= 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: item %zu '%.*s': duration '%.*s' is not a time "
                       "above 0 (seconds, or a number with s, m, h or d; at "
                       "most 100 years)",
                       what, idx, (int)len, s,
                       (int)(len - (size_t)(plus + 1 - s)), plus + 1);
    return 0;
}

int
outage_parse (const char *spec, const char *what, const ms_siteconf_t *conf,
              ms_outages_t *out, ms_error_t *errp)
{
    const char *p = spec;
    size_t idx = 1;

    memset (out, 0, sizeof (*out));
    if (!spec || !*spec)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: empty (CLUSTER@START+DURATION,...)", what);
    for (;;) {
        const char *comma = strchr (p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen (p);
        if (out->n == MS_OUTAGE_MAX) {
            outages_free (out);
            return ms_err (errp, MS_ERR_INPUT, "%s: more than %d outages", what,
                           MS_OUTAGE_MAX);
        }
        out->o = ms_xrealloc (out->o, (out->n + 1) * sizeof (*out->o));
        if (parse_item (p, len, what, idx, conf, &out->o[out->n], errp) < 0) {
            outages_free (out);
            return -1;
        }
        out->n++;
        idx++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

void
outages_free (ms_outages_t *os)
{
    free (os->o);
    memset (os, 0, sizeof (*os));
}

bool
outage_down (const ms_outages_t *os, size_t c, double t)
{
    for (size_t i = 0; os && i < os->n; i++)
        if (os->o[i].cluster == c && t >= os->o[i].start_s
            && t < os->o[i].start_s + os->o[i].dur_s)
            return true;
    return false;
}

double
outage_next (const ms_outages_t *os, double t)
{
    double best = INFINITY;

    for (size_t i = 0; os && i < os->n; i++) {
        double a = os->o[i].start_s, b = a + os->o[i].dur_s;
        if (a > t && a < best)
            best = a;
        if (b > t && b < best)
            best = b;
    }
    return best;
}
