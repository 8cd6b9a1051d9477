/* log.h - where the collectors' notes, warnings and errors go.
 *
 * A job's output belongs to its user: nothing the collectors have to say
 * about their own work (an event PAPI cannot count, a counter file not
 * written, a start gate retry) may land in the job's stdout or stderr. It
 * goes to the node's log, syslog with the ident "metasched-collect"
 * (facility LOG_USER for the wrapper, which runs as the user, LOG_DAEMON
 * for the prolog and epilog, which run as root), and the wrapper also keeps
 * its notes in the job's counter file, where the epilog reads them and
 * names them in its own log line (doc/collectors.md, "Messages").
 *
 * The prolog and epilog also write their lines to stderr: slurmd does not
 * give a hook's output to the job, and a hook's script sends it to a file
 * (the test bed's collect.log), as an admin running one by hand sees it.
 */
#ifndef MS_COLLECT_LOG_H
#define MS_COLLECT_LOG_H

#include <stdbool.h>
#include <syslog.h>

#define COLLECT_LOG_IDENT "metasched-collect"

/* Log to syslog with facility (LOG_USER, LOG_DAEMON), and to stderr too
 * when to_stderr. Until called: syslog with LOG_USER, no stderr. */
void collect_log_open (int facility, bool to_stderr);

/* One line at prio (LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO); on
 * stderr it reads "metasched-collect LINE". */
void collect_log (int prio, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Tests: hand every line to fn instead of syslog and stderr (NULL: back to
 * syslog). */
typedef void collect_log_fn (int prio, const char *line, void *arg);
void collect_log_capture (collect_log_fn *fn, void *arg);

#endif /* MS_COLLECT_LOG_H */
