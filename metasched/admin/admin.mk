# metasched/admin/admin.mk: the `metasched` program (main.c wires each
# subcommand, cmd_NAME.c): clusters, model, simulate, config (the daemon's
# settings through its API with the client library of cli/cli.mk,
# doc/metasched-config.1) and report (energy and prediction error read from
# PostgreSQL as the report role, doc/metasched-report.1); `metasched db` and
# `metasched collect` are added by collectors/local.mk. Their tests and man
# pages. libmsdb.a, libpq and jansson come with collectors/local.mk's part.
bin_PROGRAMS += metasched/metasched
metasched_metasched_SOURCES = \
	metasched/admin/main.c metasched/admin/commands.h metasched/admin/cmdopt.h \
	metasched/admin/cmd_clusters.c \
	metasched/admin/cmd_model.c \
	metasched/admin/cmd_simulate.c metasched/admin/siminput.c \
	metasched/admin/simhistory.c \
	metasched/admin/siminput.h metasched/admin/simopts.c \
	metasched/admin/simopts.h metasched/admin/simpower.c \
	metasched/admin/simpower.h metasched/admin/simcarbon.c \
	metasched/admin/simcarbon.h metasched/admin/simoutage.c \
	metasched/admin/simoutage.h \
	metasched/admin/simpar.c metasched/admin/simpar.h \
	metasched/admin/simrecs.c metasched/admin/simrecs.h \
	metasched/admin/cmd_config.c metasched/admin/cmd_report.c \
	metasched/admin/cmd_job.c metasched/admin/report_ab.c \
	metasched/admin/report_ab.h metasched/admin/report_power.c \
	metasched/admin/report_power.h metasched/admin/reportout.c \
	metasched/admin/reportout.h metasched/admin/abstats.c \
	metasched/admin/abstats.h
metasched_metasched_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS)
# Link order: each library before the libraries it uses (libmsdb.a and
# the collectors come after, from collectors/local.mk).
metasched_metasched_LDADD = \
	metasched/libmsclient.a metasched/libmsapi.a wire/libmswire.a metasched/libmssim.a \
	metasched/libmscore.a \
	partitions/libsim.a partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a \
	$(CURL_LIBS) $(JANSSON_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS) $(GSL_LIBS) \
	-lm

TESTS += tests/integration/test_report.sh tests/integration/test_config.sh \
	tests/integration/test_simulate_history.sh
EXTRA_DIST += tests/integration/test_report.sh tests/integration/test_config.sh \
	tests/integration/test_simulate_history.sh

dist_man_MANS += doc/metasched-config.1 doc/metasched-report.1 \
	doc/metasched-job.1
EXTRA_DIST += metasched/admin/README
