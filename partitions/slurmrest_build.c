/* slurmrest_build.c - the builders of slurmrestd's requests, one per
 * operation for every OpenAPI version: the body of a submission with the
 * user's sbatch options as each version takes them, the body of an update
 * (the table of versions is slurmrest_proto.c).
 */
#include "config.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "partitions/slurmrest_int.h"

/* ---- requests ---------------------------------------------------------------- */

/* A number as the version writes it: 7, or {set, infinite, number}. */
static json_t *
jnum (const slurmrest_api_t *api, json_int_t v)
{
    if (!(api->flags & V_NOVAL))
        return json_integer (v);
    return json_pack ("{s:b, s:b, s:I}", "set", 1, "infinite", 0, "number",
                      v);
}

/* ---- the user's sbatch options --------------------------------------------- */

/* v0.0.38 reads each option of a job as sbatch's text (it runs sbatch's own
 * option parser on it) under its own names; later versions take typed
 * fields (numbers {set, number}, flags as lists of words). An option that a
 * version has no field for is refused with its name rather than dropped. */

static json_t *
jnum64 (const slurmrest_api_t *api, uint64_t v)
{
    if (!(api->flags & V_NOVAL))
        return json_integer ((json_int_t)v);
    return json_pack ("{s:b, s:b, s:I}", "set", 1, "infinite", 0, "number",
                      (json_int_t)v);
}

static void
jset_str (json_t *job, const char *key, const char *v)
{
    if (v && *v)
        json_object_set_new (job, key, json_string (v));
}

static void
jset_int (json_t *job, const char *key, long v)
{
    json_object_set_new (job, key, json_integer (v));
}

static void
jset_text_int (json_t *job, const char *key, long v)
{
    char b[32];
    snprintf (b, sizeof (b), "%ld", v);
    json_object_set_new (job, key, json_string (b));
}

static void
jlist_add (json_t **lp, const char *word)
{
    if (!*lp)
        *lp = json_array ();
    json_array_append_new (*lp, json_string (word));
}

/* "gres/gpu:a100:2" of a GPU request (TRES spelling of v0.0.39 on) */
static void
tres_text (const ms_tres_req_t *t, char *buf, size_t size)
{
    if (t->type[0])
        snprintf (buf, size, "gres/%s:%s:%u", t->name, t->type, t->count);
    else
        snprintf (buf, size, "gres/%s:%u", t->name, t->count);
}

/* sbatch's [type:]count text of a GPU request */
static void
gpu_text (const ms_tres_req_t *t, char *buf, size_t size)
{
    if (t->type[0])
        snprintf (buf, size, "%s:%u", t->type, t->count);
    else
        snprintf (buf, size, "%u", t->count);
}

static int
not_carried (const slurmrest_api_t *api, const char *opt, ms_error_t *errp)
{
    return ms_err (errp, MS_ERR_INPUT,
                   "--%s: slurmrestd %s cannot carry this option", opt,
                   api->name);
}

static const struct {
    unsigned flag;
    const char *word; /* v0.0.39 on */
} mail_words[] = {
    { JOBSPEC_MAIL_BEGIN, "BEGIN" },
    { JOBSPEC_MAIL_END, "END" },
    { JOBSPEC_MAIL_FAIL, "FAIL" },
    { JOBSPEC_MAIL_REQUEUE, "REQUEUE" },
    { JOBSPEC_MAIL_INVALID_DEPEND, "INVALID_DEPENDENCY" },
    { JOBSPEC_MAIL_STAGE_OUT, "STAGE_OUT" },
    { JOBSPEC_MAIL_TIME_LIMIT, "TIME=100%" },
    { JOBSPEC_MAIL_TIME_LIMIT_90, "TIME=90%" },
    { JOBSPEC_MAIL_TIME_LIMIT_80, "TIME=80%" },
    { JOBSPEC_MAIL_TIME_LIMIT_50, "TIME=50%" },
    { JOBSPEC_MAIL_ARRAY_TASKS, "ARRAY_TASKS" },
};

/* A list of key's (the GPUs' "gres/gpu:2") with the user's own after
 * sep: --tres-per-task beside --gpus-per-task, --tres-bind beside
 * --gpu-bind, as sbatch joins them. */
static void
jadd_str (json_t *job, const char *key, const char *val, const char *sep)
{
    const char *had = json_string_value (json_object_get (job, key));
    char *b;
    size_t n;

    if (!val[0])
        return;
    if (!had || !had[0]) {
        jset_str (job, key, val);
        return;
    }
    n = strlen (had) + strlen (sep) + strlen (val) + 1;
    b = ms_xmalloc (n);
    snprintf (b, n, "%s%s%s", had, sep, val);
    jset_str (job, key, b);
    free (b);
}

