/* engine.h - the decision rules that metaschedd and the simulator share
 * (doc/architecture.md, "The engine"): functions of the settings
 * (ms_policy_t), the site, the job and its candidates that return what to
 * do; the callers keep only their input and output (the daemon: database,
 * Slurm, threads; the simulator: its clock and modelled clusters).
 *
 * Time limits: the limit of a job's entry on each candidate and which
 * candidates a partition's maximum time leaves. Candidates: every
 * (partition, frequency) a job may run on, with its predictions.
 */
#ifndef MS_ENGINE_H
#define MS_ENGINE_H

#include <stdint.h>

#include "metasched/common/jobspec.h"
#include "metasched/core/candidates.h"
#include "metasched/core/decision.h"
#include "metasched/core/power.h"
#include "partitions/clusterconf.h"

/* One time limit rule for metaschedd and the simulator (doc/daemon.md,
 * "One engine: time limits"): the rule the simulator's evaluation proved to
 * kill no more jobs than min_runtime (doc/evaluation.md (1)). */

/* A bound on a limit past which the predictions are not believed. */
#define MS_ENGINE_LIMIT_MAX_S (365 * 86400.0)

/* The partition's maximum time (s) as clusters.conf declares it;
 * INFINITY without one. */
double engine_part_max_s (const ms_siteconf_t *conf, size_t part);

/* The time limit (s) of an entry of a job on candidate c: the user's
 * limit where the job's length was measured (its home architecture at
 * nominal frequency); elsewhere the user's limit times the upper bound of
 * the predicted runtime ratio T(p, f) / T(home, nominal), that bound
 * covering the predictor's interval and the job's own spread (job_sd) at
 * limit_z SDs (a bound past MS_ENGINE_LIMIT_MAX_S: the user's limit);
 * never below the user's limit, nor above max_s (the partition's maximum
 * as the caller knows it, INFINITY: none) unless the user's own is. 0 when
 * the job has none. base_s is the job's length at home (c's predictions
 * are scaled from it: an array's by its waves). */
double engine_limit (const ms_policy_t *pol, const ms_siteconf_t *conf,
                     size_t home, double limit_s, double base_s,
                     const ms_cand_t *c, double max_s);
/* ... in whole minutes as Slurm takes it (rounded up; 0: none). */
uint32_t engine_limit_min (const ms_policy_t *pol, const ms_siteconf_t *conf,
                           size_t home, double limit_s, double base_s,
                           const ms_cand_t *c, double max_s);

/* Keep the candidates whose limit (engine_limit before the partition's
 * maximum: the upper bound of the job's runtime there) fits the
 * partition's maximum, max_s[part] (s, INFINITY: none; max_s NULL: the
 * maxima of clusters.conf): elsewhere the job could be killed at the
 * maximum before it ends. The home partition at nominal frequency keeps
 * the user's limit and stays when that fits; when no candidate fits, all
 * stay (their limits stop at the maximum). */
void engine_fit_limits (const ms_policy_t *pol, const ms_siteconf_t *conf,
                        size_t home, double limit_s, double base_s,
                        const double *max_s, ms_cands_t *cs);

/* ---- the candidate list ---- */

/* A job as the engine sees it. */
typedef struct {
    size_t app;           /* index into the prediction table */
    size_t home;          /* its home partition: the fastest at nominal f */
    int nodes;            /* a moldable job's minimum */
    int nodes_max;        /* moldable: at most this many (0: nodes) */
    const char *nodes_list; /* moldable: these sizes only (NULL: any) */
    int gpus;             /* GPUs per node; 0: a CPU job */
    double base_s;        /* its length at home, nominal f (its limit, or the
                             app's signature runtime without one) */
    double limit_s;       /* the user's time limit; 0: none */
    uint32_t ntasks;      /* an array's tasks (0 or 1: one job) */
    uint32_t max_running; /* its %N: at most N tasks at once; 0: any */
    const unsigned char *allowed; /* per partition: may it run there
                                     (placement, the clusters reachable,
                                     what the user asked); NULL: all */
    ms_cpufreq_t cpufreq;         /* the user's --cpu-freq (all 0: none): the
                                     frequency it names on each partition */
    double deadline; /* its --deadline, in the caller's time (0: none): it
                        may start later for a cleaner run (carbon.h) */
} ms_ejob_t;

/* An array on partition part: the tasks that run at once (*concp, may be
 * NULL: its %N, the partition's nodes) and in how many waves they run (1
 * for a job). */
double engine_array_waves (const ms_siteconf_t *conf, const ms_ejob_t *j,
                           size_t part, int *concp);

/* The job's candidates into cs: its predictions on every allowed
 * partition and frequency (with each partition's predicted wait at now
 * where view is not NULL), less the partitions without its GPUs, whose
 * limits (clusters.conf) refuse it, or whose maximum time (max_s as for
 * engine_fit_limits) its lengthened limit would pass; a GPU job's app
 * profile; a moldable job's node count on each (metasched's kinds; the
 * others take its minimum); an array's whole size (its runtime times its
 * waves, its energy times its tasks, the wait of the nodes its tasks take
 * at once). metaschedd and the simulator decide on this list. */
