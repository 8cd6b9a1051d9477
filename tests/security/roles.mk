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
# a signed API request that prints the answer's status and body as received
check_PROGRAMS += tests/security/roles_apireq
tests_security_roles_apireq_SOURCES = tests/security/roles_apireq.c
tests_security_roles_apireq_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS)
tests_security_roles_apireq_LDADD = wire/libmswire.a \
	metasched/libmscommon.a $(CURL_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS)
# one answer for another user's job and for no job
TESTS += tests/security/test_not_found_equal.sh
EXTRA_DIST += tests/security/test_not_found_equal.sh
# a credential of a uid without a name is refused
TESTS += tests/security/test_uid_without_name.sh
EXTRA_DIST += tests/security/test_uid_without_name.sh
