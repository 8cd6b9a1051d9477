# metasched/common/common.mk: libmscommon.a, what every part of metasched
# links: errors as values (error.c), small helpers (util.c), the lines of
# the INI-like configuration files (ini.c) and the values of their keys
# (confval.c), and the user's job as sbatch reads it (jobspec.c, its words
# in jobspec_parse.c, the syntax of its values in jobspec_values.c,
# heterogeneous jobs in jobspec_het.c) and as JSON (jobspec_json.c).
noinst_LIBRARIES += metasched/libmscommon.a
metasched_libmscommon_a_SOURCES = \
	metasched/common/error.c metasched/common/error.h \
	metasched/common/util.c metasched/common/util.h \
	metasched/common/ini.c metasched/common/ini.h \
	metasched/common/confval.c metasched/common/confval.h \
	metasched/common/jobspec.c metasched/common/jobspec.h \
	metasched/common/jobspec_parse.c \
	metasched/common/jobspec_values.c metasched/common/jobspec_int.h \
	metasched/common/jobspec_het.c metasched/common/jobspec_nodes.c \
	metasched/common/jobspec_since.c metasched/common/jobspec_apply.c \
	metasched/common/jobspec_json.c metasched/common/jobspec_json.h
metasched_libmscommon_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

EXTRA_DIST += metasched/README metasched/common/README doc/examples
