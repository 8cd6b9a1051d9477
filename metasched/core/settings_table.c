/* settings_table.c - the one table of settings (settings_table.h).
 *
 * A row is a setting: who reads it follows from its flags, where its
 * value lives from its offsets. The readers loop over the rows, so none
 * of them lists the settings again: api/settings.c (the daemon's live
 * settings), policy_init (a policy's defaults), metasched config list and
 * metasched simulate (its options), daemon/dconf.c (the ranges of
 * metaschedd.conf's numbers).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/engine.h"
#include "metasched/core/settings_table.h"

#define SET(f) offsetof (ms_settings_t, f)
#define POL(f) offsetof (ms_policy_t, f)
#define NONE MS_SETT_NONE
#define NUM MS_SETT_NUMBER
#define INT MS_SETT_INTEGER
#define BOOL MS_SETT_BOOL
#define CHOICE MS_SETT_CHOICE
#define TEXT MS_SETT_TEXT
#define INF HUGE_VAL
/* a live setting of the daemon's policy that the simulator also takes */
#define LIVE_SIM (MS_SETT_LIVE | MS_SETT_SIM | MS_SETT_POLICY)
#define LIVE_SIM_MS (LIVE_SIM | MS_SETT_MS_ONLY)

/* The policy kinds' names, in ms_polkind_t's order (settings_table.h). */
const char *const ms_policy_names[] = {
    "base",
    "min_runtime",
    "min_energy",
    "ear_min_energy",
    "eamc_reorder",
    "eamc_priority_inc",
    "eamc_priority_inc_v",
    "metasched",
    "metasched_window",
    "home",
    NULL,
};
_Static_assert (sizeof (ms_policy_names) / sizeof (*ms_policy_names)
                    == POL_NKINDS + 1,
                "a name for every policy kind");
static const char *const dispatch_names[] = { "single", "siblings", NULL };

/* name, type, lo, hi, default, where, key, flag, choices, in
 * ms_settings_t, in ms_policy_t, help */
