# tests/security/api.mk: see tests/security/local.mk
# The API under abuse (doc/admin-guide.md "The API under abuse"): slowclient
# is the hostile client the scripts run.
check_PROGRAMS += tests/security/slowclient
tests_security_slowclient_SOURCES = tests/security/slowclient.c
tests_security_slowclient_CFLAGS = $(AM_CFLAGS)

TESTS += tests/security/test_trickle_clients.sh \
	tests/security/test_address_limit.sh \
	tests/security/test_body_before_auth.sh \
	tests/security/test_request_deadline.sh
EXTRA_DIST += tests/security/test_trickle_clients.sh \
	tests/security/test_address_limit.sh \
	tests/security/test_body_before_auth.sh \
	tests/security/test_request_deadline.sh
