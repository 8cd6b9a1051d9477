# tests/faults/spool.mk: see tests/faults/local.mk.
