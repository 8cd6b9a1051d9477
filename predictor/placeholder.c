#include "config.h"
#include "predictor/predictor.h"
int ms_predictor_placeholder_;
