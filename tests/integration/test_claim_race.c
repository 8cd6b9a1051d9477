/* test_claim_race.c - the start gate's claim under contention, on the test
 * bed's real PostgreSQL (a scratch database, freshly migrated).
 *
 * Sibling copies of one meta job start on several clusters at once, and
 * each asks to run it; the claim is one conditional UPDATE of the job's
 * row (db_jobs_claim). Here NCLAIM claimers fire at the same instant:
 *
 *   database  NCLAIM threads, each on its own connection, call
 *             db_jobs_claim together; in one round another transaction
 *             holds the job's row lock until every claim waits on it, so
 *             all of them are in flight at once whatever the machine's load.
 *   wrappers  NCLAIM metasched-collect processes with METASCHED_GATE=1,
 *             half on each of two API servers sharing the database (as two
 *             metaschedd instances would), run a command that leaves a
 *             line in a file.
 *
 * Exactly one wins; every other gets the documented refusal (doc/daemon.md,
 * "Siblings and the start gate"): run false, HTTP 409 {"run": false}, and a
 * wrapper that exits 0 without running its command and notes gate=lost in
 * its counter file. */
#define _GNU_SOURCE /* asprintf */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "db/db.h"
#include "db/jobs.h"
#include "metasched/api/api.h"
#include "metasched/api/apireq.h"
#include "tests/testbed_env.h"
#include "tests/superdb.h"
#include "tests/testutil.h"

#define NCLAIM 8
#define ROUNDS 10

extern char **environ;

static char scratch[64];
static char collect_bin[4096]; /* "" : not built */

/* ---- the scratch database ---- */

static db_t *
open_scratch (void)
{
    db_opts_t o = { 0 };
    ms_error_t e;
    db_t *db;

    o.conninfo = getenv ("MS_PG_CONNINFO");
    o.dbname = scratch;
    o.retry_max_ms = 2000;
    ck_assert_msg (db_open (&o, &db, &e) == 0, "%s: %s", scratch, e.text);
    return db;
}

/* A queued job of this process's user, who claims it below (the API
 * takes the claimer from the MUNGE credential). */
static int64_t
new_job (db_t *db)
{
    struct passwd *pw = getpwuid (geteuid ());
    static const char body[]
        = "{\"script\": \"#!/bin/sh\\ntrue\\n\", \"cwd\": \"/tmp\","
          " \"name\": \"claim-race\"}";
    ms_apireq_t req;
    ms_error_t e;
    int64_t id = 0;

    ck_assert_msg (apireq_parse (body, strlen (body), NULL, &req, NULL, 0, &e)
                       == 0,
                   "%s", e.text);
    ck_assert_msg (pw != NULL, "uid %ld has no name", (long)geteuid ());
    ck_assert_msg (
        db_jobs_insert (db, geteuid (), getegid (), pw->pw_name, &req, &id, &e)
            == 0,
        "%s", e.text);
    apireq_free (&req);
    ck_assert_int_gt (id, 0);
    return id;
}

/* The claim the job's row holds: "cluster job" or "" when unclaimed. */
static void
claimed_by (db_t *db, int64_t id, char *out, size_t len)
{
    char sid[24];
    const char *p[1] = { sid };
    ms_error_t e;
    PGresult *r;

    snprintf (sid, sizeof (sid), "%lld", (long long)id);
    r = db_exec (db, "t_claimed",
                 "SELECT coalesce (claimed_cluster || ' ' || claimed_job_id,"
                 " '') FROM jobs WHERE id = $1::bigint",
                 1, p, &e);
    ck_assert_msg (r != NULL && PQntuples (r) == 1, "job %lld: %s",
                   (long long)id, r ? "no row" : e.text);
    snprintf (out, len, "%s", PQgetvalue (r, 0, 0));
    PQclear (r);
}

/* ---- claimers on their own connections ---- */

typedef struct {
    pthread_t thread;
    db_t *db;
    char cluster[16];
    int64_t cluster_job_id;
    int rc;
    bool run;
    ms_error_t e;
} claimer_t;

static claimer_t claimers[NCLAIM];
static pthread_barrier_t go, done;
static int64_t round_job;
static bool stop;

