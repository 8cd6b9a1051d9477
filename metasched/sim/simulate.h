/* simulate.h - one simulated run: a workload through one policy on the
 * simulated clusters of a site configuration (doc/architecture.md "Simulator").
 *
 * The truth. A job's real runtime on partition p at f is its workload
 * runtime (nominal frequency, home architecture) times the app's profile
 * ratio T_app(p, f) / T_app(home, nominal), times a per-job, per-partition
 * lognormal factor exp (noise_t * N(0, 1)) (none on the home architecture at
 * its nominal frequency, where the workload's runtime is the truth); its
 * per-node power is the profile's P_app(p, f) times exp (noise_p * N(0, 1)).
 * The profile is the predictor's own model (the only per-app figures there
 * are), so the noise is what makes the predictions imperfect; the draws are
 * hashes of the seed, the job and the partition, the same for every policy.
 * A job of the site's history (ms_wjob_t measured) takes, on the
 * architecture and at the frequency where it ran, the runtime and power
 * measured there, and elsewhere those scaled by the profile's ratios to
 * that place, with the same noise.
 *
 * A moldable job (nodes_max > 0) on n nodes runs its runtime on its minimum
 * times A(n) / A(nodes), A(n) = s + (1 - s) / n with its app's true serial
 * fraction s (serial).
 *
 * Under power budgets (budgets) the core holds jobs until the budgets
 * allow them (policy.h); the loop wakes the held jobs at every job end
 * and budget change. A job still held when nothing runs and no budget of
 * the next 30 days lets it start is never started: it counts as rejected
 * (ms_summary_t power_held).
 *
 * During an outage (outages) its cluster takes no new job: the core
 * decides on the clusters up and holds a job whose candidates are all on
 * clusters down until one is up again (sched_set_up, the engine's
 * engine_hold_down); what the cluster runs or holds queued goes on, as
 * slurmctld goes on while its slurmrestd does not answer.
 *
 * Every run checks its invariants (no partition over-allocated, start >=
 * submit, every job that was not rejected starts and ends exactly once on
 * a node count within its range) and
 * fails with MS_ERR_INPUT naming the first violation.
 */
#ifndef MS_SIMULATE_H
#define MS_SIMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/core/candidates.h"
#include "metasched/common/error.h"
#include "metasched/sim/metrics.h"
#include "metasched/sim/outage.h"
#include "metasched/core/policy.h"
#include "metasched/sim/workload.h"
#include "partitions/simcluster.h"

typedef struct {
    const ms_siteconf_t *conf;
    const ms_predtab_t *tab;
    const ms_workload_t *wl;
    size_t home; /* home partition */
    sim_backfill_t backfill;
    uint64_t seed;
    double noise_t, noise_p;
    bool exact_estimates; /* base the predictions on the true runtime */
    double reroute_period_s;
    double window_period_s; /* metasched_window: one cycle (60 s) */
    const double *serial; /* per app: the true serial fraction of its
                             moldable jobs (Amdahl); NULL: 0 */
    const char *progress; /* label for a progress line on stderr, or NULL */
    const ms_jobdesc_t *prime; /* jobs decided before the workload (the
                                  site's history before a replayed
                                  window), counted in every policy's job
                                  mix first (sched_prime) */
    size_t nprime;
    const double *seen; /* ...and the waits and runtimes (pairs) of those
                           seen to end, observed first (sched_observe) */
    size_t nseen;
    const ms_budgets_t *budgets; /* power budgets (core/power.h), the
                                    clock's 0 at 00:00; NULL: none */
    const ms_outages_t *outages; /* clusters that take no new job for a
                                    while (outage.h), from the first
                                    submit; NULL: none */
} ms_simsetup_t;

void simulate_setup_init (ms_simsetup_t *su);

/* Run pol; recs has wl->njobs entries; sum gets the metrics (label set). */
int simulate_run (const ms_simsetup_t *su, const ms_policy_t *pol,
                  ms_jobrec_t *recs, ms_summary_t *sum, ms_error_t *errp);

/* The text of a built-in cluster configuration: "default", "eamc", "kth"
 * or "curie" (the same as doc/examples/sim-NAME.conf); NULL if unknown. */
const char *simulate_builtin_config (const char *scenario);

#endif /* MS_SIMULATE_H */
