# bench/: benchmarks that print figures and ratios; never part of `make check`.
# Build them with `make bench` and run bench/run.
EXTRA_DIST += bench/README
.PHONY: bench
bench: $(bench_programs)
