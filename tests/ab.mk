# tests/ab.mk: the A/B baseline share and `metasched report --ab`
# (doc/admin-guide.md "Measuring what metasched saves"): the statistics,
# the report on measured rows, and the daemon's groups on the test bed.
check_PROGRAMS += tests/unit/test_abstats
tests_unit_test_abstats_SOURCES = tests/unit/test_abstats.c \
	metasched/admin/abstats.c metasched/admin/abstats.h tests/testutil.h
tests_unit_test_abstats_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_abstats_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_abstats

# the report on measured rows sent the collectors' way (test bed's PostgreSQL)
TESTS += tests/integration/test_report_ab.sh
EXTRA_DIST += tests/integration/test_report_ab.sh

# the daemon's groups, live on the test bed (30 jobs, ab_share 0.5)
TESTS += tests/integration/test_daemon_ab.sh
EXTRA_DIST += tests/integration/test_daemon_ab.sh
