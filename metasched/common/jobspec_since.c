/* jobspec_since.c - sbatch's options that only later Slurm releases have
 * (none of them in 22.05): the value rules of each, and the OpenAPI
 * version from which slurmrestd carries it in a job's description.
 *
 * A job may hold them whatever its clusters run: metasched sends each
 * only to a cluster whose slurmrestd speaks that version or a later one.
 * A cluster of an older Slurm is not a candidate for a job that holds a
 * requirement it cannot carry; a hint (a preference of placement or of
 * step management, which does not change what the job may do) is
 * dropped there instead, and the job says so (doc/msbatch.1 "Options of
 * later Slurm releases").
 *
 * The versions are those of the fields in Slurm's data_parser plugins
 * (src/plugins/data_parser/v0.0.4x/parsers.c): "extra" and
 * "container_id" from v0.0.40 (23.11), the flag STEPMGR_ENABLED and
 * "segment_size" from v0.0.41 (24.05), "oom_kill_step" from v0.0.42
 * (24.11), the flags SPREAD_SEGMENTS and CONSOLIDATE_SEGMENTS from v0.0.44
 * (25.11). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_int.h"

/* A number as Slurm's parse_uint16 (src/common/proc_args.c) reads it:
 * strtoll's syntax (blanks and a sign before it, "" is 0), nothing after,
 * from 0 to 65533 (below NO_VAL16). */
int
jobspec_parse_u16 (const char *val, int *out)
{
    long long v;
    char *end;

    errno = 0;
    v = strtoll (val, &end, 10);
    if (*end || v == LLONG_MIN || v == LLONG_MAX || v < 0 || v >= 0xfffe)
        return -1;
    *out = (int)v;
    return 0;
}

/* --oom-kill-step[=0|1]: arg_set_oom_kill_step (src/common/slurm_opt.c,
 * 24.11 on): 1 without a value, else parse_uint16 and at most 1. */
int
jobspec_parse_oom_kill_step (ms_jobspec_t *s, const char *where,
                             const char *val, ms_error_t *errp)
{
    int v;

    if (!val) {
        s->oom_kill_step = 1;
        return 0;
    }
    if (jobspec_parse_u16 (val, &v) < 0 || v > 1)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--oom-kill-step=%.64s: Invalid --oom-kill-step "
                       "specification (0 or 1)",
                       where, val);
    s->oom_kill_step = v;
    return 0;
}

/* --segment=N: arg_set_segment_size (src/common/slurm_opt.c, 24.05 on):
 * parse_uint16. */
int
jobspec_parse_segment (ms_jobspec_t *s, const char *where, const char *val,
                       ms_error_t *errp)
{
    if (!val || jobspec_parse_u16 (val, &s->segment_size) < 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--segment=%.64s: Invalid --segment specification "
                       "(a whole number from 0 to 65533)",
                       where, val ? val : "");
    return 0;
}

static bool
has_extra (const ms_jobspec_t *s)
{
    return s->extra[0] != '\0';
}

static bool
has_container_id (const ms_jobspec_t *s)
{
    return s->container_id[0] != '\0';
}

static bool
has_oom_kill_step (const ms_jobspec_t *s)
{
    return s->oom_kill_step >= 0;
}

static bool
has_segment (const ms_jobspec_t *s)
{
    return s->segment_size >= 0;
}

static bool
has_stepmgr (const ms_jobspec_t *s)
{
    return s->stepmgr;
}

static bool
has_spread_segments (const ms_jobspec_t *s)
{
    return s->spread_segments;
}

static bool
has_consolidate_segments (const ms_jobspec_t *s)
{
    return s->consolidate_segments;
}

static const struct {
    jobspec_since_t o;
    bool (*has) (const ms_jobspec_t *s);
} since[] = {
    { { "extra", "v0.0.40", "23.11", false }, has_extra },
    { { "container-id", "v0.0.40", "23.11", false }, has_container_id },
    { { "segment", "v0.0.41", "24.05", false }, has_segment },
    { { "stepmgr", "v0.0.41", "24.05", true }, has_stepmgr },
    { { "oom-kill-step", "v0.0.42", "24.11", false }, has_oom_kill_step },
    { { "spread-segments", "v0.0.44", "25.11", true }, has_spread_segments },
    { { "consolidate-segments", "v0.0.44", "25.11", true },
      has_consolidate_segments },
};
#define NSINCE (sizeof (since) / sizeof (since[0]))

/* "v0.0.38" < "v0.0.40" < ... : the names have one shape */
static bool
older (const char *api, const char *than)
{
    return strcmp (api, than) < 0;
}

bool
jobspec_since_carries (const char *opt, const char *api)
{
    for (size_t i = 0; i < NSINCE; i++)
        if (!strcmp (since[i].o.name, opt))
            return !api || !api[0] || !older (api, since[i].o.api);
    return true;
}

const jobspec_since_t *
jobspec_since_missing (const ms_jobspec_t *s, const char *api, size_t *ip)
{
    if (!api || !api[0])
        return NULL; /* not known yet: the submission checks again */
    while (*ip < NSINCE) {
        size_t i = (*ip)++;
        if (since[i].has (s) && older (api, since[i].o.api))
            return &since[i].o;
    }
    return NULL;
}
