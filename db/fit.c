/* fit.c - the predictor fed from the database: architectures from
 * partitions, learning runs from job_runs, and the fitted EAR pairs back
 * into models with their statistics (doc/architecture.md "Frequency model" and
 * "Database"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/common/util.h"

int
db_predictor_archs (db_t *db, predictor_t *p, size_t *narchs, ms_error_t *errp)
{
    PGresult *res;
    size_t n = 0;

    /* the partitions of one architecture agree on it; take the first */
    res = db_exec (db, "predictor_archs",
                   "SELECT DISTINCT ON (architecture) architecture,"
                   " cores_per_node, array_to_string (freqs_khz, ','),"
                   " nominal_khz, idle_power_w FROM partitions"
                   " ORDER BY architecture, cluster, name",
                   0, NULL, errp);
    if (!res)
        return -1;
    for (int i = 0; i < PQntuples (res); i++) {
        uint32_t freqs[64];
        size_t nf = 0;
        char *list = ms_xstrdup (PQgetvalue (res, i, 2)), *save = NULL;
        for (char *t = strtok_r (list, ",", &save); t && nf < 64;
             t = strtok_r (NULL, ",", &save))
            freqs[nf++] = (uint32_t)strtoul (t, NULL, 10);
        free (list);
        if (predictor_arch_info (p, PQgetvalue (res, i, 0), NULL, NULL, NULL,
                                 NULL, NULL, NULL) == 0)
            continue; /* already known */
        if (predictor_add_arch (p, PQgetvalue (res, i, 0),
                                atoi (PQgetvalue (res, i, 1)), freqs, nf,
                                (uint32_t)strtoul (PQgetvalue (res, i, 3), NULL,
                                                   10),
                                atof (PQgetvalue (res, i, 4)), errp) < 0) {
            PQclear (res);
            return ms_err_prefix (errp, "architecture %s",
                                  PQgetvalue (res, i, 0));
        }
        n++;
    }
    PQclear (res);
    if (narchs)
        *narchs = n;
    return 0;
}

int
db_fit_and_store (db_t *db, predictor_t *p, pred_fitmode_t mode,
                  size_t *nruns, size_t *stored, ms_error_t *errp)
{
    db_runs_t *runs;
    const pred_run_t *rv;
    size_t n, count = 0;

    if (db_predictor_archs (db, p, NULL, errp) < 0
        || db_runs_load (db, NULL, false, &runs, errp) < 0)
        return -1;
    rv = db_runs_get (runs, &n);
    if (nruns)
        *nruns = n;
    if (n == 0) {
        db_runs_free (runs);
        if (stored)
            *stored = 0;
        return 0;
    }
    {
        /* The EAR model needs CPI (doc/architecture.md "Frequency model"): runs
         * from machines without cycle and instruction counters give signatures
         * but are not learning runs. */
        pred_run_t *fit = ms_xcalloc (n, sizeof (*fit));
        size_t nfit = 0;
        int rc = 0;
        for (size_t i = 0; i < n; i++)
            if (rv[i].cpi > 0)
                fit[nfit++] = rv[i];
        if (predictor_signatures_from_runs (p, rv, n, errp) < 0
            || (nfit && predictor_fit (p, fit, nfit, mode, errp) < 0))
            rc = -1;
        free (fit);
        db_runs_free (runs);
        if (rc < 0)
            return -1;
        if (nruns)
            *nruns = nfit;
    }
    for (size_t a = 0; a < predictor_narchs (p); a++) {
        const char *arch = predictor_arch_name (p, a);
        const uint32_t *fr;
        size_t nf;

        if (predictor_arch_info (p, arch, &fr, &nf, NULL, NULL, NULL, errp) < 0)
            return -1;
        for (size_t i = 0; i < nf; i++)
            for (size_t j = 0; j < nf; j++) {
                pred_pairstat_t st;
                db_model_t m;
                if (predictor_pair_stat (p, arch, fr[i], fr[j], &st, NULL) < 0
                    || !st.present || !st.fitted)
                    continue;
                memset (&m, 0, sizeof (m));
                ms_strlcpy (m.kind, "ear_pair", sizeof (m.kind));
                snprintf (m.scope, sizeof (m.scope), "%s:%u:%u", arch, fr[i],
                          fr[j]);
                m.coef[0] = st.A, m.coef[1] = st.B, m.coef[2] = st.C;
                m.coef[3] = st.D, m.coef[4] = st.E, m.coef[5] = st.F;
                m.ncoef = 6;
                m.r2 = fmin (st.r2_power, st.r2_cpi);
                m.residual_sd = st.sd_power;
                m.n = (int)(st.n_power < st.n_cpi ? st.n_power : st.n_cpi);
                snprintf (m.detail_json, sizeof (m.detail_json),
                          "{\"r2_power\": %.17g, \"r2_cpi\": %.17g,"
                          " \"sd_power\": %.17g, \"sd_cpi\": %.17g,"
                          " \"n_power\": %zu, \"n_cpi\": %zu, \"apps\": %zu,"
                          " \"mode\": \"%s\"}",
                          isfinite (st.r2_power) ? st.r2_power : 0,
                          isfinite (st.r2_cpi) ? st.r2_cpi : 0,
                          isfinite (st.sd_power) ? st.sd_power : 0,
                          isfinite (st.sd_cpi) ? st.sd_cpi : 0, st.n_power,
                          st.n_cpi, st.apps,
                          mode == PRED_FIT_ROBUST ? "robust" : "ols");
                if (!isfinite (m.r2))
                    m.r2 = NAN;
                if (db_model_store (db, &m, errp) < 0)
                    return -1;
                count++;
            }
    }
    if (stored)
        *stored = count;
    return 0;
}

