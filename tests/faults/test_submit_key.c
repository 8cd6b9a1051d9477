/* test_submit_key.c - a submission is stored once however often it is sent,
 * and a session the server ends is made again, on the test bed's real
 * PostgreSQL (a scratch database, freshly migrated). doc/daemon.md
 * "Database failover", doc/database.md "Failover".
 *
 *   keys       submit_key's refusals name the field (too short, too long,
 *              a character outside [A-Za-z0-9_-], not a string)
 *   replayed   the same user's key twice: one job, the second answer its
 *              id with replayed set; another user's same key: a job of
 *              its own; keyless submissions: a job each, keyed by the
 *              server ("s-" and 32 hex digits)
 *   committed  a job stored by an earlier try whose answer was lost (its
 *              row committed on another connection): the retry gets its
 *              id, and the user has one job
 *   terminated the server ends the session between two statements (as a
 *              failover or an immediate stop does, 57P01): the next
 *              statement reconnects and succeeds, and the reconnect is
 *              counted */
#include "config.h"

#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "db/db.h"
#include "db/jobs.h"
#include "metasched/api/apireq.h"
#include "tests/testbed_env.h"
#include "tests/superdb.h"
#include "tests/testutil.h"

static char scratch[64];

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

/* A request of the test's script, with key (NULL: none) */
static void
request (ms_apireq_t *req, const char *key)
{
    char body[512];
    ms_error_t e;

    snprintf (body, sizeof (body),
              "{\"script\": \"#!/bin/sh\\ntrue\\n\", \"cwd\": \"/tmp\","
              " \"name\": \"submit-key\"%s%s%s}",
              key ? ", \"submit_key\": \"" : "", key ? key : "",
              key ? "\"" : "");
    ck_assert_msg (apireq_parse (body, strlen (body), NULL, req, NULL, 0, &e)
                       == 0,
                   "%s: %s", body, e.text);
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

START_TEST (keys_refused_naming_the_field)
{
    static const char *bad[] = {
        "\"short\"",
        "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0\"",
        "\"0123456789abcdef 12\"",
        "\"0123456789abcdef'12\"",
        "12345678901234567",
        "null",
    };

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        char body[512], field[80] = "";
        ms_apireq_t req;
        ms_error_t e = { 0 };

        snprintf (body, sizeof (body),
                  "{\"script\": \"#!/bin/sh\\n\", \"cwd\": \"/tmp\","
                  " \"submit_key\": %s}",
                  bad[i]);
        ck_assert_msg (apireq_parse (body, strlen (body), NULL, &req, field,
                                     sizeof (field), &e)
                           < 0,
                       "%s accepted", bad[i]);
        ck_assert_str_eq (field, "submit_key");
        ck_assert_int_eq (e.http_status, 400);
        ck_assert_msg (strstr (e.text, "field 'submit_key'") != NULL, "%s",
                       e.text);
    }
}
END_TEST

START_TEST (same_key_one_job)
{
    db_t *db = open_scratch ();
    struct passwd *pw = getpwuid (geteuid ());
    const char *key = "test-key-0123456789abcdef";
    ms_apireq_t req;
    ms_error_t e;
    int64_t a = 0, b = 0, c = 0, k1 = 0, k2 = 0;
    bool ra = true, rb = false, rc = true, r1 = true, r2 = true;

    ck_assert_ptr_nonnull (pw);
    request (&req, key);
    ck_assert_msg (db_jobs_submit (db, geteuid (), getegid (), pw->pw_name,
                                   &req, &a, &ra, &e)
                       == 0,
                   "%s", e.text);
    ck_assert_msg (db_jobs_submit (db, geteuid (), getegid (), pw->pw_name,
                                   &req, &b, &rb, &e)
                       == 0,
                   "%s", e.text);
    ck_assert_int_eq (a, b);
    ck_assert (!ra);
    ck_assert (rb);
    /* another user's same key is another submission */
    ck_assert_msg (db_jobs_submit (db, 4242, 4242, "someoneelse", &req, &c,
                                   &rc, &e)
                       == 0,
                   "%s", e.text);
    ck_assert_int_ne (c, a);
    ck_assert (!rc);
    apireq_free (&req);
    ck_assert_int_eq (count (db, "SELECT count(*) FROM jobs WHERE submit_key"
                                 " = 'test-key-0123456789abcdef'"),
                      2);

    /* keyless: a job each, keyed by the server */
    request (&req, NULL);
    ck_assert (db_jobs_submit (db, geteuid (), getegid (), pw->pw_name, &req,
                               &k1, &r1, &e)
               == 0);
    ck_assert (db_jobs_submit (db, geteuid (), getegid (), pw->pw_name, &req,
                               &k2, &r2, &e)
               == 0);
    apireq_free (&req);
    ck_assert_int_ne (k1, k2);
    ck_assert (!r1 && !r2);
    ck_assert_int_eq (count (db, "SELECT count(*) FROM jobs WHERE submit_key"
                                 " ~ '^s-[0-9a-f]{32}$'"),
                      2);
    db_close (db);
}
END_TEST

