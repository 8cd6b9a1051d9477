# tests/carbon.mk: the grid's carbon and price signals in the score
# (metasched/core/carbon.c): the CSV reader, missing and stale values,
# the carbon weight's choice.
check_PROGRAMS += tests/unit/test_carbon
tests_unit_test_carbon_SOURCES = tests/unit/test_carbon.c tests/testutil.h
tests_unit_test_carbon_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_carbon_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_carbon

# metasched simulate --carbon on the shipped carbon data
TESTS += tests/integration/test_simulate_carbon.sh
EXTRA_DIST += tests/integration/test_simulate_carbon.sh

# metaschedd with the zones' signals on the test bed: CSV, JSON and HTTP
# sources, deadline shifting, w_carbon's choice, stale and bad signals
TESTS += tests/integration/test_carbon_live.sh
EXTRA_DIST += tests/integration/test_carbon_live.sh

# metaschedd starts at once while its http(s) carbon source hangs: the API
# serves during the first poll, the failure is logged, the what-if says
# the signal is missing
TESTS += tests/integration/test_carbon_start.sh
EXTRA_DIST += tests/integration/test_carbon_start.sh

# metasched_window with the grid's signal: the window's cycle decides on
# the candidates' carbon and cost (a weight moves a job as under
# metasched); candidates_copy keeps the list's home, carbon and cost
check_PROGRAMS += tests/unit/test_window_carbon
tests_unit_test_window_carbon_SOURCES = tests/unit/test_window_carbon.c \
	tests/simworld.h tests/testutil.h
tests_unit_test_window_carbon_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_window_carbon_LDADD = $(SIM_TEST_LIBS)
TESTS += tests/unit/test_window_carbon

# metaschedd under policy = metasched_window with the zones' signals on the
# test bed: w_carbon sends a window's job to the clean zone's cluster; a
# deadline job goes out held for the clean step, one without is not
TESTS += tests/integration/test_carbon_window_live.sh
EXTRA_DIST += tests/integration/test_carbon_window_live.sh
