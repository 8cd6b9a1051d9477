/* cmd_db.c - `metasched db ...`: the schema and what the database holds
 * (doc/metasched-db.1).
 *
 *   metasched db migrate [--target N]   apply migrations, re-apply grants
 *   metasched db version                schema version of the database
 *   metasched db sync [CLUSTERS_CONF]   clusters and partitions into it
 *   metasched db fit [--robust]         fit EAR models from job_runs, store
 *
 * The connection: --conninfo or $MS_DB_CONNINFO (default "dbname=metasched
 * user=ms_daemon"), with the password in a pgpass file named by passfile=
 * or in --password-file; both must be 0600. Never a password in argv.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/admin/cmdopt.h"
#include "metasched/admin/commands.h"
#include "metasched/common/util.h"
#include "partitions/clusterconf.h"
#include "predictor/predictor.h"

#define DB_DEFAULT_CONNINFO "dbname=metasched user=ms_daemon"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched db [OPTIONS] migrate [--target N]\n"
             "       metasched db [OPTIONS] version\n"
             "       metasched db [OPTIONS] sync [CLUSTERS_CONF]\n"
             "       metasched db [OPTIONS] fit [--robust]\n"
             "\n"
             "  -d, --conninfo STR       libpq connection string (default "
             "$MS_DB_CONNINFO\n"
             "                           or \"" DB_DEFAULT_CONNINFO "\")\n"
             "  -p, --password-file F    0600 file holding the password\n"
             "  -r, --retry-ms N         wait up to N ms for the server "
             "(default 5000)\n");
}

int
cmd_db (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "conninfo", required_argument, NULL, 'd' },
        { "password-file", required_argument, NULL, 'p' },
        { "retry-ms", required_argument, NULL, 'r' },
        { "target", required_argument, NULL, 't' },
        { "robust", no_argument, NULL, 'R' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    db_opts_t o;
    db_t *db;
    ms_error_t e;
    const char *sub;
    int opt, target = 0, rc = 0;
    bool robust = false;

    memset (&o, 0, sizeof (o));
    o.conninfo = getenv ("MS_DB_CONNINFO");
    if (!o.conninfo)
        o.conninfo = DB_DEFAULT_CONNINFO;
    o.retry_max_ms = 5000;
    o.application_name = "metasched db";
    optind = 1;
    /* options may come before or after the subcommand */
    while ((opt = getopt_long (argc, argv, "d:p:r:t:Rh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'd':
            o.conninfo = optarg;
            break;
        case 'p':
            o.password_file = optarg;
            break;
        case 'r':
            o.retry_max_ms = atoi (optarg);
            break;
        case 't':
            target = atoi (optarg);
            if (target <= 0) {
                fprintf (stderr, "metasched db: --target: a version >= 1\n");
                return 2;
            }
            break;
        case 'R':
            robust = true;
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
    sub = argv[optind];
    if (strcmp (sub, "migrate") && strcmp (sub, "version") && strcmp (sub, "sync")
        && strcmp (sub, "fit")) {
        fprintf (stderr, "metasched db: unknown command '%s'\n", sub);
        usage (stderr);
        return 2;
    }
    if (db_open (&o, &db, &e) < 0) {
        fprintf (stderr, "metasched db: %s\n", e.text);
        return 1;
    }
    if (!strcmp (sub, "migrate")) {
        int applied = 0, v = 0;
        char missing[256];
        if (db_migrate (db, target, &applied, missing, sizeof (missing), &e) < 0
            || db_schema_version (db, &v, &e) < 0) {
            fprintf (stderr, "metasched db migrate: %s\n", e.text);
            rc = 1;
        } else {
            printf ("schema version %d (%d migration%s applied)\n", v, applied,
                    applied == 1 ? "" : "s");
            if (missing[0])
                fprintf (stderr,
                         "metasched db migrate: warning: role(s) %s do not "
                         "exist; create them and run migrate again to grant "
                         "their rights (doc/database.md)\n",
                         missing);
        }
    } else if (!strcmp (sub, "version")) {
        int v;
        if (db_schema_version (db, &v, &e) < 0) {
            fprintf (stderr, "metasched db version: %s\n", e.text);
            rc = 1;
        } else
            printf ("%d (this program: %d)\n", v, db_schema_latest ());
    } else if (!strcmp (sub, "sync")) {
        const char *path = optind + 1 < argc ? argv[optind + 1]
                           : getenv ("MS_CLUSTERS_CONF") ? getenv ("MS_CLUSTERS_CONF")
                                                          : MS_DEFAULT_CLUSTERS_CONF;
        ms_siteconf_t *conf;
        size_t n = 0;
        if (clusterconf_load (path, &conf, &e) < 0
            || (db_sync_site (db, conf, &n, &e) < 0
                && (clusterconf_free (conf), 1))) {
            fprintf (stderr, "metasched db sync: %s\n", e.text);
            rc = 1;
        } else {
            printf ("%zu cluster%s, %zu partition%s from %s\n", conf->nclusters,
                    conf->nclusters == 1 ? "" : "s", n, n == 1 ? "" : "s",
                    path);
            clusterconf_free (conf);
        }
    } else {
        predictor_t *p = predictor_new ();
        size_t nruns = 0, stored = 0;
        if (db_fit_and_store (db, p, robust ? PRED_FIT_ROBUST : PRED_FIT_OLS,
                              &nruns, &stored, &e) < 0) {
            fprintf (stderr, "metasched db fit: %s\n", e.text);
            rc = 1;
        } else
            printf ("%zu learning run%s, %zu model pair%s stored\n", nruns,
                    nruns == 1 ? "" : "s", stored, stored == 1 ? "" : "s");
        predictor_free (p);
    }
    db_close (db);
    return rc;
}
