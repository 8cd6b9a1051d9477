/* mscancel.c - cancel metasched jobs wherever they are (still queued in
 * metasched, or on the cluster it went to), as scancel does for Slurm:
 * the jobs named by id, or those that match scancel's filters (--user,
 * --name, --state), or the jobs named that also match them. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire/client.h"
#include "metasched/cli/clifmt.h"
#include "metasched/cli/slurmfmt.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"

#define PROG "mscancel"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: mscancel [OPTIONS] [ID...]\n"
             "Cancel metasched jobs, wherever they are: those named, or every\n"
             "job of yours that matches the filters (with ids: those of them\n"
             "that match).\n\n"
             "  -u, --user=USER       only jobs of USER (others' for admins)\n"
             "  -n, --name=NAME       only jobs named NAME (also --jobname)\n"
             "  -t, --state=STATE     only jobs in STATE: PENDING (PD),\n"
             "                        RUNNING (R) or SUSPENDED (S)\n"
             "  -Q, --quiet           no error for a job that has already\n"
             "                        ended or does not exist\n"
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

/* -X value, -Xvalue, --long=value, --long value: as msqueue reads them. */
static int
opt_value (int argc, char **argv, int *ip, char shortname,
           const char *const *longnames, const char **valp)
{
    const char *w = argv[*ip];

    if (shortname && w[0] == '-' && w[1] == shortname) {
        if (w[2]) {
            *valp = w + 2;
            return 1;
        }
    } else {
        bool hit = false;
        for (const char *const *l = longnames; *l && !hit; l++) {
            size_t n = strlen (*l);
            if (strncmp (w, "--", 2) || strncmp (w + 2, *l, n))
                continue;
            if (w[2 + n] == '=') {
                *valp = w + 3 + n;
                return 1;
            }
            hit = !w[2 + n];
        }
        if (!hit)
            return 0;
    }
    if (*ip + 1 >= argc) {
        fprintf (stderr, PROG ": %s: needs a value\n", w);
        return -1;
    }
    *valp = argv[++*ip];
    return 1;
}

typedef struct {
    bool any;             /* a filter was given */
    long uid;             /* -u (-1: any) */
    const char *name;     /* -n (NULL: any) */
    slurmfmt_states_t st; /* -t */
} filter_t;

static bool
filter_match (const filter_t *f, const json_t *job)
{
    const char *name = json_string_value (json_object_get (job, "name"));

    if (slurmfmt_finished (job))
        return false;
    if (f->uid >= 0
        && json_integer_value (json_object_get (job, "uid")) != f->uid)
        return false;
    if (f->name && (!name || strcmp (name, f->name)))
        return false;
    return slurmfmt_states_match (&f->st, job);
}

/* --signal's value as scancel reads it (sig_name2num): a name with or
 * without SIG, in any case, or a number; -1 when none. */
static int
signal_number (const char *val)
{
    ms_jobspec_t t;
    ms_error_t e;
    int n;

    if (!*val || strchr (val, ':') || strchr (val, '@'))
        return -1;
    jobspec_init (&t);
    /* the same names as --signal of msbatch (Slurm's sig_name2num) */
    n = jobspec_apply_option (&t, "signal", val, &e) < 0 ? -1 : t.signal_num;
    jobspec_free (&t);
    return n >= 1 && n <= 64 ? n : -1;
}

/* -u/--user: a user's name or number into flt. */
static int
filter_user (const char *val, filter_t *flt)
{
    struct passwd *pw;
    char *end;
    long v;

    pw = getpwnam (val);
    if (!pw && isdigit ((unsigned char)*val)) {
        errno = 0;
        v = strtol (val, &end, 10);
        if (!*end && !errno && v >= 0)
            pw = getpwuid ((uid_t)v);
    }
    if (!pw) {
        fprintf (stderr, PROG ": --user: '%.64s' is not a user\n", val);
        return -1;
    }
    flt->uid = (long)pw->pw_uid;
    flt->any = true;
    return 0;
}

