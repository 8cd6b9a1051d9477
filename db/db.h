/* db.h - metasched's PostgreSQL access layer (libpq).
 *
 * One connection per program (db_t), parameterized statements only: every
 * statement has a name, is prepared once per connection and executed with
 * its values passed separately from the SQL text, so no value is ever
 * spliced into SQL. When the server goes away the next statement reconnects
 * with exponential backoff (up to a configurable total wait) and retries
 * once if it was outside a transaction. Errors carry the SQL state
 * (errp->sqlstate) and the statement's name.
 *
 * Passwords never travel in argv or conninfo strings shown in messages: a
 * conninfo names a pgpass file (passfile=...) or db_open's password_file
 * names a file holding the password alone; both must be mode 0600.
 */
#ifndef MS_DB_H
#define MS_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "metasched/common/error.h"
#include "partitions/clusterconf.h"
#include "predictor/predictor.h"
#include "predictor/speedup.h"

typedef struct db db_t;

typedef struct {
    const char *conninfo;      /* libpq conninfo or URI (no password in it) */
    const char *password_file; /* NULL, or a 0600 file with the password */
    const char *dbname;        /* NULL, or overrides the conninfo's dbname */
    const char *application_name; /* NULL: "metasched" */
    int connect_timeout_s;     /* per attempt; 0: 5 */
    int retry_max_ms;          /* total backoff on connect/reconnect; 0: none */
} db_opts_t;

/* Connect (retrying with backoff up to retry_max_ms). */
int db_open (const db_opts_t *opts, db_t **dbp, ms_error_t *errp);
void db_close (db_t *db);

/* The raw connection, for what this layer does not wrap (tests). */
PGconn *db_conn (db_t *db);
/* The role the connection is logged in as. */
const char *db_user (db_t *db);
/* Reconnects done so far (for tests and logs). */
unsigned db_reconnects (db_t *db);

/* Run the named statement with n text parameters (NULL = SQL NULL).
 * Returns the result (PGRES_TUPLES_OK or PGRES_COMMAND_OK), which the caller
 * frees with PQclear, or NULL with errp filled (kind MS_ERR_DB or
 * MS_ERR_CONNECT, sqlstate set where the server gave one). */
PGresult *db_exec (db_t *db, const char *name, const char *sql, int n,
                   const char *const *params, ms_error_t *errp);
/* The same when no rows are wanted: 0 or -1. *affected may be NULL. */
int db_command (db_t *db, const char *name, const char *sql, int n,
                const char *const *params, long *affected, ms_error_t *errp);

/* Transactions. While one is open a lost connection is an error (the
 * caller retries the whole transaction), not a silent reconnect. */
/* One statement of a pipeline (db_pipeline). */
typedef struct {
    const char *name; /* prepared under this name */
    const char *sql;
    int n;
    const char *const *params;
    long affected; /* out: rows the statement changed */
} db_stmt_t;

/* Run the statements in one round trip (libpq's pipeline mode), in order,
 * each prepared first where it is not yet; meant inside the caller's
 * transaction, which an error aborts (roll back). On error, errp names the
 * first statement that failed. */
int db_pipeline (db_t *db, db_stmt_t *st, size_t n, ms_error_t *errp);

int db_begin (db_t *db, ms_error_t *errp);
int db_commit (db_t *db, ms_error_t *errp);
void db_rollback (db_t *db);

/* Check a pgpass file named by passfile= in conninfo (if any): it must
 * be a regular file of mode 0600 or stricter. */
int db_check_passfile (const char *conninfo, ms_error_t *errp);

/* ---- schema (migrate.c) ---- */

typedef struct {
    int version;
    const char *name; /* file name, e.g. "0001_init.sql" */
    const char *sql;
} db_migration_t;

/* The migrations built into this program, ascending (db/migrations/). */
const db_migration_t *db_migrations (size_t *n);
/* Newest version built in. */
int db_schema_latest (void);
/* Version the database is at (0: none yet). */
int db_schema_version (db_t *db, int *versionp, ms_error_t *errp);
/* Apply every migration newer than the database, up to `target` (0: the
 * latest), in one transaction that records each version; then re-apply
 * the roles' grants. *applied gets the number applied (0: already there).
 * Concurrent migrators serialize on an advisory lock. missing_roles (may be
 * NULL) gets the roles the grants could not find, or "" when none. */
int db_migrate (db_t *db, int target, int *applied, char *missing_roles,
                size_t missing_len, ms_error_t *errp);

/* ---- job_runs (jobruns.c) ---- */

/* One measured run of a job on one node (a job_runs row). Strings are
 * NUL-terminated; optional numbers use the has_ flags / negative values
 * as documented. */
