/* queue.c - the statements of metaschedd's cycle (see queue.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/queue.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"

static void
cp (char *dst, size_t len, PGresult *r, int row, int col)
{
    ms_strlcpy (dst, PQgetisnull (r, row, col) ? "" : PQgetvalue (r, row, col),
                len);
}

static uint64_t
u64 (PGresult *r, int row, int col)
{
    return PQgetisnull (r, row, col)
               ? 0
               : (uint64_t)strtoull (PQgetvalue (r, row, col), NULL, 10);
}

static double
dbl (PGresult *r, int row, int col)
{
    return PQgetisnull (r, row, col) ? 0 : atof (PQgetvalue (r, row, col));
}

/* Reads row i of a result into the element at out. */
typedef void row_fn (PGresult *r, int i, void *out);

/* The rows of r as a new array of elements of `size` bytes, each read by
 * fill, with one zeroed element more so that an empty result is an
 * allocation like any other (the caller frees it); *np gets the number of
 * rows. Clears r. */
static void *
rows (PGresult *r, size_t size, row_fn *fill, size_t *np)
{
    int n = PQntuples (r);
    char *out = ms_xcalloc ((size_t)n + 1, size);

    for (int i = 0; i < n; i++)
        fill (r, i, out + (size_t)i * size);
    *np = (size_t)n;
    PQclear (r);
    return out;
}

/* Most statements of the cycle are on one job: its id is $1 and the
 * caller's n values (NULL: SQL NULL) follow as $2, $3, ...; none takes
 * more than four in all. */
typedef struct {
    char id[32];
    const char *p[4];
} job_params_t;

static const char *const *
job_params (job_params_t *jp, int64_t id, int n, const char *const *rest)
{
    snprintf (jp->id, sizeof (jp->id), "%" PRId64, id);
    jp->p[0] = jp->id;
    for (int i = 0; i < n; i++)
        jp->p[i + 1] = rest[i];
    return jp->p;
}

/* db_exec of a statement on job id. */
static PGresult *
job_exec (db_t *db, const char *name, const char *sql, int64_t id, int n,
          const char *const *rest, ms_error_t *errp)
{
    job_params_t jp = { .id = "" };

    return db_exec (db, name, sql, n + 1, job_params (&jp, id, n, rest), errp);
}

/* db_command of a statement on job id; *affected may be NULL. */
static int
job_command (db_t *db, const char *name, const char *sql, int64_t id, int n,
             const char *const *rest, long *affected, ms_error_t *errp)
{
    job_params_t jp = { .id = "" };

    return db_command (db, name, sql, n + 1, job_params (&jp, id, n, rest),
                       affected, errp);
}

/* A statement that moves job id on only from the state it names:
 * *changed tells whether it changed the row (false: another process moved
 * the job first). On an error *changed is left as it was. */
static int
job_move (db_t *db, const char *name, const char *sql, int64_t id, int n,
          const char *const *rest, bool *changed, ms_error_t *errp)
{
    long k = 0;

    if (job_command (db, name, sql, id, n, rest, &k, errp) < 0)
        return -1;
    *changed = k == 1;
    return 0;
}

void
queue_job_free (queue_job_t *j)
{
    if (!j)
        return;
    free (j->script);
    free (j->options);
    j->script = j->options = NULL;
}

/* The columns of a job as the cycle decides it, and their reader. */
#define JOB_COLUMNS                                                          \
    "id, owner_name, owner_uid, owner_gid, name, app, nodes, script,"       \
    " options::text, extract (epoch FROM now () - submitted_at),"            \
    " coalesce (user_time_limit_min, time_limit_min, 0), attempts, refusals"

static void
job_from_row (PGresult *r, int i, void *out)
{
    queue_job_t *j = out;

    j->id = (int64_t)u64 (r, i, 0);
    cp (j->owner, sizeof (j->owner), r, i, 1);
    j->uid = atol (PQgetvalue (r, i, 2));
    j->gid = atol (PQgetvalue (r, i, 3));
    cp (j->name, sizeof (j->name), r, i, 4);
    cp (j->app, sizeof (j->app), r, i, 5);
    j->nodes = atoi (PQgetvalue (r, i, 6));
    j->script = ms_xstrdup (PQgetvalue (r, i, 7));
    j->options = ms_xstrdup (PQgetvalue (r, i, 8));
    j->age_s = dbl (r, i, 9);
    j->time_limit_min = (uint32_t)u64 (r, i, 10);
    j->attempts = atoi (PQgetvalue (r, i, 11));
    j->refusals = atoi (PQgetvalue (r, i, 12));
}

