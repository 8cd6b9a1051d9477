/* cmd_model.c - `metasched model`: fit, show, project and evaluate the
 * predictor's time, power and energy models (doc/metasched-model.1).
 *
 * Every subcommand builds one predictor from its inputs, in this order:
 *   --config FILE     architectures of a clusters.conf
 *   --eamc-2hw DIR    archs normal and normal2, their EAR models, 8 apps
 *   --table61         archs p1, p2, p3 (when absent) and Table 6.1
 *   --model A=PREFIX  PREFIX.power and PREFIX.time as the model of arch A
 *   --runs FILE       runs CSV; unknown archs are taken from it (their
 *                     frequencies as seen, the highest as nominal); the
 *                     runs at nominal frequency become signatures
 * and then does its work. Errors: "metasched model: FILE:LINE: ...", exit 1;
 * usage errors exit 2.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/admin/commands.h"
#include "metasched/common/util.h"
#include "partitions/clusterconf.h"
#include "predictor/predictor.h"

#define MAX_MODELS 16

typedef struct {
    const char *sub;
    const char *config, *eamc, *runs_path, *app, *arch, *out;
    const char *models[MAX_MODELS];
    int nmodels;
    int table61, robust, all_pairs, variants, rpf;
    double nodes, holdout, synth, noise;
    unsigned long seed;
    pred_runs_t *runs;
} opts_t;

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched model SUBCOMMAND [INPUTS] [OPTIONS]\n"
             "\n"
             "Subcommands:\n"
             "  fit       fit the EAR frequency models from --runs (--robust, --out DIR)\n"
             "  show      coefficients and fit quality per (reference, target) pair\n"
             "  project   T, P, E of --app on every frequency of every architecture\n"
             "  evaluate  cross-arch leave-one-app-out and frequency-model hold-out\n"
             "  synth     print runs drawn from the loaded models (CSV) for testing\n"
             "\n"
             "Inputs (any combination):\n"
             "  --config FILE      architectures from a clusters.conf\n"
             "  --eamc-2hw DIR     the eamc-2hw node models (archs normal, normal2)\n"
             "  --table61          Table 6.1 signatures on archs p1, p2, p3\n"
             "  --model ARCH=PFX   load PFX.power and PFX.time as the model of ARCH\n"
             "  --runs FILE        runs CSV: app,arch,freq_khz,runtime_s,power_w,cpi,tpi,gbs,nodes\n"
             "\n"
             "Options:\n"
             "  --app NAME         the app to project (project)\n"
             "  --arch NAME        only this architecture (show, project, synth)\n"
             "  --nodes N          job size for energy (project; default 1)\n"
             "  --robust           robust fit (gsl_multifit_robust) instead of least squares\n"
             "  --out DIR          write fitted models as DIR/ARCH.power, DIR/ARCH.time (fit)\n"
             "  --all-pairs        every pair, not only those from nominal (show)\n"
             "  --holdout FRAC     share of runs held out (evaluate; default 0.2)\n"
             "  --synth NOISE      evaluate on runs drawn from the loaded models with\n"
             "                     this multiplicative noise (e.g. 0.02)\n"
             "  --noise NOISE      noise of synth (default 0.02)\n"
             "  --runs-per-freq R  runs per app and frequency (synth, --synth; default 5)\n"
             "  --variants K       extra apps varied from the loaded ones (default 16)\n"
             "  --seed S           random seed (default 1)\n");
}

static int
fail (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static int
fail (const char *fmt, ...)
{
    va_list ap;
    fprintf (stderr, "metasched model: ");
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
    return 1;
}

/* A library message "run N: ..." names a run by index; say FILE:LINE. */
static int
fail_runs (const opts_t *o, const ms_error_t *e)
{
    unsigned long n;
    char *end;
    if (o->runs && strncmp (e->text, "run ", 4) == 0) {
        errno = 0;
        n = strtoul (e->text + 4, &end, 10);
        if (!errno && end != e->text + 4 && n >= 1)
            return fail ("%s:%d:%s", o->runs_path,
                         predictor_runs_line (o->runs, (size_t)n - 1),
                         *end == ':' ? end + 1 : end);
    }
    return fail ("%s", e->text);
}

