/* backend.c - the backend wrappers and job-state names. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metasched/common/util.h"
#include "partitions/backend.h"

static const char *state_names[] = {
    [MS_JOB_PENDING] = "PENDING",     [MS_JOB_RUNNING] = "RUNNING",
    [MS_JOB_SUSPENDED] = "SUSPENDED", [MS_JOB_COMPLETING] = "COMPLETING",
    [MS_JOB_COMPLETED] = "COMPLETED", [MS_JOB_FAILED] = "FAILED",
    [MS_JOB_CANCELLED] = "CANCELLED", [MS_JOB_TIMEOUT] = "TIMEOUT",
    [MS_JOB_NODE_FAIL] = "NODE_FAIL", [MS_JOB_OTHER] = "OTHER",
};

const char *
ms_job_state_name (ms_job_state_t s)
{
    if ((unsigned)s < sizeof (state_names) / sizeof (state_names[0]))
        return state_names[s];
    return "OTHER";
}

ms_job_state_t
ms_job_state_parse (const char *s)
{
    if (!s)
        return MS_JOB_OTHER;
    for (size_t i = 0; i < sizeof (state_names) / sizeof (state_names[0]); i++)
        if (strcasecmp (s, state_names[i]) == 0)
            return (ms_job_state_t)i;
    /* Slurm's other final states */
    if (!strcasecmp (s, "OUT_OF_MEMORY") || !strcasecmp (s, "BOOT_FAIL")
        || !strcasecmp (s, "DEADLINE"))
        return MS_JOB_FAILED;
    if (!strcasecmp (s, "PREEMPTED"))
        return MS_JOB_CANCELLED;
    if (!strcasecmp (s, "CONFIGURING"))
        return MS_JOB_RUNNING;
    return MS_JOB_OTHER;
}

bool
ms_job_state_final (ms_job_state_t s)
{
    return s == MS_JOB_COMPLETED || s == MS_JOB_FAILED || s == MS_JOB_CANCELLED
           || s == MS_JOB_TIMEOUT || s == MS_JOB_NODE_FAIL;
}

void
ms_job_update_init (ms_job_update_t *u)
{
    memset (u, 0, sizeof (*u));
    u->priority = MS_KEEP_PRIORITY;
    u->nice = MS_KEEP_NICE;
    u->time_limit_min = MS_KEEP_TIME;
}

#define WRAP(call)                                                            \
    do {                                                                      \
        if ((call) < 0)                                                       \
            return ms_err_prefix (errp, "cluster %s", b->cluster);            \
        return 0;                                                             \
    } while (0)

int
backend_ping (ms_backend_t *b, ms_error_t *errp)
{
    WRAP (b->ops->ping (b->ctx, errp));
}

int
backend_partitions (ms_backend_t *b, ms_partition_state_t **out, size_t *n,
                    ms_error_t *errp)
{
    WRAP (b->ops->partitions (b->ctx, out, n, errp));
}

int
backend_nodes (ms_backend_t *b, ms_node_state_t **out, size_t *n,
               ms_error_t *errp)
{
    WRAP (b->ops->nodes (b->ctx, out, n, errp));
}

int
backend_submit (ms_backend_t *b, const ms_job_request_t *req, uint64_t *idp,
                ms_error_t *errp)
{
    WRAP (b->ops->submit (b->ctx, req, idp, errp));
}

int
backend_update (ms_backend_t *b, uint64_t id, const ms_job_update_t *upd,
                ms_error_t *errp)
{
    WRAP (b->ops->update (b->ctx, id, upd, errp));
}

int
backend_cancel (ms_backend_t *b, uint64_t id, ms_error_t *errp)
{
    WRAP (b->ops->cancel (b->ctx, id, errp));
}

int
backend_signal (ms_backend_t *b, uint64_t id, int sig, ms_error_t *errp)
{
    if (!b->ops->signal)
        return ms_err (errp, MS_ERR_INPUT, "cluster %s: cannot signal a job",
                       b->cluster);
    WRAP (b->ops->signal (b->ctx, id, sig, errp));
}

