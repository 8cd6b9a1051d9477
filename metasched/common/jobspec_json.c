/* jobspec_json.c - the options of a job as JSON (jobspec_json.h).
 *
 * One table: the JSON name, the field, and the sbatch option whose parser
 * checks a value. A request's value goes through that parser (as text),
 * so the API takes what msbatch takes and refuses the same with the same
 * reason. */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "metasched/common/jobspec_int.h"
#include "metasched/common/jobspec_json.h"
#include "metasched/common/util.h"

typedef enum {
    J_STR,  /* char[]: a string, checked by the option */
    J_INT,  /* int: an integer > 0 (0: not given) */
    J_INT0, /* int: >= 0, -1 not given */
    J_MIB,  /* uint64_t MiB: an integer */
    J_MIN,  /* uint32_t minutes: an integer */
    J_BOOL, /* bool: true sets the flag option */
    J_TRI,  /* int -1/0/1: true or false */
    J_GPU,  /* ms_tres_req_t: "[type:]count" */
    J_TIME, /* int64_t Unix time */
    J_MEM_NODE, /* mem_per_node_mb with mem_per_node_set */
    J_NICE,     /* nice with nice_set */
    J_EXCL,     /* exclusive_mode */
    J_PRIO,     /* int64_t priority: an integer or "TOP", -1 not given */
} jtype_t;

#define F(field) offsetof (ms_jobspec_t, field), sizeof (((ms_jobspec_t *)0)->field)

