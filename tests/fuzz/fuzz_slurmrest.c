/* fuzz_slurmrest.c - arbitrary bytes into every parser of slurmrestd's
 * answers, in every OpenAPI version, with a few HTTP statuses. The first
 * byte picks the version, the rest is the answer: '0' the table's first
 * (v0.0.38), '1' the next, ... ('8': v0.0.46), counted from '0' so that a
 * corpus input keeps its version when the table grows; every other byte
 * picks one too (modulo the table's size). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "partitions/slurmrest.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const long statuses[] = { 200, 500, 0, 404 };
    const slurmrest_api_t *api;
    const char *body;
    long st = statuses[size % 4];
    bool unchanged;
    char buf[256];
    ms_error_t err;
    ms_job_info_t *jobs;
    ms_partition_state_t *parts;
    ms_node_state_t *nodes;
    uint64_t id;
    size_t n;

    if (size == 0)
        return 0;
    api = slurmrest_api_at ((uint8_t)(data[0] - '0')
                            % slurmrest_api_count ());
    body = (const char *)data + 1;
    size--;
    if (slurmrest_parse_jobs (api, body, size, st, &jobs, &n, &unchanged, &err)
        == 0)
        free (jobs);
    if (slurmrest_parse_jobs (api, body, size, st, &jobs, &n, NULL, &err) == 0)
        free (jobs);
    if (slurmrest_parse_partitions (api, body, size, st, &parts, &n, &err) == 0)
        free (parts);
    if (slurmrest_parse_nodes (api, body, size, st, &nodes, &n, &err) == 0)
        free (nodes);
    (void)slurmrest_parse_submit (api, body, size, st, &id, &err);
    (void)slurmrest_parse_status (api, body, size, st, &err);
    (void)slurmrest_parse_ping (api, body, size, st, &err);
    (void)slurmrest_parse_update (api, body, size, st, &err);
    (void)slurmrest_parse_openapi_versions (body, size, buf, sizeof (buf), &err);
    return 0;
}
