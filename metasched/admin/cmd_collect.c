/* cmd_collect.c - `metasched collect ...`: the admin's side of the
 * collectors (doc/metasched-collect.1).
 *
 *   metasched collect flush    send the spooled job_runs rows (collector role)
 *   metasched collect ingest   Slurm accounting of finished jobs into
 *                              job_accounting (daemon role), reconciled
 *                              with job_runs
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collect.h"
#include "metasched/admin/cmdopt.h"
#include "metasched/admin/commands.h"
#include "metasched/common/util.h"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched collect [OPTIONS] flush\n"
             "       metasched collect [OPTIONS] ingest [CLUSTERS_CONF]\n"
             "\n"
             "  -c, --config FILE     collector configuration (flush; default "
             "%s)\n"
             "  -s, --set KEY=VALUE   override one of its keys\n"
             "  -d, --conninfo STR    ingest: the daemon's connection (default "
             "$MS_DB_CONNINFO)\n"
             "  -p, --password-file F ingest: 0600 file with its password\n",
             COLLECT_DEFAULT_CONF);
}

int
cmd_collect (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "conninfo", required_argument, NULL, 'd' },
        { "password-file", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    collect_conf_t conf;
    const char *confpath = getenv ("MS_COLLECT_CONF"), *conninfo = NULL,
               *pwfile = NULL;
    char *sets[32];
    int nsets = 0, opt;
    ms_error_t e;
    db_t *db;

    optind = 1;
    while ((opt = getopt_long (argc, argv, "c:s:d:p:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            confpath = optarg;
            break;
        case 's':
            if (nsets < 32)
                sets[nsets++] = optarg;
            break;
        case 'd':
            conninfo = optarg;
            break;
        case 'p':
            pwfile = optarg;
            break;
        case 'h':
        default:
            return cmdopt_usage (opt, usage);
        }
    }
    if (optind >= argc) {
        usage (stderr);
        return 2;
    }
    if (!strcmp (argv[optind], "flush")) {
        collect_conf_defaults (&conf);
        if (collect_conf_load (confpath ? confpath : COLLECT_DEFAULT_CONF,
                               confpath == NULL, &conf, &e) < 0) {
            fprintf (stderr, "metasched collect: %s\n", e.text);
            return 1;
        }
        for (int i = 0; i < nsets; i++) {
            char *eq = strchr (sets[i], '=');
            if (!eq) {
                fprintf (stderr, "metasched collect: --set %s: expected "
                                 "KEY=VALUE\n", sets[i]);
                return 2;
            }
            *eq = '\0';
            if (collect_conf_set (&conf, sets[i], eq + 1, &e) < 0) {
                fprintf (stderr, "metasched collect: --set %s: %s\n", sets[i],
                         e.text);
                return 2;
            }
        }
        return collect_flush_main (&conf, "metasched collect flush");
    }
    if (!strcmp (argv[optind], "ingest")) {
        const char *path = optind + 1 < argc ? argv[optind + 1]
                           : getenv ("MS_CLUSTERS_CONF")
                               ? getenv ("MS_CLUSTERS_CONF")
                               : MS_DEFAULT_CLUSTERS_CONF;
        db_opts_t o;
        collect_ingest_stats_t st;
        int rc;

        memset (&o, 0, sizeof (o));
        o.conninfo = conninfo ? conninfo
                     : getenv ("MS_DB_CONNINFO") ? getenv ("MS_DB_CONNINFO")
                                                 : "dbname=metasched user=ms_daemon";
        o.password_file = pwfile;
        o.retry_max_ms = 5000;
        o.connect_timeout_s = 5; /* libpq's connect_timeout: never hang */
        o.application_name = "metasched collect ingest";
        if (db_open (&o, &db, &e) < 0) {
            fprintf (stderr, "metasched collect ingest: %s\n", e.text);
            return 1;
        }
        rc = collect_ingest (path, db, &st, &e);
        db_close (db);
        if (rc < 0) {
            fprintf (stderr, "metasched collect ingest: %s\n", e.text);
            return 1;
        }
        printf ("%zu finished jobs ingested; %zu accounted jobs never "
                "measured; %zu cluster%s unreachable\n",
                st.upserted, st.missing, st.clusters_failed,
                st.clusters_failed == 1 ? "" : "s");
        if (rc > 0)
            fprintf (stderr, "metasched collect ingest: warning: %s\n", e.text);
        return rc > 0 ? 1 : 0;
    }
    fprintf (stderr, "metasched collect: unknown command '%s'\n", argv[optind]);
    usage (stderr);
    return 2;
}
