/* fit.c - the predictor fed from the database: architectures from
 * partitions, learning runs from job_runs, and the fitted EAR pairs back
 * into models with their statistics (DESIGN.md 4.1, 8). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/util.h"

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
    if (predictor_signatures_from_runs (p, rv, n, errp) < 0
        || predictor_fit (p, rv, n, mode, errp) < 0) {
        db_runs_free (runs);
        return -1;
    }
    db_runs_free (runs);
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
