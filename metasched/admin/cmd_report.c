/* cmd_report.c - `metasched report`: energy used and saved against the
 * nominal-frequency baseline per cluster, user and app, and the prediction
 * error of time and energy over time (doc/metasched-report.1).
 *
 * It reads PostgreSQL directly as the report role (SELECT only): the
 * measured jobs of job_run_totals, the partitions, the predictor's models,
 * and the meta jobs' predictions in jobs. Nothing is written.
 *
 * The baseline of a measured job that ran at frequency f on partition p
 * (architecture a, nominal frequency n) is its measured energy scaled by
 * the predictor's ratio of the app's energy at n to its energy at f on a:
 *
 *     baseline = E_measured * E^(app, a, n, nodes) / E^(app, a, f, nodes)
 *
 * so a job that ran at n (or at the partition's default) is its own
 * baseline and saves nothing, and a job at a lower clock is credited with
 * what the same job would have drawn at the nominal clock by the model the
 * scheduler decided with. The predictor's estimates are for the app's
 * signature run (predictor.h); the ratio carries them to this job's size.
 * Where the predictor can say nothing (an app never measured at the nominal
 * frequency there, no model), the job counts as its own baseline and is
 * reported as "without baseline".
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "db/db.h"
#include "metasched/admin/cmdopt.h"
#include "metasched/admin/commands.h"
#include "metasched/admin/report_ab.h"
#include "metasched/admin/report_power.h"
#include "metasched/admin/reportout.h"
#include "metasched/common/ini.h"
#include "metasched/sim/plot.h"
#include "metasched/common/util.h"
#include "predictor/predictor.h"

#define REPORT_DEFAULT_CONNINFO "dbname=metasched user=ms_report"
#define REPORT_DEFAULT_ROLE "ms_report"
#define REPORT_DEFAULT_DAYS 30
#define REPORT_DAEMON_CONF MS_SYSCONFDIR "/metasched/metaschedd.conf"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched report [OPTIONS]\n"
             "Energy used and saved against the nominal-frequency baseline "
             "per cluster,\nuser and app, and the prediction error of time "
             "and energy over time.\n\n"
             "  -d, --db CONNINFO       libpq connection string of the "
             "report role\n"
             "  -c, --config FILE       take the database from metaschedd's "
             "configuration\n"
             "                          (default %s when --db is not given)\n"
             "  -U, --user ROLE         role to connect as with --config "
             "(default %s)\n"
             "  -p, --password-file F   0600 file holding the password\n"
             "  -s, --since TIME        start of the period (default: %d days "
             "before --until)\n"
             "  -u, --until TIME        end of the period, exclusive "
             "(default: now)\n"
             "                          TIME: YYYY-MM-DD[THH:MM[:SS]][Z] "
             "(UTC), now, now-N[smhdw]\n"
             "  -b, --by day|hour       prediction error per day (default) or "
             "per hour\n"
             "      --json              one JSON object\n"
             "      --csv               two CSV tables (energy, prediction "
             "error)\n"
             "      --plot DIR          write gnuplot data and scripts to DIR "
             "and render\n"
             "                          PNG and SVG where gnuplot is "
             "installed\n"
             "      --ab                the A/B comparison instead: measured "
             "energy, runtime\n"
             "                          and wait of the baseline group "
             "against metasched's\n"
             "      --app NAME          with --ab: this app only\n"
             "      --power             power over time instead: budget, "
             "predicted and\n"
             "                          measured power per cluster and site "
             "(admin's role)\n"
             "      --step N[smhd]      with --power: one line per step "
             "(default 1h)\n"
             "      --cluster C         with --power: this cluster (or "
             "'site') only\n",
             REPORT_DAEMON_CONF, REPORT_DEFAULT_ROLE, REPORT_DEFAULT_DAYS);
}

/* ---- time ---- */

