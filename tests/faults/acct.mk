# tests/faults/acct.mk: see tests/faults/local.mk. Jobs missing from a
# controller (doc/daemon.md): a long outage on clusters with and without
# accounting, the admin's resolution of an unknown job.
TESTS += tests/faults/test_acct_outage.sh tests/faults/test_acct_unknown.sh
EXTRA_DIST += tests/faults/test_acct_outage.sh tests/faults/test_acct_unknown.sh \
	tests/faults/acct_lib.sh

# the accounting endpoints' job records, every captured version
check_PROGRAMS += tests/unit/test_acct_parse
tests_unit_test_acct_parse_SOURCES = tests/unit/test_acct_parse.c tests/testutil.h
tests_unit_test_acct_parse_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_acct_parse_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_acct_parse