/* The options of later Slurm releases than 22.05 (jobspec_since.c): each
 * where the version carries it; a hint is left out elsewhere (the daemon
 * told the job: --resv-ports and --mem-update everywhere, no slurmrestd
 * takes them), another option fails the submission (the daemon chose no
 * such cluster). */
static int
put_since (const slurmrest_api_t *api, const ms_jobspec_t *sb, json_t *job,
           json_t **flags, ms_error_t *errp)
{
    const jobspec_since_t *o;
    size_t i = 0;

    while ((o = jobspec_since_missing (sb, api->name, &i)))
        if (!o->hint)
            return not_carried (api, o->name, errp);
    jset_str (job, "extra", sb->extra);
    jset_str (job, "container_id", sb->container_id);
    jset_str (job, "container_type", sb->container_type);
    jadd_str (job, "tres_per_task", sb->tres_per_task, ",");
    if (jobspec_since_carries ("tres-bind", api->name))
        jadd_str (job, "tres_bind", sb->tres_bind, "+");
    if (sb->external)
        jlist_add (flags, "EXTERNAL_JOB");
    if (sb->segment_size >= 0)
        json_object_set_new (job, "segment_size", jnum (api, sb->segment_size));
    if (sb->oom_kill_step >= 0)
        jset_int (job, "oom_kill_step", sb->oom_kill_step);
    if (sb->stepmgr && jobspec_since_carries ("stepmgr", api->name))
        jlist_add (flags, "STEPMGR_ENABLED");
    if (sb->spread_segments
        && jobspec_since_carries ("spread-segments", api->name))
        jlist_add (flags, "SPREAD_SEGMENTS");
    if (sb->consolidate_segments
        && jobspec_since_carries ("consolidate-segments", api->name))
        jlist_add (flags, "CONSOLIDATE_SEGMENTS");
    return 0;
}

/* What the parts of put_sbatch share: the user's options, the job's
 * body and environment, and the lists of words they add to. */
typedef struct {
    const slurmrest_api_t *api;
    const ms_jobspec_t *sb;
    json_t *job, *env;
    time_t now;
    bool typed;                    /* v0.0.39 on */
    json_t *flags, *shared, *bind; /* NULL until a part adds one */
} put_t;

/* The strings and memory, the nodes named or excluded. */
static int
put_strings (put_t *p, ms_error_t *errp)
{
    const slurmrest_api_t *api = p->api;
    const ms_jobspec_t *sb = p->sb;
    json_t *job = p->job;
    bool typed = p->typed;

    (void)errp;
    /* an array as the user gave it: every version takes sbatch's text */
    jset_str (job, "array", sb->array);
    jset_str (job, "account", sb->account);
    jset_str (job, "qos", sb->qos);
    jset_str (job, "reservation", sb->reservation);
    jset_str (job, "licenses", sb->licenses);
    jset_str (job, "wckey", sb->wckey);
    jset_str (job, "mail_user", sb->mail_user);
    jset_str (job, "constraints", sb->constraint);
    jset_str (job, "prefer", sb->prefer);
    jset_str (job, "mcs_label", sb->mcs_label);
    jset_str (job, "batch_features", sb->batch_features);
    jset_str (job, "container", sb->container);
    jset_str (job, "account_gather_frequency", sb->acctg_freq);
    jset_str (job, "memory_binding", sb->mem_bind);
    jset_str (job, "distribution", sb->distribution);
    if (sb->mem_per_node_set)
        json_object_set_new (job, "memory_per_node",
                             typed ? jnum64 (api, sb->mem_per_node_mb)
                                   : json_integer ((json_int_t)sb->mem_per_node_mb));
    if (sb->mem_per_cpu_mb)
        json_object_set_new (job, "memory_per_cpu",
                             typed ? jnum64 (api, sb->mem_per_cpu_mb)
                                   : json_integer ((json_int_t)sb->mem_per_cpu_mb));
    if (sb->tmp_mb)
        jset_int (job, "temporary_disk_per_node", (long)sb->tmp_mb);
    if (sb->nodelist[0]) {
        if (typed)
            json_object_set_new (job, "required_nodes",
                                 json_pack ("[s]", sb->nodelist));
        else
            jset_str (job, "nodelist", sb->nodelist);
    }
    if (sb->exclude[0]) {
        if (typed)
            json_object_set_new (job, "excluded_nodes",
                                 json_pack ("[s]", sb->exclude));
        else
            jset_str (job, "exclude_nodes", sb->exclude);
    }
    return 0;
}

/* A GPU request that was asked, as field `key`: TRES text on the typed
 * OpenAPI versions, sbatch's [type:]count before. */
