# tests/power.mk: power budgets in metaschedd (metasched/daemon/dpower.c):
# the live setting, the held job and its reason, /metrics, the refusals.
# (The engine's and the simulator's tests of budgets are in
# metasched/core/core.mk and metasched/sim/sim.mk.)
TESTS += tests/integration/test_power_live.sh
EXTRA_DIST += tests/integration/test_power_live.sh
