/* test_predictor_eamc.c - the predictor on the two real EAR node models of
 * ../shared/data/profiles/eamc-2hw and on Table 6.1 (eamc-table-6.1.csv):
 * projection against the formulas, round trip of fitting, cross-arch
 * leave-one-app-out, and the derivation of the constants the project
 * ships. Skips when ../shared/data is absent. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"
#include "predictor/predictor.h"
#include "tests/testutil.h"

static const char *shared;
static char dir[1024];
static const char *const mods[2] = { "normal", "normal2" };
static const int nfreq[2] = { 16, 20 };

static predictor_t *
load (void)
{
    predictor_t *p = predictor_new ();
    ms_error_t e;
    ck_assert_msg (predictor_load_eamc2hw (p, dir, &e) == 0, "%s", e.text);
    return p;
}

/* The model files read here independently of the library. */
typedef struct {
    double c[400][6];   /* A B C D E F per row */
    double sig[8][4];   /* runtime, power, CPI, TPI */
} rawmod_t;

static void
read_raw (int m, rawmod_t *r)
{
    char path[1200];
    FILE *f;
    int n = nfreq[m] * nfreq[m];
    const char *ext[2] = { "power", "time" };

    for (int k = 0; k < 2; k++) {
        snprintf (path, sizeof (path), "%s/%s.%s", dir, mods[m], ext[k]);
        f = fopen (path, "r");
        ck_assert_ptr_nonnull (f);
        for (int i = 0; i < n; i++)
            ck_assert_int_eq (fscanf (f, "%lf %lf %lf", &r->c[i][3 * k],
                                      &r->c[i][3 * k + 1], &r->c[i][3 * k + 2]), 3);
        fclose (f);
    }
    snprintf (path, sizeof (path), "%s/apps", dir);
    f = fopen (path, "r");
    ck_assert_ptr_nonnull (f);
    {
        int count, id, mod, np;
        double v[4];
        ck_assert_int_eq (fscanf (f, "%d", &count), 1);
        for (int i = 0; i < 2 * count; i++) {
            ck_assert_int_eq (fscanf (f, "%d %d %d %lf %lf %lf %lf", &id, &mod, &np,
                                      &v[0], &v[1], &v[2], &v[3]), 7);
            if (mod == m)
                memcpy (r->sig[id - 1], v, sizeof (v));
        }
    }
    fclose (f);
}

/* Each app at every frequency of both models against a direct computation
 * of doc/architecture.md "Frequency model" from the raw rows; E has its minimum
 * where the formulas put it; the README's sanity figures hold. */
START_TEST (projection_matches_formulas)
{
    predictor_t *p = load ();
    static rawmod_t raw[2];
    double tn[2][8], en[2][8], save[2][8];
    ms_error_t e;

    for (int m = 0; m < 2; m++) {
        int N = nfreq[m], nom = N - 1;
        read_raw (m, &raw[m]);
        for (int a = 0; a < 8; a++) {
            const double *s = raw[m].sig[a];
            double emin_f = INFINITY, emin_p = INFINITY;
            int argf = -1, argp = -1;
            for (int fi = 0; fi < N; fi++) {
                const double *c = raw[m].c[nom * N + fi];
                uint32_t khz = 1200000 + 100000 * (uint32_t)fi;
                double ref = 1200000 + 100000.0 * nom;
                pred_estimate_t out;
                int present = !(c[0] == 0 && c[1] == 0 && c[2] == 0)
                              && !(c[3] == 0 && c[4] == 0 && c[5] == 0);
                ck_assert_int_eq (predictor_estimate (p, predictor_eamc_apps[a], mods[m],
                                                      khz, 1, &out, &e), 0);
                if (!present) {
                    ck_assert_int_eq (out.source, PRED_SRC_DEFAULT);
                    continue;
                }
                double P = c[0] * s[1] + c[1] * s[3] + c[2];
                double cpi = c[3] * s[2] + c[4] * s[3] + c[5];
                double T = s[0] * cpi / s[2] * ref / khz;
                double E = P * T;
                ck_assert_double_eq_tol (out.time_s, T, 1e-9 * T);
                ck_assert_double_eq_tol (out.power_w, P, 1e-9 * P);
                ck_assert_double_eq_tol (out.energy_j, E, 1e-9 * E);
                ck_assert_int_eq (out.source, fi == nom ? PRED_SRC_MEASURED
                                                        : PRED_SRC_PROJECTED);
                if (E < emin_f) {
                    emin_f = E;
                    argf = fi;
                }
                if (out.energy_j < emin_p) {
                    emin_p = out.energy_j;
                    argp = fi;
                }
                if (fi == nom) {
                    tn[m][a] = out.time_s;
                    en[m][a] = out.energy_j;
                }
            }
            ck_assert_int_eq (argf, argp);
            save[m][a] = 1 - emin_p / en[m][a];
            printf ("# %-8s on %-7s: E at nominal %.0f J, minimum at %.1f GHz, "
                    "saves %.1f%%\n", predictor_eamc_apps[a], mods[m], en[m][a],
                    (1200000 + 100000.0 * argp) / 1e6, 100 * save[m][a]);
        }
    }
    /* README sanity: 7 of 8 apps faster and cheaper on module 0, STREAM on
     * module 1; savings from ~2% (bt-mz.C, module 0) to ~26% (STREAM). */
    for (int a = 0; a < 8; a++) {
        int stream = strcmp (predictor_eamc_apps[a], "STREAM") == 0;
        ck_assert_int_eq (tn[0][a] < tn[1][a], !stream);
        ck_assert_int_eq (en[0][a] < en[1][a], !stream);
        for (int m = 0; m < 2; m++) {
            ck_assert_double_ge (save[m][a], 0.015);
            ck_assert_double_le (save[m][a], 0.27);
        }
    }
    ck_assert_double_lt (save[0][2], 0.025); /* bt-mz.C on module 0 */
    for (int a = 0; a < 8; a++)
        if (a != 2)
            ck_assert_double_gt (save[0][a], save[0][2]);
    ck_assert_double_gt (save[0][7], 0.25); /* STREAM */
    ck_assert_double_gt (save[1][7], 0.25);
    predictor_free (p);
}
END_TEST

