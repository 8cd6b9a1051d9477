# tests/faults/acct.mk: see tests/faults/local.mk. Jobs missing from a
# controller (doc/daemon.md): a long outage on clusters with and without
# accounting, the admin's resolution of an unknown job.
TESTS += tests/faults/test_acct_outage.sh tests/faults/test_acct_unknown.sh
EXTRA_DIST += tests/faults/test_acct_outage.sh tests/faults/test_acct_unknown.sh \
	tests/faults/acct_lib.sh
