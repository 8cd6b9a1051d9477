/* report_ab.c - `metasched report --ab` (report_ab.h).
 *
 * The jobs metaschedd decided while ab_share was above 0 carry their
 * group in jobs.ab_group (migration 0020): 'baseline' ones were routed by
 * ab_policy, 'metasched' ones by the policy. Only what the collectors
 * measured counts (job_run_totals, joined on the cluster job that ran):
 * its energy (package and DRAM), its runtime, and its wait from the meta
 * job's submission to the measured start. Predictions are never read.
 * The app is the one the collectors recorded, the key the predictor
 * learns by.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "metasched/admin/abstats.h"
#include "metasched/admin/report_ab.h"
#include "metasched/admin/reportout.h"
#include "metasched/common/util.h"

enum { M_ENERGY = 0, M_RUNTIME, M_WAIT, NMETRICS };
static const char *const metric_key[NMETRICS]
    = { "energy_j", "runtime_s", "wait_s" };
static const char *const metric_title[NMETRICS]
    = { "energy (J)", "runtime (s)", "wait (s)" };

typedef struct {
    char app[130];
    /* [metric][0 metasched, 1 baseline] */
    abstats_group_t g[NMETRICS][2];
    abstats_diff_t d[NMETRICS];
} abapp_t;

static double
value (const PGresult *r, int row, int col)
{
    return PQgetisnull (r, row, col) ? NAN : atof (PQgetvalue (r, row, col));
}

/* Rows [from, to) of one app into a. */
static void
app_stats (const PGresult *res, int from, int to, abapp_t *a)
{
    size_t n = (size_t)(to - from);
    double *x = ms_xcalloc (n + 1, sizeof (double));

    ms_strlcpy (a->app, PQgetvalue (res, from, 0), sizeof (a->app));
    for (int m = 0; m < NMETRICS; m++) {
        for (int grp = 0; grp < 2; grp++) {
            const char *name = grp ? "baseline" : "metasched";
            for (int i = from; i < to; i++)
                x[i - from] = strcmp (PQgetvalue (res, i, 1), name)
                                  ? NAN
                                  : value (res, i, 2 + m);
            abstats_group (x, n, &a->g[m][grp]);
        }
        abstats_welch (&a->g[m][0], &a->g[m][1], &a->d[m]);
    }
    free (x);
}

static void
text_interval (const char *what, const abstats_group_t *g)
{
    if (g->n == 0)
        printf ("  %-9s %5zu  %12s\n", what, g->n, "-");
    else if (g->n < 2)
        printf ("  %-9s %5zu  %12.6g\n", what, g->n, g->mean);
    else
        printf ("  %-9s %5zu  %12.6g  [%.6g, %.6g]\n", what, g->n, g->mean,
                g->lo, g->hi);
}

static void
print_text (const abapp_t *v, size_t n, const char *since, const char *until)
{
    printf ("A/B comparison, jobs measured to end in [%s, %s): metasched "
            "(the policy)\nagainst the baseline (ab_policy), measured values "
            "only; 95%% intervals\n(Welch's t); significant only with %d "
            "jobs or more in each group.\n",
            since, until, ABSTATS_MIN_JOBS);
    if (n == 0)
        printf ("\nno measured job of the comparison in the period\n");
    for (size_t i = 0; i < n; i++) {
        printf ("\napp %s\n", v[i].app);
        for (int m = 0; m < NMETRICS; m++) {
            const abstats_diff_t *d = &v[i].d[m];
            const abstats_group_t *b = &v[i].g[m][1];
            printf (" %s\n  %-9s %5s  %12s  %s\n", metric_title[m], "group",
                    "jobs", "mean", "95% interval");
            text_interval ("metasched", &v[i].g[m][0]);
            text_interval ("baseline", b);
            if (isnan (d->diff))
                printf ("  %-9s %5s  %12s  no jobs in a group: not yet "
                        "significant\n",
                        "diff", "", "-");
            else if (isnan (d->lo))
                printf ("  %-9s %5s  %12.6g  not yet significant\n", "diff", "",
                        d->diff);
            else
                printf ("  %-9s %5s  %12.6g  [%.6g, %.6g]  %s\n", "diff", "",
                        d->diff, d->lo, d->hi,
                        d->significant ? "significant" : "not yet significant");
            if (!isnan (d->diff) && b->n && b->mean != 0)
                printf ("  %-9s %5s  %11.1f%%  of the baseline's mean\n", "",
                        "", 100.0 * d->diff / b->mean);
        }
    }
}

