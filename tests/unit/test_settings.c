/* test_settings.c - the admin settings: defaults, each key's checks, all
 * or nothing updates, and the mapping onto a policy. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "metasched/api/settings.h"
#include "tests/testutil.h"

static ms_settings_t s;
static ms_error_t e;

/* set key to the JSON text v; expect rc */
static int
set (const char *key, const char *v)
{
    json_t *j = json_loads (v, JSON_DECODE_ANY, NULL);
    int rc;

    ck_assert_msg (j != NULL, "bad test JSON %s", v);
    memset (&e, 0, sizeof (e));
    rc = settings_set (&s, key, j, &e);
    json_decref (j);
    return rc;
}

static void
refused (const char *key, const char *v)
{
    ms_settings_t before = s;

    ck_assert_msg (set (key, v) == -1, "%s = %s accepted", key, v);
    ck_assert_int_eq (e.http_status, 400);
    ck_assert_msg (strstr (e.text, key), "'%s' not named in '%s'", key, e.text);
    ck_assert_msg (memcmp (&before, &s, sizeof (s)) == 0,
                   "%s = %s changed the settings", key, v);
}

START_TEST (test_defaults)
{
    json_t *j;

    settings_init (&s);
    ck_assert_int_eq (s.policy, POL_METASCHED);
    ck_assert_double_eq (s.w_energy, 0.5);
    ck_assert_double_eq (s.max_slowdown, 1.3);
    ck_assert_int_eq (s.dispatch_mode, DISPATCH_SINGLE);
    ck_assert_int_eq (s.siblings, 2);
    ck_assert_double_eq (s.sibling_hold, 1);
    ck_assert_double_eq (s.pref_margin, 0.2);
    ck_assert_double_eq (s.first_age, 3);
    ck_assert_double_eq (s.drain_weight, 1);
    ck_assert_double_eq (s.wait_share, 0.02);
    ck_assert_double_eq (s.sibling_ahead, 0.25);
    ck_assert_double_eq (s.stake_margin, 3);
    ck_assert_double_eq (s.cal_lean, 1.2);
    ck_assert_double_eq (s.cal_lean_idle, 0.95);
    ck_assert_double_eq (s.exploration, 0);
    ck_assert_double_eq (s.reroute_after_s, 4 * 3600);
    ck_assert_int_eq (s.max_reroutes, 1);
    ck_assert (s.priority_boost);
    ck_assert_double_eq (s.refit_interval_s, 0); /* the daemon's refit_s */
    ck_assert_int_eq (s.max_queued_per_user, 10000);
    ck_assert_int_eq (s.max_held_per_user, 10000);
    ck_assert_int_eq (s.whatif_per_minute, 60);
    ck_assert_uint_eq (s.ncaps, 0);
    j = settings_to_json (&s);
    ck_assert_str_eq (json_string_value (json_object_get (j, "policy")),
                      "metasched");
    ck_assert_str_eq (json_string_value (json_object_get (j, "dispatch_mode")),
                      "single");
    ck_assert (json_is_true (json_object_get (j, "priority_boost")));
    ck_assert (json_real_value (json_object_get (j, "drain_weight")) == 1);
    ck_assert (json_real_value (json_object_get (j, "wait_share")) == 0.02);
    ck_assert (json_real_value (json_object_get (j, "sibling_ahead")) == 0.25);
    ck_assert (json_real_value (json_object_get (j, "stake_margin")) == 3);
    ck_assert (json_real_value (json_object_get (j, "cal_lean")) == 1.2);
    ck_assert (json_real_value (json_object_get (j, "cal_lean_idle")) == 0.95);
    ck_assert (json_real_value (json_object_get (j, "w_carbon")) == 0);
    ck_assert (json_real_value (json_object_get (j, "w_cost")) == 0);
    ck_assert_uint_eq (json_object_size (j), 28);
    json_decref (j);
}
END_TEST

