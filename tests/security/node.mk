# tests/security/node.mk: see tests/security/local.mk
# What the node side believes about a job (doc/collectors.md "Who says
# what"), and whose job the start gate lets run.
NODE_SECURITY_TESTS = \
	tests/security/test_hostile_jobname.sh \
	tests/security/test_forged_counters.sh \
	tests/security/test_inherited_array_id.sh
TESTS += $(NODE_SECURITY_TESTS)
EXTRA_DIST += $(NODE_SECURITY_TESTS)
