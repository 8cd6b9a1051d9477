/* dlog.c - metaschedd's log (dlog.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "metasched/daemon/dlog.h"

static dconf_log_t log_where = DCONF_LOG_STDERR;

void
daemon_log_open (dconf_log_t where)
{
    log_where = where;
    if (where == DCONF_LOG_SYSLOG)
        openlog ("metaschedd", LOG_PID, LOG_DAEMON);
}

void
daemon_log (int prio, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    if (log_where == DCONF_LOG_SYSLOG)
        vsyslog (prio, fmt, ap);
    else {
        static const char *const names[]
            = { "emerg",   "alert",  "crit", "error",
                "warning", "notice", "info", "debug" };
        char ts[32];
        struct tm tm;
        time_t t = time (NULL);
        localtime_r (&t, &tm);
        strftime (ts, sizeof (ts), "%Y-%m-%d %H:%M:%S", &tm);
        fprintf (stderr, "%s metaschedd[%d]: %s: ", ts, (int)getpid (),
                 names[prio & 7]);
        vfprintf (stderr, fmt, ap);
        fputc ('\n', stderr);
    }
    va_end (ap);
}
