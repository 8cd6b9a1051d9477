/* jobs.c - the jobs table as the API sees it (jobs.h). Every statement is
 * parameterized; jobs are rendered to JSON by the server (json_build_object)
 * so the shape lives in one place, JOB_JSON below. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "db/jobs.h"
#include "metasched/common/util.h"

/* A job as doc/api.md shows it; measured figures from the collectors'
 * totals of the cluster job it ran as (of an array: its tasks, the
 * longest task's time and the sum of their energy); a moldable job's
 * nodes those its latest decision chose (its minimum until then); its
 * notes the hints that the chosen cluster's Slurm drops (its latest
 * decision's chosen candidate's). */
#define JOB_JSON                                                               \
    "json_build_object ("                                                      \
    " 'id', j.id, 'owner', j.owner_name, 'uid', j.owner_uid,"                  \
    " 'gid', j.owner_gid, 'name', j.name, 'app', j.app, 'state', j.state,"     \
    " 'cluster', j.cluster, 'partition', j.partition,"                         \
    " 'freq_khz', j.freq_khz, 'cluster_job_id', j.cluster_job_id,"             \
    " 'nodes', CASE WHEN j.options ? 'nodes_max' THEN coalesce ("             \
    "   (SELECT (c->>'nodes')::int FROM decisions d,"                          \
    "     json_array_elements (d.candidates::json) c WHERE d.job_id = j.id"    \
    "     AND (c->>'chosen')::boolean ORDER BY d.id DESC LIMIT 1), j.nodes)"   \
    "   ELSE j.nodes END,"                                                     \
    " 'notes', (SELECT c->'notes' FROM (SELECT d.candidates FROM decisions d" \
    "   WHERE d.job_id = j.id ORDER BY d.id DESC LIMIT 1) l,"                 \
    "   json_array_elements (CASE WHEN strpos (l.candidates::text, '\"notes\"')" \
    "   > 0 THEN l.candidates::json ELSE '[]'::json END) c"                   \
    "   WHERE (c->>'chosen')::boolean),"                                       \
    " 'time_limit_min', j.time_limit_min,"                                     \
    " 'predicted_time_s', j.predicted_time_s,"                                 \
    " 'predicted_energy_j', j.predicted_energy_j,"                             \
    " 'predicted_wait_s', j.predicted_wait_s,"                                 \
    " 'measured_time_s', m.runtime_s, 'measured_energy_j', m.energy_j,"        \
    " 'attempts', j.attempts, 'reroutes', j.reroutes,"                         \
    " 'refusals', j.refusals,"                                                 \
    " 'copies', coalesce ((SELECT json_agg (json_build_object ("               \
    "   'dispatch', c.attempt, 'cluster', c.cluster,"                          \
    "   'partition', c.partition, 'cluster_job_id', c.cluster_job_id,"         \
    "   'rank', c.rank, 'state', c.state) ORDER BY c.attempt, c.rank)"         \
    "   FROM job_submissions c WHERE c.job_id = j.id), '[]'::json),"           \
    " 'last_error', j.last_error, 'exit_code', j.exit_code,"                   \
    " 'claimed_cluster', j.claimed_cluster,"                                   \
    " 'claimed_job_id', j.claimed_job_id,"                                     \
    " 'held', j.held, 'dependency', j.options->>'dependency',"                 \
    " 'array', j.options->>'array',"                                          \
    " 'het_components', CASE WHEN jsonb_typeof (j.options->'components')"     \
    "   = 'array' THEN jsonb_array_length (j.options->'components') + 1 END,"  \
    " 'tasks', CASE WHEN j.options ? 'array' THEN coalesce ((SELECT"             \
    "   json_agg (json_build_object ('task_id', t.task_id,"                    \
    "   'state', t.state, 'cluster', t.cluster,"                               \
    "   'cluster_job_id', t.cluster_job_id, 'exit_code', t.exit_code,"         \
    "   'reason', t.reason, 'started_at', to_char (t.started_at AT TIME ZONE"  \
    "   'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'ended_at',"                  \
    "   to_char (t.ended_at AT TIME ZONE 'UTC',"                              \
    "   'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')) ORDER BY t.task_id)"                \
    "   FROM job_tasks t WHERE t.job_id = j.id), '[]'::json) END,"             \
    " 'started_at', to_char (j.started_at AT TIME ZONE 'UTC',"                 \
    "   'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"                                    \
    " 'submitted_at', to_char (j.submitted_at AT TIME ZONE 'UTC',"             \
    "   'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"                                    \
    " 'updated_at', to_char (j.updated_at AT TIME ZONE 'UTC',"                 \
    "   'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"                                    \
    " 'finished_at', to_char (j.finished_at AT TIME ZONE 'UTC',"               \
    "   'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'))::text"

