/* test_settings_table.c - the one table of settings
 * (core/settings_table.c): every row is whole (a default in its range, a
 * unique name, key and flag, help); each live setting round-trips through
 * the daemon's settings and JSON; values out of range are refused naming
 * the setting, the value and the place; the policy defaults, the daemon's
 * settings and the simulator's options are the table's. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "metasched/api/settings.h"
#include "metasched/core/settings_table.h"
#include "tests/testutil.h"

static const ms_sett_t *rows;
static size_t nrows;

static void
setup (void)
{
    rows = settings_table (&nrows);
}

START_TEST (test_rows_whole)
{
    ck_assert_uint_gt (nrows, 40);
    for (size_t i = 0; i < nrows; i++) {
        const ms_sett_t *r = &rows[i];
        ms_error_t e;

        ck_assert_msg (r->name && r->name[0], "row %zu has no name", i);
        ck_assert_msg (r->help && strlen (r->help) > 10, "%s: no help",
                       r->name);
        ck_assert_msg (r->where != 0, "%s: applies nowhere", r->name);
        ck_assert_msg (r->lo <= r->hi, "%s: empty range", r->name);
        ck_assert_msg (settings_table_check (r, r->def, NULL, &e) == 0,
                       "%s: its default is refused: %s", r->name, e.text);
        if (r->type == MS_SETT_CHOICE)
            ck_assert_msg (r->choices && r->choices[0], "%s: no choices",
                           r->name);
        /* where it applies says where its value goes */
        if (r->where & (MS_SETT_LIVE | MS_SETT_CONF))
            ck_assert_msg (r->key && !strcmp (r->key, r->name),
                           "%s: its key is not its name", r->name);
        else
            ck_assert_msg (!r->key, "%s: a key but not live or conf", r->name);
        /* a text row is kept by its reader (power_budget) */
        if ((r->where & MS_SETT_LIVE) && !(r->where & MS_SETT_PER_PART)
            && r->type != MS_SETT_TEXT)
            ck_assert_msg (r->set_off != MS_SETT_NONE,
                           "%s: live but not in ms_settings_t", r->name);
        if (r->where & (MS_SETT_POLICY | MS_SETT_SIM))
            ck_assert_msg (r->pol_off != MS_SETT_NONE,
                           "%s: policy or sim but not in ms_policy_t", r->name);
        ck_assert_msg (!(r->where & MS_SETT_SIM) == !r->flag,
                       "%s: a simulator flag iff it applies there", r->name);
        for (const char *p = r->flag; p && *p; p++)
            ck_assert_msg ((*p >= 'a' && *p <= 'z') || *p == '-',
                           "--%s: not a plain long option", r->flag);
        /* unique name, key and flag */
        for (size_t j = 0; j < i; j++) {
            ck_assert_msg (strcmp (rows[j].name, r->name), "%s twice", r->name);
            ck_assert_msg (!r->key || !rows[j].key
                               || strcmp (rows[j].key, r->key),
                           "key %s twice", r->key);
            ck_assert_msg (!r->flag || !rows[j].flag
                               || strcmp (rows[j].flag, r->flag),
                           "--%s twice", r->flag);
        }
        ck_assert_ptr_eq (settings_table_find (r->name), r);
        if (r->flag)
            ck_assert_ptr_eq (settings_table_flag (r->flag), r);
    }
    ck_assert_ptr_null (settings_table_find ("no_such_setting"));
    ck_assert_ptr_null (settings_table_flag ("no-such-flag"));
}
END_TEST

/* The JSON value of v as row r takes it. */
static json_t *
json_of (const ms_sett_t *r, double v)
{
    switch (r->type) {
    case MS_SETT_BOOL:
        return json_boolean (v != 0);
    case MS_SETT_CHOICE:
        return json_string (r->choices[(int)v]);
    case MS_SETT_INTEGER:
        return json_integer ((json_int_t)v);
    default:
        return json_real (v);
    }
}

static double
value_of (const ms_sett_t *r, const json_t *j)
{
    switch (r->type) {
    case MS_SETT_BOOL:
        return json_is_true (j) ? 1 : 0;
    case MS_SETT_CHOICE:
        for (int i = 0; r->choices[i]; i++)
            if (!strcmp (r->choices[i], json_string_value (j)))
                return i;
        return -1;
    default:
        return json_number_value (j);
    }
}

