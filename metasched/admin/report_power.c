/* report_power.c - `metasched report --power` (report_power.h).
 *
 * metaschedd writes a row per cluster and for the site ("site") into
 * power_history (migration 0022) at most once a minute while budgets are
 * in force: the budget, the predicted and the measured power then. A row
 * stands for the time until the next row of its scope, at most twice the
 * writing interval (a daemon stopped leaves a gap, not a long stretch
 * above budget). The report role (the admins' reading role) may read
 * the table; the collectors' role may not.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "metasched/admin/report_power.h"
#include "metasched/admin/reportout.h"
#include "metasched/common/util.h"

/* The longest a row stands for: twice the daemon's interval (60 s). */
#define ROW_SPAN_MAX_S 120

enum {
    C_SCOPE = 0,
    C_T,
    C_ROWS,
    C_BMEAN,
    C_BMAX,
    C_PMEAN,
    C_PMAX,
    C_MMEAN,
    C_MMAX,
    C_PABOVE,
    C_MABOVE,
    NCOLS
};

int
report_power_step (const char *text, long *stepp, ms_error_t *errp)
{
    char *end;
    long v, mul = 1;

    errno = 0;
    if (!text || !isdigit ((unsigned char)text[0]))
        goto bad;
    v = strtol (text, &end, 10);
    if (errno || end == text)
        goto bad;
    if (*end && (!(mul = ms_unit_seconds (*end)) || end[1]))
        goto bad;
    if (v < 1 || v > 31L * 86400 / mul)
        goto bad;
    *stepp = v * mul;
    return 0;
bad:
    return ms_err (errp, MS_ERR_INPUT,
                   "--step: '%s' is not a step of 1s to 31d (N[smhd])",
                   text ? text : "");
}

static double
value (const PGresult *r, int row, int col)
{
    return PQgetisnull (r, row, col) ? NAN : atof (PQgetvalue (r, row, col));
}

static json_t *
jnum (double v)
{
    return isfinite (v) ? json_real (v) : json_null ();
}

static void
cell (double v)
{
    if (isfinite (v))
        printf (" %10.0f", v);
    else
        printf (" %10s", "-");
}

static void
print_text (const PGresult *res, const char *ss, const char *us, long step)
{
    int rows = PQntuples (res);
    const char *last = "";

    printf ("Power from %s to %s, step %ld s (W; above: seconds the power "
            "was above the budget)\n",
            ss, us, step);
    if (!rows)
        printf ("  no power history in the period\n");
    for (int i = 0; i < rows; i++) {
        char t[32];
        if (strcmp (last, PQgetvalue (res, i, C_SCOPE))) {
            last = PQgetvalue (res, i, C_SCOPE);
            printf ("\n%s\n  %-20s %10s %10s %10s %10s %10s %10s %8s %8s\n",
                    last, "from", "budget", "bud max", "predicted", "pred max",
                    "measured", "meas max", "above p", "above m");
        }
        report_time_text ((time_t)value (res, i, C_T), t, sizeof (t));
        printf ("  %-20s", t);
        for (int c = C_BMEAN; c <= C_MMAX; c++)
            cell (value (res, i, c));
        printf (" %8.0f %8.0f\n", value (res, i, C_PABOVE),
                value (res, i, C_MABOVE));
    }
}

static int
print_json (const PGresult *res, const char *ss, const char *us, long step)
{
    static const char *const key[NCOLS] = { "scope",
                                            "from",
                                            "rows",
                                            "budget_w_mean",
                                            "budget_w_max",
                                            "predicted_w_mean",
                                            "predicted_w_max",
                                            "measured_w_mean",
                                            "measured_w_max",
                                            "predicted_above_budget_s",
                                            "measured_above_budget_s" };
    json_t *o = json_object (), *a = json_array ();
    int rows = PQntuples (res);

    json_object_set_new (o, "since", json_string (ss));
    json_object_set_new (o, "until", json_string (us));
    json_object_set_new (o, "step_s", json_integer (step));
    for (int i = 0; i < rows; i++) {
        json_t *r = json_object ();
        char t[32];
        json_object_set_new (r, key[C_SCOPE],
                             json_string (PQgetvalue (res, i, C_SCOPE)));
        report_time_text ((time_t)value (res, i, C_T), t, sizeof (t));
        json_object_set_new (r, key[C_T], json_string (t));
        json_object_set_new (r, key[C_ROWS],
                             json_integer (atol (PQgetvalue (res, i, C_ROWS))));
        for (int c = C_BMEAN; c < NCOLS; c++)
            json_object_set_new (r, key[c], jnum (value (res, i, c)));
        json_array_append_new (a, r);
    }
    json_object_set_new (o, "power", a);
    return report_print_json (o);
}

