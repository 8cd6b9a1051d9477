/* settings.c - the admin's scheduling settings (settings.h). Each key is
 * a row of core/settings_table.c, which gives its type and range; an
 * update is applied to a copy and kept only when every key passed, so a
 * refused PUT changes nothing. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "metasched/api/settings.h"
#include "metasched/core/engine.h"

#define CAP_PREFIX "power_cap_w."

/* Every default is a row of core/settings_table.c. Its comments on the
 * limits: Slurm's own default MaxJobCount holds 10,000 jobs for a whole
 * cluster, so one user may queue as many here, and hold as many behind
 * dependencies (the cycle reads every held job each time: bench_held
 * measures what 10,000 cost); one what-if a second on average is more
 * than msbatch --test-only by hand asks. refit_interval_s 0: the daemon's
 * refit_s; the re-routing defaults are the engine's, which the simulator
 * evaluates (engine.h). */
void
settings_init (ms_settings_t *s)
{
    settings_table_defaults (s);
}

static int bad (ms_error_t *errp, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int
bad (ms_error_t *errp, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    ms_err (errp, MS_ERR_INPUT, "setting '%s': %s", key, msg);
    if (errp)
        errp->http_status = 400;
    return -1;
}

/* v as the row's value: a JSON number, integer, boolean or a choice's
 * name, checked against the row's range (the messages name the key, the
 * HTTP field). */
static int
json_value (const ms_sett_t *r, const char *key, const json_t *v, double *out,
            ms_error_t *errp)
{
    double x;

    switch (r->type) {
    case MS_SETT_BOOL:
        if (!json_is_boolean (v))
            return bad (errp, key, "must be true or false");
        x = json_is_true (v) ? 1 : 0;
        break;
    case MS_SETT_CHOICE: {
        const char *m = json_string_value (v);
        size_t i;
        if (!m)
            return bad (errp, key, "must be a string");
        for (i = 0; r->choices[i] && strcmp (r->choices[i], m); i++)
            ;
        if (!r->choices[i]) {
            char range[300];
            settings_table_range (r, range, sizeof (range));
            return bad (errp, key, "unknown %s '%.64s' (one of %s)", r->name, m,
                        range);
        }
        x = (double)i;
        break;
    }
    case MS_SETT_INTEGER:
        if (!json_is_integer (v))
            return bad (errp, key, "must be an integer");
        if (json_integer_value (v) < -SETTINGS_LIMIT_MAX * 1000LL
            || json_integer_value (v) > SETTINGS_LIMIT_MAX * 1000LL)
            return bad (errp, key, "%lld is out of range %.0f..%.0f",
                        (long long)json_integer_value (v), r->lo, r->hi);
        x = (double)json_integer_value (v);
        break;
    default:
        if (!json_is_number (v))
            return bad (errp, key, "must be a number");
        x = json_number_value (v);
        if (!isfinite (x))
            return bad (errp, key, "must be a finite number");
    }
    if (settings_table_check_as (r, key, x, NULL, errp) < 0) {
        if (errp)
            errp->http_status = 400;
        return -1;
    }
    *out = x;
    return 0;
}

/* "power_cap_w.CLUSTER.PARTITION": names as the ms_name domain allows
 * ([A-Za-z0-9][A-Za-z0-9_.+-]*), and the whole key as the settings table
 * does (lower case, digits, '_' and '.', at most 64). */
static int
cap_key_ok (const char *key, ms_error_t *errp)
{
    const char *rest = key + strlen (CAP_PREFIX), *dot, *p;

    if (strlen (key) > 64)
        return bad (errp, key, "the key is longer than 64 characters");
    dot = strchr (rest, '.');
    if (!dot || dot == rest || !dot[1] || strchr (dot + 1, '.'))
        return bad (errp, key, "must name CLUSTER.PARTITION after '%s'",
                    CAP_PREFIX);
    for (p = rest; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'
              || *p == '.'))
            return bad (errp, key,
                        "cluster and partition names here may hold lower "
                        "case letters, digits and '_' only");
    return 0;
}

