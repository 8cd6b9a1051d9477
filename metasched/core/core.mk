# metasched/core/core.mk: the scheduling core, libmscore.a: candidates
# (every cluster/partition/frequency a job could run on, with predictions),
# scores and policies (doc/architecture.md "Policies"). The daemon and the
# simulator share it and reach clusters only through partitions/backend.h.
noinst_LIBRARIES += metasched/libmscore.a
metasched_libmscore_a_SOURCES = \
	metasched/core/candidates.c metasched/core/candidates.h \
	metasched/core/score.c metasched/core/score.h \
	metasched/core/carbon.c metasched/core/carbon.h \
	metasched/core/carbon_json.c \
	metasched/core/engine.c metasched/core/engine.h \
	metasched/core/decision.h \
	metasched/core/policy.c metasched/core/policy.h \
	metasched/core/choice.c metasched/core/choice.h \
	metasched/core/eamc.c metasched/core/eamc.h \
	metasched/core/rank.c metasched/core/rank.h \
	metasched/core/sched.c \
	metasched/core/jobmemo.c metasched/core/jobmemo.h \
	metasched/core/settings_table.c metasched/core/settings_table.h \
	metasched/core/jobmix.c metasched/core/jobmix.h \
	metasched/core/placement.c metasched/core/placement.h \
	metasched/core/hetplace.c metasched/core/hetplace.h \
	metasched/core/depend.c metasched/core/depend.h \
	metasched/core/window.c metasched/core/window.h \
	metasched/core/window_decide.c \
	metasched/core/power.c metasched/core/power.h \
	metasched/core/powerplace.c metasched/core/powerplace.h
metasched_libmscore_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)

check_PROGRAMS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/testutil.h
tests_unit_test_policy_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_policy_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_policy

check_PROGRAMS += tests/unit/test_placement
tests_unit_test_placement_SOURCES = tests/unit/test_placement.c tests/testutil.h
tests_unit_test_placement_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_placement_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_placement

check_PROGRAMS += tests/unit/test_depend
tests_unit_test_depend_SOURCES = tests/unit/test_depend.c tests/testutil.h
tests_unit_test_depend_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_depend_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_depend

check_PROGRAMS += tests/fuzz/fuzz_placement
tests_fuzz_fuzz_placement_SOURCES = tests/fuzz/fuzz_placement.c $(FUZZ_STANDALONE)
tests_fuzz_fuzz_placement_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_fuzz_placement_LDADD = $(SIM_TEST_LIBS)
EXTRA_DIST += tests/fuzz/corpus/placement
if FUZZING
noinst_PROGRAMS += tests/fuzz/libfuzzer_placement
tests_fuzz_libfuzzer_placement_SOURCES = tests/fuzz/fuzz_placement.c
tests_fuzz_libfuzzer_placement_CFLAGS = $(TEST_CFLAGS) -fsanitize=fuzzer
tests_fuzz_libfuzzer_placement_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_libfuzzer_placement_LDADD = $(SIM_TEST_LIBS)
endif

# power budgets: the text form, the rule, runs under a site budget
check_PROGRAMS += tests/unit/test_power
tests_unit_test_power_SOURCES = tests/unit/test_power.c tests/testutil.h \
	tests/simworld.h
tests_unit_test_power_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_power_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_power

check_PROGRAMS += tests/unit/test_window
tests_unit_test_window_SOURCES = tests/unit/test_window.c tests/testutil.h
tests_unit_test_window_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_window_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_window

EXTRA_DIST += metasched/core/README

EXTRA_PROGRAMS += bench/bench_window
bench_programs += bench/bench_window
bench_bench_window_SOURCES = bench/bench_window.c
bench_bench_window_LDADD = metasched/libmscore.a metasched/libmscommon.a -lm
CLEANFILES += bench/bench_window

# the same jobs through the simulator's decision path and metaschedd's:
# the same candidates, choice and time limits (doc/architecture.md)
check_PROGRAMS += tests/unit/test_engine_paths
tests_unit_test_engine_paths_SOURCES = tests/unit/test_engine_paths.c tests/simdaemon.h \
	tests/testutil.h tests/simworld.h
tests_unit_test_engine_paths_CFLAGS = $(DAEMON_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_engine_paths_LDADD = $(DAEMON_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_engine_paths

# the score stored and shown is the one the choice was made by
TESTS += tests/integration/test_decision_score.sh
EXTRA_DIST += tests/integration/test_decision_score.sh
