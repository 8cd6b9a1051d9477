/* carbon_json.c - a zone's signal in its JSON form, and either form from
 * a buffer or a file (carbon.h). Apart from carbon.c: only the programs
 * that read signals (the daemon, metasched, the tests) need jansson. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "metasched/common/util.h"
#include "metasched/core/carbon.h"

#define MAX_POINTS 1000000

/* A point's number field: >= 0, or null/absent (NAN). */
static int
point_value (const char *name, size_t i, const json_t *pt, const char *key,
             double *vp, ms_error_t *errp)
{
    const json_t *v = json_object_get (pt, key);

    *vp = NAN;
    if (!v || json_is_null (v))
        return 0;
    if (!json_is_number (v) || !isfinite (json_number_value (v))
        || json_number_value (v) < 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: points[%zu].%s: not a number >= 0 (or null for "
                       "a missing value)",
                       name, i, key);
    *vp = json_number_value (v);
    return 0;
}

/* Point i into s. */
static int
json_point (const char *name, size_t i, const json_t *pt, bool has_price,
            ms_csig_t *s, size_t *cap, double *tprev, ms_error_t *errp)
{
    const json_t *st = json_object_get (pt, "start");
    double t, g, price;
    char where[sizeof (errp->text)];

    if (!json_is_object (pt))
        return ms_err (errp, MS_ERR_INPUT, "%s: points[%zu]: not an object",
                       name, i);
    if (!json_is_string (st))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: points[%zu].start: missing or not a string", name,
                       i);
    if (!carbon_parse_time (json_string_value (st), &t))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: points[%zu].start: bad time '%.32s' (ISO 8601 "
                       "UTC, 2026-11-29T14:00Z)",
                       name, i, json_string_value (st));
    if (!json_object_get (pt, "carbon"))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: points[%zu].carbon: missing (null for a missing "
                       "value)",
                       name, i);
    if (point_value (name, i, pt, "carbon", &g, errp) < 0
        || point_value (name, i, pt, "price", &price, errp) < 0)
        return -1;
    snprintf (where, sizeof (where), "%s: points[%zu].start", name, i);
    return carbon_point (s, cap, t, tprev, g, price, has_price, where, "point",
                         errp);
}

/* The object's header fields: zone, unit, points. */
static int
json_header (const json_t *o, const char *zone, const char *name,
             const json_t **ptsp, ms_error_t *errp)
{
    const json_t *z = json_object_get (o, "zone"), *u, *pts;

    if (z && (!json_is_string (z) || strcmp (json_string_value (z), zone)))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: zone: '%.64s' where the configuration reads it "
                       "for zone '%s'",
                       name, json_is_string (z) ? json_string_value (z) : "?",
                       zone);
    u = json_object_get (o, "unit");
    if (u
        && (!json_is_string (u)
            || strcmp (json_string_value (u), "gCO2eq/kWh") != 0))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: unit: '%.32s' (only gCO2eq/kWh is read)", name,
                       json_is_string (u) ? json_string_value (u) : "?");
    pts = json_object_get (o, "points");
    if (!json_is_array (pts))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: points: missing or not an array", name);
    if (json_array_size (pts) < 2)
        return ms_err (errp, MS_ERR_INPUT, "%s: points: fewer than two", name);
    if (json_array_size (pts) > MAX_POINTS)
        return ms_err (errp, MS_ERR_INPUT, "%s: points: more than %d", name,
                       MAX_POINTS);
    *ptsp = pts;
    return 0;
}

int
carbon_parse_json (ms_carbon_t *cb, const char *zone, const char *name,
                   const char *buf, size_t len, ms_error_t *errp)
{
    json_error_t je;
    json_t *o;
    const json_t *pts = NULL, *pt;
    bool has_price = false;
    double tprev = -1;
    size_t cap = 0, i;
    ms_csig_t s;
    int rc = 0;

    if (carbon_check_zone (cb, zone, name, errp) < 0)
        return -1;
    o = json_loadb (buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        return ms_err (errp, MS_ERR_INPUT, "%s:%d: not JSON: %s", name, je.line,
                       je.text);
    if (!json_is_object (o)) {
        json_decref (o);
        return ms_err (errp, MS_ERR_INPUT, "%s: not a JSON object", name);
    }
    if (json_header (o, zone, name, &pts, errp) < 0) {
        json_decref (o);
        return -1;
    }
    json_array_foreach (pts, i, pt)
    {
        if (json_is_object (pt) && json_object_get (pt, "price"))
            has_price = true;
    }
    memset (&s, 0, sizeof (s));
    ms_strlcpy (s.zone, zone, sizeof (s.zone));
    json_array_foreach (pts, i, pt)
    {
        rc = json_point (name, i, pt, has_price, &s, &cap, &tprev, errp);
        if (rc < 0)
            break;
    }
    json_decref (o);
    return carbon_keep (cb, &s, rc);
}

int
carbon_parse_any (ms_carbon_t *cb, const char *zone, const char *name,
                  char *buf, size_t len, ms_error_t *errp)
{
    size_t i = 0;

    while (i < len && isspace ((unsigned char)buf[i]))
        i++;
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        return carbon_parse_json (cb, zone, name, buf, len, errp);
    if (memchr (buf, '\0', len))
        return ms_err (errp, MS_ERR_INPUT, "%s: a NUL byte: not text", name);
    return carbon_parse_csv (cb, zone, name, buf, errp);
}

int
carbon_read_file (ms_carbon_t *cb, const char *zone, const char *path,
                  ms_error_t *errp)
{
    char *buf;
    size_t len;
    int rc;

    if (carbon_read_text (cb, zone, path, &buf, &len, errp) < 0)
        return -1;
    rc = carbon_parse_any (cb, zone, path, buf, len, errp);
    free (buf);
    return rc;
}