static void
jset_gpus (json_t *job, const char *key, const ms_tres_req_t *t, bool typed)
{
    char b[320];

    if (!t->count)
        return;
    if (typed)
        tres_text (t, b, sizeof (b));
    else
        gpu_text (t, b, sizeof (b));
    jset_str (job, key, b);
}

/* GPUs and generic resources. */
static int
put_gres (put_t *p, ms_error_t *errp)
{
    const slurmrest_api_t *api = p->api;
    const ms_jobspec_t *sb = p->sb;
    json_t *job = p->job;
    bool typed = p->typed;
    char b[320];

    /* GPUs and generic resources */
    if (typed) {
        char all[320] = "";
        for (size_t i = 0; i < sb->ngres; i++) {
            tres_text (&sb->gres_list[i], b, sizeof (b));
            if (strlen (all) + strlen (b) + 2 > sizeof (all))
                return ms_err (errp, MS_ERR_INPUT, "--gres: too long");
            if (all[0])
                strcat (all, ",");
            strcat (all, b);
        }
        if (sb->gpus_per_node.count) {
            tres_text (&sb->gpus_per_node, b, sizeof (b));
            if (all[0] && strlen (all) + strlen (b) + 2 <= sizeof (all))
                strcat (all, ",");
            if (strlen (all) + strlen (b) + 1 <= sizeof (all))
                strcat (all, b);
        }
        jset_str (job, "tres_per_node", all);
        jset_gpus (job, "tres_per_job", &sb->gpus, typed);
        jset_gpus (job, "tres_per_task", &sb->gpus_per_task, typed);
        jset_gpus (job, "tres_per_socket", &sb->gpus_per_socket, typed);
        if (sb->cpus_per_gpu) {
            snprintf (b, sizeof (b), "gres/gpu:%d", sb->cpus_per_gpu);
            jset_str (job, "cpus_per_tres", b);
        }
        if (sb->mem_per_gpu_mb) {
            snprintf (b, sizeof (b), "gres/gpu:%llu",
                      (unsigned long long)sb->mem_per_gpu_mb);
            jset_str (job, "memory_per_tres", b);
        }
        if (sb->ntasks_per_gpu)
            jset_int (job, "ntasks_per_tres", sb->ntasks_per_gpu);
        if (sb->gres_flags[0]) {
            if (!strcasecmp (sb->gres_flags, "enforce-binding"))
                jlist_add (&p->flags, "GRES_BINDING_ENFORCED");
            else if (!strcasecmp (sb->gres_flags, "disable-binding"))
                jlist_add (&p->flags, "GRES_BINDING_DISABLED");
            else
                return not_carried (api, "gres-flags", errp);
        }
    } else {
        jset_str (job, "gres", sb->gres);
        jset_str (job, "gres_flags", sb->gres_flags);
        jset_gpus (job, "gpus", &sb->gpus, typed);
        jset_gpus (job, "gpus_per_node", &sb->gpus_per_node, typed);
        jset_gpus (job, "gpus_per_task", &sb->gpus_per_task, typed);
        jset_gpus (job, "gpus_per_socket", &sb->gpus_per_socket, typed);
        if (sb->cpus_per_gpu)
            jset_text_int (job, "cpus_per_gpu", sb->cpus_per_gpu);
        if (sb->mem_per_gpu_mb)
            jset_text_int (job, "memory_per_gpu", (long)sb->mem_per_gpu_mb);
        if (sb->ntasks_per_gpu)
            jset_text_int (job, "ntasks_per_gpu", sb->ntasks_per_gpu);
    }
    return 0;
}

