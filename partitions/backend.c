/* backend.c - the backend wrappers and job-state names. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

void
backend_destroy (ms_backend_t *b)
{
    if (b) {
        if (b->ops && b->ops->destroy)
            b->ops->destroy (b->ctx);
        free (b);
    }
}
