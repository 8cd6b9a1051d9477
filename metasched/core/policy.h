/* policy.h - the scheduling policies and the core that applies them to
 * clusters through the backend interface only (doc/architecture.md "Layout" and
 * "Policies").
 *
 * A decision is a list of choices (partition, frequency, nice, rank): the
 * core submits one entry per choice with the same start-gate key (its own
 * job id), so the first entry to start wins. Every baseline and anchor is a
 * policy here, so one simulator run compares them side by side:
 *
 *   base                 nominal frequency, the job's optimal partition only
 *                        (EAMC "Base Slurm")
 *   min_runtime          per partition the f of least T; all partitions,
 *                        equal priority, in configuration order
 *   min_energy           the same with the f of least E
 *   ear_min_energy       least E with T <= (1 + theta) T(nominal) (EAR)
 *   eamc_reorder         EAMC f_opt and partition order, equal priority
 *   eamc_priority_inc    the same; the n-th partition of a job gets the
 *                        n-th priority class (all first choices first)
 *   eamc_priority_inc_v  the same; entries worse than the best part_eff by
 *                        more than the threshold (35%) go to the bottom
 *   metasched            admin weights between energy and response (wait
 *                        predicted from the partition's state plus runtime),
 *                        a maximum slowdown against the best candidate (on
 *                        the upper bound of T), per-partition power caps,
 *                        the energy weight's odds scaled with the job's
 *                        width against the site's mean; siblings on the
 *                        other partitions with a nice graded by their
 *                        score's loss against the best, and a first
 *                        choice that barely beats the next partition held
 *                        behind those that prefer it more (for at most a
 *                        few runtimes); re-routing of jobs that waited too
 *                        long.
 *   metasched_window     the same scores; the jobs that came during one
 *                        cycle are placed together by an integer program
 *                        under each partition's free node-seconds
 *                        (window.h), the greedy choice as fallback; one
 *                        job at a time (policy_decide) it is metasched.
 */
#ifndef MS_POLICY_H
#define MS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/core/candidates.h"
#include "metasched/core/window.h"
#include "metasched/common/error.h"
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

    /* the zones' signals (carbon.h; NULL: none, energy alone), and
     * whether a job with a deadline is held for its cleanest run before
     * it whatever the kind (the shifting baseline, base-shift in the
     * simulator; metasched's kinds shift where w_carbon > 0) */
    const struct ms_carbon *carbon;
    bool carbon_shift;
} ms_policy_t;

const char *policy_kind_name (ms_polkind_t k);
int policy_kind_parse (const char *s, ms_polkind_t *k);
/* Defaults of kind k, with its label. */
void policy_init (ms_policy_t *pol, ms_polkind_t k);
/* Rebuild the label after changing parameters. */
void policy_relabel (ms_policy_t *pol);
/* metasched's own kinds (greedy and window): its scores, moldable sizes,
 * aging, sibling hold and re-routes. */
bool policy_is_metasched (ms_polkind_t k);

typedef struct {
    size_t part;
    size_t cand; /* index into the candidates */
    int nice;
    int rank;
    double hold_s; /* not to start before this long after the decision
                      (a sibling held back: begin_time); 0: at once */
} ms_choice_t;

typedef struct {
    ms_choice_t c[MS_MAX_CHOICES];
    size_t n;
} ms_decision_t;

/* The EAMC-favoured partition of a job (equation 6.5 with t_weight 1 at
 * each partition's f_opt): "its optimal partition". SIZE_MAX if none. */
size_t policy_optimal_partition (const ms_cands_t *cs, size_t nparts);

/* Decide for one job; cs must carry predicted waits for metasched. An
 * empty decision means the job fits nowhere. */
void policy_decide (const ms_policy_t *pol, const ms_siteconf_t *conf,
                    const ms_cands_t *cs, const ms_view_t *view,
                    ms_decision_t *d);
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

/* metasched_window's decision for a batch of jobs at once (window.h):
 * cs[k] the candidates of job k (cs must carry predicted waits) and
 * nodes[k] its nodes; dec[k] gets job k's choices (n 0 when it has no
 * candidate), *st the solve's figures. The simulator's core and the
 * daemon both call it. */
void policy_decide_window (const ms_policy_t *pol, const ms_siteconf_t *conf,
                           const ms_cands_t *const *cs, const int *nodes,
                           size_t njobs, const ms_view_t *view, double now,
                           ms_decision_t *dec, ms_window_stats_t *st);