START_TEST (committed_before_the_answer_was_lost)
{
    db_t *db = open_scratch (), *first = open_scratch ();
    struct passwd *pw = getpwuid (geteuid ());
    const char *key = "lost-answer-0123456789";
    ms_apireq_t req;
    ms_error_t e;
    int64_t a = 0, b = 0;
    bool rb = false;

    /* the first try: committed on its connection, which then dies before
     * the answer reaches the client */
    request (&req, key);
    ck_assert_msg (db_jobs_submit (first, geteuid (), getegid (), pw->pw_name,
                                   &req, &a, NULL, &e)
                       == 0,
                   "%s", e.text);
    db_close (first);
    /* the retry, on a fresh connection */
    ck_assert_msg (db_jobs_submit (db, geteuid (), getegid (), pw->pw_name,
                                   &req, &b, &rb, &e)
                       == 0,
                   "%s", e.text);
    apireq_free (&req);
    ck_assert_int_eq (a, b);
    ck_assert (rb);
    ck_assert_int_eq (count (db, "SELECT count(*) FROM jobs WHERE submit_key"
                                 " = 'lost-answer-0123456789'"),
                      1);
    db_close (db);
}
END_TEST

START_TEST (session_ended_by_the_server_is_made_again)
{
    db_t *db = open_scratch ();
    struct passwd *pw = getpwuid (geteuid ());
    char sql[160], why[512];
    ms_apireq_t req;
    ms_error_t e;
    int64_t id = 0;
    unsigned before = db_reconnects (db);

    /* as a failover or an immediate stop ends it: FATAL 57P01 */
    snprintf (sql, sizeof (sql), "SELECT pg_terminate_backend (%d)",
              PQbackendPID (db_conn (db)));
    ck_assert_msg (superdb_exec (sql, why, sizeof (why)) == 0, "%s", why);
    request (&req, "after-terminate-0123456789");
    ck_assert_msg (db_jobs_submit (db, geteuid (), getegid (), pw->pw_name,
                                   &req, &id, NULL, &e)
                       == 0,
                   "the submission after the server ended the session: %s "
                   "(kind %d, SQLSTATE '%s')",
                   e.text, (int)e.kind, e.sqlstate);
    apireq_free (&req);
    ck_assert_int_gt (id, 0);
    ck_assert_uint_eq (db_reconnects (db), before + 1);
    db_close (db);
}
END_TEST

int
main (void)
{
    char why[512], sql[160];
    int applied, failed;
    ms_error_t e;
    Suite *s;
    TCase *tc;
    SRunner *sr;
    db_t *db;

    if (testbed_env_load (why, sizeof (why)) < 0)
        return test_skip_all (why);
    snprintf (scratch, sizeof (scratch), "ms_test_skey_%ld", (long)getpid ());
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

    s = suite_create ("submit_key");
    tc = tcase_create ("submit_key");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, keys_refused_naming_the_field);
    tcase_add_test (tc, same_key_one_job);
    tcase_add_test (tc, committed_before_the_answer_was_lost);
    tcase_add_test (tc, session_ended_by_the_server_is_made_again);
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
