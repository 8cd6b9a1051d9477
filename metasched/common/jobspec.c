/* jobspec.c - read a batch job like sbatch does: #SBATCH lines of the
 * script, then the command line. Every error names where it was found:
 * "job.sh:3: --time=abc: ..." for the script, "--time=abc: ..." for the
 * command line.
 *
 * The lines are read by sbatch's rules: "#SBATCH" (or the old "#SLURM")
 * at the very start of a line; the directives end at the first line that
 * is neither blank nor a comment; a line may hold several options; quotes
 * (' or ") group words, a backslash escapes the next character and an
 * unquoted '#' starts a comment. The words of all lines are then read
 * like a command line (an option's value may be the next word), with
 * getopt_long's rules: --name=value, --name value, -Xvalue, -X value,
 * unique prefixes of long names, several flags in one word (-HO).
 *
 * Every option of sbatch (Slurm 22.05 to 26.05) is in the table below with
 * what metasched does with it; a refusal says why. The syntax of the
 * values (times, dates, memory, arrays, dependencies, GPUs, ...) is read
 * in jobspec_values.c. */
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

typedef enum {
    O_NONE = 0, /* msbatch's own: no effect on the job */
    O_STR,      /* a string field at off (size bytes) */
    O_FLAG,     /* a bool field at off */
    O_COUNT,    /* an int field at off: 1.. */
    O_COUNT0,   /* an int field at off: 0.. */
    O_NAME,     /* a string field at off: a name, no spaces or quotes */
    O_MEM,      /* a uint64_t MiB field at off */
    O_REFUSE,   /* refused */
    /* the rest: their own code in apply () */
    O_NODES, O_TIME, O_TIME_MIN, O_BEGIN, O_DEADLINE, O_DELAY_BOOT,
    O_OUTPUT_PATH, O_JOB_NAME, O_APP, O_EXCLUSIVE, O_EXPORT, O_MEM_NODE,
    O_CONSTRAINT, O_NODELIST, O_GRES, O_GPUS, O_ARRAY, O_DEPENDENCY,
    O_KILL_INV_DEP, O_MAIL_TYPE, O_SIGNAL, O_REQUEUE, O_NO_REQUEUE,
    O_OPEN_MODE, O_NICE, O_GET_USER_ENV, O_HINT, O_DISTRIBUTION,
    O_EXTRA_NODE_INFO, O_CORE_SPEC, O_WAIT_ALL_NODES, O_PROPAGATE,
    O_NO_KILL, O_SWITCHES, O_WRAP, O_CLUSTERS, O_CPU_FREQ, O_PRIORITY,
    O_OOM_KILL_STEP, O_SEGMENT,
} otype_t;

#define F(field) offsetof (ms_jobspec_t, field), sizeof (((ms_jobspec_t *)0)->field)
#define NOF 0, 0

#define CARRY JOBSPEC_CARRIED
#define ROUTE JOBSPEC_ROUTED
#define META JOBSPEC_METASCHED
#define CMD JOBSPEC_MSBATCH
#define REFUSE JOBSPEC_REFUSED

#define WHY_CLUSTER "metasched chooses the cluster"
#define WHY_NEW                                                              \
    "metasched does not carry it: an option of recent Slurm releases that "  \
    "the other clusters of a site may not know"
#define WHY_HOST                                                             \
    "sbatch reads it on the submitting host; metasched's jobs start "        \
    "elsewhere"

typedef struct {
    jobspec_option_t o;
    otype_t type;
    size_t off, size;
} opt_t;

