/* slurmrest_parse_db.c - the parsers of the answers of slurmrestd's
 * accounting endpoints (/slurmdb/VERSION/...): associations, QOS, the
 * energy of accounted jobs, and accounted job records (a job slurmctld no
 * longer lists). Same readers and same tolerance as slurmrest_parse.c
 * (slurmrest_parse_int.h): every shape any version gave a value.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "partitions/slurmrest_int.h"
#include "partitions/slurmrest_parse_int.h"

/* The count of TRES `type` in a list [{type, name, count}, ...]; -1 when
 * the list does not name it. */
static int64_t
tres_count (struct srp_fctx *f, json_t *o, const char *key, const char *type)
{
    json_t *a = srp_jpath (o, key), *e;
    size_t k;

    if (!a || json_is_null (a))
        return -1;
    if (!json_is_array (a)) {
        srp_ftype (f, key, "an array of TRES");
        return -1;
    }
    json_array_foreach (a, k, e)
    {
        const char *t = json_string_value (json_object_get (e, "type"));
        json_t *nm = json_object_get (e, "name");
        if (t && !strcmp (t, type)
            && (!nm || json_is_null (nm) || !*json_string_value (nm)))
            return srp_fnum (f, e, "count", -1, -1);
    }
    return -1;
}

/* arg: the cluster's name in Slurm (NULL: any) */
static int
read_association (struct srp_fctx *f, json_t *o, void *item, const void *arg)
{
    const char *cluster = arg;
    ms_assoc_t *a = item;
    char cl[64];
    json_t *def;

    srp_fstr (f, o, "cluster", cl, sizeof (cl));
    srp_fstr (f, o, "user", a->user, sizeof (a->user));
    srp_fstr (f, o, "account", a->account, sizeof (a->account));
    srp_fstr (f, o, "partition", a->partition, sizeof (a->partition));
    /* v0.0.38: 1 or 0; later: true or false */
    def = json_object_get (o, "is_default");
    a->is_default = json_is_true (def)
                    || (json_is_integer (def) && json_integer_value (def));
    srp_flist (f, o, "qos", a->qos, sizeof (a->qos));
    srp_fstr (f, o, "default/qos", a->default_qos, sizeof (a->default_qos));
    a->max_wall_min = srp_fnum (f, o, "max/jobs/per/wall_clock", -1, -1);
    /* only the users' associations of this cluster count (a slurmdbd
     * may serve several clusters; accounts have no user) */
    return a->user[0] && !(cluster && cl[0] && strcmp (cl, cluster));
}

int
slurmrest_parse_associations (const slurmrest_api_t *api, const char *body,
                              size_t len, long http_status, const char *cluster,
                              ms_assoc_t **out, size_t *n, ms_error_t *errp)
{
    ms_assoc_t *as
        = srp_parse_items (body, len, http_status, "associations", sizeof (*as),
                           read_association, cluster, n, errp);

    (void)api;
    if (!as)
        return -1;
    *out = as;
    return 0;
}

static int
read_energy (struct srp_fctx *f, json_t *o, void *item, const void *arg)
{
    slurmrest_energy_t *en = item;
    json_t *steps, *st;
    int64_t id, e;
    size_t m;

    (void)arg;
    id = srp_fint (f, o, "job_id", 0);
    e = tres_count (f, o, "tres/allocated", "energy");
    steps = json_object_get (o, "steps");
    if (e < 0 && json_is_array (steps)) {
        int64_t sum = -1;
        json_array_foreach (steps, m, st)
        {
            int64_t se = tres_count (f, st, "tres/consumed/total", "energy");
            if (se >= 0)
                sum = (sum < 0 ? 0 : sum) + se;
        }
        e = sum;
    }
    /* NO_VAL64 and friends are no figure */
    if (id <= 0 || e < 0 || e >= (int64_t)1 << 53)
        return 0;
    en->id = (uint64_t)id;
    en->energy_j = (double)e;
    return 1;
}

int
slurmrest_parse_db_energy (const slurmrest_api_t *api, const char *body,
                           size_t len, long http_status,
                           slurmrest_energy_t **out, size_t *n,
                           ms_error_t *errp)
{
    slurmrest_energy_t *es
        = srp_parse_items (body, len, http_status, "jobs", sizeof (*es),
                           read_energy, NULL, n, errp);

    (void)api;
    if (!es)
        return -1;
    *out = es;
    return 0;
}

