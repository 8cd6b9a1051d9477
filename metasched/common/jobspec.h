/* jobspec.h - a user's job as metasched receives it: the batch script and
 * its options, read like sbatch reads them (#SBATCH lines, then the command
 * line, which wins). No partition: metasched chooses it. */
#ifndef MS_JOBSPEC_H
#define MS_JOBSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "metasched/common/error.h"

#define JOBSPEC_SCRIPT_MAX (1024 * 1024) /* bytes */
#define JOBSPEC_MAX_ENV 256
#define JOBSPEC_BEGIN_AHEAD_MAX (731 * 86400) /* --begin: the API's limit */

typedef struct {
    char name[128];          /* --job-name; default: the script's name */
    char app[64];            /* --app: the application, for the predictor */
    int nodes;               /* --nodes (0: not given) */
    int ntasks;              /* --ntasks */
    int ntasks_per_node;     /* --ntasks-per-node */
    int cpus_per_task;       /* --cpus-per-task */
    uint32_t time_limit_min; /* --time, in minutes (0: not given) */
    int64_t begin;           /* --begin, Unix time (0: not given) */
    char std_out[256];       /* --output */
    char std_err[256];       /* --error */
    char std_in[256];        /* --input */
    char chdir[256];         /* --chdir */
    char partition[64];      /* --partition: refused unless pinning is allowed */
    bool exclusive;          /* --exclusive */
    bool test_only;          /* --test-only: candidates, not a submission */
    char export_mode[16];    /* "ALL" (default), "NONE" */
    char *export_vars[JOBSPEC_MAX_ENV]; /* --export=VAR[=value],...: owned */
    size_t nexport;
} ms_jobspec_t;

void jobspec_init (ms_jobspec_t *s);
void jobspec_free (ms_jobspec_t *s);

/* Read the #SBATCH lines of a script (they end at its first command).
 * `name` is the script's name in messages ("job.sh:3: ..."). */
int jobspec_parse_script (ms_jobspec_t *s, const char *script, size_t len,
                          const char *name, ms_error_t *errp);

/* Read command-line options (argv[0] is not an option). On success *argip is
 * the index of the first argument that is not an option (the script). */
int jobspec_parse_args (ms_jobspec_t *s, int argc, char **argv, int *argip,
                        ms_error_t *errp);

/* Parse a Slurm time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS;
 * "UNLIMITED"/"INFINITE" give UINT32_MAX. Rounds seconds up to minutes. */
int jobspec_parse_time (const char *s, uint32_t *minutes);

/* Parse a Slurm begin time against `now`, in local time: now[+N[UNIT]]
 * (UNIT seconds (default), minutes, hours, days, weeks or s, sec, m, min,
 * h, hour, d, day, w, week; plurals too), HH:MM[:SS] (today, or tomorrow
 * when already past), YYYY-MM-DD[THH:MM[:SS]], today (its 00:00), tomorrow
 * and midnight (tomorrow's 00:00), noon (the next 12:00). Words and units in
 * any case. Returns 0, -1 when malformed, -2 when before 1970 or more than
 * JOBSPEC_BEGIN_AHEAD_MAX seconds after now. */
int jobspec_parse_begin (const char *s, time_t now, int64_t *out);

/* Check the whole: a script that starts with #!, sizes within limits,
 * counts that agree. */
int jobspec_check (const ms_jobspec_t *s, const char *script, size_t len,
                   bool allow_partition, ms_error_t *errp);

#endif /* MS_JOBSPEC_H */