/* sbatch's options (its man page, Slurm 22.05 to 26.05), by name. */
static const opt_t options[] = {
    { { "account", 'A', 1, ROUTE, NULL }, O_NAME, F (account) },
    { { "acctg-freq", 0, 1, CARRY, NULL }, O_STR, F (acctg_freq) },
    { { "app", 0, 1, META, NULL }, O_APP, NOF },
    { { "array", 'a', 1, META, NULL }, O_ARRAY, NOF },
    { { "batch", 0, 1, CARRY, NULL }, O_STR, F (batch_features) },
    { { "bb", 0, 1, REFUSE,
        "burst buffers are set up per cluster; metasched does not route "
        "them" },
      O_REFUSE, NOF },
    { { "bbf", 0, 1, REFUSE,
        "burst buffers are set up per cluster; metasched does not route "
        "them" },
      O_REFUSE, NOF },
    { { "begin", 'b', 1, META, NULL }, O_BEGIN, NOF },
    { { "chdir", 'D', 1, CARRY, NULL }, O_STR, F (chdir) },
    { { "cluster", 0, 1, ROUTE, NULL }, O_CLUSTERS, NOF },
    { { "cluster-constraint", 0, 1, REFUSE, WHY_CLUSTER }, O_REFUSE, NOF },
    { { "clusters", 'M', 1, ROUTE, NULL }, O_CLUSTERS, NOF },
    { { "comment", 0, 1, CARRY, NULL }, O_STR, F (comment) },
    { { "consolidate-segments", 0, 0, CARRY, NULL }, O_FLAG,
      F (consolidate_segments) },
    { { "constraint", 'C', 1, ROUTE, NULL }, O_CONSTRAINT, F (constraint) },
    { { "container", 0, 1, CARRY, NULL }, O_STR, F (container) },
    { { "container-id", 0, 1, ROUTE, NULL }, O_STR, F (container_id) },
    { { "contiguous", 0, 0, CARRY, NULL }, O_FLAG, F (contiguous) },
    { { "core-spec", 'S', 1, CARRY, NULL }, O_CORE_SPEC, NOF },
    { { "cores-per-socket", 0, 1, CARRY, NULL }, O_COUNT,
      F (cores_per_socket) },
    { { "cpu-freq", 0, 1, ROUTE, NULL }, O_CPU_FREQ, NOF },
    { { "cpus-per-gpu", 0, 1, ROUTE, NULL }, O_COUNT, F (cpus_per_gpu) },
    { { "cpus-per-task", 'c', 1, ROUTE, NULL }, O_COUNT, F (cpus_per_task) },
    { { "deadline", 0, 1, CARRY, NULL }, O_DEADLINE, NOF },
    { { "delay-boot", 0, 1, CARRY, NULL }, O_DELAY_BOOT, NOF },
    { { "dependency", 'd', 1, META, NULL }, O_DEPENDENCY, NOF },
    { { "distribution", 'm', 1, CARRY, NULL }, O_DISTRIBUTION, NOF },
    { { "error", 'e', 1, CARRY, NULL }, O_OUTPUT_PATH, F (std_err) },
    { { "exclude", 'x', 1, ROUTE, NULL }, O_NODELIST, F (exclude) },
    { { "exclusive", 0, 2, ROUTE, NULL }, O_EXCLUSIVE, NOF },
    { { "export", 0, 1, CARRY, NULL }, O_EXPORT, NOF },
    { { "export-file", 0, 1, CMD, NULL }, O_STR, F (export_file) },
    { { "extra", 0, 1, ROUTE, NULL }, O_STR, F (extra) },
    { { "extra-node-info", 'B', 1, CARRY, NULL }, O_EXTRA_NODE_INFO, NOF },
    { { "get-user-env", 0, 2, CARRY, NULL }, O_GET_USER_ENV, NOF },
    { { "gid", 0, 1, REFUSE,
        "the job runs as the user and group who submit it" },
      O_REFUSE, NOF },
    { { "gpu-bind", 0, 1, CARRY, NULL }, O_STR, F (gpu_bind) },
    { { "gpu-freq", 0, 1, CARRY, NULL }, O_STR, F (gpu_freq) },
    { { "gpus", 'G', 1, ROUTE, NULL }, O_GPUS, F (gpus) },
    { { "gpus-per-node", 0, 1, ROUTE, NULL }, O_GPUS, F (gpus_per_node) },
    { { "gpus-per-socket", 0, 1, ROUTE, NULL }, O_GPUS, F (gpus_per_socket) },
    { { "gpus-per-task", 0, 1, ROUTE, NULL }, O_GPUS, F (gpus_per_task) },
    { { "gres", 0, 1, ROUTE, NULL }, O_GRES, NOF },
    { { "gres-flags", 0, 1, CARRY, NULL }, O_STR, F (gres_flags) },
    { { "help", 'h', 0, CMD, NULL }, O_NONE, NOF },
    { { "hint", 0, 1, CARRY, NULL }, O_HINT, NOF },
    { { "hold", 'H', 0, CARRY, NULL }, O_FLAG, F (hold) },
    { { "ignore-pbs", 0, 0, CMD, NULL }, O_NONE, NOF },
    { { "input", 'i', 1, CARRY, NULL }, O_OUTPUT_PATH, F (std_in) },
    { { "job-name", 'J', 1, CARRY, NULL }, O_JOB_NAME, NOF },
    { { "kill-on-invalid-dep", 0, 1, META, NULL }, O_KILL_INV_DEP, NOF },
    { { "licenses", 'L', 1, CARRY, NULL }, O_STR, F (licenses) },
    { { "mail-type", 0, 1, CARRY, NULL }, O_MAIL_TYPE, NOF },
    { { "mail-user", 0, 1, CARRY, NULL }, O_NAME, F (mail_user) },
    { { "mcs-label", 0, 1, CARRY, NULL }, O_STR, F (mcs_label) },
    { { "mem", 0, 1, ROUTE, NULL }, O_MEM_NODE, NOF },
    { { "mem-bind", 0, 1, CARRY, NULL }, O_STR, F (mem_bind) },
    { { "mem-per-cpu", 0, 1, ROUTE, NULL }, O_MEM, F (mem_per_cpu_mb) },
    { { "mem-per-gpu", 0, 1, ROUTE, NULL }, O_MEM, F (mem_per_gpu_mb) },
    { { "mem-update", 0, 1, REFUSE, WHY_NEW }, O_REFUSE, NOF },
    { { "mincpus", 0, 1, ROUTE, NULL }, O_COUNT, F (mincpus) },
    { { "network", 0, 1, CARRY, NULL }, O_STR, F (network) },
    { { "nice", 0, 2, CARRY, NULL }, O_NICE, NOF },
    { { "no-kill", 'k', 2, CARRY, NULL }, O_NO_KILL, NOF },
    { { "no-requeue", 0, 0, CARRY, NULL }, O_NO_REQUEUE, NOF },
    { { "nodefile", 'F', 1, REFUSE,
        WHY_HOST "; name the nodes with --nodelist" },
      O_REFUSE, NOF },
    { { "nodelist", 'w', 1, ROUTE, NULL }, O_NODELIST, F (nodelist) },
    { { "nodes", 'N', 1, ROUTE, NULL }, O_NODES, NOF },
    { { "ntasks", 'n', 1, ROUTE, NULL }, O_COUNT, F (ntasks) },
    { { "ntasks-per-core", 0, 1, CARRY, NULL }, O_COUNT, F (ntasks_per_core) },
    { { "ntasks-per-gpu", 0, 1, ROUTE, NULL }, O_COUNT, F (ntasks_per_gpu) },
    { { "ntasks-per-node", 0, 1, ROUTE, NULL }, O_COUNT, F (ntasks_per_node) },
    { { "ntasks-per-socket", 0, 1, CARRY, NULL }, O_COUNT,
      F (ntasks_per_socket) },
    { { "oom-kill-step", 0, 2, ROUTE, NULL }, O_OOM_KILL_STEP, NOF },
    { { "open-mode", 0, 1, CARRY, NULL }, O_OPEN_MODE, NOF },
    { { "output", 'o', 1, CARRY, NULL }, O_OUTPUT_PATH, F (std_out) },
    { { "overcommit", 'O', 0, CARRY, NULL }, O_FLAG, F (overcommit) },
    { { "oversubscribe", 's', 0, CARRY, NULL }, O_FLAG, F (oversubscribe) },
    { { "parsable", 0, 0, CMD, NULL }, O_FLAG, F (parsable) },
    { { "partition", 'p', 1, ROUTE, NULL }, O_STR, F (partition) },
    { { "power", 0, 1, REFUSE,
        "power management flags were removed from Slurm after 22.05" },
      O_REFUSE, NOF },
    { { "prefer", 0, 1, CARRY, NULL }, O_CONSTRAINT, F (prefer) },
    { { "priority", 0, 1, META, NULL }, O_PRIORITY, NOF },
    { { "profile", 0, 1, CARRY, NULL }, O_STR, F (profile) },
    { { "propagate", 0, 2, CMD, NULL }, O_PROPAGATE, NOF },
    { { "qos", 'q', 1, ROUTE, NULL }, O_NAME, F (qos) },
    { { "quiet", 'Q', 0, CMD, NULL }, O_NONE, NOF },
    { { "reboot", 0, 0, CARRY, NULL }, O_FLAG, F (reboot) },
    { { "requeue", 0, 2, CARRY, NULL }, O_REQUEUE, NOF },
    { { "reservation", 0, 1, ROUTE, NULL }, O_NAME, F (reservation) },
    { { "resources", 0, 1, REFUSE, WHY_NEW }, O_REFUSE, NOF },
    { { "resv-ports", 0, 2, REFUSE, WHY_NEW }, O_REFUSE, NOF },
    { { "runtime", 0, 1, REFUSE, WHY_NEW }, O_REFUSE, NOF },
    { { "segment", 0, 1, ROUTE, NULL }, O_SEGMENT, NOF },
    { { "signal", 0, 1, CARRY, NULL }, O_SIGNAL, NOF },
    { { "sockets-per-node", 0, 1, CARRY, NULL }, O_COUNT,
      F (sockets_per_node) },
    { { "spread-job", 0, 0, CARRY, NULL }, O_FLAG, F (spread_job) },
    { { "spread-segments", 0, 0, CARRY, NULL }, O_FLAG, F (spread_segments) },
    { { "stepmgr", 0, 0, CARRY, NULL }, O_FLAG, F (stepmgr) },
    { { "switches", 0, 1, CARRY, NULL }, O_SWITCHES, NOF },
    { { "tasks-per-node", 0, 1, ROUTE, NULL }, O_COUNT, F (ntasks_per_node) },
    { { "test-only", 0, 0, META, NULL }, O_FLAG, F (test_only) },
    { { "thread-spec", 0, 1, CARRY, NULL }, O_COUNT, F (thread_spec) },
    { { "threads-per-core", 0, 1, CARRY, NULL }, O_COUNT,
      F (threads_per_core) },
    { { "time", 't', 1, ROUTE, NULL }, O_TIME, NOF },
    { { "time-min", 0, 1, CARRY, NULL }, O_TIME_MIN, NOF },
    { { "tmp", 0, 1, ROUTE, NULL }, O_MEM, F (tmp_mb) },
    { { "tres-bind", 0, 1, REFUSE, WHY_NEW }, O_REFUSE, NOF },
    { { "tres-per-task", 0, 1, REFUSE, WHY_NEW "; use --gpus-per-task" },
      O_REFUSE, NOF },
    { { "uid", 0, 1, REFUSE, "the job runs as the user who submits it" },
      O_REFUSE, NOF },
    { { "usage", 0, 0, CMD, NULL }, O_NONE, NOF },
    { { "use-min-nodes", 0, 0, CARRY, NULL }, O_FLAG, F (use_min_nodes) },
    { { "verbose", 'v', 0, CMD, NULL }, O_NONE, NOF },
    { { "version", 'V', 0, CMD, NULL }, O_NONE, NOF },
    { { "wait", 'W', 0, CMD, NULL }, O_FLAG, F (wait) },
    { { "wait-all-nodes", 0, 1, CARRY, NULL }, O_WAIT_ALL_NODES, NOF },
    { { "wckey", 0, 1, CARRY, NULL }, O_NAME, F (wckey) },
    { { "wrap", 0, 1, CMD, NULL }, O_WRAP, NOF },
};
#define NOPTIONS (sizeof (options) / sizeof (options[0]))

