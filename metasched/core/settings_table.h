/* settings_table.h - every setting of metasched in one table: its name,
 * type, range, default, where it applies (metaschedd's live settings,
 * metaschedd.conf read at start, the simulator, a policy constant), its
 * configuration key, its simulator flag and a line of help
 * (doc/architecture.md "Settings").
 *
 * The policy defaults (policy_init), the daemon's settings (api/settings.c:
 * init, set, the JSON shown), `metasched config list` and the options of
 * `metasched simulate` are all read from it, so a new setting is one row
 * here plus the code that uses its value. Every value travels as a double
 * (integers, booleans and the index of a named choice fit in one exactly);
 * a row knows where it lives in ms_settings_t and in ms_policy_t.
 */
#ifndef MS_SETTINGS_TABLE_H
#define MS_SETTINGS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/common/error.h"
#include "metasched/core/decision.h"

#define SETTINGS_MAX_CAPS 256
#define SETTINGS_LIMIT_MAX 10000000
#define SETTINGS_TEXT_MAX 4096 /* a text setting's bytes, with its NUL */

typedef enum { DISPATCH_SINGLE = 0, DISPATCH_SIBLINGS } ms_dispatch_mode_t;

typedef struct {
    char key[130]; /* "CLUSTER.PARTITION" */
    double watts;  /* 0: none */
} ms_powercap_setting_t;

/* The admin's scheduling settings, changed at run time through the API
 * (doc/api.md "Settings"); each field is a row of the table below. */
typedef struct {
    ms_polkind_t policy;
    double w_energy;
    double w_carbon;
    double w_cost;
    double max_slowdown;
    ms_powercap_setting_t caps[SETTINGS_MAX_CAPS]; /* set ones only */
    size_t ncaps;
    ms_dispatch_mode_t dispatch_mode;
    int siblings;
    double sibling_hold;
    double pref_margin;
    double first_age;
    double drain_weight;
    double wait_share;
    double sibling_ahead;
    double cal_lean;
    double cal_lean_idle;
    double stake_margin;
    double exploration;
    double ab_share; /* share of jobs in the A/B baseline group (0: off) */
    int ab_policy;   /* their policy, an ms_polkind_t (default POL_HOME) */
    double reroute_after_s;
    int max_reroutes;
    bool priority_boost;
    bool dependency_other_users;
    double refit_interval_s;
    int max_queued_per_user;
    int max_held_per_user;
    int whatif_per_minute;
    /* power budgets (core/power.h's text form); power_budget_set: set
     * live, replacing metaschedd.conf's power_budget ("" then: none) */
    char power_budget[SETTINGS_TEXT_MAX];
    bool power_budget_set;
} ms_settings_t;

typedef enum {
    MS_SETT_NUMBER = 0,
    MS_SETT_INTEGER,
    MS_SETT_BOOL,
    MS_SETT_CHOICE, /* one of a list of names; the value is its index */
    MS_SETT_TEXT,   /* text, kept by its reader (no offset; the value
                       travels as 0: the default "none") */
} ms_sett_type_t;

/* Where a row applies (flags). */
enum {
    MS_SETT_LIVE = 1 << 0,       /* metaschedd's settings: `metasched config`,
                                    PUT /v1/settings; effective at once */
    MS_SETT_CONF = 1 << 1,       /* metaschedd.conf [daemon]: read at start */
    MS_SETT_SIM = 1 << 2,        /* a `metasched simulate` option */
    MS_SETT_POLICY = 1 << 3,     /* a field of ms_policy_t (policy_init) */
    MS_SETT_MS_ONLY = 1 << 4,    /* its policy default and value are
                                    metasched's kinds' only (others: 0) */
    MS_SETT_MS_DEFAULT = 1 << 5, /* its default is metasched's kinds' only
                                    (others: 0); a value set applies to
                                    every kind */
    MS_SETT_ZERO_OK = 1 << 6,    /* 0 is allowed below the range */
    MS_SETT_PER_PART = 1 << 7,   /* one per partition: KEY.CLUSTER.PARTITION */
};

#define MS_SETT_NONE ((size_t)-1)

typedef struct {
    const char *name; /* unique; the live key or conf key where it has one */
    ms_sett_type_t type;
    double lo, hi;    /* range (HUGE_VAL: none above) */
    double def;       /* default */
    unsigned where;   /* MS_SETT_* flags */
    const char *key;  /* configuration key (live or metaschedd.conf), or
                         NULL */
    const char *flag; /* simulate's long option without "--", or NULL */
    const char *const *choices; /* MS_SETT_CHOICE: NULL-terminated names */
    size_t set_off;             /* offset in ms_settings_t, or MS_SETT_NONE */
    size_t pol_off;             /* offset in ms_policy_t, or MS_SETT_NONE */
    const char *help;           /* one line */
} ms_sett_t;

/* The policy kinds' names, in ms_polkind_t's order, NULL after the last:
 * the choices of the settings policy and ab_policy, and policy_kind_name's. */
extern const char *const ms_policy_names[];

/* The rows, in the order shown; *n gets their count. */
const ms_sett_t *settings_table (size_t *n);
/* The row of a name, configuration key or simulator flag (NULL: none). */
const ms_sett_t *settings_table_find (const char *name);
const ms_sett_t *settings_table_key (const char *key, unsigned where);
const ms_sett_t *settings_table_flag (const char *flag);

/* Check v against r's type and range. On failure errp (MS_ERR_INPUT)
 * reads "PLACE: NAME: MESSAGE"; place may be NULL (then "setting 'NAME'"). */
int settings_table_check (const ms_sett_t *r, double v, const char *place,
                          ms_error_t *errp);
/* ...naming name instead of the row's (a per-partition key) */
int settings_table_check_as (const ms_sett_t *r, const char *name, double v,
                             const char *place, ms_error_t *errp);
/* Parse text as r's value (number, integer, true/false/yes/no/on/off, a
 * choice's name), then check it. */
int settings_table_parse (const ms_sett_t *r, const char *text,
                          const char *place, double *v, ms_error_t *errp);
/* The value as text ("0.5", "2", "true", "metasched", "none"). */
void settings_table_format (const ms_sett_t *r, double v, char *buf,
                            size_t len);
/* The range as text ("0..1", "at least 1", "0 or at least 60", names). */
void settings_table_range (const ms_sett_t *r, char *buf, size_t len);
/* Where it applies as text ("live", "conf", "sim", "policy", joined). */
void settings_table_where (const ms_sett_t *r, char *buf, size_t len);

/* Read or write r's value in a struct at its offset. */
double settings_table_get (const ms_sett_t *r, const void *base, size_t off);
void settings_table_put (const ms_sett_t *r, void *base, size_t off, double v);

/* Every default into s (no power caps). */
void settings_table_defaults (ms_settings_t *s);
/* The policy defaults of kind k into pol (the rest zero). */
void settings_table_policy (ms_policy_t *pol, ms_polkind_t k);
/* Put r's value v into pol where r applies to pol's kind. */
void settings_table_apply (const ms_sett_t *r, ms_policy_t *pol, double v);

#endif /* MS_SETTINGS_TABLE_H */