static int
days_from_civil (int y, int m, int d)
{
    /* days since 1970-01-01 of a proleptic Gregorian date */
    y -= m <= 2;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* YYYY-MM-DD[(T| )HH:MM[:SS]][Z] in UTC, now, now-N[smhdw]. */
static int
parse_time (const char *s, time_t now, time_t *tp)
{
    int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
    static const int mdays[]
        = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

    if (!strcmp (s, "now")) {
        *tp = now;
        return 0;
    }
    if (!strncmp (s, "now-", 4)) {
        char *end;
        long v, unit;
        errno = 0;
        v = strtol (s + 4, &end, 10);
        if (end == s + 4 || errno || v < 0 || v > 100L * 366 * 86400)
            return -1;
        switch (*end) {
        case 's':
            unit = 1;
            break;
        case 'm':
            unit = 60;
            break;
        case 'h':
            unit = 3600;
            break;
        case 'd':
            unit = 86400;
            break;
        case 'w':
            unit = 7 * 86400;
            break;
        default:
            return -1;
        }
        if (end[1] || v > 100L * 366 * 86400 / unit)
            return -1;
        *tp = now - (time_t)(v * unit);
        return 0;
    }
    if (sscanf (s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
        return -1;
    s += n;
    if (*s == 'T' || *s == ' ') {
        if (sscanf (s + 1, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5)
            return -1;
        s += 1 + n;
        if (*s == ':') {
            if (sscanf (s + 1, "%2d%n", &sec, &n) != 1 || n != 2)
                return -1;
            s += 1 + n;
        }
    }
    if (*s == 'Z')
        s++;
    if (*s || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1]
        || (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 || y % 400 == 0)))
        || h > 23 || mi > 59 || sec > 59 || h < 0 || mi < 0 || sec < 0)
        return -1;
    *tp = (time_t)days_from_civil (y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    return 0;
}

/* ---- groups (cluster, user, app): a small open-addressing table ---- */

typedef struct {
    char *name;
    long jobs;      /* measured jobs */
    long jobs_base; /* of which the predictor gave a baseline */
    double energy_j, baseline_j;
} rgroup_t;

typedef struct {
    const char *title; /* "cluster", "user", "app" */
    rgroup_t *v;
    size_t n, cap;
    size_t *slot; /* index + 1; 0: empty */
    size_t nslot;
} rgroups_t;

static uint64_t
hash_str (const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void
groups_rehash (rgroups_t *g, size_t nslot)
{
    free (g->slot);
    g->nslot = nslot;
    g->slot = ms_xcalloc (nslot, sizeof (*g->slot));
    for (size_t i = 0; i < g->n; i++) {
        size_t k = hash_str (g->v[i].name) & (nslot - 1);
        while (g->slot[k])
            k = (k + 1) & (nslot - 1);
        g->slot[k] = i + 1;
    }
}

static rgroup_t *
groups_get (rgroups_t *g, const char *name)
{
    size_t k;

    if (2 * (g->n + 1) > g->nslot)
        groups_rehash (g, g->nslot ? 2 * g->nslot : 64);
    k = hash_str (name) & (g->nslot - 1);
    while (g->slot[k]) {
        if (!strcmp (g->v[g->slot[k] - 1].name, name))
            return &g->v[g->slot[k] - 1];
        k = (k + 1) & (g->nslot - 1);
    }
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->v = ms_xrealloc (g->v, g->cap * sizeof (*g->v));
    }
    memset (&g->v[g->n], 0, sizeof (g->v[g->n]));
    g->v[g->n].name = ms_xstrdup (name);
    g->slot[k] = ++g->n;
    return &g->v[g->n - 1];
}

static int
group_cmp (const void *a, const void *b)
{
    return strcmp (((const rgroup_t *)a)->name, ((const rgroup_t *)b)->name);
}

/* Sort by name once filled (the slots are dropped: no lookups after). */
static void
groups_sort (rgroups_t *g)
{
    free (g->slot);
    g->slot = NULL;
    g->nslot = 0;
    if (g->n)
        qsort (g->v, g->n, sizeof (*g->v), group_cmp);
}

static void
groups_free (rgroups_t *g)
{
    for (size_t i = 0; i < g->n; i++)
        free (g->v[i].name);
    free (g->v);
    free (g->slot);
}

static void
group_add (rgroup_t *r, double e, double base, bool has_base)
{
    r->jobs++;
    r->jobs_base += has_base;
    r->energy_j += e;
    r->baseline_j += base;
}

/* ---- the report's data ---- */

typedef struct {
    char bucket[32]; /* start of the day or hour, UTC */
    long n_time, n_energy;
    double mape_time, bias_time;     /* %, NaN: no job */
    double mape_energy, bias_energy; /* %, NaN: no job */
} rerror_t;

typedef struct {
    time_t since, until;
    const char *by;
    rgroup_t total;
    long unmeasured; /* jobs in the period without any energy */
    rgroups_t clusters, users, apps;
    rerror_t *err;
    size_t nerr;
} report_t;

static double
num_or_nan (const PGresult *r, int row, int col)
{
    return PQgetisnull (r, row, col) ? NAN : atof (PQgetvalue (r, row, col));
}

/* The baseline of one measured job (see the top of this file): 0, or -1
 * when the predictor cannot say. */
static int
job_baseline (const predictor_t *p, const char *app, const char *arch,
              uint32_t f, uint32_t nominal, double nodes, double e_meas,
              double *basep)
{
    pred_estimate_t en, ef;

    if (f == 0 || f == nominal) {
        *basep = e_meas;
        return 0;
    }
    if (predictor_estimate (p, app, arch, nominal, nodes, &en, NULL) < 0
        || predictor_estimate (p, app, arch, f, nodes, &ef, NULL) < 0
        || !(en.energy_j > 0) || !(ef.energy_j > 0) || !isfinite (en.energy_j)
        || !isfinite (ef.energy_j))
        return -1;
    *basep = e_meas * en.energy_j / ef.energy_j;
    return 0;
}

static int
load_energy (db_t *db, report_t *rep, ms_error_t *errp)
{
    char since[32], until[32];
    const char *param[2] = { since, until };
    predictor_t *p = predictor_new ();
    PGresult *res;
    size_t npairs = 0;

    if (db_predictor_load (db, p, &npairs, errp) < 0) {
        predictor_free (p);
        if (errp->kind == MS_ERR_DB || errp->kind == MS_ERR_CONNECT)
            return ms_err_prefix (errp, "loading the predictor");
        /* models or runs the predictor refuses: report the energy anyway,
         * every job as its own baseline, and say why */
        fprintf (stderr,
                 "metasched report: warning: no predicted "
                 "baselines: %s\n",
                 errp->text);
        ms_err_clear (errp);
        p = predictor_new ();
    }
    snprintf (since, sizeof (since), "%lld", (long long)rep->since);
    snprintf (until, sizeof (until), "%lld", (long long)rep->until);
    res = db_exec (
        db, "report_energy",
        "SELECT t.cluster, t.user_name, t.app, p.architecture,"
        " coalesce (t.freq_req_khz, 0), p.nominal_khz, t.nodes,"
        " coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0),"
        " t.pkg_energy_j IS NOT NULL OR t.dram_energy_j IS NOT NULL"
        " FROM job_run_totals t JOIN partitions p"
        "   ON p.cluster = t.cluster AND p.name = t.partition"
        " WHERE t.end_time >= to_timestamp ($1::double precision)"
        "   AND t.end_time < to_timestamp ($2::double precision)"
        " ORDER BY t.cluster, t.slurm_job_id",
        2, param, errp);
    if (!res) {
        predictor_free (p);
        return -1;
    }
    for (int i = 0; i < PQntuples (res); i++) {
        const char *cluster = PQgetvalue (res, i, 0);
        const char *user = PQgetvalue (res, i, 1);
        const char *app = PQgetvalue (res, i, 2);
        const char *arch = PQgetvalue (res, i, 3);
        uint32_t f = (uint32_t)strtoul (PQgetvalue (res, i, 4), NULL, 10);
        uint32_t nom = (uint32_t)strtoul (PQgetvalue (res, i, 5), NULL, 10);
        double nodes = atof (PQgetvalue (res, i, 6));
        double e = atof (PQgetvalue (res, i, 7)), base;
        bool has_base;

        if (strcmp (PQgetvalue (res, i, 8), "t")) {
            rep->unmeasured++;
            continue;
        }
        has_base = job_baseline (p, app, arch, f, nom, nodes, e, &base) == 0;
        if (!has_base)
            base = e;
        group_add (&rep->total, e, base, has_base);
        group_add (groups_get (&rep->clusters, cluster), e, base, has_base);
        group_add (groups_get (&rep->users, user), e, base, has_base);
        group_add (groups_get (&rep->apps, app), e, base, has_base);
    }
    PQclear (res);
    predictor_free (p);
    groups_sort (&rep->clusters);
    groups_sort (&rep->users);
    groups_sort (&rep->apps);
    return 0;
}

static int
load_error (db_t *db, report_t *rep, ms_error_t *errp)
{
    char since[32], until[32];
    const char *param[3] = { since, until, rep->by };
    PGresult *res;

    snprintf (since, sizeof (since), "%lld", (long long)rep->since);
    snprintf (until, sizeof (until), "%lld", (long long)rep->until);
    /* MAPE = mean of |predicted - measured| / measured, in percent, over
     * the meta jobs with a prediction and a measurement, bucketed by the
     * measured end (UTC). */
    res = db_exec (
        db, "report_error",
        "SELECT to_char (date_trunc ($3, m.end_time AT TIME ZONE 'UTC'),"
        "                'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"
        " count (*) FILTER (WHERE m.pt IS NOT NULL AND m.mt > 0),"
        " 100 * avg (abs (m.pt - m.mt) / m.mt)"
        "   FILTER (WHERE m.pt IS NOT NULL AND m.mt > 0),"
        " 100 * avg ((m.pt - m.mt) / m.mt)"
        "   FILTER (WHERE m.pt IS NOT NULL AND m.mt > 0),"
        " count (*) FILTER (WHERE m.pe IS NOT NULL AND m.me > 0),"
        " 100 * avg (abs (m.pe - m.me) / m.me)"
        "   FILTER (WHERE m.pe IS NOT NULL AND m.me > 0),"
        " 100 * avg ((m.pe - m.me) / m.me)"
        "   FILTER (WHERE m.pe IS NOT NULL AND m.me > 0)"
        " FROM (SELECT t.end_time, j.predicted_time_s AS pt,"
        "              t.runtime_s AS mt, j.predicted_energy_j AS pe,"
        "              CASE WHEN t.pkg_energy_j IS NULL"
        "                    AND t.dram_energy_j IS NULL THEN NULL"
        "                   ELSE coalesce (t.pkg_energy_j, 0)"
        "                        + coalesce (t.dram_energy_j, 0) END AS me"
        "         FROM jobs j JOIN job_run_totals t"
        "           ON t.cluster = j.cluster"
        "          AND t.slurm_job_id = j.cluster_job_id"
        "        WHERE t.end_time >= to_timestamp ($1::double precision)"
        "          AND t.end_time < to_timestamp ($2::double precision)) m"
        " GROUP BY 1 ORDER BY 1",
        3, param, errp);
    if (!res)
        return -1;
    rep->nerr = (size_t)PQntuples (res);
    rep->err = ms_xcalloc (rep->nerr + 1, sizeof (*rep->err));
    for (size_t i = 0; i < rep->nerr; i++) {
        rerror_t *r = &rep->err[i];
        ms_strlcpy (r->bucket, PQgetvalue (res, (int)i, 0), sizeof (r->bucket));
        r->n_time = atol (PQgetvalue (res, (int)i, 1));
        r->mape_time = num_or_nan (res, (int)i, 2);
        r->bias_time = num_or_nan (res, (int)i, 3);
        r->n_energy = atol (PQgetvalue (res, (int)i, 4));
        r->mape_energy = num_or_nan (res, (int)i, 5);
        r->bias_energy = num_or_nan (res, (int)i, 6);
    }
    PQclear (res);
    return 0;
}

/* ---- output ---- */

static double
saved_pct (const rgroup_t *g)
{
    return g->baseline_j > 0
               ? 100 * (g->baseline_j - g->energy_j) / g->baseline_j
               : NAN;
}

static void
text_group_row (const char *name, const rgroup_t *g)
{
    double pct = saved_pct (g);
    printf ("%-20s %7ld %10ld %14.3f %14.3f %12.3f ", name, g->jobs,
            g->jobs_base, g->energy_j / 3.6e6, g->baseline_j / 3.6e6,
            (g->baseline_j - g->energy_j) / 3.6e6);
    if (isnan (pct))
        printf ("%8s\n", "-");
    else
        printf ("%8.2f\n", pct);
}

static void
text_groups (const rgroups_t *g)
{
    printf ("\n%-20s %7s %9s %14s %14s %12s %8s\n", g->title, "jobs",
            "w_baseline", "energy_kWh", "baseline_kWh", "saved_kWh", "saved_%");
    for (size_t i = 0; i < g->n; i++)
        text_group_row (g->v[i].name, &g->v[i]);
}

static void
text_pct (double v)
{
    if (isnan (v))
        printf (" %10s", "-");
    else
        printf (" %10.2f", v);
}

static void
print_text (const report_t *rep)
{
    char a[32], b[32];

    printf ("metasched report %s .. %s\n\n",
            report_time_text (rep->since, a, sizeof (a)),
            report_time_text (rep->until, b, sizeof (b)));
    printf ("Energy against the nominal-frequency baseline: %ld measured "
            "job%s, %ld with a\npredicted baseline, %ld without energy "
            "figures (not counted).\n",
            rep->total.jobs, rep->total.jobs == 1 ? "" : "s",
            rep->total.jobs_base, rep->unmeasured);
    text_groups (&rep->clusters);
    text_groups (&rep->users);
    text_groups (&rep->apps);
    printf ("\n");
    text_group_row ("total", &rep->total);

    printf ("\nPrediction error per %s (mean absolute percentage error of the "
            "meta jobs'\npredictions against their measured runs; bias: mean "
            "signed error):\n\n",
            rep->by);
    printf ("%-21s %7s %10s %10s %7s %10s %10s\n", rep->by, "jobs_t",
            "mape_t_%", "bias_t_%", "jobs_e", "mape_e_%", "bias_e_%");
    for (size_t i = 0; i < rep->nerr; i++) {
        const rerror_t *r = &rep->err[i];
        printf ("%-21s %7ld", r->bucket, r->n_time);
        text_pct (r->mape_time);
        text_pct (r->bias_time);
        printf (" %7ld", r->n_energy);
        text_pct (r->mape_energy);
        text_pct (r->bias_energy);
        printf ("\n");
    }
    if (!rep->nerr)
        printf ("(no meta job with a measured run in the period)\n");
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void
csv_str (const char *s)
{
    if (!strpbrk (s, ",\"\r\n")) {
        fputs (s, stdout);
        return;
    }
    putchar ('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar ('"');
        putchar (*s);
    }
    putchar ('"');
}

static void
csv_num (double v)
{
    if (isnan (v))
        printf (",");
    else
        printf (",%.6f", v);
}

static void
csv_group (const char *group, const char *name, const rgroup_t *g)
{
    printf ("%s,", group);
    csv_str (name);
    printf (",%ld,%ld", g->jobs, g->jobs_base);
    csv_num (g->energy_j);
    csv_num (g->baseline_j);
    csv_num (g->baseline_j - g->energy_j);
    csv_num (saved_pct (g));
    printf ("\n");
}

static void
print_csv (const report_t *rep)
{
    const rgroups_t *gs[] = { &rep->clusters, &rep->users, &rep->apps };

    printf ("group,name,jobs,jobs_baseline,energy_j,baseline_j,saved_j,"
            "saved_pct\n");
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < gs[k]->n; i++)
            csv_group (gs[k]->title, gs[k]->v[i].name, &gs[k]->v[i]);
    csv_group ("total", "total", &rep->total);
    printf ("\n%s,jobs_time,mape_time_pct,bias_time_pct,jobs_energy,"
            "mape_energy_pct,bias_energy_pct\n",
            rep->by);
    for (size_t i = 0; i < rep->nerr; i++) {
        const rerror_t *r = &rep->err[i];
        printf ("%s,%ld", r->bucket, r->n_time);
        csv_num (r->mape_time);
        csv_num (r->bias_time);
        printf (",%ld", r->n_energy);
        csv_num (r->mape_energy);
        csv_num (r->bias_energy);
        printf ("\n");
    }
}

static json_t *
json_num (double v)
{
    return isnan (v) ? json_null () : json_real (v);
}

static json_t *
json_group (const rgroup_t *g, const char *name)
{
    json_t *o = json_object ();
    if (name)
        json_object_set_new (o, "name", json_string (name));
    json_object_set_new (o, "jobs", json_integer (g->jobs));
    json_object_set_new (o, "jobs_baseline", json_integer (g->jobs_base));
    json_object_set_new (o, "energy_j", json_real (g->energy_j));
    json_object_set_new (o, "baseline_j", json_real (g->baseline_j));
    json_object_set_new (o, "saved_j", json_real (g->baseline_j - g->energy_j));
    json_object_set_new (o, "saved_pct", json_num (saved_pct (g)));
    return o;
}

static int
print_json (const report_t *rep)
{
    const rgroups_t *gs[] = { &rep->clusters, &rep->users, &rep->apps };
    const char *keys[] = { "clusters", "users", "apps" };
    json_t *o = json_object (), *err = json_array ();
    char a[32];

    json_object_set_new (
        o, "since", json_string (report_time_text (rep->since, a, sizeof (a))));
    json_object_set_new (
        o, "until", json_string (report_time_text (rep->until, a, sizeof (a))));
    json_object_set_new (o, "baseline",
                         json_string ("measured energy * predicted E(nominal) "
                                      "/ predicted E(f), same partition"));
    json_object_set_new (o, "total", json_group (&rep->total, NULL));
    json_object_set_new (o, "jobs_without_energy",
                         json_integer (rep->unmeasured));
    for (size_t k = 0; k < 3; k++) {
        json_t *arr = json_array ();
        for (size_t i = 0; i < gs[k]->n; i++)
            json_array_append_new (arr,
                                   json_group (&gs[k]->v[i], gs[k]->v[i].name));
        json_object_set_new (o, keys[k], arr);
    }
    for (size_t i = 0; i < rep->nerr; i++) {
        const rerror_t *r = &rep->err[i];
        json_t *e = json_object ();
        json_object_set_new (e, "start", json_string (r->bucket));
        json_object_set_new (e, "jobs_time", json_integer (r->n_time));
        json_object_set_new (e, "mape_time_pct", json_num (r->mape_time));
        json_object_set_new (e, "bias_time_pct", json_num (r->bias_time));
        json_object_set_new (e, "jobs_energy", json_integer (r->n_energy));
        json_object_set_new (e, "mape_energy_pct", json_num (r->mape_energy));
        json_object_set_new (e, "bias_energy_pct", json_num (r->bias_energy));
        json_array_append_new (err, e);
    }
    json_object_set_new (o, "prediction_error_by", json_string (rep->by));
    json_object_set_new (o, "prediction_error", err);
    return report_print_json (o);
}

/* ---- plots ---- */

/* The label of a name in a gnuplot data file: double quotes, no quote or
 * backslash inside (names come from the database). */
static void
dat_label (FILE *f, const char *s)
{
    fputc ('"', f);
    for (; *s; s++)
        fputc (*s == '"' || *s == '\\' || (unsigned char)*s < 32 ? '_' : *s, f);
    fputc ('"', f);
}

static void
dat_pct (FILE *f, double v)
{
    if (isnan (v))
        fprintf (f, " ?");
    else
        fprintf (f, " %.4f", v);
}

/* report-error.{dat,gp}: MAPE of time and energy over time;
 * report-energy.{dat,gp}: energy and baseline per cluster. Returns 0, 1
 * when gnuplot is missing, -1 on error; *rendered counts the images. */
static int
write_plots (const report_t *rep, const char *dir, int *rendered,
             ms_error_t *errp)
{
    FILE *f;
    int rc, missing = 0;

    *rendered = 0;
    if (mkdir (dir, 0755) < 0 && errno != EEXIST)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", dir, strerror (errno));

    if (!(f = plot_file_open (dir, "report-error.dat", errp)))
        return -1;
    fprintf (f, "# %s jobs_time mape_time_pct jobs_energy mape_energy_pct\n",
             rep->by);
    for (size_t i = 0; i < rep->nerr; i++) {
        fprintf (f, "%s %ld", rep->err[i].bucket, rep->err[i].n_time);
        dat_pct (f, rep->err[i].mape_time);
        fprintf (f, " %ld", rep->err[i].n_energy);
        dat_pct (f, rep->err[i].mape_energy);
        fputc ('\n', f);
    }
    if (plot_file_close (f, dir, "report-error.dat", errp) < 0)
        return -1;
    if (!(f = plot_file_open (dir, "report-error-plot.gp", errp)))
        return -1;
    fprintf (f,
             "set title 'metasched: prediction error per %s'\n"
             "set xdata time\nset timefmt '%%Y-%%m-%%dT%%H:%%M:%%SZ'\n"
             "set format x '%s'\nset xtics %d rotate by -30\n"
             "set datafile missing '?'\n"
             "set ylabel 'mean absolute percentage error (%%)'\n"
             "set yrange [0:*]\nset grid\nset key below horizontal\n"
             "set offsets graph 0.05, graph 0.05, 0, 0\nset rmargin 10\n"
             "plot 'report-error.dat' using 1:3 with linespoints pt 7 lw 2 "
             "title 'time', \\\n"
             "     '' using 1:5 with linespoints pt 5 lw 2 title 'energy'\n",
             rep->by, strcmp (rep->by, "hour") ? "%Y-%m-%d" : "%m-%d %H:00",
             /* whole buckets between tics, so no label repeats, and
              * at most about 12 of them */
             (strcmp (rep->by, "hour") ? 86400 : 3600)
                 * (int)(rep->nerr > 12 ? (rep->nerr + 11) / 12 : 1));
    if (plot_file_close (f, dir, "report-error-plot.gp", errp) < 0)
        return -1;

    /* the unit that keeps the figures readable: kWh, or Wh for a small
     * site or period */
    double top = 0, unit_j = 3.6e6;
    const char *unit = "kWh";
    for (size_t i = 0; i < rep->clusters.n; i++) {
        const rgroup_t *g = &rep->clusters.v[i];
        if (g->energy_j > top)
            top = g->energy_j;
        if (g->baseline_j > top)
            top = g->baseline_j;
    }
    if (top < 3.6e6) {
        unit_j = 3600;
        unit = "Wh";
    }
    if (!(f = plot_file_open (dir, "report-energy.dat", errp)))
        return -1;
    fprintf (f, "# cluster energy_%s baseline_%s saved_%s\n", unit, unit, unit);
    for (size_t i = 0; i < rep->clusters.n; i++) {
        const rgroup_t *g = &rep->clusters.v[i];
        dat_label (f, g->name);
        fprintf (f, " %.6f %.6f %.6f\n", g->energy_j / unit_j,
                 g->baseline_j / unit_j,
                 (g->baseline_j - g->energy_j) / unit_j);
    }
    if (plot_file_close (f, dir, "report-energy.dat", errp) < 0)
        return -1;
    if (!(f = plot_file_open (dir, "report-energy-plot.gp", errp)))
        return -1;
    fprintf (f,
             "set title 'metasched: energy per cluster against the "
             "nominal-frequency baseline'\n"
             "set style data histograms\nset style histogram clustered gap 1\n"
             "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
             "set ylabel 'energy (%s)'\nset yrange [0:*]\nset offsets 0, 0, "
             "graph 0.1, 0\nset grid ytics\nset key below horizontal\n"
             "plot 'report-energy.dat' using 3:xtic(1) title 'baseline "
             "(nominal frequency)', \\\n"
             "     '' using 2 title 'measured', \\\n"
             /* the saving above each cluster's pair of bars */
             "     '' using 0:($3 > $2 ? $3 : $2):($3 > 0 ? "
             "sprintf ('%%+.1f%%%% saved', 100 * $4 / $3) : '') "
             "with labels offset 0, 1 notitle\n",
             unit);
    if (plot_file_close (f, dir, "report-energy-plot.gp", errp) < 0)
        return -1;

    /* gnuplot refuses a plot with no point: render only what has data */
    if (rep->nerr) {
        if ((rc
             = plot_render (dir, "report-error", "report-error-plot.gp", errp))
            < 0)
            return -1;
        missing |= rc == 1;
        *rendered += rc == 0;
    }
    if (rep->clusters.n && !missing) {
        if ((rc = plot_render (dir, "report-energy", "report-energy-plot.gp",
                               errp))
            < 0)
            return -1;
        missing |= rc == 1;
        *rendered += rc == 0;
    }
    return missing;
}

/* ---- the connection ---- */

/* The `database` of the [daemon] section of metaschedd.conf (format:
 * metaschedd.conf(5)); *linep gets its line. Only that key is read here:
 * the daemon checks the rest. */
static int
daemon_conf_database (const char *path, char *out, size_t outlen, int *linep,
                      ms_error_t *errp)
{
    char *text, *key, *val;
    size_t len;
    int found = 0;
    bool in_daemon = false;
    ms_ini_t ini;
    ms_ini_event_t ev;

    if (ms_read_file (path, 1 << 20, &text, &len, errp) < 0)
        return -1;
    ms_ini_init (&ini, text, len, path);
    while ((ev = ms_ini_next (&ini, &key, &val, errp)) > MS_INI_END) {
        if (ev == MS_INI_SECTION)
            in_daemon = !strcmp (key, "daemon");
        else if (in_daemon && !strcmp (key, "database")) {
            ms_strlcpy (out, val, outlen);
            *linep = ini.line;
            found = 1;
        }
    }
    if (ev == MS_INI_ERROR) {
        free (text);
        return -1;
    }
    free (text);
    if (!found)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: no 'database' in the [daemon] "
                       "section",
                       path);
    return 0;
}

/* Append key='value' to a conninfo, quoting as libpq wants. */
static void
kv_append (char *out, size_t *off, const char *key, const char *v)
{
    *off += (size_t)sprintf (out + *off, "%s%s='", *off ? " " : "", key);
    for (; *v; v++) {
        if (*v == '\'' || *v == '\\')
            out[(*off)++] = '\\';
        out[(*off)++] = *v;
    }
    out[(*off)++] = '\'';
    out[*off] = '\0';
}

/* conninfo of the daemon's configuration with the user replaced by role
 * (libpq parses both key=value strings and URIs). */
static char *
conninfo_as (const char *conninfo, const char *role, ms_error_t *errp)
{
    PQconninfoOption *opts, *o;
    char *err = NULL, *out;
    size_t cap = 2 * strlen (role) + 16, off = 0;
    bool has_user = false;

    if (!(opts = PQconninfoParse (conninfo, &err))) {
        ms_err (errp, MS_ERR_INPUT, "database: %s",
                err ? ms_strtrim (err) : "cannot parse the connection string");
        PQfreemem (err);
        return NULL;
    }
    for (o = opts; o->keyword; o++)
        if (o->val)
            cap += strlen (o->keyword) + 2 * strlen (o->val) + 2 * strlen (role)
                   + 8;
    out = ms_xmalloc (cap);
    out[0] = '\0';
    for (o = opts; o->keyword; o++) {
        if (!o->val || !strcmp (o->keyword, "password"))
            continue;
        if (!strcmp (o->keyword, "user")) {
            has_user = true;
            kv_append (out, &off, "user", role);
        } else
            kv_append (out, &off, o->keyword, o->val);
    }
    if (!has_user)
        kv_append (out, &off, "user", role);
    PQconninfoFree (opts);
    return out;
}

/* What the command line asked for */
typedef struct {
    const char *conninfo, *config, *role, *password_file;
    const char *since_s, *until_s, *plotdir, *app, *step_s, *cluster;
    bool json, csv, ab, power;
    long step; /* --power's step in seconds */
} report_args_t;

/* The options into *a and rep->by. -1: go on; else the exit status. */
static int
report_getopt (int argc, char **argv, report_args_t *a, report_t *rep)
{
    enum {
        OPT_JSON = 256,
        OPT_CSV,
        OPT_PLOT,
        OPT_AB,
        OPT_APP,
        OPT_POWER,
        OPT_STEP,
        OPT_CLUSTER
    };
    static const struct option longopts[] = {
        { "db", required_argument, NULL, 'd' },
        { "config", required_argument, NULL, 'c' },
        { "user", required_argument, NULL, 'U' },
        { "password-file", required_argument, NULL, 'p' },
        { "since", required_argument, NULL, 's' },
        { "until", required_argument, NULL, 'u' },
        { "by", required_argument, NULL, 'b' },
        { "json", no_argument, NULL, OPT_JSON },
        { "csv", no_argument, NULL, OPT_CSV },
        { "plot", required_argument, NULL, OPT_PLOT },
        { "ab", no_argument, NULL, OPT_AB },
        { "app", required_argument, NULL, OPT_APP },
        { "power", no_argument, NULL, OPT_POWER },
        { "step", required_argument, NULL, OPT_STEP },
        { "cluster", required_argument, NULL, OPT_CLUSTER },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int opt;

    optind = 1;
    while ((opt = getopt_long (argc, argv, "d:c:U:p:s:u:b:h", longopts, NULL))
           != -1) {
        switch (opt) {
        case 'd':
            a->conninfo = optarg;
            break;
        case 'c':
            a->config = optarg;
            break;
        case 'U':
            a->role = optarg;
            break;
        case 'p':
            a->password_file = optarg;
            break;
        case 's':
            a->since_s = optarg;
            break;
        case 'u':
            a->until_s = optarg;
            break;
        case 'b':
            if (strcmp (optarg, "day") && strcmp (optarg, "hour")) {
                fprintf (stderr,
                         "metasched report: --by: 'day' or 'hour', "
                         "not '%s'\n",
                         optarg);
                return 2;
            }
            rep->by = !strcmp (optarg, "day") ? "day" : "hour";
            break;
        case OPT_JSON:
            a->json = true;
            break;
        case OPT_CSV:
            a->csv = true;
            break;
        case OPT_PLOT:
            a->plotdir = optarg;
            break;
        case OPT_AB:
            a->ab = true;
            break;
        case OPT_APP:
            a->app = optarg;
            break;
        case OPT_POWER:
            a->power = true;
            break;
        case OPT_STEP:
            a->step_s = optarg;
            break;
        case OPT_CLUSTER:
            a->cluster = optarg;
            break;
        case 'h':
        default:
            return cmdopt_usage (opt, usage);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "metasched report: unexpected argument '%s'\n",
                 argv[optind]);
        usage (stderr);
        return 2;
    }
    return -1;
}

/* The options that exclude each other, and the period into rep->since and
 * rep->until. -1: go on; else the exit status. */
static int
report_check (report_args_t *a, time_t now, report_t *rep)
{
    if (a->json && a->csv) {
        fprintf (stderr, "metasched report: --json and --csv exclude each "
                         "other\n");
        return 2;
    }
    if ((a->app && !a->ab) || (a->ab && (a->csv || a->plotdir))) {
        fprintf (stderr, "metasched report: %s\n",
                 a->app ? "--app goes with --ab"
                        : "--ab takes neither --csv nor --plot");
        return 2;
    }
    if (report_power_options (a->power, a->ab, a->csv, a->plotdir, a->step_s,
                              a->cluster, &a->step)
        < 0)
        return 2;
    if (a->app && (!*a->app || strlen (a->app) > 128)) {
        fprintf (stderr, "metasched report: --app: an app's name has 1 to "
                         "128 characters\n");
        return 2;
    }
    if (a->conninfo && a->config) {
        fprintf (stderr, "metasched report: --db and --config exclude each "
                         "other\n");
        return 2;
    }
    rep->until = now;
    if (a->until_s && parse_time (a->until_s, now, &rep->until) < 0) {
        fprintf (stderr,
                 "metasched report: --until: '%s' is not a time "
                 "(YYYY-MM-DD[THH:MM[:SS]][Z], now, now-N[smhdw])\n",
                 a->until_s);
        return 2;
    }
    rep->since = rep->until - (time_t)REPORT_DEFAULT_DAYS * 86400;
    if (a->since_s && parse_time (a->since_s, now, &rep->since) < 0) {
        fprintf (stderr,
                 "metasched report: --since: '%s' is not a time "
                 "(YYYY-MM-DD[THH:MM[:SS]][Z], now, now-N[smhdw])\n",
                 a->since_s);
        return 2;
    }
    if (rep->since >= rep->until) {
        fprintf (stderr, "metasched report: --since must be before --until\n");
        return 2;
    }
    return -1;
}

/* The connection: --db; else the daemon's configuration (--config, or the
 * default one when it exists) as the report role; else the default
 * conninfo. 0 with *db open, or 1 (said on stderr). */
static int
report_connect (const report_args_t *a, db_t **db)
{
    const char *conninfo = a->conninfo, *config = a->config;
    char *built = NULL;
    db_opts_t o;
    ms_error_t e = { 0 };

    memset (&o, 0, sizeof (o));
    o.password_file = a->password_file;
    if (!conninfo) {
        struct stat st;
        if (!config && stat (REPORT_DAEMON_CONF, &st) == 0)
            config = REPORT_DAEMON_CONF;
        if (config) {
            char database[1024];
            int dbline = 0;
            if (daemon_conf_database (config, database, sizeof (database),
                                      &dbline, &e)
                < 0) {
                fprintf (stderr, "metasched report: %s\n", e.text);
                return 1;
            }
            if (!(built = conninfo_as (database, a->role, &e))) {
                fprintf (stderr, "metasched report: %s:%d: %s\n", config,
                         dbline, e.text);
                return 1;
            }
            conninfo = built;
        } else
            conninfo = REPORT_DEFAULT_CONNINFO;
    }
    o.conninfo = conninfo;
    o.application_name = "metasched report";
    o.retry_max_ms = 2000;
    if (db_open (&o, db, &e) < 0) {
        fprintf (stderr, "metasched report: %s\n", e.text);
        free (built);
        return 1;
    }
    free (built);
    return 0;
}

/* --plot DIR: the data, the scripts and (with gnuplot) the images. 0 or 1. */
static int
report_plots (report_t *rep, const char *plotdir)
{
    ms_error_t e = { 0 };
    int rendered = 0, prc = write_plots (rep, plotdir, &rendered, &e);

    if (prc < 0) {
        fprintf (stderr, "metasched report: --plot: %s\n", e.text);
        return 1;
    }
    if (prc == 1)
        fprintf (stderr,
                 "metasched report: gnuplot not found: the "
                 "data and scripts are in %s, no images\n",
                 plotdir);
    else if (rendered == 0)
        fprintf (stderr,
                 "metasched report: nothing to plot in the "
                 "period; the data and scripts are in %s\n",
                 plotdir);
    else
        fprintf (stderr, "metasched report: %d plot%s in %s\n", rendered,
                 rendered == 1 ? "" : "s", plotdir);
    return 0;
}

int
cmd_report (int argc, char **argv)
{
    report_args_t a;
    report_t rep;
    db_t *db;
    ms_error_t e = { 0 };
    time_t now = time (NULL);
    int rc = 0;

    memset (&a, 0, sizeof (a));
    a.role = REPORT_DEFAULT_ROLE;
    a.step = 3600;
    memset (&rep, 0, sizeof (rep));
    rep.by = "day";
    rep.clusters.title = "cluster";
    rep.users.title = "user";
    rep.apps.title = "app";
    if ((rc = report_getopt (argc, argv, &a, &rep)) >= 0
        || (rc = report_check (&a, now, &rep)) >= 0)
        return rc;
    if ((rc = report_connect (&a, &db)) != 0)
        return rc;
    if (a.power) {
        if (report_power (db, rep.since, rep.until, a.step, a.cluster, a.json,
                          &e)
            < 0) {
            fprintf (stderr, "metasched report: %s\n", e.text);
            rc = 1;
        }
    } else if (a.ab) {
        if (report_ab (db, rep.since, rep.until, a.app, a.json, &e) < 0) {
            fprintf (stderr, "metasched report: %s\n", e.text);
            rc = 1;
        }
    } else if (load_energy (db, &rep, &e) < 0
               || load_error (db, &rep, &e) < 0) {
        fprintf (stderr, "metasched report: %s\n", e.text);
        rc = 1;
    } else {
        if (a.json)
            rc = print_json (&rep) < 0 ? 1 : 0;
        else if (a.csv)
            print_csv (&rep);
        else
            print_text (&rep);
        if (a.plotdir && report_plots (&rep, a.plotdir))
            rc = 1;
    }
    db_close (db);
    groups_free (&rep.clusters);
    groups_free (&rep.users);
    groups_free (&rep.apps);
    free (rep.err);
    return rc;
}
