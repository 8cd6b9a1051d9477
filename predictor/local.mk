# predictor/: time, power and energy models (see predictor/README).
noinst_LIBRARIES += predictor/libpredictor.a
predictor_libpredictor_a_SOURCES = predictor/predictor.h predictor/internal.h \
	predictor/arch.c predictor/signature.c predictor/project.c \
	predictor/defmodel.c predictor/modelfile.c predictor/fit.c \
	predictor/crossarch.c predictor/table61.c predictor/runs.c
predictor_libpredictor_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