static void *
claimer_main (void *arg)
{
    claimer_t *c = arg;

    for (;;) {
        pthread_barrier_wait (&go);
        if (stop)
            break;
        c->run = false;
        ms_err_clear (&c->e);
        c->rc = db_jobs_claim (c->db, round_job, (long)geteuid (), c->cluster,
                               c->cluster_job_id, &c->run, &c->e);
        pthread_barrier_wait (&done);
    }
    return NULL;
}

/* One winner, the others refused (rc 0, run false), and the row names
 * the winner. */
static void
check_round (db_t *db, int64_t id, const char *what)
{
    char want[64], got[64];
    int winner = 0, nwon = 0;

    for (int i = 0; i < NCLAIM; i++) {
        claimer_t *c = &claimers[i];
        ck_assert_msg (c->rc == 0, "%s: claimer %d: %s", what, i, c->e.text);
        if (c->run) {
            nwon++;
            winner = i;
        }
    }
    ck_assert_msg (nwon == 1, "%s: %d of %d claimers won job %lld, wanted 1",
                   what, nwon, NCLAIM, (long long)id);
    snprintf (want, sizeof (want), "%s %lld", claimers[winner].cluster,
              (long long)claimers[winner].cluster_job_id);
    claimed_by (db, id, got, sizeof (got));
    ck_assert_msg (!strcmp (got, want),
                   "%s: job %lld claimed by '%s', the "
                   "winner was '%s'",
                   what, (long long)id, got, want);
}

/* Sessions of the scratch database waiting for a lock. */
static long
waiting_on_locks (db_t *watch)
{
    ms_error_t e;
    PGresult *r = db_exec (watch, "t_waiting",
                           "SELECT count (*) FROM pg_stat_activity"
                           " WHERE datname = current_database ()"
                           " AND wait_event_type = 'Lock'"
                           " AND pid <> pg_backend_pid ()",
                           0, NULL, &e);
    long n;

    ck_assert_msg (r != NULL, "pg_stat_activity: %s", e.text);
    n = atol (PQgetvalue (r, 0, 0));
    PQclear (r);
    return n;
}

START_TEST (claims_at_once_on_the_database)
{
    db_t *db = open_scratch (), *holder = open_scratch ();
    char sid[24];
    const char *p[1] = { sid };
    ms_error_t e;
    long waiting = 0;
    PGresult *r;

    for (int i = 0; i < NCLAIM; i++) {
        claimer_t *c = &claimers[i];
        memset (c, 0, sizeof (*c));
        snprintf (c->cluster, sizeof (c->cluster), "c%d", i);
        c->cluster_job_id = 1000 + i;
        c->db = open_scratch ();
    }
    stop = false;
    pthread_barrier_init (&go, NULL, NCLAIM + 1);
    pthread_barrier_init (&done, NULL, NCLAIM + 1);
    for (int i = 0; i < NCLAIM; i++)
        ck_assert_int_eq (pthread_create (&claimers[i].thread, NULL,
                                          claimer_main, &claimers[i]),
                          0);

    /* Round 1: another transaction holds the row; every claim blocks on
     * it, then all go at the commit. */
    round_job = new_job (db);
    snprintf (sid, sizeof (sid), "%lld", (long long)round_job);
    ck_assert_msg (db_begin (holder, &e) == 0, "%s", e.text);
    r = db_exec (holder, "t_hold",
                 "SELECT id FROM jobs WHERE id = $1::bigint FOR UPDATE", 1, p,
                 &e);
    ck_assert_msg (r != NULL, "%s", e.text);
    PQclear (r);
    pthread_barrier_wait (&go);
    for (int i = 0; i < 300 && waiting < NCLAIM; i++) { /* 30 s */
        struct timespec ts = { 0, 100000000 };
        nanosleep (&ts, NULL);
        waiting = waiting_on_locks (db);
    }
    ck_assert_msg (db_commit (holder, &e) == 0, "%s", e.text);
    pthread_barrier_wait (&done);
    ck_assert_msg (waiting == NCLAIM,
                   "only %ld of %d claims were seen waiting on the row lock",
                   waiting, NCLAIM);
    check_round (db, round_job, "claims released together");

    /* The claims again, from a start line and nothing else. */
    for (int k = 0; k < ROUNDS; k++) {
        char what[48];
        round_job = new_job (db);
        pthread_barrier_wait (&go);
        pthread_barrier_wait (&done);
        snprintf (what, sizeof (what), "round %d from a barrier", k + 1);
        check_round (db, round_job, what);
    }

    /* a job already claimed: every newcomer is refused */
    for (int i = 0; i < NCLAIM; i++)
        claimers[i].cluster_job_id += 100;
    pthread_barrier_wait (&go);
    pthread_barrier_wait (&done);
    for (int i = 0; i < NCLAIM; i++)
        ck_assert_msg (claimers[i].rc == 0 && !claimers[i].run,
                       "claimer %d won a job claimed before: %s", i,
                       claimers[i].e.text);

    stop = true;
    pthread_barrier_wait (&go);
    for (int i = 0; i < NCLAIM; i++) {
        pthread_join (claimers[i].thread, NULL);
        db_close (claimers[i].db);
    }
    pthread_barrier_destroy (&go);
    pthread_barrier_destroy (&done);
    db_close (holder);
    db_close (db);
}
END_TEST