static const ms_sett_t rows[] = {
    /* metaschedd's live settings (doc/api.md "Settings") */
    { "policy", CHOICE, 0, POL_NKINDS - 1, POL_METASCHED, MS_SETT_LIVE,
      "policy", NULL, ms_policy_names, SET (policy), NONE,
      "the policy metaschedd routes jobs by" },
    { "w_energy", NUM, 0, 1, 0.5, LIVE_SIM, "w_energy", "w-energy", NULL,
      SET (w_energy), POL (w_energy),
      "weight of energy against response (0: response only, 1: energy only)" },
    { "w_carbon", NUM, 0, 100, 0, LIVE_SIM_MS, "w_carbon", "w-carbon", NULL,
      SET (w_carbon), POL (w_carbon),
      "weight of the predicted carbon against the job's least (0: none; "
      "needs a carbon signal)" },
    { "w_cost", NUM, 0, 100, 0, LIVE_SIM_MS, "w_cost", "w-cost", NULL,
      SET (w_cost), POL (w_cost),
      "weight of the predicted electricity cost against the job's least "
      "(0: none; needs a price signal)" },
    { "max_slowdown", NUM, 1, INF, 1.3, LIVE_SIM, "max_slowdown",
      "max-slowdown", NULL, SET (max_slowdown), POL (max_slowdown),
      "a candidate's runtime bound at most this times the best one's" },
    { "power_cap_w", NUM, 0, INF, 0, MS_SETT_LIVE | MS_SETT_PER_PART,
      "power_cap_w", NULL, NULL, NONE, NONE,
      "a partition's power cap in watts (power_cap_w.CLUSTER.PARTITION; 0: "
      "none)" },
    { "power_budget", TEXT, 0, 0, 0, MS_SETT_LIVE | MS_SETT_CONF,
      "power_budget", NULL, NULL, NONE, NONE,
      "power budgets: 'SCOPE WATTS [from TIME] [until TIME]; ...', SCOPE "
      "site or a cluster (none: no budget)" },
    { "dispatch_mode", CHOICE, 0, 1, DISPATCH_SINGLE, MS_SETT_LIVE,
      "dispatch_mode", NULL, dispatch_names, SET (dispatch_mode), NONE,
      "one entry per job, or siblings on other partitions" },
    { "siblings", INT, 2, 8, 2, MS_SETT_LIVE, "siblings", NULL, NULL,
      SET (siblings), NONE, "entries per job in siblings mode" },
    { "sibling_hold", NUM, 0, 100, 1, LIVE_SIM_MS, "sibling_hold",
      "sibling-hold", NULL, SET (sibling_hold), POL (sibling_hold),
      "a sibling on a busy partition waits this times its loss (runtimes)" },
    { "pref_margin", NUM, 0, 10, 0.2, LIVE_SIM, "pref_margin", "pref-margin",
      NULL, SET (pref_margin), POL (pref_margin),
      "a first choice led by less waits behind the jobs that prefer its "
      "partition more" },
    { "first_age", NUM, 0, 100, MS_FIRST_AGE, LIVE_SIM_MS, "first_age",
      "first-age", NULL, SET (first_age), POL (first_age),
      "...until its job waited this many predicted runtimes (0: never)" },
    { "drain_weight", NUM, 0, 100, 1, LIVE_SIM_MS, "drain_weight",
      "drain-weight", NULL, SET (drain_weight), POL (drain_weight),
      "weight of the wait a choice adds to jobs only its partition runs" },
    { "wait_share", NUM, 0, 1, 0.02, LIVE_SIM_MS, "wait_share", "wait-share",
      NULL, SET (wait_share), POL (wait_share),
      "share of the least predicted wait counted on every partition" },
    { "sibling_ahead", NUM, 0, 100, 0.25, LIVE_SIM_MS, "sibling_ahead",
      "sibling-ahead", NULL, SET (sibling_ahead), POL (sibling_ahead),
      "a sibling that ends before the first choice starts goes at nice 0" },
    { "stake_margin", NUM, 0, 1000, 3, LIVE_SIM_MS, "stake_margin",
      "stake-margin", NULL, SET (stake_margin), POL (stake_margin),
      "a sibling whose loss outweighs this many first-choice waits waits" },
    { "cal_lean", NUM, 0, 100, 1.2, LIVE_SIM_MS, "cal_lean", "cal-lean", NULL,
      SET (cal_lean), POL (cal_lean),
      "the energy odds' lean over their calibrated scale (0: none)" },
    { "cal_lean_idle", NUM, 0, 100, 0.95, LIVE_SIM_MS, "cal_lean_idle",
      "cal-lean-idle", NULL, SET (cal_lean_idle), POL (cal_lean_idle),
      "...where the jobs do not wait (0: cal_lean always)" },
    { "exploration", NUM, 0, 0.5, 0, MS_SETT_LIVE, "exploration", NULL, NULL,
      SET (exploration), NONE,
      "share of jobs sent to a partition to learn its predictions" },
    { "ab_share", NUM, 0, 0.5, 0, MS_SETT_LIVE, "ab_share", NULL, NULL,
      SET (ab_share), NONE,
      "share of new jobs routed by ab_policy, to measure what metasched "
      "saves (0: off)" },
    { "ab_policy", CHOICE, 0, POL_NKINDS - 1, POL_HOME, MS_SETT_LIVE,
      "ab_policy", NULL, ms_policy_names, SET (ab_policy), NONE,
      "the A/B baseline: home (the job's home partition at its nominal "
      "frequency) or a policy's name" },
    { "reroute_after_s", NUM, 0, INF, MS_REROUTE_AFTER_S,
      MS_SETT_LIVE | MS_SETT_POLICY | MS_SETT_MS_DEFAULT, "reroute_after_s",
      NULL, NULL, SET (reroute_after_s), POL (reroute_after_s),
      "re-route a job that waited this long (s; 0: never)" },
    { "max_reroutes", INT, 0, 1000, MS_MAX_REROUTES,
      MS_SETT_LIVE | MS_SETT_POLICY, "max_reroutes", NULL, NULL,
      SET (max_reroutes), POL (max_reroutes), "re-routes of one job at most" },
    { "priority_boost", BOOL, 0, 1, 1, MS_SETT_LIVE, "priority_boost", NULL,
      NULL, SET (priority_boost), NONE,
      "raise the priority of a job that waited past its prediction" },
    { "dependency_other_users", BOOL, 0, 1, 1, MS_SETT_LIVE,
      "dependency_other_users", NULL, NULL, SET (dependency_other_users), NONE,
      "--dependency may name other users' jobs" },
    { "refit_interval_s", NUM, 60, INF, 0, MS_SETT_LIVE | MS_SETT_ZERO_OK,
      "refit_interval_s", NULL, NULL, SET (refit_interval_s), NONE,
      "seconds between refits of the predictor (0: metaschedd.conf refit_s)" },
    { "max_queued_per_user", INT, 0, SETTINGS_LIMIT_MAX, 10000, MS_SETT_LIVE,
      "max_queued_per_user", NULL, NULL, SET (max_queued_per_user), NONE,
      "jobs a user may have waiting for dispatch (0: none; admins exempt)" },
    { "max_held_per_user", INT, 0, SETTINGS_LIMIT_MAX, 10000, MS_SETT_LIVE,
      "max_held_per_user", NULL, NULL, SET (max_held_per_user), NONE,
      "jobs a user may have held by --dependency (0: none)" },
    { "whatif_per_minute", INT, 0, SETTINGS_LIMIT_MAX, 60, MS_SETT_LIVE,
      "whatif_per_minute", NULL, NULL, SET (whatif_per_minute), NONE,
      "what-ifs (msbatch --test-only) a user may ask each minute (0: none)" },

    /* metaschedd.conf's [daemon] numbers, read at start
     * (doc/metaschedd.conf.5) */
    { "cycle_s", NUM, 0.05, 3600, 10, MS_SETT_CONF, "cycle_s", NULL, NULL, NONE,
      NONE, "seconds between scheduling cycles" },
    { "leader_takeover_s", NUM, 1, 3600, 10, MS_SETT_CONF, "leader_takeover_s",
      NULL, NULL, NONE, NONE,
      "a standby takes over after the leader was silent this long (s)" },
    { "refit_s", NUM, 60, 365 * 86400.0, 3600, MS_SETT_CONF | MS_SETT_ZERO_OK,
      "refit_s", NULL, NULL, NONE, NONE,
      "seconds between refits of the predictor (0: never)" },
    { "gate_wait_s", INT, 0, 3600, 30, MS_SETT_CONF, "gate_wait_s", NULL, NULL,
      NONE, NONE,
      "whole seconds a sibling's start gate tries to reach the daemon" },
    { "carbon_poll_s", NUM, 5, 86400, 300, MS_SETT_CONF, "carbon_poll_s", NULL,
      NULL, NONE, NONE,
      "seconds between polls of a zone's http(s) carbon signal" },
    { "carbon_max_age_s", NUM, 60, 30 * 86400.0, 3600, MS_SETT_CONF,
      "carbon_max_age_s", NULL, NULL, NONE, NONE,
      "a zone's carbon signal read longer ago, or whose last value is older, "
      "leaves energy alone there (s)" },
    { "threads", INT, 1, 64, 2, MS_SETT_CONF, "threads", NULL, NULL, NONE, NONE,
      "the API's threads" },
    { "request_timeout_s", NUM, 1, 600, 30, MS_SETT_CONF, "request_timeout_s",
      NULL, NULL, NONE, NONE, "an API request's time at most (s)" },
    { "max_connections", INT, 1, 4096, 256, MS_SETT_CONF, "max_connections",
      NULL, NULL, NONE, NONE, "open API connections at most" },
    { "max_connections_per_user", INT, 1, 4096, 16, MS_SETT_CONF,
      "max_connections_per_user", NULL, NULL, NONE, NONE,
      "open API connections of one user at most" },
    { "max_connections_per_address", INT, 1, 4096, 64, MS_SETT_CONF,
      "max_connections_per_address", NULL, NULL, NONE, NONE,
      "open API connections from one address at most" },
    { "max_script_bytes", INT, 16, 1024 * 1024, 1024 * 1024, MS_SETT_CONF,
      "max_script_bytes", NULL, NULL, NONE, NONE,
      "a submitted script's size at most (bytes)" },
    { "script_retention_days", NUM, 0, 36500, 30, MS_SETT_CONF,
      "script_retention_days", NULL, NULL, NONE, NONE,
      "days a finished job's script is kept (0: deleted at its end)" },

    /* the simulator's own policy options */
    { "theta", NUM, 0, INF, 0.1, MS_SETT_SIM | MS_SETT_POLICY, NULL, "theta",
      NULL, NONE, POL (theta), "ear_min_energy's time penalty" },
    { "congestion", NUM, 0, INF, 0, MS_SETT_SIM | MS_SETT_POLICY, NULL,
      "congestion", NULL, NONE, POL (congestion),
      "time weight grows by this times W/T of the partition" },
    { "sibling_slack", NUM, 0, INF, INF, MS_SETT_SIM | MS_SETT_POLICY, NULL,
      "sibling-slack", NULL, NONE, POL (sibling_slack),
      "siblings only within this of the best score (inf: everywhere)" },
    { "sibling_same_class", BOOL, 0, 1, 0, MS_SETT_SIM | MS_SETT_POLICY, NULL,
      "sibling-same-class", NULL, NONE, POL (sibling_same_class),
      "siblings at the first choice's priority class" },
    { "wait_weight", NUM, 0, INF, 0, MS_SETT_SIM | MS_SETT_POLICY, NULL,
      "wait-weight", NULL, NONE, POL (wait_weight),
      "weight of the predicted wait in the response term" },

    /* policy constants (policy.h) */
    { "t_weight", NUM, 0, INF, 1, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (t_weight), "EAMC's time weight" },
    { "v_threshold", NUM, 0, INF, 0.35, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (v_threshold), "EAMC PriorityInc-V's threshold" },
    { "sibling_grade", NUM, 0, INF, 1, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (sibling_grade), "the loss at which a sibling is one class down" },
    { "hold_busy", NUM, 0, INF, 0.5, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (hold_busy), "busy: a predicted wait over this many runtimes" },
    { "width_exp", NUM, 0, INF, 1, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (width_exp), "the energy odds times (nodes / mean)^this" },
    { "window_budget_s", NUM, 0, INF, 0.5, MS_SETT_POLICY, NULL, NULL, NULL,
      NONE, POL (window_budget_s), "metasched_window's time per solve (s)" },
    { "reroute_gain", NUM, 0, INF, MS_REROUTE_GAIN, MS_SETT_POLICY, NULL, NULL,
      NULL, NONE, POL (reroute_gain),
      "re-route when the start elsewhere is under this times the wait" },
    { "power_caps", BOOL, 0, 1, 1, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (power_caps), "honour the partitions' power caps" },
    { "scale_limits", BOOL, 0, 1, 1, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (scale_limits), "time limits from the runtime's upper bound" },
    { "job_sd", NUM, 0, INF, 0.05, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (job_sd), "relative SD of one job's runtime around its app's" },
    { "limit_z", NUM, 0, INF, 4, MS_SETT_POLICY, NULL, NULL, NULL, NONE,
      POL (limit_z), "a time limit covers this many SDs of log runtime" },
};

