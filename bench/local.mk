# bench/: benchmarks that print figures and ratios; never part of `make check`.
# Build them with `make bench` and run bench/run.
EXTRA_DIST += bench/README
.PHONY: bench
bench: $(bench_programs)
# bench_held.sh: a script on the test bed (README)
EXTRA_DIST += bench/bench_held.sh
# eval_tables.sh: every table of doc/evaluation.md, in order (README)
EXTRA_DIST += bench/eval_tables.sh
# bench_failover.sh: PostgreSQL's failover under submissions, on the test
# bed with its standby (README)
EXTRA_DIST += bench/bench_failover.sh
# carbon_table.sh: doc/evaluation.md's Carbon table over seeds (README)
EXTRA_DIST += bench/carbon_table.sh
