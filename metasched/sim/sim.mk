# metasched/sim/sim.mk: the simulation driver, libmssim.a: the seeded
# workload generator, the event loop over partitions/libsim.a's modelled
# clusters, the metrics of doc/architecture.md "Simulator" and the plots
# (doc/simulator.md); `metasched simulate` (admin/cmd_simulate.c) runs it.
noinst_LIBRARIES += metasched/libmssim.a
metasched_libmssim_a_SOURCES = \
	metasched/sim/workload.c metasched/sim/workload.h \
	metasched/sim/metrics.c metasched/sim/metrics.h \
	metasched/sim/simulate.c metasched/sim/simulate.h \
	metasched/sim/plot.c metasched/sim/plot.h \
	metasched/sim/seeds.c metasched/sim/seeds.h \
	metasched/sim/bound.c metasched/sim/bound.h \
	metasched/sim/powertrace.c metasched/sim/powertrace.h \
	metasched/sim/outage.c metasched/sim/outage.h
metasched_libmssim_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)

# What a test of the core or the simulator links after its own objects.
SIM_TEST_LIBS = metasched/libmssim.a metasched/libmscore.a partitions/libsim.a \
	$(TEST_LIBS)

check_PROGRAMS += tests/unit/test_sim
tests_unit_test_sim_SOURCES = tests/unit/test_sim.c tests/testutil.h tests/simworld.h
tests_unit_test_sim_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sim_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_sim
check_PROGRAMS += tests/unit/test_bound
tests_unit_test_bound_SOURCES = tests/unit/test_bound.c tests/testutil.h
tests_unit_test_bound_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_bound_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_bound
check_PROGRAMS += tests/unit/test_sim_gpu
tests_unit_test_sim_gpu_SOURCES = tests/unit/test_sim_gpu.c tests/testutil.h tests/simworld.h
tests_unit_test_sim_gpu_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sim_gpu_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_sim_gpu
check_PROGRAMS += tests/unit/test_sim_mold
tests_unit_test_sim_mold_SOURCES = tests/unit/test_sim_mold.c tests/testutil.h tests/simworld.h
tests_unit_test_sim_mold_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_sim_mold_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_sim_mold
check_PROGRAMS += tests/unit/test_gpuprof
tests_unit_test_gpuprof_SOURCES = tests/unit/test_gpuprof.c tests/testutil.h tests/simworld.h
tests_unit_test_gpuprof_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_gpuprof_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_gpuprof
# the job mix's fronts and calibration against a reference (core/jobmix.c)
check_PROGRAMS += tests/unit/test_jobmix
tests_unit_test_jobmix_SOURCES = tests/unit/test_jobmix.c tests/testutil.h
tests_unit_test_jobmix_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_jobmix_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_jobmix

EXTRA_PROGRAMS += bench/bench_sim
bench_bench_sim_SOURCES = bench/bench_sim.c
bench_bench_sim_LDADD = metasched/libmssim.a metasched/libmscore.a \
	partitions/libsim.a partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a $(GSL_LIBS) -lm
bench_programs += bench/bench_sim
EXTRA_DIST += bench/sim_tables.sh

dist_man_MANS += doc/metasched-simulate.1
dist_doc_DATA += doc/simulator.md doc/evaluation.md
EXTRA_DIST += doc/eval metasched/sim/README

TESTS += tests/integration/test_sim_goals.sh
EXTRA_DIST += tests/integration/test_sim_goals.sh
TESTS += tests/integration/test_simulate_seeds.sh
EXTRA_DIST += tests/integration/test_simulate_seeds.sh
TESTS += tests/integration/test_simulate_bound.sh
EXTRA_DIST += tests/integration/test_simulate_bound.sh
# --workers: the same files from one process as from several
TESTS += tests/integration/test_simulate_workers.sh
EXTRA_DIST += tests/integration/test_simulate_workers.sh
# a site budget at 70% of the uncapped peak on the KTH-SP2 trace
TESTS += tests/integration/test_simulate_power.sh
EXTRA_DIST += tests/integration/test_simulate_power.sh
