# metasched/daemon/daemon.mk: metaschedd: its configuration, the scheduling cycle
# and the cycle's statements (see doc/daemon.md); the daemon's tests and
# the decision benchmark. The API server is metasched/libmsapi.a
# (api.mk).
DAEMON_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS) \
	$(GSL_CFLAGS) $(MHD_CFLAGS) $(MUNGE_CFLAGS) $(CRYPTO_CFLAGS) -DMS_BINDIR='"$(bindir)"'

noinst_LIBRARIES += metasched/libmsdaemon.a
metasched_libmsdaemon_a_SOURCES = \
	metasched/daemon/dconf.c metasched/daemon/dconf.h \
	metasched/daemon/daemon.c metasched/daemon/daemon.h \
	metasched/daemon/daemon_int.h metasched/daemon/leader.c \
	metasched/daemon/dlog.c metasched/daemon/dlog.h \
	metasched/daemon/dstate.c metasched/daemon/dstate.h \
	metasched/daemon/dsettings.c metasched/daemon/dpower.c \
	metasched/daemon/dcarbon.c \
	metasched/daemon/place.c \
	metasched/daemon/refresh.c metasched/daemon/predict.c \
	metasched/daemon/decide.c metasched/daemon/dispatch.c \
	metasched/daemon/submit.c metasched/daemon/boost.c \
	metasched/daemon/reconcile.c metasched/daemon/missing.c \
	metasched/daemon/hooks.c \
	metasched/daemon/depend.c metasched/daemon/retention.c \
	metasched/daemon/tag.c metasched/daemon/tag.h \
	metasched/daemon/tagged.c \
	metasched/daemon/snapshot.c metasched/daemon/hetjob.c \
	metasched/daemon/spooldrops.c metasched/daemon/ab.c \
	metasched/daemon/mixids.c metasched/daemon/mixids.h
metasched_libmsdaemon_a_CFLAGS = $(DAEMON_CFLAGS)

DAEMON_LIBS = metasched/libmsdaemon.a metasched/libmsapi.a wire/libmswire.a db/libmsdb.a \
	metasched/libmscore.a partitions/libsim.a partitions/libpartitions.a \
	predictor/libpredictor.a metasched/libmscommon.a \
	$(MHD_LIBS) $(MUNGE_LIBS) $(CRYPTO_LIBS) $(PQ_LIBS) $(CURL_LIBS) $(JANSSON_LIBS) \
	$(GSL_LIBS) -lpthread -lm

sbin_PROGRAMS += metasched/metaschedd
metasched_metaschedd_SOURCES = metasched/daemon/metaschedd.c
metasched_metaschedd_CFLAGS = $(DAEMON_CFLAGS)
metasched_metaschedd_LDADD = $(DAEMON_LIBS)

dist_man_MANS += doc/metaschedd.8 doc/metaschedd.conf.5
dist_doc_DATA += doc/daemon.md
EXTRA_DIST += metasched/daemon/metaschedd.service

# ---- tests on the test bed ----
TESTS += tests/integration/test_daemon_config.sh tests/integration/test_daemon.sh \
	tests/integration/test_daemon_kill.sh tests/integration/test_daemon_ha.sh \
	tests/integration/test_siblings.sh tests/integration/test_daemon_down.sh \
	tests/integration/test_daemon_start_down.sh tests/integration/test_dispatch_cluster_gone.sh \
	tests/integration/test_daemon_start_none.sh \
	tests/integration/test_daemon_pg.sh tests/integration/test_daemon_learn.sh \
	tests/integration/test_daemon_boost.sh tests/integration/test_placement.sh \
	tests/integration/test_daemon_sbatch.sh tests/integration/test_daemon_array.sh \
	tests/integration/test_partition_requests.sh \
	tests/integration/test_clusters_cpufreq.sh
EXTRA_DIST += tests/integration/test_daemon_config.sh tests/integration/daemon_lib.sh \
	tests/integration/test_daemon.sh tests/integration/test_daemon_kill.sh \
	tests/integration/test_daemon_ha.sh tests/integration/test_siblings.sh \
	tests/integration/test_daemon_down.sh tests/integration/test_daemon_pg.sh \
	tests/integration/test_daemon_start_down.sh tests/integration/test_dispatch_cluster_gone.sh \
	tests/integration/test_daemon_start_none.sh \
	tests/integration/test_daemon_learn.sh tests/integration/test_daemon_boost.sh \
	tests/integration/test_placement.sh tests/integration/test_daemon_sbatch.sh \
	tests/integration/test_daemon_array.sh tests/integration/test_partition_requests.sh \
	tests/integration/test_clusters_cpufreq.sh
# GPU jobs on the test bed's GPU cluster
TESTS += tests/integration/test_daemon_gpu.sh
EXTRA_DIST += tests/integration/test_daemon_gpu.sh
TESTS += tests/integration/test_daemon_hetjob.sh
EXTRA_DIST += tests/integration/test_daemon_hetjob.sh
# moldable jobs (-N MIN-MAX) sized from their app's history
TESTS += tests/integration/test_daemon_mold.sh
EXTRA_DIST += tests/integration/test_daemon_mold.sh
# the window assignment in the daemon
TESTS += tests/integration/test_daemon_window.sh
EXTRA_DIST += tests/integration/test_daemon_window.sh
# sibling mode's hold of a copy on a busy partition
TESTS += tests/integration/test_daemon_hold.sh
EXTRA_DIST += tests/integration/test_daemon_hold.sh
TESTS += tests/integration/test_daemon_ahead.sh
EXTRA_DIST += tests/integration/test_daemon_ahead.sh
# and its hold of a copy on an idle partition when the job has a stake in
# its first choice
TESTS += tests/integration/test_daemon_stake.sh
EXTRA_DIST += tests/integration/test_daemon_stake.sh
# sibling mode's nice of each copy, and the aging of a first choice's
TESTS += tests/integration/test_daemon_age.sh
EXTRA_DIST += tests/integration/test_daemon_age.sh
# the decided jobs re-read at the start, for the calibrated energy odds
TESTS += tests/integration/test_daemon_calib.sh
EXTRA_DIST += tests/integration/test_daemon_calib.sh

# benchmark (`make bench`): a cycle's decisions against one submit
EXTRA_PROGRAMS += bench/bench_decide
bench_programs += bench/bench_decide
bench_bench_decide_SOURCES = bench/bench_decide.c tests/testbed_env.c \
	tests/testbed_env.h
bench_bench_decide_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(CURL_CFLAGS) \
	$(JANSSON_CFLAGS) $(CHECK_CFLAGS)
bench_bench_decide_LDADD = metasched/libmscore.a partitions/libsim.a \
	partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a $(CURL_LIBS) $(JANSSON_LIBS) $(GSL_LIBS) \
	$(CHECK_LIBS) -lm
CLEANFILES += bench/bench_decide
EXTRA_DIST += metasched/daemon/README
# re-routing keeps a job's placement rules
TESTS += tests/integration/test_daemon_reroute.sh
EXTRA_DIST += tests/integration/test_daemon_reroute.sh