static int
read_qos (struct srp_fctx *f, json_t *o, void *item, const void *arg)
{
    ms_qos_t *q = item;

    (void)arg;
    srp_fstr (f, o, "name", q->name, sizeof (q->name));
    if (!q->name[0] && !f->failed)
        srp_ftype (f, "name", "a QOS name");
    q->max_wall_min = srp_fnum (f, o, "limits/max/wall_clock/per/job", -1, -1);
    q->max_cpus_per_user = tres_count (f, o, "limits/max/tres/per/user", "cpu");
    q->max_cpus_per_job = tres_count (f, o, "limits/max/tres/per/job", "cpu");
    q->max_nodes_per_job = tres_count (f, o, "limits/max/tres/per/job", "node");
    return 1;
}

int
slurmrest_parse_qos (const slurmrest_api_t *api, const char *body, size_t len,
                     long http_status, ms_qos_t **out, size_t *n,
                     ms_error_t *errp)
{
    json_t *root;
    ms_qos_t *qs;
    const char *key;

    (void)api;
    if (srp_parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    /* v0.0.38: "QOS"; later: "qos" */
    key = !json_is_array (json_object_get (root, "qos"))
                  && json_is_array (json_object_get (root, "QOS"))
              ? "QOS"
              : "qos";
    qs = srp_read_items (root, key, "qos", sizeof (*qs), read_qos, NULL, n,
                         errp);
    if (!qs)
        return -1;
    *out = qs;
    return 0;
}

/* A job record of GET /slurmdb/VERSION/jobs or /job/ID: v0.0.38's
 * {"state": {"current": "COMPLETED"}, "exit_code": {"status": ...,
 * "return_code": 0}, "comment": {"job": ...}, "time": {"submission": ...}}
 * and the later versions' lists of flags and {set, number}. The job's own
 * user (top-level "user"; 26.11 leaves the association's empty). */
static int
read_db_job (struct srp_fctx *f, json_t *o, void *item, const void *arg)
{
    ms_acct_job_t *j = item;
    char flags[128];
    int64_t v;

    (void)arg;
    j->id = srp_fjobid (f, o);
    srp_fstr (f, o, "user", j->user, sizeof (j->user));
    if (!j->user[0])
        srp_fstr (f, o, "association/user", j->user, sizeof (j->user));
    srp_fstr (f, o, "cluster", j->cluster, sizeof (j->cluster));
    srp_fstr (f, o, "partition", j->partition, sizeof (j->partition));
    /* v0.0.38 on: comment {job, administrator, system}; a plain string
     * is read too */
    if (json_is_string (json_object_get (o, "comment")))
        srp_fstr (f, o, "comment", j->comment, sizeof (j->comment));
    else
        srp_fstr (f, o, "comment/job", j->comment, sizeof (j->comment));
    srp_fstate (f, o, "state/current", j->state_name, sizeof (j->state_name),
                flags, sizeof (flags));
    if (!j->state_name[0] && json_is_string (json_object_get (o, "state")))
        srp_fstr (f, o, "state", j->state_name, sizeof (j->state_name));
    if (!j->state_name[0] && !f->failed)
        srp_ftype (f, "state/current", "a job state");
    j->state = ms_job_state_parse (j->state_name);
    srp_fstr (f, o, "state/reason", j->state_reason, sizeof (j->state_reason));
    j->exit_code = srp_fexit (f, o, "exit_code");
    j->submit_time = (time_t)srp_fint (f, o, "time/submission", 0);
    j->start_time = (time_t)srp_fint (f, o, "time/start", 0);
    j->end_time = (time_t)srp_fint (f, o, "time/end", 0);
    v = srp_fint (f, o, "array/job_id", 0);
    j->array_job_id = v > 0 ? (uint64_t)v : 0;
    j->array_task_id
        = j->array_job_id ? srp_fnum (f, o, "array/task_id", -1, -1) : -1;
    if (j->array_task_id < 0 || j->array_task_id > JOBSPEC_ARRAY_MAX_INDEX)
        j->array_task_id = -1;
    return j->id > 0;
}

int
slurmrest_parse_db_jobs (const slurmrest_api_t *api, const char *body,
                         size_t len, long http_status, ms_acct_job_t **out,
                         size_t *n, ms_error_t *errp)
{
    ms_acct_job_t *js
        = srp_parse_items (body, len, http_status, "jobs", sizeof (*js),
                           read_db_job, NULL, n, errp);

    (void)api;
    if (!js)
        return -1;
    *out = js;
    return 0;
}
