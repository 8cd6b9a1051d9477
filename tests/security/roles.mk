# tests/security/roles.mk: see tests/security/local.mk
