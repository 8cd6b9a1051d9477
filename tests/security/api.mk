# tests/security/api.mk: see tests/security/local.mk
