# predictor/: time, power and energy models (see predictor/README).
noinst_LIBRARIES += predictor/libpredictor.a
predictor_libpredictor_a_SOURCES = predictor/predictor.h predictor/placeholder.c
predictor_libpredictor_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
