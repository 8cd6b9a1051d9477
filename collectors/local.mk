# collectors/: RAPL, PAPI, the job wrapper (see collectors/README).
EXTRA_DIST += collectors/README
