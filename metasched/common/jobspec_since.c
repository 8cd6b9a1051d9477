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
 * (src/plugins/data_parser/v0.0.4x/parsers.c): "tres_per_task" and
 * "tres_bind" from v0.0.39 (23.02), "extra" and "container_id" from
 * v0.0.40 (23.11), the flag STEPMGR_ENABLED and "segment_size" from
 * v0.0.41 (24.05), "oom_kill_step" from v0.0.42 (24.11), the flag
 * EXTERNAL_JOB from v0.0.43 (25.05), the flags SPREAD_SEGMENTS and
 * CONSOLIDATE_SEGMENTS from v0.0.44 (25.11), "container_type" from v0.0.45
 * (26.05). No version up to v0.0.45 has --resources (hierarchical
 * resources), --resv-ports (its "reserve_ports" is another field) or
 * --mem-update: the first makes no cluster a candidate, the two hints
 * are dropped everywhere. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
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

/* --mem-update=MARGIN@DELAY: arg_set_mem_update (src/common/slurm_opt.c,
 * 26.05 on): MARGIN strtol's syntax from 1 to 65535 with nothing after,
 * DELAY a time as time_str2mins reads it, from 1 to 65535 minutes. */
int
jobspec_parse_mem_update (ms_jobspec_t *s, const char *where, const char *val,
                          ms_error_t *errp)
{
    const char *at = strchr (val, '@');
    char margin[32], *end;
    uint32_t delay;
    long m;

    if (!at)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--mem-update=%.64s: --mem-update requires "
                       "MARGIN@DELAY format",
                       where, val);
    snprintf (margin, sizeof (margin), "%.*s",
              (int)((size_t)(at - val) < sizeof (margin) - 1
                        ? (size_t)(at - val)
                        : sizeof (margin) - 1),
              val);
    errno = 0;
    m = strtol (margin, &end, 10);
    if ((size_t)(at - val) >= sizeof (margin) || *end || errno || m <= 0
        || m > 65535 || jobspec_parse_time (at + 1, &delay) < 0 || delay == 0
        || delay > 65535)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--mem-update=%.64s: Invalid --mem-update "
                       "specification (MARGIN 1 to 65535 percent, DELAY a "
                       "time of 1 to 65535 minutes)",
                       where, val);
    if (strlen (val) >= sizeof (s->mem_update))
        return ms_err (errp, MS_ERR_INPUT, "%s--mem-update=%.64s: too long",
                       where, val);
    snprintf (s->mem_update, sizeof (s->mem_update), "%s", val);
    return 0;
}

/* --resv-ports[=N]: arg_set_resv_port_cnt (src/common/slurm_opt.c, 22.05
 * on): 0 without a value, else parse_int ("--resv-port", N, false):
 * strtol's syntax, nothing after, 0 up to INT_MAX - 1. */
int
jobspec_parse_resv_ports (ms_jobspec_t *s, const char *where, const char *val,
                          ms_error_t *errp)
{
    char *end;
    long v;

    if (!val) {
        s->resv_ports = 0;
        return 0;
    }
    errno = 0;
    v = strtol (val, &end, 10);
    if (*end || v < 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--resv-ports=%.64s: Invalid numeric value \"%.64s\" "
                       "for --resv-port.",
                       where, val, val);
    if (errno || v >= INT_MAX)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--resv-ports=%.64s: Numeric argument (%ld) too "
                       "large for --resv-port.",
                       where, val, v);
    s->resv_ports = (int)v;
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

static bool
has_tres_per_task (const ms_jobspec_t *s)
{
    return s->tres_per_task[0] != '\0';
}

static bool
has_tres_bind (const ms_jobspec_t *s)
{
    return s->tres_bind[0] != '\0';
}

static bool
has_resources (const ms_jobspec_t *s)
{
    return s->resources[0] != '\0';
}

static bool
has_container_type (const ms_jobspec_t *s)
{
    return s->container_type[0] != '\0';
}

static bool
has_mem_update (const ms_jobspec_t *s)
{
    return s->mem_update[0] != '\0';
}

static bool
has_resv_ports (const ms_jobspec_t *s)
{
    return s->resv_ports >= 0;
}

static bool
has_external (const ms_jobspec_t *s)
{
    return s->external;
}

static const struct {
    jobspec_since_t o;
    bool (*has) (const ms_jobspec_t *s);
} since[] = {
    { { "tres-per-task", "v0.0.39", "23.02", false }, has_tres_per_task },
    { { "tres-bind", "v0.0.39", "23.02", true }, has_tres_bind },
    { { "extra", "v0.0.40", "23.11", false }, has_extra },
    { { "container-id", "v0.0.40", "23.11", false }, has_container_id },
    { { "segment", "v0.0.41", "24.05", false }, has_segment },
    { { "stepmgr", "v0.0.41", "24.05", true }, has_stepmgr },
    { { "oom-kill-step", "v0.0.42", "24.11", false }, has_oom_kill_step },
    { { "spread-segments", "v0.0.44", "25.11", true }, has_spread_segments },
    { { "consolidate-segments", "v0.0.44", "25.11", true },
      has_consolidate_segments },
    { { "external", "v0.0.43", "25.05", false }, has_external },
    { { "container-type", "v0.0.45", "26.05", false }, has_container_type },
    /* in no job description of slurmrestd (up to v0.0.45) */
    { { "resources", NULL, NULL, false }, has_resources },
    { { "resv-ports", NULL, NULL, true }, has_resv_ports },
    { { "mem-update", NULL, NULL, true }, has_mem_update },
};
#define NSINCE (sizeof (since) / sizeof (since[0]))

/* "v0.0.38" < "v0.0.40" < ... : the names have one shape; no version
 * has what none carries (than NULL) */
static bool
older (const char *api, const char *than)
{
    return !than || strcmp (api, than) < 0;
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
