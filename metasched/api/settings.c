/* settings.c - the admin's scheduling settings (settings.h). Each key has
 * one checker; an update is applied to a copy and kept only when every key
 * passed, so a refused PUT changes nothing. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "metasched/api/settings.h"
#include "metasched/core/engine.h"

#define CAP_PREFIX "power_cap_w."

void
settings_init (ms_settings_t *s)
{
    memset (s, 0, sizeof (*s));
    s->policy = POL_METASCHED;
    s->w_energy = 0.5;
    s->max_slowdown = 1.3;
    s->dispatch_mode = DISPATCH_SINGLE;
    s->siblings = 2;
    s->sibling_hold = 1;
    s->pref_margin = 0.2;
    s->first_age = MS_FIRST_AGE;
    s->drain_weight = 1;
    s->wait_share = 0.02;
    s->sibling_ahead = 0.25;
    s->stake_margin = 3;
    s->cal_lean = 1.2;
    s->cal_lean_idle = 0.95;
    s->exploration = 0;
    /* the engine's, which the simulator evaluates (engine.h) */
    s->reroute_after_s = MS_REROUTE_AFTER_S;
    s->max_reroutes = MS_MAX_REROUTES;
    s->priority_boost = true;
    s->dependency_other_users = true; /* as Slurm */
    s->refit_interval_s = 0; /* not set: the daemon's refit_s */
    /* Slurm's own default MaxJobCount holds 10,000 jobs for a whole
     * cluster: one user may queue as many here, and hold as many behind
     * dependencies (the cycle reads every held job each time: bench_held
     * measures what 10,000 cost). One what-if a second on average is more
     * than msbatch --test-only by hand asks. */
    s->max_queued_per_user = 10000;
    s->max_held_per_user = 10000;
    s->whatif_per_minute = 60;
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

static int
number (const json_t *v, const char *key, double lo, double hi, double *out,
        ms_error_t *errp)
{
    double x;

    if (!json_is_number (v))
        return bad (errp, key, "must be a number");
    x = json_number_value (v);
    if (!isfinite (x) || x < lo || x > hi) {
        if (isinf (hi))
            return bad (errp, key, "%g is out of range (at least %g)", x, lo);
        return bad (errp, key, "%g is out of range %g..%g", x, lo, hi);
    }
    *out = x;
    return 0;
}

