# tests/faults/pgha.mk: see tests/faults/local.mk.
# PostgreSQL's failover: the primary stopped under 500 submissions, the
# streaming standby promoted (needs testbed/start --pg-standby; skips
# without it).
TESTS += tests/faults/test_pg_failover.sh
EXTRA_DIST += tests/faults/test_pg_failover.sh

# submissions stored once per submit_key, and a session the server ends
# made again (the test bed's PostgreSQL, a scratch database)
check_PROGRAMS += tests/faults/test_submit_key
tests_faults_test_submit_key_SOURCES = \
	tests/faults/test_submit_key.c tests/testutil.h tests/superdb.c tests/superdb.h \
	tests/testbed_env.c tests/testbed_env.h
tests_faults_test_submit_key_CFLAGS = $(API_TEST_CFLAGS)
tests_faults_test_submit_key_LDADD = $(API_LIBS)
TESTS += tests/faults/test_submit_key
