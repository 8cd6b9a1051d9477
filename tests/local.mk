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

check_PROGRAMS += tests/unit/test_slurmrest_parse
tests_unit_test_slurmrest_parse_SOURCES = tests/unit/test_slurmrest_parse.c tests/testutil.h
tests_unit_test_slurmrest_parse_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_slurmrest_parse_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_slurmrest_parse

check_PROGRAMS += tests/unit/test_slurmrest_sbatch
tests_unit_test_slurmrest_sbatch_SOURCES = tests/unit/test_slurmrest_sbatch.c tests/testutil.h
tests_unit_test_slurmrest_sbatch_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_slurmrest_sbatch_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_slurmrest_sbatch

# the builders and parsers against exchanges captured from real slurmrestd
# of each release and OpenAPI version (tests/data/slurmrest/RELEASE/VERSION)
check_PROGRAMS += tests/unit/test_slurmrest_contract
tests_unit_test_slurmrest_contract_SOURCES = \
	tests/unit/test_slurmrest_contract.c tests/contract/contract_job.h \
	tests/testutil.h
tests_unit_test_slurmrest_contract_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_slurmrest_contract_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_slurmrest_contract

check_PROGRAMS += tests/unit/test_slurmrest_negotiate
tests_unit_test_slurmrest_negotiate_SOURCES = \
	tests/unit/test_slurmrest_negotiate.c tests/testutil.h
tests_unit_test_slurmrest_negotiate_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_slurmrest_negotiate_LDADD = $(TEST_LIBS) -lpthread
TESTS += tests/unit/test_slurmrest_negotiate

# Fuzz targets: each defines LLVMFuzzerTestOneInput. In `make check` they run
# (under the sanitizer build in CI) through tests/fuzz/standalone.c, which
# replays the corpus in tests/fuzz/corpus/NAME/ and a bounded number of
# seeded mutations of it; with --enable-fuzzing (CC=clang) real libFuzzer
# binaries are built too (tests/fuzz/libfuzzer_NAME).
check_PROGRAMS += tests/fuzz/fuzz_slurmrest tests/fuzz/fuzz_clusterconf
tests_fuzz_fuzz_slurmrest_SOURCES = tests/fuzz/fuzz_slurmrest.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_slurmrest_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_slurmrest_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_clusterconf_SOURCES = tests/fuzz/fuzz_clusterconf.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_clusterconf_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_clusterconf_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/run-fuzz.sh
EXTRA_DIST += tests/fuzz/run-fuzz.sh tests/fuzz/corpus tests/data

if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_slurmrest tests/fuzz/libfuzzer_clusterconf
tests_fuzz_libfuzzer_slurmrest_SOURCES = tests/fuzz/fuzz_slurmrest.c
tests_fuzz_libfuzzer_slurmrest_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_slurmrest_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_slurmrest_LDADD = $(TEST_LIBS)
tests_fuzz_libfuzzer_clusterconf_SOURCES = tests/fuzz/fuzz_clusterconf.c
tests_fuzz_libfuzzer_clusterconf_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_clusterconf_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_clusterconf_LDADD = $(TEST_LIBS)
endif

check_PROGRAMS += tests/integration/test_postgres
tests_integration_test_postgres_SOURCES = tests/integration/test_postgres.c \
	tests/testutil.h tests/testbed_env.c tests/testbed_env.h
tests_integration_test_postgres_CFLAGS = $(TEST_CFLAGS) $(PQ_CFLAGS)
tests_integration_test_postgres_LDADD = $(TEST_LIBS) $(PQ_LIBS)
TESTS += tests/integration/test_postgres

# the start gate's claim under contention: concurrent claimers on their own
# connections, and concurrent wrappers through two API servers
check_PROGRAMS += tests/integration/test_claim_race
tests_integration_test_claim_race_SOURCES = \
	tests/integration/test_claim_race.c tests/testutil.h tests/superdb.c tests/superdb.h \
	tests/testbed_env.c tests/testbed_env.h
tests_integration_test_claim_race_CFLAGS = $(API_TEST_CFLAGS)
tests_integration_test_claim_race_LDADD = $(API_LIBS)
TESTS += tests/integration/test_claim_race

TESTS += tests/integration/test_cli_clusters.sh
EXTRA_DIST += tests/integration/test_cli_clusters.sh tests/tap.sh

# metasched's hand-off to metasched-full (metasched/admin/fullexec.c)
TESTS += tests/cli/test_fullexec.sh
EXTRA_DIST += tests/cli/test_fullexec.sh

check_PROGRAMS += tests/unit/test_jobspec tests/fuzz/fuzz_jobspec
tests_unit_test_jobspec_SOURCES = tests/unit/test_jobspec.c tests/testutil.h
tests_unit_test_jobspec_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_jobspec_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_jobspec

check_PROGRAMS += tests/unit/test_jobspec_het
tests_unit_test_jobspec_het_SOURCES = tests/unit/test_jobspec_het.c tests/testutil.h
tests_unit_test_jobspec_het_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_jobspec_het_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_jobspec_het
check_PROGRAMS += tests/unit/test_jobspec_values
tests_unit_test_jobspec_values_SOURCES = tests/unit/test_jobspec_values.c \
	tests/testutil.h
tests_unit_test_jobspec_values_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_jobspec_values_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_jobspec_values
tests_fuzz_fuzz_jobspec_SOURCES = tests/fuzz/fuzz_jobspec.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_jobspec_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_jobspec_LDADD = $(TEST_LIBS)
if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_jobspec
tests_fuzz_libfuzzer_jobspec_SOURCES = tests/fuzz/fuzz_jobspec.c
tests_fuzz_libfuzzer_jobspec_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_jobspec_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_jobspec_LDADD = $(TEST_LIBS)
endif

# Capture of real slurmrestd exchanges per OpenAPI version (a developer's
# tool run against a test bed cluster; not part of make check): see
# tests/data/slurmrest/README.
EXTRA_PROGRAMS += tests/contract/slurmrest_capture
tests_contract_slurmrest_capture_SOURCES = tests/contract/slurmrest_capture.c \
	tests/contract/contract_job.h
tests_contract_slurmrest_capture_CFLAGS = $(TEST_CFLAGS)
tests_contract_slurmrest_capture_LDADD = $(TEST_LIBS)

# the one table of settings
include tests/settings.mk

# power budgets in the daemon
include tests/power.mk

# the scripts that sbatch accepts (later releases, --nodes lists, hetjobs summed)
include tests/scripts2.mk

# the A/B baseline share and metasched report --ab
include tests/ab.mk

# the grid's carbon intensity and price in the score
include tests/carbon.mk
