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
 *   home                 the job's home partition at its nominal frequency
 *                        (no routing); under a power budget the core holds
 *                        the jobs first-come first-served until the budget
 *                        allows (the capped FCFS baseline, power.h)
 *
 * Under power budgets (sched_set_power) the core starts a job only where
 * power_fits: metasched's kinds choose by their scores among the
 * candidates that fit (another cluster with headroom, a lower frequency)
 * and hold the job where none does; the other kinds hold their choice,
 * first-come first-served. Held jobs go out at sched_release.
 */
#ifndef MS_POLICY_H
#define MS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/core/candidates.h"
#include "metasched/core/decision.h"
#include "metasched/core/power.h"
#include "metasched/core/window.h"
#include "metasched/common/error.h"
#include "partitions/backend.h"
#include "partitions/clusterconf.h"

const char *policy_kind_name (ms_polkind_t k);
int policy_kind_parse (const char *s, ms_polkind_t *k);
/* Defaults of kind k, with its label. */
void policy_init (ms_policy_t *pol, ms_polkind_t k);
/* Rebuild the label after changing parameters. */
void policy_relabel (ms_policy_t *pol);

/* The EAMC-favoured partition of a job (equation 6.5 with t_weight 1 at
 * each partition's f_opt): "its optimal partition". SIZE_MAX if none. */
size_t policy_optimal_partition (const ms_cands_t *cs, size_t nparts);
/* The same, with each partition's f_opt at t_weight 1 in fopt[p] (the
 * first min (nparts, MS_MAX_RANKED); SIZE_MAX where none), which
 * policy_decide_fopt hands to the EAMC kinds at that weight. */
size_t policy_optimal_fopt (const ms_cands_t *cs, size_t nparts,
                            size_t *fopt);
/* policy_optimal_fopt, with each partition's f_opt at t_weight in wbest
 * too (score_eamc_fopt's), found in the same pass. */
size_t policy_optimal_wfopt (const ms_cands_t *cs, size_t nparts,
                             double t_weight, size_t *best, size_t *wbest);

/* Decide for one job; cs must carry predicted waits for metasched. An
 * empty decision means the job fits nowhere. */
/* The home policy's choice, added to d: partition `home` at its nominal
 * frequency (the highest listed there when the nominal has no
 * prediction); a home not among the candidates (too wide, GPUs it lacks,
 * or SIZE_MAX: none) gives the first partition in the configuration's
 * order that can run the job, as its user would send it. */
void policy_home_choice (const ms_siteconf_t *conf, const ms_cands_t *cs,
                         size_t home, ms_decision_t *d);
void policy_decide (const ms_policy_t *pol, const ms_siteconf_t *conf,
                    const ms_cands_t *cs, const ms_view_t *view,
                    ms_decision_t *d);
/* policy_decide where the caller has the job's optimal partition of cs
 * already (policy_optimal_partition): base's choice takes it rather
 * than finding it again. */
void policy_decide_opt (const ms_policy_t *pol, const ms_siteconf_t *conf,
                        const ms_cands_t *cs, const ms_view_t *view,
                        size_t opt_part, ms_decision_t *d);
/* policy_decide_opt with the f_opt policy_optimal_fopt found too (fopt,
 * at t_weight 1) and, where wfopt is not NULL, each partition's f_opt at
 * the policy's t_weight (score_eamc_fopt's): the EAMC kinds take those of
 * their weight rather than finding them again. */
void policy_decide_fopt (const ms_policy_t *pol, const ms_siteconf_t *conf,
                         const ms_cands_t *cs, const ms_view_t *view,
                         size_t opt_part, const size_t *fopt,
                         const size_t *wfopt, ms_decision_t *d);

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
    /* per partition: may it run there (a heterogeneous job: the clusters
     * where every component fits, core/hetplace.h); NULL: everywhere */
    const unsigned char *allowed;
} ms_jobdesc_t;

typedef struct {
    uint64_t decisions;
    uint64_t submits;  /* entries submitted */
    uint64_t rejected; /* jobs that fit nowhere */
    uint64_t rerouted;
    uint64_t held;   /* jobs held for power at least once */
    uint64_t down_held;  /* jobs held for their clusters (down) at least
                            once */
    uint64_t down_moved; /* jobs whose first choice was on a cluster down
                            that went elsewhere */
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
/* Room for njobs jobs and their entries at once, so that a run of known
 * length grows no array job by job (a hint: more still fit). */
void sched_reserve (ms_sched_t *s, size_t njobs);

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
/* A hint: jd is the next job sched_submit will be given. What the core
 * kept for jobs like it is read into the cache meanwhile (nothing else
 * changes). */
void sched_prefetch (const ms_sched_t *s, const ms_jobdesc_t *jd);

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

/* Power budgets (power.h; copied), NULL or none: no budget; power_sd the
 * spread of a job's power around its prediction (power_set_spread, with
 * the policy's limit_z). Before the first job. */
void sched_set_power (ms_sched_t *s, const ms_budgets_t *bs, double power_sd);
const ms_power_t *sched_power (const ms_sched_t *s);
/* Dispatch the held jobs that the budgets now allow (first-come
 * first-served for kinds other than metasched's). */
int sched_release (ms_sched_t *s, double now, ms_error_t *errp);
/* Jobs held for power. */
size_t sched_nheld (const ms_sched_t *s);
/* The held jobs' core ids, in submit order. */
const uint64_t *sched_held (const ms_sched_t *s);

/* Outages (doc/architecture.md, "The engine"): which clusters take new
 * jobs from now (up[cluster] nonzero), all set before any job is decided
 * again. While a cluster is down, a job is
 * decided on the clusters up only and, where its candidates are all on
 * clusters down, waits for them (engine_hold_down, metaschedd's rule);
 * what the cluster runs and holds queued stays there, and no job of it is
 * updated, cancelled or re-routed. When it is up again, the waiting jobs
 * are decided again, oldest first (and, under power budgets, the held
 * ones). */
int sched_set_up (ms_sched_t *s, const unsigned char *up, double now,
                  ms_error_t *errp);
/* Jobs waiting for their clusters, and their core ids in submit order. */
size_t sched_nwaiting (const ms_sched_t *s);
const uint64_t *sched_waiting (const ms_sched_t *s);

const ms_schedstats_t *sched_stats (const ms_sched_t *s);
/* The core's view of the clusters: its entries are kept in it where
 * something reads it (metasched's kinds, re-routes, power budgets;
 * sched.c view_read), else it stays as made. */
const ms_view_t *sched_view (const ms_sched_t *s);
/* The candidates of the job the core decided last (sched_submit), with the
 * predictions it chose by (found again here where its decision was the
 * one kept for its kind of job: sched.c, jobmemo.h). */
const ms_cands_t *sched_candidates (ms_sched_t *s);

#endif /* MS_POLICY_H */