START_TEST (test_each_key)
{
    settings_init (&s);
    ck_assert_int_eq (set ("policy", "\"min_energy\""), 0);
    ck_assert_int_eq (s.policy, POL_MIN_ENERGY);
    refused ("policy", "\"fastest\"");
    refused ("policy", "3");

    ck_assert_int_eq (set ("w_energy", "0.8"), 0);
    ck_assert_double_eq (s.w_energy, 0.8);
    ck_assert_int_eq (set ("w_energy", "1"), 0);
    refused ("w_energy", "1.5");
    refused ("w_energy", "-0.1");
    refused ("w_energy", "\"0.5\"");

    ck_assert_int_eq (set ("max_slowdown", "2"), 0);
    refused ("max_slowdown", "0.9");
    refused ("max_slowdown", "null");

    ck_assert_int_eq (set ("power_cap_w.beta.compute", "1500"), 0);
    ck_assert_uint_eq (s.ncaps, 1);
    ck_assert_str_eq (s.caps[0].key, "beta.compute");
    ck_assert_int_eq (set ("power_cap_w.beta.compute", "0"), 0);
    ck_assert_uint_eq (s.ncaps, 1);
    ck_assert_double_eq (s.caps[0].watts, 0);
    refused ("power_cap_w.beta.compute", "-1");
    refused ("power_cap_w.beta", "100");
    refused ("power_cap_w.beta.compute.x", "100");
    refused ("power_cap_w.Beta.compute", "100");

    ck_assert_int_eq (set ("dispatch_mode", "\"siblings\""), 0);
    ck_assert_int_eq (s.dispatch_mode, DISPATCH_SIBLINGS);
    refused ("dispatch_mode", "\"all\"");

    ck_assert_int_eq (set ("siblings", "8"), 0);
    refused ("siblings", "1");
    refused ("siblings", "9");
    refused ("siblings", "2.5");

    ck_assert_int_eq (set ("sibling_hold", "0"), 0);
    ck_assert_double_eq (s.sibling_hold, 0);
    ck_assert_int_eq (set ("sibling_hold", "2.5"), 0);
    refused ("sibling_hold", "-1");
    refused ("sibling_hold", "101");
    refused ("sibling_hold", "\"1\"");

    ck_assert_int_eq (set ("pref_margin", "0"), 0);
    ck_assert_double_eq (s.pref_margin, 0);
    ck_assert_int_eq (set ("pref_margin", "10"), 0);
    refused ("pref_margin", "-0.1");
    refused ("pref_margin", "10.5");
    refused ("pref_margin", "\"0.2\"");

    ck_assert_int_eq (set ("first_age", "0"), 0);
    ck_assert_double_eq (s.first_age, 0);
    ck_assert_int_eq (set ("first_age", "100"), 0);
    refused ("first_age", "-1");
    refused ("first_age", "101");
    refused ("first_age", "true");
    ck_assert_int_eq (set ("drain_weight", "0"), 0);
    ck_assert_double_eq (s.drain_weight, 0);
    ck_assert_int_eq (set ("drain_weight", "100"), 0);
    refused ("drain_weight", "-0.5");
    refused ("drain_weight", "100.5");
    refused ("drain_weight", "\"1\"");
    ck_assert_int_eq (set ("wait_share", "0"), 0);
    ck_assert_double_eq (s.wait_share, 0);
    ck_assert_int_eq (set ("wait_share", "1"), 0);
    refused ("wait_share", "-0.01");
    refused ("wait_share", "1.5");
    refused ("wait_share", "null");
    ck_assert_int_eq (set ("sibling_ahead", "0"), 0);
    ck_assert_double_eq (s.sibling_ahead, 0);
    ck_assert_int_eq (set ("sibling_ahead", "100"), 0);
    refused ("sibling_ahead", "-1");
    refused ("sibling_ahead", "101");
    refused ("sibling_ahead", "\"0.25\"");
    ck_assert_int_eq (set ("stake_margin", "0"), 0);
    ck_assert_double_eq (s.stake_margin, 0);
    ck_assert_int_eq (set ("stake_margin", "1000"), 0);
    refused ("stake_margin", "-1");
    refused ("stake_margin", "1001");
    refused ("stake_margin", "\"3\"");
    ck_assert_int_eq (set ("cal_lean", "0"), 0);
    ck_assert_double_eq (s.cal_lean, 0);
    ck_assert_int_eq (set ("cal_lean", "100"), 0);
    refused ("cal_lean", "-0.1");
    refused ("cal_lean", "100.5");
    refused ("cal_lean", "\"1\"");
    ck_assert_int_eq (set ("cal_lean_idle", "0"), 0);
    ck_assert_double_eq (s.cal_lean_idle, 0);
    ck_assert_int_eq (set ("cal_lean_idle", "100"), 0);
    refused ("cal_lean_idle", "-0.1");
    refused ("cal_lean_idle", "100.5");

    ck_assert_int_eq (set ("exploration", "0.5"), 0);
    refused ("exploration", "0.6");

    ck_assert_int_eq (set ("reroute_after_s", "0"), 0);
    refused ("reroute_after_s", "-5");

    ck_assert_int_eq (set ("max_reroutes", "0"), 0);
    refused ("max_reroutes", "-1");
    refused ("max_reroutes", "1.5");

    ck_assert_int_eq (set ("priority_boost", "false"), 0);
    ck_assert (!s.priority_boost);
    refused ("priority_boost", "0");
    ck_assert (s.dependency_other_users);
    ck_assert_int_eq (set ("dependency_other_users", "false"), 0);
    ck_assert (!s.dependency_other_users);
    refused ("dependency_other_users", "\"no\"");

    ck_assert_int_eq (set ("refit_interval_s", "60"), 0);
    refused ("refit_interval_s", "59");
    refused ("refit_interval_s", "-1");
    ck_assert_int_eq (set ("refit_interval_s", "0"), 0);

    /* the per-user limits: integers, 0 for none */
    ck_assert_int_eq (set ("max_queued_per_user", "0"), 0);
    ck_assert_int_eq (s.max_queued_per_user, 0);
    ck_assert_int_eq (set ("max_held_per_user", "100000"), 0);
    ck_assert_int_eq (s.max_held_per_user, 100000);
    ck_assert_int_eq (set ("whatif_per_minute", "5"), 0);
    ck_assert_int_eq (s.whatif_per_minute, 5);
    refused ("max_queued_per_user", "-1");
    refused ("max_held_per_user", "1.5");
    refused ("whatif_per_minute", "10000001");
    refused ("whatif_per_minute", "\"5\"");

    refused ("weight_energy", "0.5");
}
END_TEST

