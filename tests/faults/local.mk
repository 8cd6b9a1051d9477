# tests/faults/: long faults on the test bed (doc/daemon.md, "Faults"): a
# daemon or database down past a cluster's MinJobAge, copies refused by the
# start gate, a full spool, the database's failover. Each area keeps its
# tests in a .mk of its own, included here.
include tests/faults/acct.mk
include tests/faults/refused.mk
include tests/faults/spool.mk
include tests/faults/pgha.mk
