# testbed/: a private PostgreSQL and three local Slurm clusters for tests.
EXTRA_DIST += testbed/install-deps testbed/start testbed/stop testbed/check \
	testbed/lib.sh testbed/packages.txt testbed/pgctl testbed/hooks testbed/README

# testbed/start on what a Slurm under a prefix lacks (no test bed needed)
TESTS += tests/testbed/test_start_missing.sh
EXTRA_DIST += tests/testbed/test_start_missing.sh