#define NROWS (sizeof (rows) / sizeof (rows[0]))

const ms_sett_t *
settings_table (size_t *n)
{
    if (n)
        *n = NROWS;
    return rows;
}

const ms_sett_t *
settings_table_find (const char *name)
{
    for (size_t i = 0; name && i < NROWS; i++)
        if (!strcmp (rows[i].name, name))
            return &rows[i];
    return NULL;
}

const ms_sett_t *
settings_table_key (const char *key, unsigned where)
{
    for (size_t i = 0; key && i < NROWS; i++)
        if (rows[i].key && (rows[i].where & where)
            && !strcmp (rows[i].key, key))
            return &rows[i];
    return NULL;
}

const ms_sett_t *
settings_table_flag (const char *flag)
{
    for (size_t i = 0; flag && i < NROWS; i++)
        if (rows[i].flag && !strcmp (rows[i].flag, flag))
            return &rows[i];
    return NULL;
}

/* "PLACE: NAME: MSG", or "setting 'NAME': MSG" with no place */
static int
bad_as (const char *name, const char *place, ms_error_t *errp, const char *msg)
{
    if (place)
        return ms_err (errp, MS_ERR_INPUT, "%s: %s: %s", place, name, msg);
    return ms_err (errp, MS_ERR_INPUT, "setting '%s': %s", name, msg);
}

