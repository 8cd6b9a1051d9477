/* runs.c - the runs CSV read by `metasched model fit` and `evaluate`:
 *
 *   app,arch,freq_khz,runtime_s,power_w,cpi,tpi,gbs,nodes
 *
 * One learning or production run per line; a header line naming the
 * columns (any order) is required; '#' comments and blank lines are
 * skipped. power_w is the mean node power, tpi memory transactions per
 * instruction, gbs memory bandwidth in GB/s. Every error names file:line.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "predictor/internal.h"

#define RUNS_FILE_MAX (1u << 30)
#define NCOLS 9

struct pred_runs {
    pred_run_t *runs;
    int *lines;
    size_t n, cap;
    char *text; /* owns the app and arch strings */
};

static const char *const colname[NCOLS] = {
    "app", "arch", "freq_khz", "runtime_s", "power_w", "cpi", "tpi", "gbs", "nodes"
};

static char *
next_field (char **s)
{
    char *f = *s, *c;
    if (!f)
        return NULL;
    c = strchr (f, ',');
    if (c) {
        *c = '\0';
        *s = c + 1;
    } else
        *s = NULL;
    return ms_strtrim (f);
}

static int
parse (pred_runs_t *r, const char *name, ms_error_t *errp)
{
    char *s = r->text, *line;
    int lineno = 0, col[NCOLS], have_header = 0;

    while (s && *s) {
        char *nl = strchr (s, '\n');
        int fmap[NCOLS] = { 0 };
        char *fld[32];
        int nf = 0;

        line = s;
        if (nl) {
            *nl = '\0';
            s = nl + 1;
        } else
            s = NULL;
        lineno++;
        {
            size_t l = strlen (line);
            if (l && line[l - 1] == '\r')
                line[l - 1] = '\0';
        }
        if (*ms_strtrim (line) == '\0' || *ms_strtrim (line) == '#')
            continue;
        {
            char *p = line, *f;
            while ((f = next_field (&p))) {
                if (nf == 32)
                    return ms_err (errp, MS_ERR_INPUT, "%s:%d: more than 32 "
                                   "fields", name, lineno);
                fld[nf++] = f;
            }
        }
        if (!have_header) {
            for (int j = 0; j < NCOLS; j++)
                col[j] = -1;
            for (int i = 0; i < nf; i++) {
                int j;
                for (j = 0; j < NCOLS; j++)
                    if (strcmp (fld[i], colname[j]) == 0)
                        break;
                if (j == NCOLS)
                    return ms_err (errp, MS_ERR_INPUT, "%s:%d: unknown column "
                                   "'%s' (want %s,%s,%s,%s,%s,%s,%s,%s,%s)",
                                   name, lineno, fld[i], colname[0], colname[1],
                                   colname[2], colname[3], colname[4], colname[5],
                                   colname[6], colname[7], colname[8]);
                if (col[j] >= 0)
                    return ms_err (errp, MS_ERR_INPUT, "%s:%d: column '%s' "
                                   "twice", name, lineno, fld[i]);
                col[j] = i;
            }
            for (int j = 0; j < NCOLS; j++)
                if (col[j] < 0)
                    return ms_err (errp, MS_ERR_INPUT, "%s:%d: header lacks "
                                   "column '%s'", name, lineno, colname[j]);
            have_header = 1;
            (void)fmap;
            continue;
        }
        if (nf != NCOLS)
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: %d fields, expected %d",
                           name, lineno, nf, NCOLS);
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 256;
            r->runs = ms_xrealloc (r->runs, r->cap * sizeof (*r->runs));
            r->lines = ms_xrealloc (r->lines, r->cap * sizeof (int));
        }
        {
            pred_run_t *x = &r->runs[r->n];
            double v[NCOLS];
            for (int j = 2; j < NCOLS; j++) {
                char *end;
                const char *f = fld[col[j]];
                errno = 0;
                v[j] = strtod (f, &end);
                if (!*f || *end || errno == ERANGE || !isfinite (v[j]))
                    return ms_err (errp, MS_ERR_INPUT, "%s:%d: %s '%s' is not a "
                                   "finite number", name, lineno, colname[j], f);
                if (v[j] < 0)
                    return ms_err (errp, MS_ERR_INPUT, "%s:%d: %s is negative",
                                   name, lineno, colname[j]);
            }
            x->app = fld[col[0]];
            x->arch = fld[col[1]];
            if (!*x->app || strlen (x->app) >= PRED_NAME_MAX)
                return ms_err (errp, MS_ERR_INPUT, "%s:%d: app name empty or "
                               "longer than %d bytes", name, lineno,
                               PRED_NAME_MAX - 1);
            if (v[2] != floor (v[2]) || v[2] < 1 || v[2] > 4294967295.0)
                return ms_err (errp, MS_ERR_INPUT, "%s:%d: freq_khz '%s' is not "
                               "a frequency in kHz", name, lineno, fld[col[2]]);
            x->freq_khz = (uint32_t)v[2];
            x->runtime_s = v[3];
            x->power_w = v[4];
            x->cpi = v[5];
            x->tpi = v[6];
            x->gbs = v[7];
            x->nodes = v[8];
            if (!(x->runtime_s > 0) || !(x->power_w > 0) || !(x->cpi > 0)
                || !(x->nodes > 0))
                return ms_err (errp, MS_ERR_INPUT, "%s:%d: app '%s': runtime_s, "
                               "power_w, cpi and nodes must be positive", name,
                               lineno, x->app);
            r->lines[r->n] = lineno;
            r->n++;
        }
    }
    if (!have_header)
        return ms_err (errp, MS_ERR_INPUT, "%s:%d: no header line (%s,%s,...)",
                       name, lineno, colname[0], colname[1]);
    return 0;
}

int
predictor_runs_parse (const char *text, size_t len, const char *name,
                      pred_runs_t **runsp, ms_error_t *errp)
{
    pred_runs_t *r = ms_xcalloc (1, sizeof (*r));

    if (memchr (text, '\0', len)) {
        ms_err (errp, MS_ERR_INPUT, "%s: NUL byte in a text file", name);
        predictor_runs_free (r);
        return -1;
    }
    r->text = ms_xmalloc (len + 1);
    memcpy (r->text, text, len);
    r->text[len] = '\0';
    if (parse (r, name, errp) < 0) {
        predictor_runs_free (r);
        return -1;
    }
    *runsp = r;
    return 0;
}

/* predictor_runs_read's reader for ms_parse_file */
static int
parse_text (const char *text, size_t len, const char *name, void *runsp,
            ms_error_t *errp)
{
    return predictor_runs_parse (text, len, name, runsp, errp);
}

int
predictor_runs_read (const char *path, pred_runs_t **runsp, ms_error_t *errp)
{
    return ms_parse_file (path, RUNS_FILE_MAX, parse_text, runsp, errp);
}

const pred_run_t *
predictor_runs_get (const pred_runs_t *r, size_t *nruns)
{
    *nruns = r->n;
    return r->runs;
}

int
predictor_runs_line (const pred_runs_t *r, size_t i)
{
    return i < r->n ? r->lines[i] : 0;
}

void
predictor_runs_free (pred_runs_t *r)
{
    if (!r)
        return;
    free (r->runs);
    free (r->lines);
    free (r->text);
    free (r);
}
