/* metasched-collect - the collector program (doc/metasched-collect.1).
 *
 *   metasched-collect [OPTIONS] -- COMMAND [ARGS...]   job wrapper (user)
 *   metasched-collect [OPTIONS] prolog|epilog          Slurm hooks (root)
 *   metasched-collect [OPTIONS] flush                  send spooled rows
 *
 * Prolog and epilog always exit 0: a failing hook would drain the node.
 *
 * Where messages go (collectors/log.h, doc/collectors.md "Messages"): the
 * wrapper's notes and warnings to the node's log (syslog, LOG_USER) and the
 * job's counter file, never to the job's stdout or stderr; only what stops
 * the command itself (a usage error, a command that cannot be executed,
 * the start gate's refusal) is said on stderr too. The prolog and epilog
 * log to syslog (LOG_DAEMON) and to stderr, which slurmd does not give to
 * the job (the hook's script sends it to a file). flush, an admin's
 * command, reports on stderr and in its exit status.
 */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/log.h"
#include "metasched/common/util.h"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched-collect [OPTIONS] -- COMMAND [ARGS...]\n"
             "       metasched-collect [OPTIONS] prolog|epilog|flush\n"
             "\n"
             "  -c, --config FILE     collector configuration (default %s,\n"
             "                        or $MS_COLLECT_CONF)\n"
             "  -s, --set KEY=VALUE   override one configuration key\n"
             "  -a, --app NAME        the application's name (wrapper)\n"
             "  -o, --counters FILE   write the counters here (wrapper, "
             "outside Slurm)\n"
             "  -q, --quiet           accepted; the wrapper's notes go to the\n"
             "                        node's log, never to the job's output\n"
             "  -V, --version\n",
             COLLECT_DEFAULT_CONF);
}

static void
logmsg (int prio, const char *what, const collect_job_t *j, const char *pre,
        const char *text)
{
    collect_log (prio, "%s: job %s.%llu node %s: %s%s", what, j->cluster,
                 (unsigned long long)j->job_id, j->node, pre, text);
}

static int
run_hook (const char *what, const collect_conf_t *c)
{
    collect_job_t j;
    ms_error_t e;
    int rc;
    bool spooled = false;

    ms_err_clear (&e);
    if (collect_job_from_env (c, &j, &e) < 0) {
        collect_log (LOG_WARNING, "%s: %s", what, e.text);
        return 0;
    }
    if (!strcmp (what, "prolog")) {
        if (collect_prolog (c, &j, &e) < 0)
            logmsg (LOG_WARNING, what, &j, "", e.text);
        else
            logmsg (LOG_INFO, what, &j, "", "RAPL read, sampler started");
        return 0;
    }
    rc = collect_epilog (c, &j, &spooled, &e);
    if (rc < 0)
        logmsg (LOG_WARNING, what, &j, "", e.text);
    else if (rc == COLLECT_EPILOG_SKIPPED)
        logmsg (LOG_NOTICE, what, &j, "", e.text);
    else if (rc > 0)
        logmsg (LOG_NOTICE, what, &j, "row inserted; note: ", e.text);
    else
        logmsg (LOG_INFO, what, &j, "", "row inserted");
    return 0;
}

int
collect_program (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "app", required_argument, NULL, 'a' },
        { "counters", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    collect_conf_t conf;
    collect_wrap_opts_t wo;
    const char *confpath = getenv ("MS_COLLECT_CONF");
    char *sets[32];
    int nsets = 0, opt;
    ms_error_t e;
    bool hook, flush;

    memset (&wo, 0, sizeof (wo));
    /* "+": stop at the first non-option, so the command keeps its own */
    while ((opt = getopt_long (argc, argv, "+c:s:a:o:qhV", longopts, NULL))
           != -1) {
        switch (opt) {
        case 'c':
            confpath = optarg;
            break;
        case 's':
            if (nsets < 32)
                sets[nsets++] = optarg;
            break;
        case 'a':
            wo.app = optarg;
            break;
        case 'o':
            wo.counters_path = optarg;
            break;
        case 'q':
            break; /* nothing to silence: notes never reach the job */
        case 'h':
            usage (stdout);
            return 0;
        case 'V':
            printf ("%s\n", COLLECT_VERSION);
            return 0;
        default:
            usage (stderr);
            return 2;
        }
    }
    /* after "--" everything is the command, even a word like "prolog" */
    hook = optind < argc && strcmp (argv[optind - 1], "--")
           && (!strcmp (argv[optind], "prolog")
               || !strcmp (argv[optind], "epilog"));
    flush = optind < argc && !strcmp (argv[optind], "flush")
            && strcmp (argv[optind - 1], "--");
    /* hooks: syslog and stderr (the hook's own log); the wrapper: syslog
     * only, its stderr is the job's */
    if (hook)
        collect_log_open (LOG_DAEMON, true);
    else if (flush)
        collect_log_open (LOG_DAEMON, false); /* a timer's: the journal */
    else
        collect_log_open (LOG_USER, false);
    collect_conf_defaults (&conf);
    if (collect_conf_load (confpath ? confpath : COLLECT_DEFAULT_CONF,
                           confpath == NULL, &conf, &e) < 0) {
        if (hook) {
            collect_log (LOG_WARNING, "%s: %s", argv[optind], e.text);
            return 0;
        }
        if (!flush && optind < argc) {
            /* the job runs anyway, unmeasured config or not */
            collect_log (LOG_WARNING,
                         "wrapper: warning: %s; running the "
                         "command with the built-in defaults",
                         e.text);
            goto wrap;
        }
        fprintf (stderr, "metasched-collect: %s\n", e.text);
        return 1;
    }
    for (int i = 0; i < nsets; i++) {
        char *eq = strchr (sets[i], '=');
        if (!eq)
            ms_err (&e, MS_ERR_INPUT, "--set %s: expected KEY=VALUE", sets[i]);
        else {
            *eq = '\0';
            if (collect_conf_set (&conf, sets[i], eq + 1, &e) == 0)
                continue;
            ms_err_prefix (&e, "--set %s", sets[i]);
        }
        if (hook) {
            collect_log (LOG_WARNING, "%s: %s", argv[optind], e.text);
            return 0;
        }
        /* a usage error: the command line is wrong, nothing runs */
        fprintf (stderr, "metasched-collect: %s\n", e.text);
        return 2;
    }
    if (optind >= argc) {
        usage (stderr);
        return 2;
    }
    if (hook)
        return run_hook (argv[optind], &conf);
    if (flush)
        return collect_flush_main (&conf, "metasched-collect flush");
wrap:
    {
        collect_counters_t k;
        int status;

        if (optind >= argc) {
            usage (stderr);
            return 2;
        }
        status = collect_wrap (&conf, &wo, argv + optind, &k, &e);
        if (status < 0) {
            /* the command could not be started: the job's own failure */
            fprintf (stderr, "metasched-collect: %s\n", e.text);
            collect_log (LOG_ERR, "wrapper: error: %s", e.text);
            return 126;
        }
        if (WIFSIGNALED (status)) {
            /* end the way the command ended */
            int sig = WTERMSIG (status);
            sigset_t all;
            signal (sig, SIG_DFL);
            sigemptyset (&all);
            sigaddset (&all, sig);
            sigprocmask (SIG_UNBLOCK, &all, NULL);
            fflush (NULL);
            raise (sig);
            return 128 + sig;
        }
        return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
    }
}
