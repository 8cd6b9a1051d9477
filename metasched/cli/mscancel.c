/* mscancel.c - cancel metasched jobs wherever they are (still queued in
 * metasched, or on the cluster it went to), as scancel does for Slurm. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/cli/client.h"
#include "metasched/cli/clifmt.h"

#define PROG "mscancel"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: mscancel [OPTIONS] ID...\n"
             "Cancel metasched jobs, wherever they are.\n\n"
             "  -v, --verbose         say what was cancelled\n"
             "      --server=ADDR     unix:/path or http://host:port\n"
             "                        (default $METASCHED_SERVER or %s)\n"
             "  -h, --help            this text\n"
             "  -V, --version         the version\n",
             MS_CLIENT_DEFAULT_SERVER);
}

static bool
parse_id (const char *s, long long *idp)
{
    char *end;

    if (!isdigit ((unsigned char)s[0]))
        return false;
    errno = 0;
    *idp = strtoll (s, &end, 10);
    return !errno && !*end && *idp >= 1;
}

int
main (int argc, char **argv)
{
    const char *server = NULL;
    bool verbose = false, options = true;
    int i = 1, r, failed = 0, nids = 0;
    long long *ids = calloc ((size_t)argc, sizeof (long long));
    ms_client_t *c = NULL;
    ms_error_t err;

    if (!ids) {
        fprintf (stderr, PROG ": out of memory\n");
        return 1;
    }
    /* Read every argument before cancelling anything. */
    while (i < argc) {
        const char *w = argv[i];

        if (options && w[0] == '-') {
            if ((r = clifmt_server_opt (PROG, argc, argv, &i, &server)) != 0) {
                if (r < 0)
                    goto usage_error;
                continue;
            }
            if (!strcmp (w, "--"))
                options = false;
            else if (!strcmp (w, "-v") || !strcmp (w, "--verbose"))
                verbose = true;
            else if (!strcmp (w, "-h") || !strcmp (w, "--help")) {
                usage (stdout);
                free (ids);
                return 0;
            } else if (!strcmp (w, "-V") || !strcmp (w, "--version")) {
                printf ("mscancel (metasched) %s\n", PACKAGE_VERSION);
                free (ids);
                return 0;
            } else {
                fprintf (stderr,
                         PROG ": unknown option '%.64s' (see mscancel "
                              "--help)\n",
                         w);
                goto usage_error;
            }
            i++;
            continue;
        }
        if (!parse_id (w, &ids[nids])) {
            fprintf (stderr, PROG ": '%.64s' is not a job id\n", w);
            goto usage_error;
        }
        nids++;
        i++;
    }
    if (nids == 0) {
        fprintf (stderr, PROG ": no job id given (see mscancel --help)\n");
        goto usage_error;
    }
    if (ms_client_open (server, &c, &err) < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        free (ids);
        return 1;
    }
    for (int k = 0; k < nids; k++) {
        char target[64];

        snprintf (target, sizeof (target), "/v1/jobs/%lld", ids[k]);
        if (ms_client_call (c, "DELETE", target, NULL, NULL, NULL, &err) < 0) {
            failed++;
            if (err.kind == MS_ERR_HTTP && err.http_status == 404)
                fprintf (stderr, PROG ": job %lld: no such job\n", ids[k]);
            else
                fprintf (stderr, PROG ": job %lld: %s\n", ids[k], err.text);
            if (err.kind == MS_ERR_CONNECT || err.kind == MS_ERR_TIMEOUT) {
                /* the others would fail the same way */
                failed += nids - k - 1;
                break;
            }
            continue;
        }
        if (verbose)
            printf ("job %lld cancelled\n", ids[k]);
    }
    ms_client_close (c);
    free (ids);
    return failed ? 1 : 0;
usage_error:
    free (ids);
    return 1;
}