#define JOB_MEASURED                                                           \
    " LEFT JOIN LATERAL ("                                                     \
    "  SELECT max (t.runtime_s) AS runtime_s,"                                 \
    "   CASE WHEN count (t.pkg_energy_j) + count (t.dram_energy_j) = 0"        \
    "    THEN NULL ELSE coalesce (sum (t.pkg_energy_j), 0)"                    \
    "     + coalesce (sum (t.dram_energy_j), 0) END AS energy_j"               \
    "  FROM job_run_totals t"                                                  \
    "  WHERE t.cluster = j.cluster AND (t.slurm_job_id = j.cluster_job_id"     \
    "   OR t.slurm_job_id IN (SELECT a.cluster_job_id FROM job_tasks a"        \
    "    WHERE a.job_id = j.id AND a.cluster = j.cluster))"                    \
    "  HAVING count (*) > 0) m ON true"

#define FINAL_STATES "('completed', 'failed', 'cancelled')"

static int
missing (ms_error_t *errp, int64_t id)
{
    /* the same answer for a job that does not exist and for another
     * user's: an id reveals nothing (doc/api.md "Errors") */
    (void)id;
    ms_err (errp, MS_ERR_MISSING, "no such job");
    if (errp)
        errp->http_status = 404;
    return -1;
}

/* A statement on job id for user uid: $1 is the id, $2 the uid, and the
 * caller's n values (at most two; NULL: SQL NULL) follow. On an error errp
 * says what it was doing to which job ("reading job 7"). */
static PGresult *
user_job_exec (db_t *db, const char *name, const char *sql, int64_t id,
               long uid, int n, const char *const *rest, const char *doing,
               ms_error_t *errp)
{
    char sid[24], suid[24];
    const char *p[4] = { sid, suid };
    PGresult *res;

    snprintf (sid, sizeof (sid), "%" PRId64, id);
    snprintf (suid, sizeof (suid), "%ld", uid);
    for (int i = 0; i < n; i++)
        p[i + 2] = rest[i];
    res = db_exec (db, name, sql, n + 2, p, errp);
    if (!res)
        ms_err_prefix (errp, "%s job %" PRId64, doing, id);
    return res;
}

/* A key for a submission that came without one (an older client): random,
 * so that this layer's own retry after a lost connection (db_exec) finds
 * the row its first try may have stored rather than storing a second. */
static void
server_key (char key[APIREQ_KEY_MAX + 1])
{
    unsigned char b[16];
    size_t got = 0;

    while (got < sizeof (b)) {
        ssize_t n = getrandom (b + got, sizeof (b) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) { /* no entropy call: time and pid, unique enough here */
            struct timespec ts;
            clock_gettime (CLOCK_REALTIME, &ts);
            snprintf (key, APIREQ_KEY_MAX + 1, "s-%lx-%lx-%x",
                      (unsigned long)ts.tv_sec, (unsigned long)ts.tv_nsec,
                      (unsigned)getpid ());
            return;
        }
        got += (size_t)n;
    }
    memcpy (key, "s-", 2);
    for (size_t i = 0; i < sizeof (b); i++)
        snprintf (key + 2 + 2 * i, 3, "%02x", b[i]);
}