/* ---- wrappers through the API ---- */

/* The API lets only a recorded submission of the job claim it (what
 * metaschedd dispatched): record each wrapper's (cluster, job) as one. */
static void
record_submissions (db_t *db, int64_t id)
{
    for (int i = 0; i < NCLAIM; i++) {
        char sid[24], cl[16], cj[16];
        const char *p[3] = { sid, cl, cj };
        ms_error_t e;
        PGresult *r;
        snprintf (sid, sizeof (sid), "%lld", (long long)id);
        snprintf (cl, sizeof (cl), "c%d", i);
        snprintf (cj, sizeof (cj), "%d", 2000 + i);
        r = db_exec (db, "t_cluster",
                     "INSERT INTO clusters (name) VALUES ($1)"
                     " ON CONFLICT DO NOTHING",
                     1, p + 1, &e);
        ck_assert_msg (r != NULL, "%s", e.text);
        PQclear (r);
        r = db_exec (db, "t_partition",
                     "INSERT INTO partitions (cluster, name, architecture,"
                     " nodes, cores_per_node, freqs_khz, nominal_khz,"
                     " idle_power_w) VALUES ($1, 'p', 'x', 1, 1, '{1000}',"
                     " 1000, 0) ON CONFLICT DO NOTHING",
                     1, p + 1, &e);
        ck_assert_msg (r != NULL, "%s", e.text);
        PQclear (r);
        r = db_exec (db, "t_submission",
                     "INSERT INTO job_submissions (job_id, cluster, partition,"
                     " cluster_job_id) VALUES ($1::bigint, $2, 'p',"
                     " $3::bigint)",
                     3, p, &e);
        ck_assert_msg (r != NULL, "%s", e.text);
        PQclear (r);
    }
}

static char *
read_text (const char *path)
{
    static char buf[8192];
    int fd = open (path, O_RDONLY);
    ssize_t n;

    buf[0] = '\0';
    if (fd < 0)
        return buf;
    n = read (fd, buf, sizeof (buf) - 1);
    buf[n > 0 ? n : 0] = '\0';
    close (fd);
    return buf;
}

/* environ plus the gate's variables, built before fork: the child only
 * waits for the start and execs. */
static char **
gate_env (int64_t id, const char *server, const char *munge, int i)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n])
        n++;
    env = calloc (n + 8, sizeof (char *));
    for (size_t j = 0; j < n; j++)
        if (strncmp (environ[j], "METASCHED_", 10)
            && strncmp (environ[j], "SLURM", 5))
            env[k++] = environ[j];
    ck_assert (asprintf (&env[k++], "METASCHED_GATE=1") > 0);
    ck_assert (asprintf (&env[k++], "METASCHED_JOB_ID=%lld", (long long)id)
               > 0);
    ck_assert (asprintf (&env[k++], "METASCHED_SERVER=unix:%s", server) > 0);
    ck_assert (asprintf (&env[k++], "METASCHED_MUNGE_SOCKET=%s", munge) > 0);
    ck_assert (asprintf (&env[k++], "METASCHED_GATE_WAIT_S=20") > 0);
    ck_assert (asprintf (&env[k++], "SLURM_CLUSTER_NAME=c%d", i) > 0);
    ck_assert (asprintf (&env[k++], "SLURM_JOB_ID=%d", 2000 + i) > 0);
    return env;
}