/* The jobs of the filters (-u, -n, -t), in place of *idsp; of the ids
 * given (*nidsp of them), those that match. An id that is not listed or
 * has ended counts in *failedp, as without filters. */
static int
select_jobs (ms_client_t *c, const filter_t *flt, bool quiet, bool verbose,
             long long **idsp, size_t *nidsp, int *failedp)
{
    long long *ids = *idsp;
    size_t nids = *nidsp, nasked = nids;
    int failed = *failedp;
    ms_error_t err;

    /* the caller's jobs (every user's where -u names another and the
     * caller is an admin) that match; of the ids given, those that
     * match */
    bool all = flt->uid >= 0 && flt->uid != (long)getuid ();
    json_t *reply = NULL, *job;
    size_t k, n = 0;
    long long *keep = calloc (nids + 1, sizeof (long long));

    if (ms_client_call (c, "GET",
                        all ? "/v1/jobs?all=1&limit=100000"
                            : "/v1/jobs?limit=100000",
                        NULL, NULL, &reply, &err)
            < 0
        && !(all && err.http_status == 403)) {
        fprintf (stderr, PROG ": %s\n", err.text);
        json_decref (reply);
        free (keep);
        return -1;
    }
    /* an id given that is not listed, or has ended, is refused as
     * without filters; one that does not match them is left alone */
    for (size_t q = 0; q < nasked; q++) {
        const json_t *found = NULL;
        json_array_foreach (json_object_get (reply, "jobs"), k, job)
        {
            if (json_integer_value (json_object_get (job, "id")) == ids[q])
                found = job;
        }
        if (found && !slurmfmt_finished (found))
            continue;
        failed++;
        if (quiet)
            continue;
        if (found)
            fprintf (stderr, PROG ": job %lld: already %s\n", ids[q],
                     json_string_value (json_object_get (found, "state")));
        else
            fprintf (stderr, PROG ": job %lld: no such job\n", ids[q]);
    }
    json_array_foreach (json_object_get (reply, "jobs"), k, job)
    {
        long long id = json_integer_value (json_object_get (job, "id"));
        bool named = nasked == 0;
        if (!filter_match (flt, job))
            continue;
        for (size_t q = 0; q < nasked && !named; q++)
            named = ids[q] == id;
        if (!named)
            continue;
        if (nasked == 0) {
            ids = ms_xrealloc (ids, (n + 1) * sizeof (long long));
            ids[n++] = id;
        } else
            keep[n++] = id;
    }
    if (nasked) {
        memcpy (ids, keep, n * sizeof (long long));
    }
    free (keep);
    json_decref (reply);
    nids = n;
    if (verbose && nids == 0)
        printf ("no job matched\n");
    *idsp = ids;
    *nidsp = nids;
    *failedp = failed;
    return 0;
}

