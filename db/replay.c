/* replay.c - the site's history as a workload: every measured job with
 * its submit time, size, runtime, energy and the place it ran (db.h
 * db_replay_load; `metasched simulate --from-db`). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/common/util.h"

int
db_replay_load (db_t *db, double since, db_replay_job_t **jobsp, size_t *np,
                ms_error_t *errp)
{
    char ssince[64];
    const char *p[1] = { ssince };
    PGresult *res;
    db_replay_job_t *jobs;
    int n;

    snprintf (ssince, sizeof (ssince), "%.3f", since);
    /* A job dispatched by metasched is the meta job whose chosen cluster
     * job it is (its submitted_at is when the user submitted); a job
     * submitted to a cluster directly has only its runs, and counts as
     * submitted when it started. The user's limit is the one they gave
     * (user_time_limit_min), not the one scaled for the partition. The
     * components of a heterogeneous job (job_runs.het_job_id, migration
     * 0024) are one job, as submitted and as metasched routes it: under
     * its first component's id, partition, app and user, their nodes and
     * energy summed, from the first start to the last end (Slurm starts
     * them together). */
    res = db_exec (
        db, "replay_load",
        "WITH c AS (SELECT t.cluster,"
        "   (array_agg (t.partition ORDER BY t.het_job_offset NULLS FIRST))[1]"
        "     AS partition,"
        "   (array_agg (t.app ORDER BY t.het_job_offset NULLS FIRST))[1] AS "
        "app,"
        "   (array_agg (t.user_name ORDER BY t.het_job_offset NULLS FIRST))[1]"
        "     AS user_name,"
        "   coalesce (t.het_job_id, t.slurm_job_id) AS slurm_job_id,"
        "   min (t.start_time) AS start_time, max (t.end_time) AS end_time,"
        "   sum (t.nodes)::integer AS nodes,"
        "   sum (t.node_rows)::integer AS node_rows,"
        "   max (t.freq_req_khz) AS freq_req_khz, max (t.runtime_s) AS "
        "runtime_s,"
        "   sum (coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0))"
        "     AS energy_j, count (*) AS components,"
        "   json_agg (json_build_array (t.partition, t.nodes)"
        "     ORDER BY t.het_job_offset NULLS FIRST)::text AS comps"
        "  FROM job_run_totals t"
        "  WHERE t.end_time >= to_timestamp ($1::float8) AND t.runtime_s > 0"
        "  GROUP BY t.cluster, coalesce (t.het_job_id, t.slurm_job_id))"
        "SELECT t.cluster, t.partition, t.app, t.user_name, t.slurm_job_id,"
        " coalesce (j.id, 0),"
        " extract (epoch FROM coalesce (j.submitted_at, t.start_time)),"
        " extract (epoch FROM t.start_time), extract (epoch FROM t.end_time),"
        " t.nodes, t.node_rows, coalesce (t.freq_req_khz, 0), t.runtime_s,"
        " t.energy_j,"
        " 60.0 * coalesce (j.user_time_limit_min, j.time_limit_min, 0),"
        " t.components, o.options::text, t.comps"
        " FROM c t LEFT JOIN jobs j"
        "   ON j.cluster = t.cluster AND j.cluster_job_id = t.slurm_job_id"
        " LEFT JOIN job_options o ON o.id = j.id"
        " ORDER BY 7, 8, t.cluster, t.slurm_job_id",
        1, p, errp);
    if (!res)
        return -1;
    n = PQntuples (res);
    jobs = ms_xcalloc ((size_t)n + 1, sizeof (*jobs));
    for (int i = 0; i < n; i++) {
        db_replay_job_t *x = &jobs[i];
        ms_strlcpy (x->cluster, PQgetvalue (res, i, 0), sizeof (x->cluster));
        ms_strlcpy (x->partition, PQgetvalue (res, i, 1),
                    sizeof (x->partition));
        ms_strlcpy (x->app, PQgetvalue (res, i, 2), sizeof (x->app));
        ms_strlcpy (x->user_name, PQgetvalue (res, i, 3),
                    sizeof (x->user_name));
        x->slurm_job_id = strtoull (PQgetvalue (res, i, 4), NULL, 10);
        x->meta_id = strtoll (PQgetvalue (res, i, 5), NULL, 10);
        x->submit = atof (PQgetvalue (res, i, 6));
        x->start = atof (PQgetvalue (res, i, 7));
        x->end = atof (PQgetvalue (res, i, 8));
        x->nodes = atoi (PQgetvalue (res, i, 9));
        x->node_rows = atoi (PQgetvalue (res, i, 10));
        x->freq_khz = (uint32_t)strtoul (PQgetvalue (res, i, 11), NULL, 10);
        x->runtime_s = atof (PQgetvalue (res, i, 12));
        x->energy_j = atof (PQgetvalue (res, i, 13));
        x->limit_s = atof (PQgetvalue (res, i, 14));
        x->components = atoi (PQgetvalue (res, i, 15));
        if (!PQgetisnull (res, i, 16))
            x->options = ms_xstrdup (PQgetvalue (res, i, 16));
        if (x->components > 1)
            x->comps = ms_xstrdup (PQgetvalue (res, i, 17));
        if (x->submit > x->start)
            x->submit = x->start;
    }
    PQclear (res);
    *jobsp = jobs;
    *np = (size_t)n;
    return 0;
}