typedef struct {
    char cluster[64];
    char partition[64];
    uint64_t slurm_job_id;
    char node[64];
    char app[129];
    char user_name[65];
    long uid;                  /* -1: unknown */
    int nodes;
    uint32_t freq_req_khz;     /* 0: partition default */
    uint32_t freq_obs_khz;     /* 0: not observed */
    double start_time;         /* Unix time, seconds */
    double end_time;
    double runtime_s;
    double pkg_energy_j;       /* < 0: not measured */
    double dram_energy_j;      /* < 0: not measured */
    double avg_power_w;        /* < 0: not measured */
    int64_t cycles;            /* < 0: not measured */
    int64_t instructions;
    int64_t mem_transactions;
    double cpi;                /* <= 0: not measured */
    double tpi;                /* < 0: not measured */
    char counters_json[4096];  /* JSON object of every event read, "{}" */
    char events_used[1024];    /* comma-separated */
    char events_unavailable[1024];
    bool has_exit_code;
    int exit_code;
    int exclusive;             /* 1, 0, -1 unknown */
    char source[16];           /* "root-measured" or "user-reported" */
    char collector_version[64];
    double reported_runtime_s; /* the wrapper's own figure, < 0: none */
    char user_reported[64];    /* columns from the user's counter file,
                                  comma-separated (0012_job_runs_reported) */
    uint64_t het_job_id;       /* a heterogeneous job's component: the
                                  job's id (its first component's); 0:
                                  none (0024_job_runs_het.sql) */
    int het_job_offset;        /* the component's offset in it */
} db_job_run_t;

void db_job_run_init (db_job_run_t *r);

/* Insert rows in batches (multi-row INSERT ... ON CONFLICT DO NOTHING, so
 * a row sent twice is stored once). With the collector's role this is the
 * only thing it may do. *inserted (may be NULL) gets the rows new to the
 * table. One transaction for all of them. */
int db_job_runs_insert (db_t *db, const db_job_run_t *runs, size_t n,
                        size_t *inserted, ms_error_t *errp);

/* ---- what the nodes' spools dropped (spooldrops.c, 0017) ---- */

typedef struct {
    char cluster[64];
    char node[260]; /* up to 64 characters of any alphabet */
    uint64_t rows;  /* spooled rows dropped for the cap */
    uint64_t bad;   /* files of bad/ dropped for the cap */
    uint64_t aged;  /* files of bad/ removed for their age */
    double last;    /* Unix time of the last drop (the node's clock), 0 */
} db_spool_drops_t;

/* Report a node's totals (spool_drops_report: the larger totals win, so a
 * report sent twice or late never lowers them). The collector role may do
 * this and nothing else with the table. */
int db_spool_drops_put (db_t *db, const db_spool_drops_t *d, ms_error_t *errp);
/* Every node's totals, by cluster and node, at most max rows (*truncated
 * says there were more); the caller frees *out. */
int db_spool_drops_load (db_t *db, size_t max, db_spool_drops_t **out,
                         size_t *n, bool *truncated, ms_error_t *errp);

/* ---- clusters and partitions (sites.c) ---- */

/* Upsert every cluster and partition of a site configuration (one
 * transaction); rows of clusters no longer configured are kept, as runs
 * refer to them. */
int db_sync_site (db_t *db, const ms_siteconf_t *conf, size_t *nparts,
                  ms_error_t *errp);

/* ---- accounting (ingest) ---- */

typedef struct {
    char cluster[64];
    uint64_t slurm_job_id;
    char partition[64];
    char user_name[65];
    char state[33];
    double start_time, end_time; /* 0: unknown */
    bool has_exit_code;
    int exit_code;
    int nodes;
    char node_list[256];
    uint32_t freq_req_khz;
    double consumed_energy_j;    /* < 0: not accounted */
    char comment[256];
} db_accounting_t;

/* Upsert accounting rows (one transaction). */
int db_accounting_upsert (db_t *db, const db_accounting_t *rows, size_t n,
                          ms_error_t *errp);

/* ---- predictor integration (models.c, fit.c) ---- */

/* Learning runs for the predictor: one per job (node rows summed, power
 * per node), arch = the partition's architecture, freq = the requested
 * frequency or the partition's nominal one. Only runs with a runtime and
 * some energy, root-measured unless include_user_reported. app may be
 * NULL (all). */
typedef struct db_runs db_runs_t;
int db_runs_load (db_t *db, const char *app, bool include_user_reported,
                  db_runs_t **runsp, ms_error_t *errp);
/* The runs as the predictor takes them (predictor/predictor.h pred_run_t);
 * pointers stay valid until db_runs_free. */
const pred_run_t *db_runs_get (const db_runs_t *r, size_t *n);
void db_runs_free (db_runs_t *r);

/* A fitted model row. */
typedef struct {
    char kind[64];          /* "ear_pair", "cross_arch", ... */
    char scope[257];        /* what it applies to, e.g. "skx:2700000:2000000" */
    int version;            /* assigned by db_model_store */
    double coef[64];
    size_t ncoef;
    double r2;              /* NaN: none */
    double residual_sd;     /* NaN: none */
    int n;                  /* observations */
    char detail_json[1024]; /* other statistics, a JSON object */
} db_model_t;