static int
bad (const ms_sett_t *r, const char *place, ms_error_t *errp, const char *msg)
{
    return bad_as (r->name, place, errp, msg);
}

void
settings_table_range (const ms_sett_t *r, char *buf, size_t len)
{
    size_t used = 0;

    if (r->type == MS_SETT_BOOL) {
        snprintf (buf, len, "true or false");
        return;
    }
    if (r->type == MS_SETT_TEXT) {
        snprintf (buf, len, "text");
        return;
    }
    if (r->type == MS_SETT_CHOICE) {
        buf[0] = '\0';
        for (size_t i = 0; r->choices[i] && used < len; i++) {
            int n = snprintf (buf + used, len - used, "%s%s", i ? ", " : "",
                              r->choices[i]);
            if (n < 0)
                break;
            used += (size_t)n;
        }
        return;
    }
    if (isinf (r->hi))
        snprintf (buf, len, "%sat least %.15g",
                  (r->where & MS_SETT_ZERO_OK) ? "0 or " : "", r->lo);
    else
        snprintf (buf, len, "%s%.15g..%.15g",
                  (r->where & MS_SETT_ZERO_OK) ? "0 or " : "", r->lo, r->hi);
}

int
settings_table_check (const ms_sett_t *r, double v, const char *place,
                      ms_error_t *errp)
{
    return settings_table_check_as (r, r->name, v, place, errp);
}