const jobspec_option_t *
jobspec_option_at (size_t i)
{
    return i < NOPTIONS ? &options[i].o : NULL;
}

void
jobspec_init (ms_jobspec_t *s)
{
    memset (s, 0, sizeof (*s));
    ms_strlcpy (s->export_mode, "ALL", sizeof (s->export_mode));
    s->kill_on_invalid_dep = -1;
    s->requeue = -1;
    s->core_spec = -1;
    s->wait_all_nodes = -1;
    s->priority = -1;
    s->oom_kill_step = -1;
    s->segment_size = -1;
}

void
jobspec_free (ms_jobspec_t *s)
{
    for (size_t i = 0; i < s->nexport; i++)
        free (s->export_vars[i]);
    s->nexport = 0;
    jobspec_het_free (s);
}


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

/* A node count as Slurm's _str_to_nodes reads it: a number, then k or m
 * (times 1024, 1024^2), then nothing but blanks (*okp false otherwise);
 * -1 for no number at all (with *okp true only where nothing else is). */
static int
apply (ms_jobspec_t *s, const char *where, const opt_t *o, const char *val,
       ms_error_t *errp)
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
    case O_NODES:
        return jobspec_parse_nodes (s, where, val, errp);
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
    case O_EXPORT:
        return parse_export (s, where, val, errp);
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
    case O_WAIT_ALL_NODES:
        if (strcmp (val, "0") && strcmp (val, "1"))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--wait-all-nodes=%.32s: expected 0 or 1", where,
                           val);
        s->wait_all_nodes = val[0] - '0';
        return 0;
    case O_PROPAGATE: {
        /* sbatch's parse_rlimits: ALL (bare), NONE or names */
        unsigned mask;
        if (jobspec_parse_propagate (val ? val : "ALL", &mask, errp) < 0)
            return ms_err_prefix (errp, "%s--%s=%.64s", where, opt,
                                  val ? val : "ALL");
        return copy_str (where, opt, val ? val : "ALL", s->propagate,
                         sizeof (s->propagate), errp);
    }
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
    case O_OOM_KILL_STEP:
        return jobspec_parse_oom_kill_step (s, where, val, errp);
    case O_SEGMENT:
        return jobspec_parse_segment (s, where, val, errp);
    }
    return 0;
}