int
db_jobs_insert (db_t *db, uid_t uid, gid_t gid, const char *owner,
                const ms_apireq_t *req, int64_t *idp, ms_error_t *errp)
{
    return db_jobs_submit (db, uid, gid, owner, req, idp, NULL, errp);
}

int
db_jobs_submit (db_t *db, uid_t uid, gid_t gid, const char *owner,
                const ms_apireq_t *req, int64_t *idp, bool *replayedp,
                ms_error_t *errp)
{
    char suid[24], sgid[24], snodes[24], slimit[24], key[APIREQ_KEY_MAX + 1];
    char *options = apireq_options_json (req);
    const char *p[10];
    PGresult *res;

    if (!options)
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    if (req->submit_key[0])
        ms_strlcpy (key, req->submit_key, sizeof (key));
    else
        server_key (key);
    snprintf (suid, sizeof (suid), "%ld", (long)uid);
    snprintf (sgid, sizeof (sgid), "%ld", (long)gid);
    snprintf (snodes, sizeof (snodes), "%d", req->nodes);
    snprintf (slimit, sizeof (slimit), "%" PRIu32, req->time_limit_min);
    p[0] = suid;
    p[1] = sgid;
    p[2] = owner;
    p[3] = req->name[0] ? req->name : NULL;
    p[4] = req->app[0] ? req->app : NULL;
    p[5] = req->script;
    p[6] = options;
    p[7] = snodes;
    p[8] = req->time_limit_min ? slimit : NULL;
    p[9] = key;
    /* one statement, so that a lost connection retries it whole
     * (db_exec); a row of this user's key already there (an earlier try
     * of the same submission, committed though its answer was lost) is
     * found, not doubled */
    res = db_exec (db, "jobs_insert_keyed",
                   "WITH n AS (INSERT INTO jobs (owner_uid, owner_gid,"
                   " owner_name, name, app, script, options, nodes,"
                   " time_limit_min, held, submit_key)"
                   " VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9,"
                   " CASE WHEN $7::jsonb ? 'dependency' THEN 'Dependency'"
                   " END, $10)"
                   " ON CONFLICT (owner_uid, submit_key)"
                   " WHERE submit_key IS NOT NULL DO NOTHING"
                   " RETURNING id)"
                   " SELECT id, false FROM n UNION ALL"
                   " SELECT id, true FROM jobs WHERE owner_uid = $1"
                   " AND submit_key = $10 AND NOT EXISTS (SELECT FROM n)",
                   10, p, errp);
    free (options);
    if (!res)
        return ms_err_prefix (errp, "storing the job");
    if (PQntuples (res) != 1) {
        PQclear (res);
        /* the key's row is another statement's, committed after this
         * one's snapshot (the same submission sent twice at once): the
         * client sends it again and finds the job (503, Retry-After) */
        ms_err (errp, MS_ERR_DB,
                "storing the job: another request of submit_key %s was "
                "stored at the same time; send it again",
                key);
        if (errp)
            errp->http_status = 503;
        return -1;
    }
    *idp = strtoll (PQgetvalue (res, 0, 0), NULL, 10);
    if (replayedp)
        *replayedp = PQgetvalue (res, 0, 1)[0] == 't';
    PQclear (res);
    return 0;
}

/* Parse the JSON text of column 0 of row i. */
static json_t *
row_json (PGresult *res, int i, ms_error_t *errp)
{
    json_error_t je;
    json_t *o = json_loads (PQgetvalue (res, i, 0), 0, &je);

    if (!o)
        ms_err (errp, MS_ERR_PROTOCOL, "job row %d: %s", i, je.text);
    return o;
}

