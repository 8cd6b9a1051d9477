/* dlog.h - metaschedd's log (the bottom of metasched/daemon/: every
 * file may call it, it calls none of them): stderr or syslog (dconf
 * "log"); never tokens or passwords.
 */
#ifndef MS_DLOG_H
#define MS_DLOG_H

#include <syslog.h>

#include "metasched/daemon/dconf.h"

void daemon_log_open (dconf_log_t where);
void daemon_log (int prio, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif /* MS_DLOG_H */
