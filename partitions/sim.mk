# partitions/: the simulated clusters and the SWF trace reader.
noinst_LIBRARIES += partitions/libsim.a
partitions_libsim_a_SOURCES = \
	partitions/simcluster.c partitions/simcluster.h \
	partitions/simcluster_ops.c partitions/simcluster_int.h \
	partitions/swf.c partitions/swf.h

check_PROGRAMS += tests/unit/test_swf
tests_unit_test_swf_SOURCES = tests/unit/test_swf.c tests/testutil.h
tests_unit_test_swf_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_swf_LDADD = partitions/libsim.a $(TEST_LIBS)
TESTS += tests/unit/test_swf

check_PROGRAMS += tests/unit/test_simcluster
tests_unit_test_simcluster_SOURCES = tests/unit/test_simcluster.c tests/testutil.h
tests_unit_test_simcluster_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_simcluster_LDADD = partitions/libsim.a $(TEST_LIBS)
TESTS += tests/unit/test_simcluster

check_PROGRAMS += tests/fuzz/fuzz_swf
tests_fuzz_fuzz_swf_SOURCES = tests/fuzz/fuzz_swf.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_swf_LDADD = partitions/libsim.a $(TEST_LIBS)
if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_swf
tests_fuzz_libfuzzer_swf_SOURCES = tests/fuzz/fuzz_swf.c
tests_fuzz_libfuzzer_swf_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_swf_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_swf_LDADD = partitions/libsim.a $(TEST_LIBS)
endif

EXTRA_DIST += tests/fuzz/corpus/swf tests/data/sim
