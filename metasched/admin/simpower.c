/* simpower.c - `metasched simulate`'s power budgets (--power-budget SPEC
 * or @FILE, core/power.h) and its power table: each row's peak and mean
 * power, the time over a budget and the starts into a draw over one, the
 * jobs held for power, beside its response and energy; the draw over
 * time in OUT/power-LABEL.csv (sim/powertrace.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/admin/simpower.h"
#include "metasched/common/util.h"

#define SPEC_MAX (1 << 20)

int
simpower_budgets (const opts_t *o, const ms_siteconf_t *conf, ms_budgets_t *bs,
                  ms_error_t *errp)
{
    const char *spec = o->power_budget;
    char *text = NULL;
    size_t len;
    int rc;

    memset (bs, 0, sizeof (*bs));
    if (!spec)
        return 0;
    if (spec[0] == '@') {
        if (ms_read_file (spec + 1, SPEC_MAX, &text, &len, errp) < 0)
            return ms_err_prefix (errp, "--power-budget");
        if (strlen (text) != len) {
            free (text);
            return ms_err (errp, MS_ERR_INPUT,
                           "--power-budget: %s: a NUL "
                           "byte in the file",
                           spec + 1);
        }
        rc = power_budgets_parse (text, spec + 1, conf, 0, bs, errp);
        free (text);
    } else
        rc = power_budgets_parse (spec, "--power-budget", conf, 0, bs, errp);
    if (rc == 0 && !bs->n)
        return ms_err (errp, MS_ERR_INPUT,
                       "--power-budget: no budget in "
                       "'%s'",
                       spec);
    return rc;
}

int
simpower_add (const opts_t *o, const ms_siteconf_t *conf,
              const ms_budgets_t *bs, const ms_summary_t *row,
              const ms_jobrec_t *recs, size_t n, simpower_row_t *out,
              ms_error_t *errp)
{
    ms_powertrace_t *pt = powertrace_build (conf, recs, n, bs);
    char path[4096];
    int rc;

    out->sum = *row;
    powertrace_summary (pt, &out->p);
    snprintf (path, sizeof (path), "%s/power-%s.csv", o->outdir, row->label);
    rc = powertrace_csv (pt, path, errp);
    powertrace_free (pt);
    return rc;
}

void
simpower_print (FILE *f, const simpower_row_t *rows, size_t n,
                const char *budgets)
{
    fprintf (f, "\npower%s%s:\n", budgets ? " under " : " (no budget)",
             budgets ? budgets : "");
    fprintf (f, "%-26s %8s %8s %9s %9s %9s %10s %9s %6s %6s %6s\n", "policy",
             "wait_h", "resp_h", "jobE_GJ", "peak_kW", "mean_kW", "budget_kW",
             "over_s", "overst", "held", "never");
    for (size_t i = 0; i < n; i++) {
        const simpower_row_t *r = &rows[i];
        char b[32];
        if (isfinite (r->p.budget_w))
            snprintf (b, sizeof (b), "%.1f", r->p.budget_w / 1e3);
        else
            snprintf (b, sizeof (b), "-");
        fprintf (f,
                 "%-26s %8.3f %8.3f %9.3f %9.1f %9.1f %10s %9.0f %6zu %6zu "
                 "%6zu\n",
                 r->sum.label, r->sum.mean_wait / 3600,
                 r->sum.mean_response / 3600, r->sum.job_energy_j / 1e9,
                 r->p.peak_w / 1e3, r->p.mean_w / 1e3, b, r->p.over_s,
                 r->p.starts_over, r->sum.power_holds, r->sum.power_held);
    }
    fprintf (f, "peak/mean: the site's draw (idle nodes included); "
                "budget: the site's at the peak; over_s: time a draw was "
                "over its budget; overst: starts into a draw over a budget; "
                "held: jobs held for power; never: held jobs no budget let "
                "start\n");
}

int
simpower_csv (const char *dir, const simpower_row_t *rows, size_t n,
              ms_error_t *errp)
{
    char path[4096];
    FILE *f;

    snprintf (path, sizeof (path), "%s/power-summary.csv", dir);
    if (!(f = fopen (path, "w")))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: cannot write", path);
    fprintf (f, "policy,jobs,mean_wait_s,mean_response_s,job_energy_j,"
                "peak_w,mean_w,site_budget_at_peak_w,over_budget_s,"
                "over_budget_j,starts_over_budget,held,never_started\n");
    for (size_t i = 0; i < n; i++) {
        const simpower_row_t *r = &rows[i];
        fprintf (f, "%s,%zu,%.3f,%.3f,%.6e,%.1f,%.1f,", r->sum.label,
                 r->sum.njobs, r->sum.mean_wait, r->sum.mean_response,
                 r->sum.job_energy_j, r->p.peak_w, r->p.mean_w);
        if (isfinite (r->p.budget_w))
            fprintf (f, "%.1f", r->p.budget_w);
        fprintf (f, ",%.3f,%.6e,%zu,%zu,%zu\n", r->p.over_s, r->p.over_j,
                 r->p.starts_over, r->sum.power_holds, r->sum.power_held);
    }
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: cannot write", path);
    return 0;
}
