/* power.h - power budgets and the engine's rule that keeps the predicted
 * power of a site under them (doc/architecture.md, "Power budgets").
 *
 * A budget is a number of watts for one cluster or for the whole site,
 * in force over a window: always, every day between two times of day
 * (UTC; the simulator's clock starts at 00:00), or between two absolute
 * times. Several budgets of one scope all hold: the watts in force at t
 * are the least of those whose window covers t. The text form, one entry
 * a line or entries separated by ';' ('#' starts a comment):
 *
 *     SCOPE WATTS [from TIME] [until TIME]
 *
 *     site 700kW
 *     site 600 kW from 14:00 until 18:00     (every day)
 *     alpha 250kW from 2026-11-28T14:00      (once, from then on)
 *     beta 90000 from +2h                    (from two hours after BASE)
 *
 * SCOPE is "site" or a cluster of the configuration; WATTS a number > 0
 * with an optional unit W, kW or MW; TIME HH:MM[:SS] (a time of day),
 * YYYY-MM-DDTHH:MM[:SS] (UTC) or +N[s|m|h|d] (after the caller's base
 * time). A window with only "until" starts at 00:00 (times of day) or at
 * the beginning (absolute times).
 *
 * The rule (power_fits): a job may start on a candidate only if the
 * predicted power of what runs and is dispatched (each entry at the upper
 * bound of its power interval, until the upper bound of its predicted
 * end), plus every idle node at its idle power, plus the job at the upper
 * bound of its power, stays under every budget of its cluster and of the
 * site from now until the job's predicted end (upper bound). Running jobs
 * are never touched: where they alone exceed a budget, nothing starts
 * until their predicted power falls under it (power_clear_time says
 * when).
 */
#ifndef MS_POWER_H
#define MS_POWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
#include "metasched/core/candidates.h"
#include "partitions/clusterconf.h"

/* The scope of the whole site (a cluster's scope is its index). */
#define MS_POWER_SITE SIZE_MAX

typedef enum {
    MS_BW_ALWAYS = 0,
    MS_BW_DAILY, /* from, until: seconds of the day, [0, 86400] */
    MS_BW_ABS,   /* from, until: seconds on the caller's clock */
} ms_bwin_t;

typedef struct {
    size_t scope; /* cluster index or MS_POWER_SITE */
    double watts;
    ms_bwin_t win;
    double from, until; /* ABS: -INFINITY / INFINITY when open */
    unsigned line;      /* where the entry was read */
} ms_budget_t;

typedef struct {
    ms_budget_t *b;
    size_t n;
} ms_budgets_t;

#define MS_POWER_MAX_BUDGETS 1024

/* Parse budgets from text (origin names it in errors: "ORIGIN:LINE:
 * 'ENTRY': what is wrong"); base is the clock time that "+N" counts from.
 * Appends to *out (which may hold budgets already); on error *out is as
 * it was. */
int power_budgets_parse (const char *text, const char *origin,
                         const ms_siteconf_t *conf, double base,
                         ms_budgets_t *out, ms_error_t *errp);
void power_budgets_free (ms_budgets_t *bs);
/* The budgets as text that power_budgets_parse reads back (absolute times
 * as "+N" seconds from 0). */
void power_budgets_format (const ms_budgets_t *bs, const ms_siteconf_t *conf,
                           char *buf, size_t len);
/* The watts in force for scope at time t: the least of its budgets that
 * cover t; INFINITY when none does. */
double power_budget_at (const ms_budgets_t *bs, size_t scope, double t);
/* The first time after t when scope's budget may change; INFINITY when it
 * never does. */
double power_budget_next (const ms_budgets_t *bs, size_t scope, double t);
/* Whether any budget names scope (MS_POWER_SITE: the site's). */
bool power_budget_has (const ms_budgets_t *bs, size_t scope);

/* ---- the predicted power of the site ---- */

typedef struct ms_power ms_power_t;

/* Budgets are copied. */
ms_power_t *power_new (const ms_siteconf_t *conf, const ms_budgets_t *bs);
void power_free (ms_power_t *pw);
/* Replace the budgets (a copy); what is tracked stays. */
void power_set_budgets (ms_power_t *pw, const ms_budgets_t *bs);
const ms_budgets_t *power_budgets (const ms_power_t *pw);

/* The spread of a job's power around its app's prediction (relative SD
 * of one job's power, what a site's finished jobs show; the simulator:
 * its truth's noise) and how many SDs the upper bound covers (the
 * policy's limit_z): a candidate's upper bound is at least p * exp (z *
 * sd). Default 0: the predictor's interval alone. */
