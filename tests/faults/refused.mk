# tests/faults/refused.mk: see tests/faults/local.mk.
# Refused copies and MAX_REFUSED (doc/daemon.md, "Refused copies"): a copy
# that the start gate refuses is that copy's end, not the job's; refused
# dispatches are counted in a row.
TESTS += tests/faults/test_refused_config.sh \
	tests/faults/test_refused_sibling.sh \
	tests/faults/test_refused_lost.sh \
	tests/faults/test_refused_limit.sh
EXTRA_DIST += tests/faults/test_refused_config.sh \
	tests/faults/test_refused_sibling.sh \
	tests/faults/test_refused_lost.sh \
	tests/faults/test_refused_limit.sh