static const struct {
    const char *key;
    jtype_t type;
    size_t off, size;
    const char *opt; /* the option that checks a value */
} fields[] = {
    { "account", J_STR, F (account), "account" },
    { "qos", J_STR, F (qos), "qos" },
    { "mem_per_node_mb", J_MEM_NODE, F (mem_per_node_mb), "mem" },
    { "mem_per_cpu_mb", J_MIB, F (mem_per_cpu_mb), "mem-per-cpu" },
    { "mem_per_gpu_mb", J_MIB, F (mem_per_gpu_mb), "mem-per-gpu" },
    { "tmp_mb", J_MIB, F (tmp_mb), "tmp" },
    { "constraint", J_STR, F (constraint), "constraint" },
    { "prefer", J_STR, F (prefer), "prefer" },
    { "nodelist", J_STR, F (nodelist), "nodelist" },
    { "exclude", J_STR, F (exclude), "exclude" },
    { "reservation", J_STR, F (reservation), "reservation" },
    { "licenses", J_STR, F (licenses), "licenses" },
    { "gres", J_STR, F (gres), "gres" },
    { "gres_flags", J_STR, F (gres_flags), "gres-flags" },
    { "gpus", J_GPU, F (gpus), "gpus" },
    { "gpus_per_node", J_GPU, F (gpus_per_node), "gpus-per-node" },
    { "gpus_per_task", J_GPU, F (gpus_per_task), "gpus-per-task" },
    { "gpus_per_socket", J_GPU, F (gpus_per_socket), "gpus-per-socket" },
    { "cpus_per_gpu", J_INT, F (cpus_per_gpu), "cpus-per-gpu" },
    { "ntasks_per_gpu", J_INT, F (ntasks_per_gpu), "ntasks-per-gpu" },
    { "nodes_max", J_INT, F (nodes_max), NULL },
    { "nodes_list", J_STR, F (nodes_list), "nodes" },
    { "time_min_min", J_MIN, F (time_min_min), "time-min" },
    { "array", J_STR, F (array), "array" },
    { "dependency", J_STR, F (dependency), "dependency" },
    { "kill_on_invalid_dep", J_TRI, F (kill_on_invalid_dep), NULL },
    { "mail_type", J_STR, F (mail_type), "mail-type" },
    { "mail_user", J_STR, F (mail_user), "mail-user" },
    { "signal", J_STR, F (signal), "signal" },
    { "requeue", J_TRI, F (requeue), NULL },
    { "open_mode", J_STR, F (open_mode), "open-mode" },
    { "wckey", J_STR, F (wckey), "wckey" },
    { "comment", J_STR, F (comment), "comment" },
    { "hold", J_BOOL, F (hold), "hold" },
    { "deadline", J_TIME, F (deadline), NULL },
    { "nice", J_NICE, F (nice), "nice" },
    { "get_user_env", J_STR, F (get_user_env), "get-user-env" },
    { "hint", J_STR, F (hint), "hint" },
    { "distribution", J_STR, F (distribution), "distribution" },
    { "exclusive_mode", J_EXCL, F (exclusive_mode), "exclusive" },
    { "ntasks_per_core", J_INT, F (ntasks_per_core), "ntasks-per-core" },
    { "ntasks_per_socket", J_INT, F (ntasks_per_socket), "ntasks-per-socket" },
    { "sockets_per_node", J_INT, F (sockets_per_node), "sockets-per-node" },
    { "cores_per_socket", J_INT, F (cores_per_socket), "cores-per-socket" },
    { "threads_per_core", J_INT, F (threads_per_core), "threads-per-core" },
    { "mincpus", J_INT, F (mincpus), "mincpus" },
    { "core_spec", J_INT0, F (core_spec), "core-spec" },
    { "thread_spec", J_INT, F (thread_spec), "thread-spec" },
    { "contiguous", J_BOOL, F (contiguous), "contiguous" },
    { "overcommit", J_BOOL, F (overcommit), "overcommit" },
    { "oversubscribe", J_BOOL, F (oversubscribe), "oversubscribe" },
    { "spread_job", J_BOOL, F (spread_job), "spread-job" },
    { "use_min_nodes", J_BOOL, F (use_min_nodes), "use-min-nodes" },
    { "no_kill", J_BOOL, F (no_kill), "no-kill" },
    { "reboot", J_BOOL, F (reboot), "reboot" },
    { "wait_all_nodes", J_TRI, F (wait_all_nodes), NULL },
    { "delay_boot_min", J_MIN, F (delay_boot_min), "delay-boot" },
    { "acctg_freq", J_STR, F (acctg_freq), "acctg-freq" },
    { "profile", J_STR, F (profile), "profile" },
    { "mem_bind", J_STR, F (mem_bind), "mem-bind" },
    { "gpu_bind", J_STR, F (gpu_bind), "gpu-bind" },
    { "gpu_freq", J_STR, F (gpu_freq), "gpu-freq" },
    { "network", J_STR, F (network), "network" },
    { "mcs_label", J_STR, F (mcs_label), "mcs-label" },
    { "batch_features", J_STR, F (batch_features), "batch" },
    { "switches", J_STR, F (switches), "switches" },
    { "propagate", J_STR, F (propagate), "propagate" },
    { "container", J_STR, F (container), "container" },
    { "extra", J_STR, F (extra), "extra" },
    { "container_id", J_STR, F (container_id), "container-id" },
    { "oom_kill_step", J_INT0, F (oom_kill_step), "oom-kill-step" },
    { "segment_size", J_INT0, F (segment_size), "segment" },
    { "stepmgr", J_BOOL, F (stepmgr), "stepmgr" },
    { "spread_segments", J_BOOL, F (spread_segments), "spread-segments" },
    { "consolidate_segments", J_BOOL, F (consolidate_segments),
      "consolidate-segments" },
    { "tres_per_task", J_STR, F (tres_per_task), "tres-per-task" },
    { "tres_bind", J_STR, F (tres_bind), "tres-bind" },
    { "resources", J_STR, F (resources), "resources" },
    { "container_type", J_STR, F (container_type), "container-type" },
    { "mem_update", J_STR, F (mem_update), "mem-update" },
    { "resv_ports", J_INT0, F (resv_ports), "resv-ports" },
    { "external", J_BOOL, F (external), "external" },
    { "clusters", J_STR, F (clusters), "clusters" },
    { "cpu_freq", J_STR, F (cpu_freq), "cpu-freq" },
    { "priority", J_PRIO, F (priority), "priority" },
};
#define NFIELDS (sizeof (fields) / sizeof (fields[0]))

