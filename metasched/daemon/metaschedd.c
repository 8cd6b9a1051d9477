/* metaschedd.c - the meta-scheduler daemon (doc/metaschedd.8).
 *
 *   metaschedd [-f CONFIG] [-D]
 *
 * Reads its configuration (doc/metaschedd.conf.5) and the cluster
 * configuration, refuses to start when something is wrong or unreachable,
 * serves the API (api.c) and runs the scheduling cycle (daemon.c and the
 * files of its steps beside it, see README).
 * SIGTERM/SIGINT: finish the cycle under way, stop the API, close.
 * SIGHUP: read the configuration again; a bad one is logged and the old
 * one kept.
 */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "metasched/api/api.h"
#include "metasched/daemon/daemon.h"
#include "metasched/daemon/dconf.h"

static volatile sig_atomic_t stop_flag, reload_flag;

static void
on_signal (int sig)
{
    if (sig == SIGHUP)
        reload_flag = 1;
    else
        stop_flag = 1;
}

static void
usage (FILE *f)
{
    fprintf (f,
             "usage: metaschedd [-f CONFIG] [-D]\n"
             "  -f, --config FILE  configuration (default %s)\n"
             "  -D, --foreground   stay in the foreground (log to stderr "
             "unless the\n"
             "                     configuration says syslog)\n"
             "  -t, --check        check the configuration and the "
             "endpoints, then exit\n"
             "  -h, --help         this text\n"
             "  -V, --version      the version\n",
             DCONF_DEFAULT_PATH);
}

/* Configuration, checks, connections: everything that can refuse. */
static int
setup (const char *path, ms_dconf_t **dcp, ms_daemon_t **dp, ms_error_t *e)
{
    ms_dconf_t *dc = NULL;

    if (dconf_load (path, &dc, e) < 0)
        return -1;
    if (dconf_check (dc, e) < 0 || daemon_new (dc, dp, e) < 0) {
        dconf_free (dc);
        return -1;
    }
    *dcp = dc;
    return 0;
}

static ms_api_t *
start_api (const ms_dconf_t *dc, ms_daemon_t *d, ms_error_t *e)
{
    ms_api_conf_t ac;

    memset (&ac, 0, sizeof (ac));
    snprintf (ac.socket_path, sizeof (ac.socket_path), "%s", dc->socket);
    snprintf (ac.listen, sizeof (ac.listen), "%s", dc->listen);
    snprintf (ac.munge_socket, sizeof (ac.munge_socket), "%s",
              dc->munge_socket);
    ac.admin_users = dc->admin_users;
    ac.nadmin_users = dc->nadmin_users;
    ac.admin_groups = dc->admin_groups;
    ac.nadmin_groups = dc->nadmin_groups;
    ac.metrics_public = dc->metrics_public;
    ac.allow_partition = dc->allow_partition;
    ac.partition_names = dc->partition_requests != DCONF_PART_REFUSE;
    ac.cluster_requests = dc->cluster_requests == DCONF_PART_HONOR    ? 0
                          : dc->cluster_requests == DCONF_PART_REFUSE ? 1
                                                                      : 2;
    ac.cpu_freq_requests = dc->cpu_freq_requests == DCONF_FREQ_HONOR ? 0
                           : dc->cpu_freq_requests == DCONF_FREQ_IGNORE ? 1
                                                                        : 2;
    ac.max_script = dc->max_script_bytes;
    ac.db_conninfo = dc->database;
    ac.db_password_file = dc->password_file[0] ? dc->password_file : NULL;
    ac.threads = dc->threads;
    ac.request_timeout_s = dc->request_timeout_s;
    ac.max_connections = dc->max_connections;
    ac.max_connections_per_user = dc->max_connections_per_user;
    ac.max_connections_per_address = dc->max_connections_per_address;
    return api_start (&ac, daemon_api_hooks (), d, e);
}

