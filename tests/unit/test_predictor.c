/* test_predictor.c - the predictor library on inputs built here (no shared
 * data needed): default model, fitting, intervals, cross-arch fallback,
 * Table 6.1, and bad input of every reader. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metasched/common/util.h"
#include "predictor/predictor.h"
#include "tests/testutil.h"

#define NF 11
static uint32_t syn_f[NF];

/* A synthetic truth: arch "syn", 1.0..2.0 GHz, nominal 2.0, with smooth
 * nominal-row EAR coefficients (the other pairs "0 0 0", the diagonal the
 * identity), written as EAR text and read back through the parser. */
static void
syn_coeffs (double r, double c[6])
{
    c[0] = 0.40 + 0.60 * r * r;   /* A */
    c[1] = 0.30 * (1 - r);        /* B */
    c[2] = 12.0 * (1 - r);        /* C */
    c[3] = 0.70 + 0.30 * r;       /* D */
    c[4] = -0.004 * (1 - r);      /* E */
    c[5] = 0.10 * (1 - r);        /* F */
}

static char *
syn_text (int which)
{
    size_t cap = NF * NF * 64, len = 0;
    char *t = ms_xmalloc (cap);
    for (int ref = 0; ref < NF; ref++)
        for (int f = 0; f < NF; f++) {
            double c[6];
            const double *x = c + (which == 'P' ? 0 : 3);
            if (ref == f) {
                len += (size_t)snprintf (t + len, cap - len, "1 0 0\n");
                continue;
            }
            if (ref != NF - 1) {
                len += (size_t)snprintf (t + len, cap - len, "0 0 0\n");
                continue;
            }
            syn_coeffs ((double)syn_f[f] / syn_f[NF - 1], c);
            len += (size_t)snprintf (t + len, cap - len, "%.10g %.10g %.10g\n",
                                     x[0], x[1], x[2]);
        }
    return t;
}

/* 12 apps spanning compute- to memory-bound signatures. */
static void
syn_apps (predictor_t *p, const char *arch, int napps)
{
    ms_error_t e;
    for (int i = 0; i < napps; i++) {
        pred_signature_t s = { 0 };
        char name[32];
        double u = (double)i / (napps - 1);
        s.runtime_s = 40 + 70 * u;
        s.power_w = 480 - 180 * u + 40 * sin (3.0 * i);
        s.cpi = 0.4 * pow (10, u);
        s.tpi = 0.01 * pow (25000, u);
        s.gbs = 140 * u;
        s.nodes = 1;
        snprintf (name, sizeof (name), "app%02d", i);
        ck_assert_int_eq (predictor_set_signature (p, name, arch, &s, &e), 0);
    }
}

static predictor_t *
syn_truth (void)
{
    predictor_t *p = predictor_new ();
    ms_error_t e;
    char *tp, *tt;
    for (int i = 0; i < NF; i++)
        syn_f[i] = 1000000 + 100000 * (uint32_t)i;
    ck_assert_int_eq (predictor_add_arch (p, "syn", 40, syn_f, NF, 2000000, 90, &e), 0);
    tp = syn_text ('P');
    tt = syn_text ('T');
    ck_assert_msg (predictor_parse_ear_coeffs (p, "syn", 'P', tp, strlen (tp),
                                               "syn.power", &e) == 0, "%s", e.text);
    ck_assert_msg (predictor_parse_ear_coeffs (p, "syn", 'T', tt, strlen (tt),
                                               "syn.time", &e) == 0, "%s", e.text);
    free (tp);
    free (tt);
    syn_apps (p, "syn", 12);
    return p;
}