/* power_budget: the budgets' text (core/power.h), checked here for what
 * needs no site (a string, its size, printable, no "+N" time: a live
 * budget's times are of day or absolute); the daemon checks the scopes
 * and the rest against its clusters (settings_check_power). "none" or
 * "": no budget. */
static int
text_value (ms_settings_t *s, const char *key, const json_t *value,
            ms_error_t *errp)
{
    const char *t = json_string_value (value);
    size_t len;

    if (!t)
        return bad (errp, key, "must be a string (power budgets, or none)");
    len = strlen (t);
    if (len >= sizeof (s->power_budget))
        return bad (errp, key, "longer than %zu bytes",
                    sizeof (s->power_budget) - 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)t[i];
        if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
            return bad (errp, key, "control character at byte %zu", i + 1);
        if (ch == '+' && (i == 0 || t[i - 1] == ' ' || t[i - 1] == '\t'))
            return bad (errp, key,
                        "'+N' times are the simulator's: a live budget "
                        "starts at HH:MM (every day) or "
                        "YYYY-MM-DDTHH:MM (UTC)");
    }
    snprintf (s->power_budget, sizeof (s->power_budget), "%s",
              strcmp (t, "none") ? t : "");
    s->power_budget_set = true;
    return 0;
}

int
settings_set (ms_settings_t *s, const char *key, const json_t *value,
              ms_error_t *errp)
{
    const ms_sett_t *r;
    size_t i;
    double x;

    if (!key || !value)
        return bad (errp, key ? key : "(null)", "no value");
    if (!strncmp (key, CAP_PREFIX, strlen (CAP_PREFIX))) {
        const char *k = key + strlen (CAP_PREFIX);

        r = settings_table_find ("power_cap_w");
        if (cap_key_ok (key, errp) < 0
            || json_value (r, key, value, &x, errp) < 0)
            return -1;
        for (i = 0; i < s->ncaps; i++)
            if (!strcmp (s->caps[i].key, k))
                break;
        if (i == s->ncaps) {
            if (s->ncaps == SETTINGS_MAX_CAPS)
                return bad (errp, key, "more than %d power caps",
                            SETTINGS_MAX_CAPS);
            snprintf (s->caps[i].key, sizeof (s->caps[i].key), "%s", k);
            s->ncaps++;
        }
        s->caps[i].watts = x;
        return 0;
    }
    r = settings_table_key (key, MS_SETT_LIVE);
    if (r && r->type == MS_SETT_TEXT)
        return text_value (s, key, value, errp);
    if (!r || r->set_off == MS_SETT_NONE)
        return bad (errp, key, "unknown setting");
    if (json_value (r, key, value, &x, errp) < 0)
        return -1;
    settings_table_put (r, s, r->set_off, x);
    return 0;
}

int
settings_update (ms_settings_t *s, const json_t *obj, char *badkey,
                 size_t badkeylen, ms_error_t *errp)
{
    ms_settings_t *t;
    const char *key;
    json_t *v;

    if (badkey && badkeylen)
        badkey[0] = '\0';
    if (!json_is_object (obj)) {
        ms_err (errp, MS_ERR_INPUT,
                "settings must be a JSON object {\"key\": value, ...}");
        if (errp)
            errp->http_status = 400;
        return -1;
    }
    if (!(t = malloc (sizeof (*t))))
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    *t = *s;
    json_object_foreach ((json_t *)obj, key, v)
    {
        if (settings_set (t, key, v, errp) < 0) {
            if (badkey && badkeylen)
                snprintf (badkey, badkeylen, "%s", key);
            free (t);
            return -1;
        }
    }
    *s = *t;
    free (t);
    return 0;
}

