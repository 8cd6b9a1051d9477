# db/: PostgreSQL schema (forward-only migrations) and the libpq access
# layer (see db/README).
DB_MIGRATIONS = \
	db/migrations/0001_init.sql \
	db/migrations/0002_roles_accounting.sql \
	db/migrations/0003_daemon.sql \
	db/migrations/0004_daemon_limit.sql \
	db/migrations/0005_dispatch_cost.sql \
	db/migrations/0006_arrays_dependencies.sql \
	db/migrations/0007_submission_nice.sql \
	db/migrations/0010_leader_lease.sql \
	db/migrations/0011_retention.sql \
	db/migrations/0012_job_runs_reported.sql \
	db/migrations/0013_job_options_view.sql \
	db/migrations/0014_job_unknown.sql \
	db/migrations/0015_refused_copies.sql \
	db/migrations/0016_submit_key.sql \
	db/migrations/0017_spool_drops.sql \
	db/migrations/0020_ab_group.sql \
	db/migrations/0022_power_history.sql \
	db/migrations/0023_job_power.sql \
	db/migrations/0024_job_runs_het.sql \
	db/migrations/0027_job_runs_meta_app.sql

noinst_LIBRARIES += db/libmsdb.a
db_libmsdb_a_SOURCES = \
	db/db.c db/db.h \
	db/jobreq.c db/jobreq.h \
	db/jobs.c db/jobs.h \
	db/queue.c db/queue.h \
	db/migrate.c \
	db/jobruns.c \
	db/sites.c \
	db/accounting.c \
	db/models.c \
	db/fit.c \
	db/replay.c \
	db/retention.c db/retention.h \
	db/spooldrops.c
nodist_db_libmsdb_a_SOURCES = db/migrations.c
db_libmsdb_a_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(JANSSON_CFLAGS)

db/migrations.c: $(DB_MIGRATIONS) db/gen-migrations.sh
	$(AM_V_GEN)$(MKDIR_P) db && files= && \
	for f in $(DB_MIGRATIONS); do files="$$files $(top_srcdir)/$$f"; done && \
	$(SHELL) $(top_srcdir)/db/gen-migrations.sh $$files > $@.tmp && mv $@.tmp $@
CLEANFILES += db/migrations.c

EXTRA_DIST += db/README db/gen-migrations.sh $(DB_MIGRATIONS)

# ---- tests on the test bed's PostgreSQL ----
check_PROGRAMS += tests/integration/test_db
tests_integration_test_db_SOURCES = tests/integration/test_db.c \
	tests/testutil.h tests/testbed_env.c tests/testbed_env.h
tests_integration_test_db_CFLAGS = $(TEST_CFLAGS) $(PQ_CFLAGS)
tests_integration_test_db_LDADD = db/libmsdb.a $(TEST_LIBS) $(PQ_LIBS)
TESTS += tests/integration/test_db

# benchmark (`make bench`): job_runs rows per second, single and batched
EXTRA_PROGRAMS += bench/bench_db
bench_programs += bench/bench_db
bench_bench_db_SOURCES = bench/bench_db.c tests/testbed_env.c tests/testbed_env.h
bench_bench_db_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(CHECK_CFLAGS)
bench_bench_db_LDADD = db/libmsdb.a metasched/libmscommon.a $(PQ_LIBS) $(CHECK_LIBS)

dist_man_MANS += doc/metasched-db.1
dist_doc_DATA += doc/database.md
