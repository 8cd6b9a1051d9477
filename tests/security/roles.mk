# tests/security/roles.mk: see tests/security/local.mk
# leadership only the daemon's role can hold (doc/daemon.md "Leadership")
TESTS += tests/security/test_leader_lock_collector.sh
EXTRA_DIST += tests/security/test_leader_lock_collector.sh
# a finished job's script and environment kept script_retention_days only
TESTS += tests/security/test_retention.sh
EXTRA_DIST += tests/security/test_retention.sh
# secret files checked on the open descriptor: owner, mode, no link
TESTS += tests/security/test_secret_file_owner.sh
EXTRA_DIST += tests/security/test_secret_file_owner.sh