int
db_jobs_list (db_t *db, long uid, const char *states, int limit, json_t **outp,
              ms_error_t *errp)
{
    char suid[24], slimit[24];
    const char *p[3];
    json_t *arr, *o;
    PGresult *res;
    int i;

    snprintf (suid, sizeof (suid), "%ld", uid);
    snprintf (slimit, sizeof (slimit), "%d", limit > 0 ? limit : 1000);
    p[0] = suid;
    p[1] = states && states[0] ? states : NULL;
    p[2] = slimit;
    res = db_exec (db, "jobs_list",
                   "SELECT " JOB_JSON " FROM jobs j" JOB_MEASURED
                   " WHERE ($1::bigint = -1 OR j.owner_uid = $1::bigint)"
                   "  AND ($2::text IS NULL OR j.state::text"
                   "       = ANY (string_to_array ($2::text, ',')))"
                   " ORDER BY j.id DESC LIMIT $3::int",
                   3, p, errp);
    if (!res)
        return ms_err_prefix (errp, "listing jobs");
    arr = json_array ();
    for (i = 0; i < PQntuples (res); i++) {
        if (!(o = row_json (res, i, errp))) {
            json_decref (arr);
            PQclear (res);
            return -1;
        }
        json_array_append_new (arr, o);
    }
    PQclear (res);
    *outp = json_pack ("{s:o}", "jobs", arr);
    return 0;
}

int
db_jobs_get (db_t *db, int64_t id, long uid, json_t **outp, ms_error_t *errp)
{
    PGresult *res;

    res = user_job_exec (db, "jobs_get",
                         "SELECT " JOB_JSON " FROM jobs j" JOB_MEASURED
                         " WHERE j.id = $1::bigint"
                         "  AND ($2::bigint = -1 OR j.owner_uid = $2::bigint)",
                         id, uid, 0, NULL, "reading", errp);
    if (!res)
        return -1;
    if (PQntuples (res) == 0) {
        PQclear (res);
        return missing (errp, id);
    }
    *outp = row_json (res, 0, errp);
    PQclear (res);
    return *outp ? 0 : -1;
}

int
db_jobs_cancel (db_t *db, int64_t id, long uid, char statep[16],
                ms_error_t *errp)
{
    PGresult *res;

    /* One statement: the row lock makes a concurrent end or cancel either
     * happen before (we see a final state) or after (it sees cancelled). */
    res = user_job_exec (
        db, "jobs_cancel",
        "WITH v AS (SELECT id, state FROM jobs"
        "  WHERE id = $1::bigint"
        "   AND ($2::bigint = -1 OR owner_uid = $2::bigint)"
        "  FOR UPDATE),"
        " u AS (UPDATE jobs SET state = 'cancelled',"
        "   finished_at = coalesce (finished_at, now ())"
        "  WHERE id = (SELECT id FROM v)"
        "   AND state NOT IN " FINAL_STATES " RETURNING id)"
        " SELECT v.state::text, (SELECT count (*) FROM u) FROM v",
        id, uid, 0, NULL, "cancelling", errp);
    if (!res)
        return -1;
    if (PQntuples (res) == 0) {
        PQclear (res);
        return missing (errp, id);
    }
    if (statep)
        snprintf (statep, 16, "%s", PQgetvalue (res, 0, 0));
    if (strcmp (PQgetvalue (res, 0, 1), "0") == 0) {
        ms_err (errp, MS_ERR_INPUT, "job %" PRId64 " already ended (%s)", id,
                PQgetvalue (res, 0, 0));
        if (errp)
            errp->http_status = 409;
        PQclear (res);
        return -1;
    }
    if (statep)
        snprintf (statep, 16, "cancelled");
    PQclear (res);
    return 0;
}