/* The option a long name (without "--", n bytes) stands for: an exact name,
 * else a unique prefix (getopt_long's rule). NULL with errp filled. */
static const opt_t *
find_long (const char *where, const char *name, size_t n, ms_error_t *errp)
{
    const opt_t *found = NULL;
    int matches = 0;

    for (size_t k = 0; k < NOPTIONS; k++) {
        if (strncmp (options[k].o.name, name, n))
            continue;
        if (strlen (options[k].o.name) == n)
            return &options[k];
        found = &options[k];
        matches++;
    }
    if (matches == 1 && n >= 2)
        return found;
    if (matches > 1 && n >= 2) {
        ms_err (errp, MS_ERR_INPUT, "%soption '--%.*s' is ambiguous", where,
                (int)(n > 64 ? 64 : n), name);
        return NULL;
    }
    ms_err (errp, MS_ERR_INPUT,
            "%sunknown option '--%.*s' (not an option of sbatch; see "
            "msbatch --help)",
            where, (int)(n > 64 ? 64 : n), name);
    return NULL;
}

/* One option word (with its value, maybe in the next word). Returns the
 * number of words used, or -1. */
static int
one_option (ms_jobspec_t *s, const char *where, const char *word,
            const char *next, ms_error_t *errp)
{
    if (word[0] == '-' && word[1] == '-') {
        const char *name = word + 2, *eq = strchr (name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen (name);
        const opt_t *o = find_long (where, name, n, errp);

        if (!o)
            return -1;
        if (o->o.has_arg == 1 && !eq) {
            if (!next)
                return ms_err (errp, MS_ERR_INPUT, "%s--%s: needs a value",
                               where, o->o.name);
            return apply (s, where, o, next, errp) < 0 ? -1 : 2;
        }
        if (o->o.has_arg == 0 && eq)
            return ms_err (errp, MS_ERR_INPUT, "%s--%s takes no value", where,
                           o->o.name);
        return apply (s, where, o, eq ? eq + 1 : NULL, errp) < 0 ? -1 : 1;
    }
    if (word[0] == '-' && word[1] && word[1] != '-') {
        /* -X, -Xvalue, -X value, -X=value, and flags together: -HO */
        for (const char *c = word + 1; *c; c++) {
            const opt_t *o = NULL;

            for (size_t k = 0; k < NOPTIONS; k++)
                if (options[k].o.shortname == *c)
                    o = &options[k];
            if (!o)
                return ms_err (errp, MS_ERR_INPUT,
                               "%sunknown option '-%c' (not an option of "
                               "sbatch; see msbatch --help)",
                               where, isprint ((unsigned char)*c) ? *c : '?');
            if (o->o.has_arg == 0) {
                if (apply (s, where, o, NULL, errp) < 0)
                    return -1;
                continue;
            }
            if (c[1])
                return apply (s, where, o, c[1] == '=' ? c + 2 : c + 1, errp)
                               < 0
                           ? -1
                           : 1;
            if (o->o.has_arg == 2)
                return apply (s, where, o, NULL, errp) < 0 ? -1 : 1;
            if (!next)
                return ms_err (errp, MS_ERR_INPUT, "%s-%c: needs a value",
                               where, *c);
            return apply (s, where, o, next, errp) < 0 ? -1 : 2;
        }
        return 1;
    }
    return ms_err (errp, MS_ERR_INPUT, "%s'%.64s' is not an option", where,
                   word);
}

int
jobspec_apply_option (ms_jobspec_t *s, const char *name, const char *val,
                      ms_error_t *errp)
{
    for (size_t k = 0; k < NOPTIONS; k++)
        if (!strcmp (options[k].o.name, name)) {
            if (options[k].o.has_arg == 1 && !val)
                return ms_err (errp, MS_ERR_INPUT, "--%s: needs a value",
                               name);
            if (options[k].o.has_arg == 0 && val)
                return ms_err (errp, MS_ERR_INPUT, "--%s takes no value",
                               name);
            return apply (s, "", &options[k], val, errp);
        }
    return ms_err (errp, MS_ERR_INPUT, "unknown option '--%s'", name);
}

/* The words of one #SBATCH line by sbatch's rules: whitespace separates,
 * quotes group, a backslash escapes, an unquoted '#' ends the line. The
 * words are written NUL-separated into out (as large as the line plus one
 * byte a word); returns the number of words, -1 for an open quote. */
static int
split_words (const char *l, char *out, char **words, int maxw)
{
    int nw = 0;
    char *o = out;

    for (;;) {
        char q = 0;
        bool any = false;

        while (*l == ' ' || *l == '\t' || *l == '\r' || *l == '\v'
               || *l == '\f')
            l++;
        if (!*l || *l == '#')
            break;
        if (nw == maxw)
            return -2;
        words[nw] = o;
        while (*l && (q || !isspace ((unsigned char)*l))) {
            if (*l == '\\' && l[1] && q != '\'') {
                *o++ = l[1];
                l += 2;
            } else if (q) {
                if (*l == q)
                    q = 0;
                else
                    *o++ = *l;
                l++;
            } else if (*l == '"' || *l == '\'') {
                q = *l++;
            } else if (*l == '#')
                break;
            else
                *o++ = *l++;
            any = true;
        }
        if (q)
            return -1;
        *o++ = '\0';
        if (any && !*words[nw])
            break; /* an empty word ("") ends the line, as in sbatch's
                    * get_argument */
        if (any)
            nw++;
        if (*l == '#')
            break;
    }
    return nw;
}

#define LINE_MAX_BYTES 4096
#define WORDS_MAX 4096

int
jobspec_parse_script (ms_jobspec_t *s, const char *script, size_t len,
                      const char *name, ms_error_t *errp)
{
    size_t pos = 0;
    int line = 0, nw = 0, rc = -1;
    ms_jobspec_t *cur = s; /* the component read */
    char **words = ms_xcalloc (WORDS_MAX, sizeof (char *));
    int *lines = ms_xcalloc (WORDS_MAX, sizeof (int));
    char *store = NULL;
    size_t used = 0, cap = 0;

    if (len > JOBSPEC_SCRIPT_MAX) {
        ms_err (errp, MS_ERR_INPUT, "%s: script is larger than %d bytes",
                name, JOBSPEC_SCRIPT_MAX);
        goto out;
    }
    if (memchr (script, '\0', len)) {
        ms_err (errp, MS_ERR_INPUT,
                "%s: script contains a NUL byte (binary file?)", name);
        goto out;
    }
    /* the words of all lines first (their text in one store, found again
     * by offsets), then read like a command line */
    while (pos < len) {
        size_t end = pos, n;
        const char *l;
        char buf[LINE_MAX_BYTES], *w[LINE_MAX_BYTES / 2];
        int k;

        while (end < len && script[end] != '\n')
            end++;
        n = end - pos;
        l = script + pos;
        line++;
        pos = end + 1;
        if (!(n >= 7 && !strncmp (l, "#SBATCH", 7))
            && !(n >= 6 && !strncmp (l, "#SLURM", 6))) {
            /* a command ends the directives; comments and blanks do not */
            size_t i = 0;
            while (i < n && isspace ((unsigned char)l[i]))
                i++;
            if (i < n && l[i] != '#')
                break;
            continue;
        }
        if (n >= LINE_MAX_BYTES) {
            ms_err (errp, MS_ERR_INPUT,
                    "%s:%d: #SBATCH line longer than %d bytes", name, line,
                    LINE_MAX_BYTES - 1);
            goto out;
        }
        k = l[1] == 'S' && l[2] == 'B' ? 7 : 6;
        memcpy (buf, l + k, n - (size_t)k);
        buf[n - (size_t)k] = '\0';
        {
            char *t = buf;
            size_t hl;
            while (*t == ' ' || *t == '\t')
                t++;
            if (jobspec_het_separator (t, &hl)) {
                /* the next component, whose options may follow on the
                 * line (sbatch blanks the word out) */
                memset (t, ' ', hl);
                if (nw + 1 > WORDS_MAX) {
                    ms_err (errp, MS_ERR_INPUT,
                            "%s:%d: more than %d words of options", name,
                            line, WORDS_MAX);
                    goto out;
                }
                if (used + 2 > cap) {
                    cap = used + 2 + 4096;
                    store = ms_xrealloc (store, cap);
                }
                memcpy (store + used, ":", 2);
                words[nw] = (char *)(uintptr_t)used;
                lines[nw++] = line;
                used += 2;
            } else if (buf[0] && !isspace ((unsigned char)buf[0])
                       && buf[0] != '-')
                continue; /* "#SBATCHED ...": a comment, not a directive */
        }
        char wbuf[LINE_MAX_BYTES * 2];
        int got = split_words (buf, wbuf, w, LINE_MAX_BYTES / 2);
        if (got == -1) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: a quote is not closed", name,
                    line);
            goto out;
        }
        if (got < 0 || nw + got > WORDS_MAX) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: more than %d words of options",
                    name, line, WORDS_MAX);
            goto out;
        }
        for (int i = 0; i < got; i++) {
            size_t wl = strlen (w[i]) + 1;
            if (used + wl > cap) {
                cap = (used + wl) * 2 + 4096;
                store = ms_xrealloc (store, cap);
            }
            memcpy (store + used, w[i], wl);
            words[nw] = (char *)(uintptr_t)used;
            lines[nw++] = line;
            used += wl;
        }
    }
    for (int i = 0; i < nw; i++)
        words[i] = store + (uintptr_t)words[i];
    for (int i = 0; i < nw;) {
        char where[512];
        int u;

        snprintf (where, sizeof (where), "%s:%d: ", name, lines[i]);
        if (!strcmp (words[i], ":")) {
            if (!(cur = jobspec_het_add (s, where, errp)))
                goto out;
            i++;
            continue;
        }
        if (words[i][0] != '-' || !words[i][1]) {
            ms_err (errp, MS_ERR_INPUT,
                    "%s'%.64s' is not an option (the script's arguments go "
                    "after it on msbatch's command line)",
                    where, words[i]);
            goto out;
        }
        u = one_option (cur, where, words[i],
                        i + 1 < nw && strcmp (words[i + 1], ":") ? words[i + 1]
                                                                 : NULL,
                        errp);
        if (u < 0)
            goto out;
        i += u;
    }
    jobspec_het_merge (s);
    rc = 0;
