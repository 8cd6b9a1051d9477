/* settings.h - the scheduling settings an admin changes at run time
 * (doc/api.md "Settings"): defaults, validation of each key and value,
 * the settings table, and their mapping onto a policy. */
#ifndef MS_SETTINGS_H
#define MS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "metasched/common/error.h"
#include "metasched/core/policy.h"
#include "partitions/clusterconf.h"

struct db;

#define SETTINGS_MAX_CAPS 256

typedef enum { DISPATCH_SINGLE = 0, DISPATCH_SIBLINGS } ms_dispatch_mode_t;

typedef struct {
    char key[130]; /* "CLUSTER.PARTITION" */
    double watts;  /* 0: none */
} ms_powercap_setting_t;

typedef struct {
    ms_polkind_t policy;
    double w_energy;
    double max_slowdown;
    ms_powercap_setting_t caps[SETTINGS_MAX_CAPS]; /* set ones only */
    size_t ncaps;
    ms_dispatch_mode_t dispatch_mode;
    int siblings;
    double sibling_hold; /* a sibling on a busy partition waits this times
                            its loss (policy.h) */
    double pref_margin;  /* a first choice led by less waits behind others
                            (policy.h) */
    double first_age;    /* ... until its job waited this many predicted
                            runtimes (0: never) */
    double drain_weight; /* the drain price's weight (policy.h) */
    double wait_share;   /* the share of the least predicted wait counted
                            on every partition (policy.h) */
    double sibling_ahead; /* a sibling that ends before the first choice
                             can start goes at nice 0 (policy.h) */
    double cal_lean;      /* the energy odds' lean over their calibrated
                             scale (policy.h; 0: no calibration) */
    double cal_lean_idle; /* ...where the jobs do not wait (policy.h; 0:
                             cal_lean always) */
    double stake_margin;  /* a sibling whose loss outweighs this many first-
                             choice waits waits for it (policy.h) */
    double exploration;
    double reroute_after_s;
    int max_reroutes;
    bool priority_boost;
    bool dependency_other_users; /* --dependency on other users' jobs */
    double refit_interval_s;
    /* per-user limits (0: none); admins are exempt (doc/api.md "Limits") */
    int max_queued_per_user; /* jobs waiting for dispatch, not held */
    int max_held_per_user;   /* jobs held by their --dependency */
    int whatif_per_minute;   /* what-ifs a user may ask each minute */
} ms_settings_t;

#define SETTINGS_LIMIT_MAX 10000000

/* The defaults of doc/api.md (power caps: those of the configuration). */
void settings_init (ms_settings_t *s);

/* Check one key and its value and set it in s. On failure errp (kind
 * MS_ERR_INPUT, http_status 400) names the key and s is unchanged. */
int settings_set (ms_settings_t *s, const char *key, const json_t *value,
                  ms_error_t *errp);

/* Apply every key of obj, all or nothing: on failure s is unchanged and
 * badkey (may be NULL) gets the offending key. */
int settings_update (ms_settings_t *s, const json_t *obj, char *badkey,
                     size_t badkeylen, ms_error_t *errp);

/* Every setting as a JSON object (a new reference). */
json_t *settings_to_json (const ms_settings_t *s);

/* Read the settings table over the defaults. Rows of keys this program
 * does not know, or with values it refuses, keep the default; they are
 * listed in ignored (may be NULL), comma-separated. */
int settings_load (struct db *db, ms_settings_t *s, char *ignored,
                   size_t ignoredlen, ms_error_t *errp);

/* Store the keys of obj (already checked with settings_update) in one
 * transaction, with who changed them. */
int settings_save (struct db *db, const json_t *obj, const char *updated_by,
                   ms_error_t *errp);

/* Map the settings onto a policy: policy_init of the chosen kind, then the
 * weights, slowdown and re-routing (policy.h ms_policy_t). */
void settings_apply_policy (const ms_settings_t *s, ms_policy_t *pol);

/* Set the power caps of the partitions the settings name (others keep the
 * configuration's); *unknown (may be NULL) counts caps naming no
 * configured partition. */
void settings_apply_site (const ms_settings_t *s, ms_siteconf_t *conf,
                          size_t *unknown);

#endif /* MS_SETTINGS_H */