void power_set_spread (ms_power_t *pw, double sd, double z);
/* What a candidate draws above its nodes' idle power, at the upper bound
 * of its power: nodes * (p_hi - idle), p_hi the larger of the candidate's
 * e_hi / (t_hi * nodes) (the predictor's interval) and p * exp (z * sd)
 * (power_set_spread), at least its p. */
double power_cand_watts (const ms_power_t *pw, const ms_cand_t *c);

/* Track an entry of job `job` dispatched now to cluster: key is the
 * entry's own (the cluster's job id), watts its draw above idle, t_hi the
 * upper bound of its runtime, wait_s its predicted wait. A job's entries
 * on several partitions (siblings) count once: the largest on each
 * cluster and on the site. */
void power_add (ms_power_t *pw, uint64_t job, uint64_t key, size_t cluster,
                double watts, double t_hi, double wait_s, double now);
/* The entry (key on cluster) started now: it counts until now + its
 * t_hi. */
void power_start (ms_power_t *pw, uint64_t job, size_t cluster, uint64_t key,
                  double now);
/* The entry ended or was cancelled. */
void power_remove (ms_power_t *pw, uint64_t job, size_t cluster, uint64_t key);
/* The predicted draw of scope now: idle nodes and every tracked entry. */
double power_draw (const ms_power_t *pw, size_t scope);
/* ...at time t >= now, by the entries' predicted ends. */
double power_draw_at (const ms_power_t *pw, size_t scope, double t, double now);
size_t power_ntracked (const ms_power_t *pw);
/* The most a job could draw above idle now on any cluster: the least of
 * the site's room (budget minus draw) and the largest of the clusters'
 * (INFINITY without budgets); a quick bound before power_fits. */
double power_room (const ms_power_t *pw, double now);

/* Why a candidate does not fit: the scope whose budget it would exceed,
 * when, that budget and the predicted draw with the job. */
typedef struct {
    size_t scope;
    double at, budget, draw;
} ms_powerwhy_t;

/* The rule: does `watts` on cluster fit under every budget from now to
 * end? why (may be NULL) gets the first budget it would exceed. */
bool power_fits (const ms_power_t *pw, size_t cluster, double watts, double now,
                 double end, ms_powerwhy_t *why);
/* The earliest time >= now at which it would fit for dur seconds, by the
 * tracked entries' predicted ends and the budgets' schedules; INFINITY
 * when never (it alone exceeds a budget that never rises). */
double power_fit_time (const ms_power_t *pw, size_t cluster, double watts,
                       double dur, double now);
/* When the predicted draw of every scope is under its budget again: now
 * when it is; else the predicted time (INFINITY: not by the tracked
 * entries' ends), *scopep the scope over its budget. */
double power_clear_time (const ms_power_t *pw, double now, size_t *scopep);

/* Keep the candidates of cs that fit (power_fits over [now, now + w +
 * t_hi]), in their order; returns how many are kept. */
size_t power_filter (const ms_power_t *pw, const ms_siteconf_t *conf,
                     ms_cands_t *cs, double now);
/* The scope's name: the cluster's, or "site". */
const char *power_scope_name (const ms_siteconf_t *conf, size_t scope);
/* The scopes as slots 0..nclusters: each cluster's (its index), then the
 * site's. power_scope_at: slot i's scope (MS_POWER_SITE for the last);
 * power_scope_slot: a scope's slot (MS_POWER_SITE, or one past the
 * clusters: nclusters). */
size_t power_scope_at (const ms_siteconf_t *conf, size_t i);
size_t power_scope_slot (const ms_siteconf_t *conf, size_t scope);

/* ---- measured against predicted ---- */

/* How many recent finished runs of an (app, partition) the correction
 * reads, and the bounds it is clamped to. */
#define MS_POWER_CORR_RUNS 20
#define MS_POWER_CORR_MIN 0.5
#define MS_POWER_CORR_MAX 2.0

/* The factor on the predicted draw of an (app, partition)'s running jobs:
 * the median of ratios[0..n) (each a finished run's measured mean power
 * over its predicted power, newest first; only the first
 * MS_POWER_CORR_RUNS count), ratios not finite or not above 0 left out,
 * clamped to [MS_POWER_CORR_MIN, MS_POWER_CORR_MAX]. 1 (no correction)
 * when no ratio is usable. */
double power_correction (const double *ratios, size_t n);

#endif /* MS_POWER_H */
