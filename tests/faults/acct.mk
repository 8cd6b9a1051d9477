# tests/faults/acct.mk: see tests/faults/local.mk.
