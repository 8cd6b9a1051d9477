/* bench_db.c - insert rate of job_runs rows into the test bed's PostgreSQL
 * as the collector role: one row per transaction (an epilog) against
 * batches of 1000 rows per transaction (`metasched collect flush`).
 * Prints rows per second and the ratio (target: at least 5,000 rows/s
 * batched). Works in a scratch database that it drops afterwards. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "tests/testbed_env.h"

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
super (const char *sql)
{
    PGconn *c = PQconnectdb (getenv ("MS_PG_SUPER_CONNINFO"));
    PGresult *r = PQexec (c, sql);
    int ok = PQresultStatus (r) == PGRES_COMMAND_OK;
    if (!ok)
        fprintf (stderr, "bench_db: %s: %s", sql, PQerrorMessage (c));
    PQclear (r);
    PQfinish (c);
    return ok ? 0 : -1;
}

static db_t *
open_as (const char *var, const char *dbname)
{
    db_opts_t o;
    db_t *db;
    ms_error_t e;
    memset (&o, 0, sizeof (o));
    o.conninfo = getenv (var);
    o.dbname = dbname;
    if (db_open (&o, &db, &e) < 0) {
        fprintf (stderr, "bench_db: %s\n", e.text);
        exit (1);
    }
    return db;
}

int
main (int argc, char **argv)
{
    size_t n_single = argc > 1 ? (size_t)atol (argv[1]) : 2000,
           n_batch = argc > 2 ? (size_t)atol (argv[2]) : 50000;
    char why[512], name[64], sql[160];
    db_t *owner, *coll;
    db_job_run_t *rows;
    ms_error_t e;
    double t, single_rate, batch_rate;
    size_t total = n_single + n_batch, ins;

    if (testbed_env_load (why, sizeof (why)) < 0) {
        printf ("bench_db: skipped: %s\n", why);
        return 0;
    }
    snprintf (name, sizeof (name), "ms_bench_db_%ld", (long)getpid ());
    snprintf (sql, sizeof (sql), "CREATE DATABASE %s OWNER ms_daemon", name);
    if (super (sql) < 0)
        return 1;
    owner = open_as ("MS_PG_CONNINFO", name);
    if (db_migrate (owner, 0, NULL, NULL, 0, &e) < 0
        || db_command (owner, "b_cluster",
                       "INSERT INTO clusters (name) VALUES ('alpha')", 0, NULL,
                       NULL, &e) < 0
        || db_command (owner, "b_part",
                       "INSERT INTO partitions (cluster, name, architecture,"
                       " nodes, cores_per_node, freqs_khz, nominal_khz,"
                       " idle_power_w) VALUES ('alpha', 'batch', 'skx', 4, 48,"
                       " '{2000000,2700000}', 2700000, 110)",
                       0, NULL, NULL, &e) < 0) {
        fprintf (stderr, "bench_db: %s\n", e.text);
        return 1;
    }
    coll = open_as ("MS_PG_COLLECTOR_CONNINFO", name);
    rows = calloc (total, sizeof (*rows));
    for (size_t i = 0; i < total; i++) {
        db_job_run_t *r = &rows[i];
        db_job_run_init (r);
        strcpy (r->cluster, "alpha");
        strcpy (r->partition, "batch");
        r->slurm_job_id = i + 1;
        snprintf (r->node, sizeof (r->node), "a%zu", i % 4 + 1);
        snprintf (r->app, sizeof (r->app), "app%zu", i % 20);
        strcpy (r->user_name, "msuser");
        r->freq_req_khz = i % 2 ? 2000000 : 2700000;
        r->start_time = 1700000000 + (double)i;
        r->end_time = r->start_time + 60;
        r->runtime_s = 60;
        r->pkg_energy_j = 12000 + (double)(i % 100);
        r->dram_energy_j = 800;
        r->avg_power_w = 213;
        strcpy (r->counters_json, "{\"perf::TASK-CLOCK\": 59000000000}");
        strcpy (r->events_used, "perf::TASK-CLOCK");
        strcpy (r->events_unavailable, "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM");
        strcpy (r->collector_version, "bench");
    }
    t = now ();
    for (size_t i = 0; i < n_single; i++)
        if (db_job_runs_insert (coll, &rows[i], 1, NULL, &e) < 0) {
            fprintf (stderr, "bench_db: %s\n", e.text);
            return 1;
        }
    single_rate = (double)n_single / (now () - t);
    t = now ();
    for (size_t i = n_single; i < total; i += 1000) {
        size_t k = total - i < 1000 ? total - i : 1000;
        if (db_job_runs_insert (coll, &rows[i], k, &ins, &e) < 0 || ins != k) {
            fprintf (stderr, "bench_db: %s\n", e.text);
            return 1;
        }
    }
    batch_rate = (double)n_batch / (now () - t);
    printf ("job_runs insert rate into PostgreSQL (collector role)\n");
    printf ("  one row per transaction (epilog):  %10.0f rows/s  (%zu rows)\n",
            single_rate, n_single);
    printf ("  1000 rows per transaction (flush): %10.0f rows/s  (%zu rows)\n",
            batch_rate, n_batch);
    printf ("  batched / single:                  %10.1fx  (target: >= 5000 rows/s batched)\n",
            batch_rate / single_rate);
    free (rows);
    db_close (coll);
    db_close (owner);
    snprintf (sql, sizeof (sql), "DROP DATABASE %s WITH (FORCE)", name);
    super (sql);
    return 0;
}
