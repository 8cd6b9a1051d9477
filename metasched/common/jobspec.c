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
 * in jobspec_values.c; each option's value is applied in jobspec_apply.c. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_int.h"
#include "metasched/common/util.h"

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
    { { "container-type", 0, 1, ROUTE, NULL }, O_STR, F (container_type) },
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
    { { "external", 0, 0, ROUTE, NULL }, O_FLAG, F (external) },
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
    { { "mem-update", 0, 1, CARRY, NULL }, O_MEM_UPDATE, F (mem_update) },
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
    { { "resources", 0, 1, ROUTE, NULL }, O_STR, F (resources) },
    { { "resv-ports", 0, 2, CARRY, NULL }, O_RESV_PORTS, NOF },
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
    { { "tres-bind", 0, 1, CARRY, NULL }, O_STR, F (tres_bind) },
    { { "tres-per-task", 0, 1, ROUTE, NULL }, O_STR, F (tres_per_task) },
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
    s->resv_ports = -1;
}

void
jobspec_het_free (ms_jobspec_t *s)
{
    for (size_t i = 0; i < s->nhet; i++) {
        jobspec_free (s->het[i]);
        free (s->het[i]);
    }
    free (s->het);
    s->het = NULL;
    s->nhet = 0;
}

void
jobspec_free (ms_jobspec_t *s)
{
    for (size_t i = 0; i < s->nexport; i++)
        free (s->export_vars[i]);
    s->nexport = 0;
    jobspec_het_free (s);
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

int
jobspec_one_option (ms_jobspec_t *s, const char *where, const char *word,
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
            return jobspec_opt_apply (s, where, o, next, errp) < 0 ? -1 : 2;
        }
        if (o->o.has_arg == 0 && eq)
            return ms_err (errp, MS_ERR_INPUT, "%s--%s takes no value", where,
                           o->o.name);
        return jobspec_opt_apply (s, where, o, eq ? eq + 1 : NULL, errp) < 0 ? -1 : 1;
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
                if (jobspec_opt_apply (s, where, o, NULL, errp) < 0)
                    return -1;
                continue;
            }
            if (c[1])
                return jobspec_opt_apply (s, where, o, c[1] == '=' ? c + 2 : c + 1, errp)
                               < 0
                           ? -1
                           : 1;
            if (o->o.has_arg == 2)
                return jobspec_opt_apply (s, where, o, NULL, errp) < 0 ? -1 : 1;
            if (!next)
                return ms_err (errp, MS_ERR_INPUT, "%s-%c: needs a value",
                               where, *c);
            return jobspec_opt_apply (s, where, o, next, errp) < 0 ? -1 : 2;
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
            return jobspec_opt_apply (s, "", &options[k], val, errp);
        }
    return ms_err (errp, MS_ERR_INPUT, "unknown option '--%s'", name);
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
    if (s->external && s->wrap[0])
        return ms_err (errp, MS_ERR_INPUT,
                       "--wrap option not permitted with --external option "
                       "(as in sbatch)");
    if (s->tres_per_task[0]) {
        ms_tres_req_t t;
        int g = jobspec_tres_task_gpus (s->tres_per_task, &t);
        if (g < 0)
            return ms_err (errp, MS_ERR_INPUT,
                           "--tres-per-task=%s: Invalid generic resource "
                           "(gres) specification (gres/gpu[:TYPE]=COUNT, "
                           "once)",
                           s->tres_per_task);
        if (g > 0 && s->gpus_per_task.count)
            return ms_err (errp, MS_ERR_INPUT,
                           "You can not have --tres-per-task=gres/gpu= and "
                           "--gpus-per-task please use one or the other (as "
                           "in sbatch)");
    }
    if (s->deadline && s->begin && s->deadline < s->begin)
        return ms_err (errp, MS_ERR_INPUT,
                       "--deadline is before --begin");
    return 0;
}

int
jobspec_tres_task_gpus (const char *list, ms_tres_req_t *t)
{
    const char *p = list;

    memset (t, 0, sizeof (*t));
    while (p && *p) {
        size_t n = strcspn (p, ","), k;
        const char *w = p, *end = p + n;
        char val[80];

        p = *end ? end + 1 : end;
        /* gres/gpu (23.11 on) or gres:gpu (23.02), in any case */
        if (n < 8 || strncasecmp (w, "gres", 4) || (w[4] != '/' && w[4] != ':')
            || strncasecmp (w + 5, "gpu", 3))
            continue;
        w += 8;
        if (w < end && *w != ':' && *w != '=')
            continue; /* another generic resource (gpuX) */
        if (t->count)
            return -1;  /* GPUs twice */
        if (w == end) { /* no count: one, as --gres=gpu */
            ms_strlcpy (t->name, "gpu", sizeof (t->name));
            t->count = 1;
            continue;
        }
        /* ':' or '=' then [type(: or =)]count: into --gpus' [type:]count */
        k = (size_t)(end - w - 1);
        if (k == 0 || k >= sizeof (val))
            return -1;
        memcpy (val, w + 1, k);
        val[k] = '\0';
        for (char *c = val; *c; c++)
            if (*c == '=')
                *c = ':';
        if (*w == ':' && !strchr (val, ':') && !isdigit ((unsigned char)val[0])
            && k < sizeof (val) - 2)
            strcat (val, ":1"); /* a type without a count: one */
        if (jobspec_parse_tres (val, t) < 0)
            return -1;
    }
    return t->count ? 1 : 0;
}

int
jobspec_gpus_per_node (const ms_jobspec_t *s, int nodes, const char **typep)
{
    return jobspec_gpus_per_node_tasks (s, nodes, s->ntasks, s->ntasks_per_node,
                                        typep);
}

int
jobspec_gpus_per_node_tasks (const ms_jobspec_t *s, int nodes, int ntasks,
                             int ntasks_per_node, const char **typep)
{
    static __thread ms_tres_req_t tpt; /* *typep may point into it */
    const ms_tres_req_t *t = NULL;
    uint64_t per = 0;

    if (nodes <= 0)
        nodes = 1;
    if (ntasks <= 0)
        ntasks = s->ntasks;
    if (ntasks_per_node <= 0)
        ntasks_per_node = s->ntasks_per_node;
    if (s->gpus_per_node.count) {
        t = &s->gpus_per_node;
        per = t->count;
    } else if (s->gpus.count) {
        t = &s->gpus;
        per = (t->count + (uint64_t)nodes - 1) / (uint64_t)nodes;
    } else if (s->gpus_per_task.count
               || jobspec_tres_task_gpus (s->tres_per_task, &tpt) > 0) {
        /* --gpus-per-task, or --tres-per-task=gres/gpu...=N (23.02 on),
         * which Slurm reads as the same request: per task, times the
         * tasks of the busiest node */
        uint64_t tasks = ntasks_per_node > 0 ? (uint64_t)ntasks_per_node
                         : ntasks > 0 ? ((uint64_t)ntasks + (uint64_t)nodes - 1)
                                            / (uint64_t)nodes
                                      : 1;
        t = s->gpus_per_task.count ? &s->gpus_per_task : &tpt;
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