/* Every live setting: set at its low end, high end (or a large value) and
 * default, then read back from the struct and from the JSON shown. */
START_TEST (test_live_round_trip)
{
    for (size_t i = 0; i < nrows; i++) {
        const ms_sett_t *r = &rows[i];
        double vals[3]
            = { r->lo, isinf (r->hi) ? r->lo + 12345 : r->hi, r->def };
        if (!(r->where & MS_SETT_LIVE) || (r->where & MS_SETT_PER_PART)
            || r->type == MS_SETT_TEXT)
            continue;
        for (int k = 0; k < 3; k++) {
            ms_settings_t s;
            ms_error_t e;
            json_t *j = json_of (r, vals[k]), *all;

            settings_init (&s);
            ck_assert_msg (settings_set (&s, r->key, j, &e) == 0,
                           "%s = %g refused: %s", r->key, vals[k], e.text);
            ck_assert_double_eq (settings_table_get (r, &s, r->set_off),
                                 vals[k]);
            all = settings_to_json (&s);
            ck_assert_msg (json_object_get (all, r->key), "%s not shown",
                           r->key);
            ck_assert_double_eq (value_of (r, json_object_get (all, r->key)),
                                 vals[k]);
            json_decref (all);
            json_decref (j);
        }
    }
}
END_TEST

/* power_budget, the text row: taken and shown back as given, "none"
 * clears it, not set shows null; what needs no site to refuse is refused
 * here with 400 naming the key (a number, "+N" times, control
 * characters, too long). */
START_TEST (test_text_setting)
{
    ms_settings_t s;
    ms_error_t e;
    json_t *all, *v;
    char *big = malloc (SETTINGS_TEXT_MAX + 16);
    const char *bad[] = { "site 600 kW from +2h", "site 1 kW\001", NULL };

    settings_init (&s);
    all = settings_to_json (&s);
    ck_assert (json_is_null (json_object_get (all, "power_budget")));
    json_decref (all);
    v = json_string ("site 600 kW from 14:00; alpha 200kW");
    ck_assert_int_eq (settings_set (&s, "power_budget", v, &e), 0);
    json_decref (v);
    ck_assert (s.power_budget_set);
    all = settings_to_json (&s);
    ck_assert_str_eq (json_string_value (json_object_get (all, "power_budget")),
                      "site 600 kW from 14:00; alpha 200kW");
    json_decref (all);
    v = json_string ("none");
    ck_assert_int_eq (settings_set (&s, "power_budget", v, &e), 0);
    json_decref (v);
    ck_assert_str_eq (s.power_budget, "");
    all = settings_to_json (&s);
    ck_assert_str_eq (json_string_value (json_object_get (all, "power_budget")),
                      "none");
    json_decref (all);
    v = json_integer (600);
    ck_assert_int_eq (settings_set (&s, "power_budget", v, &e), -1);
    ck_assert_int_eq (e.http_status, 400);
    ck_assert_msg (strstr (e.text, "power_budget"), "%s", e.text);
    json_decref (v);
    for (int i = 0; bad[i]; i++) {
        v = json_string (bad[i]);
        ck_assert_int_eq (settings_set (&s, "power_budget", v, &e), -1);
        ck_assert_int_eq (e.http_status, 400);
        ck_assert_msg (strstr (e.text, "power_budget"), "%s", e.text);
        json_decref (v);
    }
    memset (big, 'x', SETTINGS_TEXT_MAX + 8);
    big[SETTINGS_TEXT_MAX + 8] = '\0';
    v = json_string (big);
    ck_assert_int_eq (settings_set (&s, "power_budget", v, &e), -1);
    ck_assert_msg (strstr (e.text, "longer than"), "%s", e.text);
    json_decref (v);
    free (big);
    /* a refused update changes nothing */
    ck_assert_str_eq (s.power_budget, "");
}
END_TEST

/* Out of range: refused with the setting, the value and the place named
 * (the HTTP field and status; metaschedd.conf's file:line; the flag). */