static int
field_index (const char *key)
{
    for (size_t k = 0; k < NFIELDS; k++)
        if (!strcmp (fields[k].key, key))
            return (int)k;
    return -1;
}

bool
jobspec_json_known (const char *key)
{
    return field_index (key) >= 0 || !strcmp (key, "components");
}

static int
bad (ms_error_t *errp, const char *key, const char *what)
{
    return ms_err (errp, MS_ERR_INPUT, "field '%s': %s", key, what);
}

/* The option's check of a value, its message under the field's name. */
static int
through (ms_jobspec_t *s, const char *key, const char *opt, const char *val,
         ms_error_t *errp)
{
    ms_error_t e;

    if (jobspec_apply_option (s, opt, val, &e) < 0)
        return ms_err (errp, MS_ERR_INPUT, "field '%s': %s", key, e.text);
    return 0;
}

static int components_set (ms_jobspec_t *s, json_t *v, ms_error_t *errp);

int
jobspec_json_set (ms_jobspec_t *s, const char *key, json_t *v,
                  ms_error_t *errp)
{
    int k = field_index (key);
    char *field, num[32];

    if (!strcmp (key, "components"))
        return components_set (s, v, errp);
    if (k < 0)
        return bad (errp, key, "unknown key");
    if (json_is_null (v))
        return 0;
    field = (char *)s + fields[k].off;
    switch (fields[k].type) {
    case J_STR:
    case J_GPU:
    case J_EXCL:
        if (!json_is_string (v))
            return bad (errp, key, "must be a string");
        if (strlen (json_string_value (v)) != json_string_length (v))
            return bad (errp, key, "must not contain a NUL character");
        if (fields[k].type == J_STR
            && json_string_length (v) >= fields[k].size)
            return ms_err (errp, MS_ERR_INPUT,
                           "field '%s': longer than %zu bytes", key,
                           fields[k].size - 1);
        return through (s, key, fields[k].opt, json_string_value (v), errp);
    case J_INT:
    case J_INT0:
    case J_MIB:
    case J_MIN:
    case J_MEM_NODE:
    case J_NICE: {
        json_int_t n;
        if (!json_is_integer (v))
            return bad (errp, key, "must be an integer");
        n = json_integer_value (v);
        if (fields[k].type != J_NICE && n < 0)
            return bad (errp, key, "must not be negative");
        if (!fields[k].opt) { /* nodes_max */
            if (n < 1 || n > (1 << 20))
                return bad (errp, key, "out of range 1..1048576");
            *(int *)field = (int)n;
            return 0;
        }
        snprintf (num, sizeof (num), "%" JSON_INTEGER_FORMAT, n);
        return through (s, key, fields[k].opt, num, errp);
    }
    case J_BOOL:
        if (!json_is_boolean (v))
            return bad (errp, key, "must be true or false");
        if (json_is_true (v))
            return through (s, key, fields[k].opt, NULL, errp);
        *(bool *)field = false;
        return 0;
    case J_TRI:
        if (!strcmp (key, "wait_all_nodes")) {
            if (!json_is_integer (v)
                || (json_integer_value (v) != 0
                    && json_integer_value (v) != 1))
                return bad (errp, key, "must be 0 or 1");
            *(int *)field = (int)json_integer_value (v);
            return 0;
        }
        if (!json_is_boolean (v))
            return bad (errp, key, "must be true or false");
        *(int *)field = json_is_true (v) ? 1 : 0;
        return 0;
    case J_PRIO:
        if (json_is_string (v))
            return through (s, key, fields[k].opt, json_string_value (v),
                            errp);
        if (!json_is_integer (v))
            return bad (errp, key, "must be an integer or \"TOP\"");
        snprintf (num, sizeof (num), "%" JSON_INTEGER_FORMAT,
                  json_integer_value (v));
        return through (s, key, fields[k].opt, num, errp);
    case J_TIME: {
        json_int_t n;
        if (!json_is_integer (v))
            return bad (errp, key, "must be an integer (Unix time, seconds)");
        n = json_integer_value (v);
        if (n < 1 || n > (json_int_t)4102444800LL) /* 2100 */
            return bad (errp, key, "out of range (a Unix time before 2100)");
        *(int64_t *)field = n;
        return 0;
    }
    }
    return 0;
}