int
settings_table_check_as (const ms_sett_t *r, const char *name, double v,
                         const char *place, ms_error_t *errp)
{
    char msg[400], range[300];

    if (r->type == MS_SETT_TEXT)
        return v == 0 ? 0 : bad_as (name, place, errp, "is text");
    if (isnan (v))
        return bad_as (name, place, errp, "not a number");
    if ((r->type == MS_SETT_INTEGER || r->type == MS_SETT_CHOICE
         || r->type == MS_SETT_BOOL)
        && v != floor (v))
        return bad_as (name, place, errp, "must be a whole number");
    if (v == 0 && (r->where & MS_SETT_ZERO_OK))
        return 0;
    if (v < r->lo || v > r->hi) {
        settings_table_range (r, range, sizeof (range));
        if (r->type == MS_SETT_CHOICE || r->type == MS_SETT_BOOL)
            snprintf (msg, sizeof (msg), "must be one of %s", range);
        else if (isinf (r->hi) && !(r->where & MS_SETT_ZERO_OK))
            snprintf (msg, sizeof (msg),
                      "%.15g is out of range (at least %.15g)", v, r->lo);
        else if (r->where & MS_SETT_ZERO_OK)
            snprintf (msg, sizeof (msg), "%.15g is out of range (%s)", v,
                      range);
        else
            snprintf (msg, sizeof (msg), "%.15g is out of range %s", v, range);
        return bad_as (name, place, errp, msg);
    }
    return 0;
}

static int
parse_bool (const char *t, double *v)
{
    if (!strcmp (t, "true") || !strcmp (t, "yes") || !strcmp (t, "on")
        || !strcmp (t, "1"))
        *v = 1;
    else if (!strcmp (t, "false") || !strcmp (t, "no") || !strcmp (t, "off")
             || !strcmp (t, "0"))
        *v = 0;
    else
        return -1;
    return 0;
}

int
settings_table_parse (const ms_sett_t *r, const char *text, const char *place,
                      double *v, ms_error_t *errp)
{
    char msg[400], range[300];
    char *end;
    double x;

    if (!text || !*text)
        return bad (r, place, errp, "no value");
    if (r->type == MS_SETT_TEXT)
        return bad (r, place, errp, "is text, read by its own reader");
    if (r->type == MS_SETT_BOOL) {
        if (parse_bool (text, &x) < 0) {
            snprintf (msg, sizeof (msg), "'%.64s' is not true or false", text);
            return bad (r, place, errp, msg);
        }
    } else if (r->type == MS_SETT_CHOICE) {
        size_t i;
        for (i = 0; r->choices[i] && strcmp (r->choices[i], text); i++)
            ;
        if (!r->choices[i]) {
            settings_table_range (r, range, sizeof (range));
            snprintf (msg, sizeof (msg), "'%.64s' is not one of %s", text,
                      range);
            return bad (r, place, errp, msg);
        }
        x = (double)i;
    } else {
        errno = 0;
        x = strtod (text, &end);
        if (*end || end == text || errno || !isfinite (x)) {
            snprintf (msg, sizeof (msg), "'%.64s' is not %s", text,
                      r->type == MS_SETT_INTEGER ? "an integer" : "a number");
            return bad (r, place, errp, msg);
        }
    }
    if (settings_table_check (r, x, place, errp) < 0)
        return -1;
    *v = x;
    return 0;
}