static int
integer (const json_t *v, const char *key, long lo, long hi, int *out,
         ms_error_t *errp)
{
    json_int_t n;

    if (!json_is_integer (v))
        return bad (errp, key, "must be an integer");
    n = json_integer_value (v);
    if (n < lo || n > hi)
        return bad (errp, key, "%lld is out of range %ld..%ld", (long long)n,
                    lo, hi);
    *out = (int)n;
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

int
settings_set (ms_settings_t *s, const char *key, const json_t *value,
              ms_error_t *errp)
{
    ms_settings_t t = *s;
    double x;
    int n;

    if (!key || !value)
        return bad (errp, key ? key : "(null)", "no value");
    if (!strcmp (key, "policy")) {
        ms_polkind_t k;
        if (!json_is_string (value))
            return bad (errp, key, "must be a string");
        if (policy_kind_parse (json_string_value (value), &k) < 0)
            return bad (errp, key, "unknown policy '%.64s'",
                        json_string_value (value));
        t.policy = k;
    } else if (!strcmp (key, "w_energy")) {
        if (number (value, key, 0, 1, &t.w_energy, errp) < 0)
            return -1;
    } else if (!strcmp (key, "max_slowdown")) {
        if (number (value, key, 1, INFINITY, &t.max_slowdown, errp) < 0)
            return -1;
    } else if (!strcmp (key, "sibling_hold")) {
        if (number (value, key, 0, 100, &t.sibling_hold, errp) < 0)
            return -1;
    } else if (!strcmp (key, "pref_margin")) {
        if (number (value, key, 0, 10, &t.pref_margin, errp) < 0)
            return -1;
    } else if (!strcmp (key, "first_age")) {
        if (number (value, key, 0, 100, &t.first_age, errp) < 0)
            return -1;
    } else if (!strcmp (key, "drain_weight")) {
        if (number (value, key, 0, 100, &t.drain_weight, errp) < 0)
            return -1;
    } else if (!strcmp (key, "wait_share")) {
        if (number (value, key, 0, 1, &t.wait_share, errp) < 0)
            return -1;
    } else if (!strcmp (key, "sibling_ahead")) {
        if (number (value, key, 0, 100, &t.sibling_ahead, errp) < 0)
            return -1;
    } else if (!strcmp (key, "cal_lean")) {
        if (number (value, key, 0, 100, &t.cal_lean, errp) < 0)
            return -1;
    } else if (!strcmp (key, "cal_lean_idle")) {
        if (number (value, key, 0, 100, &t.cal_lean_idle, errp) < 0)
            return -1;
    } else if (!strcmp (key, "stake_margin")) {
        if (number (value, key, 0, 1000, &t.stake_margin, errp) < 0)
            return -1;
    } else if (!strncmp (key, CAP_PREFIX, strlen (CAP_PREFIX))) {
        size_t i;
        const char *k = key + strlen (CAP_PREFIX);

        if (cap_key_ok (key, errp) < 0)
            return -1;
        if (number (value, key, 0, INFINITY, &x, errp) < 0)
            return -1;
        for (i = 0; i < t.ncaps; i++)
            if (!strcmp (t.caps[i].key, k))
                break;
        if (i == t.ncaps) {
            if (t.ncaps == SETTINGS_MAX_CAPS)
                return bad (errp, key, "more than %d power caps",
                            SETTINGS_MAX_CAPS);
            snprintf (t.caps[i].key, sizeof (t.caps[i].key), "%s", k);
            t.ncaps++;
        }
        t.caps[i].watts = x;
    } else if (!strcmp (key, "dispatch_mode")) {
        const char *m = json_string_value (value);
        if (!m)
            return bad (errp, key, "must be a string");
        if (!strcmp (m, "single"))
            t.dispatch_mode = DISPATCH_SINGLE;
        else if (!strcmp (m, "siblings"))
            t.dispatch_mode = DISPATCH_SIBLINGS;
        else
            return bad (errp, key, "must be \"single\" or \"siblings\"");
    } else if (!strcmp (key, "siblings")) {
        if (integer (value, key, 2, 8, &t.siblings, errp) < 0)
            return -1;
    } else if (!strcmp (key, "exploration")) {
        if (number (value, key, 0, 0.5, &t.exploration, errp) < 0)
            return -1;
    } else if (!strcmp (key, "reroute_after_s")) {
        if (number (value, key, 0, INFINITY, &t.reroute_after_s, errp) < 0)
            return -1;
    } else if (!strcmp (key, "max_reroutes")) {
        if (integer (value, key, 0, 1000, &n, errp) < 0)
            return -1;
        t.max_reroutes = n;
    } else if (!strcmp (key, "priority_boost")) {
        if (!json_is_boolean (value))
            return bad (errp, key, "must be true or false");
        t.priority_boost = json_is_true (value);
    } else if (!strcmp (key, "dependency_other_users")) {
        if (!json_is_boolean (value))
            return bad (errp, key, "must be true or false");
        t.dependency_other_users = json_is_true (value);
    } else if (!strcmp (key, "refit_interval_s")) {
        /* 0: back to the daemon's refit_s */
        if (json_is_number (value) && json_number_value (value) == 0)
            t.refit_interval_s = 0;
        else if (number (value, key, 60, INFINITY, &t.refit_interval_s, errp)
                 < 0)
            return -1;
    } else if (!strcmp (key, "max_queued_per_user")) {
        if (integer (value, key, 0, SETTINGS_LIMIT_MAX, &t.max_queued_per_user,
                     errp)
            < 0)
            return -1;
    } else if (!strcmp (key, "max_held_per_user")) {
        if (integer (value, key, 0, SETTINGS_LIMIT_MAX, &t.max_held_per_user,
                     errp)
            < 0)
            return -1;
    } else if (!strcmp (key, "whatif_per_minute")) {
        if (integer (value, key, 0, SETTINGS_LIMIT_MAX, &t.whatif_per_minute,
                     errp)
            < 0)
            return -1;
    } else {
        return bad (errp, key, "unknown setting");
    }
    *s = t;
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
    char key[160];
    size_t i;

    json_object_set_new (o, "policy",
                         json_string (policy_kind_name (s->policy)));
    json_object_set_new (o, "w_energy", json_real (s->w_energy));
    json_object_set_new (o, "max_slowdown", json_real (s->max_slowdown));
    for (i = 0; i < s->ncaps; i++) {
        snprintf (key, sizeof (key), CAP_PREFIX "%s", s->caps[i].key);
        json_object_set_new (o, key, json_real (s->caps[i].watts));
    }
    json_object_set_new (o, "dispatch_mode",
                         json_string (s->dispatch_mode == DISPATCH_SIBLINGS
                                          ? "siblings"
                                          : "single"));
    json_object_set_new (o, "siblings", json_integer (s->siblings));
    json_object_set_new (o, "sibling_hold", json_real (s->sibling_hold));
    json_object_set_new (o, "pref_margin", json_real (s->pref_margin));
    json_object_set_new (o, "first_age", json_real (s->first_age));
    json_object_set_new (o, "drain_weight", json_real (s->drain_weight));
    json_object_set_new (o, "wait_share", json_real (s->wait_share));
    json_object_set_new (o, "sibling_ahead", json_real (s->sibling_ahead));
    json_object_set_new (o, "stake_margin", json_real (s->stake_margin));
    json_object_set_new (o, "cal_lean", json_real (s->cal_lean));
    json_object_set_new (o, "cal_lean_idle", json_real (s->cal_lean_idle));
    json_object_set_new (o, "exploration", json_real (s->exploration));
    json_object_set_new (o, "reroute_after_s", json_real (s->reroute_after_s));
    json_object_set_new (o, "max_reroutes", json_integer (s->max_reroutes));
    json_object_set_new (o, "priority_boost", json_boolean (s->priority_boost));
    json_object_set_new (o, "dependency_other_users",
                         json_boolean (s->dependency_other_users));
    json_object_set_new (o, "refit_interval_s",
                         json_real (s->refit_interval_s));
    json_object_set_new (o, "max_queued_per_user",
                         json_integer (s->max_queued_per_user));
    json_object_set_new (o, "max_held_per_user",
                         json_integer (s->max_held_per_user));
    json_object_set_new (o, "whatif_per_minute",
                         json_integer (s->whatif_per_minute));
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
    policy_init (pol, s->policy);
    pol->w_energy = s->w_energy;
    pol->max_slowdown = s->max_slowdown;
    if (policy_is_metasched (pol->kind)) {
        pol->sibling_hold = s->sibling_hold;
        pol->pref_margin = s->pref_margin;
        pol->first_age = s->first_age;
        pol->drain_weight = s->drain_weight;
        pol->wait_share = s->wait_share;
        pol->sibling_ahead = s->sibling_ahead;
        pol->stake_margin = s->stake_margin;
        pol->cal_lean = s->cal_lean;
        pol->cal_lean_idle = s->cal_lean_idle;
    }
    pol->reroute_after_s = s->reroute_after_s;
    pol->max_reroutes = s->max_reroutes;
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
