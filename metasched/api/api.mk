# metasched/api/api.mk: the API server of metaschedd (api_server.c on libmicrohttpd),
# the job request parser, the settings and the per-user limits, as
# metasched/libmsapi.a for metaschedd (daemon.mk links it: libmsapi.a,
# then wire/libmswire.a (the MUNGE credential), db/libmsdb.a (the job
# store) and $(SIM_TEST_LIBS)-like core libraries,
# $(MHD_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS) $(PQ_LIBS) $(JANSSON_LIBS)
# -lpthread); its tests and the request parser's fuzz target.
noinst_LIBRARIES += metasched/libmsapi.a
metasched_libmsapi_a_SOURCES = \
	metasched/api/api_server.c metasched/api/api.h metasched/api/api_int.h \
	metasched/api/api_http.c metasched/api/api_jobs.c \
	metasched/api/api_admin.c metasched/api/api_metrics.c \
	metasched/api/settings.c metasched/api/settings.h \
	metasched/api/limits.c metasched/api/limits.h \
	metasched/api/apireq.c metasched/api/apireq.h \
	metasched/api/resolve.c metasched/api/resolve.h
metasched_libmsapi_a_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(MUNGE_CFLAGS) \
	$(PQ_CFLAGS) $(JANSSON_CFLAGS) $(CRYPTO_CFLAGS)

API_LIBS = metasched/libmsapi.a wire/libmswire.a db/libmsdb.a $(SIM_TEST_LIBS) \
	$(MHD_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS) $(PQ_LIBS) -lpthread
API_TEST_CFLAGS = $(TEST_CFLAGS) $(MHD_CFLAGS) $(MUNGE_CFLAGS) $(PQ_CFLAGS)

check_PROGRAMS += tests/unit/test_sha256
tests_unit_test_sha256_SOURCES = tests/unit/test_sha256.c tests/testutil.h
tests_unit_test_sha256_CFLAGS = $(API_TEST_CFLAGS)
tests_unit_test_sha256_LDADD = $(API_LIBS)
TESTS += tests/unit/test_sha256

check_PROGRAMS += tests/unit/test_apireq
tests_unit_test_apireq_SOURCES = tests/unit/test_apireq.c tests/testutil.h
tests_unit_test_apireq_CFLAGS = $(API_TEST_CFLAGS)
tests_unit_test_apireq_LDADD = $(API_LIBS)
TESTS += tests/unit/test_apireq

check_PROGRAMS += tests/unit/test_settings
tests_unit_test_settings_SOURCES = tests/unit/test_settings.c tests/testutil.h
tests_unit_test_settings_CFLAGS = $(API_TEST_CFLAGS)
tests_unit_test_settings_LDADD = $(API_LIBS)
TESTS += tests/unit/test_settings

check_PROGRAMS += tests/integration/test_api
tests_integration_test_api_SOURCES = tests/integration/test_api.c \
	tests/testutil.h tests/testbed_env.c tests/testbed_env.h \
	tests/superdb.c tests/superdb.h
tests_integration_test_api_CFLAGS = $(API_TEST_CFLAGS)
tests_integration_test_api_LDADD = $(API_LIBS)
TESTS += tests/integration/test_api

# Fuzz target of the job request parser (corpus in tests/fuzz/corpus/apireq;
# tests/fuzz/run-fuzz.sh replays it in `make check`).
check_PROGRAMS += tests/fuzz/fuzz_apireq
tests_fuzz_fuzz_apireq_SOURCES = tests/fuzz/fuzz_apireq.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_apireq_CFLAGS = $(API_TEST_CFLAGS)
tests_fuzz_fuzz_apireq_LDADD = $(API_LIBS)
EXTRA_DIST += tests/fuzz/corpus/apireq
if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_apireq
tests_fuzz_libfuzzer_apireq_SOURCES = tests/fuzz/fuzz_apireq.c
tests_fuzz_libfuzzer_apireq_CFLAGS = $(API_TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_apireq_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_apireq_LDADD = $(API_LIBS)
endif
EXTRA_DIST += metasched/api/README