int
queue_take_queued (db_t *db, int64_t after, size_t max, queue_job_t **jobsp,
                   size_t *np, ms_error_t *errp)
{
    char af[32], lim[32];
    const char *p[2] = { af, lim };
    PGresult *r;

    snprintf (af, sizeof (af), "%" PRId64, after);
    snprintf (lim, sizeof (lim), "%zu", max);
    r = db_exec (db, "q_take",
                 "SELECT " JOB_COLUMNS
                 " FROM jobs WHERE state = 'queued' AND held IS NULL"
                 " AND id > $1::bigint"
                 " ORDER BY id LIMIT $2::integer",
                 2, p, errp);
    if (!r)
        return -1;
    *jobsp = rows (r, sizeof (queue_job_t), job_from_row, np);
    return 0;
}

int
queue_job_load (db_t *db, int64_t id, queue_job_t *j, bool *found,
                ms_error_t *errp)
{
    PGresult *r;

    memset (j, 0, sizeof (*j));
    *found = false;
    r = job_exec (db, "q_job_load",
                  "SELECT " JOB_COLUMNS " FROM jobs WHERE id = $1::bigint", id,
                  0, NULL, errp);
    if (!r)
        return -1;
    if (PQntuples (r) == 1) {
        job_from_row (r, 0, j);
        *found = true;
    }
    PQclear (r);
    return 0;
}

int
queue_claim (db_t *db, int64_t id, bool *claimed, ms_error_t *errp)
{
    /* the first decision keeps the user's own limit (migration 0004) */
    return job_move (db, "q_claim",
                     "UPDATE jobs SET state = 'deciding',"
                     " user_time_limit_min = coalesce (user_time_limit_min,"
                     " time_limit_min)"
                     " WHERE id = $1::bigint AND state = 'queued'",
                     id, 0, NULL, claimed, errp);
}

static int
tx_fail (db_t *db, ms_error_t *errp)
{
    (void)errp;
    db_rollback (db);
    return -1;
}

int
queue_begin (db_t *db, bool wait_flush, ms_error_t *errp)
{
    if (db_begin (db, errp) < 0)
        return -1;
    if (!wait_flush
        && db_command (db, "q_async", "SET LOCAL synchronous_commit = off", 0,
                       NULL, NULL, errp)
               < 0)
        return tx_fail (db, errp);
    return 0;
}

int
queue_commit (db_t *db, ms_error_t *errp)
{
    return db_commit (db, errp);
}

void
queue_rollback (db_t *db)
{
    db_rollback (db);
}

int
queue_dispatching_many (db_t *db, const int64_t *ids,
                        const queue_choice_t *cs, size_t n, bool *changed,
                        ms_error_t *errp)
{
    /* per job: queued -> dispatching and the decision row in one
     * statement (the insert sees the row only if the update moved it: a
     * job cancelled meanwhile is left alone); all of them in one round
     * trip */
    typedef struct {
        char id[32], f[16], t[32], e[32], pw[32], w[32], lim[16], sc[32];
        const char *p[13];
    } vals_t;
    vals_t *v = ms_xcalloc (n + 1, sizeof (*v));
    db_stmt_t *st = ms_xcalloc (n + 1, sizeof (*st));
    int rc;

    for (size_t i = 0; i < n; i++) {
        const queue_choice_t *c = &cs[i];
        vals_t *x = &v[i];
        snprintf (x->id, sizeof (x->id), "%" PRId64, ids[i]);
        snprintf (x->f, sizeof (x->f), "%u", c->freq_khz);
        snprintf (x->t, sizeof (x->t), "%.17g", c->time_s);
        snprintf (x->e, sizeof (x->e), "%.17g", c->energy_j);
        snprintf (x->pw, sizeof (x->pw), "%.17g", c->power_w);
        snprintf (x->w, sizeof (x->w), "%.17g", c->wait_s);
        snprintf (x->lim, sizeof (x->lim), "%u", c->time_limit_min);
        snprintf (x->sc, sizeof (x->sc), "%.17g", c->score);
        x->p[0] = x->id;
        x->p[1] = c->cluster;
        x->p[2] = c->partition;
        x->p[3] = x->f;
        x->p[4] = x->t;
        x->p[5] = x->e;
        x->p[6] = x->pw;
        x->p[7] = x->w;
        x->p[8] = c->time_limit_min ? x->lim : NULL;
        x->p[9] = c->policy;
        x->p[10] = x->sc;
        x->p[11] = c->candidates_json;
        x->p[12] = c->ab_group;
        st[i] = (db_stmt_t){
            .name = "q_dispatch_decide",
            .sql = "WITH u AS (UPDATE jobs SET state = 'dispatching',"
                   " user_time_limit_min = coalesce (user_time_limit_min,"
                   " time_limit_min),"
                   " cluster = $2, partition = $3,"
                   " freq_khz = $4::integer,"
                   " predicted_time_s = $5::double precision,"
                   " predicted_energy_j = $6::double precision,"
                   " predicted_power_w = $7::double precision,"
                   " predicted_wait_s = $8::double precision,"
                   " time_limit_min = $9::integer,"
                   " attempts = attempts + 1,"
                   " ab_group = coalesce (ab_group, $13)"
                   " WHERE id = $1::bigint AND state = 'queued'"
                   " RETURNING id)"
                   " INSERT INTO decisions (job_id, policy, cluster,"
                   " partition, freq_khz, score, candidates, ab_group)"
                   " SELECT u.id, $10, $2, $3, $4::integer,"
                   " $11::double precision, $12::json, $13 FROM u",
            .n = 13,
            .params = x->p,
        };
    }
    rc = db_pipeline (db, st, n, errp);
    for (size_t i = 0; i < n && rc == 0; i++)
        changed[i] = st[i].affected == 1;
    free (st);
    free (v);
    return rc;
}