START_TEST (test_out_of_range)
{
    for (size_t i = 0; i < nrows; i++) {
        const ms_sett_t *r = &rows[i];
        double bad[2];
        int nbad = 0;

        if (r->type != MS_SETT_NUMBER && r->type != MS_SETT_INTEGER)
            continue;
        bad[nbad++] = (r->where & MS_SETT_ZERO_OK) ? r->lo / 2 : r->lo - 1;
        if (!isinf (r->hi))
            bad[nbad++]
                = r->type == MS_SETT_INTEGER ? r->hi + 1 : r->hi * 2 + 1;
        for (int k = 0; k < nbad; k++) {
            char text[64], val[64];
            ms_error_t e;
            double v;

            if (r->type == MS_SETT_INTEGER && bad[k] != floor (bad[k]))
                continue;
            snprintf (text, sizeof (text), "%.15g", bad[k]);
            snprintf (val, sizeof (val), "%.15g", bad[k]);
            if ((r->where & MS_SETT_LIVE) && !(r->where & MS_SETT_PER_PART)) {
                ms_settings_t s, before;
                json_t *j = json_of (r, bad[k]);
                settings_init (&s);
                before = s;
                memset (&e, 0, sizeof (e));
                ck_assert_msg (settings_set (&s, r->key, j, &e) < 0,
                               "%s = %s accepted", r->key, text);
                ck_assert_int_eq (e.http_status, 400);
                ck_assert_msg (strstr (e.text, r->key) && strstr (e.text, val),
                               "'%s' does not name %s and %s", e.text, r->key,
                               val);
                ck_assert_msg (!memcmp (&s, &before, sizeof (s)),
                               "%s = %s changed the settings", r->key, text);
                json_decref (j);
            }
            if (r->where & MS_SETT_CONF) {
                ck_assert_int_lt (
                    settings_table_parse (r, text, "metaschedd.conf:7", &v, &e),
                    0);
                ck_assert_msg (strstr (e.text, "metaschedd.conf:7: ")
                                   && strstr (e.text, r->name)
                                   && strstr (e.text, val),
                               "%s", e.text);
            }
            if (r->flag) {
                char place[80];
                snprintf (place, sizeof (place), "--%s", r->flag);
                ck_assert_int_lt (settings_table_parse (r, text, place, &v, &e),
                                  0);
                ck_assert_msg (strstr (e.text, place)
                                   && strstr (e.text, r->name)
                                   && strstr (e.text, val),
                               "%s", e.text);
            }
        }
    }
}
END_TEST

START_TEST (test_parse)
{
    const ms_sett_t *r;
    ms_error_t e;
    double v;

    r = settings_table_find ("policy");
    ck_assert_int_eq (settings_table_parse (r, "min_energy", NULL, &v, &e), 0);
    ck_assert_double_eq (v, POL_MIN_ENERGY);
    ck_assert_int_lt (settings_table_parse (r, "fastest", "--x", &v, &e), 0);
    ck_assert_ptr_nonnull (strstr (e.text, "'fastest' is not one of base"));
    r = settings_table_find ("sibling_same_class");
    ck_assert_int_eq (settings_table_parse (r, "yes", NULL, &v, &e), 0);
    ck_assert_double_eq (v, 1);
    ck_assert_int_lt (settings_table_parse (r, "maybe", NULL, &v, &e), 0);
    r = settings_table_find ("siblings");
    ck_assert_int_lt (settings_table_parse (r, "2.5", NULL, &v, &e), 0);
    ck_assert_ptr_nonnull (strstr (e.text, "whole number"));
    r = settings_table_find ("w_energy");
    ck_assert_int_lt (settings_table_parse (r, "nan", NULL, &v, &e), 0);
    ck_assert_int_lt (settings_table_parse (r, "0.5x", NULL, &v, &e), 0);
    ck_assert_int_lt (settings_table_parse (r, "", NULL, &v, &e), 0);
    ck_assert_int_lt (settings_table_parse (r, "1e999", NULL, &v, &e), 0);
    r = settings_table_find ("refit_interval_s");
    ck_assert_int_eq (settings_table_parse (r, "0", NULL, &v, &e), 0);
    ck_assert_int_lt (settings_table_parse (r, "59", NULL, &v, &e), 0);
    ck_assert_ptr_nonnull (strstr (e.text, "59 is out of range (0 or at"));
}
END_TEST