/* Mail, --signal, requeueing, the output files' mode. */
static int
put_mail (put_t *p, ms_error_t *errp)
{
    const slurmrest_api_t *api = p->api;
    const ms_jobspec_t *sb = p->sb;
    json_t *job = p->job;
    bool typed = p->typed;
    char b[320];

    /* mail */
    if (sb->mail_type[0]) {
        if (typed) {
            json_t *l = json_array ();
            for (size_t i = 0; i < sizeof (mail_words) / sizeof (mail_words[0]);
                 i++)
                if (sb->mail_flags & mail_words[i].flag)
                    json_array_append_new (l, json_string (mail_words[i].word));
            json_object_set_new (job, "mail_type", l);
        } else
            jset_str (job, "mail_type", sb->mail_type);
    }
    /* --signal */
    if (sb->signal_num) {
        if (typed) {
            json_t *wf = json_array ();
            snprintf (b, sizeof (b), "%d", sb->signal_num);
            json_object_set_new (job, "kill_warning_signal", json_string (b));
            json_object_set_new (job, "kill_warning_delay",
                                 jnum (api, sb->signal_time));
            if (strchr (sb->signal_flags, 'B'))
                json_array_append_new (wf, json_string ("BATCH_JOB"));
            if (strchr (sb->signal_flags, 'R'))
                json_array_append_new (wf, json_string ("RESERVATION_JOB"));
            json_object_set_new (job, "kill_warning_flags", wf);
        } else if (sb->signal_flags[0])
            /* 22.05's reader of the field refuses "B:" and "R:" */
            return ms_err (errp, MS_ERR_INPUT,
                           "--signal=%s: slurmrestd %s cannot carry the %s: "
                           "flag",
                           sb->signal, api->name, sb->signal_flags);
        else {
            snprintf (b, sizeof (b), "%d@%d", sb->signal_num, sb->signal_time);
            jset_str (job, "signal", b);
        }
    }
    if (sb->requeue >= 0) {
        if (typed || sb->requeue)
            json_object_set_new (job, "requeue", json_boolean (sb->requeue));
        else
            json_object_set_new (job, "no_requeue", json_true ());
    }
    if (sb->open_mode[0]) {
        if (typed)
            json_object_set_new (job, "open_mode",
                                 json_pack ("[s]", sb->open_mode[0] == 'a'
                                                       ? "APPEND"
                                                       : "TRUNCATE"));
        else
            jset_str (job, "open_mode", sb->open_mode);
    }
    return 0;
}

/* NAME=VALUE into a job's environment: a "NAME=VALUE" string of the list
 * (V_ENV_LIST's versions) or a member of the object (the later ones). */
static void
env_put (json_t *env, const char *name, const char *value)
{
    if (json_is_array (env)) {
        size_t n = strlen (name) + strlen (value) + 2;
        char *s = ms_xmalloc (n);
        snprintf (s, n, "%s=%s", name, value);
        json_array_append_new (env, json_string (s));
        free (s);
    } else
        json_object_set_new (env, name, json_string (value));
}

/* Holding, --deadline, the user's environment, --hint. */
static int
put_env (put_t *p, ms_error_t *errp)
{
    const ms_jobspec_t *sb = p->sb;
    json_t *job = p->job;
    json_t *env = p->env;
    time_t now = p->now;
    bool typed = p->typed;
    char b[320];

    (void)errp;
    /* the comment goes beside metasched's tag: slurmrest_submit_body */
    if (sb->hold)
        json_object_set_new (job, "hold", json_true ());
    if (sb->deadline > 0) {
        if (typed)
            jset_int (job, "deadline", (long)sb->deadline);
        else {
            long long ahead = (long long)(sb->deadline - (int64_t)now);
            snprintf (b, sizeof (b), "now+%lld", ahead > 0 ? ahead : 0);
            jset_str (job, "deadline", b);
        }
    }
    if (sb->get_user_env[0]) {
        /* sbatch marks it in the job's environment; slurmd reads it there */
        env_put (env, "SLURM_GET_USER_ENV", "1");
        if (!typed)
            jset_str (job, "get_user_environment", sb->get_user_env);
    }
    if (sb->hint[0]) {
        /* what sbatch makes of a hint: the releases of data_parser have no
         * field for the word, and v0.0.38 takes it as cpu_binding_hint but
         * records nothing of it in the job (22.05: the job's threads per
         * core stay unset), so the counts sbatch sets go along with it */
        char h[sizeof (sb->hint)];
        size_t i;
        for (i = 0; sb->hint[i] && i + 1 < sizeof (h); i++)
            h[i] = (char)tolower ((unsigned char)sb->hint[i]);
        h[i] = '\0';
        if (!typed) {
            jset_str (job, "cpu_binding_hint", sb->hint);
            /* sbatch: nomultithread, compute_bound and memory_bound one
             * thread a core, memory_bound one core a socket as well */
            if (strstr (h, "nomultithread") || strstr (h, "compute_bound")
                || strstr (h, "memory_bound"))
                jset_int (job, "threads_per_core", 1);
            if (strstr (h, "memory_bound"))
                jset_int (job, "cores_per_socket", 1);
        } else {
            if (strstr (h, "nomultithread")) {
                jset_int (job, "threads_per_core", 1);
                jset_int (job, "tasks_per_core", 1);
                jlist_add (&p->bind, "CPU_BIND_TO_THREADS");
            } else if (strstr (h, "multithread"))
                jlist_add (&p->bind, "CPU_BIND_TO_THREADS");
            else {
                jset_int (job, "threads_per_core", 1);
                jlist_add (&p->bind, "CPU_BIND_TO_CORES");
            }
        }
        env_put (env, "SLURM_HINT", sb->hint);
    }
    return 0;
}