static void
put_gpu (json_t *o, const char *key, const ms_tres_req_t *t)
{
    char buf[64];

    if (!t->count)
        return;
    if (t->type[0])
        snprintf (buf, sizeof (buf), "%s:%u", t->type, t->count);
    else
        snprintf (buf, sizeof (buf), "%u", t->count);
    json_object_set_new (o, key, json_string (buf));
}

static void components_put (const ms_jobspec_t *s, json_t *o);

void
jobspec_json_put (const ms_jobspec_t *s, json_t *o)
{
    components_put (s, o);
    for (size_t k = 0; k < NFIELDS; k++) {
        const char *key = fields[k].key;
        const char *field = (const char *)s + fields[k].off;

        switch (fields[k].type) {
        case J_STR:
        case J_EXCL:
            if (field[0])
                json_object_set_new (o, key, json_string (field));
            break;
        case J_GPU:
            put_gpu (o, key, (const ms_tres_req_t *)field);
            break;
        case J_INT:
            if (*(const int *)field > 0)
                json_object_set_new (o, key, json_integer (*(const int *)field));
            break;
        case J_INT0:
            if (*(const int *)field >= 0)
                json_object_set_new (o, key, json_integer (*(const int *)field));
            break;
        case J_MIB:
            if (*(const uint64_t *)field)
                json_object_set_new (
                    o, key, json_integer ((json_int_t) * (const uint64_t *)field));
            break;
        case J_MIN:
            if (*(const uint32_t *)field)
                json_object_set_new (o, key,
                                     json_integer (*(const uint32_t *)field));
            break;
        case J_MEM_NODE:
            if (s->mem_per_node_set)
                json_object_set_new (o, key,
                                     json_integer ((json_int_t)s->mem_per_node_mb));
            break;
        case J_NICE:
            if (s->nice_set)
                json_object_set_new (o, key, json_integer (s->nice));
            break;
        case J_BOOL:
            if (*(const bool *)field)
                json_object_set_new (o, key, json_true ());
            break;
        case J_TRI:
            if (*(const int *)field >= 0)
                json_object_set_new (
                    o, key,
                    !strcmp (key, "wait_all_nodes")
                        ? json_integer (*(const int *)field)
                        : json_boolean (*(const int *)field));
            break;
        case J_PRIO:
            if (*(const int64_t *)field >= 0)
                json_object_set_new (o, key,
                                     json_integer (*(const int64_t *)field));
            break;
        case J_TIME:
            if (*(const int64_t *)field)
                json_object_set_new (o, key,
                                     json_integer (*(const int64_t *)field));
            break;
        }
    }
}

