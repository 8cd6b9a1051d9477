/* jobreq.c - a job request's life (init, free) and its options as
 * stored in jobs.options (jobreq.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db/jobreq.h"
#include "metasched/common/jobspec_json.h"

void
apireq_init (ms_apireq_t *r)
{
    memset (r, 0, sizeof (*r));
    r->nodes = 1;
    jobspec_init (&r->sb);
}

void
apireq_free (ms_apireq_t *r)
{
    size_t i;

    if (!r)
        return;
    free (r->script);
    free (r->cwd);
    free (r->std_out);
    free (r->std_err);
    free (r->std_in);
    for (i = 0; i < r->nenvironment; i++)
        free (r->environment[i]);
    free (r->environment);
    apireq_init (r);
}

char *
apireq_options_json (const ms_apireq_t *r)
{
    json_t *o = json_object (), *env = json_array ();
    char *s;
    size_t i;

    for (i = 0; i < r->nenvironment; i++)
        json_array_append_new (env, json_string (r->environment[i]));
    json_object_set_new (o, "tasks", json_integer (r->tasks));
    json_object_set_new (o, "tasks_per_node", json_integer (r->tasks_per_node));
    json_object_set_new (o, "cpus_per_task", json_integer (r->cpus_per_task));
    json_object_set_new (o, "begin_time",
                         r->begin_time ? json_integer (r->begin_time)
                                       : json_null ());
    json_object_set_new (o, "exclusive", json_boolean (r->exclusive));
    json_object_set_new (o, "cwd", json_string (r->cwd ? r->cwd : ""));
    json_object_set_new (o, "stdout",
                         r->std_out ? json_string (r->std_out) : json_null ());
    json_object_set_new (o, "stderr",
                         r->std_err ? json_string (r->std_err) : json_null ());
    json_object_set_new (o, "stdin",
                         r->std_in ? json_string (r->std_in) : json_null ());
    json_object_set_new (o, "environment", env);
    if (r->sb.nhet) {
        /* the columns hold the whole job's: the first component's own */
        json_object_set_new (o, "nodes", json_integer (r->first_nodes));
        if (r->first_time_limit_min)
            json_object_set_new (o, "time_limit_min",
                                 json_integer (r->first_time_limit_min));
    }
    json_object_set_new (o, "partition",
                         r->partition[0] ? json_string (r->partition)
                                         : json_null ());
    jobspec_json_put (&r->sb, o);
    s = json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref (o);
    return s;
}
