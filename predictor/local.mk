# predictor/: time, power and energy models (see predictor/README).
noinst_LIBRARIES += predictor/libpredictor.a
predictor_libpredictor_a_SOURCES = predictor/predictor.h predictor/internal.h \
	predictor/arch.c predictor/signature.c predictor/ear.c \
	predictor/project.c predictor/defmodel.c predictor/modelfile.c \
	predictor/fit.c predictor/crossarch.c predictor/table61.c \
	predictor/runs.c predictor/synth.c predictor/speedup.c \
	predictor/speedup.h predictor/gpuprof.c predictor/gpuprof.h
predictor_libpredictor_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
EXTRA_DIST += predictor/README

check_PROGRAMS += tests/unit/test_predictor
tests_unit_test_predictor_SOURCES = tests/unit/test_predictor.c tests/testutil.h
tests_unit_test_predictor_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_predictor_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_predictor

check_PROGRAMS += tests/unit/test_speedup
tests_unit_test_speedup_SOURCES = tests/unit/test_speedup.c tests/testutil.h
tests_unit_test_speedup_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_speedup_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_speedup

check_PROGRAMS += tests/unit/test_predictor_eamc
tests_unit_test_predictor_eamc_SOURCES = tests/unit/test_predictor_eamc.c tests/testutil.h
tests_unit_test_predictor_eamc_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_predictor_eamc_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_predictor_eamc

# `metasched model` end to end (shell, TAP): needs metasched/metasched.
TESTS += tests/integration/test_cli_model.sh
EXTRA_DIST += tests/integration/test_cli_model.sh

# Fuzz target of the model-file and runs readers: built for `make check`
# with the standalone driver (tests/fuzz/run-fuzz.sh runs it on its corpus),
# and with libFuzzer under --enable-fuzzing.
check_PROGRAMS += tests/fuzz/fuzz_modelfile
tests_fuzz_fuzz_modelfile_SOURCES = tests/fuzz/fuzz_modelfile.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_modelfile_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_modelfile_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/fuzz/corpus/modelfile
if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_modelfile
tests_fuzz_libfuzzer_modelfile_SOURCES = tests/fuzz/fuzz_modelfile.c
tests_fuzz_libfuzzer_modelfile_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_modelfile_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_modelfile_LDADD = $(TEST_LIBS)
endif

EXTRA_PROGRAMS += bench/bench_predictor
bench_programs += bench/bench_predictor
bench_bench_predictor_SOURCES = bench/bench_predictor.c
bench_bench_predictor_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
bench_bench_predictor_LDADD = predictor/libpredictor.a metasched/libmscommon.a \
	$(GSL_LIBS) -lm
CLEANFILES += bench/bench_predictor
