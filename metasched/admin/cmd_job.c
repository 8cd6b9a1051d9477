/* cmd_job.c - `metasched job`: an admin's acts on one job through
 * metaschedd's API (doc/metasched-job.1).
 *
 *   metasched job resolve ID --state S [--exit N] [--reason TEXT]
 *       POST /v1/admin/jobs/ID/resolve
 *
 * A job is `unknown` when its cluster forgot it (MinJobAge) and keeps no
 * accounting to say how it ended; its dependents wait until an admin says
 * it here. The daemon refuses non-admins (403) and jobs that are not
 * unknown (409), and keeps an audit row of each resolution.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "metasched/admin/cmdopt.h"
#include "metasched/admin/commands.h"
#include "wire/client.h"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched job resolve ID --state STATE [--exit N] "
             "[--reason TEXT]\n"
             "Say how an unknown job ended (admins): its cluster no longer "
             "lists it and\nkeeps no accounting. Its dependents then go on "
             "as for that end.\n\n"
             "  --state STATE       completed, failed or cancelled\n"
             "  --exit N            its exit code, 0 to 255 (completed: 0)\n"
             "  --reason TEXT       why, for the audit row\n"
             "  -s, --server ADDR   unix:/path or http://host:port (default "
             "$%s\n"
             "                      or %s)\n"
             "  -m, --munge-socket PATH  munged's socket (default $%s or "
             "libmunge's)\n",
             MS_CLIENT_ENV_SERVER, MS_CLIENT_DEFAULT_SERVER,
             MS_CLIENT_ENV_MUNGE);
}

static int
resolve (const cmdopt_daemon_t *d, const char *id_s, json_t *body)
{
    ms_client_t *c = NULL;
    ms_error_t e;
    json_t *reply = NULL;
    char target[80];
    long status = 0;
    int rc;

    snprintf (target, sizeof (target), "/v1/admin/jobs/%s/resolve", id_s);
    if (cmdopt_daemon_open (d, &c, &e) < 0) {
        fprintf (stderr, "metasched job resolve: %s\n", e.text);
        return 1;
    }
    rc = ms_client_call (c, "POST", target, body, &status, &reply, &e);
    ms_client_close (c);
    if (rc < 0) {
        if (e.kind == MS_ERR_HTTP && e.http_status == 403)
            fprintf (stderr,
                     "metasched job resolve: %s; the admins are named in "
                     "metaschedd.conf ('admins =')\n",
                     e.text);
        else
            fprintf (stderr, "metasched job resolve: job %s: %s\n", id_s,
                     e.text);
        json_decref (reply);
        return 1;
    }
    printf ("job %s resolved as %s\n", id_s,
            json_string_value (json_object_get (reply, "state")));
    json_decref (reply);
    return 0;
}

int
cmd_job (int argc, char **argv)
{
    static const struct option opts[]
        = { { "state", required_argument, NULL, 'S' },
            { "exit", required_argument, NULL, 'x' },
            { "reason", required_argument, NULL, 'r' },
            { "server", required_argument, NULL, 's' },
            { "munge-socket", required_argument, NULL, 'm' },
            { "help", no_argument, NULL, 'h' },
            { NULL, 0, NULL, 0 } };
    cmdopt_daemon_t d = { NULL, NULL };
    const char *state = NULL, *reason = NULL;
    long exit_code = -1;
    json_t *body;
    char *end;
    int o, rc;

    optind = 1;
    while ((o = getopt_long (argc, argv, "s:m:h", opts, NULL)) != -1) {
        switch (o) {
        case 'S':
            state = optarg;
            break;
        case 'x':
            errno = 0;
            exit_code = strtol (optarg, &end, 10);
            if (errno || end == optarg || *end || exit_code < 0
                || exit_code > 255) {
                fprintf (stderr,
                         "metasched job resolve: --exit '%s': expected an "
                         "integer from 0 to 255\n",
                         optarg);
                return 2;
            }
            break;
        case 'r':
            reason = optarg;
            break;
        case 's':
        case 'm':
            cmdopt_daemon_set (&d, o, optarg);
            break;
        case 'h':
        default:
            return cmdopt_usage (o, usage);
        }
    }
    if (optind >= argc || strcmp (argv[optind], "resolve")) {
        fprintf (stderr, "metasched job: %s\n",
                 optind < argc ? "unknown command (resolve)"
                               : "give a command (resolve)");
        usage (stderr);
        return 2;
    }
    if (optind + 2 != argc) {
        fprintf (stderr, "metasched job resolve: give one job ID\n");
        return 2;
    }
    {
        const char *id = argv[optind + 1];
        errno = 0;
        long long v = strtoll (id, &end, 10);
        if (errno || end == id || *end || v <= 0 || id[0] < '1'
            || id[0] > '9') {
            fprintf (stderr,
                     "metasched job resolve: '%s' is not a job ID (a "
                     "positive integer)\n",
                     id);
            return 2;
        }
    }
    if (!state) {
        fprintf (stderr, "metasched job resolve: --state is required "
                         "(completed, failed, cancelled)\n");
        return 2;
    }
    body = json_pack ("{s:s}", "state", state);
    if (exit_code >= 0)
        json_object_set_new (body, "exit_code", json_integer (exit_code));
    if (reason)
        json_object_set_new (body, "reason", json_string (reason));
    if (!json_object_get (body, "state")
        || (reason && !json_object_get (body, "reason"))) {
        fprintf (stderr, "metasched job resolve: --state and --reason must "
                         "be UTF-8 text\n");
        json_decref (body);
        return 2;
    }
    rc = resolve (&d, argv[optind + 1], body);
    json_decref (body);
    return rc;
}
