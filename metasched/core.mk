# metasched/: the scheduling core (candidates, scores, policies, dispatch)
# and the simulation driver, shared by the daemon and `metasched simulate`.
noinst_LIBRARIES += metasched/libmscore.a
metasched_libmscore_a_SOURCES = \
	metasched/candidates.c metasched/candidates.h \
	metasched/score.c metasched/score.h \
	metasched/policy.c metasched/policy.h \
	metasched/workload.c metasched/workload.h \
	metasched/metrics.c metasched/metrics.h \
	metasched/simulate.c metasched/simulate.h \
	metasched/plot.c metasched/plot.h
metasched_libmscore_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)

# Link order: the core before the libraries it uses.
metasched_metasched_LDADD += metasched/libmscore.a partitions/libsim.a \
	partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a $(GSL_LIBS) -lm

SIM_TEST_LIBS = metasched/libmscore.a partitions/libsim.a $(TEST_LIBS)

check_PROGRAMS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/testutil.h
tests_unit_test_policy_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_policy_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_policy

check_PROGRAMS += tests/unit/test_sim
tests_unit_test_sim_SOURCES = tests/unit/test_sim.c tests/testutil.h
tests_unit_test_sim_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sim_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_sim

EXTRA_PROGRAMS += bench/bench_sim
bench_bench_sim_SOURCES = bench/bench_sim.c
bench_bench_sim_LDADD = metasched/libmscore.a partitions/libsim.a \
	partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a $(GSL_LIBS) -lm
bench_programs += bench/bench_sim

dist_man_MANS += doc/metasched-simulate.1
dist_doc_DATA += doc/simulator.md doc/evaluation.md
EXTRA_DIST += doc/eval