static int
insert_sub (db_t *db, int64_t id, const queue_sub_new_t *s, const char *state,
            ms_error_t *errp)
{
    char ids[32], f[16], cj[32], rk[16], nc[16];
    const char *p[9] = { ids, s->cluster, s->partition, s->freq_khz ? f : NULL,
                         cj,  rk,         state,        nc,
                         s->gated ? "t" : "f" };

    snprintf (ids, sizeof (ids), "%" PRId64, id);
    snprintf (f, sizeof (f), "%u", s->freq_khz);
    snprintf (cj, sizeof (cj), "%" PRIu64, s->cluster_job_id);
    snprintf (rk, sizeof (rk), "%d", s->rank);
    snprintf (nc, sizeof (nc), "%d", s->nice > 0 ? s->nice : 0);
    /* the copy belongs to the job's dispatch under way (migration 0015) */
    return db_command (db, "q_sub_insert",
                       "INSERT INTO job_submissions (job_id, cluster,"
                       " partition, freq_khz, cluster_job_id, rank, state,"
                       " nice, attempt, gated)"
                       " SELECT $1::bigint, $2, $3, $4::integer, $5::bigint,"
                       " $6::integer, $7, $8::integer, j.attempts,"
                       " $9::boolean"
                       " FROM jobs j WHERE j.id = $1::bigint"
                       " ON CONFLICT DO NOTHING",
                       9, p, NULL, errp);
}