/* Store a new version of (kind, scope); m->version gets it. */
int db_model_store (db_t *db, db_model_t *m, ms_error_t *errp);
/* Load version `version` (0: the newest) of (kind, scope). */
int db_model_load (db_t *db, const char *kind, const char *scope, int version,
                   db_model_t *m, ms_error_t *errp);

/* The predictor's architectures from the partitions table (one per
 * distinct architecture). */
int db_predictor_archs (db_t *db, predictor_t *p, size_t *narchs,
                        ms_error_t *errp);
/* Load the learning runs, set the apps' signatures, fit every
 * architecture's EAR frequency model (predictor_fit) and store each fitted
 * (reference, target) pair as a new version of model kind "ear_pair",
 * scope "ARCH:REF_KHZ:F_KHZ", coefficients A..F, with its fit statistics.
 * Only runs with CPI (cycles and instructions counted) are learning runs;
 * *nruns gets their number, *stored the number of model rows written. */
int db_fit_and_store (db_t *db, predictor_t *p, pred_fitmode_t mode,
                      size_t *nruns, size_t *stored, ms_error_t *errp);

/* A predictor ready to decide from what the database holds: the
 * architectures, the apps' signatures from the learning runs, and the
 * newest stored version of every "ear_pair" model (the pairs not stored
 * stay missing). *npairs gets the number of pairs loaded. */
int db_predictor_load (db_t *db, predictor_t *p, size_t *npairs,
                       ms_error_t *errp);

/* The speedup models of moldable jobs (predictor/speedup.h): per app,
 * Amdahl's law fitted to its jobs' runtimes (one per job: its longest
 * node row) on the partition where the app ran at the most distinct node
 * counts (two at least; ties: the most jobs), jobs of any frequency. *out
 * gets malloc'd entries (free them), *n their number. */
typedef struct {
    char app[128];
    char cluster[64], partition[64]; /* where the runs came from */
    ms_speedup_t sp;
} db_speedup_t;
int db_speedup_load (db_t *db, db_speedup_t **out, size_t *n,
                     ms_error_t *errp);

/* ---- the site's history, for a replay (replay.c) ---- */

/* One job that ran, as measured: its node rows summed (job_run_totals),
 * with the meta job that dispatched it where there was one. Times are
 * Unix seconds. */
typedef struct {
    char cluster[64];
    char partition[64];
    char app[129];
    char user_name[65];
    uint64_t slurm_job_id;
    int64_t meta_id;       /* jobs.id; 0: submitted outside metasched */
    double submit;         /* jobs.submitted_at; the start when no meta job */
    double start, end;
    int nodes;
    int node_rows;         /* nodes that reported energy */
    uint32_t freq_khz;     /* requested; 0: the partition's default */
    double runtime_s;
    double energy_j;       /* package + DRAM of the node rows; 0: none */
    double limit_s;        /* the user's time limit; 0: none */
    int components;        /* a heterogeneous job's (its runs taken
                              together, nodes and energy summed); 1 */
    char *options;         /* the meta job's options (JSON object text,
                              job_options: its GPUs); NULL: no meta job */
    char *comps;           /* a heterogeneous job's components in offset
                              order, JSON [[partition, nodes], ...];
                              NULL for one of one component */
} db_replay_job_t;

/* Every job with a runtime that ended at or after `since` (Unix time),
 * in submit order; the caller frees *jobsp. A SELECT only: the report
 * role may run it. */
int db_replay_load (db_t *db, double since, db_replay_job_t **jobsp,
                    size_t *np, ms_error_t *errp);
void db_replay_free (db_replay_job_t *jobs, size_t n);

/* A job metaschedd decided, as it counts it in its job mix (the drain
 * price's counts, the calibration's fronts, the observed waits): its
 * owner, app, size and limit as it was decided, and when it started and
 * finished. */
typedef struct {
    char owner[65];
    char app[129]; /* "" : none given */
    int nodes;
    uint32_t limit_min; /* the user's time limit; 0: none */
    double submit;      /* Unix seconds */
    char *options;      /* the submission's options (JSON object text) */
    double started, finished; /* Unix seconds; 0: not (yet) */
    double eligible; /* when its wait began: its submission, or its
                        --begin (options' begin_time) where later */
    int64_t id;
    bool in_queue; /* not ended: queued, deciding, dispatching, submitted
                      or running (it may be decided again) */
} db_decided_job_t;

/* The last `max` jobs with a decision submitted before `before` (Unix
 * time; 0: any), oldest first: what metaschedd re-reads at its start
 * (daemon_mix_history), and what a replay of the history counts before
 * its window (simulate --from-db). Free with db_decided_free. A SELECT
 * only: the report role may run it. */
int db_replay_decided (db_t *db, double before, size_t max,
                       db_decided_job_t **jobsp, size_t *np, ms_error_t *errp);
void db_decided_free (db_decided_job_t *jobs, size_t n);

#endif /* MS_DB_H */