json_t *
settings_to_json (const ms_settings_t *s)
{
    json_t *o = json_object ();
    const ms_sett_t *rows;
    char key[160];
    size_t n, i;

    rows = settings_table (&n);
    for (size_t k = 0; k < n; k++) {
        const ms_sett_t *r = &rows[k];
        double v;

        if (r->where & MS_SETT_PER_PART) {
            for (i = 0; i < s->ncaps; i++) {
                snprintf (key, sizeof (key), CAP_PREFIX "%s", s->caps[i].key);
                json_object_set_new (o, key, json_real (s->caps[i].watts));
            }
            continue;
        }
        if ((r->where & MS_SETT_LIVE) && r->type == MS_SETT_TEXT) {
            /* null: not set live (metaschedd.conf's holds) */
            json_object_set_new (
                o, r->key,
                s->power_budget_set ? json_string (
                    s->power_budget[0] ? s->power_budget : "none")
                                    : json_null ());
            continue;
        }
        if (!(r->where & MS_SETT_LIVE) || r->set_off == MS_SETT_NONE)
            continue;
        v = settings_table_get (r, s, r->set_off);
        switch (r->type) {
        case MS_SETT_BOOL:
            json_object_set_new (o, r->key, json_boolean (v != 0));
            break;
        case MS_SETT_CHOICE:
            json_object_set_new (o, r->key, json_string (r->choices[(int)v]));
            break;
        case MS_SETT_INTEGER:
            json_object_set_new (o, r->key, json_integer ((json_int_t)v));
            break;
        default:
            json_object_set_new (o, r->key, json_real (v));
        }
    }
    return o;
}

int
settings_load (struct db *db, ms_settings_t *s, char *ignored,
               size_t ignoredlen, ms_error_t *errp)
{
    const char *key;
    json_t *rows, *v;
    size_t used = 0;

    if (ignored && ignoredlen)
        ignored[0] = '\0';
    settings_init (s);
    if (db_settings_read (db, &rows, errp) < 0)
        return -1;
    json_object_foreach (rows, key, v)
    {
        /* rows this version does not know (older seeds) or refuses keep
         * the default rather than stopping the daemon */
        if (settings_set (s, key, v, NULL) < 0 && ignored && ignoredlen) {
            int n = snprintf (ignored + used, ignoredlen - used, "%s%s",
                              used ? "," : "", key);
            if (n > 0 && (size_t)n < ignoredlen - used)
                used += (size_t)n;
        }
    }
    json_decref (rows);
    return 0;
}

int
settings_save (struct db *db, const json_t *obj, const char *updated_by,
               ms_error_t *errp)
{
    return db_settings_write (db, obj, updated_by, errp);
}

void
settings_apply_policy (const ms_settings_t *s, ms_policy_t *pol)
{
    const ms_sett_t *rows;
    size_t n;

    policy_init (pol, s->policy);
    rows = settings_table (&n);
    for (size_t i = 0; i < n; i++)
        if ((rows[i].where & MS_SETT_LIVE) && rows[i].set_off != MS_SETT_NONE
            && rows[i].pol_off != MS_SETT_NONE)
            settings_table_apply (
                &rows[i], pol,
                settings_table_get (&rows[i], s, rows[i].set_off));
    policy_relabel (pol);
}

void
settings_apply_site (const ms_settings_t *s, ms_siteconf_t *conf,
                     size_t *unknown)
{
    size_t i, j, nunknown = 0;

    for (i = 0; i < s->ncaps; i++) {
        bool found = false;
        for (j = 0; j < conf->nparts; j++) {
            const ms_partconf_t *p = &conf->parts[j];
            char k[160];

            snprintf (k, sizeof (k), "%s.%s", conf->clusters[p->cluster].name,
                      p->name);
            if (!strcmp (k, s->caps[i].key)) {
                conf->parts[j].power_cap_w = s->caps[i].watts;
                found = true;
            }
        }
        if (!found)
            nunknown++;
    }
    if (unknown)
        *unknown = nunknown;
}
