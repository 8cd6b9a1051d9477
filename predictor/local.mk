# predictor/: time, power and energy models (see predictor/README).
noinst_LIBRARIES += predictor/libpredictor.a
predictor_libpredictor_a_SOURCES = predictor/predictor.h predictor/internal.h \
	predictor/arch.c predictor/signature.c predictor/project.c \
	predictor/defmodel.c predictor/modelfile.c predictor/fit.c \
	predictor/crossarch.c predictor/table61.c predictor/runs.c \
	predictor/synth.c
predictor_libpredictor_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)

check_PROGRAMS += tests/unit/test_predictor
tests_unit_test_predictor_SOURCES = tests/unit/test_predictor.c tests/testutil.h
tests_unit_test_predictor_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_predictor_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_predictor

check_PROGRAMS += tests/unit/test_predictor_eamc
tests_unit_test_predictor_eamc_SOURCES = tests/unit/test_predictor_eamc.c tests/testutil.h
tests_unit_test_predictor_eamc_CFLAGS = $(TEST_CFLAGS)
tests_unit_test_predictor_eamc_LDADD = $(TEST_LIBS)
TESTS += tests/unit/test_predictor_eamc
