/* test_db.c - the schema and the access layer on the test bed's real
 * PostgreSQL: migrations (fresh, re-run, upgrade keeping data), the
 * constraints, least privilege of the collector and report roles, batched
 * exactly-once inserts, reconnect after the server drops us, and the
 * predictor's runs and models.
 *
 * Each test works in its own scratch database (created by the superuser,
 * owned by ms_daemon like the real one) so that the test bed's database
 * is never touched and "fresh" really is fresh. */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "partitions/clusterconf.h"
#include "tests/testbed_env.h"
#include "tests/testutil.h"

static char scratch[64];

static void
no_notice (void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static PGconn *
super (void)
{
    PGconn *c = PQconnectdb (testbed_get ("MS_PG_SUPER_CONNINFO"));
    ck_assert_msg (PQstatus (c) == CONNECTION_OK, "%s", PQerrorMessage (c));
    PQsetNoticeProcessor (c, no_notice, NULL);
    return c;
}

static void
super_exec (const char *sql)
{
    PGconn *c = super ();
    PGresult *r = PQexec (c, sql);
    ck_assert_msg (PQresultStatus (r) == PGRES_COMMAND_OK, "%s: %s", sql,
                   PQerrorMessage (c));
    PQclear (r);
    PQfinish (c);
}

static void
setup (void)
{
    char sql[160];
    snprintf (scratch, sizeof (scratch), "ms_test_db_%ld", (long)getpid ());
    snprintf (sql, sizeof (sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
              scratch);
    super_exec (sql);
    snprintf (sql, sizeof (sql), "CREATE DATABASE %s OWNER ms_daemon", scratch);
    super_exec (sql);
}

static void
teardown (void)
{
    char sql[160];
    snprintf (sql, sizeof (sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
              scratch);
    super_exec (sql);
}

/* Connect to the scratch database as one of the roles. */
static db_t *
open_as (const char *var)
{
    db_opts_t o;
    db_t *db;
    ms_error_t e;

    memset (&o, 0, sizeof (o));
    o.conninfo = testbed_get (var);
    o.dbname = scratch;
    o.retry_max_ms = 2000;
    ck_assert_msg (db_open (&o, &db, &e) == 0, "%s: %s", var, e.text);
    return db;
}

/* How many migrations the program holds (numbers may have gaps, so not
 * always db_schema_latest ()). */
static int
nmig (void)
{
    size_t n;
    db_migrations (&n);
    return (int)n;
}

static void
migrate (db_t *db, int target, int expect_applied)
{
    int applied = -1;
    char missing[64];
    ms_error_t e;

    ck_assert_msg (db_migrate (db, target, &applied, missing, sizeof (missing),
                               &e) == 0,
                   "migrate: %s", e.text);
    ck_assert_int_eq (applied, expect_applied);
}

static void
sql_ok (db_t *db, const char *sql)
{
    ms_error_t e;
    ck_assert_msg (db_command (db, "t_ok", sql, 0, NULL, NULL, &e) == 0,
                   "%s: %s", sql, e.text);
}

/* The statement fails with this SQL state. */
static void
sql_fails (db_t *db, const char *sql, const char *state)
{
    ms_error_t e;
    ck_assert_msg (db_command (db, "t_fail", sql, 0, NULL, NULL, &e) == -1,
                   "accepted: %s", sql);
    ck_assert_msg (!strcmp (e.sqlstate, state), "%s: SQLSTATE %s, wanted %s (%s)",
                   sql, e.sqlstate, state, e.text);
    ck_assert (strstr (e.text, "statement t_fail") != NULL);
}

static long
count (db_t *db, const char *sql)
{
    ms_error_t e;
    PGresult *r = db_exec (db, "t_count", sql, 0, NULL, &e);
    long n;
    ck_assert_msg (r != NULL, "%s: %s", sql, e.text);
    n = atol (PQgetvalue (r, 0, 0));
    PQclear (r);
    return n;
}

static void
site (db_t *db)
{
    sql_ok (db, "INSERT INTO clusters (name) VALUES ('alpha')");
    sql_ok (db, "INSERT INTO partitions (cluster, name, architecture, nodes,"
                " cores_per_node, freqs_khz, nominal_khz, idle_power_w)"
                " VALUES ('alpha', 'batch', 'skx8168', 4, 48,"
                " '{1200000,2000000,2700000}', 2700000, 110)");
}

static void
row (db_job_run_t *r, uint64_t id, const char *app, uint32_t f)
{
    db_job_run_init (r);
    strcpy (r->cluster, "alpha");
    strcpy (r->partition, "batch");
    r->slurm_job_id = id;
    strcpy (r->node, "a1");
    strcpy (r->app, app);
    strcpy (r->user_name, "msuser");
    r->freq_req_khz = f;
    r->start_time = 1700000000;
    r->end_time = 1700000100;
    r->runtime_s = 100;
    r->pkg_energy_j = 20000;
    r->dram_energy_j = 1000;
    strcpy (r->collector_version, "test");
}

START_TEST (fresh_install)
{
    db_t *db = open_as ("MS_PG_CONNINFO");
    int v = -1;
    ms_error_t e;

    ck_assert_int_eq (db_schema_version (db, &v, &e), 0);
    ck_assert_int_eq (v, 0);
    migrate (db, 0, nmig ());
    ck_assert_int_eq (db_schema_version (db, &v, &e), 0);
    ck_assert_int_eq (v, db_schema_latest ());
    ck_assert_int_eq (count (db, "SELECT count (*) FROM schema_migrations"),
                      nmig ());
    /* every table of doc/architecture.md "Database", owned by the
     * daemon's role */
    ck_assert_int_eq (count (db, "SELECT count (*) FROM pg_tables WHERE"
                                 " schemaname = 'public' AND tableowner ="
                                 " 'ms_daemon' AND tablename IN ('clusters',"
                                 " 'partitions', 'apps', 'job_runs', 'jobs',"
                                 " 'decisions', 'models', 'settings')"),
                      8);
    ck_assert_int_eq (count (db, "SELECT count (*) FROM settings"), 3);
    db_close (db);
}
END_TEST

START_TEST (rerun_is_a_no_op)
{
    db_t *db = open_as ("MS_PG_CONNINFO");
    long objects;

    migrate (db, 0, nmig ());
    objects = count (db, "SELECT count (*) FROM pg_class c JOIN pg_namespace n"
                         " ON n.oid = c.relnamespace WHERE nspname = 'public'");
    migrate (db, 0, 0);
    migrate (db, 0, 0);
    ck_assert_int_eq (count (db, "SELECT count (*) FROM pg_class c JOIN"
                                 " pg_namespace n ON n.oid = c.relnamespace"
                                 " WHERE nspname = 'public'"),
                      objects);
    ck_assert_int_eq (count (db, "SELECT count (*) FROM schema_migrations"),
                      nmig ());
    db_close (db);
}
END_TEST

START_TEST (upgrade_keeps_data)
{
    db_t *db = open_as ("MS_PG_CONNINFO");
    ms_error_t e;
    int v;

    ck_assert_int_ge (db_schema_latest (), 2);
    migrate (db, db_schema_latest () - 1, nmig () - 1);
    site (db);
    /* a run as the previous version stored it: its columns only (this
     * program's insert may name columns the last migration adds) */
    sql_ok (db, "INSERT INTO apps (name) VALUES ('lu.C') ON CONFLICT DO NOTHING");
    sql_ok (db, "INSERT INTO job_runs (cluster, partition, slurm_job_id,"
                " node, app, user_name, nodes, freq_req_khz, start_time,"
                " end_time, runtime_s, pkg_energy_j, dram_energy_j, source,"
                " collector_version) VALUES ('alpha', 'batch', 77, 'a1',"
                " 'lu.C', 'msuser', 1, 2000000, to_timestamp (1700000000),"
                " to_timestamp (1700000100), 100, 20000, 1000, 'root-measured',"
                " 'test')");
    sql_ok (db, "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script)"
                " VALUES (1001, 1001, 'msuser', '#!/bin/sh\ntrue\n')");
    sql_ok (db, "UPDATE settings SET value = '0.7' WHERE key = 'weight_energy'");
    migrate (db, 0, 1);
    ck_assert_int_eq (db_schema_version (db, &v, &e), 0);
    ck_assert_int_eq (v, db_schema_latest ());
    ck_assert_int_eq (count (db, "SELECT count (*) FROM job_runs WHERE"
                                 " slurm_job_id = 77 AND app = 'lu.C'"
                                 " AND pkg_energy_j = 20000"),
                      1);
    ck_assert_int_eq (count (db, "SELECT count (*) FROM jobs"), 1);
    ck_assert_int_eq (count (db, "SELECT (value::text = '0.7')::int FROM"
                                 " settings WHERE key = 'weight_energy'"),
                      1);
    /* and what the new version added works on the old rows */
    ck_assert_int_eq (count (db, "SELECT count (*) FROM job_run_totals"), 1);
    db_close (db);
}
END_TEST

START_TEST (constraints_reject_nonsense)
{
    db_t *db = open_as ("MS_PG_CONNINFO");
    const char *ins = "INSERT INTO job_runs (cluster, partition, slurm_job_id,"
                      " node, app, user_name, nodes, freq_req_khz, start_time,"
                      " end_time, runtime_s, source, collector_version) VALUES";
    char sql[1024];

    migrate (db, 0, nmig ());
    site (db);
    snprintf (sql, sizeof (sql), "%s ('alpha', 'batch', 1, 'a1', 'x', 'u', 1,"
              " 2000000, now (), now (), -1, 'root-measured', 't')", ins);
    sql_fails (db, sql, "23514"); /* negative runtime */
    snprintf (sql, sizeof (sql), "%s ('alpha', 'nosuch', 1, 'a1', 'x', 'u', 1,"
              " NULL, now (), now (), 1, 'root-measured', 't')", ins);
    sql_fails (db, sql, "23503"); /* unknown partition */
    snprintf (sql, sizeof (sql), "%s ('alpha', 'batch', 1, 'a1', 'x', 'u', 1,"
              " 2100000, now (), now (), 1, 'root-measured', 't')", ins);
    sql_fails (db, sql, "23514"); /* frequency not offered */
    snprintf (sql, sizeof (sql), "%s ('alpha', 'batch', 1, 'a1', 'x', 'u', 1,"
              " NULL, now (), now () - interval '1 s', 1, 'root-measured', 't')",
              ins);
    sql_fails (db, sql, "23514"); /* ends before it starts */
    snprintf (sql, sizeof (sql), "%s ('alpha', 'batch', 1, 'a1', 'x', 'u', 1,"
              " NULL, now (), now (), 1, 'guessed', 't')", ins);
    sql_fails (db, sql, "23514"); /* unknown source */
    sql_fails (db, "INSERT INTO clusters (name) VALUES ('a b')", "23514");
    sql_fails (db, "INSERT INTO partitions (cluster, name, architecture, nodes,"
                   " cores_per_node, freqs_khz, nominal_khz, idle_power_w)"
                   " VALUES ('alpha', 'p2', 'x', 1, 1, '{1000000}', 2000000, 1)",
               "23514"); /* nominal frequency not offered */
    /* the job state machine */
    sql_ok (db, "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script)"
                " VALUES (1001, 1001, 'msuser', '#!/bin/sh')");
    sql_fails (db, "UPDATE jobs SET state = 'completed'", "23514");
    sql_ok (db, "UPDATE jobs SET state = 'deciding'");
    sql_ok (db, "UPDATE jobs SET state = 'cancelled'");
    sql_fails (db, "UPDATE jobs SET state = 'queued'", "23514");
    /* a decided job goes from queued straight to dispatching (migration
     * 5), and never back to deciding */
    sql_ok (db, "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script)"
                " VALUES (1001, 1001, 'msuser', '#!/bin/sh')");
    sql_ok (db, "UPDATE jobs SET state = 'dispatching' WHERE state = 'queued'");
    sql_fails (db, "UPDATE jobs SET state = 'deciding' WHERE state ="
                   " 'dispatching'",
               "23514");
    sql_fails (db, "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script)"
                   " VALUES (-1, 0, 'x', 'y')",
               "23514");
    /* a valid row goes in, and registers its app */
    snprintf (sql, sizeof (sql), "%s ('alpha', 'batch', 1, 'a1', 'newapp', 'u',"
              " 1, 1200000, now (), now (), 1, 'root-measured', 't')", ins);
    sql_ok (db, sql);
    ck_assert_int_eq (count (db, "SELECT count (*) FROM apps WHERE name ="
                                 " 'newapp'"),
                      1);
    db_close (db);
}
END_TEST

/* metasched_jobs carries a job's id and state when it is queued or
 * cancelled, the changes that wake the daemon, and nothing for the
 * others. */
START_TEST (notices_for_queued_and_cancelled)
{
    db_t *db = open_as ("MS_PG_CONNINFO"), *l = open_as ("MS_PG_CONNINFO");
    PGconn *lc = db_conn (l);
    char want[2][64], got[8][64];
    int ngot = 0;
    long id;

    migrate (db, 0, nmig ());
    sql_ok (l, "LISTEN metasched_jobs");
    sql_ok (db, "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script)"
                " VALUES (1001, 1001, 'msuser', '#!/bin/sh')");
    id = count (db, "SELECT max (id) FROM jobs");
    sql_ok (db, "UPDATE jobs SET state = 'dispatching' WHERE state = 'queued'");
    sql_ok (db, "UPDATE jobs SET state = 'cancelled' WHERE state ="
                " 'dispatching'");
    snprintf (want[0], sizeof (want[0]), "%ld queued", id);
    snprintf (want[1], sizeof (want[1]), "%ld cancelled", id);
    /* all three commits are done: wait up to 5 s for the two notices,
     * then a moment more for any that should not come */
    for (int t = 0; t < 60 && ngot < 3; t++) {
        PGnotify *n;
        usleep (100000);
        ck_assert (PQconsumeInput (lc));
        while ((n = PQnotifies (lc))) {
            if (ngot < 8)
                snprintf (got[ngot++], sizeof (got[0]), "%s", n->extra);
            PQfreemem (n);
        }
        if (ngot == 2 && t < 50)
            t = 50;
    }
    ck_assert_msg (ngot == 2, "%d notices (wanted 2: '%s', '%s'), the first "
                              "'%s'",
                   ngot, want[0], want[1], ngot ? got[0] : "");
    ck_assert_str_eq (got[0], want[0]);
    ck_assert_str_eq (got[1], want[1]);
    db_close (l);
    db_close (db);
}
END_TEST

START_TEST (least_privilege)
{
    db_t *owner = open_as ("MS_PG_CONNINFO"), *coll, *rep;
    db_job_run_t r;
    size_t inserted = 0;
    ms_error_t e;

    migrate (owner, 0, nmig ());
    site (owner);
    sql_ok (owner, "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script)"
                   " VALUES (1001, 1001, 'msuser', '#!/bin/sh')");
    coll = open_as ("MS_PG_COLLECTOR_CONNINFO");
    ck_assert_str_eq (db_user (coll), "ms_collector");
    /* the collector may insert job_runs rows ... */
    row (&r, 5, "stream", 1200000);
    ck_assert_msg (db_job_runs_insert (coll, &r, 1, &inserted, &e) == 0, "%s",
                   e.text);
    ck_assert_uint_eq (inserted, 1);
    /* ... and nothing else */
    sql_fails (coll, "SELECT * FROM jobs", "42501");
    sql_fails (coll, "SELECT * FROM settings", "42501");
    sql_fails (coll, "SELECT * FROM job_runs", "42501");
    sql_fails (coll, "UPDATE job_runs SET runtime_s = 1", "42501");
    sql_fails (coll, "DELETE FROM job_runs", "42501");
    sql_fails (coll, "UPDATE settings SET value = '1'", "42501");
    sql_fails (coll, "DELETE FROM jobs", "42501");
    sql_fails (coll, "INSERT INTO apps (name) VALUES ('x')", "42501");
    sql_fails (coll, "INSERT INTO settings (key, value) VALUES ('x', '1')",
               "42501");
    sql_fails (coll, "TRUNCATE job_runs", "42501");
    sql_fails (coll, "CREATE TABLE mine (x int)", "42501");
    /* a refusal is an authorization error, not a generic one */
    ck_assert_int_eq (db_command (coll, "t_auth", "DELETE FROM settings", 0,
                                  NULL, NULL, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_AUTH);
    sql_fails (coll, "UPDATE leader_lease SET holder = 'x'", "42501");
    db_close (coll);
    /* the report role reads everything and writes nothing */
    rep = open_as ("MS_PG_REPORT_CONNINFO");
    ck_assert_int_eq (count (rep, "SELECT count (*) FROM job_runs"), 1);
    ck_assert_int_eq (count (rep, "SELECT count (*) FROM jobs"), 1);
    ck_assert_int_eq (count (rep, "SELECT count (*) FROM settings"), 3);
    ck_assert_int_eq (count (rep, "SELECT count (*) FROM job_reconciliation"), 0);
    ck_assert_int_eq (db_job_runs_insert (rep, &r, 1, NULL, &e), -1);
    ck_assert_str_eq (e.sqlstate, "42501");
    sql_fails (rep, "UPDATE settings SET value = '1'", "42501");
    sql_fails (rep, "DELETE FROM job_runs", "42501");
    sql_fails (rep, "INSERT INTO jobs (owner_uid, owner_gid, owner_name, script)"
                    " VALUES (0, 0, 'root', 'x')",
               "42501");
    sql_fails (rep, "UPDATE jobs SET state = 'cancelled'", "42501");
    /* what users wrote: never the report role's (0011) */
    sql_fails (rep, "SELECT script FROM jobs", "42501");
    sql_fails (rep, "SELECT options FROM jobs", "42501");
    /* leadership: the daemon's role only (0010) */
    sql_fails (rep, "UPDATE leader_lease SET holder = 'x'", "42501");
    db_close (rep);
    db_close (owner);
}
END_TEST

START_TEST (inserts_exactly_once_in_batches)
{
    db_t *db = open_as ("MS_PG_CONNINFO");
    db_job_run_t *rows = calloc (250, sizeof (*rows));
    size_t inserted = 0;
    ms_error_t e;

    migrate (db, 0, nmig ());
    site (db);
    for (int i = 0; i < 250; i++)
        row (&rows[i], 1000 + (uint64_t)i, i % 2 ? "a" : "b", 0);
    rows[7].cpi = 1.25;
    rows[7].cycles = 125;
    rows[7].instructions = 100;
    ck_assert_int_eq (db_job_runs_insert (db, rows, 250, &inserted, &e), 0);
    ck_assert_uint_eq (inserted, 250);
    /* a spool flushed again after a crash: nothing doubles */
    ck_assert_int_eq (db_job_runs_insert (db, rows, 250, &inserted, &e), 0);
    ck_assert_uint_eq (inserted, 0);
    ck_assert_int_eq (count (db, "SELECT count (*) FROM job_runs"), 250);
    ck_assert_int_eq (count (db, "SELECT count (*) FROM job_runs WHERE"
                                 " freq_req_khz IS NULL AND cpi = 1.25"
                                 " AND cycles = 125"),
                      1);
    /* one bad row rolls its whole call back */
    row (&rows[0], 5000, "c", 0);
    row (&rows[1], 5001, "c", 0);
    rows[1].runtime_s = -4;
    ck_assert_int_eq (db_job_runs_insert (db, rows, 2, NULL, &e), -1);
    ck_assert_str_eq (e.sqlstate, "23514");
    ck_assert_int_eq (count (db, "SELECT count (*) FROM job_runs WHERE"
                                 " slurm_job_id >= 5000"),
                      0);
    free (rows);
    db_close (db);
}
END_TEST

START_TEST (reconnects_when_dropped)
{
    db_t *db = open_as ("MS_PG_CONNINFO");
    PGconn *su = super ();
    char sql[128];
    PGresult *r;
    ms_error_t e;

    ck_assert_int_eq (count (db, "SELECT 1"), 1);
    snprintf (sql, sizeof (sql), "SELECT pg_terminate_backend (%d)",
              PQbackendPID (db_conn (db)));
    r = PQexec (su, sql);
    ck_assert_int_eq (PQresultStatus (r), PGRES_TUPLES_OK);
    PQclear (r);
    PQfinish (su);
    usleep (200000);
    /* the next statement notices, reconnects and succeeds */
    ck_assert_int_eq (count (db, "SELECT 2"), 2);
    ck_assert_uint_eq (db_reconnects (db), 1);
    /* errors name the statement and carry the SQL state */
    ck_assert_ptr_null (db_exec (db, "lookup_missing", "SELECT * FROM nosuch",
                                 0, NULL, &e));
    ck_assert_str_eq (e.sqlstate, "42P01");
    ck_assert_int_eq (e.kind, MS_ERR_DB);
    ck_assert (strstr (e.text, "statement lookup_missing") != NULL);
    db_close (db);
}
END_TEST

START_TEST (secrets_stay_in_0600_files)
{
    char dir[] = "/tmp/ms-pass-XXXXXX", path[128], conninfo[1024];
    db_opts_t o;
    db_t *db;
    ms_error_t e;
    FILE *f, *in;
    char line[512];

    ck_assert_ptr_nonnull (mkdtemp (dir));
    snprintf (path, sizeof (path), "%s/pgpass", dir);
    f = fopen (path, "w");
    in = fopen (testbed_get ("MS_PG_PASSFILE"), "r");
    ck_assert_ptr_nonnull (in);
    while (fgets (line, sizeof (line), in))
        fputs (line, f);
    fclose (in);
    fclose (f);
    chmod (path, 0644);
    snprintf (conninfo, sizeof (conninfo),
              "host=%s port=%s dbname=%s user=ms_daemon passfile=%s",
              testbed_get ("MS_PG_HOST"), testbed_get ("MS_PG_PORT"), scratch,
              path);
    memset (&o, 0, sizeof (o));
    o.conninfo = conninfo;
    ck_assert_int_eq (db_open (&o, &db, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_AUTH);
    ck_assert (strstr (e.text, "chmod 600") != NULL);
    chmod (path, 0600);
    ck_assert_msg (db_open (&o, &db, &e) == 0, "%s", e.text);
    db_close (db);
    /* a password in the connection string is refused, and not echoed */
    o.conninfo = "dbname=metasched password=hunter2";
    ck_assert_int_eq (db_open (&o, &db, &e), -1);
    ck_assert (strstr (e.text, "hunter2") == NULL);
    unlink (path);
    rmdir (dir);
}
END_TEST

START_TEST (predictor_runs_and_models)
{
    db_t *db = open_as ("MS_PG_CONNINFO");
    ms_siteconf_t *conf;
    predictor_t *p;
    db_runs_t *runs;
    const pred_run_t *rv;
    size_t n, nruns = 0, stored = 0;
    db_model_t m, back;
    ms_error_t e;
    uint64_t id = 1;
    /* five apps with different power and memory intensity, two runs each
     * at the nominal 2.7 GHz and at 2.0 GHz on skx8168 */
    static const double pw[5] = { 300, 340, 280, 360, 310 },
                        tpi[5] = { 0.01, 0.05, 0.002, 0.08, 0.03 },
                        cpi[5] = { 0.8, 1.4, 0.6, 2.0, 1.1 };

    migrate (db, 0, nmig ());
    ck_assert_msg (clusterconf_load (testbed_get ("MS_CLUSTERS_CONF"), &conf, &e)
                       == 0, "%s", e.text);
    ck_assert_msg (db_sync_site (db, conf, &n, &e) == 0, "%s", e.text);
    ck_assert_uint_eq (n, conf->nparts);
    clusterconf_free (conf);
    for (int a = 0; a < 5; a++)
        for (int k = 0; k < 2; k++)
            for (int rep = 0; rep < 2; rep++) {
                db_job_run_t r;
                uint32_t f = k ? 2000000 : 2700000;
                double scale = k ? 0.74 + 0.4 * tpi[a] : 1.0;
                char app[16];
                snprintf (app, sizeof (app), "app%d", a);
                row (&r, id++, app, f);
                r.nodes = 2;
                r.runtime_s = 100 / scale * (1 + 0.01 * rep);
                r.end_time = r.start_time + r.runtime_s;
                /* two node rows would be summed; one row with both nodes'
                 * energy is the same for the loader */
                r.pkg_energy_j = 2 * pw[a] * scale * r.runtime_s;
                r.dram_energy_j = 0;
                r.cpi = cpi[a] * (k ? 1 - tpi[a] : 1) * (1 + 0.02 * rep);
                r.tpi = tpi[a];
                ck_assert_msg (db_job_runs_insert (db, &r, 1, NULL, &e) == 0,
                               "%s", e.text);
            }
    ck_assert_int_eq (db_runs_load (db, "app1", false, &runs, &e), 0);
    rv = db_runs_get (runs, &n);
    ck_assert_uint_eq (n, 4);
    ck_assert_str_eq (rv[0].arch, "skx8168");
    ck_assert_uint_eq (rv[0].freq_khz, 2000000); /* ordered by frequency */
    /* power per node: the job's energy over runtime over nodes */
    ck_assert_double_eq_tol (rv[2].power_w, 340, 1e-6);
    ck_assert_double_eq_tol (rv[2].nodes, 2, 1e-12);
    db_runs_free (runs);

    p = predictor_new ();
    ck_assert_msg (db_fit_and_store (db, p, PRED_FIT_OLS, &nruns, &stored, &e)
                       == 0, "%s", e.text);
    ck_assert_uint_eq (nruns, 20);
    ck_assert_uint_eq (stored, 2); /* 2.7 -> 2.0 and 2.0 -> 2.7 GHz */
    ck_assert_int_eq (db_model_load (db, "ear_pair", "skx8168:2700000:2000000",
                                     0, &back, &e), 0);
    ck_assert_int_eq (back.version, 1);
    ck_assert_uint_eq (back.ncoef, 6);
    ck_assert_int_eq (back.n, 10);
    ck_assert (back.r2 <= 1);
    {
        /* a fresh predictor loads what was stored: the same coefficients */
        predictor_t *p2 = predictor_new ();
        pred_pairstat_t a, b;
        pred_signature_t sig;
        size_t npairs = 0;
        ck_assert_msg (db_predictor_load (db, p2, &npairs, &e) == 0, "%s",
                       e.text);
        ck_assert_uint_eq (npairs, 2);
        ck_assert_int_eq (predictor_pair_stat (p, "skx8168", 2700000, 2000000,
                                               &a, &e), 0);
        ck_assert_int_eq (predictor_pair_stat (p2, "skx8168", 2700000,
                                               2000000, &b, &e), 0);
        ck_assert (b.present);
        ck_assert_double_eq_tol (b.A, a.A, 1e-9);
        ck_assert_double_eq_tol (b.F, a.F, 1e-9);
        ck_assert_int_eq (predictor_pair_stat (p2, "skx8168", 2700000,
                                               1200000, &b, &e), 0);
        ck_assert (!b.present); /* never fitted: missing, not invented */
        ck_assert_int_eq (predictor_get_signature (p2, "app3", "skx8168", &sig,
                                                   &e), 0);
        ck_assert_double_eq_tol (sig.power_w, 360, 1e-3);
        predictor_free (p2);
    }
    predictor_free (p);

    /* a refit is a new version; older versions stay loadable */
    memset (&m, 0, sizeof (m));
    strcpy (m.kind, "ear_pair");
    strcpy (m.scope, "skx8168:2700000:2000000");
    for (int i = 0; i < 6; i++)
        m.coef[i] = i + 0.5;
    m.ncoef = 6;
    m.r2 = 0.9;
    m.residual_sd = NAN;
    m.n = 3;
    ck_assert_int_eq (db_model_store (db, &m, &e), 0);
    ck_assert_int_eq (m.version, 2);
    ck_assert_int_eq (db_model_load (db, "ear_pair", m.scope, 0, &back, &e), 0);
    ck_assert_int_eq (back.version, 2);
    ck_assert_double_eq (back.coef[5], 5.5);
    ck_assert (isnan (back.residual_sd));
    ck_assert_int_eq (db_model_load (db, "ear_pair", m.scope, 1, &back, &e), 0);
    ck_assert_int_eq (back.version, 1);
    ck_assert_int_eq (db_model_load (db, "ear_pair", "nope", 0, &back, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_MISSING);
    db_close (db);
}
END_TEST

int
main (void)
{
    char why[512];
    Suite *s;
    TCase *tc;

    if (testbed_env_load (why, sizeof (why)) < 0)
        return test_skip_all (why);
    {
        /* keep PostgreSQL up while this runs: test_collect.sh stops it
         * only under the exclusive lock (held until exit) */
        char lock[600];
        const char *run = getenv ("MS_TESTBED_RUN");
        int fd;
        snprintf (lock, sizeof (lock), "%s/pg-down.lock", run ? run : "/tmp");
        if ((fd = open (lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) >= 0)
            flock (fd, LOCK_SH);
    }
    s = suite_create ("db");
    tc = tcase_create ("postgres");
    tcase_add_checked_fixture (tc, setup, teardown);
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, fresh_install);
    tcase_add_test (tc, rerun_is_a_no_op);
    tcase_add_test (tc, upgrade_keeps_data);
    tcase_add_test (tc, constraints_reject_nonsense);
    tcase_add_test (tc, notices_for_queued_and_cancelled);
    tcase_add_test (tc, least_privilege);
    tcase_add_test (tc, inserts_exactly_once_in_batches);
    tcase_add_test (tc, reconnects_when_dropped);
    tcase_add_test (tc, secrets_stay_in_0600_files);
    tcase_add_test (tc, predictor_runs_and_models);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
