# testbed/: a private PostgreSQL and three local Slurm clusters for tests.
EXTRA_DIST += testbed/install-deps testbed/start testbed/stop testbed/check \
	testbed/lib.sh testbed/packages.txt testbed/pgctl testbed/hooks testbed/README