/* ---- the scheduling core: decide, dispatch, follow, re-route ---- */

typedef struct ms_sched ms_sched_t;

/* A job as the core receives it. */
typedef struct {
    const void *record; /* handed to the backend as the job model */
    const char *user;
    const char *name;
    int nodes;      /* a moldable job's minimum */
    int nodes_max;  /* moldable: at most this many (0: nodes) */
    int gpus;       /* GPUs per node; 0: a CPU job */
    size_t app;     /* index into the prediction table */
    size_t home;    /* home partition (index into conf->parts) */
    double base_s;  /* predicted length at the home's nominal f */
    double limit_s; /* the user's time limit there; 0: none */
    double submit;  /* first submit time (queue order) */
    double deadline; /* its --deadline (the core's time); 0: none */
} ms_jobdesc_t;

typedef struct {
    uint64_t decisions;
    uint64_t submits;  /* entries submitted */
    uint64_t rejected; /* jobs that fit nowhere */
    uint64_t rerouted;
    double decide_s; /* time spent deciding and dispatching */
    uint64_t windows;        /* window solves */
    uint64_t window_fallbacks; /* ... that took the greedy choice */
    double window_solve_s;   /* time in the solver */
} ms_schedstats_t;

#include "metasched/core/jobmix.h"

/* backends[i] is cluster i's backend (conf->clusters order). */
ms_sched_t *sched_new (const ms_policy_t *pol, const ms_siteconf_t *conf,
                       ms_backend_t *const *backends, const ms_predtab_t *tab);
void sched_free (ms_sched_t *s);

/* Count a job decided before the run (the site's history: metaschedd's
 * jobs before a replayed window) in the core's job mix as sched_submit
 * counts each job it decides (its width, the drain price's counts, the
 * calibration's front), at time `when`, without deciding it. */
void sched_prime (ms_sched_t *s, const ms_jobdesc_t *jd, double when);
/* Count a job seen to end before the run (its wait and runtime, s) as
 * metaschedd counted it (jobmix_observe). */
void sched_observe (ms_sched_t *s, double wait_s, double run_s);
/* Decide and dispatch one job now; *idp is the core's id (the start-gate
 * key), 0 when rejected. Under metasched_window the job waits in the
 * core's window until the next sched_cycle. */
int sched_submit (ms_sched_t *s, const ms_jobdesc_t *jd, double now,
                  uint64_t *idp, ms_error_t *errp);

/* What the core learns of its entries (from the simulator's listener or,
 * in the daemon, from polling backend_jobs). */
void sched_entry_started (ms_sched_t *s, uint64_t id, size_t part, uint64_t bid,
                          double now, double power_w);
void sched_entry_ended (ms_sched_t *s, uint64_t id, size_t part, uint64_t bid,
                        double now);
void sched_entry_cancelled (ms_sched_t *s, uint64_t id, size_t part,
                            uint64_t bid, bool started);

/* Chosen partition and frequency of a started job, its optimal partition
 * and the predicted runtime. */
int sched_job_choice (const ms_sched_t *s, uint64_t id, size_t *part,
                      uint32_t *f_khz, size_t *opt_part);

/* Lift a first choice held back behind jobs that prefer its partition
 * more to nice 0 once its job has waited first_age predicted runtimes. */
int sched_age (ms_sched_t *s, double now, ms_error_t *errp);

/* Re-route pending jobs that waited longer than the policy allows and
 * would start much earlier elsewhere (cancel and resubmit, bounded). */
int sched_reroute (ms_sched_t *s, double now, ms_error_t *errp);
/* metasched_window: place every job of the window (one integer program)
 * and dispatch them; nothing to do for other policies. */
int sched_cycle (ms_sched_t *s, double now, ms_error_t *errp);
/* Jobs queued on clusters or waiting in the window. */
size_t sched_npending (const ms_sched_t *s);

const ms_schedstats_t *sched_stats (const ms_sched_t *s);
const ms_view_t *sched_view (const ms_sched_t *s);
/* The candidates of the job the core decided last (sched_submit), with the
 * predictions it chose by. */
const ms_cands_t *sched_candidates (const ms_sched_t *s);

#endif /* MS_POLICY_H */