void
settings_table_format (const ms_sett_t *r, double v, char *buf, size_t len)
{
    if (r->type == MS_SETT_TEXT)
        snprintf (buf, len, "none");
    else if (r->type == MS_SETT_BOOL)
        snprintf (buf, len, "%s", v != 0 ? "true" : "false");
    else if (r->type == MS_SETT_CHOICE && v >= 0 && v < 64)
        snprintf (buf, len, "%s", r->choices[(size_t)v]);
    else if (isinf (v))
        snprintf (buf, len, "inf");
    else
        snprintf (buf, len, "%.15g", v);
}

void
settings_table_where (const ms_sett_t *r, char *buf, size_t len)
{
    static const struct {
        unsigned flag;
        const char *word;
    } words[] = {
        { MS_SETT_LIVE, "live" },
        { MS_SETT_CONF, "conf" },
        { MS_SETT_SIM, "sim" },
        { MS_SETT_POLICY, "policy" },
    };
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sizeof (words) / sizeof (words[0]); i++)
        if ((r->where & words[i].flag) && used < len) {
            int n = snprintf (buf + used, len - used, "%s%s", used ? "," : "",
                              words[i].word);
            if (n > 0)
                used += (size_t)n;
        }
}

/* The fields are reached by offset with memcpy: no pointer of one type
 * aliases a field of another. */
double
settings_table_get (const ms_sett_t *r, const void *base, size_t off)
{
    const char *p = (const char *)base + off;
    double d;
    bool b;
    int i;

    switch (r->type) {
    case MS_SETT_INTEGER:
    case MS_SETT_CHOICE:
        memcpy (&i, p, sizeof (i));
        return i;
    case MS_SETT_BOOL:
        memcpy (&b, p, sizeof (b));
        return b ? 1 : 0;
    default:
        memcpy (&d, p, sizeof (d));
        return d;
    }
}

void
settings_table_put (const ms_sett_t *r, void *base, size_t off, double v)
{
    char *p = (char *)base + off;
    bool b = v != 0;
    int i = (int)v;

    switch (r->type) {
    case MS_SETT_INTEGER:
    case MS_SETT_CHOICE:
        memcpy (p, &i, sizeof (i));
        break;
    case MS_SETT_BOOL:
        memcpy (p, &b, sizeof (b));
        break;
    default:
        memcpy (p, &v, sizeof (v));
    }
}

void
settings_table_defaults (ms_settings_t *s)
{
    memset (s, 0, sizeof (*s));
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i].set_off != NONE)
            settings_table_put (&rows[i], s, rows[i].set_off, rows[i].def);
}

void
settings_table_policy (ms_policy_t *pol, ms_polkind_t k)
{
    bool ms = policy_is_metasched (k);

    memset (pol, 0, sizeof (*pol));
    pol->kind = k;
    for (size_t i = 0; i < NROWS; i++) {
        const ms_sett_t *r = &rows[i];
        if (r->pol_off == NONE)
            continue;
        settings_table_put (
            r, pol, r->pol_off,
            ms || !(r->where & (MS_SETT_MS_ONLY | MS_SETT_MS_DEFAULT)) ? r->def
                                                                       : 0);
    }
}

void
settings_table_apply (const ms_sett_t *r, ms_policy_t *pol, double v)
{
    if (r->pol_off == NONE)
        return;
    if ((r->where & MS_SETT_MS_ONLY) && !policy_is_metasched (pol->kind))
        return;
    settings_table_put (r, pol, r->pol_off, v);
}
