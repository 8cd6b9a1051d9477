/* powerplace.h - where a job held under power budgets goes out: the rule
 * metaschedd and the simulator share (doc/architecture.md, "The engine").
 * Above the policies (it asks policy_decide among the places it allows),
 * beside engine.h's rules, which lie below them.
 */
#ifndef MS_POWERPLACE_H
#define MS_POWERPLACE_H

#include "metasched/core/candidates.h"
#include "metasched/core/decision.h"
#include "metasched/core/power.h"
#include "partitions/clusterconf.h"

/* The place of a held job under power budgets pw (doc/simulator.md,
 * "Power budgets"; EASY's rule on power and nodes): it goes out only to a
 * place where it starts now (no predicted wait: cs with the partitions'
 * waits at now) with its power under every budget until its predicted
 * end, and, while an older job is held, only if it ends (upper bound) by
 * that job's reservation `until`. metasched's kinds choose by their
 * scores among those places (cs is left with them), the others take the
 * first of their own choices that is one. 0: d to dispatch (one entry,
 * nice 0, unheld); 1: held (*resvp, when not NULL: its
 * reservation, the earliest time one of its places has its nodes and its
 * power); -1: it fits nowhere. */
int engine_power_place (const ms_policy_t *pol, const ms_power_t *pw,
                        const ms_siteconf_t *conf, const ms_view_t *view,
                        ms_cands_t *cs, double now, double until, double *resvp,
                        ms_decision_t *d);

#endif /* MS_POWERPLACE_H */
