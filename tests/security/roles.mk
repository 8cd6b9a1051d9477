# tests/security/roles.mk: see tests/security/local.mk
# leadership only the daemon's role can hold (doc/daemon.md "Leadership")
TESTS += tests/security/test_leader_lock_collector.sh
EXTRA_DIST += tests/security/test_leader_lock_collector.sh
