# tests/faults/pgha.mk: see tests/faults/local.mk.