out:
    free (store);
    free (words);
    free (lines);
    return rc;
}

int
jobspec_parse_args (ms_jobspec_t *s, int argc, char **argv, int *argip,
                    ms_error_t *errp)
{
    ms_jobspec_t *cur = s; /* ':' separates components, as in sbatch */
    size_t comp = 0;
    int i = 1;

    while (i < argc) {
        const char *w = argv[i];
        if (!strcmp (w, "--")) {
            i++;
            break;
        }
        if (!strcmp (w, ":") && i + 1 < argc) {
            char where[64];
            snprintf (where, sizeof (where), "component %zu: ", comp + 1);
            cur = jobspec_het_at (s, ++comp);
            if (!cur && !(cur = jobspec_het_add (s, where, errp)))
                return -1;
            i++;
            continue;
        }
        if (w[0] != '-' || !w[1])
            break;
        int used = one_option (cur, "", w,
                               i + 1 < argc && strcmp (argv[i + 1], ":")
                                   ? argv[i + 1]
                                   : NULL,
                               errp);
        if (used < 0)
            return -1;
        i += used;
    }
    jobspec_het_merge (s);
    *argip = i;
    return 0;
}

int
jobspec_check (const ms_jobspec_t *s, const char *script, size_t len,
               bool allow_partition, ms_error_t *errp)
{
    for (size_t k = 0; k < s->nhet; k++)
        if (jobspec_check (s->het[k], script, len, allow_partition, errp) < 0)
            return ms_err_prefix (errp, "component %zu", k + 1);
    if (len < 2 || strncmp (script, "#!", 2))
        return ms_err (errp, MS_ERR_INPUT,
                       "script: must start with #! (an interpreter line, as "
                       "sbatch requires)");
    if (len > JOBSPEC_SCRIPT_MAX)
        return ms_err (errp, MS_ERR_INPUT, "script: larger than %d bytes",
                       JOBSPEC_SCRIPT_MAX);
    if (s->partition[0] && !allow_partition)
        return ms_err (errp, MS_ERR_INPUT,
                       "--partition=%s: metasched chooses the cluster, "
                       "partition and frequency; this site does not allow "
                       "pinning a partition (remove --partition/-p)",
                       s->partition);
    if (s->nodes && s->ntasks && s->ntasks_per_node
        && s->ntasks > (s->nodes_max ? s->nodes_max : s->nodes)
                           * s->ntasks_per_node)
        return ms_err (errp, MS_ERR_INPUT,
                       "--ntasks=%d does not fit --nodes=%d with "
                       "--ntasks-per-node=%d",
                       s->ntasks, s->nodes, s->ntasks_per_node);
    if ((s->mem_per_node_set != 0) + (s->mem_per_cpu_mb != 0)
            + (s->mem_per_gpu_mb != 0)
        > 1)
        return ms_err (errp, MS_ERR_INPUT,
                       "--mem, --mem-per-cpu and --mem-per-gpu exclude each "
                       "other (as in sbatch)");
    if (s->deadline && s->begin && s->deadline < s->begin)
        return ms_err (errp, MS_ERR_INPUT,
                       "--deadline is before --begin");
    return 0;
}

