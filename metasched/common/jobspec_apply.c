/* jobspec_apply.c - one option of sbatch's into the job: the value of
 * each option type of jobspec.c's table (counts, strings, --export, and
 * by topic: times, names and paths, what the job asks of the nodes, its
 * layout, its life). The syntax of the values themselves is read in
 * jobspec_values.c. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_int.h"
#include "metasched/common/util.h"

/* ---- values: counts, strings, --export (the others: jobspec_values.c) ---- */

static int
parse_count (const char *where, const char *opt, const char *val, int min,
             int max, int *out, ms_error_t *errp)
{
    char *end;
    long v;

    if (!val)
        return ms_err (errp, MS_ERR_INPUT, "%s--%s: needs a value", where, opt);
    errno = 0;
    v = strtol (val, &end, 10);
    if (errno || end == val || *end || v < min || v > max
        || !isdigit ((unsigned char)val[0]))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--%s=%s: expected a whole number from %d to %d",
                       where, opt, val, min, max);
    *out = (int)v;
    return 0;
}

/* A string value. An empty one is taken as sbatch takes it: its string
 * options keep "" (slurm_opt.c's COMMON_STRING_OPTION_SET), which is what
 * "not given" is here. */
static int
copy_str (const char *where, const char *opt, const char *val, char *dst,
          size_t size, ms_error_t *errp)
{
    if (!val)
        return ms_err (errp, MS_ERR_INPUT, "%s--%s: needs a value", where, opt);
    if (strlen (val) >= size)
        return ms_err (errp, MS_ERR_INPUT, "%s--%s: longer than %zu bytes",
                       where, opt, size - 1);
    for (const char *c = val; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--%s: control character in value", where, opt);
    ms_strlcpy (dst, val, size);
    return 0;
}

static bool
valid_env_name (const char *s, size_t n)
{
    if (n == 0 || !(isalpha ((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!isalnum ((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

static int
parse_export (ms_jobspec_t *s, const char *where, const char *val,
              ms_error_t *errp)
{
    const char *p = val;

    for (size_t i = 0; i < s->nexport; i++)
        free (s->export_vars[i]);
    s->nexport = 0;
    ms_strlcpy (s->export_mode, "ALL", sizeof (s->export_mode));
    if (!*val)
        return ms_err (errp, MS_ERR_INPUT, "%s--export: empty value", where);
    while (*p) {
        const char *comma = strchr (p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen (p);
        const char *eq = memchr (p, '=', n);
        size_t namelen = eq ? (size_t)(eq - p) : n;

        if (n == 3 && !strncasecmp (p, "ALL", 3))
            ms_strlcpy (s->export_mode, "ALL", sizeof (s->export_mode));
        else if (n == 4 && !strncasecmp (p, "NONE", 4))
            ms_strlcpy (s->export_mode, "NONE", sizeof (s->export_mode));
        else if (n == 3 && !strncasecmp (p, "NIL", 3))
            ms_strlcpy (s->export_mode, "NIL", sizeof (s->export_mode));
        else if (!valid_env_name (p, namelen))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--export: '%.*s' is not ALL, NONE, NIL or "
                           "VAR[=value]",
                           where, (int)(n > 64 ? 64 : n), p);
        else {
            if (s->nexport >= JOBSPEC_MAX_ENV)
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--export: more than %d variables", where,
                               JOBSPEC_MAX_ENV);
            char *v = ms_xmalloc (n + 1);
            memcpy (v, p, n);
            v[n] = '\0';
            s->export_vars[s->nexport++] = v;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

/* ---- options ----------------------------------------------------------------- */

static int
time_err (const char *where, const char *opt, const char *val,
          ms_error_t *errp)
{
    return ms_err (errp, MS_ERR_INPUT,
                   "%s--%s=%s: expected minutes, MM:SS, HH:MM:SS, D-HH, "
                   "D-HH:MM or D-HH:MM:SS",
                   where, opt, val);
}

static int
date_err (const char *where, const char *opt, const char *val, int rc,
          ms_error_t *errp)
{
    if (rc == -2)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--%s=%s: out of range (from 1970 to %d days from "
                       "now)",
                       where, opt, val, JOBSPEC_BEGIN_AHEAD_MAX / 86400);
    return ms_err (errp, MS_ERR_INPUT,
                   "%s--%s=%s: expected now[+N[UNIT]] (UNIT seconds, minutes, "
                   "hours, days or weeks), HH:MM[:SS] [AM|PM], "
                   "YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]], "
                   "MMDD[YY], today, tomorrow, midnight, noon, elevenses, "
                   "fika or teatime",
                   where, opt, val);
}

/* Host names, host ranges: name[1-4,7],other (what Slurm takes). */
static bool
valid_nodelist (const char *val)
{
    int depth = 0;

    for (const char *c = val; *c; c++) {
        if (*c == '[')
            depth++;
        else if (*c == ']') {
            if (--depth < 0)
                return false;
        } else if (!isalnum ((unsigned char)*c) && !strchr ("-_.,", *c))
            return false;
    }
    return depth == 0;
}

/* The options of times and dates: --time, --time-min, --delay-boot, --begin,
 * --deadline. */
static int
apply_time (ms_jobspec_t *s, const char *where, const opt_t *o,
            const char *val, ms_error_t *errp)
{
    const char *opt = o->o.name;

    switch (o->type) {
    case O_TIME:
        if (jobspec_parse_time (val, &s->time_limit_min) < 0)
            return time_err (where, opt, val, errp);
        return 0;
    case O_TIME_MIN:
        if (jobspec_parse_time (val, &s->time_min_min) < 0
            || s->time_min_min == UINT32_MAX)
            return time_err (where, opt, val, errp);
        return 0;
    case O_DELAY_BOOT:
        if (jobspec_parse_time (val, &s->delay_boot_min) < 0
            || s->delay_boot_min == UINT32_MAX)
            return time_err (where, opt, val, errp);
        return 0;
    case O_BEGIN:
    case O_DEADLINE: {
        int rc = jobspec_parse_begin (val, time (NULL),
                                      o->type == O_BEGIN ? &s->begin
                                                         : &s->deadline);
        return rc < 0 ? date_err (where, opt, val, rc, errp) : 0;
    }
    default:
        return 0;
    }
    return 0;
}

/* The options of names, paths and the environment: --job-name, --output,
 * --app, --export, --open-mode, --get-user-env, --propagate, --wrap. */
static int
apply_files (ms_jobspec_t *s, const char *where, const opt_t *o,
             const char *val, ms_error_t *errp)
{
    const char *opt = o->o.name;
    char *field = (char *)s + o->off;

    switch (o->type) {
    case O_JOB_NAME:
        return copy_str (where, opt, val, s->name, sizeof (s->name), errp);
    case O_OUTPUT_PATH:
        /* %j %x %A %a %u %N %n %s %t %% stay: Slurm fills them in; none
         * (any case) is /dev/null (arg_set_ofname, _efname, _ifname) */
        return copy_str (where, opt, strcasecmp (val, "none") ? val
                                                              : "/dev/null",
                         field, o->size, errp);
    case O_APP:
        if (copy_str (where, opt, val, s->app, sizeof (s->app), errp) < 0)
            return -1;
        for (const char *c = val; *c; c++)
            if (!isalnum ((unsigned char)*c) && !strchr ("._-+", *c))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--app=%s: only letters, digits and . _ - + "
                               "are allowed",
                               where, val);
        return 0;
    case O_EXPORT:
        return parse_export (s, where, val, errp);
    case O_OPEN_MODE:
        if (val[0] == 'a' || val[0] == 'A')
            ms_strlcpy (s->open_mode, "append", sizeof (s->open_mode));
        else if (val[0] == 't' || val[0] == 'T')
            ms_strlcpy (s->open_mode, "truncate", sizeof (s->open_mode));
        else
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--open-mode=%.32s: expected append or truncate",
                           where, val);
        return 0;
    case O_GET_USER_ENV: {
        const char *p = val;
        uint32_t secs;
        if (!val) {
            ms_strlcpy (s->get_user_env, "1", sizeof (s->get_user_env));
            return 0;
        }
        /* Slurm's arg_set_get_user_env: strtol's number, then nothing or
         * S or L in any case (what follows it is not read) */
        char out[sizeof (s->get_user_env)];
        secs = 0;
        if (isdigit ((unsigned char)*p)
            && !jobspec_read_u32 (&p, 100000, &secs))
            p = "?";
        if (*p && !strchr ("SsLl", *p))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--get-user-env=%.32s: expected [TIMEOUT][S|L]",
                           where, val);
        if (p == val && !*p)
            snprintf (out, sizeof (out), "1");
        else if (p == val)
            snprintf (out, sizeof (out), "%c", toupper ((unsigned char)*p));
        else if (*p)
            snprintf (out, sizeof (out), "%u%c", secs,
                      toupper ((unsigned char)*p));
        else
            snprintf (out, sizeof (out), "%u", secs);
        ms_strlcpy (s->get_user_env, out, sizeof (s->get_user_env));
        return 0;
    }
    case O_PROPAGATE: {
        /* sbatch's parse_rlimits: ALL (bare), NONE or names */
        unsigned mask;
        if (jobspec_parse_propagate (val ? val : "ALL", &mask, errp) < 0)
            return ms_err_prefix (errp, "%s--%s=%.64s", where, opt,
                                  val ? val : "ALL");
        return copy_str (where, opt, val ? val : "ALL", s->propagate,
                         sizeof (s->propagate), errp);
    }
    case O_WRAP:
        if (where[0])
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--wrap: only on the command line (it stands "
                           "for the script)",
                           where);
        if (!*val)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--wrap: empty value (no command to run)", where);
        return copy_str (where, opt, val, s->wrap, sizeof (s->wrap), errp);
    default:
        return 0;
    }
    return 0;
}

/* The options of what the job asks of the nodes: --nodes, --exclusive,
 * --constraint, --nodelist, --gres, --gpus*, -B, --core-spec, --oom-kill-
 * step, --segment. */
static int
apply_resources (ms_jobspec_t *s, const char *where, const opt_t *o,
                 const char *val, ms_error_t *errp)
{
    const char *opt = o->o.name;
    char *field = (char *)s + o->off;

    switch (o->type) {
    case O_NODES:
        return jobspec_parse_nodes (s, where, val, errp);
    case O_EXCLUSIVE: {
        /* Slurm's arg_set_exclusive (22.05: user, mcs, exclusive,
         * oversubscribe; 26.05 adds topo and allocation), any case */
        static const char *const modes[]
            = { "user", "mcs", "topo", "exclusive", "allocation",
                "oversubscribe", NULL };
        int k = val ? jobspec_choice (val, strlen (val), modes) : 3;
        if (k < 0)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--exclusive=%.32s: expected user, mcs, topo, "
                           "exclusive, allocation or oversubscribe (or no "
                           "value: whole nodes)",
                           where, val);
        s->exclusive_mode[0] = '\0';
        if (k == 5) { /* shared: what --oversubscribe asks */
            s->exclusive = false;
            s->oversubscribe = true;
            return 0;
        }
        s->exclusive = true;
        s->oversubscribe = false;
        if (k < 3)
            ms_strlcpy (s->exclusive_mode, modes[k],
                        sizeof (s->exclusive_mode));
        return 0;
    }
    case O_CONSTRAINT:
        if (copy_str (where, opt, val, field, o->size, errp) < 0)
            return -1;
        for (const char *c = val; *c; c++)
            if (isspace ((unsigned char)*c) || strchr ("\"'`$;\\", *c))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--%s=%.64s: '%c' has no place in a feature "
                               "expression",
                               where, opt, val, *c);
        return 0;
    case O_NODELIST:
        if (copy_str (where, opt, val, field, o->size, errp) < 0)
            return -1;
        if (!valid_nodelist (val))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--%s=%.64s: expected host names or ranges "
                           "(node[01-04],gpu7)%s",
                           where, opt, val,
                           strchr (val, '/') ? "; a file of names is not read"
                                             : "");
        return 0;
    case O_GRES:
        if (copy_str (where, opt, val, s->gres, sizeof (s->gres), errp) < 0)
            return -1;
        return jobspec_parse_gres (s, where, val, errp);
    case O_GPUS:
        if (jobspec_parse_tres (val, (ms_tres_req_t *)field) < 0)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--%s=%.64s: expected [TYPE:]COUNT (e.g. 2 or "
                           "a100:2)",
                           where, opt, val);
        return 0;
    case O_EXTRA_NODE_INFO: {
        int *dst[3] = { &s->sockets_per_node, &s->cores_per_socket,
                        &s->threads_per_core };
        const char *p = val;
        for (int k = 0; k < 3 && *p; k++) {
            uint32_t v;
            if (*p == '*')
                p++;
            else if (jobspec_read_u32 (&p, 1 << 16, &v) && v > 0)
                *dst[k] = (int)v;
            else
                break;
            if (*p == ':' && k < 2)
                p++;
            else
                break;
        }
        if (*p || !*val)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--extra-node-info=%.32s: expected "
                           "SOCKETS[:CORES[:THREADS]] ('*' for any)",
                           where, val);
        return 0;
    }
    case O_CORE_SPEC:
        return parse_count (where, opt, val, 0, 1 << 16, &s->core_spec, errp);
    case O_OOM_KILL_STEP:
        return jobspec_parse_oom_kill_step (s, where, val, errp);
    case O_SEGMENT:
        return jobspec_parse_segment (s, where, val, errp);
    case O_MEM_UPDATE:
        return jobspec_parse_mem_update (s, where, val, errp);
    case O_RESV_PORTS:
        return jobspec_parse_resv_ports (s, where, val, errp);
    default:
        return 0;
    }
    return 0;
}

/* The options of how and where it is laid out: --hint, --distribution,
 * --switches, --clusters, --cpu-freq. */
static int
apply_placement (ms_jobspec_t *s, const char *where, const opt_t *o,
                 const char *val, ms_error_t *errp)
{
    const char *opt = o->o.name;

    switch (o->type) {
    case O_HINT: {
        static const char *const hints[]
            = { "compute_bound", "memory_bound", "multithread",
                "nomultithread", NULL };
        const char *p = val;
        while (*p) {
            size_t n = strcspn (p, ",");
            if (jobspec_choice (p, n, hints) < 0)
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--hint=%.64s: expected compute_bound, "
                               "memory_bound, multithread or nomultithread",
                               where, val);
            p += n;
            if (*p)
                p++;
        }
        return copy_str (where, opt, val, s->hint, sizeof (s->hint), errp);
    }
    case O_DISTRIBUTION:
        if (!jobspec_valid_distribution (val))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--distribution=%.64s: expected {*|block|cyclic|"
                           "arbitrary|plane=N}[:{*|block|cyclic|fcyclic}"
                           "[:...]][,Pack|NoPack]",
                           where, val);
        return copy_str (where, opt, val, s->distribution,
                         sizeof (s->distribution), errp);
    case O_SWITCHES: {
        const char *p = val;
        uint32_t n, m;
        if (!jobspec_read_u32 (&p, 1 << 16, &n)
            || (*p == '@' && jobspec_parse_time (p + 1, &m) < 0)
            || (*p && *p != '@'))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--switches=%.32s: expected COUNT[@MAX-TIME]",
                           where, val);
        return copy_str (where, opt, val, s->switches, sizeof (s->switches),
                         errp);
    }
    case O_CLUSTERS:
        /* names as slurmdb_get_info_cluster takes them: "," between,
         * "all" for every one */
        if (copy_str (where, opt, val, s->clusters, sizeof (s->clusters), errp)
            < 0)
            return -1;
        for (const char *c = val; *c; c++)
            if (!isalnum ((unsigned char)*c) && !strchr ("_-.,", *c))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--%s=%.64s: '%c' has no place in a list of "
                               "cluster names",
                               where, opt, val, *c);
        return 0;
    case O_CPU_FREQ: {
        ms_error_t e;
        if (jobspec_parse_cpu_freq (val, &s->cpu_freq_spec, &e) < 0)
            return ms_err (errp, MS_ERR_INPUT, "%s--cpu-freq=%.64s: %s", where,
                           val, e.text);
        return copy_str (where, opt, val, s->cpu_freq, sizeof (s->cpu_freq),
                         errp);
    }
    default:
        return 0;
    }
    return 0;
}