int
db_jobs_resolve (db_t *db, int64_t id, const char *state, int exit_code,
                 const char *admin, const char *reason, char statep[16],
                 ms_error_t *errp)
{
    char sid[24], sec[16];
    const char *p[5] = { sid, state, exit_code >= 0 ? sec : NULL, admin,
                         reason && *reason ? reason : NULL };
    PGresult *res;

    snprintf (sid, sizeof (sid), "%" PRId64, id);
    snprintf (sec, sizeof (sec), "%d", exit_code);
    /* One statement: the row lock orders it with the daemon's own moves;
     * the audit row and the submissions go with the job's row or not at
     * all. */
    res = db_exec (
        db, "jobs_resolve",
        "WITH v AS (SELECT id, state::text AS state, last_error FROM jobs"
        "  WHERE id = $1::bigint FOR UPDATE),"
        " u AS (UPDATE jobs j SET state = $2::job_state,"
        "   exit_code = $3::integer, finished_at = now (), resolved_by = $4,"
        "   last_error = 'resolved by ' || $4 || ' as ' || $2"
        "    || coalesce (': ' || $5, '')"
        "  FROM v WHERE j.id = v.id AND v.state = 'unknown' RETURNING j.id),"
        " s AS (UPDATE job_submissions SET state = CASE $2"
        "   WHEN 'cancelled' THEN 'cancelled' ELSE 'ended' END,"
        "   ended_at = coalesce (ended_at, now ())"
        "  WHERE job_id IN (SELECT id FROM u) AND state = 'unknown'"
        "  RETURNING 1),"
        " a AS (INSERT INTO job_resolutions"
        "   (job_id, state, exit_code, admin, reason, was)"
        "  SELECT u.id, $2, $3::integer, $4, $5, v.last_error FROM u, v"
        "  RETURNING 1)"
        " SELECT v.state, (SELECT count (*) FROM u), (SELECT count (*) FROM s),"
        "  (SELECT count (*) FROM a) FROM v",
        5, p, errp);
    if (!res)
        return ms_err_prefix (errp, "resolving job %" PRId64, id);
    if (PQntuples (res) == 0) {
        PQclear (res);
        return missing (errp, id);
    }
    if (statep)
        snprintf (statep, 16, "%s", PQgetvalue (res, 0, 0));
    if (strcmp (PQgetvalue (res, 0, 1), "0") == 0) {
        ms_err (errp, MS_ERR_INPUT,
                "job %" PRId64 " is %s, not unknown: only an unknown job is "
                "resolved",
                id, PQgetvalue (res, 0, 0));
        if (errp)
            errp->http_status = 409;
        PQclear (res);
        return -1;
    }
    if (statep)
        snprintf (statep, 16, "%s", state);
    PQclear (res);
    return 0;
}

/* A statement of the claim on job id for user uid by the cluster job
 * cluster_job_id of cluster, which are $3 and $4; its first column counts
 * the user's jobs of that id, and none is "no such job". */
static PGresult *
claim_exec (db_t *db, const char *name, const char *sql, int64_t id, long uid,
            const char *cluster, int64_t cluster_job_id, ms_error_t *errp)
{
    char scj[24];
    const char *p[2] = { cluster, scj };
    PGresult *res;

    snprintf (scj, sizeof (scj), "%" PRId64, cluster_job_id);
    res = user_job_exec (db, name, sql, id, uid, 2, p, "claiming", errp);
    if (res && strcmp (PQgetvalue (res, 0, 0), "0") == 0) {
        PQclear (res);
        missing (errp, id);
        return NULL;
    }
    return res;
}

int
db_jobs_claim (db_t *db, int64_t id, long uid, const char *cluster,
               int64_t cluster_job_id, bool *runp, ms_error_t *errp)
{
    PGresult *res;

    /* The UPDATE wins only while nobody has claimed (or the claimer is this
     * same cluster job); concurrent claimers serialize on the row lock and
     * the loser re-reads the row and finds it claimed. */
    res = claim_exec (
        db, "jobs_claim",
        "WITH v AS (SELECT id FROM jobs WHERE id = $1::bigint"
        "   AND owner_uid = $2::bigint),"
        " u AS (UPDATE jobs SET claimed_cluster = $3::text,"
        "   claimed_job_id = $4::bigint,"
        "   claimed_at = coalesce (claimed_at, now ())"
        "  WHERE id = (SELECT id FROM v)"
        "   AND state NOT IN " FINAL_STATES
        "   AND (claimed_cluster IS NULL OR (claimed_cluster = $3::text"
        "        AND claimed_job_id = $4::bigint)) RETURNING id)"
        " SELECT (SELECT count (*) FROM v), (SELECT count (*) FROM u)",
        id, uid, cluster, cluster_job_id, errp);
    if (!res)
        return -1;
    *runp = strcmp (PQgetvalue (res, 0, 1), "0") != 0;
    PQclear (res);
    return 0;
}