int
report_power (db_t *db, time_t since, time_t until, long step,
              const char *scope, bool json, ms_error_t *errp)
{
    char s[32], u[32], st[32], span[16], ss[32], us[32];
    const char *param[5] = { s, u, st, scope, span };
    PGresult *res;
    int rc = 0;

    snprintf (s, sizeof (s), "%lld", (long long)since);
    snprintf (u, sizeof (u), "%lld", (long long)until);
    snprintf (st, sizeof (st), "%ld", step);
    snprintf (span, sizeof (span), "%d", ROW_SPAN_MAX_S);
    res = db_exec (
        db, "report_power",
        "WITH h AS (SELECT scope, at, budget_w, predicted_w, measured_w,"
        "   least (coalesce (extract (epoch FROM lead (at) OVER"
        "     (PARTITION BY scope ORDER BY at) - at), $5::float8),"
        "     $5::float8) AS span_s"
        "  FROM power_history"
        "  WHERE at >= to_timestamp ($1::float8)"
        "    AND at < to_timestamp ($2::float8)"
        "    AND ($4::text IS NULL OR scope = $4::text))"
        " SELECT scope,"
        "  $1::bigint + floor ((extract (epoch FROM at) - $1::bigint)"
        "   / $3::bigint)::bigint * $3::bigint AS t,"
        "  count (*), avg (budget_w), max (budget_w),"
        "  avg (predicted_w), max (predicted_w),"
        "  avg (measured_w), max (measured_w),"
        "  coalesce (sum (span_s) FILTER (WHERE predicted_w > budget_w), 0),"
        "  coalesce (sum (span_s) FILTER (WHERE measured_w > budget_w), 0)"
        " FROM h GROUP BY 1, 2"
        " ORDER BY scope = 'site', scope, t",
        5, param, errp);
    if (!res)
        return ms_err_prefix (errp, "reading power_history");
    report_time_text (since, ss, sizeof (ss));
    report_time_text (until, us, sizeof (us));
    if (json)
        rc = print_json (res, ss, us, step);
    else
        print_text (res, ss, us, step);
    PQclear (res);
    if (rc < 0)
        return ms_err (errp, MS_ERR_SYSTEM, "--json: out of memory");
    return 0;
}

/* report's --power options: with neither --ab, --csv nor --plot; --step and
 * --cluster only with it. 0, or -1 after saying why. */
int
report_power_options (bool power, bool ab, bool csv, const char *plotdir,
                      const char *step_s, const char *cluster, long *stepp)
{
    ms_error_t e;

    if (!power && (step_s || cluster)) {
        fprintf (stderr, "metasched report: --%s goes with --power\n",
                 step_s ? "step" : "cluster");
        return -1;
    }
    if (power && (ab || csv || plotdir)) {
        fprintf (stderr, "metasched report: --power takes neither --ab, "
                         "--csv nor --plot\n");
        return -1;
    }
    if (step_s && report_power_step (step_s, stepp, &e) < 0) {
        fprintf (stderr, "metasched report: %s\n", e.text);
        return -1;
    }
    if (cluster && (!*cluster || strlen (cluster) > 64)) {
        fprintf (stderr, "metasched report: --cluster: a cluster's name has "
                         "1 to 64 characters\n");
        return -1;
    }
    return 0;
}
