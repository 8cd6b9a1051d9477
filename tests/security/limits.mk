# tests/security/limits.mk: see tests/security/local.mk
# One user's queue must not slow every user: per-user limits on held and
# queued jobs and on what-ifs, answered 429 (doc/admin-guide.md).
TESTS += tests/security/test_held_flood.sh
EXTRA_DIST += tests/security/test_held_flood.sh