int
jobspec_gpus_per_node (const ms_jobspec_t *s, int nodes, const char **typep)
{
    const ms_tres_req_t *t = NULL;
    uint64_t per = 0;

    if (nodes <= 0)
        nodes = 1;
    if (s->gpus_per_node.count) {
        t = &s->gpus_per_node;
        per = t->count;
    } else if (s->gpus.count) {
        t = &s->gpus;
        per = (t->count + (uint64_t)nodes - 1) / (uint64_t)nodes;
    } else if (s->gpus_per_task.count) {
        uint64_t tasks = s->ntasks_per_node > 0 ? (uint64_t)s->ntasks_per_node
                         : s->ntasks > 0
                             ? ((uint64_t)s->ntasks + (uint64_t)nodes - 1)
                                   / (uint64_t)nodes
                             : 1;
        t = &s->gpus_per_task;
        per = t->count * tasks;
    } else
        for (size_t i = 0; i < s->ngres; i++)
            if (!strcmp (s->gres_list[i].name, "gpu")) {
                t = &s->gres_list[i];
                per = t->count;
                break;
            }
    if (typep)
        *typep = t ? t->type : "";
    return per > INT32_MAX ? INT32_MAX : (int)per;
}

/* What slurmd sets for a batch job (and srun for a step) that names the
 * running job, its array, step, nodes and allocation. A job submitted from
 * inside another inherits them; for a job that is no array, slurmd sets
 * no SLURM_ARRAY_* and the inherited ones would stay, naming the other
 * job. Prefixes end in '_'. */
