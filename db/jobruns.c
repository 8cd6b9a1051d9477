/* jobruns.c - inserting measured runs (job_runs) in batches.
 *
 * Rows go in as multi-row INSERTs of up to JOBRUNS_BATCH rows, all values
 * as parameters; ON CONFLICT DO NOTHING makes a re-sent row (a spool file
 * flushed twice, an epilog retried) a no-op, which is what gives
 * "exactly once" with the collector role's INSERT-only privilege.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/common/util.h"

#define JOBRUNS_COLS 32
#define JOBRUNS_BATCH 100

void
db_job_run_init (db_job_run_t *r)
{
    memset (r, 0, sizeof (*r));
    r->uid = -1;
    r->nodes = 1;
    r->pkg_energy_j = r->dram_energy_j = r->avg_power_w = -1;
    r->cycles = r->instructions = r->mem_transactions = -1;
    r->cpi = 0;
    r->tpi = -1;
    strcpy (r->counters_json, "{}");
    r->exclusive = -1;
    strcpy (r->source, "root-measured");
    r->reported_runtime_s = -1;
}

/* The value expression of each column: prefix, $n, suffix. */
static const char *const colexpr[JOBRUNS_COLS][2] = {
    { "", "" },
    { "", "" },
    { "", "::bigint" },
    { "", "" },
    { "", "" },
    { "", "" },
    { "", "::integer" },
    { "", "::integer" },
    { "", "::integer" },
    { "", "::integer" },
    { "to_timestamp (", "::double precision)" },
    { "to_timestamp (", "::double precision)" },
    { "", "::double precision" },
    { "", "::double precision" },
    { "", "::double precision" },
    { "", "::double precision" },
    { "", "::bigint" },
    { "", "::bigint" },
    { "", "::bigint" },
    { "", "::double precision" },
    { "", "::double precision" },
    { "", "::jsonb" },
    { "coalesce (string_to_array (nullif (", ", ''), ','), '{}')" },
    { "coalesce (string_to_array (nullif (", ", ''), ','), '{}')" },
    { "", "::integer" },
    { "", "::boolean" },
    { "", "" },
    { "", "" },
    { "", "::double precision" },
    { "coalesce (string_to_array (nullif (", ", ''), ','), '{}')" },
    { "", "::bigint" },
    { "", "::integer" },
};

static char *
insert_sql (size_t rows)
{
    size_t cap = 1024 + rows * JOBRUNS_COLS * 64, len;
    char *sql = ms_xmalloc (cap);
    int p = 1;

    len = (size_t)snprintf (
        sql, cap,
        "INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app,"
        " user_name, uid, nodes, freq_req_khz, freq_obs_khz, start_time,"
        " end_time, runtime_s, pkg_energy_j, dram_energy_j, avg_power_w,"
        " cycles, instructions, mem_transactions, cpi, tpi, counters,"
        " events_used, events_unavailable, exit_code, exclusive, source,"
        " collector_version, reported_runtime_s, user_reported, het_job_id,"
        " het_job_offset) VALUES ");
    for (size_t r = 0; r < rows; r++) {
        len += (size_t)snprintf (sql + len, cap - len, "%s(", r ? ", " : "");
        for (int c = 0; c < JOBRUNS_COLS; c++) {
            len += (size_t)snprintf (sql + len, cap - len, "%s%s$%d%s",
                                     c ? ", " : "", colexpr[c][0], p++,
                                     colexpr[c][1]);
        }
        len += (size_t)snprintf (sql + len, cap - len, ")");
    }
    snprintf (sql + len, cap - len, " ON CONFLICT DO NOTHING");
    return sql;
}

/* Text of row r's parameters into vals (storage in buf). */
static void
row_params (const db_job_run_t *r, const char **vals, char (*buf)[40])
{
    int i = 0;
#define NUM(cond, fmt, v)                                                     \
    do {                                                                      \
        if (cond) {                                                           \
            snprintf (buf[i], sizeof (buf[i]), fmt, v);                       \
            vals[i] = buf[i];                                                 \
        } else                                                                \
            vals[i] = NULL;                                                   \
        i++;                                                                  \
    } while (0)
    vals[i++] = r->cluster;
    vals[i++] = r->partition;
    NUM (1, "%llu", (unsigned long long)r->slurm_job_id);
    vals[i++] = r->node;
    vals[i++] = r->app[0] ? r->app : "unknown";
    vals[i++] = r->user_name;
    NUM (r->uid >= 0, "%ld", r->uid);
    NUM (1, "%d", r->nodes);
    NUM (r->freq_req_khz > 0, "%u", r->freq_req_khz);
    NUM (r->freq_obs_khz > 0, "%u", r->freq_obs_khz);
    NUM (1, "%.6f", r->start_time);
    NUM (1, "%.6f", r->end_time);
    NUM (1, "%.6f", r->runtime_s);
    NUM (r->pkg_energy_j >= 0, "%.6f", r->pkg_energy_j);
    NUM (r->dram_energy_j >= 0, "%.6f", r->dram_energy_j);
    NUM (r->avg_power_w >= 0, "%.6f", r->avg_power_w);
    NUM (r->cycles >= 0, "%lld", (long long)r->cycles);
    NUM (r->instructions >= 0, "%lld", (long long)r->instructions);
    NUM (r->mem_transactions >= 0, "%lld", (long long)r->mem_transactions);
    NUM (r->cpi > 0, "%.9g", r->cpi);
    NUM (r->tpi >= 0, "%.9g", r->tpi);
    vals[i++] = r->counters_json[0] ? r->counters_json : "{}";
    vals[i++] = r->events_used;
    vals[i++] = r->events_unavailable;
    NUM (r->has_exit_code, "%d", r->exit_code);
    vals[i++] = r->exclusive < 0 ? NULL : r->exclusive ? "true" : "false";
    vals[i++] = r->source;
    vals[i++] = r->collector_version;
    NUM (r->reported_runtime_s >= 0, "%.6f", r->reported_runtime_s);
    vals[i++] = r->user_reported;
    NUM (r->het_job_id > 0, "%llu", (unsigned long long)r->het_job_id);
    NUM (r->het_job_id > 0, "%d", r->het_job_offset);
#undef NUM
}

int
db_job_runs_insert (db_t *db, const db_job_run_t *runs, size_t n,
                    size_t *inserted, ms_error_t *errp)
{
    const char **vals = ms_xmalloc (sizeof (*vals) * JOBRUNS_COLS
                                    * JOBRUNS_BATCH);
    char (*buf)[40] = ms_xmalloc (sizeof (*buf) * JOBRUNS_COLS * JOBRUNS_BATCH);
    size_t done = 0, total = 0;
    int rc = -1;

    if (db_begin (db, errp) < 0)
        goto out;
    while (done < n) {
        size_t k = n - done > JOBRUNS_BATCH ? JOBRUNS_BATCH : n - done;
        char name[48], *sql;
        long affected = 0;

        for (size_t r = 0; r < k; r++)
            row_params (&runs[done + r], vals + r * JOBRUNS_COLS,
                        buf + r * JOBRUNS_COLS);
        snprintf (name, sizeof (name), "job_runs_insert_%zu", k);
        sql = insert_sql (k);
        if (db_command (db, name, sql, (int)(k * JOBRUNS_COLS), vals,
                        &affected, errp) < 0) {
            free (sql);
            db_rollback (db);
            goto out;
        }
        free (sql);
        total += (size_t)affected;
        done += k;
    }
    if (db_commit (db, errp) < 0)
        goto out;
    if (inserted)
        *inserted = total;
    rc = 0;
out:
    free (vals);
    free (buf);
    return rc;
}