START_TEST (test_update_all_or_nothing)
{
    json_t *ok = json_loads ("{\"w_energy\": 0.9, \"siblings\": 3}", 0, NULL);
    json_t *bad = json_loads ("{\"w_energy\": 0.1, \"siblings\": 30}", 0, NULL);
    char badkey[80];

    settings_init (&s);
    memset (&e, 0, sizeof (e));
    ck_assert_int_eq (settings_update (&s, ok, badkey, sizeof (badkey), &e), 0);
    ck_assert_double_eq (s.w_energy, 0.9);
    ck_assert_int_eq (s.siblings, 3);
    ck_assert_int_eq (settings_update (&s, bad, badkey, sizeof (badkey), &e),
                      -1);
    ck_assert_str_eq (badkey, "siblings");
    ck_assert_ptr_nonnull (strstr (e.text, "siblings"));
    ck_assert_double_eq (s.w_energy, 0.9); /* nothing changed */
    ck_assert_int_eq (s.siblings, 3);
    json_decref (ok);
    json_decref (bad);
}
END_TEST

START_TEST (test_policy_mapping)
{
    ms_policy_t pol;

    settings_init (&s);
    ck_assert_int_eq (set ("w_energy", "0.75"), 0);
    ck_assert_int_eq (set ("max_slowdown", "1.6"), 0);
    ck_assert_int_eq (set ("reroute_after_s", "900"), 0);
    ck_assert_int_eq (set ("max_reroutes", "4"), 0);
    ck_assert_int_eq (set ("sibling_hold", "0.5"), 0);
    ck_assert_int_eq (set ("pref_margin", "0.4"), 0);
    ck_assert_int_eq (set ("first_age", "1.5"), 0);
    ck_assert_int_eq (set ("drain_weight", "2"), 0);
    ck_assert_int_eq (set ("wait_share", "0.1"), 0);
    ck_assert_int_eq (set ("sibling_ahead", "0.5"), 0);
    ck_assert_int_eq (set ("stake_margin", "5"), 0);
    ck_assert_int_eq (set ("cal_lean", "0.9"), 0);
    ck_assert_int_eq (set ("cal_lean_idle", "0.8"), 0);
    settings_apply_policy (&s, &pol);
    ck_assert_double_eq (pol.cal_lean, 0.9);
    ck_assert_double_eq (pol.cal_lean_idle, 0.8);
    ck_assert_double_eq (pol.drain_weight, 2);
    ck_assert_double_eq (pol.wait_share, 0.1);
    ck_assert_double_eq (pol.sibling_ahead, 0.5);
    ck_assert_double_eq (pol.stake_margin, 5);
    ck_assert_double_eq (pol.sibling_hold, 0.5);
    ck_assert_double_eq (pol.pref_margin, 0.4);
    ck_assert_double_eq (pol.first_age, 1.5);
    ck_assert_int_eq (pol.kind, POL_METASCHED);
    ck_assert_double_eq (pol.w_energy, 0.75);
    ck_assert_double_eq (pol.max_slowdown, 1.6);
    ck_assert_double_eq (pol.reroute_after_s, 900);
    ck_assert_int_eq (pol.max_reroutes, 4);
    ck_assert_str_eq (pol.label, "metasched-w0.75");

    ck_assert_int_eq (set ("policy", "\"ear_min_energy\""), 0);
    settings_apply_policy (&s, &pol);
    ck_assert_int_eq (pol.kind, POL_EAR_MIN_ENERGY);
    ck_assert_double_eq (pol.theta, 0.1); /* the policy's own default */
    ck_assert_double_eq (pol.sibling_hold, 0); /* metasched's alone */
    ck_assert_double_eq (pol.first_age, 0);
    ck_assert_double_eq (pol.drain_weight, 0);
    ck_assert_double_eq (pol.wait_share, 0);
    ck_assert_double_eq (pol.sibling_ahead, 0);
}
END_TEST

