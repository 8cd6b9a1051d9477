/* jobrun_rec.c - a job_runs row as a spool record and back. A spooled row
 * is read back by `metasched collect flush`, possibly after a crash or by a
 * newer version: every field is checked as the database would. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collect.h"
#include "metasched/common/util.h"

spool_rec_t *
collect_jobrun_to_rec (const db_job_run_t *r)
{
    spool_rec_t *s = spool_rec_new ("job_run");

    spool_rec_set (s, "cluster", r->cluster);
    spool_rec_set (s, "partition", r->partition);
    spool_rec_setf (s, "slurm_job_id", "%llu",
                    (unsigned long long)r->slurm_job_id);
    spool_rec_set (s, "node", r->node);
    spool_rec_set (s, "app", r->app);
    spool_rec_set (s, "user_name", r->user_name);
    if (r->uid >= 0)
        spool_rec_setf (s, "uid", "%ld", r->uid);
    spool_rec_setf (s, "nodes", "%d", r->nodes);
    if (r->freq_req_khz)
        spool_rec_setf (s, "freq_req_khz", "%u", r->freq_req_khz);
    if (r->freq_obs_khz)
        spool_rec_setf (s, "freq_obs_khz", "%u", r->freq_obs_khz);
    spool_rec_setf (s, "start_time", "%.6f", r->start_time);
    spool_rec_setf (s, "end_time", "%.6f", r->end_time);
    spool_rec_setf (s, "runtime_s", "%.6f", r->runtime_s);
    if (r->pkg_energy_j >= 0)
        spool_rec_setf (s, "pkg_energy_j", "%.6f", r->pkg_energy_j);
    if (r->dram_energy_j >= 0)
        spool_rec_setf (s, "dram_energy_j", "%.6f", r->dram_energy_j);
    if (r->avg_power_w >= 0)
        spool_rec_setf (s, "avg_power_w", "%.6f", r->avg_power_w);
    if (r->cycles >= 0)
        spool_rec_setf (s, "cycles", "%lld", (long long)r->cycles);
    if (r->instructions >= 0)
        spool_rec_setf (s, "instructions", "%lld", (long long)r->instructions);
    if (r->mem_transactions >= 0)
        spool_rec_setf (s, "mem_transactions", "%lld",
                        (long long)r->mem_transactions);
    if (r->cpi > 0)
        spool_rec_setf (s, "cpi", "%.9g", r->cpi);
    if (r->tpi >= 0)
        spool_rec_setf (s, "tpi", "%.9g", r->tpi);
    spool_rec_set (s, "counters", r->counters_json);
    spool_rec_set (s, "events_used", r->events_used);
    spool_rec_set (s, "events_unavailable", r->events_unavailable);
    if (r->has_exit_code)
        spool_rec_setf (s, "exit_code", "%d", r->exit_code);
    if (r->exclusive >= 0)
        spool_rec_set (s, "exclusive", r->exclusive ? "true" : "false");
    spool_rec_set (s, "source", r->source);
    spool_rec_set (s, "collector_version", r->collector_version);
    if (r->reported_runtime_s >= 0)
        spool_rec_setf (s, "reported_runtime_s", "%.6f", r->reported_runtime_s);
    if (r->user_reported[0])
        spool_rec_set (s, "user_reported", r->user_reported);
    if (r->het_job_id > 0) {
        spool_rec_setf (s, "het_job_id", "%llu",
                        (unsigned long long)r->het_job_id);
        spool_rec_setf (s, "het_job_offset", "%d", r->het_job_offset);
    }
    return s;
}

static int
get_name (const spool_rec_t *s, const char *key, char *dst, size_t size,
          bool required, ms_error_t *errp)
{
    const char *v = spool_rec_get (s, key);

    if (!v || !*v) {
        if (required)
            return ms_err (errp, MS_ERR_INPUT, "%s: %s missing",
                           spool_rec_name (s), key);
        dst[0] = '\0';
        return 0;
    }
    if (strlen (v) >= size)
        return ms_err (errp, MS_ERR_INPUT, "%s: %s: longer than %zu bytes",
                       spool_rec_name (s), key, size - 1);
    ms_strlcpy (dst, v, size);
    return 0;
}

/* Event lists: names separated by commas, nothing else. */
static int
get_list (const spool_rec_t *s, const char *key, char *dst, size_t size,
          ms_error_t *errp)
{
    if (get_name (s, key, dst, size, false, errp) < 0)
        return -1;
    for (const char *p = dst; *p; p++)
        if (!(isalnum ((unsigned char)*p) || strchr ("_.:-,", *p)))
            return ms_err (errp, MS_ERR_INPUT, "%s: %s: not an event list",
                           spool_rec_name (s), key);
    return 0;
}

/* The counters JSON object as collect_counters_from_rec builds it:
 * {"NAME": N, ...} with names of the event alphabet. Checked rather than
 * trusted, so the database never rejects a spooled row as bad JSON. */