/* Runs generated from the eamc-2hw coefficients (8 apps and 16 variants
 * per module, r = 5 runs per frequency) with 0, 2 and 5% noise are fitted
 * back. Tolerance from the noise as in test_predictor.c:
 * 3.5 * sqrt(2) * noise / sqrt(r). */
START_TEST (fit_round_trip)
{
    static const double noise[3] = { 0, 0.02, 0.05 };
    const size_t r = 5;
    predictor_t *truth = load ();
    ms_error_t e;

    for (int m = 0; m < 2; m++)
        ck_assert_int_eq (predictor_synth_apps (truth, mods[m], 16, 0.3, 7 + m, &e), 0);
    for (int k = 0; k < 3; k++) {
        predictor_t *fit = load ();
        double worst = 0, tol = 3.5 * sqrt (2) * noise[k] / sqrt ((double)r) + 1e-6;
        for (int m = 0; m < 2; m++) {
            pred_run_t *runs;
            size_t n;
            const uint32_t *f;
            size_t nf;
            ck_assert_int_eq (predictor_synth_runs (truth, mods[m], r, noise[k],
                                                    100 * k + m, &runs, &n, &e), 0);
            ck_assert_msg (predictor_fit (fit, runs, n, PRED_FIT_OLS, &e) == 0, "%s", e.text);
            free (runs);
            predictor_arch_info (truth, mods[m], &f, &nf, NULL, NULL, NULL, &e);
            for (int a = 0; a < 8; a++) {
                pred_signature_t s;
                ck_assert_int_eq (predictor_get_signature (truth, predictor_eamc_apps[a],
                                                           mods[m], &s, &e), 0);
                for (size_t fi = 0; fi < nf; fi++) {
                    pred_estimate_t x, y;
                    pred_pairstat_t st;
                    int present = predictor_project (truth, mods[m], &s, f[fi], 1, &x, &e) == 0;
                    int got = predictor_project (fit, mods[m], &s, f[fi], 1, &y, &e) == 0;
                    ck_assert_int_eq (present, got); /* no data stays no data */
                    if (!present)
                        continue;
                    predictor_pair_stat (fit, mods[m], f[nf - 1], f[fi], &st, &e);
                    ck_assert (st.present);
                    if (fi != nf - 1)
                        ck_assert_uint_eq (st.apps, 24);
                    worst = fmax (worst, fabs (y.time_s / x.time_s - 1));
                    worst = fmax (worst, fabs (y.power_w / x.power_w - 1));
                }
            }
        }
        printf ("# eamc-2hw round trip, noise %.0f%%: max relative error %.4f "
                "(tolerance %.4f)\n", 100 * noise[k], worst, tol);
        ck_assert_double_le (worst, tol);
        predictor_free (fit);
    }
    predictor_free (truth);
}
END_TEST