void
jobspec_json_put_parsed (const ms_jobspec_t *s, json_t *o)
{
    if (s->array_spec.nranges) {
        json_t *a = json_object (), *r = json_array ();
        for (size_t i = 0; i < s->array_spec.nranges; i++)
            json_array_append_new (
                r, json_pack ("{s:i, s:i, s:i}", "first",
                              (int)s->array_spec.r[i].first, "last",
                              (int)s->array_spec.r[i].last, "step",
                              (int)s->array_spec.r[i].step));
        json_object_set_new (a, "ranges", r);
        json_object_set_new (a, "tasks", json_integer (s->array_spec.ntasks));
        json_object_set_new (a, "max_index",
                             json_integer (s->array_spec.max_index));
        json_object_set_new (a, "max_running",
                             json_integer (s->array_spec.max_running));
        json_object_set_new (o, "array_spec", a);
    }
    if (s->deps.n) {
        json_t *a = json_array ();
        for (size_t i = 0; i < s->deps.n; i++) {
            json_t *d = json_pack ("{s:s}", "type",
                                   jobspec_dep_name (s->deps.d[i].type));
            if (s->deps.d[i].job_id)
                json_object_set_new (d, "job_id",
                                     json_integer ((json_int_t)s->deps.d[i].job_id));
            if (s->deps.d[i].delay_min)
                json_object_set_new (d, "delay_min",
                                     json_integer (s->deps.d[i].delay_min));
            json_array_append_new (a, d);
        }
        json_object_set_new (o, "dependency_spec",
                             json_pack ("{s:o, s:b}", "conditions", a,
                                        "any", s->deps.any));
    }
    if (s->ngres) {
        json_t *a = json_array ();
        for (size_t i = 0; i < s->ngres; i++) {
            json_t *g = json_pack ("{s:s, s:i}", "name", s->gres_list[i].name,
                                   "count", (int)s->gres_list[i].count);
            if (s->gres_list[i].type[0])
                json_object_set_new (g, "type",
                                     json_string (s->gres_list[i].type));
            json_array_append_new (a, g);
        }
        json_object_set_new (o, "gres_list", a);
    }
    if (s->cpu_freq[0]) {
        static const char *const govs[]
            = { "", "Conservative", "OnDemand", "Performance",
                "PowerSave", "UserSpace", "SchedUtil" };
        json_t *c = json_object ();
        const uint32_t v[2] = { s->cpu_freq_spec.min, s->cpu_freq_spec.max };
        for (int i = 0; i < 2; i++) {
            const char *key = i ? "max" : "min";
            if (!v[i])
                continue;
            if (v[i] == JOBSPEC_FREQ_LOW)
                json_object_set_new (c, key, json_string ("low"));
            else if (v[i] == JOBSPEC_FREQ_MEDIUM)
                json_object_set_new (c, key, json_string ("medium"));
            else if (v[i] == JOBSPEC_FREQ_HIGH)
                json_object_set_new (c, key, json_string ("high"));
            else if (v[i] == JOBSPEC_FREQ_HIGHM1)
                json_object_set_new (c, key, json_string ("highm1"));
            else
                json_object_set_new (c, key, json_integer (v[i]));
        }
        if (s->cpu_freq_spec.gov)
            json_object_set_new (c, "governor",
                                 json_string (govs[s->cpu_freq_spec.gov]));
        json_object_set_new (o, "cpu_freq_spec", c);
    }
    if (s->signal_num)
        json_object_set_new (o, "signal_spec",
                             json_pack ("{s:i, s:i, s:s}", "number",
                                        s->signal_num, "seconds_before",
                                        s->signal_time, "flags",
                                        s->signal_flags));
}

int
jobspec_json_read (ms_jobspec_t *s, json_t *options, ms_error_t *errp)
{
    const char *key;
    json_t *v;

    if (!json_is_object (options))
        return 0;
    json_object_foreach (options, key, v)
    {
        if (!jobspec_json_known (key))
            continue;
        if (jobspec_json_set (s, key, v, errp) < 0)
            return -1;
    }
    return 0;
}

/* ---- heterogeneous jobs: "components" --------------------------------------- */

/* The fields a component has beyond the list above: those of a request's
 * first component (doc/api.md), each checked by its sbatch option. */
static const struct {
    const char *key;
    const char *opt;
} comp_fields[] = {
    { "nodes", "nodes" },
    { "tasks", "ntasks" },
    { "tasks_per_node", "ntasks-per-node" },
    { "cpus_per_task", "cpus-per-task" },
    { "time_limit_min", "time" },
    { "exclusive", "exclusive" },
    { "partition", "partition" },
};
#define NCOMP_FIELDS (sizeof (comp_fields) / sizeof (comp_fields[0]))

