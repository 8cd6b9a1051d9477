# tests/power.mk: power budgets in metaschedd (metasched/daemon/dpower.c):
# the live setting, the held job and its reason, /metrics, the refusals.
# (The engine's and the simulator's tests of budgets are in
# metasched/core/core.mk and metasched/sim/sim.mk.)
TESTS += tests/integration/test_power_live.sh
EXTRA_DIST += tests/integration/test_power_live.sh

# measured power: the sampler's interval power over a powercap tree the
# test writes (wrap, missing zone), the correction of the predicted draw
check_PROGRAMS += tests/unit/test_power_measure
tests_unit_test_power_measure_SOURCES = tests/unit/test_power_measure.c \
	tests/testutil.h
tests_unit_test_power_measure_CFLAGS = $(COLLECT_TEST_CFLAGS)
tests_unit_test_power_measure_LDADD = metasched/libmscore.a \
	$(COLLECT_TEST_LIBS) -lm
TESTS += tests/unit/test_power_measure

# measured power of running jobs and power over time on the test bed
TESTS += tests/integration/test_power_measured.sh
EXTRA_DIST += tests/integration/test_power_measured.sh

# power over time without a budget: /metrics' predicted power,
# power_history's rows (budget NULL) and report --power
TESTS += tests/integration/test_power_history.sh
EXTRA_DIST += tests/integration/test_power_history.sh
