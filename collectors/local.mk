# collectors/: RAPL, PAPI, the job wrapper, the Slurm prolog/epilog side,
# the spool and the accounting ingest (see collectors/README).
noinst_LIBRARIES += collectors/libcollect.a
collectors_libcollect_a_SOURCES = \
	collectors/collect.h \
	collectors/conf.c \
	collectors/counters.c \
	collectors/cpufreq.c collectors/cpufreq.h \
	collectors/flush.c \
	collectors/ingest.c \
	collectors/jobrun_rec.c \
	collectors/log.c collectors/log.h \
	collectors/nodeside.c \
	collectors/papi_sampler.c collectors/papi_sampler.h \
	collectors/rapl.c collectors/rapl.h \
	collectors/spool.c collectors/spool.h \
	collectors/spoolcap.c \
	collectors/wrapper.c
collectors_libcollect_a_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(PAPI_CFLAGS) \
	$(CURL_CFLAGS) $(JANSSON_CFLAGS)

# the wrapper's start gate claims the job through the API (wire/client.h)
COLLECT_LIBS = collectors/libcollect.a wire/libmswire.a db/libmsdb.a \
	partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a $(MUNGE_LIBS) $(CRYPTO_LIBS)

bin_PROGRAMS += collectors/metasched-collect
# `metasched-collect --metasched db|collect ...` reaches the admin
# subcommands too (doc/metasched-collect.1).
collectors_metasched_collect_SOURCES = metasched/admin/collect_main.c \
	collectors/metasched-collect.c \
	metasched/admin/cmd_db.c metasched/admin/cmd_collect.c
collectors_metasched_collect_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(PAPI_CFLAGS) \
	$(GSL_CFLAGS)
collectors_metasched_collect_LDADD = $(COLLECT_LIBS) \
	$(PQ_LIBS) $(PAPI_LIBS) $(CURL_LIBS) $(JANSSON_LIBS) $(GSL_LIBS) -lm

EXTRA_DIST += collectors/README collectors/lsan.supp \
	collectors/metasched-collect-flush.service \
	collectors/metasched-collect-flush.timer

# `metasched db` and `metasched collect` (wired in metasched/admin/main.c,
# run in metasched-full: metasched/admin/fullexec.c)
metasched_metasched_full_SOURCES += metasched/admin/cmd_db.c metasched/admin/cmd_collect.c
metasched_metasched_full_CFLAGS += $(PQ_CFLAGS) $(PAPI_CFLAGS)
metasched_metasched_full_LDADD += $(COLLECT_LIBS) $(PQ_LIBS) $(PAPI_LIBS) \
	$(CURL_LIBS) $(JANSSON_LIBS) $(GSL_LIBS) -lm

# ---- tests ----
COLLECT_TEST_CFLAGS = $(TEST_CFLAGS) $(PQ_CFLAGS) $(PAPI_CFLAGS)
COLLECT_TEST_LIBS = collectors/libcollect.a wire/libmswire.a \
	db/libmsdb.a $(TEST_LIBS) $(PQ_LIBS) $(PAPI_LIBS) \
	$(CURL_LIBS) $(JANSSON_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS)

check_PROGRAMS += tests/unit/test_rapl tests/unit/test_spool tests/unit/test_papi \
	tests/unit/test_rapl_nodeside
tests_unit_test_rapl_nodeside_SOURCES = tests/unit/test_rapl_nodeside.c tests/testutil.h
tests_unit_test_rapl_nodeside_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_unit_test_rapl_nodeside_LDADD = $(COLLECT_TEST_LIBS)
tests_unit_test_rapl_SOURCES = tests/unit/test_rapl.c tests/testutil.h
tests_unit_test_rapl_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_unit_test_rapl_LDADD = $(COLLECT_TEST_LIBS)
tests_unit_test_spool_SOURCES = tests/unit/test_spool.c tests/testutil.h
tests_unit_test_spool_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_unit_test_spool_LDADD = $(COLLECT_TEST_LIBS)
tests_unit_test_papi_SOURCES = tests/unit/test_papi.c tests/testutil.h
tests_unit_test_papi_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_unit_test_papi_LDADD = $(COLLECT_TEST_LIBS)
TESTS += tests/unit/test_rapl tests/unit/test_spool tests/unit/test_papi \
	tests/unit/test_rapl_nodeside

# end to end on the test bed (Slurm, Prolog/Epilog, PostgreSQL)
TESTS += tests/integration/test_collect.sh
EXTRA_DIST += tests/integration/test_collect.sh

# fuzz targets of every parser of outside input here: powercap files, spool
# files, the wrapper's counter file (and scontrol's answer)
check_PROGRAMS += tests/fuzz/fuzz_powercap tests/fuzz/fuzz_spool \
	tests/fuzz/fuzz_counters
tests_fuzz_fuzz_powercap_SOURCES = tests/fuzz/fuzz_powercap.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_powercap_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_fuzz_fuzz_powercap_LDADD = $(COLLECT_TEST_LIBS)
tests_fuzz_fuzz_spool_SOURCES = tests/fuzz/fuzz_spool.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_spool_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_fuzz_fuzz_spool_LDADD = $(COLLECT_TEST_LIBS)
tests_fuzz_fuzz_counters_SOURCES = tests/fuzz/fuzz_counters.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_counters_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_fuzz_fuzz_counters_LDADD = $(COLLECT_TEST_LIBS)
EXTRA_DIST += tests/fuzz/corpus/powercap tests/fuzz/corpus/spool \
	tests/fuzz/corpus/counters
if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_powercap tests/fuzz/libfuzzer_spool \
	tests/fuzz/libfuzzer_counters
tests_fuzz_libfuzzer_powercap_SOURCES = tests/fuzz/fuzz_powercap.c
tests_fuzz_libfuzzer_powercap_CFLAGS = $(COLLECT_TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_powercap_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_powercap_LDADD = $(COLLECT_TEST_LIBS)
tests_fuzz_libfuzzer_spool_SOURCES = tests/fuzz/fuzz_spool.c
tests_fuzz_libfuzzer_spool_CFLAGS = $(COLLECT_TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_spool_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_spool_LDADD = $(COLLECT_TEST_LIBS)
tests_fuzz_libfuzzer_counters_SOURCES = tests/fuzz/fuzz_counters.c
tests_fuzz_libfuzzer_counters_CFLAGS = $(COLLECT_TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_counters_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_counters_LDADD = $(COLLECT_TEST_LIBS)
endif

# benchmarks (`make bench`): collector overhead, and the insert rate
EXTRA_PROGRAMS += bench/bench_collect
bench_programs += bench/bench_collect
bench_bench_collect_SOURCES = bench/bench_collect.c
# what the spool's cap costs a job end (a write at a full spool)
EXTRA_PROGRAMS += bench/bench_spool
bench_programs += bench/bench_spool
bench_bench_spool_SOURCES = bench/bench_spool.c
bench_bench_spool_CFLAGS = $(COLLECT_TEST_CFLAGS)
bench_bench_spool_LDADD = $(COLLECT_TEST_LIBS)

dist_man_MANS += doc/metasched-collect.1
dist_doc_DATA += doc/collectors.md