/* The stored pairs of one architecture as the two EAR coefficient texts
 * (row = ref index * nf + f index, lowest frequency first; "0 0 0" where
 * no pair is stored, the identity on the diagonal) for the predictor's
 * own reader. */
static int
load_arch_pairs (db_t *db, predictor_t *p, const char *arch, size_t *npairs,
                 ms_error_t *errp)
{
    const uint32_t *fr;
    size_t nf, cap, lp = 0, lt = 0, loaded = 0;
    char *ptext, *ttext;
    double *coef;
    unsigned char *have;
    const char *param[1] = { arch };
    PGresult *res;
    int rc;

    if (predictor_arch_info (p, arch, &fr, &nf, NULL, NULL, NULL, errp) < 0)
        return -1;
    res = db_exec (db, "models_arch_pairs",
                   "SELECT DISTINCT ON (scope) scope, coefficients[1],"
                   " coefficients[2], coefficients[3], coefficients[4],"
                   " coefficients[5], coefficients[6] FROM models"
                   " WHERE kind = 'ear_pair' AND split_part (scope, ':', 1) = $1"
                   " AND cardinality (coefficients) = 6"
                   " ORDER BY scope, version DESC",
                   1, param, errp);
    if (!res)
        return -1;
    coef = ms_xcalloc (nf * nf * 6, sizeof (double));
    have = ms_xcalloc (nf * nf, 1);
    for (int i = 0; i < PQntuples (res); i++) {
        unsigned long ref, f;
        int ri = -1, fi = -1;
        if (sscanf (PQgetvalue (res, i, 0) + strlen (arch), ":%lu:%lu", &ref,
                    &f) != 2)
            continue;
        for (size_t k = 0; k < nf; k++) {
            if (fr[k] == ref)
                ri = (int)k;
            if (fr[k] == f)
                fi = (int)k;
        }
        if (ri < 0 || fi < 0)
            continue; /* the architecture lost that frequency */
        for (int c = 0; c < 6; c++)
            coef[((size_t)ri * nf + (size_t)fi) * 6 + (size_t)c]
                = atof (PQgetvalue (res, i, 1 + c));
        have[(size_t)ri * nf + (size_t)fi] = 1;
        loaded++;
    }
    PQclear (res);
    cap = nf * nf * 80 + 16;
    ptext = ms_xmalloc (cap);
    ttext = ms_xmalloc (cap);
    for (size_t r = 0; r < nf; r++)
        for (size_t f = 0; f < nf; f++) {
            const double *c = &coef[(r * nf + f) * 6];
            if (have[r * nf + f]) {
                lp += (size_t)snprintf (ptext + lp, cap - lp, "%.17g %.17g %.17g\n",
                                        c[0], c[1], c[2]);
                lt += (size_t)snprintf (ttext + lt, cap - lt, "%.17g %.17g %.17g\n",
                                        c[3], c[4], c[5]);
            } else if (r == f) {
                lp += (size_t)snprintf (ptext + lp, cap - lp, "1 0 0\n");
                lt += (size_t)snprintf (ttext + lt, cap - lt, "1 0 0\n");
            } else {
                lp += (size_t)snprintf (ptext + lp, cap - lp, "0 0 0\n");
                lt += (size_t)snprintf (ttext + lt, cap - lt, "0 0 0\n");
            }
        }
    rc = loaded == 0
             ? 0
             : (predictor_parse_ear_coeffs (p, arch, 'P', ptext, lp,
                                            "models (power)", errp) < 0
                || predictor_parse_ear_coeffs (p, arch, 'T', ttext, lt,
                                               "models (time)", errp) < 0)
                   ? -1
                   : 0;
    free (ptext);
    free (ttext);
    free (coef);
    free (have);
    if (rc == 0)
        *npairs += loaded;
    return rc;
}

