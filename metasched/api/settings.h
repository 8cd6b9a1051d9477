/* settings.h - the scheduling settings an admin changes at run time
 * (doc/api.md "Settings"): defaults, validation of each key and value,
 * the settings table, and their mapping onto a policy; every key is a
 * row of core/settings_table.c. */
#ifndef MS_SETTINGS_H
#define MS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "metasched/common/error.h"
#include "metasched/core/policy.h"
#include "metasched/core/settings_table.h"
#include "partitions/clusterconf.h"

struct db;

/* ms_settings_t and its rows: core/settings_table.h */

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
