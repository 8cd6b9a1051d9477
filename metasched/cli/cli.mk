# metasched/cli/cli.mk: the user commands (msbatch, msqueue, mscancel) and
# their formatting of answers (libmsclient.a); the API client they,
# `metasched config`, the collectors and the tests share is
# wire/libmswire.a (wire/local.mk).
noinst_LIBRARIES += metasched/libmsclient.a
metasched_libmsclient_a_SOURCES = \
	metasched/cli/clifmt.c metasched/cli/clifmt.h \
	metasched/cli/slurmfmt.c metasched/cli/slurmfmt.h
metasched_libmsclient_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS)

# What a program linking the client needs after its own objects.
MSCLIENT_LIBS = metasched/libmsclient.a wire/libmswire.a \
	metasched/libmscommon.a $(CURL_LIBS) $(JANSSON_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS) -lm
MSCLIENT_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS)

bin_PROGRAMS += metasched/msbatch metasched/msqueue metasched/mscancel
metasched_msbatch_SOURCES = metasched/cli/msbatch.c
metasched_msbatch_CFLAGS = $(MSCLIENT_CFLAGS)
metasched_msbatch_LDADD = $(MSCLIENT_LIBS)
metasched_msqueue_SOURCES = metasched/cli/msqueue.c
metasched_msqueue_CFLAGS = $(MSCLIENT_CFLAGS)
metasched_msqueue_LDADD = $(MSCLIENT_LIBS)
metasched_mscancel_SOURCES = metasched/cli/mscancel.c
metasched_mscancel_CFLAGS = $(MSCLIENT_CFLAGS)
metasched_mscancel_LDADD = $(MSCLIENT_LIBS)

dist_man_MANS += doc/msbatch.1 doc/msqueue.1 doc/mscancel.1

# The client's own handling of addresses, errors and malformed answers.
check_PROGRAMS += tests/unit/test_client
tests_unit_test_client_SOURCES = tests/unit/test_client.c tests/testutil.h \
	tests/testbed_env.c tests/testbed_env.h
tests_unit_test_client_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_client_LDADD = $(MSCLIENT_LIBS) $(TEST_LIBS)
TESTS += tests/unit/test_client

# A meta job in squeue's terms: state names, -o/--format, --json.
check_PROGRAMS += tests/unit/test_slurmfmt
tests_unit_test_slurmfmt_SOURCES = tests/unit/test_slurmfmt.c tests/testutil.h
tests_unit_test_slurmfmt_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_slurmfmt_LDADD = $(MSCLIENT_LIBS) $(TEST_LIBS)
TESTS += tests/unit/test_slurmfmt

# msbatch --parse over the corpus of batch scripts (no daemon needed).
TESTS += tests/cli/test_msbatch_parse.sh
EXTRA_DIST += tests/cli/test_msbatch_parse.sh tests/data/scripts

# The user commands against the real metaschedd on the test bed.
TESTS += tests/integration/test_cli.sh
EXTRA_DIST += tests/integration/test_cli.sh

# What msbatch takes from the submitting shell (--propagate, --export-file)
# as jobs on the test bed see it.
TESTS += tests/integration/test_msbatch_env.sh
EXTRA_DIST += tests/integration/test_msbatch_env.sh

# mscancel --signal: the signal reaches the job on its cluster.
TESTS += tests/integration/test_mscancel_signal.sh
EXTRA_DIST += tests/integration/test_mscancel_signal.sh

# The commands as tools that drive sbatch, squeue and scancel use them.
TESTS += tests/integration/test_cli_tools.sh
EXTRA_DIST += tests/integration/test_cli_tools.sh

# A real workflow manager (Snakemake, doc/workflows.md) through metasched.
TESTS += tests/integration/test_snakemake.sh
EXTRA_DIST += tests/integration/test_snakemake.sh

# Submission throughput through metasched against direct slurmrestd.
EXTRA_PROGRAMS += bench/bench_submit
bench_bench_submit_SOURCES = bench/bench_submit.c
bench_bench_submit_CFLAGS = $(MSCLIENT_CFLAGS)
bench_bench_submit_LDADD = partitions/libpartitions.a $(MSCLIENT_LIBS)
bench_programs += bench/bench_submit
EXTRA_DIST += metasched/cli/README