static const char *const identity_env[] = {
    "SLURM_JOB_",
    "SLURM_ARRAY_",
    "SLURM_STEP_",
    "SLURM_HET_JOB_",
    "SLURM_JOBID",
    "SLURM_STEPID",
    "SLURM_NODELIST",
    "SLURM_NNODES",
    "SLURM_NODEID",
    "SLURM_PROCID",
    "SLURM_LOCALID",
    "SLURM_TASK_PID",
    "SLURM_TASKS_PER_NODE",
    "SLURM_NTASKS",
    "SLURM_NPROCS",
    "SLURM_NTASKS_PER_NODE",
    "SLURM_CPUS_ON_NODE",
    "SLURM_CPUS_PER_TASK",
    "SLURM_GTIDS",
    "SLURM_CLUSTER_NAME",
    "SLURMD_NODENAME",
    "SLURM_SUBMIT_DIR",
    "SLURM_SUBMIT_HOST",
    "SLURM_TOPOLOGY_ADDR",
    "SLURM_TOPOLOGY_ADDR_PATTERN",
    "SLURM_PRIO_PROCESS",
    "SLURM_RESTART_COUNT",
    "SLURM_MEM_PER_NODE",
    "SLURM_MEM_PER_CPU",
    "SLURM_GPUS_ON_NODE",
    "METASCHED_JOB_ID",
    "METASCHED_GATE",
};

bool
jobspec_env_is_identity (const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof (identity_env) / sizeof (identity_env[0]);
         i++) {
        const char *v = identity_env[i];
        size_t l = strlen (v);
        if (v[l - 1] == '_' ? n >= l && !strncmp (name, v, l)
                            : n == l && !strncmp (name, v, l))
            return true;
    }
    return false;
}