static int
component_set (ms_jobspec_t *c, const char *key, json_t *v, ms_error_t *errp)
{
    char num[32];

    for (size_t k = 0; k < NCOMP_FIELDS; k++) {
        if (strcmp (comp_fields[k].key, key))
            continue;
        if (json_is_null (v))
            return 0;
        if (!strcmp (key, "exclusive")) {
            if (!json_is_boolean (v))
                return bad (errp, key, "must be true or false");
            c->exclusive = json_is_true (v);
            return 0;
        }
        if (!strcmp (key, "partition")) {
            if (!json_is_string (v)
                || strlen (json_string_value (v)) != json_string_length (v))
                return bad (errp, key, "must be a string");
            return through (c, key, comp_fields[k].opt,
                            json_string_value (v), errp);
        }
        if (!json_is_integer (v) || json_integer_value (v) < 1)
            return bad (errp, key, "must be an integer of at least 1");
        snprintf (num, sizeof (num), "%" JSON_INTEGER_FORMAT,
                  json_integer_value (v));
        return through (c, key, comp_fields[k].opt, num, errp);
    }
    if (!strcmp (key, "components"))
        return bad (errp, key, "a component has no components of its own");
    return jobspec_json_set (c, key, v, errp);
}

/* "components": the components after the first, objects of the fields of
 * a component; refusals name the component as sbatch counts them (the
 * first is 0). */
static int
components_set (ms_jobspec_t *s, json_t *v, ms_error_t *errp)
{
    json_t *e;
    size_t i;

    if (!json_is_array (v))
        return bad (errp, "components",
                    "must be a list of objects (the components after the "
                    "first of a heterogeneous job)");
    if (json_array_size (v) + 1 > JOBSPEC_MAX_HET)
        return ms_err (errp, MS_ERR_INPUT,
                       "field 'components': more than %d components "
                       "(Slurm's limit)",
                       JOBSPEC_MAX_HET);
    jobspec_het_free (s);
    json_array_foreach (v, i, e)
    {
        ms_jobspec_t *c = jobspec_het_add (s, "", errp);
        const char *key;
        json_t *f;

        if (!c)
            return -1;
        /* stored components hold all their fields: nothing carries over */
        jobspec_free (c);
        jobspec_init (c);
        if (!json_is_object (e))
            return ms_err (errp, MS_ERR_INPUT,
                           "field 'components': component %zu: must be an "
                           "object",
                           i + 1);
        json_object_foreach (e, key, f)
        {
            if (component_set (c, key, f, errp) < 0)
                return ms_err_prefix (errp, "field 'components': component "
                                            "%zu",
                                      i + 1);
        }
    }
    return 0;
}

static void
components_put (const ms_jobspec_t *s, json_t *o)
{
    json_t *a;

    if (!s->nhet)
        return;
    a = json_array ();
    for (size_t i = 0; i < s->nhet; i++) {
        const ms_jobspec_t *c = s->het[i];
        json_t *e = json_object ();

        json_object_set_new (e, "nodes", json_integer (c->nodes ? c->nodes : 1));
        if (c->ntasks)
            json_object_set_new (e, "tasks", json_integer (c->ntasks));
        if (c->ntasks_per_node)
            json_object_set_new (e, "tasks_per_node",
                                 json_integer (c->ntasks_per_node));
        if (c->cpus_per_task)
            json_object_set_new (e, "cpus_per_task",
                                 json_integer (c->cpus_per_task));
        if (c->time_limit_min && c->time_limit_min != UINT32_MAX)
            json_object_set_new (e, "time_limit_min",
                                 json_integer (c->time_limit_min));
        if (c->exclusive)
            json_object_set_new (e, "exclusive", json_true ());
        if (c->partition[0])
            json_object_set_new (e, "partition", json_string (c->partition));
        jobspec_json_put (c, e);
        json_array_append_new (a, e);
    }
    json_object_set_new (o, "components", a);
}
