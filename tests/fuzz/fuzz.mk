# tests/fuzz/fuzz.mk: the fuzz targets of the daemon's configuration and of
# the API client's answers, and `make fuzz`, which runs every libFuzzer
# target for a set time (the other targets are defined beside the code they
# cover: partitions/, predictor/, collectors/, metasched/api/, tests/local.mk).
#
# In `make check` every fuzz_NAME replays its corpus (tests/fuzz/corpus/NAME)
# and seeded mutations through tests/fuzz/standalone.c (run-fuzz.sh). With
# ./configure --enable-fuzzing CC=clang everything is built with libFuzzer's
# coverage instrumentation (-fsanitize=fuzzer-no-link, ASan, UBSan) and each
# target also as tests/fuzz/libfuzzer_NAME, linked with -fsanitize=fuzzer.

check_PROGRAMS += tests/fuzz/fuzz_dconf tests/fuzz/fuzz_client
tests_fuzz_fuzz_dconf_SOURCES = tests/fuzz/fuzz_dconf.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_dconf_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_dconf_LDADD = metasched/libmsdaemon.a db/libmsdb.a \
	metasched/libmscore.a $(TEST_LIBS) $(PQ_LIBS)
tests_fuzz_fuzz_client_SOURCES = tests/fuzz/fuzz_client.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_client_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_client_LDADD = $(MSCLIENT_LIBS) $(TEST_LIBS)
EXTRA_DIST += tests/fuzz/corpus/dconf tests/fuzz/corpus/client \
	tests/fuzz/libfuzzer.sh

if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_dconf tests/fuzz/libfuzzer_client
tests_fuzz_libfuzzer_dconf_SOURCES = tests/fuzz/fuzz_dconf.c
tests_fuzz_libfuzzer_dconf_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_dconf_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_dconf_LDADD = metasched/libmsdaemon.a db/libmsdb.a \
	metasched/libmscore.a $(TEST_LIBS) $(PQ_LIBS)
tests_fuzz_libfuzzer_client_SOURCES = tests/fuzz/fuzz_client.c
tests_fuzz_libfuzzer_client_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_client_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_client_LDADD = $(MSCLIENT_LIBS) $(TEST_LIBS)
endif

# make fuzz [FUZZ_SECONDS=600] [FUZZ_JOBS=1] [FUZZ_TARGETS='swf dconf']:
# every libFuzzer target (or those named) for FUZZ_SECONDS each, FUZZ_JOBS
# at a time, under nice. New inputs go to tests/fuzz/work/NAME/corpus in
# the build tree, never into the repository's corpus; crashes to
# tests/fuzz/work/NAME/findings. Per target it prints the executions, the
# coverage (cov: edges, ft: features) and the findings.
FUZZ_SECONDS = 600
FUZZ_JOBS = 1
FUZZ_TARGETS =
.PHONY: fuzz
if FUZZING
fuzz: $(noinst_PROGRAMS)
	@MS_SRCDIR='$(abs_top_srcdir)' MS_BUILDDIR='$(abs_top_builddir)' \
	FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_JOBS='$(FUZZ_JOBS)' \
	$(SHELL) $(top_srcdir)/tests/fuzz/libfuzzer.sh $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: this build has no libFuzzer targets; configure a build" \
	  "directory with: CC=clang $(top_srcdir)/configure --enable-fuzzing" >&2
	@exit 1
endif