static bool
counters_json_ok (const char *s)
{
    const char *p = s;

    if (*p++ != '{')
        return false;
    while (*p == ' ')
        p++;
    if (*p == '}')
        return p[1] == '\0';
    for (;;) {
        if (*p++ != '"')
            return false;
        if (!(isalnum ((unsigned char)*p) || strchr ("_.:-", *p)))
            return false;
        while (isalnum ((unsigned char)*p) || strchr ("_.:-", *p))
            if (!*p++)
                return false;
        if (*p++ != '"' || *p++ != ':')
            return false;
        while (*p == ' ')
            p++;
        if (!isdigit ((unsigned char)*p))
            return false;
        while (isdigit ((unsigned char)*p))
            p++;
        while (*p == ' ')
            p++;
        if (*p == '}')
            return p[1] == '\0';
        if (*p++ != ',')
            return false;
        while (*p == ' ')
            p++;
    }
}

/* het_job_id and het_job_offset of a row: both or neither. */
static int
het_from_rec (const spool_rec_t *s, const char *name, db_job_run_t *r,
              ms_error_t *errp)
{
    int64_t i;

    switch (spool_rec_get_i64 (s, "het_job_id", &i, errp)) {
    case -1:
        return -1;
    case 0:
        return 0;
    }
    if (i <= 0)
        return ms_err (errp, MS_ERR_INPUT, "%s: het_job_id: out of range",
                       name);
    r->het_job_id = (uint64_t)i;
    switch (spool_rec_get_i64 (s, "het_job_offset", &i, errp)) {
    case -1:
        return -1;
    case 0:
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: het_job_id without het_job_offset", name);
    }
    if (i < 0 || i > 127) /* Slurm's MAX_HET_JOB_COMPONENTS */
        return ms_err (errp, MS_ERR_INPUT, "%s: het_job_offset: out of range",
                       name);
    r->het_job_offset = (int)i;
    return 0;
}

