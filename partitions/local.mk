# partitions/: cluster configuration and the backends.
noinst_LIBRARIES += partitions/libpartitions.a
partitions_libpartitions_a_SOURCES = \
	partitions/backend.c partitions/backend.h \
	partitions/clusterconf.c partitions/clusterconf.h \
	partitions/slurmrest.c partitions/slurmrest.h \
	partitions/slurmrest_proto.c partitions/slurmrest_int.h \
	partitions/slurmrest_parse.c partitions/slurmrest_parse_db.c \
	partitions/slurmrest_parse_int.h partitions/slurmrest_build.c
partitions_libpartitions_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS)

EXTRA_DIST += partitions/README
