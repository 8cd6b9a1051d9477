/* decision.h - what the core's rules read and return: a policy's kind and
 * parameters (ms_policy_t; the kinds and their rules: policy.h), a
 * decision's entries (ms_choice_t, ms_decision_t) and the terms
 * metasched's ranking shows (ms_explain_t, ms_cand_why_t, policy_explain
 * in rank.c). policy.c, rank.c, eamc.c, choice.c, the window's decision
 * and the settings' table share them from here, below the files that
 * call each other (doc/architecture.md, "The engine").
 */
#ifndef MS_DECISION_H
#define MS_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/core/candidates.h"
#include "partitions/backend.h"
#include "partitions/clusterconf.h"

typedef enum {
    POL_BASE = 0,
    POL_MIN_RUNTIME,
    POL_MIN_ENERGY,
    POL_EAR_MIN_ENERGY,
    POL_EAMC_REORDER,
    POL_EAMC_PRIO,
    POL_EAMC_PRIO_V,
    POL_METASCHED,
    POL_METASCHED_WINDOW,
    POL_HOME,
    POL_NKINDS
} ms_polkind_t;

/* One priority class of entries: Slurm's nice steps between classes;
 * metasched's siblings are graded inside one step. */
#define MS_NICE_STEP 10000
#define MS_MAX_CHOICES 8
/* The partitions a policy ranks (the rest of a larger site is not
 * considered). */
#define MS_MAX_RANKED 64

typedef struct {
    ms_polkind_t kind;
    char label[48];          /* the name in tables: kind and parameters */
    double theta;            /* ear_min_energy, default 0.1 */
    double t_weight;         /* EAMC, default 1 */
    double v_threshold;      /* EAMC PriorityInc-V, default 0.35 */
    double w_energy;         /* metasched: weight of energy, default 0.5 */
    double w_carbon;         /* metasched: weight of the predicted carbon
                                against the job's least (0) */
    double w_cost;           /* ...of the predicted cost (0) */
    double max_slowdown;     /* metasched: T_hi <= this * best T (1.3),
                                unless it ends earlier than all within */
    double sibling_slack;    /* metasched: siblings within this of best
                                (INFINITY: on every partition) */
    double sibling_grade;    /* metasched: a sibling's nice is
                                MS_NICE_STEP * min (1, loss / this), loss
                                its score over the best's minus 1 (1);
                                0: one class step */
    double pref_margin;      /* metasched with siblings: a first choice
                                that scores this much better than the
                                job's next partition gets nice 0; a closer
                                one waits behind, up to this fraction of
                                a class step, and every sibling behind by
                                the same (0.2; 0: first choices all at
                                nice 0) */
    double first_age;        /* ...and a first choice held back goes to
                                nice 0 once the job has waited this many
                                of its predicted runtimes (metasched 3,
                                others 0: never) */
    double sibling_hold;     /* metasched: a sibling on a busy partition
                                may start only once its job has waited
                                this times its loss (score over the
                                first's, minus 1) times the first choice's
                                runtime (metasched 1, others 0: never) */
    double hold_busy;        /* ...busy: the partition's predicted wait is
                                over this many of the job's runtime there
                                (0.5) */
    double width_exp;        /* metasched: w_E's odds times (nodes /
                                ref_nodes)^this (1: one price of a
                                second of runtime for every job) */
    double cal_lean;         /* metasched: the odds are also times this
                                and the calibrated scale, at which the
                                recent jobs' static choices at w_E 0.5
                                beat the energy-delay choice's energy and
                                the energy-delay^1.5 choice's runtime by
                                equal margins (jobmix.c, mix_calibrate;
                                metasched 1.2; 0: no calibration), where
                                jobs wait: see cal_lean_idle */
    double cal_lean_idle;    /* metasched: the lean where the jobs do not
                                wait; from it to cal_lean as the observed
                                waits' share of the jobs' response goes
                                from 0 to MS_LEAN_WAIT_FULL (jobmix_lean;
                                metasched 0.95; 0: cal_lean always) */
    double odds_scale;       /* ...the product, kept by the core from
                                the jobs it decides (jobmix_apply); 0:
                                none */
    double ref_nodes;        /* metasched: the site's mean job width; the
                                core keeps it from the jobs it decides
                                (jobmix_apply); 0: no width term */
    double wait_weight;      /* metasched: weight of W^ in the response
                                term while siblings go to the other
                                partitions, which take whichever starts
                                first (0); with sibling_slack 0 (one entry)
                                the wait counts in full */
    double congestion;       /* metasched: time weight grows by this times
                                W/T of the partition (frequency choice) */
    double drain_weight;     /* metasched: weight of the wait a candidate
                                adds to the jobs that only its partition
                                can run (rank.c, drain_delay; metasched
                                1, others 0) */
    double wait_share;       /* metasched: the share of the job's least
                                predicted wait that its response term
                                counts on every partition alike, so that
                                runtime weighs less where the job waits
                                long anyway (rank.c, shared_wait;
                                metasched 0.02, others 0) */
    double sibling_ahead;    /* metasched: a sibling that its partition's
                                running jobs let start within this many of
                                its runtimes, and that would end before
                                they let the first choice start, goes at
                                nice 0 and unheld (rank.c, sibling_ahead;
                                metasched 0.25, others 0: never) */
    double stake_margin;     /* metasched: a sibling whose loss, in seconds
                                of its job's response, is worth over this
                                many times the first choice's predicted
                                wait is held until that wait has passed,
                                on a busy partition or an idle one
                                (rank.c, sibling_staked; metasched 3,
                                others 0: never) */
    /* ...the arrivals a second, on each partition, of the jobs that only
     * it can run and that need over half of it (captive_rate), and of
     * those that it and not every partition can run (restricted_rate);
     * the core keeps them from the jobs it decides (jobmix_apply) */
    double captive_rate[MS_MAX_RANKED];
    double restricted_rate[MS_MAX_RANKED];
    bool sibling_same_class; /* metasched: siblings at the first's priority */
    double reroute_after_s;  /* metasched: re-route after this wait; 0 off */
    double reroute_gain;     /* ...when predicted start elsewhere < gain*W */
    int max_reroutes;
    double window_budget_s; /* metasched_window: time budget per solve
                               (0.5) */
    bool power_caps;   /* metasched: honour power_cap_w */
    bool scale_limits; /* time limits from the upper bound of the job's
                          runtime there (engine_limit) */
    double job_sd;     /* relative SD of one job's runtime around its app's
                          prediction away from its home architecture and
                          nominal frequency (0.05; the simulator sets the
                          truth's noise, a site what its finished jobs
                          show) */
    double limit_z;    /* the limit covers the runtime's upper bound at
                          this many SDs of the log runtime (4) */
    int entries;       /* entries sent per job, at most: 1 one, more its
                          siblings (metaschedd's dispatch_mode and
                          siblings: engine_dispatch_mode); 0 every entry of
                          the decision (the simulator's) */

    /* the zones' signals (carbon.h; NULL: none, energy alone), and
     * whether a job with a deadline is held for its cleanest run before
     * it whatever the kind (the shifting baseline, base-shift in the
     * simulator; metasched's kinds shift where w_carbon > 0) */
    const struct ms_carbon *carbon;
    bool carbon_shift;
} ms_policy_t;