/* Leave-one-app-out of the cross-architecture model over the 8 apps, both
 * directions. Bound (doc/predictor.md, "Cross-architecture accuracy"):
 * runtime MAPE <= 15% and power MAPE <= 8%, and the runtime MAPE must beat
 * the naive "same runtime as on the other node". */
START_TEST (cross_arch_leave_one_app_out)
{
    predictor_t *p = load ();
    ms_error_t e;

    for (int d = 0; d < 2; d++) {
        const char *a = mods[d], *b = mods[1 - d];
        double et = 0, ep = 0, naive = 0;
        int in_t = 0, in_p = 0;
        for (int i = 0; i < 8; i++) {
            const char *app = predictor_eamc_apps[i];
            pred_estimate_t out;
            pred_signature_t sa, sb;
            ck_assert_msg (predictor_cross_predict (p, app, a, b, &out, &e) == 0, "%s", e.text);
            predictor_get_signature (p, app, a, &sa, &e);
            predictor_get_signature (p, app, b, &sb, &e);
            double rt = out.time_s / sb.runtime_s - 1, rp = out.power_w / sb.power_w - 1;
            printf ("# LOO %s -> %s %-8s T %6.1f s (true %6.1f, %+5.1f%%, 90%% "
                    "[%.1f, %.1f])  P %5.0f W (true %5.0f, %+5.1f%%)\n", a, b, app,
                    out.time_s, sb.runtime_s, 100 * rt, out.time_lo, out.time_hi,
                    out.power_w, sb.power_w, 100 * rp);
            et += fabs (rt) / 8;
            ep += fabs (rp) / 8;
            naive += fabs (sa.runtime_s / sb.runtime_s - 1) / 8;
            in_t += sb.runtime_s >= out.time_lo && sb.runtime_s <= out.time_hi;
            in_p += sb.power_w >= out.power_lo && sb.power_w <= out.power_hi;
        }
        printf ("# LOO %s -> %s: MAPE time %.1f%% (naive %.1f%%), power %.1f%%; "
                "inside the 90%% interval: time %d/8, power %d/8\n", a, b,
                100 * et, 100 * naive, 100 * ep, in_t, in_p);
        ck_assert_double_le (et, 0.15);
        ck_assert_double_le (ep, 0.08);
        ck_assert_double_lt (et, naive);
    }
    predictor_free (p);
}
END_TEST

/* Table 6.1 as typed in table61.c against the shared CSV. */
typedef struct {
    char app[16];
    int part;
    double cpi, gbs, rt, pw, drdf;
} t61_t;

static int
read_t61 (t61_t *rows)
{
    char path[1200], line[512];
    FILE *f;
    int n = 0;
    snprintf (path, sizeof (path), "%s/profiles/eamc-table-6.1.csv", shared);
    f = fopen (path, "r");
    ck_assert_ptr_nonnull (f);
    while (fgets (line, sizeof (line), f)) {
        int id;
        if (line[0] == '#' || strncmp (line, "app_id", 6) == 0)
            continue;
        ck_assert_int_lt (n, 24);
        ck_assert_int_eq (sscanf (line, "%d,%15[^,],p%d,%lf,%lf,%lf,%lf,%lf", &id,
                                  rows[n].app, &rows[n].part, &rows[n].cpi,
                                  &rows[n].gbs, &rows[n].rt, &rows[n].pw,
                                  &rows[n].drdf), 8);
        n++;
    }
    fclose (f);
    return n;
}