static int
cmp_u32 (const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Architectures named in the runs but not known yet: their frequencies as
 * seen in the runs, the highest one nominal. */
static int
archs_from_runs (predictor_t *p, const opts_t *o, ms_error_t *e)
{
    size_t n;
    const pred_run_t *r = predictor_runs_get (o->runs, &n);

    for (size_t i = 0; i < n; i++) {
        uint32_t f[64];
        size_t nf = 0;
        if (predictor_arch_info (p, r[i].arch, NULL, NULL, NULL, NULL, NULL, NULL) == 0)
            continue;
        for (size_t j = i; j < n; j++) {
            size_t k;
            if (strcmp (r[j].arch, r[i].arch) != 0)
                continue;
            for (k = 0; k < nf && f[k] != r[j].freq_khz; k++)
                ;
            if (k == nf) {
                if (nf == 64)
                    return ms_err (e, MS_ERR_INPUT, "%s:%d: architecture '%s' "
                                   "has more than 64 frequencies", o->runs_path,
                                   predictor_runs_line (o->runs, j), r[i].arch);
                f[nf++] = r[j].freq_khz;
            }
        }
        qsort (f, nf, sizeof (uint32_t), cmp_u32);
        if (predictor_add_arch (p, r[i].arch, 0, f, nf, f[nf - 1], 0, e) < 0)
            return ms_err_prefix (e, "%s:%d", o->runs_path,
                                  predictor_runs_line (o->runs, i));
    }
    return 0;
}

static int
add_table61_archs (predictor_t *p, ms_error_t *e)
{
    for (int k = 1; k <= 3; k++) {
        char name[16];
        uint32_t f[64];
        size_t n = predictor_table61_freqs (k, f, 64);
        snprintf (name, sizeof (name), "p%d", k);
        if (predictor_arch_info (p, name, NULL, NULL, NULL, NULL, NULL, NULL) == 0)
            continue;
        if (predictor_add_arch (p, name, 0, f, n, f[n - 1], 0, e) < 0)
            return -1;
    }
    return predictor_load_table61 (p, "p1", "p2", "p3", e);
}

/* Build the predictor from the inputs; fit when runs are given and fit. */
static predictor_t *
build (opts_t *o, int fit)
{
    predictor_t *p = predictor_new ();
    ms_error_t e;

    if (o->config) {
        ms_siteconf_t *c;
        if (clusterconf_load (o->config, &c, &e) < 0) {
            fail ("%s", e.text);
            goto bad;
        }
        for (size_t i = 0; i < c->narchs; i++) {
            const ms_arch_t *a = &c->archs[i];
            if (predictor_add_arch (p, a->name, a->cores_per_node, a->freqs_khz,
                                    a->nfreqs, a->nominal_khz, a->idle_power_w,
                                    &e) < 0) {
                fail ("%s:%d: %s", o->config, a->line, e.text);
                clusterconf_free (c);
                goto bad;
            }
        }
        clusterconf_free (c);
    }
    if (o->eamc && predictor_load_eamc2hw (p, o->eamc, &e) < 0) {
        fail ("%s", e.text);
        goto bad;
    }
    if (o->table61 && add_table61_archs (p, &e) < 0) {
        fail ("%s", e.text);
        goto bad;
    }
    for (int i = 0; i < o->nmodels; i++) {
        char arch[128], pw[4096], tm[4096];
        const char *eq = strchr (o->models[i], '=');
        if (!eq || eq == o->models[i] || (size_t)(eq - o->models[i]) >= sizeof (arch)) {
            fail ("--model wants ARCH=PREFIX, not '%s'", o->models[i]);
            goto bad;
        }
        memcpy (arch, o->models[i], (size_t)(eq - o->models[i]));
        arch[eq - o->models[i]] = '\0';
        snprintf (pw, sizeof (pw), "%s.power", eq + 1);
        snprintf (tm, sizeof (tm), "%s.time", eq + 1);
        if (predictor_load_ear_model (p, arch, pw, tm, &e) < 0) {
            fail ("%s", e.text);
            goto bad;
        }
    }
    if (o->runs_path) {
        size_t n;
        const pred_run_t *r;
        if (!o->runs && predictor_runs_read (o->runs_path, &o->runs, &e) < 0) {
            fail ("%s", e.text);
            goto bad;
        }
        r = predictor_runs_get (o->runs, &n);
        if (archs_from_runs (p, o, &e) < 0) {
            fail ("%s", e.text);
            goto bad;
        }
        if (predictor_signatures_from_runs (p, r, n, &e) < 0) {
            fail_runs (o, &e);
            goto bad;
        }
        if (fit && predictor_fit (p, r, n, o->robust ? PRED_FIT_ROBUST : PRED_FIT_OLS,
                                  &e) < 0) {
            fail_runs (o, &e);
            goto bad;
        }
    }
    if (predictor_narchs (p) == 0) {
        fail ("no architectures: give --config, --eamc-2hw, --table61 or --runs");
        goto bad;
    }
    return p;
bad:
    predictor_free (p);
    return NULL;
}

static int
wanted_arch (const opts_t *o, const char *name)
{
    return !o->arch || strcmp (o->arch, name) == 0;
}

static int
check_arch_opt (const predictor_t *p, const opts_t *o)
{
    if (o->arch && predictor_arch_info (p, o->arch, NULL, NULL, NULL, NULL, NULL,
                                        NULL) < 0)
        return fail ("unknown architecture '%s'", o->arch);
    return 0;
}

/* ---- fit ---- */

static void
summary (const predictor_t *p, const char *arch)
{
    const uint32_t *f;
    size_t nf, ok = 0, fitted = 0, nomok = 0;
    uint32_t nom;
    double r2min = 1, r2sum = 0;

    predictor_arch_info (p, arch, &f, &nf, &nom, NULL, NULL, NULL);
    for (size_t i = 0; i < nf; i++)
        for (size_t j = 0; j < nf; j++) {
            pred_pairstat_t st;
            if (i == j || predictor_pair_stat (p, arch, f[i], f[j], &st, NULL) < 0)
                continue;
            ok += st.present;
            if (st.present && f[i] == nom)
                nomok++;
            if (st.present && st.fitted) {
                fitted++;
                r2sum += st.r2_cpi;
                r2min = fmin (r2min, fmin (st.r2_cpi, st.r2_power));
            }
        }
    printf ("%-12s %2zu freqs, nominal %u kHz: %zu of %zu pairs with data "
            "(%zu of %zu from nominal)", arch, nf, nom, ok, nf * (nf - 1),
            nomok, nf - 1);
    if (fitted)
        printf (", %zu fitted, mean R^2(CPI) %.3f, min R^2 %.3f", fitted,
                r2sum / (double)fitted, r2min);
    printf ("\n");
}

static int
do_fit (opts_t *o)
{
    predictor_t *p;
    ms_error_t e;
    size_t n;

    if (!o->runs_path)
        return fail ("fit needs --runs FILE"), 2;
    if (!(p = build (o, 1)))
        return 1;
    predictor_runs_get (o->runs, &n);
    printf ("# %zu runs from %s, %s fit\n", n, o->runs_path,
            o->robust ? "robust" : "least-squares");
    for (size_t i = 0; i < predictor_narchs (p); i++) {
        const char *a = predictor_arch_name (p, i);
        char pw[4096], tm[4096];
        const pred_run_t *r = predictor_runs_get (o->runs, &n);
        int any = 0;
        /* every arch with runs, also one where no pair could be fitted */
        for (size_t k = 0; k < n && !any; k++)
            any = strcmp (r[k].arch, a) == 0;
        if (!any)
            continue;
        summary (p, a);
        if (o->out) {
            snprintf (pw, sizeof (pw), "%s/%s.power", o->out, a);
            snprintf (tm, sizeof (tm), "%s/%s.time", o->out, a);
            if (predictor_save_ear_model (p, a, pw, tm, &e) < 0) {
                predictor_free (p);
                return fail ("%s", e.text);
            }
            printf ("  wrote %s and %s\n", pw, tm);
        }
    }
    predictor_free (p);
    return 0;
}

/* ---- show ---- */

static int
do_show (opts_t *o)
{
    predictor_t *p = build (o, 1);
    if (!p)
        return 1;
    if (check_arch_opt (p, o)) {
        predictor_free (p);
        return 1;
    }
    for (size_t i = 0; i < predictor_narchs (p); i++) {
        const char *a = predictor_arch_name (p, i);
        const uint32_t *f;
        size_t nf;
        uint32_t nom;
        if (!wanted_arch (o, a))
            continue;
        summary (p, a);
        predictor_arch_info (p, a, &f, &nf, &nom, NULL, NULL, NULL);
        printf ("%9s %9s %9s %9s %9s %9s %9s %9s %6s %4s %7s %7s %7s %7s\n",
                "ref_khz", "f_khz", "A", "B", "C", "D", "E", "F", "n", "apps",
                "R2_P", "R2_CPI", "sd_P", "sd_CPI");
        for (size_t r = 0; r < nf; r++) {
            if (!o->all_pairs && f[r] != nom)
                continue;
            for (size_t k = 0; k < nf; k++) {
                pred_pairstat_t st;
                if (predictor_pair_stat (p, a, f[r], f[k], &st, NULL) < 0)
                    continue;
                printf ("%9u %9u ", f[r], f[k]);
                if (!st.present) {
                    printf ("%9s %9s %9s %9s %9s %9s", "-", "-", "-", "-", "-", "-");
                    if (st.apps)
                        printf (" %6zu %4zu  no fit: %s\n", st.n_power, st.apps,
                                st.apps < 3 ? "too few apps" : "singular");
                    else
                        printf ("  missing: no data\n");
                    continue;
                }
                printf ("%9.5f %9.5f %9.3f %9.5f %9.5f %9.5f", st.A, st.B, st.C,
                        st.D, st.E, st.F);
                if (st.fitted)
                    printf (" %6zu %4zu %7.4f %7.4f %6.2f%% %6.2f%%\n", st.n_power,
                            st.apps, st.r2_power, st.r2_cpi, 100 * st.sd_power,
                            100 * st.sd_cpi);
                else
                    printf (" %6s %4s %7s %7s %7s %7s\n", "-", "-", "-", "-", "-",
                            f[r] == f[k] ? "-" : "loaded");
            }
        }
    }
    predictor_free (p);
    return 0;
}

/* ---- project ---- */

static int
do_project (opts_t *o)
{
    predictor_t *p;
    int any = 0;

    if (!o->app)
        return fail ("project needs --app NAME"), 2;
    if (!(p = build (o, 1)))
        return 1;
    if (check_arch_opt (p, o)) {
        predictor_free (p);
        return 1;
    }
    printf ("# %s, %g node%s; lo..hi: 90%% interval; * least energy, + least time\n",
            o->app, o->nodes, o->nodes == 1 ? "" : "s");
    printf ("%-12s %9s %9s %19s %8s %17s %11s %25s  %s\n", "arch", "f_khz", "T_s",
            "T_lo..T_hi", "P_W", "P_lo..P_hi", "E_J", "E_lo..E_hi", "source");
    for (size_t i = 0; i < predictor_narchs (p); i++) {
        const char *a = predictor_arch_name (p, i);
        const uint32_t *f;
        pred_estimate_t est[64];
        size_t n, emin = 0, tmin = 0;
        ms_error_t e;
        if (!wanted_arch (o, a))
            continue;
        predictor_arch_info (p, a, &f, NULL, NULL, NULL, NULL, NULL);
        if (predictor_estimate_all (p, o->app, a, o->nodes, est, 64, &n, &e) < 0) {
            printf ("%-12s no estimate: %s\n", a, e.text);
            continue;
        }
        any = 1;
        for (size_t k = 0; k < n; k++) {
            if (est[k].energy_j < est[emin].energy_j)
                emin = k;
            if (est[k].time_s < est[tmin].time_s)
                tmin = k;
        }
        for (size_t k = 0; k < n; k++)
            printf ("%-12s %9u %9.2f %9.2f..%-9.2f %8.1f %8.1f..%-8.1f %11.0f "
                    "%12.0f..%-12.0f %s%s%s\n", a, f[k], est[k].time_s,
                    est[k].time_lo, est[k].time_hi, est[k].power_w, est[k].power_lo,
                    est[k].power_hi, est[k].energy_j, est[k].energy_lo,
                    est[k].energy_hi, predictor_source_name (est[k].source),
                    k == emin ? " *" : "", k == tmin ? " +" : "");
    }
    predictor_free (p);
    if (!any)
        return fail ("app '%s': no estimate on any architecture", o->app);
    return 0;
}

/* ---- evaluate ---- */

static void
cross_loo (const predictor_t *p)
{
    size_t na = predictor_narchs (p), total = 0;
    double sum_t = 0, sum_p = 0;
    int in_t = 0, in_p = 0;

    printf ("# cross-architecture model, leave one app out\n");
    for (size_t a = 0; a < na; a++)
        for (size_t b = 0; b < na; b++) {
            const char *an = predictor_arch_name (p, a), *bn = predictor_arch_name (p, b);
            double et = 0, ep = 0;
            size_t n = 0;
            int it = 0, ip = 0;
            if (a == b)
                continue;
            for (size_t i = 0; i < predictor_napps (p); i++) {
                const char *app = predictor_app_name (p, i);
                pred_signature_t sb;
                pred_estimate_t out;
                if (predictor_get_signature (p, app, bn, &sb, NULL) < 0
                    || predictor_cross_predict (p, app, an, bn, &out, NULL) < 0)
                    continue;
                double rt = out.time_s / sb.runtime_s - 1;
                double rp = out.power_w / sb.power_w - 1;
                printf ("  %s -> %s %-14s T %8.2f s (true %8.2f) %+6.1f%%  "
                        "P %7.1f W (true %7.1f) %+6.1f%%\n", an, bn, app,
                        out.time_s, sb.runtime_s, 100 * rt, out.power_w,
                        sb.power_w, 100 * rp);
                et += fabs (rt);
                ep += fabs (rp);
                it += sb.runtime_s >= out.time_lo && sb.runtime_s <= out.time_hi;
                ip += sb.power_w >= out.power_lo && sb.power_w <= out.power_hi;
                n++;
            }
            if (!n)
                continue;
            printf ("%s -> %s: %zu apps, MAPE time %.1f%%, power %.1f%%; inside "
                    "the 90%% interval: time %d/%zu, power %d/%zu\n", an, bn, n,
                    100 * et / (double)n, 100 * ep / (double)n, it, n, ip, n);
            sum_t += et;
            sum_p += ep;
            in_t += it;
            in_p += ip;
            total += n;
        }
    if (total)
        printf ("cross-arch overall: %zu predictions, MAPE time %.1f%%, power "
                "%.1f%%; coverage time %.0f%%, power %.0f%%\n", total,
                100 * sum_t / (double)total, 100 * sum_p / (double)total,
                100.0 * in_t / (double)total, 100.0 * in_p / (double)total);
    else
        printf ("cross-arch: no app has signatures on two architectures\n");
}

/* Fit on all runs but every k-th, predict the held-out ones. */
static int
holdout (const predictor_t *base, const pred_run_t *runs, size_t n,
         const opts_t *o)
{
    predictor_t *p = predictor_new ();
    pred_run_t *train = ms_xmalloc ((n ? n : 1) * sizeof (*train));
    size_t k = o->holdout > 0 ? (size_t)lround (1 / o->holdout) : 0, nt = 0;
    size_t nh = 0, src[5] = { 0 };
    double et = 0, ep = 0;
    int in_t = 0, in_p = 0, rc = 0;
    ms_error_t e;

    if (k < 2)
        k = 2;
    for (size_t i = 0; i < predictor_narchs (base); i++) {
        const char *a = predictor_arch_name (base, i);
        const uint32_t *f;
        size_t nf;
        uint32_t nom;
        int cores;
        double idle;
        predictor_arch_info (base, a, &f, &nf, &nom, &cores, &idle, NULL);
        predictor_add_arch (p, a, cores, f, nf, nom, idle, NULL);
    }
    for (size_t i = 0; i < n; i++)
        if (i % k != k - 1)
            train[nt++] = runs[i];
    if (predictor_signatures_from_runs (p, train, nt, &e) < 0
        || predictor_fit (p, train, nt, o->robust ? PRED_FIT_ROBUST : PRED_FIT_OLS,
                          &e) < 0) {
        rc = fail ("hold-out fit: %s", e.text);
        goto out;
    }
    for (size_t i = k - 1; i < n; i += k) {
        pred_estimate_t est;
        uint32_t nom;
        predictor_arch_info (p, runs[i].arch, NULL, NULL, &nom, NULL, NULL, NULL);
        if (runs[i].freq_khz == nom
            || predictor_estimate (p, runs[i].app, runs[i].arch, runs[i].freq_khz,
                                   1, &est, NULL) < 0)
            continue;
        et += fabs (est.time_s / runs[i].runtime_s - 1);
        ep += fabs (est.power_w / runs[i].power_w - 1);
        in_t += runs[i].runtime_s >= est.time_lo && runs[i].runtime_s <= est.time_hi;
        in_p += runs[i].power_w >= est.power_lo && runs[i].power_w <= est.power_hi;
        src[est.source]++;
        nh++;
    }
    printf ("# frequency model, hold-out: fitted on %zu runs, predicting every "
            "%zu%s run away from nominal\n", nt, k, k == 2 ? "nd" : k == 3 ? "rd" : "th");
    if (nh)
        printf ("frequency hold-out: %zu runs (%zu projected, %zu default, %zu "
                "cross-arch), MAPE time %.2f%%, power %.2f%%; inside the 90%% "
                "interval: time %.1f%%, power %.1f%%\n", nh, src[PRED_SRC_PROJECTED],
                src[PRED_SRC_DEFAULT], src[PRED_SRC_CROSS_ARCH],
                100 * et / (double)nh, 100 * ep / (double)nh, 100.0 * in_t / (double)nh,
                100.0 * in_p / (double)nh);
    else
        printf ("frequency hold-out: no held-out run away from nominal\n");
out:
    free (train);
    predictor_free (p);
    return rc;
}

static int
do_evaluate (opts_t *o)
{
    predictor_t *p = build (o, 0);
    int rc = 0;

    if (!p)
        return 1;
    cross_loo (p);
    if (o->runs) {
        size_t n;
        const pred_run_t *r = predictor_runs_get (o->runs, &n);
        rc = holdout (p, r, n, o);
    } else if (o->synth > 0) {
        pred_run_t *all = NULL;
        size_t nall = 0;
        ms_error_t e;
        for (size_t i = 0; i < predictor_narchs (p) && !rc; i++) {
            const char *a = predictor_arch_name (p, i);
            pred_run_t *r;
            size_t n;
            if (o->variants > 0 && predictor_synth_apps (p, a, (size_t)o->variants,
                                                         0.3, o->seed + i, &e) < 0)
                continue;
            if (predictor_synth_runs (p, a, (size_t)o->rpf, o->synth, o->seed + 100 + i,
                                      &r, &n, &e) < 0) {
                rc = fail ("%s", e.text);
                break;
            }
            all = ms_xrealloc (all, (nall + n + 1) * sizeof (*all));
            memcpy (all + nall, r, n * sizeof (*r));
            nall += n;
            free (r);
        }
        if (!rc) {
            printf ("# %zu synthetic runs from the loaded models, noise %.1f%%\n",
                    nall, 100 * o->synth);
            rc = holdout (p, all, nall, o);
        }
        free (all);
    } else
        printf ("# frequency model: no runs (give --runs FILE or --synth NOISE)\n");
    predictor_free (p);
    return rc;
}

/* ---- synth ---- */

static int
do_synth (opts_t *o)
{
    predictor_t *p = build (o, 0);
    ms_error_t e;
    int rc = 0;

    if (!p)
        return 1;
    if (check_arch_opt (p, o)) {
        predictor_free (p);
        return 1;
    }
    printf ("# drawn from the loaded models: noise %g, %d runs per frequency, "
            "seed %lu\napp,arch,freq_khz,runtime_s,power_w,cpi,tpi,gbs,nodes\n",
            o->noise, o->rpf, o->seed);
    for (size_t i = 0; i < predictor_narchs (p); i++) {
        const char *a = predictor_arch_name (p, i);
        pred_run_t *r;
        size_t n;
        if (!wanted_arch (o, a))
            continue;
        if (o->variants > 0)
            predictor_synth_apps (p, a, (size_t)o->variants, 0.3, o->seed + i, NULL);
        if (predictor_synth_runs (p, a, (size_t)o->rpf, o->noise, o->seed + 100 + i,
                                  &r, &n, &e) < 0) {
            rc = fail ("%s", e.text);
            break;
        }
        for (size_t k = 0; k < n; k++)
            printf ("%s,%s,%u,%.6g,%.6g,%.6g,%.6g,%.6g,%g\n", r[k].app, r[k].arch,
                    r[k].freq_khz, r[k].runtime_s, r[k].power_w, r[k].cpi,
                    r[k].tpi, r[k].gbs, r[k].nodes);
        free (r);
    }
    predictor_free (p);
    return rc;
}

static int
parse_double (const char *opt, const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    *v = strtod (s, &end);
    if (errno || *end || end == s || !(*v >= lo && *v <= hi)) {
        fail ("%s: '%s' is not a number in [%g, %g]", opt, s, lo, hi);
        return -1;
    }
    return 0;
}

int
cmd_model (int argc, char **argv)
{
    enum { O_EAMC = 256, O_TABLE61, O_ALL, O_HOLD, O_SYNTH, O_NOISE, O_RPF,
           O_VAR, O_SEED };
    static const struct option lo[] = {
        { "config", required_argument, NULL, 'c' },
        { "eamc-2hw", required_argument, NULL, O_EAMC },
        { "table61", no_argument, NULL, O_TABLE61 },
        { "model", required_argument, NULL, 'm' },
        { "runs", required_argument, NULL, 'r' },
        { "app", required_argument, NULL, 'a' },
        { "arch", required_argument, NULL, 'A' },
        { "nodes", required_argument, NULL, 'n' },
        { "robust", no_argument, NULL, 'R' },
        { "out", required_argument, NULL, 'o' },
        { "all-pairs", no_argument, NULL, O_ALL },
        { "holdout", required_argument, NULL, O_HOLD },
        { "synth", required_argument, NULL, O_SYNTH },
        { "noise", required_argument, NULL, O_NOISE },
        { "runs-per-freq", required_argument, NULL, O_RPF },
        { "variants", required_argument, NULL, O_VAR },
        { "seed", required_argument, NULL, O_SEED },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    opts_t o;
    int c, rc;
    double v;

    memset (&o, 0, sizeof (o));
    o.nodes = 1;
    o.holdout = 0.2;
    o.rpf = 5;
    o.variants = 16;
    o.seed = 1;
    o.noise = 0.02;
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (!strcmp (argv[1], "--help") || !strcmp (argv[1], "-h"))) {
            usage (stdout);
            return 0;
        }
        usage (stderr);
        return 2;
    }
    o.sub = argv[1];
    optind = 2;
    opterr = 0;
    while ((c = getopt_long (argc, argv, ":c:m:r:a:A:n:Ro:h", lo, NULL)) != -1) {
        switch (c) {
        case 'c': o.config = optarg; break;
        case O_EAMC: o.eamc = optarg; break;
        case O_TABLE61: o.table61 = 1; break;
        case 'm':
            if (o.nmodels == MAX_MODELS)
                return fail ("more than %d --model options", MAX_MODELS), 2;
            o.models[o.nmodels++] = optarg;
            break;
        case 'r': o.runs_path = optarg; break;
        case 'a': o.app = optarg; break;
        case 'A': o.arch = optarg; break;
        case 'n':
            if (parse_double ("--nodes", optarg, 1e-9, 1e9, &o.nodes) < 0)
                return 2;
            break;
        case 'R': o.robust = 1; break;
        case 'o': o.out = optarg; break;
        case O_ALL: o.all_pairs = 1; break;
        case O_HOLD:
            if (parse_double ("--holdout", optarg, 0.01, 0.5, &o.holdout) < 0)
                return 2;
            break;
        case O_SYNTH:
            if (parse_double ("--synth", optarg, 0, 0.5, &o.synth) < 0)
                return 2;
            break;
        case O_NOISE:
            if (parse_double ("--noise", optarg, 0, 0.5, &o.noise) < 0)
                return 2;
            break;
        case O_RPF:
            if (parse_double ("--runs-per-freq", optarg, 1, 10000, &v) < 0)
                return 2;
            o.rpf = (int)v;
            break;
        case O_VAR:
            if (parse_double ("--variants", optarg, 0, 10000, &v) < 0)
                return 2;
            o.variants = (int)v;
            break;
        case O_SEED:
            if (parse_double ("--seed", optarg, 0, 4e9, &v) < 0)
                return 2;
            o.seed = (unsigned long)v;
            break;
        case 'h':
            usage (stdout);
            return 0;
        case ':':
            fail ("option '%s' needs a value", argv[optind - 1]);
            return 2;
        default:
            fail ("unknown option '%s'", argv[optind - 1]);
            fprintf (stderr, "Try 'metasched model --help'.\n");
            return 2;
        }
    }
    if (optind < argc) {
        fail ("unexpected argument '%s'", argv[optind]);
        return 2;
    }
    if (!strcmp (o.sub, "fit"))
        rc = do_fit (&o);
    else if (!strcmp (o.sub, "show"))
        rc = do_show (&o);
    else if (!strcmp (o.sub, "project"))
        rc = do_project (&o);
    else if (!strcmp (o.sub, "evaluate"))
        rc = do_evaluate (&o);
    else if (!strcmp (o.sub, "synth"))
        rc = do_synth (&o);
    else {
        fail ("unknown subcommand '%s'", o.sub);
        fprintf (stderr, "Try 'metasched model --help'.\n");
        rc = 2;
    }
    predictor_runs_free (o.runs);
    return rc;
}