/* Counts per node, socket and core, --time-min, --nodes MIN-MAX. */
static int
put_counts (put_t *p, ms_error_t *errp)
{
    const slurmrest_api_t *api = p->api;
    const ms_jobspec_t *sb = p->sb;
    json_t *job = p->job;
    bool typed = p->typed;
    char b[320];

    /* counts */
    if (sb->ntasks_per_core)
        jset_int (job, "tasks_per_core", sb->ntasks_per_core);
    if (sb->ntasks_per_socket)
        jset_int (job, "tasks_per_socket", sb->ntasks_per_socket);
    if (sb->sockets_per_node)
        jset_int (job, "sockets_per_node", sb->sockets_per_node);
    if (sb->threads_per_core && !json_object_get (job, "threads_per_core"))
        jset_int (job, "threads_per_core", sb->threads_per_core);
    if (sb->cores_per_socket) {
        if (typed && strcmp (api->name, "v0.0.45") < 0)
            return not_carried (api, "cores-per-socket", errp);
        jset_int (job, "cores_per_socket", sb->cores_per_socket);
    }
    if (sb->mincpus)
        jset_int (job, "minimum_cpus_per_node", sb->mincpus);
    if (sb->core_spec >= 0)
        jset_int (job, "core_specification", sb->core_spec);
    if (sb->thread_spec)
        jset_int (job, "thread_specification", sb->thread_spec);
    if (sb->time_min_min)
        json_object_set_new (job, "time_minimum",
                             typed ? jnum (api, sb->time_min_min)
                                   : json_integer (sb->time_min_min));
    if (sb->nodes_max) {
        if (typed)
            jset_int (job, "maximum_nodes", sb->nodes_max);
        else {
            snprintf (b, sizeof (b), "%d-%d",
                      (int)json_integer_value (json_object_get (job, "nodes")),
                      sb->nodes_max);
            jset_str (job, "nodes", b);
        }
    }
    return 0;
}

/* Flags and modes of the allocation. */
static int
put_flags (put_t *p, ms_error_t *errp)
{
    const slurmrest_api_t *api = p->api;
    const ms_jobspec_t *sb = p->sb;
    json_t *job = p->job;
    bool typed = p->typed;

    /* flags */
    if (sb->contiguous) {
        if (!typed)
            return not_carried (api, "contiguous", errp);
        json_object_set_new (job, "contiguous", json_true ());
    }
    if (sb->overcommit) {
        if (!typed)
            return not_carried (api, "overcommit", errp);
        json_object_set_new (job, "overcommit", json_true ());
    }
    if (sb->reboot) {
        if (!typed)
            return not_carried (api, "reboot", errp);
        json_object_set_new (job, "reboot", json_true ());
    }
    if (sb->network[0]) {
        if (!typed)
            return not_carried (api, "network", errp);
        jset_str (job, "network", sb->network);
    }
    if (sb->switches[0]) {
        uint32_t wait_min = 0;
        const char *at = strchr (sb->switches, '@');
        if (!typed)
            return not_carried (api, "switches", errp);
        json_object_set_new (job, "required_switches",
                             jnum (api, atoi (sb->switches)));
        if (at && jobspec_parse_time (at + 1, &wait_min) == 0)
            jset_int (job, "wait_for_switch", (long)wait_min * 60);
    }
    if (sb->oversubscribe) {
        if (typed)
            jlist_add (&p->shared, "oversubscribe");
        else
            json_object_set_new (job, "oversubscribe", json_true ());
    }
    if (sb->exclusive_mode[0]) {
        if (typed) {
            json_object_del (job, "shared");
            jlist_add (&p->shared, sb->exclusive_mode);
        } else
            jset_str (job, "exclusive", sb->exclusive_mode);
    }
    if (sb->spread_job) {
        if (typed)
            jlist_add (&p->flags, "SPREAD_JOB");
        else
            json_object_set_new (job, "spread_job", json_true ());
    }
    if (sb->use_min_nodes) {
        if (typed)
            jlist_add (&p->flags, "PREFER_MINIMUM_NODE_COUNT");
        else
            json_object_set_new (job, "minimum_nodes", json_true ());
    }
    if (sb->no_kill) {
        if (typed)
            json_object_set_new (job, "kill_on_node_fail", json_false ());
        else
            json_object_set_new (job, "no_kill", json_true ());
    }
    if (sb->wait_all_nodes >= 0) {
        if (typed)
            json_object_set_new (job, "wait_all_nodes",
                                 json_boolean (sb->wait_all_nodes));
        else
            jset_text_int (job, "wait_all_nodes", sb->wait_all_nodes);
    }
    if (sb->delay_boot_min) {
        if (typed)
            jset_int (job, "delay_boot", (long)sb->delay_boot_min * 60);
        else
            jset_text_int (job, "delay_boot", (long)sb->delay_boot_min);
    }
    return 0;
}

