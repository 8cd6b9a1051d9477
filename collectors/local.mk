# collectors/: RAPL, PAPI, the job wrapper, the Slurm prolog/epilog side,
# the spool and the accounting ingest (see collectors/README).
noinst_LIBRARIES += collectors/libcollect.a
collectors_libcollect_a_SOURCES = \
	collectors/collect.h \
	collectors/conf.c \
	collectors/counters.c \
	collectors/flush.c \
	collectors/jobrun_rec.c \
	collectors/nodeside.c \
	collectors/papi_sampler.c collectors/papi_sampler.h \
	collectors/rapl.c collectors/rapl.h \
	collectors/spool.c collectors/spool.h \
	collectors/wrapper.c
collectors_libcollect_a_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(PAPI_CFLAGS)

COLLECT_LIBS = collectors/libcollect.a db/libmsdb.a \
	partitions/libpartitions.a predictor/libpredictor.a \
	metasched/libmscommon.a

bin_PROGRAMS += collectors/metasched-collect
collectors_metasched_collect_SOURCES = collectors/metasched-collect.c
collectors_metasched_collect_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(PAPI_CFLAGS)
collectors_metasched_collect_LDADD = $(COLLECT_LIBS) \
	$(PQ_LIBS) $(PAPI_LIBS) $(CURL_LIBS) $(JANSSON_LIBS) $(GSL_LIBS) -lm

EXTRA_DIST += collectors/README collectors/lsan.supp
