/* modelfile.c - readers and writers of the EAR model files and of the
 * eamc-2hw `apps` signatures (layout: doc/predictor.md, "Files").
 *
 *   <module>.power  N*N rows "A B C": P(f)   = A*P(ref) + B*TPI(ref) + C
 *   <module>.time   N*N rows "D E F": CPI(f) = D*CPI(ref) + E*TPI(ref) + F
 *
 * Row index = ref*N + f, frequency index 0 = the lowest. A row "0 0 0"
 * means no data for that pair. Blank lines and '#' comments are skipped.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

#define MODEL_FILE_MAX (16u << 20)

const char *const predictor_eamc_apps[8] = {
    "lu.C", "ep.D", "bt-mz.C", "sp-mz.C", "lu-mz.C", "ua.C", "DGEMM", "STREAM"
};

/* Split the next line off [*s, end): returns its start, sets *len (without
 * CR/LF) and advances *s. NULL at the end. */
static const char *
next_line (const char **s, const char *end, size_t *len)
{
    const char *b = *s, *e;
    if (b >= end)
        return NULL;
    e = memchr (b, '\n', (size_t)(end - b));
    *s = e ? e + 1 : end;
    if (!e)
        e = end;
    *len = (size_t)(e - b);
    if (*len && b[*len - 1] == '\r')
        (*len)--;
    return b;
}

/* Parse up to max numbers from a line; returns the count, or -1 when a token
 * is not a finite number (*badtok set to its index). */
static int
parse_numbers (const char *line, size_t len, double *v, int max, int *badtok)
{
    char buf[512];
    char *s, *save = NULL, *tok;
    int n = 0;

    if (len >= sizeof (buf)) {
        *badtok = 0;
        return -1;
    }
    memcpy (buf, line, len);
    buf[len] = '\0';
    for (s = buf; (tok = strtok_r (s, " \t,", &save)); s = NULL) {
        char *end;
        double x;
        if (n == max)
            return max + 1;
        errno = 0;
        x = strtod (tok, &end);
        if (*end || end == tok || errno == ERANGE || !isfinite (x)) {
            *badtok = n;
            return -1;
        }
        v[n++] = x;
    }
    return n;
}

static int
blank_or_comment (const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '#')
            return 1;
        if (line[i] != ' ' && line[i] != '\t')
            return 0;
    }
    return 1;
}

/* Parse one coefficient file into v (nf*nf*3) and present (nf*nf). */
static int
parse_coeffs (const pred_arch_t *a, int which, const char *text, size_t len,
              const char *name, double *v, unsigned char *present,
              ms_error_t *errp)
{
    const char *s = text, *end = text + len, *line;
    size_t ll, rows = 0, want = a->nf * a->nf;
    int lineno = 0;
    const char *cols = which == 'P' ? "A B C" : "D E F";

    if (memchr (text, '\0', len))
        return ms_err (errp, MS_ERR_INPUT, "%s: NUL byte in a text file", name);
    while ((line = next_line (&s, end, &ll))) {
        double x[3];
        int bad = 0, n;
        lineno++;
        if (blank_or_comment (line, ll))
            continue;
        if (rows == want)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: more than %zu rows (%zu "
                           "frequencies of '%s' squared)", name, lineno, want,
                           a->nf, a->name);
        n = parse_numbers (line, ll, x, 3, &bad);
        if (n < 0)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: field %d is not a finite "
                           "number", name, lineno, bad + 1);
        if (n != 3)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: expected 3 numbers (%s), "
                           "found %d", name, lineno, cols, n);
        present[rows] = !(x[0] == 0 && x[1] == 0 && x[2] == 0);
        if (present[rows] && x[0] <= 0)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: coefficient %c must be "
                           "positive", name, lineno, which == 'P' ? 'A' : 'D');
        memcpy (&v[3 * rows], x, sizeof (x));
        rows++;
    }
    if (rows != want)
        return ms_err (errp, MS_ERR_INPUT, "%s:%d: %zu rows, expected %zu (%zu "
                       "frequencies of '%s' squared)", name, lineno, rows, want,
                       a->nf, a->name);
    return 0;
}

/* Merge parsed rows into the arch's model. Design-column order:
 * cp = {C, A, B}, cc = {F, D, E}. */
static void
merge (pred_arch_t *a, int which, const double *v, const unsigned char *present)
{
    size_t n = a->nf * a->nf;
    double far = log ((double)a->freqs[a->nf - 1] / a->freqs[0]);
    if (!a->pairs)
        a->pairs = ms_xcalloc (n, sizeof (pred_pair_t));
    for (size_t i = 0; i < n; i++) {
        pred_pair_t *q = &a->pairs[i];
        if (q->fitted) { /* a loaded file replaces a fit */
            memset (q, 0, sizeof (*q));
        }
        /* Model error of a loaded pair, growing with the distance between
         * its frequencies (ear.c, PRED_LOADED_REL_SD): computed here
         * once rather than for every projection. */
        q->h_loaded = far > 0 ? 1.6448536269514722 * PRED_LOADED_REL_SD
                                    * fabs (log ((double)a->freqs[i / a->nf]
                                                 / a->freqs[i % a->nf])) / far
                              : 0;
        if (which == 'P') {
            q->has_p = present[i];
            q->cp[0] = v[3 * i + 2];
            q->cp[1] = v[3 * i];
            q->cp[2] = v[3 * i + 1];
        } else {
            q->has_c = present[i];
            q->cc[0] = v[3 * i + 2];
            q->cc[1] = v[3 * i];
            q->cc[2] = v[3 * i + 1];
        }
        q->state = q->has_p && q->has_c ? PAIR_OK : PAIR_NO_DATA;
    }
}