void
db_replay_free (db_replay_job_t *jobs, size_t n)
{
    if (!jobs)
        return;
    for (size_t i = 0; i < n; i++) {
        free (jobs[i].options);
        free (jobs[i].comps);
    }
    free (jobs);
}

int
db_replay_decided (db_t *db, double before, size_t max,
                   db_decided_job_t **jobsp, size_t *np, ms_error_t *errp)
{
    char sb[64], sm[32];
    const char *p[2] = { sb, sm };
    PGresult *res;
    db_decided_job_t *jobs;
    int n;

    snprintf (sb, sizeof (sb), "%.6f", before > 0 ? before : 0);
    snprintf (sm, sizeof (sm), "%zu", max);
    /* the user's own limit (user_time_limit_min), as the decision had it */
    res = db_exec (
        db, "replay_decided",
        /* the options through job_options (migration 0013): without the
         * environment, which the report role may not read */
        "SELECT * FROM (SELECT j.id, coalesce (j.app, ''), j.nodes,"
        " coalesce (j.user_time_limit_min, j.time_limit_min, 0),"
        " extract (epoch FROM j.submitted_at), o.options::text, j.owner_name,"
        " coalesce (extract (epoch FROM j.started_at), 0),"
        " coalesce (extract (epoch FROM j.finished_at), 0),"
        " extract (epoch FROM greatest (j.submitted_at, CASE WHEN jsonb_typeof"
        "   (o.options->'begin_time') = 'number' THEN to_timestamp"
        "   ((o.options->>'begin_time')::float8) END)),"
        " j.state IN ('queued', 'deciding', 'dispatching', 'submitted',"
        "  'running')"
        " FROM jobs j JOIN job_options o ON o.id = j.id"
        " WHERE EXISTS (SELECT 1 FROM decisions WHERE decisions.job_id = j.id)"
        " AND ($1::float8 <= 0 OR j.submitted_at < to_timestamp ($1::float8))"
        " ORDER BY j.id DESC LIMIT $2::integer) AS recent ORDER BY id",
        2, p, errp);
    if (!res)
        return -1;
    n = PQntuples (res);
    jobs = ms_xcalloc ((size_t)n + 1, sizeof (*jobs));
    for (int i = 0; i < n; i++) {
        db_decided_job_t *x = &jobs[i];
        ms_strlcpy (x->app, PQgetvalue (res, i, 1), sizeof (x->app));
        x->nodes = atoi (PQgetvalue (res, i, 2));
        x->limit_min = (uint32_t)strtoul (PQgetvalue (res, i, 3), NULL, 10);
        x->submit = atof (PQgetvalue (res, i, 4));
        x->options = ms_xstrdup (PQgetvalue (res, i, 5));
        ms_strlcpy (x->owner, PQgetvalue (res, i, 6), sizeof (x->owner));
        x->started = atof (PQgetvalue (res, i, 7));
        x->finished = atof (PQgetvalue (res, i, 8));
        x->eligible = atof (PQgetvalue (res, i, 9));
        x->id = strtoll (PQgetvalue (res, i, 0), NULL, 10);
        x->in_queue = PQgetvalue (res, i, 10)[0] == 't';
    }
    PQclear (res);
    *jobsp = jobs;
    *np = (size_t)n;
    return 0;
}

void
db_decided_free (db_decided_job_t *jobs, size_t n)
{
    for (size_t i = 0; jobs && i < n; i++)
        free (jobs[i].options);
    free (jobs);
}
