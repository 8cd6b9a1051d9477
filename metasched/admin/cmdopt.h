/* cmdopt.h - what the metasched subcommands' options share: the answer to
 * -h and to an option getopt refused, and the daemon's API (-s/--server,
 * -m/--munge-socket) of the subcommands that talk to metaschedd. */
#ifndef MS_CMDOPT_H
#define MS_CMDOPT_H

#include <stdbool.h>
#include <stdio.h>

#include "metasched/common/error.h"
#include "wire/client.h"

/* -h: the usage on stdout, exit status 0; any other option (one getopt
 * refused): the usage on stderr, 2. */
static inline int
cmdopt_usage (int opt, void (*usage) (FILE *))
{
    bool help = opt == 'h';

    usage (help ? stdout : stderr);
    return help ? 0 : 2;
}

/* Where the daemon's API is: server (-s; NULL: the client's default) and
 * munged's socket (-m; NULL: the client's default). */
typedef struct {
    const char *server, *munge;
} cmdopt_daemon_t;

/* Takes -s ADDR or -m PATH into d. */
static inline void
cmdopt_daemon_set (cmdopt_daemon_t *d, int opt, const char *arg)
{
    if (opt == 's')
        d->server = arg;
    else if (opt == 'm')
        d->munge = arg;
}

/* A client of the daemon's API at d: 0, or -1 with errp (nothing left
 * open). */
static inline int
cmdopt_daemon_open (const cmdopt_daemon_t *d, ms_client_t **cp,
                    ms_error_t *errp)
{
    if (ms_client_open (d->server, cp, errp) < 0)
        return -1;
    if (d->munge && ms_client_set_munge_socket (*cp, d->munge, errp) < 0) {
        ms_client_close (*cp);
        *cp = NULL;
        return -1;
    }
    return 0;
}

#endif /* MS_CMDOPT_H */
