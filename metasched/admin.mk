# metasched/admin.mk: the admin subcommands of `metasched` (wired in
# metasched/main.c): `metasched config` (the daemon's settings through its
# API with the client library of cli.mk, doc/metasched-config.1) and
# `metasched report` (energy and prediction error read from PostgreSQL as
# the report role, doc/metasched-report.1), their tests and man pages.
# libmsdb.a, libpq and jansson come with collectors/local.mk's `metasched
# db` part.
metasched_metasched_SOURCES += metasched/cmd_config.c metasched/cmd_report.c
metasched_metasched_LDADD += metasched/libmsclient.a metasched/libmsapi.a \
	metasched/libmscommon.a $(CURL_LIBS) $(JANSSON_LIBS) $(MUNGE_LIBS) -lm

TESTS += tests/integration/test_report.sh tests/integration/test_config.sh
EXTRA_DIST += tests/integration/test_report.sh tests/integration/test_config.sh

dist_man_MANS += doc/metasched-config.1 doc/metasched-report.1