int
db_jobs_is_submission (db_t *db, int64_t id, long uid, const char *cluster,
                       int64_t cluster_job_id, bool *isp, bool *openp,
                       ms_error_t *errp)
{
    PGresult *res;

    res = claim_exec (
        db, "jobs_is_submission",
        "SELECT (SELECT count (*) FROM jobs WHERE id = $1::bigint"
        "   AND owner_uid = $2::bigint),"
        " (SELECT count (*) FROM job_submissions WHERE job_id = $1::bigint"
        "   AND cluster = $3::text AND cluster_job_id = $4::bigint),"
        " (SELECT count (*) FROM jobs WHERE id = $1::bigint"
        "   AND state NOT IN " FINAL_STATES " AND claimed_cluster IS NULL)",
        id, uid, cluster, cluster_job_id, errp);
    if (!res)
        return -1;
    *isp = strcmp (PQgetvalue (res, 0, 1), "0") != 0;
    *openp = strcmp (PQgetvalue (res, 0, 2), "0") != 0;
    PQclear (res);
    return 0;
}

int
db_jobs_waiting (db_t *db, uid_t uid, long queued_cap, long held_cap,
                 long *queued, long *held, ms_error_t *errp)
{
    char suid[24], sq[24], sh[24];
    const char *p[3] = { suid, sq, sh };
    PGresult *res;

    snprintf (suid, sizeof (suid), "%ld", (long)uid);
    snprintf (sq, sizeof (sq), "%ld", queued_cap > 0 ? queued_cap : 0);
    snprintf (sh, sizeof (sh), "%ld", held_cap > 0 ? held_cap : 0);
    /* the live states again, so that the partial index of the user's live
     * jobs (jobs_owner_name, migration 0006) serves both counts */
    res = db_exec (db, "jobs_waiting",
                   "SELECT (SELECT count (*) FROM (SELECT 1 FROM jobs"
                   "  WHERE owner_uid = $1::integer AND held IS NULL"
                   "  AND state IN ('queued', 'deciding', 'dispatching')"
                   "  AND state NOT IN ('completed', 'failed', 'cancelled')"
                   "  LIMIT $2::bigint) q),"
                   " (SELECT count (*) FROM (SELECT 1 FROM jobs"
                   "  WHERE owner_uid = $1::integer AND held IS NOT NULL"
                   "  AND state = 'queued'"
                   "  AND state NOT IN ('completed', 'failed', 'cancelled')"
                   "  LIMIT $3::bigint) h)",
                   3, p, errp);
    if (!res)
        return ms_err_prefix (errp, "counting the user's waiting jobs");
    *queued = atol (PQgetvalue (res, 0, 0));
    *held = atol (PQgetvalue (res, 0, 1));
    PQclear (res);
    return 0;
}

int
db_settings_read (db_t *db, json_t **outp, ms_error_t *errp)
{
    PGresult *res;
    json_t *o;
    int i;

    res = db_exec (db, "settings_read",
                   "SELECT key, value::text FROM settings ORDER BY key", 0,
                   NULL, errp);
    if (!res)
        return ms_err_prefix (errp, "reading settings");
    o = json_object ();
    for (i = 0; i < PQntuples (res); i++) {
        json_t *v = json_loads (PQgetvalue (res, i, 1), JSON_DECODE_ANY, NULL);
        if (v)
            json_object_set_new (o, PQgetvalue (res, i, 0), v);
    }
    PQclear (res);
    *outp = o;
    return 0;
}

