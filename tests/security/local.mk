# tests/security/: one test per attack on metasched (doc/admin-guide.md,
# "Security"), each named for the attack. Every test fails against the code
# before its fix and passes after; they run in CI on the test bed. Each area
# keeps its tests in a .mk of its own, included here.
include tests/security/tag.mk
include tests/security/api.mk
include tests/security/limits.mk
include tests/security/node.mk
include tests/security/roles.mk
