/* simoutage.c - `metasched simulate`'s cluster outages (--outage
 * CLUSTER@START+DURATION,..., sim/outage.h) and its outage table: each
 * row's wait, response and job energy beside the jobs that went elsewhere
 * than their first choice on a cluster down (moved), those held until a
 * cluster of theirs was up again (held) and those re-routed. */
#include "config.h"

#include <stdio.h>

#include "metasched/admin/simoutage.h"

int
simoutage_parse (const opts_t *o, const ms_siteconf_t *conf, ms_outages_t *os,
                 ms_error_t *errp)
{
    if (!o->outage) {
        os->o = NULL;
        os->n = 0;
        return 0;
    }
    return outage_parse (o->outage, "--outage", conf, os, errp);
}

void
simoutage_print (FILE *f, const ms_siteconf_t *conf, const ms_outages_t *os,
                 const ms_summary_t *rows, size_t n)
{
    fprintf (f, "\noutages:");
    for (size_t i = 0; i < os->n; i++)
        fprintf (f, "%s %s down from %.0f s for %.0f s", i ? ";" : "",
                 conf->clusters[os->o[i].cluster].name, os->o[i].start_s,
                 os->o[i].dur_s);
    fprintf (f, " (after the first submit)\n");
    fprintf (f, "%-26s %8s %8s %9s %7s %7s %8s\n", "policy", "wait_h", "resp_h",
             "jobE_GJ", "moved", "held", "rerouted");
    for (size_t i = 0; i < n; i++)
        fprintf (f, "%-26s %8.3f %8.3f %9.3f %7zu %7zu %8zu\n", rows[i].label,
                 rows[i].mean_wait / 3600, rows[i].mean_response / 3600,
                 rows[i].job_energy_j / 1e9, rows[i].down_moved,
                 rows[i].down_held, rows[i].rerouted);
    fprintf (f, "moved: jobs whose first choice was on a cluster down that "
                "went elsewhere; held: jobs that waited for a cluster of "
                "theirs to be up again; rerouted: jobs re-routed while "
                "pending\n");
}

int
simoutage_csv (const char *dir, const ms_summary_t *rows, size_t n,
               ms_error_t *errp)
{
    char path[4096];
    FILE *f;

    snprintf (path, sizeof (path), "%s/outage-summary.csv", dir);
    if (!(f = fopen (path, "w")))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: cannot write", path);
    fprintf (f, "policy,jobs,mean_wait_s,mean_response_s,job_energy_j,moved,"
                "held,rerouted\n");
    for (size_t i = 0; i < n; i++)
        fprintf (f, "%s,%zu,%.3f,%.3f,%.6e,%zu,%zu,%zu\n", rows[i].label,
                 rows[i].njobs, rows[i].mean_wait, rows[i].mean_response,
                 rows[i].job_energy_j, rows[i].down_moved, rows[i].down_held,
                 rows[i].rerouted);
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: cannot write", path);
    return 0;
}