START_TEST (table61_copy_matches_csv)
{
    predictor_t *p = predictor_new ();
    t61_t rows[24];
    ms_error_t e;
    int n = read_t61 (rows);

    ck_assert_int_eq (n, 24);
    for (int k = 0; k < 3; k++) {
        uint32_t f[64];
        size_t nf = predictor_table61_freqs (k + 1, f, 64);
        char name[16];
        snprintf (name, sizeof (name), "p%d", k + 1);
        ck_assert_int_eq (predictor_add_arch (p, name, 40, f, nf, f[nf - 1], 0, &e), 0);
    }
    ck_assert_int_eq (predictor_load_table61 (p, "p1", "p2", "p3", &e), 0);
    for (int i = 0; i < n; i++) {
        char arch[16];
        pred_signature_t s;
        pred_estimate_t lo, hi;
        uint32_t f[64];
        size_t nf = predictor_table61_freqs (rows[i].part, f, 64);
        snprintf (arch, sizeof (arch), "p%d", rows[i].part);
        ck_assert_int_eq (predictor_get_signature (p, rows[i].app, arch, &s, &e), 0);
        ck_assert_double_eq_tol (s.runtime_s, rows[i].rt, 1e-9);
        ck_assert_double_eq_tol (s.power_w, rows[i].pw, 1e-9);
        ck_assert_double_eq_tol (s.cpi, rows[i].cpi, 1e-9);
        ck_assert_double_eq_tol (s.gbs, rows[i].gbs, 1e-9);
        /* the default model reproduces dr/df (s per 100 MHz step) */
        ck_assert_int_eq (predictor_estimate (p, rows[i].app, arch, f[0], 1, &lo, &e), 0);
        ck_assert_int_eq (predictor_estimate (p, rows[i].app, arch, f[nf - 1], 1, &hi, &e), 0);
        ck_assert_double_eq_tol ((lo.time_s - hi.time_s) / (double)(nf - 1),
                                 rows[i].drdf, 1e-9);
    }
    predictor_free (p);
}
END_TEST

