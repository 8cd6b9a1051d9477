/* fuzz_slurmrest.c - arbitrary bytes into every parser of slurmrestd's
 * answers, with a few HTTP statuses. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "partitions/slurmrest.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const long statuses[] = { 200, 500, 0, 404 };
    const char *body = (const char *)data;
    long st = statuses[size % 4];
    ms_error_t err;
    ms_job_info_t *jobs;
    ms_partition_state_t *parts;
    ms_node_state_t *nodes;
    uint64_t id;
    size_t n;

    if (slurmrest_parse_jobs (body, size, st, &jobs, &n, &err) == 0)
        free (jobs);
    if (slurmrest_parse_partitions (body, size, st, &parts, &n, &err) == 0)
        free (parts);
    if (slurmrest_parse_nodes (body, size, st, &nodes, &n, &err) == 0)
        free (nodes);
    (void)slurmrest_parse_submit (body, size, st, &id, &err);
    (void)slurmrest_parse_status (body, size, st, &err);
    return 0;
}