/* --profile, --gpu-bind, --gpu-freq. */
static int
put_profile (put_t *q, ms_error_t *errp)
{
    const ms_jobspec_t *sb = q->sb;
    json_t *job = q->job;
    bool typed = q->typed;
    char b[320];

    (void)errp;
    if (sb->profile[0]) {
        if (typed) {
            json_t *l = json_array ();
            const char *p = sb->profile;
            while (*p) {
                size_t n = strcspn (p, ",");
                char w[32];
                snprintf (w, sizeof (w), "%.*s", (int)(n < 31 ? n : 31), p);
                for (char *c = w; *c; c++)
                    *c = (char)toupper ((unsigned char)*c);
                if (!strcmp (w, "ALL")) {
                    json_array_append_new (l, json_string ("ENERGY"));
                    json_array_append_new (l, json_string ("LUSTRE"));
                    json_array_append_new (l, json_string ("NETWORK"));
                    json_array_append_new (l, json_string ("TASK"));
                } else
                    json_array_append_new (l, json_string (w));
                p += n;
                if (*p)
                    p++;
            }
            json_object_set_new (job, "profile", l);
        } else
            jset_str (job, "profile", sb->profile);
    }
    if (sb->gpu_bind[0]) {
        if (typed) {
            snprintf (b, sizeof (b), "gres/gpu:%s", sb->gpu_bind);
            jset_str (job, "tres_bind", b);
        } else
            jset_str (job, "gpu_binding", sb->gpu_bind);
    }
    if (sb->gpu_freq[0]) {
        if (typed) {
            snprintf (b, sizeof (b), "gpu:%s", sb->gpu_freq);
            jset_str (job, "tres_freq", b);
        } else
            jset_str (job, "gpu_frequency", sb->gpu_freq);
    }
    return 0;
}

/* The options of sb into job; environment additions into env (the list or
 * object of the version). */
static int
put_sbatch (const slurmrest_api_t *api, const ms_jobspec_t *sb, json_t *job,
            json_t *env, time_t now, ms_error_t *errp)
{
    put_t p = { api, sb, job, env, now, (api->flags & V_NOVAL) != 0,
                NULL, NULL, NULL };

    if (put_strings (&p, errp) < 0 || put_gres (&p, errp) < 0
        || put_mail (&p, errp) < 0 || put_env (&p, errp) < 0
        || put_counts (&p, errp) < 0 || put_flags (&p, errp) < 0
        || put_profile (&p, errp) < 0
        || put_since (api, sb, job, &p.flags, errp) < 0) {
        json_decref (p.flags);
        json_decref (p.shared);
        json_decref (p.bind);
        return -1;
    }
    if (p.flags)
        json_object_set_new (job, "flags", p.flags);
    if (p.shared)
        json_object_set_new (job, "shared", p.shared);
    if (p.bind)
        json_object_set_new (job, "cpu_binding_flags", p.bind);
    return 0;
}

/* A nice where the version cannot carry one (V_DRAFT). */
static const char draft_nice[]
    = "nice: Slurm 23.02's OpenAPI v0.0.39 cannot carry a job's nice (its "
      "slurmrestd exits on one): load openapi/v0.0.38 beside it, or set "
      "api_version = v0.0.38 for the cluster in clusters.conf";

/* The job object of one request (one component of a heterogeneous job),
 * without its script. */
