/* engine.h - the decision rules that metaschedd and the simulator share
 * (doc/architecture.md, "The engine"): functions of the settings
 * (ms_policy_t), the site, the job and its candidates that return what to
 * do; the callers keep only their input and output (the daemon: database,
 * Slurm, threads; the simulator: its clock and modelled clusters).
 *
 * Time limits: the limit of a job's entry on each candidate and which
 * candidates a partition's maximum time leaves.
 */
#ifndef MS_ENGINE_H
#define MS_ENGINE_H

#include "metasched/core/candidates.h"
#include "metasched/core/policy.h"
#include "partitions/clusterconf.h"

/* The time limit (s) of an entry of a job on candidate c: the user's
 * limit where the job's length was measured (its home architecture at
 * nominal frequency); elsewhere the user's limit times the upper bound of
 * the predicted runtime ratio T(p, f) / T(home, nominal), that bound
 * covering the predictor's interval and the job's own spread (job_sd) at
 * limit_z SDs; never below the user's limit, nor above the partition's
 * max_time (clusters.conf) unless the user's own is. 0 when the job has
 * none. */
double engine_limit (const ms_policy_t *pol, const ms_siteconf_t *conf,
                     size_t home, double limit_s, double base_s,
                     const ms_cand_t *c);

/* Keep the candidates whose limit (engine_limit before the
 * partition's maximum: the upper bound of the job's runtime there) fits
 * the partition's max_time in clusters.conf: elsewhere the job could be
 * killed at the maximum before it ends. The home partition at nominal
 * frequency keeps the user's limit and stays when that fits; when no
 * candidate fits, all stay (their limits stop at the maximum). */
void engine_fit_limits (const ms_policy_t *pol, const ms_siteconf_t *conf,
                        size_t home, double limit_s, double base_s,
                        ms_cands_t *cs);

#endif /* MS_ENGINE_H */
