/* contract_job.h - the jobs that tests/contract/slurmrest_capture submits
 * to a real slurmrestd, shared with tests/unit/test_slurmrest_contract,
 * which rebuilds their requests and compares them with what the server
 * was sent and accepted. */
#ifndef MS_CONTRACT_JOB_H
#define MS_CONTRACT_JOB_H

#include <string.h>

#include "partitions/backend.h"
#include "partitions/slurmrest.h"

static const char *const contract_env[]
    = { "PATH=/usr/local/bin:/usr/bin:/bin", "OMP_NUM_THREADS=2",
        "METASCHED_JOB_ID=77", NULL };

/* The nice of the pending job, and of its first update, in api: none in
 * a draft version (23.02's v0.0.39 cannot carry one). */
static inline int
contract_nice (const slurmrest_api_t *api, int nice)
{
    return slurmrest_api_draft (api) ? 0 : nice;
}

/* The pending job: every field metasched sends, held an hour by its
 * begin time so that it can be updated and cancelled while pending. */
static inline void
contract_pending_job (ms_job_request_t *r, const slurmrest_api_t *api,
                      const char *user, const char *partition,
                      const char *cwd, int64_t begin_time)
{
    memset (r, 0, sizeof (*r));
    r->user = user;
    r->name = "ms-contract";
    r->partition = partition;
    r->cpu_freq_khz = 2000000;
    r->time_limit_min = 7;
    r->begin_time = begin_time;
    r->nice = contract_nice (api, 10);
    r->comment = "metasched:77";
    r->environment = contract_env;
    r->cwd = cwd;
    r->std_out = "/dev/null";
    r->std_err = "/dev/null";
    r->nodes = 1;
    r->tasks = 1;
    r->cpus_per_task = 1;
    r->script = "#!/bin/sh\nsleep 1\n";
}

/* A job that runs at once and ends with exit code `code`; exclusive. */
static inline void
contract_quick_job (ms_job_request_t *r, const char *user,
                    const char *partition, const char *cwd, int code)
{
    memset (r, 0, sizeof (*r));
    r->user = user;
    r->name = code ? "ms-contract-fails" : "ms-contract-ok";
    r->partition = partition;
    r->time_limit_min = 2;
    r->comment = code ? "metasched:79" : "metasched:78";
    r->environment = contract_env;
    r->cwd = cwd;
    r->std_out = "/dev/null";
    r->std_err = "/dev/null";
    r->nodes = 1;
    r->exclusive = true;
    r->script = code ? "#!/bin/sh\nexit 3\n" : "#!/bin/sh\nexit 0\n";
}

/* The first update of the pending job: its priority and nice. */
static inline void
contract_priority_update (ms_job_update_t *u, const slurmrest_api_t *api)
{
    ms_job_update_init (u);
    u->priority = 4242;
    if (!slurmrest_api_draft (api))
        u->nice = 20;
}

#endif /* MS_CONTRACT_JOB_H */