static json_t *
build_job (const slurmrest_api_t *api, const ms_job_request_t *req,
           time_t now, ms_error_t *errp)
{
    json_t *job, *env;
    unsigned fl = api->flags;

    if (!req->partition || !*req->partition) {
        ms_err (errp, MS_ERR_INPUT, "partition: required");
        return NULL;
    }
    if (!req->cwd || req->cwd[0] != '/') {
        ms_err (errp, MS_ERR_INPUT,
                "current_working_directory: an absolute path is required");
        return NULL;
    }
    job = json_object ();
    env = fl & V_ENV_LIST ? json_array () : json_object ();
    if (req->environment) {
        for (const char *const *e = req->environment; *e; e++) {
            const char *eq = strchr (*e, '=');
            if (!eq || eq == *e) {
                json_decref (job);
                json_decref (env);
                ms_err (errp, MS_ERR_INPUT,
                        "environment: '%.64s' is not KEY=VALUE", *e);
                return NULL;
            }
            if (fl & V_ENV_LIST) {
                json_array_append_new (env, json_string (*e));
                continue;
            }
            char key[256];
            size_t kl = (size_t)(eq - *e);
            if (kl >= sizeof (key))
                kl = sizeof (key) - 1;
            memcpy (key, *e, kl);
            key[kl] = '\0';
            json_object_set_new (env, key, json_string (eq + 1));
        }
    }
    /* Slurm requires an environment */
    if (fl & V_ENV_LIST ? json_array_size (env) == 0
                        : json_object_size (env) == 0)
        env_put (env, "PATH", "/usr/local/bin:/usr/bin:/bin");
    json_object_set_new (job, "environment", env);
    json_object_set_new (job, "partition", json_string (req->partition));
    json_object_set_new (job, "current_working_directory",
                         json_string (req->cwd));
    if (req->name)
        json_object_set_new (job, "name", json_string (req->name));
    if (req->cpu_freq_khz) {
        /* every version takes sbatch's --cpu-freq text */
        char f[32];
        snprintf (f, sizeof (f), "%u", req->cpu_freq_khz);
        json_object_set_new (job, "cpu_frequency", json_string (f));
    }
    if (req->time_limit_min)
        json_object_set_new (job, "time_limit",
                             jnum (api, req->time_limit_min));
    if (req->begin_time > 0) {
        long long ahead = (long long)(req->begin_time - (int64_t)now);
        if (fl & V_BEGIN_NOVAL)
            json_object_set_new (job, "begin_time",
                                 json_pack ("{s:b, s:b, s:I}", "set", 1,
                                            "infinite", 0, "number",
                                            (json_int_t)req->begin_time));
        else if (fl & V_BEGIN_EPOCH)
            json_object_set_new (job, "begin_time",
                                 json_integer (req->begin_time));
        else if (ahead > 0) {
            /* v0.0.38 reads begin_time as sbatch's --begin text (an
             * integer is refused: "Unable to parse time"); now+SECONDS
             * keeps clear of the time zone and the clock of the cluster */
            char b[48];
            snprintf (b, sizeof (b), "now+%lld", ahead);
            json_object_set_new (job, "begin_time", json_string (b));
        }
    }
    {
        /* metasched's nice (siblings) on top of the user's --nice */
        long long nice = (long long)req->nice
                         + (req->sbatch && req->sbatch->nice_set
                                ? req->sbatch->nice
                                : 0);
        if (nice > 2147483645LL)
            nice = 2147483645LL;
        if (nice < -2147483645LL)
            nice = -2147483645LL;
        if (nice && (api->flags & V_DRAFT)) {
            json_decref (job);
            ms_err (errp, MS_ERR_INPUT, "%s", draft_nice);
            return NULL;
        }
        if (nice)
            json_object_set_new (job, "nice", json_integer (nice));
    }
    if (req->comment || (req->sbatch && req->sbatch->comment[0])) {
        /* metasched's tag first, the user's comment after a space */
        char c[320];
        snprintf (c, sizeof (c), "%s%s%s", req->comment ? req->comment : "",
                  req->comment && req->sbatch && req->sbatch->comment[0] ? " "
                                                                         : "",
                  req->sbatch ? req->sbatch->comment : "");
        json_object_set_new (job, "comment", json_string (c));
    }
    if (req->std_out)
        json_object_set_new (job, "standard_output", json_string (req->std_out));
    if (req->std_err)
        json_object_set_new (job, "standard_error", json_string (req->std_err));
    if (req->std_in)
        json_object_set_new (job, "standard_input", json_string (req->std_in));
    int nodes = req->nodes > 0 ? req->nodes : 1;
    if (fl & V_NODE_NUMBERS) {
        json_object_set_new (job, "minimum_nodes", json_integer (nodes));
        json_object_set_new (job, "maximum_nodes", json_integer (nodes));
    } else
        json_object_set_new (job, "nodes", json_integer (nodes));
    if (req->tasks > 0)
        json_object_set_new (job, "tasks", json_integer (req->tasks));
    if (req->cpus_per_task > 0)
        json_object_set_new (job, "cpus_per_task",
                             json_integer (req->cpus_per_task));
    if (req->exclusive) {
        if (fl & V_SHARED)
            json_object_set_new (job, "shared",
                                 json_pack ("[s]", "none"));
        else
            /* v0.0.38 takes sbatch's --exclusive words: "exclusive",
             * "oversubscribe", "user" or "mcs" ("true" is refused) */
            json_object_set_new (job, "exclusive", json_string ("exclusive"));
    }
    if (req->sbatch
        && put_sbatch (api, req->sbatch, job, env, now, errp) < 0) {
        json_decref (job);
        return NULL;
    }
    return job;
}

/* A heterogeneous job: its components as the list "jobs", which every
 * version takes in place of "job" (v0.0.38 _parse_job_list; v0.0.39 on
 * the submit request's "jobs"); the script goes with the first component
 * (v0.0.38: beside the list, as for one job), which slurmrestd checks. */