static int
cmpd (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The constants the project ships (predictor/internal.h) follow from the
 * shared files by the derivations of doc/predictor.md. */
START_TEST (shipped_constants_reproduce)
{
    predictor_t *p = load ();
    t61_t rows[24];
    double betas[24], bm = 0, bsd = 0, ll = 0, uu = 0, uv = 0, sm = 0, ssd = 0;
    double s_app[16], db = 0;
    int n = read_t61 (rows), nl = 0;
    ms_error_t e;

    for (int i = 0; i < n; i++) {
        double fmin = rows[i].part == 3 ? 1.0 : 1.2;
        betas[i] = 10 * rows[i].drdf * fmin / rows[i].rt;
        bm += betas[i] / n;
    }
    for (int i = 0; i < n; i++)
        bsd += (betas[i] - bm) * (betas[i] - bm) / (n - 1);
    bsd = sqrt (bsd);
    qsort (betas, (size_t)n, sizeof (double), cmpd);
    for (int m = 0; m < 2; m++) {
        const uint32_t *f;
        size_t nf;
        uint32_t nom;
        predictor_arch_info (p, mods[m], &f, &nf, &nom, NULL, NULL, &e);
        for (int a = 0; a < 8; a++) {
            pred_signature_t s;
            pred_estimate_t x;
            double sxx = 0, sxy = 0, au = 0, av = 0, bt = 0;
            predictor_get_signature (p, predictor_eamc_apps[a], mods[m], &s, &e);
            for (int i = 0; i < n; i++)
                if (rows[i].part == m + 1 && strcmp (rows[i].app, predictor_eamc_apps[a]) == 0)
                    bt = 10 * rows[i].drdf * 1.2 / rows[i].rt;
            for (size_t k = 0; k + 1 < nf; k++) {
                if (predictor_project (p, mods[m], &s, f[k], 1, &x, &e) < 0)
                    continue;
                double xx = (double)nom / f[k] - 1, yy = x.time_s / s.runtime_s - 1;
                double u = pow ((double)f[k] / nom, 2) - 1, v = x.power_w / s.power_w - 1;
                sxx += xx * xx;
                sxy += xx * yy;
                au += u * u;
                av += u * v;
                uu += u * u;
                uv += u * v;
                if (k == 0) { /* T(fmin): EAR against Table 6.1's dr/df */
                    double l = log (x.time_s / s.runtime_s / (1 + bt * xx));
                    ll += l * l;
                    nl++;
                }
            }
            s_app[8 * m + a] = 1 - av / au;
            db += pow (bt - sxy / sxx, 2) / 16;
        }
    }
    for (int i = 0; i < 16; i++)
        sm += s_app[i] / 16;
    for (int i = 0; i < 16; i++)
        ssd += (s_app[i] - sm) * (s_app[i] - sm) / 15;
    printf ("# default beta: median %.4f (shipped %.3f), sd %.4f (shipped %.3f)\n",
            0.5 * (betas[11] + betas[12]), PRED_DEFAULT_BETA, bsd, PRED_DEFAULT_BETA_SD);
    printf ("# app beta error (Table 6.1 vs EAR): rms %.4f (shipped %.3f)\n",
            sqrt (db), PRED_APP_BETA_SD);
    printf ("# static power share: pooled %.4f (shipped %.3f), sd over apps %.4f "
            "(shipped %.3f)\n", 1 - uv / uu, PRED_DEFAULT_STATIC, sqrt (ssd),
            PRED_DEFAULT_STATIC_SD);
    printf ("# loaded-model T(fmin) error: rms %.4f over %d (shipped %.3f)\n",
            sqrt (ll / nl), nl, PRED_LOADED_REL_SD);
    ck_assert_double_eq_tol (0.5 * (betas[11] + betas[12]), PRED_DEFAULT_BETA, 0.001);
    ck_assert_double_eq_tol (bsd, PRED_DEFAULT_BETA_SD, 0.001);
    ck_assert_double_eq_tol (sqrt (db), PRED_APP_BETA_SD, 0.001);
    ck_assert_double_eq_tol (1 - uv / uu, PRED_DEFAULT_STATIC, 0.001);
    ck_assert_double_eq_tol (sqrt (ssd), PRED_DEFAULT_STATIC_SD, 0.001);
    ck_assert_double_eq_tol (sqrt (ll / nl), PRED_LOADED_REL_SD, 0.001);
    predictor_free (p);
}
END_TEST

/* Damaged copies of the real files: the error names file and line. */
START_TEST (damaged_real_files)
{
    char tmp[] = "/tmp/test_predictor_eamcXXXXXX", src[1200], pw[1200], tm[1200];
    char *text;
    size_t len;
    predictor_t *p = load ();
    ms_error_t e;
    FILE *f;

    ck_assert_ptr_nonnull (mkdtemp (tmp));
    snprintf (src, sizeof (src), "%s/normal.power", dir);
    ck_assert_int_eq (ms_read_file (src, 1 << 20, &text, &len, &e), 0);
    snprintf (pw, sizeof (pw), "%s/normal.power", tmp);
    snprintf (tm, sizeof (tm), "%s/normal.time", dir);
    /* drop the last row */
    f = fopen (pw, "w");
    fwrite (text, 1, (size_t)(strrchr (text, '\n') - text), f);
    fclose (f);
    {
        char *last = strrchr (text, '\n');
        *last = '\0';
        f = fopen (pw, "w");
        fwrite (text, 1, (size_t)(strrchr (text, '\n') - text + 1), f);
        fclose (f);
        *last = '\n';
    }
    ck_assert_int_eq (predictor_load_ear_model (p, "normal", pw, tm, &e), -1);
    ck_assert_msg (strstr (e.text, pw) && strstr (e.text, ":255: 255 rows, expected 256"),
                   "%s", e.text);
    /* cut line 17 short */
    {
        char *l = text;
        for (int i = 0; i < 16; i++)
            l = strchr (l, '\n') + 1;
        f = fopen (pw, "w");
        fwrite (text, 1, (size_t)(l - text), f);
        fprintf (f, "0.996056 -0.000613\n");
        fputs (strchr (l, '\n') + 1, f);
        fclose (f);
    }
    ck_assert_int_eq (predictor_load_ear_model (p, "normal", pw, tm, &e), -1);
    ck_assert_msg (strstr (e.text, ":17: expected 3 numbers"), "%s", e.text);
    /* the model in use is untouched */
    {
        pred_estimate_t out;
        ck_assert_int_eq (predictor_estimate (p, "STREAM", "normal", 1200000, 1, &out, &e), 0);
        ck_assert_int_eq (out.source, PRED_SRC_PROJECTED);
    }
    unlink (pw);
    rmdir (tmp);
    free (text);
    predictor_free (p);
}
END_TEST

int
main (void)
{
    Suite *s;
    TCase *tc;

    shared = test_shared_data ();
    if (!shared)
        return test_skip_all ("../shared/data is absent: the eamc-2hw node models "
                              "and Table 6.1 CSV are not in a plain clone");
    snprintf (dir, sizeof (dir), "%s/profiles/eamc-2hw", shared);
    s = suite_create ("predictor-eamc");
    tc = tcase_create ("eamc-2hw");
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, projection_matches_formulas);
    tcase_add_test (tc, fit_round_trip);
    tcase_add_test (tc, cross_arch_leave_one_app_out);
    tcase_add_test (tc, table61_copy_matches_csv);
    tcase_add_test (tc, shipped_constants_reproduce);
    tcase_add_test (tc, damaged_real_files);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