static json_t *
jnum (double v)
{
    return isfinite (v) ? json_real (v) : json_null ();
}

static json_t *
json_grp (const abstats_group_t *g)
{
    return json_pack ("{s:I, s:o, s:o, s:o}", "jobs", (json_int_t)g->n, "mean",
                      jnum (g->mean), "lo", jnum (g->lo), "hi", jnum (g->hi));
}

static int
print_json (const abapp_t *v, size_t n, const char *since, const char *until)
{
    json_t *apps = json_array ();
    json_t *o = json_pack ("{s:s, s:s, s:i, s:s, s:o}", "since", since, "until",
                           until, "min_jobs", ABSTATS_MIN_JOBS, "interval",
                           "95% (Welch's t)", "apps", apps);

    for (size_t i = 0; i < n; i++) {
        json_t *a = json_pack ("{s:s}", "app", v[i].app);
        for (int m = 0; m < NMETRICS; m++) {
            const abstats_diff_t *d = &v[i].d[m];
            json_object_set_new (
                a, metric_key[m],
                json_pack ("{s:o, s:o, s:{s:o, s:o, s:o, s:o, s:b}}",
                           "metasched", json_grp (&v[i].g[m][0]), "baseline",
                           json_grp (&v[i].g[m][1]), "difference", "diff",
                           jnum (d->diff), "lo", jnum (d->lo), "hi",
                           jnum (d->hi), "df", jnum (d->df), "significant",
                           d->significant));
        }
        json_array_append_new (apps, a);
    }
    return report_print_json (o);
}

int
report_ab (db_t *db, time_t since, time_t until, const char *app, bool json,
           ms_error_t *errp)
{
    char s[32], u[32], ss[32], us[32];
    const char *param[3] = { s, u, app };
    PGresult *res;
    abapp_t *v;
    size_t n = 0;
    int rows, rc;

    snprintf (s, sizeof (s), "%lld", (long long)since);
    snprintf (u, sizeof (u), "%lld", (long long)until);
    res = db_exec (
        db, "report_ab",
        "SELECT t.app, j.ab_group,"
        " CASE WHEN t.pkg_energy_j IS NULL AND t.dram_energy_j IS NULL"
        "      THEN NULL ELSE coalesce (t.pkg_energy_j, 0)"
        "                     + coalesce (t.dram_energy_j, 0) END,"
        " t.runtime_s,"
        " greatest (0, extract (epoch FROM t.start_time - j.submitted_at))"
        " FROM jobs j JOIN job_run_totals t"
        "   ON t.cluster = j.cluster AND t.slurm_job_id = j.cluster_job_id"
        " WHERE j.ab_group IS NOT NULL"
        "   AND t.end_time >= to_timestamp ($1::double precision)"
        "   AND t.end_time < to_timestamp ($2::double precision)"
        "   AND ($3::text IS NULL OR t.app = $3::text)"
        " ORDER BY t.app",
        3, param, errp);
    if (!res)
        return ms_err_prefix (errp, "reading the A/B groups");
    rows = PQntuples (res);
    v = ms_xcalloc ((size_t)rows + 1, sizeof (*v));
    for (int i = 0; i < rows;) {
        int j = i;
        while (j < rows
               && !strcmp (PQgetvalue (res, j, 0), PQgetvalue (res, i, 0)))
            j++;
        app_stats (res, i, j, &v[n++]);
        i = j;
    }
    PQclear (res);
    report_time_text (since, ss, sizeof (ss));
    report_time_text (until, us, sizeof (us));
    rc = 0;
    if (json)
        rc = print_json (v, n, ss, us);
    else
        print_text (v, n, ss, us);
    free (v);
    if (rc < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "--json: out of memory");
    return 0;
}