/* metasched's own kinds (greedy and window): its scores, moldable sizes,
 * aging, sibling hold and re-routes. */
static inline bool
policy_is_metasched (ms_polkind_t k)
{
    return k == POL_METASCHED || k == POL_METASCHED_WINDOW;
}

typedef struct {
    size_t part;
    size_t cand; /* index into the candidates */
    int nice;
    int rank;
    double hold_s; /* not to start before this long after the decision
                      (a sibling held back: begin_time); 0: at once */
    double shift_s; /* the part of hold_s that waits for a cleaner run
                       before the job's deadline (carbon): kept when the
                       entry goes alone (engine_entries); 0: none */
} ms_choice_t;

typedef struct {
    ms_choice_t c[MS_MAX_CHOICES];
    size_t n;
} ms_decision_t;

/* What metasched's decision over a job's candidates was made by
 * (policy_explain): the terms of its ranking. */
typedef struct {
    double w_energy;        /* the job's energy weight: w_E's odds times
                               its width term and the calibrated scale */
    double odds_scale;      /* the calibrated scale (0: none) */
    double shared_wait_s;   /* the wait counted on every partition alike
                               (wait_share of the least) */
    double wait_weight;     /* the predicted wait's weight in the response
                               term */
    double best_response_s; /* the response the keys are against (the
                               shared wait plus the job's best) */
} ms_explain_t;

/* ... and per candidate. */
typedef struct {
    bool admissible;      /* within the maximum slowdown and power caps */
    const char *excluded; /* why not admissible (static text), or NULL */
    double key;           /* its rank key: w E / E_min + (1 - w) R / R_best,
                             R its response with the shared wait, the
                             weighted wait and the drain delay (lower is
                             better; the partitions are ranked by their
                             picks' keys); NAN when not admissible */
    double freq_score;    /* its score among its partition's frequencies
                             (the least is the partition's pick) */
    double drain_s;       /* the drain delay its response counts, s */
    bool part_pick;       /* the frequency its partition is ranked by */
} ms_cand_why_t;

/* The terms metasched's ranking (policy_decide) used on cs, into *ex and
 * cw[i] for each candidate (cw: cs->n of them). false, and nothing
 * filled, for the other kinds (their rules: policy.h above) or without
 * candidates. */
bool policy_explain (const ms_policy_t *pol, const ms_siteconf_t *conf,
                     const ms_cands_t *cs, const ms_view_t *view,
                     ms_explain_t *ex, ms_cand_why_t *cw);

#endif /* MS_DECISION_H */