int
predictor_parse_ear_coeffs (predictor_t *p, const char *arch, int which,
                            const char *text, size_t len, const char *name,
                            ms_error_t *errp)
{
    pred_arch_t *a;
    double *v;
    unsigned char *present;
    int rc;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if (which != 'P' && which != 'T')
        return ms_err (errp, MS_ERR_INPUT, "%s: which must be 'P' or 'T'", name);
    v = ms_xmalloc (a->nf * a->nf * 3 * sizeof (double));
    present = ms_xcalloc (a->nf * a->nf, 1);
    rc = parse_coeffs (a, which, text, len, name, v, present, errp);
    if (rc == 0)
        merge (a, which, v, present);
    free (v);
    free (present);
    return rc;
}

int
predictor_load_ear_model (predictor_t *p, const char *arch,
                          const char *power_path, const char *time_path,
                          ms_error_t *errp)
{
    pred_arch_t *a;
    char *tp = NULL, *tt = NULL;
    size_t lp, lt;
    double *vp = NULL, *vt = NULL;
    unsigned char *pp = NULL, *pt = NULL;
    int rc = -1;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if (ms_read_file (power_path, MODEL_FILE_MAX, &tp, &lp, errp) < 0
        || ms_read_file (time_path, MODEL_FILE_MAX, &tt, &lt, errp) < 0)
        goto out;
    vp = ms_xmalloc (a->nf * a->nf * 3 * sizeof (double));
    vt = ms_xmalloc (a->nf * a->nf * 3 * sizeof (double));
    pp = ms_xcalloc (a->nf * a->nf, 1);
    pt = ms_xcalloc (a->nf * a->nf, 1);
    if (parse_coeffs (a, 'P', tp, lp, power_path, vp, pp, errp) < 0
        || parse_coeffs (a, 'T', tt, lt, time_path, vt, pt, errp) < 0)
        goto out;
    /* both parsed: replace the model as a whole */
    free (a->pairs);
    a->pairs = NULL;
    merge (a, 'P', vp, pp);
    merge (a, 'T', vt, pt);
    rc = 0;
out:
    free (tp);
    free (tt);
    free (vp);
    free (vt);
    free (pp);
    free (pt);
    return rc;
}

int
predictor_save_ear_model (const predictor_t *p, const char *arch,
                          const char *power_path, const char *time_path,
                          ms_error_t *errp)
{
    pred_arch_t *a;
    const char *path[2] = { power_path, time_path };

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    if (!a->pairs)
        return ms_err (errp, MS_ERR_MISSING, "'%s' has no frequency model", arch);
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen (path[k], "w");
        if (!f) {
            ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path[k], strerror (errno));
            if (errp)
                errp->sys_errno = errno;
            return -1;
        }
        for (size_t i = 0; i < a->nf * a->nf; i++) {
            const pred_pair_t *q = &a->pairs[i];
            const double *c = k == 0 ? q->cp : q->cc;
            if (q->state != PAIR_OK)
                fprintf (f, "0 0 0\n");
            else
                fprintf (f, "%.9g %.9g %.9g\n", c[1], c[2], c[0]);
        }
        if (fclose (f) != 0)
            return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path[k], strerror (errno));
    }
    return 0;
}

