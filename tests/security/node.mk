# tests/security/node.mk: see tests/security/local.mk
