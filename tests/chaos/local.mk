# tests/chaos/: seeded chaos runs (doc/daemon.md, "Faults"): users submit and
# cancel while the daemon, a slurmrestd, a slurmctld and PostgreSQL are
# killed and restarted at times drawn from the seed; a ledger at the end.
TESTS += tests/chaos/test_chaos.sh
EXTRA_DIST += tests/chaos/test_chaos.sh tests/chaos/chaos_lib.sh tests/chaos/README
# what the chaos run found, each with a focused test
TESTS += tests/integration/test_daemon_pg_crash.sh
EXTRA_DIST += tests/integration/test_daemon_pg_crash.sh
TESTS += tests/integration/test_daemon_adopt_ended.sh
EXTRA_DIST += tests/integration/test_daemon_adopt_ended.sh