/* The options of its life: --array, --dependency, --mail-type, --signal,
 * --requeue, --nice, --wait-all-nodes, --no-kill, --priority. */
static int
apply_flow (ms_jobspec_t *s, const char *where, const opt_t *o,
            const char *val, ms_error_t *errp)
{
    const char *opt = o->o.name;

    switch (o->type) {
    case O_ARRAY: {
        ms_error_t e;
        if (copy_str (where, opt, val, s->array, sizeof (s->array), errp) < 0)
            return -1;
        if (jobspec_parse_array (val, &s->array_spec, &e) < 0)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--array=%.64s: %s (expected N, N-M[:STEP], "
                           "lists of them, %%LIMIT)",
                           where, val, e.text);
        return 0;
    }
    case O_DEPENDENCY: {
        ms_error_t e;
        if (copy_str (where, opt, val, s->dependency, sizeof (s->dependency),
                      errp)
            < 0)
            return -1;
        if (!*val) {
            memset (&s->deps, 0, sizeof (s->deps));
            return 0;
        }
        if (jobspec_parse_dependency (val, &s->deps, &e) < 0)
            return ms_err (errp, MS_ERR_INPUT, "%s--dependency=%.64s: %s",
                           where, val, e.text);
        return 0;
    }
    case O_KILL_INV_DEP:
        if (!strcasecmp (val, "yes"))
            s->kill_on_invalid_dep = 1;
        else if (!strcasecmp (val, "no"))
            s->kill_on_invalid_dep = 0;
        else
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--%s=%.32s: expected yes or no", where, opt,
                           val);
        return 0;
    case O_MAIL_TYPE:
        return jobspec_parse_mail_type (s, where, val, errp);
    case O_SIGNAL:
        return jobspec_parse_signal (s, where, val, errp);
    case O_REQUEUE:
        if (val && *val && strcasecmp (val, "expedite"))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--requeue=%.32s: expected no value (or "
                           "expedite)",
                           where, val);
        s->requeue = 1;
        return 0;
    case O_NO_REQUEUE:
        s->requeue = 0;
        return 0;
    case O_NICE: {
        char *end;
        long v;

        s->nice_set = true;
        if (!val) {
            s->nice = 100;
            return 0;
        }
        /* Slurm's arg_set_nice: strtoll's number (what follows it is not
         * read; no number is 0) */
        errno = 0;
        v = strtol (val, &end, 10);
        if (errno || v < -2147483645L || v > 2147483645L)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--nice=%.32s: expected a whole number from "
                           "-2147483645 to 2147483645",
                           where, val);
        s->nice = (int)v;
        return 0;
    }
    case O_WAIT_ALL_NODES:
        if (strcmp (val, "0") && strcmp (val, "1"))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--wait-all-nodes=%.32s: expected 0 or 1", where,
                           val);
        s->wait_all_nodes = val[0] - '0';
        return 0;
    case O_NO_KILL:
        /* Slurm's arg_set_no_kill: set, off or no, any case */
        if (val && strcasecmp (val, "set") && strcasecmp (val, "off")
            && strcasecmp (val, "no"))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--no-kill=%.32s: expected no value, set, off "
                           "or no",
                           where, val);
        s->no_kill = !val || !strcasecmp (val, "set");
        return 0;
    case O_PRIORITY: {
        /* Slurm's arg_set_priority: TOP, else strtoll's number (what
         * follows it is not read; no number is 0), 0 .. below NO_VAL */
        long long v;
        if (!strcasecmp (val, "TOP")) {
            s->priority = JOBSPEC_PRIORITY_TOP;
            return 0;
        }
        errno = 0;
        v = strtoll (val, NULL, 10);
        if (v < 0 || v > JOBSPEC_PRIORITY_MAX || errno == ERANGE)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--priority=%.32s: expected TOP or a whole "
                           "number from 0 to %lld (Priority must be >= 0 "
                           "and < %u)",
                           where, val, JOBSPEC_PRIORITY_MAX, 0xfffffffeu);
        s->priority = v;
        return 0;
    }
    default:
        return 0;
    }
    return 0;
}

