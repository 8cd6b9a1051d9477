# tests/security/limits.mk: see tests/security/local.mk