int
main (int argc, char **argv)
{
    const char *server = NULL, *val;
    bool verbose = false, quiet = false, options = true;
    int i = 1, r, failed = 0;
    size_t nids = 0;
    long long *ids = calloc ((size_t)argc + 1, sizeof (long long));
    ms_client_t *c = NULL;
    ms_error_t err;
    filter_t flt = { .uid = -1, .st = { .all = true } };
    static const char *const l_user[] = { "user", NULL };
    static const char *const l_name[] = { "name", "jobname", NULL };
    static const char *const l_state[] = { "state", "states", NULL };
    static const char *const l_signal[] = { "signal", NULL };
    int sig = 0; /* --signal: a signal in place of cancelling */

    if (!ids) {
        fprintf (stderr, PROG ": out of memory\n");
        return 1;
    }
    /* Read every argument before cancelling anything. */
    while (i < argc) {
        const char *w = argv[i];

        if (options && w[0] == '-' && w[1]) {
            if ((r = clifmt_server_opt (PROG, argc, argv, &i, &server)) != 0) {
                if (r < 0)
                    goto usage_error;
                continue;
            }
            if (!strcmp (w, "--"))
                options = false;
            else if (!strcmp (w, "-v") || !strcmp (w, "--verbose"))
                verbose = true;
            else if (!strcmp (w, "-Q") || !strcmp (w, "--quiet"))
                quiet = true;
            else if (!strcmp (w, "-h") || !strcmp (w, "--help")
                     || !strcmp (w, "--usage")) {
                usage (stdout);
                free (ids);
                return 0;
            } else if (!strcmp (w, "-V") || !strcmp (w, "--version")) {
                printf ("mscancel (metasched) %s\n", PACKAGE_VERSION);
                free (ids);
                return 0;
            } else if ((r = opt_value (argc, argv, &i, 'u', l_user, &val))) {
                if (r < 0 || filter_user (val, &flt) < 0)
                    goto usage_error;
            } else if ((r = opt_value (argc, argv, &i, 'n', l_name, &val))) {
                if (r < 0)
                    goto usage_error;
                if (!*val) {
                    fprintf (stderr, PROG ": --name: expected a job name\n");
                    goto usage_error;
                }
                flt.name = val;
                flt.any = true;
            } else if ((r = opt_value (argc, argv, &i, 't', l_state, &val))) {
                if (r < 0)
                    goto usage_error;
                if (slurmfmt_states_parse (val, &flt.st, &err) < 0) {
                    fprintf (stderr, PROG ": %s\n", err.text);
                    goto usage_error;
                }
                flt.any = true;
            } else if ((r = opt_value (argc, argv, &i, 's', l_signal, &val))) {
                if (r < 0)
                    goto usage_error;
                if ((sig = signal_number (val)) < 0) {
                    fprintf (stderr,
                             PROG ": --signal=%.32s: expected a signal name "
                                  "(USR1, SIGTERM ...) or number from 1 to "
                                  "64\n",
                             val);
                    goto usage_error;
                }
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
    if (nids == 0 && !flt.any) {
        fprintf (stderr, PROG ": no job id and no filter given (see mscancel "
                              "--help)\n");
        goto usage_error;
    }
    if (ms_client_open (server, &c, &err) < 0) {
        fprintf (stderr, PROG ": %s\n", err.text);
        free (ids);
        return 1;
    }
    if (flt.any
        && select_jobs (c, &flt, quiet, verbose, &ids, &nids, &failed) < 0)
        goto fail;
    for (size_t k = 0; k < nids; k++) {
        char target[64];

        if (sig > 0)
            snprintf (target, sizeof (target), "/v1/jobs/%lld?signal=%d",
                      ids[k], sig);
        else
            snprintf (target, sizeof (target), "/v1/jobs/%lld", ids[k]);
        if (ms_client_call (c, "DELETE", target, NULL, NULL, NULL, &err) < 0) {
            bool gone = err.kind == MS_ERR_HTTP
                        && (err.http_status == 404 || err.http_status == 409);
            failed++;
            if (gone && quiet)
                ;
            else if (err.kind == MS_ERR_HTTP && err.http_status == 404)
                fprintf (stderr, PROG ": job %lld: no such job\n", ids[k]);
            else
                fprintf (stderr, PROG ": job %lld: %s\n", ids[k], err.text);
            if (err.kind == MS_ERR_CONNECT || err.kind == MS_ERR_TIMEOUT) {
                /* the others would fail the same way */
                failed += (int)(nids - k - 1);
                break;
            }
            continue;
        }
        if (verbose)
            printf (sig > 0 ? "job %lld signalled\n" : "job %lld cancelled\n",
                    ids[k]);
    }
    ms_client_close (c);
    free (ids);
    return failed ? 1 : 0;
fail:
    ms_client_close (c);
usage_error:
    free (ids);
    return 1;
}
