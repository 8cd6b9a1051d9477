# tests/security/tag.mk: see tests/security/local.mk
