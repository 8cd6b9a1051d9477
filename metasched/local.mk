# metasched/: the common library, the main program and its subcommands.
noinst_LIBRARIES += metasched/libmscommon.a
metasched_libmscommon_a_SOURCES = \
	metasched/error.c metasched/error.h \
	metasched/util.c metasched/util.h \
	metasched/ini.c metasched/ini.h \
	metasched/jobspec.c metasched/jobspec.h

bin_PROGRAMS += metasched/metasched
metasched_metasched_SOURCES = \
	metasched/main.c metasched/commands.h \
	metasched/cmd_clusters.c \
	metasched/cmd_model.c \
	metasched/cmd_simulate.c
metasched_metasched_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS)
metasched_metasched_LDADD = \
	partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a \
	$(CURL_LIBS) $(JANSSON_LIBS) $(GSL_LIBS) -lm

EXTRA_DIST += metasched/README doc/examples
