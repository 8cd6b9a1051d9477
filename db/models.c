/* models.c - what the predictor learns from and what it fitted: learning
 * runs out of job_runs, and model rows (coefficients, fit statistics, a
 * version per kind and scope) in and out of `models`. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "metasched/common/util.h"

struct db_runs {
    pred_run_t *runs;
    size_t n;
    char **strings;
    size_t nstrings;
};

int
db_runs_load (db_t *db, const char *app, bool include_user_reported,
              db_runs_t **runsp, ms_error_t *errp)
{
    const char *p[2] = { app, include_user_reported ? "true" : "false" };
    PGresult *res;
    db_runs_t *r;
    int n;

    /* Per-node power of a job: its nodes' energy over runtime and nodes.
     * GB/s from memory transactions of 64-byte lines where measured. */
    res = db_exec (
        db, "runs_load",
        "SELECT t.app, p.architecture,"
        " coalesce (t.freq_req_khz, p.nominal_khz), t.runtime_s,"
        " (coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0))"
        "   / nullif (t.runtime_s, 0) / t.nodes,"
        " coalesce (t.cpi, 0), coalesce (t.tpi, 0),"
        " coalesce ((SELECT sum (r.mem_transactions) * 64.0 / 1e9"
        "   / nullif (t.runtime_s, 0) FROM job_runs r"
        "   WHERE r.cluster = t.cluster AND r.slurm_job_id = t.slurm_job_id),"
        "   0), t.nodes"
        " FROM job_run_totals t JOIN partitions p"
        "   ON p.cluster = t.cluster AND p.name = t.partition"
        " WHERE ($1::text IS NULL OR t.app = $1)"
        "   AND coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0) > 0"
        "   AND t.runtime_s > 0"
        "   AND ($2::boolean OR t.source = 'root-measured')"
        " ORDER BY t.app, p.architecture, 3, t.end_time",
        2, p, errp);
    if (!res)
        return -1;
    n = PQntuples (res);
    r = ms_xcalloc (1, sizeof (*r));
    r->runs = ms_xcalloc ((size_t)n + 1, sizeof (*r->runs));
    r->strings = ms_xcalloc ((size_t)n * 2 + 1, sizeof (char *));
    for (int i = 0; i < n; i++) {
        pred_run_t *pr = &r->runs[r->n++];
        pr->app = r->strings[r->nstrings++] = ms_xstrdup (PQgetvalue (res, i, 0));
        pr->arch = r->strings[r->nstrings++] = ms_xstrdup (PQgetvalue (res, i, 1));
        pr->freq_khz = (uint32_t)strtoul (PQgetvalue (res, i, 2), NULL, 10);
        pr->runtime_s = atof (PQgetvalue (res, i, 3));
        pr->power_w = atof (PQgetvalue (res, i, 4));
        pr->cpi = atof (PQgetvalue (res, i, 5));
        pr->tpi = atof (PQgetvalue (res, i, 6));
        pr->gbs = atof (PQgetvalue (res, i, 7));
        pr->nodes = atof (PQgetvalue (res, i, 8));
    }
    PQclear (res);
    *runsp = r;
    return 0;
}

const pred_run_t *
db_runs_get (const db_runs_t *r, size_t *n)
{
    *n = r->n;
    return r->runs;
}

void
db_runs_free (db_runs_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nstrings; i++)
        free (r->strings[i]);
    free (r->strings);
    free (r->runs);
    free (r);
}

/* {c0,c1,...} with full precision; numbers only. */
static char *
coef_array (const db_model_t *m)
{
    size_t cap = m->ncoef * 32 + 4, off = 0;
    char *s = ms_xmalloc (cap);

    off += (size_t)snprintf (s, cap, "{");
    for (size_t i = 0; i < m->ncoef; i++)
        off += (size_t)snprintf (s + off, cap - off, "%s%.17g", i ? "," : "",
                                 m->coef[i]);
    snprintf (s + off, cap - off, "}");
    return s;
}

