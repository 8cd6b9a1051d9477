# metasched/admin/admin.mk: the `metasched` program and metasched-full
# (main.c wires each subcommand, cmd_NAME.c; fullexec.c): clusters, model,
# simulate, config (the daemon's settings through its API with the client
# library of cli/cli.mk, doc/metasched-config.1) and report (energy and prediction error read from
# PostgreSQL as the report role, doc/metasched-report.1); `metasched db` and
# `metasched collect` are added to metasched-full by collectors/local.mk.
# Their tests and man pages. libmsdb.a, libpq and jansson come with
# collectors/local.mk's part.
bin_PROGRAMS += metasched/metasched
pkglibexec_PROGRAMS = metasched/metasched-full
# `metasched simulate` and what it needs (both programs).
MS_SIMULATE_SOURCES = \
	metasched/admin/main.c metasched/admin/commands.h metasched/admin/cmdopt.h \
	metasched/admin/cmd_simulate.c metasched/admin/siminput.c \
	metasched/admin/siminput.h metasched/admin/simopts.c \
	metasched/admin/simopts.h metasched/admin/simpower.c \
	metasched/admin/simpower.h metasched/admin/simcarbon.c \
	metasched/admin/simcarbon.h metasched/admin/simoutage.c \
	metasched/admin/simoutage.h \
	metasched/admin/simpar.c metasched/admin/simpar.h \
	metasched/admin/simrecs.c metasched/admin/simrecs.h
MS_SIMULATE_LIBS = metasched/libmssim.a metasched/libmscore.a \
	partitions/libsim.a partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a

# `metasched`: simulate, linked only with what the simulator needs (GSL,
# GLPK, zlib, libm: its start maps 8 shared libraries, not 44); every other
# command, and simulate --from-db, it runs in metasched-full (fullexec.c),
# found beside it in the build tree, else in $(pkglibexecdir).
metasched_metasched_SOURCES = $(MS_SIMULATE_SOURCES) metasched/admin/fullexec.c
metasched_metasched_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMS_BUILDDIR='"$(abs_top_builddir)"' \
	-DMS_PKGLIBEXECDIR='"$(pkglibexecdir)"'
metasched_metasched_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
metasched_metasched_LDADD = $(MS_SIMULATE_LIBS) $(GSL_LIBS) -lm

# metasched-full: every command (`metasched db` and `metasched collect`
# come from collectors/local.mk).
metasched_metasched_full_SOURCES = $(MS_SIMULATE_SOURCES) \
	metasched/admin/simhistory.c \
	metasched/admin/cmd_clusters.c \
	metasched/admin/cmd_model.c \
	metasched/admin/cmd_config.c metasched/admin/cmd_report.c \
	metasched/admin/cmd_job.c metasched/admin/report_ab.c \
	metasched/admin/report_ab.h metasched/admin/report_power.c \
	metasched/admin/report_power.h metasched/admin/reportout.c \
	metasched/admin/reportout.h metasched/admin/abstats.c \
	metasched/admin/abstats.h
metasched_metasched_full_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS)
# Link order: each library before the libraries it uses (libmsdb.a and
# the collectors come after, from collectors/local.mk).
metasched_metasched_full_LDADD = \
	metasched/libmsclient.a metasched/libmsapi.a wire/libmswire.a \
	$(MS_SIMULATE_LIBS) \
	$(CURL_LIBS) $(JANSSON_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS) $(GSL_LIBS) \
	-lm

TESTS += tests/integration/test_report.sh tests/integration/test_config.sh \
	tests/integration/test_simulate_history.sh
EXTRA_DIST += tests/integration/test_report.sh tests/integration/test_config.sh \
	tests/integration/test_simulate_history.sh

dist_man_MANS += doc/metasched-config.1 doc/metasched-report.1 \
	doc/metasched-job.1
EXTRA_DIST += metasched/admin/README
