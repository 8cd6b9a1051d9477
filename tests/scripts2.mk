# Batch scripts of every kind sbatch accepts: options of later Slurm
# releases, --nodes lists, heterogeneous jobs (included from
# tests/local.mk).
TESTS += tests/integration/test_msbatch_later.sh
EXTRA_DIST += tests/integration/test_msbatch_later.sh tests/scripts2.mk
TESTS += tests/integration/test_msbatch_hetsum.sh
EXTRA_DIST += tests/integration/test_msbatch_hetsum.sh
TESTS += tests/integration/test_msbatch_nodes_list.sh
EXTRA_DIST += tests/integration/test_msbatch_nodes_list.sh
check_PROGRAMS += tests/unit/test_jobspec_last
tests_unit_test_jobspec_last_SOURCES = tests/unit/test_jobspec_last.c \
	tests/testutil.h
tests_unit_test_jobspec_last_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_jobspec_last_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_jobspec_last
TESTS += tests/integration/test_msbatch_last_options.sh
EXTRA_DIST += tests/integration/test_msbatch_last_options.sh
TESTS += tests/integration/test_simulate_hetjob.sh
EXTRA_DIST += tests/integration/test_simulate_hetjob.sh
check_PROGRAMS += tests/unit/test_tres_task_gpus
tests_unit_test_tres_task_gpus_SOURCES = tests/unit/test_tres_task_gpus.c \
	tests/testutil.h tests/simworld.h
tests_unit_test_tres_task_gpus_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_tres_task_gpus_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_tres_task_gpus
TESTS += tests/integration/test_daemon_tres_gpus.sh
EXTRA_DIST += tests/integration/test_daemon_tres_gpus.sh
TESTS += tests/integration/test_msbatch_external.sh
EXTRA_DIST += tests/integration/test_msbatch_external.sh
TESTS += tests/integration/test_collect_meta_app.sh
EXTRA_DIST += tests/integration/test_collect_meta_app.sh
TESTS += tests/integration/test_simulate_history_gpus.sh
EXTRA_DIST += tests/integration/test_simulate_history_gpus.sh
TESTS += tests/integration/test_simulate_history_hetjob.sh
EXTRA_DIST += tests/integration/test_simulate_history_hetjob.sh
check_PROGRAMS += tests/unit/test_hetplace
tests_unit_test_hetplace_SOURCES = tests/unit/test_hetplace.c \
	tests/testutil.h tests/simworld.h
tests_unit_test_hetplace_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_hetplace_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_hetplace
TESTS += tests/integration/test_simulate_history_hetsum.sh
EXTRA_DIST += tests/integration/test_simulate_history_hetsum.sh