int
db_model_store (db_t *db, db_model_t *m, ms_error_t *errp)
{
    char r2[32], sd[32], n[16], *coef;
    const char *p[7];
    PGresult *res;

    if (m->ncoef == 0 || m->ncoef > sizeof (m->coef) / sizeof (m->coef[0]))
        return ms_err (errp, MS_ERR_INPUT, "model %s/%s: %zu coefficients",
                       m->kind, m->scope, m->ncoef);
    for (size_t i = 0; i < m->ncoef; i++)
        if (!isfinite (m->coef[i]))
            return ms_err (errp, MS_ERR_INPUT,
                           "model %s/%s: coefficient %zu is not finite",
                           m->kind, m->scope, i);
    coef = coef_array (m);
    snprintf (r2, sizeof (r2), "%.17g", m->r2);
    snprintf (sd, sizeof (sd), "%.17g", m->residual_sd);
    snprintf (n, sizeof (n), "%d", m->n);
    p[0] = m->kind;
    p[1] = m->scope;
    p[2] = coef;
    p[3] = isfinite (m->r2) ? r2 : NULL;
    p[4] = isfinite (m->residual_sd) ? sd : NULL;
    p[5] = n;
    p[6] = m->detail_json[0] ? m->detail_json : "{}";
    /* the next version of this (kind, scope); a concurrent store of the
     * same scope fails on the unique key rather than sharing a version */
    res = db_exec (db, "model_store",
                   "INSERT INTO models (kind, scope, version, coefficients,"
                   " r2, residual_sd, n, detail)"
                   " SELECT $1, $2, coalesce (max (version), 0) + 1,"
                   " $3::double precision[], $4::double precision,"
                   " $5::double precision, $6::integer, $7::jsonb"
                   " FROM models WHERE kind = $1 AND scope = $2"
                   " RETURNING version",
                   7, p, errp);
    free (coef);
    if (!res)
        return ms_err_prefix (errp, "model %s/%s", m->kind, m->scope);
    m->version = atoi (PQgetvalue (res, 0, 0));
    PQclear (res);
    return 0;
}

int
db_model_load (db_t *db, const char *kind, const char *scope, int version,
               db_model_t *m, ms_error_t *errp)
{
    char v[16];
    const char *p[3] = { kind, scope, v };
    PGresult *res;
    int ncoef;

    snprintf (v, sizeof (v), "%d", version);
    res = db_exec (db, "model_load",
                   "SELECT version, coefficients, r2, residual_sd, n,"
                   " detail::text, cardinality (coefficients) FROM models"
                   " WHERE kind = $1 AND scope = $2"
                   " AND ($3::integer = 0 OR version = $3::integer)"
                   " ORDER BY version DESC LIMIT 1",
                   3, p, errp);
    if (!res)
        return -1;
    if (PQntuples (res) == 0) {
        PQclear (res);
        return ms_err (errp, MS_ERR_MISSING, "no model %s/%s%s%s", kind, scope,
                       version ? " version " : "", version ? v : "");
    }
    memset (m, 0, sizeof (*m));
    ms_strlcpy (m->kind, kind, sizeof (m->kind));
    ms_strlcpy (m->scope, scope, sizeof (m->scope));
    m->version = atoi (PQgetvalue (res, 0, 0));
    ncoef = atoi (PQgetvalue (res, 0, 6));
    {
        /* "{1.5,2,-3e-05}": numbers written by the server */
        const char *s = PQgetvalue (res, 0, 1);
        char *end;
        if (*s == '{')
            s++;
        while (*s && *s != '}' && m->ncoef < sizeof (m->coef) / sizeof (m->coef[0])
               && (int)m->ncoef < ncoef) {
            m->coef[m->ncoef++] = strtod (s, &end);
            if (end == s)
                break;
            s = *end == ',' ? end + 1 : end;
        }
    }
    m->r2 = PQgetisnull (res, 0, 2) ? NAN : atof (PQgetvalue (res, 0, 2));
    m->residual_sd = PQgetisnull (res, 0, 3) ? NAN : atof (PQgetvalue (res, 0, 3));
    m->n = atoi (PQgetvalue (res, 0, 4));
    ms_strlcpy (m->detail_json, PQgetvalue (res, 0, 5), sizeof (m->detail_json));
    PQclear (res);
    return 0;
}