int
predictor_load_apps_file (predictor_t *p, const char *path,
                          const char *const *module_arch, size_t nmodules,
                          ms_error_t *errp)
{
    char *text;
    size_t len, ll, got = 0;
    const char *s, *end, *line;
    int lineno = 0, rc = -1;
    long count = -1;

    if (ms_read_file (path, MODEL_FILE_MAX, &text, &len, errp) < 0)
        return -1;
    s = text;
    end = text + len;
    if (memchr (text, '\0', len)) {
        ms_err (errp, MS_ERR_INPUT, "%s: NUL byte in a text file", path);
        goto out;
    }
    while ((line = next_line (&s, end, &ll))) {
        double v[8];
        int bad = 0, n;
        lineno++;
        if (blank_or_comment (line, ll))
            continue;
        n = parse_numbers (line, ll, v, 8, &bad);
        if (n < 0) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: field %d is not a finite number",
                    path, lineno, bad + 1);
            goto out;
        }
        if (count < 0) {
            if (n != 1 || v[0] < 0 || v[0] != floor (v[0]) || v[0] > 100000) {
                ms_err (errp, MS_ERR_INPUT, "%s:%d: expected the number of apps",
                        path, lineno);
                goto out;
            }
            count = (long)v[0];
            continue;
        }
        if (n < 3 || v[2] != 4 || n != 7) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: expected 7 fields (app_id "
                    "module_id 4 runtime_s power_w CPI TPI), found %d", path,
                    lineno, n);
            goto out;
        }
        if (v[0] < 1 || v[0] != floor (v[0]) || v[0] > 1e6 || v[1] < 0
            || v[1] != floor (v[1]) || v[1] >= (double)nmodules) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: bad app id %g or module id %g "
                    "(%zu modules)", path, lineno, v[0], v[1], nmodules);
            goto out;
        }
        {
            char name[PRED_NAME_MAX];
            pred_signature_t sig;
            long id = (long)v[0];
            if (id <= 8)
                ms_strlcpy (name, predictor_eamc_apps[id - 1], sizeof (name));
            else
                snprintf (name, sizeof (name), "app%ld", id);
            memset (&sig, 0, sizeof (sig));
            sig.runtime_s = v[3];
            sig.power_w = v[4];
            sig.cpi = v[5];
            sig.tpi = v[6];
            sig.nodes = 1;
            if (!(sig.cpi > 0)) {
                ms_err (errp, MS_ERR_INPUT, "%s:%d: app '%s': CPI must be "
                        "positive", path, lineno, name);
                goto out;
            }
            if (predictor_set_signature (p, name, module_arch[(size_t)v[1]], &sig,
                                         errp) < 0) {
                ms_err_prefix (errp, "%s:%d", path, lineno);
                goto out;
            }
        }
        got++;
    }
    if (count < 0) {
        ms_err (errp, MS_ERR_INPUT, "%s:%d: empty file", path, lineno);
        goto out;
    }
    if ((long)got != count * (long)nmodules) {
        ms_err (errp, MS_ERR_INPUT, "%s:%d: %zu signature rows, expected %ld "
                "apps x %zu modules", path, lineno, got, count, nmodules);
        goto out;
    }
    rc = 0;
out:
    free (text);
    return rc;
}

int
predictor_load_eamc2hw (predictor_t *p, const char *dir, ms_error_t *errp)
{
    /* eamc-2hw: module 0 "normal" = 2x Xeon Platinum 8168 (2x24 cores),
     * 1.2..2.7 GHz; module 1 "normal2" = 2x Xeon Gold 6254 (2x18 cores),
     * 1.2..3.1 GHz; 100 MHz steps; nominal = the highest listed. */
    static const struct {
        const char *name;
        int cores;
        uint32_t lo, hi;
    } mod[2] = { { "normal", 48, 1200000, 2700000 },
                 { "normal2", 36, 1200000, 3100000 } };
    const char *names[2] = { mod[0].name, mod[1].name };
    char pp[4096], tp[4096];

    for (int m = 0; m < 2; m++) {
        if (pred_arch_index (p, mod[m].name) < 0) {
            uint32_t f[PRED_MAX_FREQS];
            size_t n = 0;
            for (uint32_t k = mod[m].lo; k <= mod[m].hi; k += 100000)
                f[n++] = k;
            if (predictor_add_arch (p, mod[m].name, mod[m].cores, f, n,
                                    mod[m].hi, 0, errp) < 0)
                return -1;
        }
        snprintf (pp, sizeof (pp), "%s/%s.power", dir, mod[m].name);
        snprintf (tp, sizeof (tp), "%s/%s.time", dir, mod[m].name);
        if (predictor_load_ear_model (p, mod[m].name, pp, tp, errp) < 0)
            return -1;
    }
    snprintf (pp, sizeof (pp), "%s/apps", dir);
    return predictor_load_apps_file (p, pp, names, 2, errp);
}

int
predictor_pair_stat (const predictor_t *p, const char *arch, uint32_t ref_khz,
                     uint32_t f_khz, pred_pairstat_t *st, ms_error_t *errp)
{
    pred_arch_t *a;
    const pred_pair_t *q;
    int ri, fi;

    if (pred_arch_lookup (p, arch, &a, errp) < 0)
        return -1;
    ri = pred_freq_index (a, ref_khz);
    fi = pred_freq_index (a, f_khz);
    if (ri < 0 || fi < 0)
        return ms_err (errp, MS_ERR_INPUT, "architecture '%s' has no frequency "
                       "%u kHz", arch, ri < 0 ? ref_khz : f_khz);
    memset (st, 0, sizeof (*st));
    if (!a->pairs)
        return 0;
    q = &a->pairs[(size_t)ri * a->nf + (size_t)fi];
    st->present = q->state == PAIR_OK;
    st->fitted = q->fitted;
    st->A = q->cp[1];
    st->B = q->cp[2];
    st->C = q->cp[0];
    st->D = q->cc[1];
    st->E = q->cc[2];
    st->F = q->cc[0];
    st->n_power = st->n_cpi = q->n;
    st->apps = q->apps;
    st->r2_power = q->r2_p;
    st->r2_cpi = q->r2_c;
    st->sd_power = q->sd_p;
    st->sd_cpi = q->sd_c;
    return 0;
}