void engine_candidates (const ms_policy_t *pol, const ms_siteconf_t *conf,
                        const ms_predtab_t *tab, const ms_view_t *view,
                        const ms_ejob_t *j, const double *max_s, double now,
                        ms_cands_t *cs);

/* ---- sibling sets ---- */

/* metaschedd's dispatch_mode as the policy runs it (doc/daemon.md, "One
 * engine: holds and siblings"): with siblings, at most nsib entries a
 * job, every partition's best among them whatever its score, the first
 * choice the best at equal waits (the siblings take whichever starts
 * first); with one entry, the job waits where it goes, so its predicted
 * wait counts in full. The simulator's policy is the siblings' with every
 * entry of the decision (policy_init). */
void engine_dispatch_mode (ms_policy_t *pol, bool siblings, int nsib);

/* The entries of decision dec that go out, into out (may be dec): at most
 * pol->entries (0: all), one under power budgets (power: what is
 * dispatched is what runs, and a held job goes out only where it starts);
 * each at the nice and hold the policy gave it, except where one entry a
 * job goes out: it has no sibling to take its job elsewhere, so nice 0,
 * held only for its cleaner run before its deadline (ms_choice_t.shift_s). */
void engine_entries (const ms_policy_t *pol, bool power,
                     const ms_decision_t *dec, ms_decision_t *out);

/* ---- holds ---- */

/* Why a job that some partition could run is held back, sent nowhere. */
typedef enum {
    MS_HOLD_NONE = 0,
    MS_HOLD_DOWN,  /* every cluster of its candidates is unreachable */
    MS_HOLD_POWER, /* no candidate fits the power budgets */
} ms_holdwhy_t;

typedef struct {
    ms_holdwhy_t why;
    double until;    /* when it is expected to go; INFINITY: not known */
    size_t scope;    /* MS_HOLD_POWER: the budget's cluster or
                        MS_POWER_SITE */
    double budget_w; /* ...that budget, and the draw predicted with the
                        job */
    double draw_w;
} ms_hold_t;

/* The candidates cs (those on every cluster, after the rules) that are on
 * a cluster up (up[cluster] nonzero) stay; when none does, *h says the
 * job waits for its clusters (down[cluster], when not NULL, set for each
 * unreachable one it could run on) and 0 is returned. */
size_t engine_hold_down (const ms_siteconf_t *conf, const unsigned char *up,
                         ms_cands_t *cs, unsigned char *down, ms_hold_t *h);

/* Under power budgets pw (doc/daemon.md, "Power budgets"): the candidates
 * whose predicted draw fits every budget from their start (now plus their
 * predicted wait) to their end (power_filter) stay; when none does, *h
 * says which budget (the one its least-drawing candidate would pass, or
 * the scope over its budget now) and when that candidate is expected to
 * fit (until), and 0 is returned. */
size_t engine_hold_power (const ms_power_t *pw, const ms_siteconf_t *conf,
                          ms_cands_t *cs, double now, ms_hold_t *h);

/* ---- ageing and re-routing ---- */

/* The defaults of the rules below, for metaschedd's settings and the
 * simulator's policy alike: those the evaluation ran with
 * (doc/evaluation.md). */
#define MS_FIRST_AGE 3                  /* predicted runtimes */
#define MS_REROUTE_AFTER_S (4 * 3600.0) /* s; 0: never */
#define MS_MAX_REROUTES 1
#define MS_REROUTE_GAIN 0.25

/* A first choice held back behind jobs that prefer its partition more
 * (its nice metasched's) goes to nice 0 once its job has waited waited_s
 * of first_age times its predicted runtime there, pred_s: a job nearly
 * indifferent between partitions waits behind others for a while, never
 * for ever. */
bool engine_age_due (const ms_policy_t *pol, double waited_s, double pred_s);

/* Re-routing (doc/daemon.md, "One engine: ageing and re-routing"): a job
 * pending for waited_s after reroute_after_s, re-routed `reroutes` times
 * so far (fewer than max_reroutes), is decided again (engine_reroute_due);
 * it is cancelled and sent again when the new decision's first choice is
 * on another partition (elsewhere) whose predicted wait, wait_new_s, is
 * below reroute_gain times its predicted wait where it is, wait_cur_s
 * (engine_reroute_gains). */
bool engine_reroute_due (const ms_policy_t *pol, double waited_s, int reroutes);
bool engine_reroute_gains (const ms_policy_t *pol, bool elsewhere,
                           double wait_cur_s, double wait_new_s);

/* The re-route of a pending job that engine_reroute_due names, one rule
 * for metaschedd and the simulator: among its candidates cs (with their
 * predicted waits at now), under power budgets pw (NULL: none) only those
 * whose predicted draw fits every budget from their predicted start to
 * their end (power_filter), the policy's decision into d; true when it
 * gains (engine_reroute_gains): its first choice is on none of the
 * partitions where the job waits (cur, ncur of them), at a predicted
 * wait below reroute_gain times wait_cur_s, the job's wait there. */
bool engine_reroute (const ms_policy_t *pol, const ms_power_t *pw,
                     const ms_siteconf_t *conf, const ms_view_t *view,
                     ms_cands_t *cs, const size_t *cur, size_t ncur,
                     double wait_cur_s, double now, ms_decision_t *d);

#endif /* MS_ENGINE_H */
