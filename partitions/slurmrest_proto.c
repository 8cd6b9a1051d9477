/* slurmrest_proto.c - what slurmrestd's OpenAPI versions say and how: the
 * table of versions of the slurmrestd backend (the transport is
 * slurmrest.c, the parsers of answers slurmrest_parse.c, the builders of
 * requests slurmrest_build.c).
 *
 * The versions differ in how some things are spelled and shaped; those
 * differences are the flags of the version table below (slurmrest_int.h),
 * read by the one parser and the one request builder of each operation.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "partitions/slurmrest.h"
#include "partitions/slurmrest_int.h"

/* ---- the versions -------------------------------------------------------- */

#define V39 (V_NOVAL | V_ENV_LIST | V_JOB_SCRIPT | V_BEGIN_EPOCH | V_SHARED \
             | V_PART_NESTED | V_NODE_NUMBERS)
#define V40 ((V39 | V_BEGIN_NOVAL | V_UPDATE_UTS) & ~V_NO_UPDATE_TIME)

static const struct slurmrest_api apis[] = {
    { "v0.0.38", "22.05, 23.02", 0 },
    { "v0.0.39", "23.02", V39 | V_NO_UPDATE_TIME | V_DRAFT },
    { "v0.0.40", "23.11 to 25.05", V40 },
    { "v0.0.41", "24.05 to 25.11", V40 },
    { "v0.0.42", "24.11 to 26.05", V40 | V_JOBS_STATE },
    { "v0.0.43", "25.05 to 26.11", V40 | V_JOBS_STATE },
    { "v0.0.44", "25.11 to 26.11", V40 | V_JOBS_STATE },
    { "v0.0.45", "26.05, 26.11", V40 | V_JOBS_STATE },
    { "v0.0.46", "26.11", V40 | V_JOBS_STATE },
};
#define NAPIS (sizeof (apis) / sizeof (apis[0]))

size_t
slurmrest_api_count (void)
{
    return NAPIS;
}

const slurmrest_api_t *
slurmrest_api_at (size_t i)
{
    return i < NAPIS ? &apis[i] : NULL;
}

const slurmrest_api_t *
slurmrest_api_find (const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NAPIS; i++)
        if (!strcmp (name, apis[i].name) || !strcmp (name, apis[i].name + 1))
            return &apis[i];
    return NULL;
}

/* The query of a job listing of the changes since `since` ("" where the
 * version cannot ask for them). */
void
slurmrest_jobs_query (const slurmrest_api_t *api, time_t since, char *buf,
                      size_t size)
{
    if (api->flags & V_NO_UPDATE_TIME)
        buf[0] = '\0';
    else
        snprintf (buf, size, "?update_time=%s%lld",
                  api->flags & V_UPDATE_UTS ? "uts" : "", (long long)since);
}

const char *
slurmrest_api_name (const slurmrest_api_t *api)
{
    return api ? api->name : "";
}

bool
slurmrest_api_draft (const slurmrest_api_t *api)
{
    return api && (api->flags & V_DRAFT);
}

/* kept beside the table; test_slurmrest_parse checks that they agree */
const char *
slurmrest_api_list (void)
{
    return "v0.0.38, v0.0.39, v0.0.40, v0.0.41, v0.0.42, v0.0.43, v0.0.44, "
           "v0.0.45, v0.0.46";
}
