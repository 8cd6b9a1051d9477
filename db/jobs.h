/* jobs.h - the user-facing job store: the jobs table as the API sees it
 * (doc/api.md), settings rows and the figures of /metrics. Parameterized
 * statements over db.h's connection; jobs come back as JSON objects in the
 * shape of doc/api.md "A job". */
#ifndef MS_DB_JOBS_H
#define MS_DB_JOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "db/db.h"
#include "db/jobreq.h"
#include "metasched/common/error.h"

/* "Anyone": list or touch every user's jobs (admins). */
#define DB_JOBS_ANY_UID ((long)-1)

/* Insert a queued job owned by (uid, gid, owner); *idp gets its id. The
 * insert trigger notifies metasched_jobs. Idempotent per (uid,
 * req->submit_key): where the user has a job of that key already, *idp
 * gets its id and *replayedp (may be NULL) true, and nothing is stored. A
 * request without a key gets a random one, so that the retry of a lost
 * connection (db_exec) never stores it twice either. */
int db_jobs_submit (db_t *db, uid_t uid, gid_t gid, const char *owner,
                    const ms_apireq_t *req, int64_t *idp, bool *replayedp,
                    ms_error_t *errp);
/* The same without *replayedp. */
int db_jobs_insert (db_t *db, uid_t uid, gid_t gid, const char *owner,
                    const ms_apireq_t *req, int64_t *idp, ms_error_t *errp);

/* Jobs of uid (DB_JOBS_ANY_UID: all) whose state is in states (a
 * comma-separated list of job_state names; NULL or "": any), newest
 * first, at most limit: {"jobs": [...]} in *outp. */
int db_jobs_list (db_t *db, long uid, const char *states, int limit,
                  json_t **outp, ms_error_t *errp);

/* One job as uid sees it; -1 with kind MS_ERR_MISSING (404) when it does
 * not exist or belongs to someone else. */
int db_jobs_get (db_t *db, int64_t id, long uid, json_t **outp,
                 ms_error_t *errp);

/* Cancel: state -> cancelled. MS_ERR_MISSING (404) as for db_jobs_get;
 * MS_ERR_INPUT with http_status 409 when it already ended (*statep, may be
 * NULL, gets its state, 16 bytes). */
int db_jobs_cancel (db_t *db, int64_t id, long uid, char statep[16],
                    ms_error_t *errp);

/* An unknown job resolved by an admin (metasched job resolve): state
 * completed, failed or cancelled, exit_code (-1: none), the admin's name
 * and reason (NULL or "": none) into its row and an audit row
 * (job_resolutions). MS_ERR_MISSING (404) where there is no job; 409 where
 * it is not unknown (*statep: its state). */
int db_jobs_resolve (db_t *db, int64_t id, const char *state, int exit_code,
                     const char *admin, const char *reason, char statep[16],
                     ms_error_t *errp);
/* The start gate: the first (cluster, cluster_job_id) to claim job id wins
 * (*runp true); the same claimer asking again wins again; any other gets
 * *runp false. Only the owner claims (others: MS_ERR_MISSING). A job that
 * already ended gives *runp false. */
int db_jobs_claim (db_t *db, int64_t id, long uid, const char *cluster,
                   int64_t cluster_job_id, bool *runp, ms_error_t *errp);

/* Whether (cluster, cluster_job_id) is a recorded submission of job id
 * (job_submissions: what metaschedd dispatched), the job being uid's.
 * *isp false where it is not, or not yet (the copy may start before its
 * submission is recorded); *openp whether the job can still be claimed
 * (not ended, nobody claimed it). Others' jobs: MS_ERR_MISSING, as above. */
int db_jobs_is_submission (db_t *db, int64_t id, long uid, const char *cluster,
                           int64_t cluster_job_id, bool *isp, bool *openp,
                           ms_error_t *errp);

/* The jobs of uid that wait in metasched, for the per-user limits:
 * *queued those not held (queued, deciding, dispatching), *held those held
 * by a dependency. Each count stops at its cap (cap <= 0: not counted, 0),
 * so that checking a limit costs at most the limit's rows, whatever the
 * user's history holds. */
int db_jobs_waiting (db_t *db, uid_t uid, long queued_cap, long held_cap,
                     long *queued, long *held, ms_error_t *errp);

/* Settings rows: {"key": value, ...} in *outp. */
int db_settings_read (db_t *db, json_t **outp, ms_error_t *errp);
/* Upsert every key of obj in one transaction, recording updated_by. */
int db_settings_write (db_t *db, const json_t *obj, const char *updated_by,
                       ms_error_t *errp);

/* What /metrics reports from the database. */
typedef struct {
    char state[10][16];
    long count[10]; /* jobs per state */
    int nstates;
    long dispatches;       /* rows of job_submissions */
    double time_abs_err;   /* mean |predicted - measured| / measured; NaN */
    long time_n;           /* jobs behind it */
    double energy_abs_err; /* the same for energy; NaN */
    long energy_n;
    double energy_joules; /* energy measured of metasched's jobs */
} db_jobs_metrics_t;

int db_jobs_metrics (db_t *db, db_jobs_metrics_t *m, ms_error_t *errp);

#endif /* MS_DB_JOBS_H */
