# tests/engine.mk: the engine's rules as the simulator runs them
# (metasched/core/engine.c, doc/architecture.md "The engine").

# metasched simulate --outage: clusters down, held and moved jobs
TESTS += tests/integration/test_simulate_outage.sh
EXTRA_DIST += tests/integration/test_simulate_outage.sh