START_TEST (test_site_caps)
{
    ms_clusterconf_t cl[2] = { { .name = "alpha" }, { .name = "beta" } };
    ms_partconf_t parts[2]
        = { { .name = "batch", .cluster = 0, .power_cap_w = 10 },
            { .name = "compute", .cluster = 1 } };
    ms_siteconf_t conf
        = { .clusters = cl, .nclusters = 2, .parts = parts, .nparts = 2 };
    size_t unknown;

    settings_init (&s);
    ck_assert_int_eq (set ("power_cap_w.beta.compute", "1200"), 0);
    ck_assert_int_eq (set ("power_cap_w.delta.x", "5"), 0);
    settings_apply_site (&s, &conf, &unknown);
    ck_assert_double_eq (parts[0].power_cap_w, 10); /* the configuration's */
    ck_assert_double_eq (parts[1].power_cap_w, 1200);
    ck_assert_uint_eq (unknown, 1);
}
END_TEST

int
main (void)
{
    Suite *su = suite_create ("settings");
    TCase *tc = tcase_create ("settings");

    tcase_add_test (tc, test_defaults);
    tcase_add_test (tc, test_each_key);
    tcase_add_test (tc, test_update_all_or_nothing);
    tcase_add_test (tc, test_policy_mapping);
    tcase_add_test (tc, test_site_caps);
    suite_add_tcase (su, tc);
    return test_run_suite (su);
}
