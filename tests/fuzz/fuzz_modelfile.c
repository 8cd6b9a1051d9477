/* fuzz_modelfile.c - the EAR model-file reader and the runs CSV reader on
 * arbitrary bytes. The first byte picks the reader: 'P' or 'T' (an EAR
 * power or time file for a 3-frequency arch, 9 rows), anything else the
 * runs CSV. A parsed model is then used for a projection and a fit, so the
 * numbers a file lets through are exercised too. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/predictor.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const uint32_t f[3] = { 1000000, 1500000, 2000000 };
    const pred_signature_t sig = { .runtime_s = 50, .power_w = 300, .cpi = 0.8,
                                   .tpi = 12, .gbs = 40, .nodes = 1 };
    predictor_t *p;
    ms_error_t e;

    if (size < 1)
        return 0;
    p = predictor_new ();
    if (predictor_add_arch (p, "a", 8, f, 3, 2000000, 50, &e) < 0)
        abort ();
    if (data[0] == 'P' || data[0] == 'T') {
        if (predictor_parse_ear_coeffs (p, "a", data[0], (const char *)data + 1,
                                        size - 1, "fuzz", &e) == 0) {
            pred_estimate_t out;
            predictor_set_signature (p, "x", "a", &sig, &e);
            for (int i = 0; i < 3; i++)
                predictor_estimate (p, "x", "a", f[i], 2, &out, &e);
        }
    } else {
        pred_runs_t *r;
        if (predictor_runs_parse ((const char *)data + 1, size - 1, "fuzz", &r, &e) == 0) {
            size_t n;
            const pred_run_t *runs = predictor_runs_get (r, &n);
            if (predictor_fit (p, runs, n, PRED_FIT_OLS, &e) == 0)
                predictor_signatures_from_runs (p, runs, n, &e);
            predictor_runs_free (r);
        }
    }
    predictor_free (p);
    return 0;
}