int
backend_jobs (ms_backend_t *b, ms_job_info_t **out, size_t *n,
              ms_error_t *errp)
{
    WRAP (b->ops->jobs (b->ctx, out, n, errp));
}

int
backend_job (ms_backend_t *b, uint64_t id, ms_job_info_t *out,
             ms_error_t *errp)
{
    WRAP (b->ops->job (b->ctx, id, out, errp));
}

int
backend_accounting (ms_backend_t *b, ms_accounting_t *out, ms_error_t *errp)
{
    memset (out, 0, sizeof (*out));
    if (!b->ops->accounting)
        return 0;
    WRAP (b->ops->accounting (b->ctx, out, errp));
}

int
backend_acct_jobs (ms_backend_t *b, const ms_acct_query_t *q,
                   ms_acct_job_t **out, size_t *n, ms_error_t *errp)
{
    int rc;

    *out = NULL;
    *n = 0;
    if (!b->ops->acct_jobs)
        return 1;
    rc = b->ops->acct_jobs (b->ctx, q, out, n, errp);
    if (rc < 0)
        return ms_err_prefix (errp, "cluster %s", b->cluster);
    return rc;
}

void
ms_accounting_free (ms_accounting_t *a)
{
    if (!a)
        return;
    free (a->assocs);
    free (a->qos);
    memset (a, 0, sizeof (*a));
}

void
ms_partition_limits_init (ms_partition_state_t *p)
{
    p->max_nodes = -1;
    p->min_nodes = 0;
    p->mem_per_node_mb = 0;
    p->allow_accounts[0] = p->deny_accounts[0] = p->allow_groups[0] = '\0';
    p->allow_qos[0] = p->deny_qos[0] = '\0';
    p->nfeatsets = 0;
    p->features_known = false;
}

void
ms_partition_apply_conf (ms_partition_state_t *p, const ms_partlimits_t *l,
                         int nodes)
{
    if (l->set & MS_LIM_MAX_TIME)
        p->max_time_min = l->max_time_min;
    if (l->set & MS_LIM_MAX_NODES)
        p->max_nodes = l->max_nodes;
    if (l->set & MS_LIM_MIN_NODES)
        p->min_nodes = l->min_nodes;
    if (l->set & MS_LIM_MEM)
        p->mem_per_node_mb = l->mem_per_node_mb;
    if (l->set & MS_LIM_FEATURES) {
        p->nfeatsets = 0;
        ms_partition_add_features (p, l->features, nodes);
    }
    if (l->set & MS_LIM_ALLOW_ACCOUNTS)
        ms_strlcpy (p->allow_accounts, l->allow_accounts,
                    sizeof (p->allow_accounts));
    if (l->set & MS_LIM_DENY_ACCOUNTS)
        ms_strlcpy (p->deny_accounts, l->deny_accounts,
                    sizeof (p->deny_accounts));
    if (l->set & MS_LIM_ALLOW_GROUPS)
        ms_strlcpy (p->allow_groups, l->allow_groups, sizeof (p->allow_groups));
    if (l->set & MS_LIM_ALLOW_QOS)
        ms_strlcpy (p->allow_qos, l->allow_qos, sizeof (p->allow_qos));
    if (l->set & MS_LIM_DENY_QOS)
        ms_strlcpy (p->deny_qos, l->deny_qos, sizeof (p->deny_qos));
}

void
ms_partition_add_features (ms_partition_state_t *p, const char *features,
                           int n)
{
    p->features_known = true;
    if (!features)
        features = "";
    for (size_t i = 0; i < p->nfeatsets; i++)
        if (!strcmp (p->featsets[i].features, features)) {
            p->featsets[i].nodes += n;
            return;
        }
    if (p->nfeatsets < MS_FEATSETS_MAX) {
        ms_strlcpy (p->featsets[p->nfeatsets].features, features,
                    sizeof (p->featsets[0].features));
        p->featsets[p->nfeatsets++].nodes = n;
    }
    /* more kinds of nodes than sets: the others are not counted, so that a
     * constraint is judged only by nodes whose features are known */
}

void
backend_destroy (ms_backend_t *b)
{
    if (b) {
        if (b->ops && b->ops->destroy)
            b->ops->destroy (b->ctx);
        free (b);
    }
}