START_TEST (arch_and_frequency_errors)
{
    predictor_t *p = predictor_new ();
    uint32_t f[3] = { 2000000, 1000000, 1500000 };
    pred_estimate_t out;
    pred_signature_t s = { .runtime_s = 10, .power_w = 100, .cpi = 1, .nodes = 1 };
    ms_error_t e;

    ck_assert_int_eq (predictor_add_arch (p, "a", 8, f, 3, 1700000, 50, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, "nominal"));
    ck_assert_int_eq (predictor_add_arch (p, "a", 8, f, 3, 2000000, 50, &e), 0);
    ck_assert_int_eq (predictor_add_arch (p, "a", 8, f, 3, 2000000, 50, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, "twice"));
    ck_assert_int_eq (predictor_set_signature (p, "x", "a", &s, &e), 0);
    ck_assert_int_eq (predictor_estimate (p, "x", "b", 2000000, 1, &out, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_INPUT);
    ck_assert_ptr_nonnull (strstr (e.text, "'b'"));
    ck_assert_int_eq (predictor_estimate (p, "x", "a", 1800000, 1, &out, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_INPUT);
    ck_assert_ptr_nonnull (strstr (e.text, "1800000"));
    ck_assert_int_eq (predictor_estimate (p, "nobody", "a", 1000000, 1, &out, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_MISSING);
    ck_assert_ptr_nonnull (strstr (e.text, "nobody"));
    predictor_free (p);
}
END_TEST

START_TEST (bad_signatures_name_the_app)
{
    predictor_t *p = predictor_new ();
    uint32_t f[2] = { 1000000, 2000000 };
    pred_signature_t s = { .runtime_s = -3, .power_w = 100, .cpi = 1, .nodes = 1 };
    ms_error_t e;

    ck_assert_int_eq (predictor_add_arch (p, "a", 8, f, 2, 2000000, 50, &e), 0);
    ck_assert_int_eq (predictor_set_signature (p, "wrf", "a", &s, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, "'wrf'"));
    ck_assert_ptr_nonnull (strstr (e.text, "runtime_s"));
    s.runtime_s = 3;
    s.power_w = NAN;
    ck_assert_int_eq (predictor_set_signature (p, "wrf", "a", &s, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, "power_w"));
    ck_assert_int_eq (predictor_napps (p), 0); /* nothing half-added */
    predictor_free (p);
}
END_TEST

/* The default parametric model is exactly its documented formulas. */
START_TEST (default_model_formulas)
{
    predictor_t *p = predictor_new ();
    uint32_t f[4] = { 1200000, 1800000, 2400000, 3000000 };
    pred_signature_t s = { .runtime_s = 100, .power_w = 400, .cpi = 0.5, .nodes = 2 };
    pred_estimate_t out;
    ms_error_t e;
    const double beta = 0.6, st = 0.35;

    ck_assert_int_eq (predictor_add_arch (p, "a", 8, f, 4, 2400000, 50, &e), 0);
    ck_assert_int_eq (predictor_set_default_model (p, "a", 0.9, st, &e), 0);
    ck_assert_int_eq (predictor_set_signature (p, "x", "a", &s, &e), 0);
    ck_assert_int_eq (predictor_set_app_beta (p, "x", beta, &e), 0);
    for (int i = 0; i < 4; i++) {
        double r = 2400000.0 / f[i];
        double T = 100 * (beta * (r - 1) + 1);
        double P = 400 * (st + (1 - st) * pow (1 / r, 2));
        ck_assert_int_eq (predictor_estimate (p, "x", "a", f[i], 3, &out, &e), 0);
        ck_assert_double_eq_tol (out.time_s, T, 1e-9 * T);
        ck_assert_double_eq_tol (out.power_w, P, 1e-9 * P);
        ck_assert_double_eq_tol (out.energy_j, T * P * 3, 1e-6 * T * P);
        ck_assert_int_eq (out.source, f[i] == 2400000 ? PRED_SRC_MEASURED
                                                      : PRED_SRC_DEFAULT);
        ck_assert (out.time_lo <= out.time_s && out.time_s <= out.time_hi);
        ck_assert (out.energy_lo <= out.energy_j && out.energy_j <= out.energy_hi);
        if (f[i] != 2400000)
            ck_assert (out.time_hi > out.time_lo); /* beta is uncertain */
    }
    /* an app without its own beta takes the arch's */
    ck_assert_int_eq (predictor_set_signature (p, "y", "a", &s, &e), 0);
    ck_assert_int_eq (predictor_estimate (p, "y", "a", 1200000, 1, &out, &e), 0);
    ck_assert_double_eq_tol (out.time_s, 100 * (0.9 * (2.0 - 1) + 1), 1e-9);
    predictor_free (p);
}
END_TEST

/* Table 6.1: compute-bound ep.D slows down about as the clock (beta ~ 1),
 * memory-bound STREAM hardly at all: what its dr/df column says. */
START_TEST (table61_betas_behave)
{
    predictor_t *p = predictor_new ();
    const char *arch[3] = { "p1", "p2", "p3" };
    pred_estimate_t lo, nom;
    ms_error_t e;

    for (int k = 0; k < 3; k++) {
        uint32_t f[64];
        size_t n = predictor_table61_freqs (k + 1, f, 64);
        ck_assert_uint_ge (n, 15);
        ck_assert_int_eq (predictor_add_arch (p, arch[k], 40, f, n, f[n - 1], 0, &e), 0);
    }
    ck_assert_int_eq (predictor_load_table61 (p, "p1", "p2", "p3", &e), 0);
    ck_assert_uint_eq (predictor_napps (p), 8);
    for (int k = 0; k < 3; k++) {
        const uint32_t *f;
        size_t n;
        uint32_t fn;
        double slow;
        predictor_arch_info (p, arch[k], &f, &n, &fn, NULL, NULL, &e);
        ck_assert_int_eq (predictor_estimate (p, "ep.D", arch[k], f[0], 1, &lo, &e), 0);
        ck_assert_int_eq (predictor_estimate (p, "ep.D", arch[k], fn, 1, &nom, &e), 0);
        slow = lo.time_s / nom.time_s;
        ck_assert_msg (slow > 0.9 * fn / f[0] && slow < 1.1 * fn / f[0],
                       "ep.D on %s slows %.2fx for a %.2fx clock", arch[k], slow,
                       (double)fn / f[0]);
        ck_assert_int_eq (predictor_estimate (p, "STREAM", arch[k], f[0], 1, &lo, &e), 0);
        ck_assert_int_eq (predictor_estimate (p, "STREAM", arch[k], fn, 1, &nom, &e), 0);
        ck_assert_double_lt (lo.time_s / nom.time_s, 1.03);
        ck_assert_double_lt (lo.power_w, nom.power_w);
        ck_assert_int_eq (lo.source, PRED_SRC_DEFAULT);
    }
    predictor_free (p);
}
END_TEST

static double
max_rel_err (const predictor_t *truth, const predictor_t *fit, const char *arch,
             int napps)
{
    double worst = 0;
    ms_error_t e;
    for (int i = 0; i < napps; i++) {
        char name[32];
        pred_signature_t s;
        snprintf (name, sizeof (name), "app%02d", i);
        ck_assert_int_eq (predictor_get_signature (truth, name, arch, &s, &e), 0);
        for (int k = 0; k < NF; k++) {
            pred_estimate_t a, b;
            ck_assert_int_eq (predictor_project (truth, arch, &s, syn_f[k], 1, &a, &e), 0);
            ck_assert_msg (predictor_project (fit, arch, &s, syn_f[k], 1, &b, &e) == 0,
                           "%s", e.text);
            worst = fmax (worst, fabs (b.time_s / a.time_s - 1));
            worst = fmax (worst, fabs (b.power_w / a.power_w - 1));
        }
    }
    return worst;
}

static predictor_t *
syn_fitted (const predictor_t *truth, pred_run_t *runs, size_t n,
            pred_fitmode_t mode)
{
    predictor_t *p = predictor_new ();
    ms_error_t e;
    ck_assert_int_eq (predictor_add_arch (p, "syn", 40, syn_f, NF, 2000000, 90, &e), 0);
    ck_assert_msg (predictor_fit (p, runs, n, mode, &e) == 0, "%s", e.text);
    ck_assert_msg (predictor_signatures_from_runs (p, runs, n, &e) == 0, "%s", e.text);
    (void)truth;
    return p;
}

/* Fitting recovers a known model; the tolerance follows from the noise:
 * the fit sees per-app means of r runs, whose relative error is noise /
 * sqrt(r), and T_f / T_ref involves two of them (sqrt 2); over the ~260
 * (app, frequency, quantity) comparisons the largest normal deviate stays
 * under 3.5. So: max error <= 3.5 * sqrt(2) * noise / sqrt(r). */
START_TEST (fit_recovers_synthetic_model)
{
    static const double noise[3] = { 0, 0.02, 0.05 };
    const size_t r = 5;
    predictor_t *truth = syn_truth ();
    ms_error_t e;

    for (int k = 0; k < 3; k++) {
        pred_run_t *runs;
        size_t n;
        predictor_t *fit;
        double err, tol = 3.5 * sqrt (2) * noise[k] / sqrt ((double)r) + 1e-6;
        ck_assert_int_eq (predictor_synth_runs (truth, "syn", r, noise[k], 17 + k,
                                                &runs, &n, &e), 0);
        ck_assert_uint_eq (n, 12 * NF * r);
        fit = syn_fitted (truth, runs, n, PRED_FIT_OLS);
        err = max_rel_err (truth, fit, "syn", 12);
        printf ("# synthetic model, noise %.0f%%: max relative error %.4f "
                "(tolerance %.4f)\n", 100 * noise[k], err, tol);
        ck_assert_double_le (err, tol);
        free (runs);
        predictor_free (fit);
    }
    predictor_free (truth);
}
END_TEST

/* The nominal 90% interval covers 80..97% of held-out runs. */
START_TEST (intervals_cover_held_out_runs)
{
    predictor_t *truth = syn_truth ();
    ms_error_t e;
    static const double noise[2] = { 0.02, 0.05 };

    for (int k = 0; k < 2; k++) {
        pred_run_t *runs, *ho;
        size_t n, nh, in = 0, tot = 0;
        predictor_t *fit;
        ck_assert_int_eq (predictor_synth_runs (truth, "syn", 5, noise[k], 3 + k,
                                                &runs, &n, &e), 0);
        fit = syn_fitted (truth, runs, n, PRED_FIT_OLS);
        ck_assert_int_eq (predictor_synth_runs (truth, "syn", 10, noise[k], 1000 + k,
                                                &ho, &nh, &e), 0);
        for (size_t i = 0; i < nh; i++) {
            pred_estimate_t out;
            if (ho[i].freq_khz == 2000000)
                continue;
            ck_assert_int_eq (predictor_estimate (fit, ho[i].app, "syn", ho[i].freq_khz,
                                                  1, &out, &e), 0);
            ck_assert_int_eq (out.source, PRED_SRC_PROJECTED);
            in += ho[i].runtime_s >= out.time_lo && ho[i].runtime_s <= out.time_hi;
            in += ho[i].power_w >= out.power_lo && ho[i].power_w <= out.power_hi;
            tot += 2;
        }
        printf ("# noise %.0f%%: 90%% intervals cover %.1f%% of %zu held-out "
                "values\n", 100 * noise[k], 100.0 * in / tot, tot);
        ck_assert_double_ge ((double)in / tot, 0.80);
        ck_assert_double_le ((double)in / tot, 0.97);
        free (runs);
        free (ho);
        predictor_free (fit);
    }
    predictor_free (truth);
}
END_TEST

/* Outlier runs (every 10th power reading tripled): the robust fit stays
 * close to the truth where least squares is pulled away. */
START_TEST (robust_fit_resists_outliers)
{
    predictor_t *truth = syn_truth (), *ols, *rob;
    pred_run_t *runs;
    size_t n;
    double eo, er;
    ms_error_t e;

    ck_assert_int_eq (predictor_synth_runs (truth, "syn", 10, 0.01, 5, &runs, &n, &e), 0);
    for (size_t i = 0; i < n; i += 10)
        if (runs[i].freq_khz != 2000000)
            runs[i].power_w *= 3;
    ols = syn_fitted (truth, runs, n, PRED_FIT_OLS);
    rob = syn_fitted (truth, runs, n, PRED_FIT_ROBUST);
    eo = max_rel_err (truth, ols, "syn", 12);
    er = max_rel_err (truth, rob, "syn", 12);
    printf ("# outliers: max relative error OLS %.3f, robust %.3f\n", eo, er);
    ck_assert_double_lt (er, 0.05);
    ck_assert_double_lt (er, eo / 3);
    /* the robust fit's R^2 is that of the runs it keeps: near 1 here, as
     * for a least-squares fit of the clean runs, and never below 0 */
    for (int k = 0; k < NF - 1; k++) {
        pred_pairstat_t st;
        ck_assert_int_eq (predictor_pair_stat (rob, "syn", 2000000, syn_f[k], &st, &e), 0);
        ck_assert (st.present && st.fitted);
        ck_assert_msg (st.r2_power > 0.95 && st.r2_power <= 1 && st.r2_cpi > 0.95
                       && st.r2_cpi <= 1, "%u kHz: R^2 P %.4f, CPI %.4f", syn_f[k],
                       st.r2_power, st.r2_cpi);
    }
    free (runs);
    predictor_free (ols);
    predictor_free (rob);
    predictor_free (truth);
}
END_TEST

/* Every app has the same TPI: B and E cannot be told from C and F. The
 * pair is marked singular and the projection says so. */
START_TEST (singular_fit_is_reported)
{
    predictor_t *p = predictor_new ();
    pred_run_t runs[40];
    char names[10][16];
    pred_signature_t s = { .runtime_s = 10, .power_w = 300, .cpi = 1, .tpi = 5, .nodes = 1 };
    pred_estimate_t out;
    pred_pairstat_t st;
    uint32_t f[2] = { 1000000, 2000000 };
    ms_error_t e;
    size_t n = 0;

    ck_assert_int_eq (predictor_add_arch (p, "a", 8, f, 2, 2000000, 50, &e), 0);
    for (int i = 0; i < 10; i++) {
        snprintf (names[i], sizeof (names[i]), "s%d", i);
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 2; j++) {
                pred_run_t *r = &runs[n++];
                r->app = names[i];
                r->arch = "a";
                r->freq_khz = f[k];
                r->runtime_s = 10 + i + j;
                r->power_w = 300 + 10 * i + j + 50 * k;
                r->cpi = 1 + 0.1 * i + 0.01 * j;
                r->tpi = 5;
                r->gbs = 1;
                r->nodes = 1;
            }
    }
    ck_assert_int_eq (predictor_fit (p, runs, n, PRED_FIT_OLS, &e), 0);
    ck_assert_int_eq (predictor_pair_stat (p, "a", 2000000, 1000000, &st, &e), 0);
    ck_assert_int_eq (st.present, 0);
    ck_assert_int_eq (predictor_project (p, "a", &s, 1000000, 1, &out, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_MISSING);
    ck_assert_ptr_nonnull (strstr (e.text, "singular"));
    predictor_free (p);
}
END_TEST

START_TEST (bad_runs_are_named)
{
    predictor_t *truth = syn_truth (), *p = predictor_new ();
    pred_run_t *runs;
    size_t n;
    ms_error_t e;

    ck_assert_int_eq (predictor_add_arch (p, "syn", 40, syn_f, NF, 2000000, 90, &e), 0);
    ck_assert_int_eq (predictor_synth_runs (truth, "syn", 2, 0.01, 1, &runs, &n, &e), 0);
    runs[2].freq_khz = 1550000;
    ck_assert_int_eq (predictor_fit (p, runs, n, PRED_FIT_OLS, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, "run 3"));
    ck_assert_ptr_nonnull (strstr (e.text, "1550000"));
    runs[2].freq_khz = 1500000;
    runs[4].runtime_s = NAN;
    ck_assert_int_eq (predictor_fit (p, runs, n, PRED_FIT_OLS, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, "run 5"));
    ck_assert_ptr_nonnull (strstr (e.text, runs[4].app));
    free (runs);
    predictor_free (p);
    predictor_free (truth);
}
END_TEST

static void
expect_runs_error (const char *csv, const char *want1, const char *want2)
{
    pred_runs_t *r = NULL;
    ms_error_t e;
    ck_assert_int_eq (predictor_runs_parse (csv, strlen (csv), "runs.csv", &r, &e), -1);
    ck_assert_msg (strstr (e.text, want1) && (!want2 || strstr (e.text, want2)),
                   "message '%s' lacks '%s'", e.text, want1);
}

START_TEST (runs_csv_reader)
{
    static const char good[] =
        "# learning runs\n"
        "app,arch,freq_khz,runtime_s,power_w,cpi,tpi,gbs,nodes\r\n"
        "lu.C, skx, 2700000, 52.5, 386, 0.67, 19.6, 70.9, 1\n"
        "\n"
        "ep.D,skx,1200000,145,250,0.6,0.01,0.03,2\n";
    static const char hdr[] = "app,arch,freq_khz,runtime_s,power_w,cpi,tpi,gbs,nodes\n";
    char buf[512];
    pred_runs_t *r;
    const pred_run_t *x;
    size_t n;
    ms_error_t e;

    ck_assert_msg (predictor_runs_parse (good, strlen (good), "g.csv", &r, &e) == 0,
                   "%s", e.text);
    x = predictor_runs_get (r, &n);
    ck_assert_uint_eq (n, 2);
    ck_assert_str_eq (x[0].arch, "skx");
    ck_assert_uint_eq (x[1].freq_khz, 1200000);
    ck_assert_double_eq (x[1].nodes, 2);
    ck_assert_int_eq (predictor_runs_line (r, 1), 5);
    predictor_runs_free (r);

    snprintf (buf, sizeof (buf), "%slu.C,skx,2700000,52.5,386,0.67,19.6,70.9\n", hdr);
    expect_runs_error (buf, "runs.csv:2:", "8 fields");
    snprintf (buf, sizeof (buf), "%slu.C,skx,2700000,nan,386,0.67,19.6,70.9,1\n", hdr);
    expect_runs_error (buf, "runs.csv:2:", "runtime_s");
    snprintf (buf, sizeof (buf), "%s#\nlu.C,skx,2700000,-52,386,0.67,19.6,70.9,1\n", hdr);
    expect_runs_error (buf, "runs.csv:3:", "negative");
    snprintf (buf, sizeof (buf), "%slu.C,skx,2.7e6x,52,386,0.67,19.6,70.9,1\n", hdr);
    expect_runs_error (buf, "runs.csv:2:", "freq_khz");
    expect_runs_error ("app,arch,freq,runtime_s\n", "runs.csv:1:", "freq");
    expect_runs_error ("app,arch,freq_khz,runtime_s,power_w,cpi,tpi,gbs\n",
                       "runs.csv:1:", "nodes");
    expect_runs_error ("", "no header", NULL);
}
END_TEST

static void
expect_model_error (predictor_t *p, int which, const char *text, const char *want)
{
    ms_error_t e;
    ck_assert_int_eq (predictor_parse_ear_coeffs (p, "syn", which, text, strlen (text),
                                                  "m.power", &e), -1);
    ck_assert_msg (strstr (e.text, want), "message '%s' lacks '%s'", e.text, want);
}

START_TEST (model_file_errors)
{
    predictor_t *p = syn_truth ();
    char *t = syn_text ('P'), *c;
    size_t len = strlen (t);
    pred_signature_t s;
    pred_estimate_t before, out;
    ms_error_t e;

    ck_assert_int_eq (predictor_get_signature (p, "app03", "syn", &s, &e), 0);
    ck_assert_int_eq (predictor_project (p, "syn", &s, 1500000, 1, &before, &e), 0);

    /* a short row and a NaN on line 3 */
    {
        char *l3 = strchr (strchr (t, '\n') + 1, '\n') + 1;
        char *buf = ms_xmalloc (len + 64);
        size_t pre = (size_t)(l3 - t);
        memcpy (buf, t, pre);
        strcpy (buf + pre, "1.0 2.0\n");
        strcat (buf, strchr (l3, '\n') + 1);
        expect_model_error (p, 'P', buf, "m.power:3: expected 3 numbers");
        memcpy (buf, t, pre);
        strcpy (buf + pre, "1.0 nan 3\n");
        strcat (buf, strchr (l3, '\n') + 1);
        expect_model_error (p, 'P', buf, "m.power:3: field 2 is not a finite number");
        free (buf);
    }
    /* one row too few, one too many */
    c = ms_xstrdup (t);
    c[len - 1] = '\0';
    *(strrchr (c, '\n') + 1) = '\0';
    expect_model_error (p, 'P', c, "120 rows, expected 121");
    free (c);
    c = ms_xmalloc (len + 16);
    snprintf (c, len + 16, "%s1 0 0\n", t);
    expect_model_error (p, 'P', c, "m.power:122: more than 121 rows");
    free (c);
    expect_model_error (p, 'T', "", "0 rows, expected 121");
    /* a failed load leaves the model as it was */
    ck_assert_int_eq (predictor_project (p, "syn", &s, 1500000, 1, &out, &e), 0);
    ck_assert_double_eq (out.time_s, before.time_s);
    free (t);
    predictor_free (p);
}
END_TEST

/* "0 0 0" in a file: the pair is missing; predictor_project says so, and
 * predictor_estimate falls back to the default model, saying so. */
START_TEST (missing_pair_says_so)
{
    predictor_t *p = syn_truth ();
    char *t = syn_text ('T');
    char *row = t;
    pred_signature_t s;
    pred_estimate_t out;
    ms_error_t e;

    /* row ref=10, f=5 is line 10*11 + 5 + 1 */
    for (int i = 0; i < 10 * NF + 5; i++)
        row = strchr (row, '\n') + 1;
    {
        char *end = strchr (row, '\n');
        memset (row, ' ', (size_t)(end - row));
        memcpy (row, "0 0 0", 5);
    }
    ck_assert_int_eq (predictor_parse_ear_coeffs (p, "syn", 'T', t, strlen (t), "m.time", &e), 0);
    ck_assert_int_eq (predictor_get_signature (p, "app02", "syn", &s, &e), 0);
    ck_assert_int_eq (predictor_project (p, "syn", &s, 1500000, 1, &out, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_MISSING);
    ck_assert_ptr_nonnull (strstr (e.text, "1500000"));
    ck_assert_int_eq (predictor_estimate (p, "app02", "syn", 1500000, 1, &out, &e), 0);
    ck_assert_int_eq (out.source, PRED_SRC_DEFAULT);
    {   /* interpolates its neighbours' projections */
        pred_estimate_t a, b;
        ck_assert_int_eq (predictor_estimate (p, "app02", "syn", 1400000, 1, &a, &e), 0);
        ck_assert_int_eq (predictor_estimate (p, "app02", "syn", 1600000, 1, &b, &e), 0);
        ck_assert_int_eq (a.source, PRED_SRC_PROJECTED);
        ck_assert (out.time_s < a.time_s * 1.02 && out.time_s > b.time_s * 0.98);
        ck_assert (out.power_w > a.power_w * 0.98 && out.power_w < b.power_w * 1.02);
    }
    free (t);
    predictor_free (p);
}
END_TEST

/* An app seen on p1 only is carried to p2 by the cross-arch model; once it
 * has measured history on p2, that wins. */
START_TEST (cross_arch_then_measured)
{
    predictor_t *p = predictor_new ();
    pred_signature_t s = { .runtime_s = 80, .power_w = 400, .cpi = 1.2, .gbs = 60, .nodes = 1 };
    pred_estimate_t out;
    pred_crossstat_t cs;
    ms_error_t e;
    for (int k = 0; k < 3; k++) {
        uint32_t f[64];
        size_t n = predictor_table61_freqs (k + 1, f, 64);
        char name[16];
        snprintf (name, sizeof (name), "p%d", k + 1);
        ck_assert_int_eq (predictor_add_arch (p, name, 40, f, n, f[n - 1], 0, &e), 0);
    }
    ck_assert_int_eq (predictor_load_table61 (p, "p1", "p2", "p3", &e), 0);
    ck_assert_int_eq (predictor_set_signature (p, "newapp", "p1", &s, &e), 0);
    ck_assert_int_eq (predictor_cross_stat (p, "p1", "p2", &cs, &e), 0);
    ck_assert_uint_eq (cs.napps, 8);
    ck_assert_int_eq (predictor_estimate (p, "newapp", "p2", 3100000, 1, &out, &e), 0);
    ck_assert_int_eq (out.source, PRED_SRC_CROSS_ARCH);
    ck_assert (out.time_lo < out.time_s && out.time_s < out.time_hi);
    ck_assert (out.time_s > 0.5 * s.runtime_s && out.time_s < 2 * s.runtime_s);
    ck_assert_int_eq (predictor_estimate (p, "newapp", "p2", 1200000, 1, &out, &e), 0);
    ck_assert_int_eq (out.source, PRED_SRC_CROSS_ARCH);
    s.runtime_s = 77;
    ck_assert_int_eq (predictor_set_signature (p, "newapp", "p2", &s, &e), 0);
    ck_assert_int_eq (predictor_estimate (p, "newapp", "p2", 3100000, 1, &out, &e), 0);
    ck_assert_int_eq (out.source, PRED_SRC_MEASURED);
    ck_assert_double_eq (out.time_s, 77);
    predictor_free (p);
}
END_TEST

START_TEST (cross_arch_needs_shared_apps)
{
    predictor_t *p = predictor_new ();
    uint32_t f[2] = { 1000000, 2000000 };
    pred_signature_t s = { .runtime_s = 10, .power_w = 100, .cpi = 1, .nodes = 1 };
    pred_estimate_t out;
    ms_error_t e;
    ck_assert_int_eq (predictor_add_arch (p, "a", 8, f, 2, 2000000, 50, &e), 0);
    ck_assert_int_eq (predictor_add_arch (p, "b", 8, f, 2, 2000000, 50, &e), 0);
    ck_assert_int_eq (predictor_set_signature (p, "x", "a", &s, &e), 0);
    ck_assert_int_eq (predictor_set_signature (p, "y", "a", &s, &e), 0);
    ck_assert_int_eq (predictor_set_signature (p, "y", "b", &s, &e), 0);
    ck_assert_int_eq (predictor_estimate (p, "x", "b", 2000000, 1, &out, &e), -1);
    ck_assert_int_eq (e.kind, MS_ERR_MISSING);
    ck_assert_ptr_nonnull (strstr (e.text, "'x'"));
    predictor_free (p);
}
END_TEST

/* A fitted model written as EAR files and read back projects the same. */
START_TEST (save_and_load_round_trip)
{
    predictor_t *truth = syn_truth (), *fit, *back = predictor_new ();
    pred_run_t *runs;
    size_t n;
    char pp[] = "/tmp/test_predictor_XXXXXX";
    char pw[64], tm[64];
    ms_error_t e;

    ck_assert_ptr_nonnull (mkdtemp (pp));
    snprintf (pw, sizeof (pw), "%s/syn.power", pp);
    snprintf (tm, sizeof (tm), "%s/syn.time", pp);
    ck_assert_int_eq (predictor_synth_runs (truth, "syn", 3, 0.02, 9, &runs, &n, &e), 0);
    fit = syn_fitted (truth, runs, n, PRED_FIT_OLS);
    ck_assert_int_eq (predictor_save_ear_model (fit, "syn", pw, tm, &e), 0);
    ck_assert_int_eq (predictor_add_arch (back, "syn", 40, syn_f, NF, 2000000, 90, &e), 0);
    ck_assert_msg (predictor_load_ear_model (back, "syn", pw, tm, &e) == 0, "%s", e.text);
    syn_apps (back, "syn", 12);
    ck_assert_double_le (max_rel_err (fit, back, "syn", 12), 1e-7);
    unlink (pw);
    unlink (tm);
    rmdir (pp);
    free (runs);
    predictor_free (fit);
    predictor_free (back);
    predictor_free (truth);
}
END_TEST

START_TEST (apps_file_errors)
{
    predictor_t *p = syn_truth ();
    char path[] = "/tmp/test_predictor_appsXXXXXX";
    const char *mods[1] = { "syn" };
    ms_error_t e;
    int fd = mkstemp (path);
    FILE *f;

    ck_assert_int_ge (fd, 0);
    f = fdopen (fd, "w");
    fprintf (f, "2\n1 0 4 52.4 386.4 0.66 19.5\n2 0 4 64.1 348.8\n");
    fclose (f);
    ck_assert_int_eq (predictor_load_apps_file (p, path, mods, 1, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, ":3: expected 7 fields"));
    ck_assert_ptr_nonnull (strstr (e.text, path));
    f = fopen (path, "w");
    fprintf (f, "1\n1 3 4 52.4 386.4 0.66 19.5\n");
    fclose (f);
    ck_assert_int_eq (predictor_load_apps_file (p, path, mods, 1, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, ":2: bad app id"));
    f = fopen (path, "w");
    fprintf (f, "1\n1 0 4 -52.4 386.4 0.66 19.5\n");
    fclose (f);
    ck_assert_int_eq (predictor_load_apps_file (p, path, mods, 1, &e), -1);
    ck_assert_ptr_nonnull (strstr (e.text, ":2: app 'lu.C'"));
    unlink (path);
    predictor_free (p);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("predictor");
    TCase *tc = tcase_create ("core");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, arch_and_frequency_errors);
    tcase_add_test (tc, bad_signatures_name_the_app);
    tcase_add_test (tc, default_model_formulas);
    tcase_add_test (tc, table61_betas_behave);
    tcase_add_test (tc, fit_recovers_synthetic_model);
    tcase_add_test (tc, intervals_cover_held_out_runs);
    tcase_add_test (tc, robust_fit_resists_outliers);
    tcase_add_test (tc, singular_fit_is_reported);
    tcase_add_test (tc, bad_runs_are_named);
    tcase_add_test (tc, runs_csv_reader);
    tcase_add_test (tc, model_file_errors);
    tcase_add_test (tc, missing_pair_says_so);
    tcase_add_test (tc, cross_arch_then_measured);
    tcase_add_test (tc, cross_arch_needs_shared_apps);
    tcase_add_test (tc, save_and_load_round_trip);
    tcase_add_test (tc, apps_file_errors);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
