# tests/engine.mk: the engine's rules as the simulator runs them
# (metasched/core/engine.c, doc/architecture.md "The engine").

# metasched simulate --outage: clusters down, held and moved jobs
TESTS += tests/integration/test_simulate_outage.sh
EXTRA_DIST += tests/integration/test_simulate_outage.sh

# the job mix on both paths: a job that waits several cycles (its cluster
# down, a power budget) counted once by metaschedd as by the simulator
check_PROGRAMS += tests/unit/test_engine_mix
tests_unit_test_engine_mix_SOURCES = tests/unit/test_engine_mix.c tests/simdaemon.h \
	tests/testutil.h tests/simworld.h
tests_unit_test_engine_mix_CFLAGS = $(DAEMON_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_engine_mix_LDADD = $(DAEMON_LIBS) $(CHECK_LIBS)
TESTS += tests/unit/test_engine_mix

# metaschedd live: a job held under a power budget for several cycles,
# and re-read with the history at a restart, counted once in the job mix
TESTS += tests/integration/test_daemon_mix_once.sh
EXTRA_DIST += tests/integration/test_daemon_mix_once.sh