int
db_settings_write (db_t *db, const json_t *obj, const char *updated_by,
                   ms_error_t *errp)
{
    const char *key;
    json_t *v;

    if (db_begin (db, errp) < 0)
        return ms_err_prefix (errp, "saving settings");
    json_object_foreach ((json_t *)obj, key, v)
    {
        char *text = json_dumps (v, JSON_ENCODE_ANY | JSON_COMPACT);
        const char *p[3] = { key, text, updated_by };
        int rc;

        if (!text) {
            db_rollback (db);
            return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
        }
        rc = db_command (db, "settings_write",
                         "INSERT INTO settings (key, value, updated_by)"
                         " VALUES ($1, $2::jsonb, $3)"
                         " ON CONFLICT (key) DO UPDATE SET"
                         "  value = EXCLUDED.value, updated_at = now (),"
                         "  updated_by = EXCLUDED.updated_by",
                         3, p, NULL, errp);
        free (text);
        if (rc < 0) {
            db_rollback (db);
            return ms_err_prefix (errp, "saving setting '%s'", key);
        }
    }
    if (db_commit (db, errp) < 0)
        return ms_err_prefix (errp, "saving settings");
    return 0;
}

int
db_jobs_metrics (db_t *db, db_jobs_metrics_t *m, ms_error_t *errp)
{
    PGresult *res;
    int i;

    memset (m, 0, sizeof (*m));
    res = db_exec (db, "jobs_metrics_states",
                   "SELECT s::text, count (j.id)"
                   " FROM unnest (enum_range (NULL::job_state)) s"
                   " LEFT JOIN jobs j ON j.state = s GROUP BY s ORDER BY s",
                   0, NULL, errp);
    if (!res)
        return ms_err_prefix (errp, "counting jobs");
    for (i = 0; i < PQntuples (res) && i < 10; i++) {
        snprintf (m->state[i], sizeof (m->state[i]), "%s",
                  PQgetvalue (res, i, 0));
        m->count[i] = strtol (PQgetvalue (res, i, 1), NULL, 10);
    }
    m->nstates = i;
    PQclear (res);
    res = db_exec (
        db, "jobs_metrics_figures",
        "SELECT (SELECT count (*) FROM job_submissions),"
        " avg (abs (j.predicted_time_s - m.runtime_s) / m.runtime_s)"
        "  FILTER (WHERE j.predicted_time_s IS NOT NULL AND m.runtime_s > 0),"
        " count (*) FILTER (WHERE j.predicted_time_s IS NOT NULL"
        "  AND m.runtime_s > 0),"
        " avg (abs (j.predicted_energy_j - m.energy_j) / m.energy_j)"
        "  FILTER (WHERE j.predicted_energy_j IS NOT NULL AND m.energy_j > 0),"
        " count (*) FILTER (WHERE j.predicted_energy_j IS NOT NULL"
        "  AND m.energy_j > 0),"
        " coalesce (sum (m.energy_j), 0)"
        " FROM jobs j" JOB_MEASURED " WHERE j.cluster_job_id IS NOT NULL",
        0, NULL, errp);
    if (!res)
        return ms_err_prefix (errp, "computing metrics");
    m->dispatches = strtol (PQgetvalue (res, 0, 0), NULL, 10);
    m->time_abs_err
        = PQgetisnull (res, 0, 1) ? NAN : strtod (PQgetvalue (res, 0, 1), NULL);
    m->time_n = strtol (PQgetvalue (res, 0, 2), NULL, 10);
    m->energy_abs_err
        = PQgetisnull (res, 0, 3) ? NAN : strtod (PQgetvalue (res, 0, 3), NULL);
    m->energy_n = strtol (PQgetvalue (res, 0, 4), NULL, 10);
    m->energy_joules = strtod (PQgetvalue (res, 0, 5), NULL);
    PQclear (res);
    return 0;
}