/* A node count as Slurm's _str_to_nodes reads it: a number, then k or m
 * (times 1024, 1024^2), then nothing but blanks (*okp false otherwise);
 * -1 for no number at all (with *okp true only where nothing else is). */
int
jobspec_opt_apply (ms_jobspec_t *s, const char *where, const opt_t *o,
                   const char *val, ms_error_t *errp)
{
    const char *opt = o->o.name;
    char *field = (char *)s + o->off;

    switch (o->type) {
    case O_NONE:
        return 0;
    case O_REFUSE:
        return ms_err (errp, MS_ERR_INPUT, "%s--%s: not supported: %s", where,
                       opt, o->o.why);
    case O_STR:
        return copy_str (where, opt, val, field, o->size, errp);
    case O_NAME:
        if (copy_str (where, opt, val, field, o->size, errp) < 0)
            return -1;
        for (const char *c = val; *c; c++)
            if (isspace ((unsigned char)*c) || strchr ("\"'`$;\\", *c))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--%s=%.64s: '%c' has no place in a name",
                               where, opt, val, *c);
        return 0;
    case O_FLAG:
        *(bool *)field = true;
        return 0;
    case O_COUNT:
        return parse_count (where, opt, val, 1, 1 << 24, (int *)field, errp);
    case O_COUNT0:
        return parse_count (where, opt, val, 0, 1 << 24, (int *)field, errp);
    case O_MEM:
    case O_MEM_NODE: {
        uint64_t *dst = o->type == O_MEM ? (uint64_t *)field
                                         : &s->mem_per_node_mb;
        if (jobspec_parse_mem (val, dst) < 0 || *dst > (1ULL << 40))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--%s=%s: expected a size: N (MiB) or N with a "
                           "unit K, M, G or T (KB, MB, GB, TB and lower "
                           "case too)",
                           where, opt, val);
        if (o->type == O_MEM_NODE)
            s->mem_per_node_set = true;
        return 0;
    }
    case O_TIME:
    case O_TIME_MIN:
    case O_DELAY_BOOT:
    case O_BEGIN:
    case O_DEADLINE:
        return apply_time (s, where, o, val, errp);
    case O_JOB_NAME:
    case O_OUTPUT_PATH:
    case O_APP:
    case O_EXPORT:
    case O_OPEN_MODE:
    case O_GET_USER_ENV:
    case O_PROPAGATE:
    case O_WRAP:
        return apply_files (s, where, o, val, errp);
    case O_HINT:
    case O_DISTRIBUTION:
    case O_SWITCHES:
    case O_CLUSTERS:
    case O_CPU_FREQ:
        return apply_placement (s, where, o, val, errp);
    case O_ARRAY:
    case O_DEPENDENCY:
    case O_KILL_INV_DEP:
    case O_MAIL_TYPE:
    case O_SIGNAL:
    case O_REQUEUE:
    case O_NO_REQUEUE:
    case O_NICE:
    case O_WAIT_ALL_NODES:
    case O_NO_KILL:
    case O_PRIORITY:
        return apply_flow (s, where, o, val, errp);
    default:
        return apply_resources (s, where, o, val, errp);
    }
}