int
db_predictor_load (db_t *db, predictor_t *p, size_t *npairs, ms_error_t *errp)
{
    db_runs_t *runs;
    const pred_run_t *rv;
    size_t n, pairs = 0;

    if (db_predictor_archs (db, p, NULL, errp) < 0
        || db_runs_load (db, NULL, false, &runs, errp) < 0)
        return -1;
    rv = db_runs_get (runs, &n);
    if (n && predictor_signatures_from_runs (p, rv, n, errp) < 0) {
        db_runs_free (runs);
        return -1;
    }
    db_runs_free (runs);
    for (size_t a = 0; a < predictor_narchs (p); a++)
        if (load_arch_pairs (db, p, predictor_arch_name (p, a), &pairs, errp) < 0)
            return ms_err_prefix (errp, "architecture %s",
                                  predictor_arch_name (p, a));
    if (npairs)
        *npairs = pairs;
    return 0;
}

/* ---- speedup models (db.h) ---- */

typedef struct {
    int *nodes;
    double *t;
    size_t n, cap;
    int distinct;
} srun_t;

static void
speedup_group_done (srun_t *g, const char *app, const char *cl,
                    const char *part, db_speedup_t **out, size_t *n,
                    size_t *cap, const char **best_app, srun_t *best,
                    char *best_cl, char *best_part)
{
    (void)out, (void)n, (void)cap, (void)app;
    if (g->distinct >= 2
        && (!*best_app || g->distinct > best->distinct
            || (g->distinct == best->distinct && g->n > best->n))) {
        *best_app = app;
        free (best->nodes);
        free (best->t);
        *best = *g;
        ms_strlcpy (best_cl, cl, 64);
        ms_strlcpy (best_part, part, 64);
        memset (g, 0, sizeof (*g)); /* best holds its arrays now */
    }
    free (g->nodes);
    free (g->t);
    memset (g, 0, sizeof (*g));
}

int
db_speedup_load (db_t *db, db_speedup_t **outp, size_t *np, ms_error_t *errp)
{
    PGresult *res;
    db_speedup_t *out = NULL;
    size_t n = 0, cap = 0;
    srun_t g, best;
    const char *best_app = NULL;
    char best_cl[64] = "", best_part[64] = "";
    int rows;

    *outp = NULL;
    *np = 0;
    res = db_exec (db, "speedup_runs",
                   "SELECT app, cluster, partition, nodes, max (runtime_s)"
                   " FROM job_runs WHERE runtime_s > 0"
                   " GROUP BY app, cluster, partition, slurm_job_id, nodes"
                   " ORDER BY app, cluster, partition, nodes",
                   0, NULL, errp);
    if (!res)
        return -1;
    memset (&g, 0, sizeof (g));
    memset (&best, 0, sizeof (best));
    rows = PQntuples (res);
    for (int i = 0; i <= rows; i++) {
        bool new_group
            = i == rows || i == 0
              || strcmp (PQgetvalue (res, i, 0), PQgetvalue (res, i - 1, 0))
              || strcmp (PQgetvalue (res, i, 1), PQgetvalue (res, i - 1, 1))
              || strcmp (PQgetvalue (res, i, 2), PQgetvalue (res, i - 1, 2));
        bool new_app
            = i == rows || i == 0
              || strcmp (PQgetvalue (res, i, 0), PQgetvalue (res, i - 1, 0));
        if (new_group && i > 0)
            speedup_group_done (&g, PQgetvalue (res, i - 1, 0),
                                PQgetvalue (res, i - 1, 1),
                                PQgetvalue (res, i - 1, 2), &out, &n, &cap,
                                &best_app, &best, best_cl, best_part);
        if (new_app && best_app) {
            ms_speedup_t sp;
            ms_error_t e;
            /* an app whose runs do not fit (bad runs) has no model: its
             * moldable jobs take their minimum */
            if (speedup_fit (best.nodes, best.t, best.n, &sp, &e) == 0) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 16;
                    out = ms_xrealloc (out, cap * sizeof (*out));
                }
                ms_strlcpy (out[n].app, best_app, sizeof (out[n].app));
                ms_strlcpy (out[n].cluster, best_cl, sizeof (out[n].cluster));
                ms_strlcpy (out[n].partition, best_part,
                            sizeof (out[n].partition));
                out[n++].sp = sp;
            }
            free (best.nodes);
            free (best.t);
            memset (&best, 0, sizeof (best));
            best_app = NULL;
        }
        if (i == rows)
            break;
        if (g.n == g.cap) {
            g.cap = g.cap ? 2 * g.cap : 16;
            g.nodes = ms_xrealloc (g.nodes, g.cap * sizeof (int));
            g.t = ms_xrealloc (g.t, g.cap * sizeof (double));
        }
        g.nodes[g.n] = atoi (PQgetvalue (res, i, 3));
        g.t[g.n] = atof (PQgetvalue (res, i, 4));
        if (g.n == 0 || g.nodes[g.n] != g.nodes[g.n - 1])
            g.distinct++;
        g.n++;
    }
    PQclear (res);
    *outp = out;
    *np = n;
    return 0;
}
