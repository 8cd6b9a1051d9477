# tests/settings.mk: the one table of settings (core/settings_table.c):
# its rows, the daemon's settings and policy defaults read from it, and
# the man pages' lists against it.
check_PROGRAMS += tests/unit/test_settings_table
tests_unit_test_settings_table_SOURCES = tests/unit/test_settings_table.c \
	tests/testutil.h
tests_unit_test_settings_table_CFLAGS = $(API_TEST_CFLAGS)
tests_unit_test_settings_table_LDADD = $(API_LIBS)
TESTS += tests/unit/test_settings_table

TESTS += tests/cli/test_settings_docs.sh
EXTRA_DIST += tests/cli/test_settings_docs.sh

# the table against a live metaschedd on the test bed (config show/get/set)
TESTS += tests/integration/test_settings_live.sh
EXTRA_DIST += tests/integration/test_settings_live.sh tests/integration/scratch_lib.sh