/* The policy defaults are the table's, kind by kind: metasched's own rows
 * are 0 for the other kinds; and they are what policy_init gave before
 * the table (doc/simulator.md's tables depend on every digit). */
START_TEST (test_policy_defaults)
{
    for (int k = 0; k < POL_NKINDS; k++) {
        ms_policy_t pol;
        bool ms = policy_is_metasched ((ms_polkind_t)k);

        policy_init (&pol, (ms_polkind_t)k);
        ck_assert_str_eq (policy_kind_name ((ms_polkind_t)k),
                          settings_table_find ("policy")->choices[k]);
        for (size_t i = 0; i < nrows; i++) {
            const ms_sett_t *r = &rows[i];
            double want = r->def;
            if (r->pol_off == MS_SETT_NONE)
                continue;
            if (!ms && (r->where & (MS_SETT_MS_ONLY | MS_SETT_MS_DEFAULT)))
                want = 0;
            ck_assert_msg (settings_table_get (r, &pol, r->pol_off) == want,
                           "%s: %s is %g, not %g",
                           policy_kind_name ((ms_polkind_t)k), r->name,
                           settings_table_get (r, &pol, r->pol_off), want);
        }
        ck_assert_double_eq (pol.theta, 0.1);
        ck_assert_double_eq (pol.w_energy, 0.5);
        ck_assert_double_eq (pol.max_slowdown, 1.3);
        ck_assert_double_eq (pol.v_threshold, 0.35);
        ck_assert (isinf (pol.sibling_slack));
        ck_assert_double_eq (pol.pref_margin, 0.2);
        ck_assert_double_eq (pol.first_age, ms ? 3 : 0);
        ck_assert_double_eq (pol.cal_lean, ms ? 1.2 : 0);
        ck_assert_double_eq (pol.cal_lean_idle, ms ? 0.95 : 0);
        ck_assert_double_eq (pol.reroute_after_s, ms ? 4 * 3600 : 0);
        ck_assert_double_eq (pol.reroute_gain, 0.25);
        ck_assert_int_eq (pol.max_reroutes, 1);
        ck_assert (pol.power_caps && pol.scale_limits);
        ck_assert (!pol.sibling_same_class);
        ck_assert_double_eq (pol.job_sd, 0.05);
        ck_assert_double_eq (pol.limit_z, 4);
        ck_assert_double_eq (pol.odds_scale, 0);
        ck_assert_double_eq (pol.ref_nodes, 0);
    }
}
END_TEST

/* The daemon's defaults map onto the same policy as policy_init's; a
 * metasched-only setting reaches metasched's kinds only. */
START_TEST (test_daemon_policy)
{
    ms_settings_t s;
    ms_policy_t a, b;
    ms_error_t e;
    json_t *j;

    settings_init (&s);
    settings_apply_policy (&s, &a);
    policy_init (&b, POL_METASCHED);
    ck_assert (!memcmp (&a, &b, sizeof (a)));
    j = json_real (7);
    ck_assert_int_eq (settings_set (&s, "drain_weight", j, &e), 0);
    json_decref (j);
    settings_apply_policy (&s, &a);
    ck_assert_double_eq (a.drain_weight, 7);
    j = json_string ("min_energy");
    ck_assert_int_eq (settings_set (&s, "policy", j, &e), 0);
    json_decref (j);
    settings_apply_policy (&s, &a);
    ck_assert_double_eq (a.drain_weight, 0);
    ck_assert_double_eq (a.reroute_after_s, 4 * 3600); /* every kind */
}
END_TEST

int
main (void)
{
    Suite *su = suite_create ("settings_table");
    TCase *tc = tcase_create ("settings_table");

    tcase_add_checked_fixture (tc, setup, NULL);
    tcase_add_test (tc, test_rows_whole);
    tcase_add_test (tc, test_live_round_trip);
    tcase_add_test (tc, test_text_setting);
    tcase_add_test (tc, test_out_of_range);
    tcase_add_test (tc, test_parse);
    tcase_add_test (tc, test_policy_defaults);
    tcase_add_test (tc, test_daemon_policy);
    suite_add_tcase (su, tc);
    return test_run_suite (su);
}
