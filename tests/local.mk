# tests/: unit tests (Check, TAP output), integration tests on the test bed,
# and fuzz targets. Tests of one area may also be listed in that area's
# local.mk; the shared harness lives here.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS)
TEST_LIBS = partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a \
	$(CHECK_LIBS) $(CURL_LIBS) $(JANSSON_LIBS) $(GSL_LIBS) -lm
FUZZ_STANDALONE = tests/fuzz/standalone.c

check_PROGRAMS += tests/unit/test_clusterconf
tests_unit_test_clusterconf_SOURCES = tests/unit/test_clusterconf.c tests/testutil.h
tests_unit_test_clusterconf_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_clusterconf_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_clusterconf

check_PROGRAMS += tests/integration/test_slurmrest
tests_integration_test_slurmrest_SOURCES = tests/integration/test_slurmrest.c \
	tests/testutil.h tests/testbed_env.c tests/testbed_env.h
tests_integration_test_slurmrest_CFLAGS = $(TEST_CFLAGS)
tests_integration_test_slurmrest_LDADD = $(TEST_LIBS)
TESTS += tests/integration/test_slurmrest
