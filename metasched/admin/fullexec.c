/* fullexec.c - what `metasched` leaves to metasched-full.
 *
 * `metasched` links only what the simulator needs (GSL, GLPK, zlib,
 * libm), so that `metasched simulate` does not pay at each start for
 * mapping and relocating the database, HTTP and credential libraries
 * (libpq, libcurl, munge, libcrypto and theirs: 44 shared libraries, 7 ms
 * of a start, against 13 libraries and 1.5 ms). Every other command, and
 * simulate's --from-db (it reads PostgreSQL), runs in metasched-full, the
 * program with every command, installed in $(pkglibexecdir): the same
 * main.c and command files, so the same behaviour, messages and exit
 * statuses. This file stands in, in `metasched`, for the functions
 * metasched-full has and `metasched` lacks: each runs the command line as
 * given in metasched-full (doc/metasched.1, FILES). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metasched/admin/commands.h"
#include "metasched/admin/siminput.h"

/* metasched-full: beside this program where this is the program of the
 * build tree (the tests, make distcheck), else where it was installed.
 * Both are fixed when the program is built: no search path, nothing the
 * user sets. */
static const char *
full_path (void)
{
    char self[PATH_MAX], built[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);

    if (n > 0 && realpath (MS_BUILDDIR "/metasched/metasched", built)) {
        self[n] = '\0';
        if (!strcmp (self, built))
            return MS_BUILDDIR "/metasched/metasched-full";
    }
    return MS_PKGLIBEXECDIR "/metasched-full";
}

/* Replace this process by metasched-full with the command line as given;
 * on failure, say why in errp and return -1. */
static int
full_exec (ms_error_t *errp)
{
    const char *path = full_path ();

    fflush (NULL);
    execv (path, ms_cmdline);
    ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    return -1;
}

/* A command of metasched-full only: its exit status is metasched-full's;
 * 127 where metasched-full cannot be run (as a shell says of a missing
 * program). */
static int
full_command (void)
{
    ms_error_t err;

    full_exec (&err);
    fprintf (stderr, "metasched: %s\n", err.text);
    return 127;
}

int
cmd_clusters (int argc, char **argv)
{
    return full_command ();
}

int
cmd_model (int argc, char **argv)
{
    return full_command ();
}

int
cmd_db (int argc, char **argv)
{
    return full_command ();
}

int
cmd_collect (int argc, char **argv)
{
    return full_command ();
}

int
cmd_config (int argc, char **argv)
{
    return full_command ();
}

int
cmd_report (int argc, char **argv)
{
    return full_command ();
}

int
cmd_job (int argc, char **argv)
{
    return full_command ();
}

/* simulate --from-db: reached once the options are read and the clusters
 * loaded, before anything is printed or written; metasched-full reads
 * both again and goes on from here. */
int
siminput_history_load (const opts_t *o, ms_siteconf_t *conf,
                       predictor_t **predp, ms_predtab_t **tabp,
                       ms_workload_t **wlp, history_t *h, ms_error_t *errp)
{
    return full_exec (errp);
}
