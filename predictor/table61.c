/* table61.c - the project's own typed copy of Table 6.1 of the EAMC
 * chapter (M. D'Amico, PhD thesis, UPC Barcelona, 2021, chapter 6, section
 * 6.5: "Set of applications and their characteristics"; seeds/000; the 8
 * apps on three Xeon partitions, one node, all cores, nominal frequency):
 *   p1 = 2x Xeon Platinum 8168, 1.2..2.7 GHz
 *   p2 = 2x Xeon Gold 6254,     1.2..3.1 GHz
 *   p3 = 2x Xeon Gold 6148,     1.0..2.4 GHz
 * Columns: CPI, memory bandwidth (GB/s), runtime (s), node power (W) and
 * dr/df, the spread of runtime over the frequency range divided by the
 * frequency range. It is the simulator's embedded default profile set.
 *
 * beta from dr/df (doc/predictor.md, "Default parametric model"): dr/df is
 * printed in seconds per 100 MHz step (checked against the eamc-2hw EAR
 * projections: ep.D on p1 goes from 64.2 s at 2.7 GHz to 145 s at 1.2 GHz,
 * 5.4 s per step; the table prints 5.67). With the max runtime at f_min
 * and the min at nominal = f_max, and T(f) = T(nom)*(beta*(nom/f - 1) + 1):
 *   T(fmin) - T(fmax) = 10 * dr_df * (fmax - fmin)[GHz]
 *                     = T(nom) * beta * (fmax - fmin) / fmin
 *   => beta = 10 * dr_df * fmin[GHz] / T(nom)
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "predictor/internal.h"

typedef struct {
    const char *app;
    double cpi[3], gbs[3], runtime[3], power[3], drdf[3];
} t61_row_t;

static const t61_row_t t61[8] = {
    /*            cpi p1,p2,p3        GB/s                    runtime s               power W                 dr/df s per 100 MHz */
    { "lu.C",    { 0.67, 0.66, 0.57 }, { 70.95, 63.73, 59.7 },  { 52.49, 57.45, 62.78 }, { 386, 367, 331.25 },    { 2.38, 2.87, 4.18 } },
    { "ep.D",    { 0.60, 0.60, 0.60 }, { 0.03, 0.04, 0.03 },    { 64.20, 74.20, 86.59 }, { 349, 337, 290.32 },    { 5.67, 6.37, 8.97 } },
    { "bt-mz.C", { 0.38, 0.39, 0.38 }, { 23.33, 19.96, 17.7 },  { 43.95, 51.32, 57.70 }, { 417, 411, 342.73 },    { 3.52, 4.05, 5.65 } },
    { "sp-mz.C", { 0.44, 0.50, 0.42 }, { 66.09, 52.24, 51.17 }, { 46.05, 59.76, 38.58 }, { 460, 427, 375.47 },    { 3.07, 3.34, 4.64 } },
    { "lu-mz.C", { 0.62, 0.62, 0.63 }, { 19.87, 21.14, 18.89 }, { 59.21, 61.41, 65.98 }, { 355, 360, 308.81 },    { 4.75, 4.70, 6.33 } },
    { "ua.C",    { 0.99, 0.95, 0.87 }, { 51.29, 49.05, 45.5 },  { 46.96, 53.11, 54.51 }, { 368, 360, 324.6 },     { 1.74, 1.84, 2.64 } },
    { "DGEMM",   { 0.40, 0.40, 0.38 }, { 66.43, 62.76, 50.87 }, { 47.40, 52.60, 61.97 }, { 491, 497, 366.25 },    { 3.29, 3.08, 4.09 } },
    { "STREAM",  { 4.46, 3.67, 3.55 }, { 138.87, 137.47, 136.86 }, { 107.55, 81.43, 110.34 }, { 381, 365, 330.52 }, { 0.16, 0.06, 0.13 } },
};

static const uint32_t t61_fmin[3] = { 1200000, 1200000, 1000000 };
static const uint32_t t61_fmax[3] = { 2700000, 3100000, 2400000 };

size_t
predictor_table61_freqs (int partition, uint32_t *freqs_khz, size_t max)
{
    size_t n = 0;
    if (partition < 1 || partition > 3)
        return 0;
    for (uint32_t f = t61_fmin[partition - 1]; f <= t61_fmax[partition - 1] && n < max;
         f += 100000)
        freqs_khz[n++] = f;
    return n;
}

/* beta = 10 * dr_df * fmin[GHz] / T(nom), see the head of this file. */
double
pred_table61_beta (size_t app, int part)
{
    return 10.0 * t61[app].drdf[part] * (t61_fmin[part] / 1e6)
           / t61[app].runtime[part];
}

int
predictor_load_table61 (predictor_t *p, const char *arch_p1,
                        const char *arch_p2, const char *arch_p3,
                        ms_error_t *errp)
{
    const char *arch[3] = { arch_p1, arch_p2, arch_p3 };

    for (int k = 0; k < 3; k++) {
        pred_arch_t *a;
        if (!arch[k])
            continue;
        if (pred_arch_lookup (p, arch[k], &a, errp) < 0)
            return -1;
        for (size_t i = 0; i < 8; i++) {
            pred_signature_t sig;
            memset (&sig, 0, sizeof (sig));
            sig.runtime_s = t61[i].runtime[k];
            sig.power_w = t61[i].power[k];
            sig.cpi = t61[i].cpi[k];
            sig.gbs = t61[i].gbs[k];
            sig.nodes = 1;
            if (predictor_set_signature (p, t61[i].app, arch[k], &sig, errp) < 0
                || predictor_set_app_arch_beta (p, t61[i].app, arch[k],
                                                pred_table61_beta (i, k), errp) < 0)
                return -1;
        }
    }
    /* An app's beta elsewhere: the mean of its three partitions. */
    for (size_t i = 0; i < 8; i++) {
        double b = 0;
        for (int k = 0; k < 3; k++)
            b += pred_table61_beta (i, k) / 3;
        if (predictor_set_app_beta (p, t61[i].app, b, errp) < 0)
            return -1;
    }
    return 0;
}
