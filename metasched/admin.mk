# metasched/admin.mk: the admin subcommands of `metasched` (wired in
# metasched/main.c): `metasched report` (energy and prediction error read
# from PostgreSQL as the report role, doc/metasched-report.1), its test and
# man page. libmsdb.a, libpq and jansson come with collectors/local.mk's
# `metasched db` part.
metasched_metasched_SOURCES += metasched/cmd_report.c

TESTS += tests/integration/test_report.sh
EXTRA_DIST += tests/integration/test_report.sh

dist_man_MANS += doc/metasched-report.1