START_TEST (wrappers_at_once_through_the_api)
{
    const char *munge = testbed_get ("MS_MUNGE_SOCKET");
    char dir[64], sock[2][300], ran[300], path[320], conninfo[1024];
    char *args[NCLAIM][12], cmd[NCLAIM][400], out[NCLAIM][320];
    char **envs[NCLAIM];
    ms_api_conf_t conf;
    ms_api_t *api[2];
    ms_error_t e;
    pid_t pids[NCLAIM];
    int gun[2], winner = -1, nran = 0;
    db_t *db = open_scratch ();
    int64_t id = new_job (db);
    char want[64], got[64];

    record_submissions (db, id);

    snprintf (dir, sizeof (dir), "/tmp/ms-claim-race-%ld", (long)getpid ());
    ck_assert (mkdir (dir, 0755) == 0 || errno == EEXIST);
    snprintf (ran, sizeof (ran), "%s/ran", dir);
    snprintf (conninfo, sizeof (conninfo), "%s dbname=%s",
              getenv ("MS_PG_CONNINFO"), scratch);
    for (int s = 0; s < 2; s++) {
        memset (&conf, 0, sizeof (conf));
        snprintf (sock[s], sizeof (sock[s]), "%s/api%d.sock", dir, s);
        snprintf (conf.socket_path, sizeof (conf.socket_path), "%s", sock[s]);
        snprintf (conf.munge_socket, sizeof (conf.munge_socket), "%s", munge);
        conf.db_conninfo = conninfo;
        api[s] = api_start (&conf, NULL, NULL, &e);
        ck_assert_msg (api[s] != NULL, "api_start %s: %s", sock[s], e.text);
    }

    ck_assert_int_eq (pipe (gun), 0);
    for (int i = 0; i < NCLAIM; i++) {
        int a = 0;
        snprintf (cmd[i], sizeof (cmd[i]), "echo %d >> '%s'", i, ran);
        snprintf (out[i], sizeof (out[i]), "%s/counters.%d", dir, i);
        args[i][a++] = collect_bin;
        args[i][a++] = "--config";
        args[i][a++] = "/dev/null";
        args[i][a++] = "-o";
        args[i][a++] = out[i];
        args[i][a++] = "--";
        args[i][a++] = "/bin/sh";
        args[i][a++] = "-c";
        args[i][a++] = cmd[i];
        args[i][a] = NULL;
        envs[i] = gate_env (id, sock[i % 2], munge, i);
    }
    for (int i = 0; i < NCLAIM; i++) {
        char errf[320];
        int fd;
        snprintf (errf, sizeof (errf), "%s/stderr.%d", dir, i);
        fd = open (errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ck_assert (fd >= 0);
        pids[i] = fork ();
        ck_assert (pids[i] >= 0);
        if (pids[i] == 0) {
            char b;
            dup2 (fd, 2);
            close (gun[1]);
            while (read (gun[0], &b, 1) < 0 && errno == EINTR)
                ;
            execve (collect_bin, args[i], envs[i]);
            _exit (127);
        }
        close (fd);
    }
    close (gun[0]);
    close (gun[1]); /* all start now */
    for (int i = 0; i < NCLAIM; i++) {
        int st;
        char errf[320];
        ck_assert (waitpid (pids[i], &st, 0) == pids[i]);
        snprintf (errf, sizeof (errf), "%s/stderr.%d", dir, i);
        ck_assert_msg (WIFEXITED (st) && WEXITSTATUS (st) == 0,
                       "wrapper %d: status %#x: %s", i, st, read_text (errf));
    }
    api_stop (api[0]);
    api_stop (api[1]);

    /* the command ran once */
    {
        FILE *f = fopen (ran, "r");
        int v;
        ck_assert_msg (f != NULL, "no wrapper ran its command");
        while (fscanf (f, "%d", &v) == 1) {
            nran++;
            winner = v;
        }
        fclose (f);
    }
    ck_assert_msg (nran == 1, "the command ran %d times, wanted once", nran);
    ck_assert (winner >= 0 && winner < NCLAIM);
    snprintf (want, sizeof (want), "c%d %d", winner, 2000 + winner);
    claimed_by (db, id, got, sizeof (got));
    ck_assert_msg (!strcmp (got, want),
                   "job claimed by '%s', the command ran "
                   "in '%s'",
                   got, want);
    /* the others lost: they left the gate's word for the epilog (the
     * node's log has their note) and wrote nothing into the job's output,
     * which is the user's; the winner's counter file is a run's */
    for (int i = 0; i < NCLAIM; i++) {
        char gate[64];
        snprintf (path, sizeof (path), "%s/stderr.%d", dir, i);
        if (i != winner)
            ck_assert_msg (read_text (path)[0] == '\0',
                           "wrapper %d wrote into the job's stderr: %s", i,
                           read_text (path));
        snprintf (gate, sizeof (gate), "\ngate=lost\ngate_job=%lld\n",
                  (long long)id);
        ck_assert_msg ((strstr (read_text (out[i]), gate) != NULL)
                           == (i != winner),
                       "counter file of wrapper %d (winner %d): %s", i, winner,
                       read_text (out[i]));
    }

    for (int i = 0; i < NCLAIM; i++) {
        for (int k = 0; envs[i][k]; k++)
            if (!strncmp (envs[i][k], "METASCHED_", 10)
                || !strncmp (envs[i][k], "SLURM", 5))
                free (envs[i][k]);
        free (envs[i]);
        snprintf (path, sizeof (path), "%s/stderr.%d", dir, i);
        unlink (path);
        unlink (out[i]);
    }
    unlink (ran);
    rmdir (dir);
    db_close (db);
}
END_TEST

int
main (void)
{
    char why[512], sql[160];
    const char *bd = getenv ("MS_BUILDDIR");
    int applied, failed;
    ms_error_t e;
    struct stat st;
    Suite *s;
    TCase *tc;
    SRunner *sr;
    db_t *db;

    /* the build under test: make check sets MS_BUILDDIR, which the test
     * bed's environment file would replace */
    snprintf (collect_bin, sizeof (collect_bin),
              "%s/collectors/metasched-collect", bd ? bd : ".");
    if (access (collect_bin, X_OK) < 0)
        collect_bin[0] = '\0';
    if (testbed_env_load (why, sizeof (why)) < 0)
        return test_skip_all (why);

    snprintf (scratch, sizeof (scratch), "ms_test_claim_%ld", (long)getpid ());
    snprintf (sql, sizeof (sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
              scratch);
    if (superdb_exec (sql, why, sizeof (why)) < 0)
        return test_skip_all (why);
    snprintf (sql, sizeof (sql), "CREATE DATABASE %s OWNER ms_daemon", scratch);
    if (superdb_exec (sql, why, sizeof (why)) < 0)
        return test_skip_all (why);
    {
        db_opts_t o = { 0 };
        o.conninfo = getenv ("MS_PG_CONNINFO");
        o.dbname = scratch;
        o.retry_max_ms = 2000;
        if (db_open (&o, &db, &e) < 0
            || db_migrate (db, 0, &applied, why, sizeof (why), &e) < 0) {
            printf ("1..1\nnot ok 1 - scratch database %s: %s\n", scratch,
                    e.text);
            return EXIT_FAILURE;
        }
        db_close (db);
    }

    s = suite_create ("claim_race");
    tc = tcase_create ("claim_race");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, claims_at_once_on_the_database);
    if (!collect_bin[0])
        printf ("# the wrappers' race is left out: metasched-collect is not "
                "built under $MS_BUILDDIR\n");
    else if (!getenv ("MS_MUNGE_SOCKET")
             || stat (getenv ("MS_MUNGE_SOCKET"), &st) < 0)
        printf ("# the wrappers' race is left out: the test bed's munged "
                "socket is missing\n");
    else
        tcase_add_test (tc, wrappers_at_once_through_the_api);
    suite_add_tcase (s, tc);
    sr = srunner_create (s);
    srunner_run_all (sr, CK_ENV);
    failed = srunner_ntests_failed (sr);
    srunner_free (sr);

    snprintf (sql, sizeof (sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
              scratch);
    superdb_exec (sql, why, sizeof (why));
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
