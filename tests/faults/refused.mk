# tests/faults/refused.mk: see tests/faults/local.mk.