int
queue_submitted_tx (db_t *db, int64_t id, const queue_sub_new_t *subs,
                    size_t n, bool *changed, ms_error_t *errp)
{
    char cj[32];
    const char *p[3] = { cj, subs[0].cluster, subs[0].partition };
    long k = 0;

    snprintf (cj, sizeof (cj), "%" PRIu64, subs[0].cluster_job_id);
    if (job_command (db, "q_submitted",
                     "UPDATE jobs SET state = 'submitted',"
                     " cluster_job_id = $2::bigint, cluster = $3,"
                     " partition = $4, last_error = NULL"
                     " WHERE id = $1::bigint AND state = 'dispatching'",
                     id, 3, p, &k, errp)
        < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (insert_sub (db, id, &subs[i], "submitted", errp) < 0)
            return -1;
    *changed = k == 1;
    return 0;
}

int
queue_requeue (db_t *db, int64_t id, const char *from, const char *why,
               bool reroute, bool *changed, ms_error_t *errp)
{
    const char *p[3] = { from, why, reroute ? "1" : "0" };

    return job_move (db, "q_requeue",
                     "UPDATE jobs SET state = 'queued', cluster = NULL,"
                     " partition = NULL, cluster_job_id = NULL,"
                     " freq_khz = NULL, last_error = $3,"
                     " reroutes = reroutes + $4::integer,"
                     " refusals = CASE WHEN $4::integer = 1 THEN 0"
                     " ELSE refusals END"
                     " WHERE id = $1::bigint AND state = $2::job_state",
                     id, 3, p, changed, errp);
}

int
queue_refused (db_t *db, int64_t id, const char *from, const char *why,
               bool cancel, bool *changed, ms_error_t *errp)
{
    const char *p[2] = { from, why };

    if (cancel)
        return job_move (db, "q_refused_cancel",
                         "UPDATE jobs SET state = 'cancelled',"
                         " last_error = $3, finished_at = now (),"
                         " held = NULL, refusals = refusals + 1"
                         " WHERE id = $1::bigint AND state = $2::job_state",
                         id, 2, p, changed, errp);
    return job_move (db, "q_refused_requeue",
                     "UPDATE jobs SET state = 'queued', cluster = NULL,"
                     " partition = NULL, cluster_job_id = NULL,"
                     " freq_khz = NULL, last_error = $3,"
                     " refusals = refusals + 1"
                     " WHERE id = $1::bigint AND state = $2::job_state",
                     id, 2, p, changed, errp);
}

int
queue_dispatch_copies (db_t *db, int64_t id, queue_copies_t *c,
                       ms_error_t *errp)
{
    PGresult *r;

    memset (c, 0, sizeof (*c));
    r = job_exec (db, "q_dispatch_copies",
                  "SELECT count (*) FILTER (WHERE s.state IN ('submitted',"
                  " 'running')), count (*) FILTER (WHERE s.state = 'refused'),"
                  " count (*) FILTER (WHERE s.state = 'ended'),"
                  " bool_or (j.claimed_cluster IS NOT NULL),"
                  " count (*) FILTER (WHERE s.state = 'lost')"
                  " FROM job_submissions s JOIN jobs j ON j.id = s.job_id"
                  " WHERE s.job_id = $1::bigint AND s.attempt = j.attempts",
                  id, 0, NULL, errp);
    if (!r)
        return -1;
    if (PQntuples (r) == 1) {
        c->live = atoi (PQgetvalue (r, 0, 0));
        c->refused = atoi (PQgetvalue (r, 0, 1));
        c->ended = atoi (PQgetvalue (r, 0, 2));
        c->claimed = !strcmp (PQgetvalue (r, 0, 3), "t");
        c->lost = atoi (PQgetvalue (r, 0, 4));
    }
    PQclear (r);
    return 0;
}

int
queue_cancel (db_t *db, int64_t id, const char *from, const char *why,
              bool *changed, ms_error_t *errp)
{
    const char *p[2] = { from, why };

    return job_move (db, "q_cancel",
                     "UPDATE jobs SET state = 'cancelled', last_error = $3,"
                     " finished_at = now (), held = NULL"
                     " WHERE id = $1::bigint AND state = $2::job_state",
                     id, 2, p, changed, errp);
}

static void
live_row (PGresult *r, int i, void *out)
{
    queue_live_t *l = out;

    l->id = (int64_t)u64 (r, i, 0);
    cp (l->state, sizeof (l->state), r, i, 1);
    cp (l->cluster, sizeof (l->cluster), r, i, 2);
    cp (l->partition, sizeof (l->partition), r, i, 3);
    l->cluster_job_id = u64 (r, i, 4);
    cp (l->claimed_cluster, sizeof (l->claimed_cluster), r, i, 5);
    l->claimed_job_id = u64 (r, i, 6);
    l->age_s = dbl (r, i, 7);
    l->nodes = atoi (PQgetvalue (r, i, 8));
    l->reroutes = atoi (PQgetvalue (r, i, 9));
    l->predicted_time_s = dbl (r, i, 10);
    cp (l->app, sizeof (l->app), r, i, 11);
    l->attempts = atoi (PQgetvalue (r, i, 12));
    if (!PQgetisnull (r, i, 13)) {
        /* the API checked it: it reads */
        ms_array_t a;
        ms_error_t e;
        l->array_tasks
            = jobspec_parse_array (PQgetvalue (r, i, 13), &a, &e) == 0
                  ? a.ntasks
                  : 1;
    }
    cp (l->owner, sizeof (l->owner), r, i, 14);
    l->refusals = atoi (PQgetvalue (r, i, 15));
}

int
queue_live_jobs (db_t *db, queue_live_t **outp, size_t *np, ms_error_t *errp)
{
    PGresult *r;

    r = db_exec (
        db, "q_live_jobs",
        "SELECT id, state, cluster, partition, cluster_job_id,"
        " claimed_cluster, claimed_job_id,"
        " extract (epoch FROM now () - updated_at), nodes, reroutes,"
        " predicted_time_s, app, attempts,"
        " options->>'array', owner_name, refusals FROM jobs"
        " WHERE state IN ('deciding', 'dispatching', 'submitted', 'running')"
        " OR (state = 'cancelled' AND EXISTS (SELECT 1 FROM job_submissions s"
        " WHERE s.job_id = jobs.id AND s.state IN ('submitted', 'running')))"
        " ORDER BY id",
        0, NULL, errp);
    if (!r)
        return -1;
    *outp = rows (r, sizeof (queue_live_t), live_row, np);
    return 0;
}

static void
sub_row (PGresult *r, int i, void *out)
{
    queue_sub_t *s = out;

    s->job_id = (int64_t)u64 (r, i, 0);
    cp (s->cluster, sizeof (s->cluster), r, i, 1);
    cp (s->partition, sizeof (s->partition), r, i, 2);
    s->freq_khz = (uint32_t)u64 (r, i, 3);
    s->cluster_job_id = u64 (r, i, 4);
    s->rank = atoi (PQgetvalue (r, i, 5));
    cp (s->state, sizeof (s->state), r, i, 6);
    s->age_s = dbl (r, i, 7);
    s->nice = atoi (PQgetvalue (r, i, 8));
    s->gated = !strcmp (PQgetvalue (r, i, 9), "t");
}

#define SUB_COLS                                                               \
    "SELECT job_id, cluster, partition, freq_khz, cluster_job_id, rank,"       \
    " state, extract (epoch FROM now () - submitted_at), nice, gated"          \
    " FROM job_submissions"

int
queue_live_subs (db_t *db, queue_sub_t **outp, size_t *np, ms_error_t *errp)
{
    PGresult *r = db_exec (db, "q_live_subs",
                           SUB_COLS " WHERE state IN ('submitted', 'running')"
                                    " ORDER BY job_id, rank",
                           0, NULL, errp);
    if (!r)
        return -1;
    *outp = rows (r, sizeof (queue_sub_t), sub_row, np);
    return 0;
}

int
queue_job_subs (db_t *db, int64_t id, queue_sub_t **outp, size_t *np,
                ms_error_t *errp)
{
    PGresult *r = job_exec (db, "q_job_subs",
                            SUB_COLS " WHERE job_id = $1::bigint ORDER BY rank",
                            id, 0, NULL, errp);

    if (!r)
        return -1;
    *outp = rows (r, sizeof (queue_sub_t), sub_row, np);
    return 0;
}

int
queue_sub_record (db_t *db, int64_t id, const queue_sub_new_t *s,
                  const char *state, ms_error_t *errp)
{
    return insert_sub (db, id, s, state, errp);
}

int
queue_sub_state (db_t *db, const char *cluster, uint64_t cluster_job_id,
                 const char *state, ms_error_t *errp)
{
    char cj[32];
    const char *p[3] = { cluster, cj, state };

    snprintf (cj, sizeof (cj), "%" PRIu64, cluster_job_id);
    return db_command (db, "q_sub_state",
                       "UPDATE job_submissions SET state = $3,"
                       " ended_at = CASE WHEN $3 IN ('ended', 'cancelled',"
                       " 'lost', 'refused') THEN now () END"
                       " WHERE cluster = $1 AND cluster_job_id = $2::bigint",
                       3, p, NULL, errp);
}

int
queue_sub_aged (db_t *db, const char *cluster, uint64_t cluster_job_id,
                ms_error_t *errp)
{
    char cj[32];
    const char *p[2] = { cluster, cj };

    snprintf (cj, sizeof (cj), "%" PRIu64, cluster_job_id);
    return db_command (db, "q_sub_aged",
                       "UPDATE job_submissions SET nice = 0"
                       " WHERE cluster = $1 AND cluster_job_id = $2::bigint",
                       2, p, NULL, errp);
}

static int
move (db_t *db, const char *name, const char *sql, int64_t id,
      const char *cluster, const char *partition, uint64_t cjid, bool *changed,
      ms_error_t *errp)
{
    char cj[32];
    const char *p[3] = { cluster, partition, cj };

    snprintf (cj, sizeof (cj), "%" PRIu64, cjid);
    return job_move (db, name, sql, id, 3, p, changed, errp);
}

int
queue_adopt (db_t *db, int64_t id, const char *cluster, const char *partition,
             uint64_t cluster_job_id, bool *changed, ms_error_t *errp)
{
    return move (db, "q_adopt",
                 "UPDATE jobs SET state = 'submitted', cluster = $2,"
                 " partition = $3, cluster_job_id = $4::bigint"
                 " WHERE id = $1::bigint AND state = 'dispatching'",
                 id, cluster, partition, cluster_job_id, changed, errp);
}

int
queue_running (db_t *db, int64_t id, const char *cluster, const char *partition,
               uint64_t cluster_job_id, bool *changed, ms_error_t *errp)
{
    return move (db, "q_running",
                 "UPDATE jobs SET state = 'running', cluster = $2::text,"
                 " partition = $3::text, cluster_job_id = $4::bigint,"
                 " started_at = coalesce (started_at, now ()),"
                 " refusals = 0,"
                 " freq_khz = coalesce ((SELECT s.freq_khz FROM"
                 " job_submissions s WHERE s.cluster = $2::text"
                 " AND s.cluster_job_id = $4::bigint), freq_khz)"
                 " WHERE id = $1::bigint AND (state = 'submitted'"
                 " OR (state = 'running' AND claimed_cluster = $2::text"
                 " AND claimed_job_id = $4::bigint))",
                 id, cluster, partition, cluster_job_id, changed, errp);
}

int
queue_finished (db_t *db, int64_t id, const char *state, int exit_code,
                const char *why, bool *changed, ms_error_t *errp)
{
    char ec[16];
    const char *p[3] = { state, exit_code >= 0 ? ec : NULL, why };

    snprintf (ec, sizeof (ec), "%d", exit_code);
    return job_move (db, "q_finished",
                     "UPDATE jobs SET state = $2::job_state,"
                     " exit_code = $3::integer, finished_at = now (),"
                     " last_error = coalesce ($4, last_error)"
                     " WHERE id = $1::bigint"
                     " AND state IN ('submitted', 'running')",
                     id, 3, p, changed, errp);
}

int
queue_unknown (db_t *db, int64_t id, const char *from, const char *why,
               bool *changed, ms_error_t *errp)
{
    const char *p[2] = { from, why };

    return job_move (db, "q_unknown",
                     "UPDATE jobs SET state = 'unknown', last_error = $3"
                     " WHERE id = $1::bigint AND state = $2::job_state",
                     id, 2, p, changed, errp);
}

int
queue_note (db_t *db, int64_t id, const char *why, ms_error_t *errp)
{
    const char *p[1] = { why };

    return job_command (db, "q_note",
                        "UPDATE jobs SET last_error = $2 WHERE id = $1::bigint"
                        " AND last_error IS DISTINCT FROM $2",
                        id, 1, p, NULL, errp);
}

/* ---- dependencies ---- */

static void
held_row (PGresult *r, int i, void *out)
{
    queue_held_t *h = out;

    h->id = (int64_t)u64 (r, i, 0);
    h->uid = atol (PQgetvalue (r, i, 1));
    h->singleton_clear = !strcmp (PQgetvalue (r, i, 2), "t");
    h->last_error = ms_xstrdup (PQgetvalue (r, i, 3));
}

int
queue_held_jobs (db_t *db, queue_held_t **outp, size_t *np, ms_error_t *errp)
{
    PGresult *r;

    /* singleton: a live job of the same user and name blocks, unless it is
     * held itself and came later (the oldest goes first) or can never
     * run. One pass over the live jobs, grouped by user and name: a group
     * clears only its oldest job held by a dependency, and only while none
     * of the group is unheld. (A test per held job of the others of its
     * name cost the square of a user's jobs of one name.) No options: a
     * job's options (its environment, kilobytes each) cost most of the
     * statement, and they never change (queue_held_deps). */
    r = db_exec (
        db, "q_held",
        "SELECT j.id, j.owner_uid, NOT g.busy AND g.first = j.id,"
        " coalesce (j.last_error, '')"
        " FROM (SELECT id, held, state,"
        "  bool_or (held IS NULL) OVER w AS busy,"
        "  min (id) FILTER (WHERE held = 'Dependency') OVER w AS first"
        "  FROM jobs WHERE state NOT IN ('completed', 'failed', 'cancelled')"
        "  WINDOW w AS (PARTITION BY owner_uid, name)) g"
        " JOIN jobs j ON j.id = g.id"
        " WHERE g.held = 'Dependency' AND g.state = 'queued'"
        " ORDER BY j.id",
        0, NULL, errp);
    if (!r)
        return -1;
    *outp = rows (r, sizeof (queue_held_t), held_row, np);
    return 0;
}

void
queue_held_free (queue_held_t *h, size_t n)
{
    if (!h)
        return;
    for (size_t i = 0; i < n; i++)
        free (h[i].last_error);
    free (h);
}

/* ids[0..n) as a PostgreSQL array literal (malloc'd). */
static char *
id_array (const int64_t *ids, size_t n)
{
    size_t len = 3 + n * 21, k = 0;
    char *arr = ms_xmalloc (len);

    k += (size_t)snprintf (arr + k, len - k, "{");
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf (arr + k, len - k, "%s%" PRId64, i ? "," : "",
                               ids[i]);
    snprintf (arr + k, len - k, "}");
    return arr;
}

static int
cmp_id (const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The statement name/sql run with $1 the array of the n ids */
static PGresult *
exec_by_ids (db_t *db, const char *name, const char *sql, const int64_t *ids,
             size_t n, ms_error_t *errp)
{
    char *arr = id_array (ids, n);
    const char *p[1] = { arr };
    PGresult *r = db_exec (db, name, sql, 1, p, errp);

    free (arr);
    return r;
}

/* Where row i's id (column 0) stands in ids (sorted); -1 where not */
static long
id_slot (PGresult *r, int i, const int64_t *ids, size_t n)
{
    int64_t id = (int64_t)u64 (r, i, 0);
    const int64_t *at = n ? bsearch (&id, ids, n, sizeof (*ids), cmp_id) : NULL;

    return at ? (long)(at - ids) : -1;
}

/* Runs name/sql on the n ids (sorted) and reads each row by fill into
 * out[k], the slot of the element of `size` bytes whose id the row
 * carries in column 0; out[0..n) is zeroed first, so a slot without a
 * row stays zero. */
static int
read_by_ids (db_t *db, const char *name, const char *sql, const int64_t *ids,
             size_t n, void *out, size_t size, row_fn *fill, ms_error_t *errp)
{
    PGresult *r;

    memset (out, 0, n * size);
    r = exec_by_ids (db, name, sql, ids, n, errp);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples (r); i++) {
        long at = id_slot (r, i, ids, n);

        if (at >= 0)
            fill (r, i, (char *)out + (size_t)at * size);
    }
    PQclear (r);
    return 0;
}

static void
dep_job_row (PGresult *r, int i, void *out)
{
    queue_dep_job_t *o = out;

    o->exists = true;
    o->uid = atol (PQgetvalue (r, i, 1));
    cp (o->state, sizeof (o->state), r, i, 2);
    o->started = !strcmp (PQgetvalue (r, i, 3), "t");
    o->since_s = dbl (r, i, 4);
}

int
queue_dep_jobs (db_t *db, const int64_t *ids, size_t n, queue_dep_job_t *out,
                ms_error_t *errp)
{
    return read_by_ids (db, "q_dep_jobs",
                        "SELECT id, owner_uid, state::text,"
                        " started_at IS NOT NULL,"
                        " extract (epoch FROM now () - coalesce (started_at,"
                        " finished_at, now ()))"
                        " FROM jobs WHERE id = ANY ($1::bigint[])",
                        ids, n, out, sizeof (*out), dep_job_row, errp);
}

static void
held_dep_row (PGresult *r, int i, void *out)
{
    queue_held_dep_t *o = out;

    o->found = true;
    o->dependency = ms_xstrdup (PQgetvalue (r, i, 1));
    o->kill_on_invalid = !strcmp (PQgetvalue (r, i, 2), "t");
}

int
queue_held_deps (db_t *db, const int64_t *ids, size_t n, queue_held_dep_t *out,
                 ms_error_t *errp)
{
    return read_by_ids (db, "q_held_deps",
                        "SELECT id, coalesce (options->>'dependency', ''),"
                        " coalesce (options->'kill_on_invalid_dep'"
                        " <> 'false'::jsonb, true)"
                        " FROM jobs WHERE id = ANY ($1::bigint[])",
                        ids, n, out, sizeof (*out), held_dep_row, errp);
}

int
queue_release_many (db_t *db, const int64_t *ids, size_t n, int64_t **releasedp,
                    size_t *nreleased, ms_error_t *errp)
{
    int64_t *out;
    PGresult *r;

    *releasedp = NULL;
    *nreleased = 0;
    r = exec_by_ids (db, "q_release_many",
                     "UPDATE jobs SET held = NULL, last_error = NULL"
                     " WHERE id = ANY ($1::bigint[]) AND state = 'queued'"
                     " AND held = 'Dependency' RETURNING id",
                     ids, n, errp);
    if (!r)
        return -1;
    out = ms_xcalloc ((size_t)PQntuples (r) + 1, sizeof (*out));
    for (int i = 0; i < PQntuples (r); i++)
        out[i] = (int64_t)u64 (r, i, 0);
    *nreleased = (size_t)PQntuples (r);
    *releasedp = out;
    PQclear (r);
    return 0;
}

int
queue_note_many (db_t *db, const int64_t *ids, const char *const *why, size_t n,
                 ms_error_t *errp)
{
    char *arr = id_array (ids, n), *texts;
    const char *p[2];
    size_t len = 3, k = 0;
    int rc;

    /* the notes as a text array literal: each quoted, '"' and '\'
     * escaped */
    for (size_t i = 0; i < n; i++)
        len += 3 + 2 * strlen (why[i]);
    texts = ms_xmalloc (len);
    texts[k++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            texts[k++] = ',';
        texts[k++] = '"';
        for (const char *c = why[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                texts[k++] = '\\';
            texts[k++] = *c;
        }
        texts[k++] = '"';
    }
    texts[k++] = '}';
    texts[k] = '\0';
    p[0] = arr;
    p[1] = texts;
    rc = db_command (db, "q_note_many",
                     "UPDATE jobs SET last_error = u.why"
                     " FROM unnest ($1::bigint[], $2::text[]) AS u (id, why)"
                     " WHERE jobs.id = u.id"
                     " AND jobs.last_error IS DISTINCT FROM u.why",
                     2, p, NULL, errp);
    free (arr);
    free (texts);
    return rc;
}

int
queue_release (db_t *db, int64_t id, bool *changed, ms_error_t *errp)
{
    return job_move (db, "q_release",
                     "UPDATE jobs SET held = NULL, last_error = NULL"
                     " WHERE id = $1::bigint AND state = 'queued'"
                     " AND held = 'Dependency'",
                     id, 0, NULL, changed, errp);
}

int
queue_hold_never (db_t *db, int64_t id, const char *why, bool *changed,
                  ms_error_t *errp)
{
    const char *p[1] = { why };

    return job_move (db, "q_hold_never",
                     "UPDATE jobs SET held = 'DependencyNeverSatisfied',"
                     " last_error = $2 WHERE id = $1::bigint"
                     " AND state = 'queued' AND held = 'Dependency'",
                     id, 1, p, changed, errp);
}

/* ---- array tasks ---- */

static void
task_row (PGresult *r, int i, void *out)
{
    queue_task_t *t = out;

    t->task_id = (uint32_t)u64 (r, i, 0);
    cp (t->cluster, sizeof (t->cluster), r, i, 1);
    t->cluster_job_id = u64 (r, i, 2);
    cp (t->state, sizeof (t->state), r, i, 3);
    t->exit_code = atoi (PQgetvalue (r, i, 4));
    cp (t->reason, sizeof (t->reason), r, i, 5);
    t->start_time = (int64_t)atoll (PQgetvalue (r, i, 6));
    t->end_time = (int64_t)atoll (PQgetvalue (r, i, 7));
}

int
queue_job_tasks (db_t *db, int64_t id, queue_task_t **outp, size_t *np,
                 ms_error_t *errp)
{
    PGresult *r;

    r = job_exec (db, "q_job_tasks",
                  "SELECT task_id, cluster, cluster_job_id, state,"
                  " coalesce (exit_code, -1), coalesce (reason, ''),"
                  " coalesce (extract (epoch FROM started_at)::bigint, 0),"
                  " coalesce (extract (epoch FROM ended_at)::bigint, 0)"
                  " FROM job_tasks WHERE job_id = $1::bigint ORDER BY task_id",
                  id, 0, NULL, errp);
    if (!r)
        return -1;
    *outp = rows (r, sizeof (queue_task_t), task_row, np);
    return 0;
}

int
queue_task_set (db_t *db, int64_t id, const queue_task_t *t, ms_error_t *errp)
{
    char ids[32], tid[16], cj[32], ec[16], st[32], et[32];
    const char *p[9] = { ids, tid, t->cluster, cj, t->state,
                         t->exit_code >= 0 ? ec : NULL,
                         t->reason[0] ? t->reason : NULL,
                         t->start_time > 0 ? st : NULL,
                         t->end_time > 0 ? et : NULL };

    snprintf (ids, sizeof (ids), "%" PRId64, id);
    snprintf (tid, sizeof (tid), "%u", t->task_id);
    snprintf (cj, sizeof (cj), "%" PRIu64, t->cluster_job_id);
    snprintf (ec, sizeof (ec), "%d", t->exit_code);
    snprintf (st, sizeof (st), "%" PRId64, t->start_time);
    snprintf (et, sizeof (et), "%" PRId64, t->end_time);
    return db_command (
        db, "q_task_set",
        "INSERT INTO job_tasks (job_id, task_id, cluster, cluster_job_id,"
        " state, exit_code, reason, started_at, ended_at)"
        " VALUES ($1::bigint, $2::integer, $3, $4::bigint, $5,"
        " $6::integer, $7, to_timestamp ($8::bigint),"
        " to_timestamp ($9::bigint))"
        " ON CONFLICT (job_id, task_id) DO UPDATE SET"
        " cluster = EXCLUDED.cluster, cluster_job_id = EXCLUDED.cluster_job_id,"
        " state = EXCLUDED.state, exit_code = EXCLUDED.exit_code,"
        " reason = EXCLUDED.reason, started_at = EXCLUDED.started_at,"
        " ended_at = EXCLUDED.ended_at, updated_at = now ()",
        9, p, NULL, errp);
}

int
queue_tasks_cancelled (db_t *db, int64_t id, ms_error_t *errp)
{
    return job_command (db, "q_tasks_cancelled",
                        "UPDATE job_tasks SET state = 'cancelled',"
                        " ended_at = coalesce (ended_at, now ()),"
                        " updated_at = now ()"
                        " WHERE job_id = $1::bigint"
                        " AND state IN ('pending', 'running')",
                        id, 0, NULL, NULL, errp);
}
