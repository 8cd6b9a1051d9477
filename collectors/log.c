/* log.c - the collectors' notes and warnings into the node's log, never
 * into a job's output (log.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "collectors/log.h"

static bool opened, also_stderr;
static collect_log_fn *capture_fn;
static void *capture_arg;

void
collect_log_open (int facility, bool to_stderr)
{
    openlog (COLLECT_LOG_IDENT, LOG_PID, facility);
    opened = true;
    also_stderr = to_stderr;
}

void
collect_log_capture (collect_log_fn *fn, void *arg)
{
    capture_fn = fn;
    capture_arg = arg;
}

void
collect_log (int prio, const char *fmt, ...)
{
    char line[1536];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (line, sizeof (line), fmt, ap);
    va_end (ap);
    if (capture_fn) {
        capture_fn (prio, line, capture_arg);
        return;
    }
    if (!opened)
        collect_log_open (LOG_USER, false);
    syslog (prio, "%s", line);
    if (also_stderr)
        fprintf (stderr, "%s %s\n", COLLECT_LOG_IDENT, line);
}