int
main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'f' },
        { "foreground", no_argument, NULL, 'D' },
        { "check", no_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    const char *path = DCONF_DEFAULT_PATH;
    bool foreground = false, check = false;
    ms_dconf_t *dc = NULL;
    ms_daemon_t *d = NULL;
    ms_api_t *api = NULL;
    struct sigaction sa;
    ms_error_t e;
    int opt;

    while ((opt = getopt_long (argc, argv, "f:DthV", longopts, NULL)) != -1)
        switch (opt) {
        case 'f':
            path = optarg;
            break;
        case 'D':
            foreground = true;
            break;
        case 't':
            check = true;
            break;
        case 'h':
            usage (stdout);
            return 0;
        case 'V':
            printf ("metaschedd %s\n", PACKAGE_VERSION);
            return 0;
        default:
            usage (stderr);
            return 2;
        }
    if (optind < argc) {
        usage (stderr);
        return 2;
    }
    if (setup (path, &dc, &d, &e) < 0) {
        fprintf (stderr, "metaschedd: %s\n", e.text);
        return 1;
    }
    if (check) {
        /* the daemon itself starts with a cluster down; a check of the
         * configuration says which endpoints did not answer */
        char down[4096];
        if (daemon_unreachable (d, down, sizeof (down)) > 0) {
            fprintf (stderr,
                     "metaschedd: %s\nmetaschedd: %s: the configuration is "
                     "fine; the daemon would start and route to the other "
                     "clusters\n",
                     down, path);
            daemon_free (d);
            dconf_free (dc);
            return 1;
        }
        printf ("metaschedd: %s: configuration and endpoints are fine\n", path);
        daemon_free (d);
        dconf_free (dc);
        return 0;
    }
    if (!foreground && daemon (0, 0) < 0) {
        perror ("metaschedd: daemon");
        return 1;
    }
    daemon_log_open (dc->log);
    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_signal;
    sigemptyset (&sa.sa_mask);
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGHUP, &sa, NULL);
    signal (SIGPIPE, SIG_IGN);

    if (!(api = start_api (dc, d, &e))) {
        daemon_log (LOG_ERR, "API: %s", e.text);
        daemon_free (d);
        dconf_free (dc);
        return 1;
    }
    daemon_log (LOG_NOTICE, "started: %zu clusters, API on %s%s%s",
                dc->site->nclusters, dc->socket[0] ? dc->socket : "",
                dc->socket[0] && dc->listen[0] ? " and " : "", dc->listen);
    while (!stop_flag) {
        daemon_run (d, &stop_flag, &reload_flag);
        if (reload_flag && !stop_flag) {
            ms_dconf_t *ndc = NULL;
            ms_daemon_t *nd = NULL;
            ms_api_t *napi;

            reload_flag = 0;
            daemon_log (LOG_NOTICE, "SIGHUP: reading %s again", path);
            if (setup (path, &ndc, &nd, &e) < 0) {
                daemon_log (LOG_ERR,
                            "new configuration refused, keeping the "
                            "old one: %s",
                            e.text);
                continue;
            }
            /* the new API binds the same socket: stop the old one first */
            api_stop (api);
            api = NULL;
            if (!(napi = start_api (ndc, nd, &e))) {
                daemon_log (LOG_ERR,
                            "new configuration: API: %s; keeping "
                            "the old one",
                            e.text);
                daemon_free (nd);
                dconf_free (ndc);
                if (!(api = start_api (dc, d, &e))) {
                    daemon_log (LOG_ERR, "API: %s", e.text);
                    break;
                }
                continue;
            }
            daemon_free (d);
            dconf_free (dc);
            d = nd;
            dc = ndc;
            api = napi;
            daemon_log_open (dc->log);
            daemon_log (LOG_NOTICE, "new configuration in use");
        }
    }
    daemon_log (LOG_NOTICE, "stopping");
    if (api)
        api_stop (api);
    daemon_free (d);
    dconf_free (dc);
    return 0;
}