int
collect_jobrun_from_rec (const spool_rec_t *s, db_job_run_t *r,
                         ms_error_t *errp)
{
    const char *name = spool_rec_name (s), *v;
    uint64_t u;
    int64_t i;

    db_job_run_init (r);
    if (strcmp (spool_rec_kind (s), "job_run"))
        return ms_err (errp, MS_ERR_INPUT, "%s: not a job_run record", name);
    if (get_name (s, "cluster", r->cluster, sizeof (r->cluster), true, errp) < 0
        || get_name (s, "partition", r->partition, sizeof (r->partition), true,
                     errp) < 0
        || get_name (s, "node", r->node, sizeof (r->node), true, errp) < 0
        || get_name (s, "app", r->app, sizeof (r->app), false, errp) < 0
        || get_name (s, "user_name", r->user_name, sizeof (r->user_name), true,
                     errp) < 0
        || get_name (s, "source", r->source, sizeof (r->source), true, errp) < 0
        || get_name (s, "collector_version", r->collector_version,
                     sizeof (r->collector_version), true, errp) < 0
        || get_list (s, "events_used", r->events_used, sizeof (r->events_used),
                     errp) < 0
        || get_list (s, "events_unavailable", r->events_unavailable,
                     sizeof (r->events_unavailable), errp) < 0
        || get_name (s, "counters", r->counters_json,
                     sizeof (r->counters_json), false, errp) < 0)
        return -1;
    if (!r->counters_json[0])
        strcpy (r->counters_json, "{}");
    if (!counters_json_ok (r->counters_json))
        return ms_err (errp, MS_ERR_INPUT, "%s: counters: not a counter object",
                       name);
    if (strcmp (r->source, "root-measured") && strcmp (r->source, "user-reported"))
        return ms_err (errp, MS_ERR_INPUT, "%s: source: '%s'", name, r->source);
    if (spool_rec_get_u64 (s, "slurm_job_id", &r->slurm_job_id, errp) <= 0
        || r->slurm_job_id == 0 || r->slurm_job_id > INT64_MAX)
        return errp && errp->kind ? -1
                                  : ms_err (errp, MS_ERR_INPUT,
                                            "%s: slurm_job_id missing or 0",
                                            name);
    if (spool_rec_get_i64 (s, "uid", &i, errp) < 0)
        return -1;
    if (spool_rec_get (s, "uid"))
        r->uid = i >= 0 && i <= INT32_MAX ? (long)i : -1;
    if (spool_rec_get_u64 (s, "nodes", &u, errp) <= 0 || u == 0 || u > 100000)
        return errp && errp->kind ? -1
                                  : ms_err (errp, MS_ERR_INPUT,
                                            "%s: nodes missing or out of range",
                                            name);
    r->nodes = (int)u;
    if (spool_rec_get_u64 (s, "freq_req_khz", &u, errp) < 0)
        return -1;
    if (spool_rec_get (s, "freq_req_khz")) {
        if (u == 0 || u > INT32_MAX)
            return ms_err (errp, MS_ERR_INPUT, "%s: freq_req_khz: out of range",
                           name);
        r->freq_req_khz = (uint32_t)u;
    }
    if (spool_rec_get_u64 (s, "freq_obs_khz", &u, errp) < 0)
        return -1;
    if (spool_rec_get (s, "freq_obs_khz")) {
        if (u == 0 || u > INT32_MAX)
            return ms_err (errp, MS_ERR_INPUT, "%s: freq_obs_khz: out of range",
                           name);
        r->freq_obs_khz = (uint32_t)u;
    }
    if (spool_rec_get_double (s, "start_time", &r->start_time, errp) <= 0
        || spool_rec_get_double (s, "end_time", &r->end_time, errp) <= 0
        || spool_rec_get_double (s, "runtime_s", &r->runtime_s, errp) <= 0)
        return errp && errp->kind ? -1
                                  : ms_err (errp, MS_ERR_INPUT,
                                            "%s: start_time, end_time and "
                                            "runtime_s are required",
                                            name);
    if (r->start_time < 0 || r->start_time > 1e11
        || r->end_time < r->start_time || r->end_time > 1e11
        || r->runtime_s < 0 || r->runtime_s >= 1e9)
        return ms_err (errp, MS_ERR_INPUT, "%s: times out of range", name);
    if (spool_rec_get_double (s, "pkg_energy_j", &r->pkg_energy_j, errp) < 0
        || spool_rec_get_double (s, "dram_energy_j", &r->dram_energy_j, errp) < 0
        || spool_rec_get_double (s, "avg_power_w", &r->avg_power_w, errp) < 0
        || spool_rec_get_double (s, "cpi", &r->cpi, errp) < 0
        || spool_rec_get_double (s, "tpi", &r->tpi, errp) < 0)
        return -1;
    if ((spool_rec_get (s, "pkg_energy_j") && r->pkg_energy_j < 0)
        || (spool_rec_get (s, "dram_energy_j") && r->dram_energy_j < 0)
        || (spool_rec_get (s, "avg_power_w") && r->avg_power_w < 0)
        || (spool_rec_get (s, "cpi") && r->cpi <= 0)
        || (spool_rec_get (s, "tpi") && r->tpi < 0))
        return ms_err (errp, MS_ERR_INPUT, "%s: negative energy or counters",
                       name);
    if (spool_rec_get_i64 (s, "cycles", &r->cycles, errp) < 0
        || spool_rec_get_i64 (s, "instructions", &r->instructions, errp) < 0
        || spool_rec_get_i64 (s, "mem_transactions", &r->mem_transactions,
                              errp) < 0)
        return -1;
    if ((spool_rec_get (s, "cycles") && r->cycles < 0)
        || (spool_rec_get (s, "instructions") && r->instructions < 0)
        || (spool_rec_get (s, "mem_transactions") && r->mem_transactions < 0))
        return ms_err (errp, MS_ERR_INPUT, "%s: negative counter", name);
    switch (spool_rec_get_i64 (s, "exit_code", &i, errp)) {
    case -1:
        return -1;
    case 1:
        if (i < -1 || i > 255)
            return ms_err (errp, MS_ERR_INPUT, "%s: exit_code: out of range",
                           name);
        r->has_exit_code = true;
        r->exit_code = (int)i;
    }
    switch (spool_rec_get_double (s, "reported_runtime_s",
                                  &r->reported_runtime_s, errp)) {
    case -1:
        return -1;
    case 1:
        if (!(r->reported_runtime_s >= 0 && r->reported_runtime_s < 1e9))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s: reported_runtime_s: out of range", name);
        break;
    default:
        r->reported_runtime_s = -1;
    }
    if (get_name (s, "user_reported", r->user_reported,
                  sizeof (r->user_reported), false, errp)
        < 0)
        return -1;
    if (!collect_user_reported_ok (r->user_reported))
        return ms_err (errp, MS_ERR_INPUT, "%s: user_reported: '%s'", name,
                       r->user_reported);
    if ((v = spool_rec_get (s, "exclusive"))) {
        if (!strcmp (v, "true"))
            r->exclusive = 1;
        else if (!strcmp (v, "false"))
            r->exclusive = 0;
        else
            return ms_err (errp, MS_ERR_INPUT, "%s: exclusive: '%s'", name, v);
    }
    /* a component of a heterogeneous job (Slurm's record of the job) */
    return het_from_rec (s, name, r, errp);
}

/* The columns a row may name as the user's (0012_job_runs_reported.sql),
 * comma-separated, each once at most. */
bool
collect_user_reported_ok (const char *list)
{
    static const char *const names[]
        = { "app", "counters", "exit_code", "freq_req_khz", "energy" };
    bool seen[sizeof (names) / sizeof (names[0])] = { false };
    const char *p = list;

    while (*p) {
        size_t n = strcspn (p, ","), k;
        for (k = 0; k < sizeof (names) / sizeof (names[0]); k++)
            if (strlen (names[k]) == n && !strncmp (p, names[k], n))
                break;
        if (k == sizeof (names) / sizeof (names[0]) || seen[k])
            return false;
        seen[k] = true;
        p += n;
        if (*p == ',' && !*++p)
            return false;
    }
    return true;
}
