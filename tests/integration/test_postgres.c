/* test_postgres.c - the test bed's PostgreSQL accepts the test suite's
 * connections, as each of metasched's roles, and only with a password. */
#include "config.h"

#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testbed_env.h"
#include "tests/testutil.h"

static PGconn *
connect_as (const char *var)
{
    PGconn *c = PQconnectdb (testbed_get (var));
    ck_assert_msg (PQstatus (c) == CONNECTION_OK, "%s: %s", var,
                   PQerrorMessage (c));
    return c;
}

START_TEST (daemon_role_owns_database)
{
    PGconn *c = connect_as ("MS_PG_CONNINFO");
    PGresult *r = PQexec (c, "SELECT current_user, current_database(), "
                             "current_setting('server_version_num')::int, "
                             "pg_get_userbyid(datdba) FROM pg_database "
                             "WHERE datname = current_database()");
    ck_assert_int_eq (PQresultStatus (r), PGRES_TUPLES_OK);
    ck_assert_str_eq (PQgetvalue (r, 0, 0), "ms_daemon");
    ck_assert_str_eq (PQgetvalue (r, 0, 1), "metasched");
    ck_assert_int_ge (atoi (PQgetvalue (r, 0, 2)), 150000);
    ck_assert_int_lt (atoi (PQgetvalue (r, 0, 2)), 160000);
    ck_assert_str_eq (PQgetvalue (r, 0, 3), "ms_daemon");
    PQclear (r);
    PQfinish (c);
}
END_TEST

START_TEST (other_roles_connect_without_superpowers)
{
    const char *vars[] = { "MS_PG_COLLECTOR_CONNINFO", "MS_PG_REPORT_CONNINFO" };
    for (int i = 0; i < 2; i++) {
        PGconn *c = connect_as (vars[i]);
        PGresult *r = PQexec (c, "SELECT rolsuper, rolcreatedb, rolcreaterole "
                                 "FROM pg_roles WHERE rolname = current_user");
        ck_assert_int_eq (PQresultStatus (r), PGRES_TUPLES_OK);
        ck_assert_str_eq (PQgetvalue (r, 0, 0), "f");
        ck_assert_str_eq (PQgetvalue (r, 0, 1), "f");
        ck_assert_str_eq (PQgetvalue (r, 0, 2), "f");
        PQclear (r);
        PQfinish (c);
    }
}
END_TEST

START_TEST (password_is_required)
{
    char conninfo[1024];
    PGconn *c;
    /* the same connection without the password file is refused */
    snprintf (conninfo, sizeof (conninfo),
              "host=%s port=%s dbname=metasched user=ms_daemon passfile=/dev/null",
              testbed_get ("MS_PG_HOST"), testbed_get ("MS_PG_PORT"));
    c = PQconnectdb (conninfo);
    ck_assert_int_ne (PQstatus (c), CONNECTION_OK);
    ck_assert_ptr_nonnull (strstr (PQerrorMessage (c), "password"));
    PQfinish (c);
    /* and over the loopback TCP port the server listens too */
    snprintf (conninfo, sizeof (conninfo),
              "host=127.0.0.1 port=%s dbname=metasched user=ms_report passfile=%s",
              testbed_get ("MS_PG_PORT"), testbed_get ("MS_PG_PASSFILE"));
    c = PQconnectdb (conninfo);
    ck_assert_msg (PQstatus (c) == CONNECTION_OK, "%s", PQerrorMessage (c));
    PQfinish (c);
}
END_TEST

int
main (void)
{
    char why[512];
    if (testbed_env_load (why, sizeof (why)) < 0)
        return test_skip_all (why);
    Suite *s = suite_create ("postgres");
    TCase *tc = tcase_create ("testbed");
    tcase_add_test (tc, daemon_role_owns_database);
    tcase_add_test (tc, other_roles_connect_without_superpowers);
    tcase_add_test (tc, password_is_required);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
