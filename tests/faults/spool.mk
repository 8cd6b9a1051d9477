# tests/faults/spool.mk: see tests/faults/local.mk.
# The spool under a long database outage: its cap in files and bytes, bad/
# aged, the drops counted, the epilog's bound, each row kept stored once.
TESTS += tests/faults/test_spool_cap.sh
EXTRA_DIST += tests/faults/test_spool_cap.sh
# The spools' drop counts on metaschedd's /metrics (migration 0017).
TESTS += tests/faults/test_spool_metrics.sh
EXTRA_DIST += tests/faults/test_spool_metrics.sh