static char *
het_body (const slurmrest_api_t *api, const ms_job_request_t *req,
          json_t *first, time_t now, ms_error_t *errp)
{
    json_t *jobs = json_array (), *root;
    char *body;

    json_array_append_new (jobs, first);
    for (size_t i = 0; i < req->nhet; i++) {
        json_t *c = build_job (api, &req->het[i], now, errp);
        if (!c) {
            json_decref (jobs);
            return NULL;
        }
        json_array_append_new (jobs, c);
    }
    if (req->sbatch && req->sbatch->external) /* its first: no script */
        root = json_pack ("{s:o}", "jobs", jobs);
    else if (api->flags & V_JOB_SCRIPT) {
        json_t *s = json_string (req->script);
        if (s)
            json_object_set_new (json_array_get (jobs, 0), "script", s);
        root = s ? json_pack ("{s:o}", "jobs", jobs) : NULL;
        if (!s)
            json_decref (jobs);
    } else
        root = json_pack ("{s:s, s:o}", "script", req->script, "jobs", jobs);
    body = root ? json_dumps (root, JSON_COMPACT) : NULL;
    json_decref (root);
    if (!body)
        ms_err (errp, MS_ERR_INPUT,
                "script or a field is not valid UTF-8 text");
    return body;
}

char *
slurmrest_submit_body (const slurmrest_api_t *api, const ms_job_request_t *req,
                       time_t now, ms_error_t *errp)
{
    json_t *job, *root;
    char *body;
    unsigned fl = api->flags;

    if (!req->script || strncmp (req->script, "#!", 2) != 0) {
        ms_err (errp, MS_ERR_INPUT, "script: must start with #!");
        return NULL;
    }
    if (req->nhet + 1 > SLURMREST_MAX_HET) {
        ms_err (errp, MS_ERR_INPUT,
                "a heterogeneous job of %zu components: Slurm takes at "
                "most %d",
                req->nhet + 1, SLURMREST_MAX_HET);
        return NULL;
    }
    if (!(job = build_job (api, req, now, errp)))
        return NULL;
    if (req->nhet)
        return het_body (api, req, job, now, errp);
    /* --external (EXTERNAL_JOB, v0.0.43 on): a job of processes started
     * outside Slurm has no script; slurmctld refuses one (job_mgr.c) */
    if (req->sbatch && req->sbatch->external)
        root = json_pack ("{s:o}", "job", job);
    else if (fl & V_JOB_SCRIPT) {
        json_t *s = json_string (req->script);
        if (!s) {
            json_decref (job);
            ms_err (errp, MS_ERR_INPUT,
                    "script or a field is not valid UTF-8 text");
            return NULL;
        }
        json_object_set_new (job, "script", s);
        root = json_pack ("{s:o}", "job", job);
    } else
        root = json_pack ("{s:s, s:o}", "script", req->script, "job", job);
    if (!root) {
        ms_err (errp, MS_ERR_INPUT,
                "script or a field is not valid UTF-8 text");
        return NULL;
    }
    body = json_dumps (root, JSON_COMPACT);
    json_decref (root);
    if (!body)
        ms_err (errp, MS_ERR_INPUT,
                "script or a field is not valid UTF-8 text");
    return body;
}

char *
slurmrest_update_body (const slurmrest_api_t *api, const ms_job_update_t *upd,
                       ms_error_t *errp)
{
    json_t *o = json_object ();
    char *body;

    if (upd->priority != MS_KEEP_PRIORITY)
        json_object_set_new (o, "priority", jnum (api, upd->priority));
    if (upd->nice != MS_KEEP_NICE) {
        if (api->flags & V_DRAFT) {
            json_decref (o);
            ms_err (errp, MS_ERR_INPUT, "%s", draft_nice);
            return NULL;
        }
        json_object_set_new (o, "nice", json_integer (upd->nice));
    }
    if (upd->time_limit_min != MS_KEEP_TIME)
        json_object_set_new (o, "time_limit", jnum (api, upd->time_limit_min));
    if (upd->comment) {
        json_t *c = json_string (upd->comment);
        if (!c) {
            json_decref (o);
            ms_err (errp, MS_ERR_INPUT, "comment: not valid UTF-8 text");
            return NULL;
        }
        json_object_set_new (o, "comment", c);
    }
    if (json_object_size (o) == 0) {
        json_decref (o);
        ms_err (errp, MS_ERR_INPUT, "the update changes nothing");
        return NULL;
    }
    /* v0.0.39 refuses an update without an environment ("Missing required
     * field 'environment'") and leaves the job's own as it was */
    if (api->flags & V_DRAFT)
        json_object_set_new (o, "environment",
                             json_pack ("[s]", "SLURM_METASCHED_UPDATE=1"));
    body = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    return body;
}

