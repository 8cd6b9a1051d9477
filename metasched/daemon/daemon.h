/* daemon.h - metaschedd's scheduling cycle (doc/daemon.md): leadership,
 * reconciliation, cluster state, decisions with the policy code the
 * simulator runs, exactly-once dispatch, following jobs on the clusters,
 * re-routing, priority boost, siblings, refits.
 */
#ifndef MS_DAEMON_H
#define MS_DAEMON_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>

#include "metasched/api/api.h"
#include "metasched/daemon/dconf.h"
#include "metasched/daemon/dlog.h"
#include "metasched/daemon/dstate.h"
#include "metasched/common/error.h"

/* ms_daemon_t (dstate.h); daemon_log_open, daemon_log (dlog.h) */

/* Connect to PostgreSQL and to every cluster: an unreachable database, a
 * database behind this program's schema, are refused here with the reason
 * (naming the config's file:line). A cluster that does not answer is
 * logged and starts marked down: the daemon routes to the others and
 * negotiates its version when it answers. dc must outlive d. */
int daemon_new (const ms_dconf_t *dc, ms_daemon_t **dp, ms_error_t *errp);

/* The clusters that did not answer at daemon_new, one line each in buf
 * ("FILE:LINE: [cluster NAME]: URL is unreachable: WHY"); returns how many. */
size_t daemon_unreachable (const ms_daemon_t *d, char *buf, size_t len);

/* The API's hooks (ctx: the daemon). */
const ms_api_hooks_t *daemon_api_hooks (void);

/* Run cycles until *stop or *reload becomes non-zero; the cycle under way
 * is finished first. Returns 0. */
int daemon_run (ms_daemon_t *d, volatile sig_atomic_t *stop,
                volatile sig_atomic_t *reload);

/* Wake the cycle now (from any thread). */
void daemon_kick (ms_daemon_t *d);

bool daemon_is_leader (const ms_daemon_t *d);

void daemon_free (ms_daemon_t *d);

#endif /* MS_DAEMON_H */
