# tests/security/tag.mk: see tests/security/local.mk
# a forged tag: another user's direct submission claims a meta job
TESTS += tests/security/test_forged_tag.sh
EXTRA_DIST += tests/security/test_forged_tag.sh
