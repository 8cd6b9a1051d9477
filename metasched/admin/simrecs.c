/* simrecs.c - what `metasched simulate` makes of one run's records
 * (simrecs.h): --jobs-csv's file of every job, and the static bound's
 * candidates, a row's totals on its terms and its table (--bound).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "metasched/admin/simrecs.h"
#include "metasched/common/util.h"
#include "metasched/core/hetplace.h"

/* A partition as cluster/partition; "" for none (a job that never ran). */
static void
part_name (const ms_siteconf_t *conf, size_t p, char *buf, size_t len)
{
    if (p >= conf->nparts)
        snprintf (buf, len, "%s", "");
    else
        snprintf (buf, len, "%s/%s",
                  conf->clusters[conf->parts[p].cluster].name,
                  conf->parts[p].name);
}

void
simrecs_het_places (const ms_siteconf_t *conf, const ms_wjob_t *j,
                    size_t part, char *buf, size_t len)
{
    size_t n = 0;
    char pn[160];

    buf[0] = '\0';
    for (size_t k = 0; k < j->ncomp && n < len; k++) {
        part_name (conf,
                   hetplace_component (conf, j->het_fits + k * conf->nparts,
                                       part),
                   pn, sizeof (pn));
        n += (size_t)snprintf (buf + n, len - n, "%s%s", k ? "+" : "", pn);
    }
}

bool
simrecs_het_same (const ms_siteconf_t *conf, const ms_wjob_t *j, size_t part)
{
    for (size_t k = 0; k < j->ncomp; k++)
        if (hetplace_component (conf, j->het_fits + k * conf->nparts, part)
            != j->het_ran[k])
            return false;
    return true;
}

/* --jobs-csv: every job of one run, in OUT/jobs-LABEL.csv. */
int
simrecs_jobs_csv (const char *dir, const char *label, const ms_siteconf_t *conf,
                  const ms_predtab_t *tab, const ms_workload_t *wl,
                  const ms_jobrec_t *recs, ms_error_t *errp)
{
    char path[MS_PATH_MAX + 64], pn[160], on[160], hp[1024];
    FILE *f;

    snprintf (path, sizeof (path), "%s/jobs-%s.csv", dir, label);
    if (!(f = fopen (path, "w")))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    fprintf (f, "job,user,app,nodes,submit_s,start_s,end_s,wait_s,"
                "response_s,partition,optimal_partition,f_khz,energy_j,"
                "killed,rejected,components\n");
    for (size_t k = 0; k < wl->njobs; k++) {
        const ms_wjob_t *j = &wl->jobs[k];
        const ms_jobrec_t *r = &recs[k];
        bool ran = r->part < conf->nparts;
        part_name (conf, r->part, pn, sizeof (pn));
        part_name (conf, r->opt_part, on, sizeof (on));
        fprintf (f, "%lld,%lld,%s,%d,%.3f,", (long long)j->trace_id,
                 (long long)j->user,
                 j->app >= 0 && (size_t)j->app < tab->napps ? tab->apps[j->app]
                                                            : "",
                 r->nodes, r->submit);
        if (ran)
            fprintf (f, "%.3f,%.3f,%.3f,%.3f,", r->start, r->end,
                     r->start - r->submit, r->end - r->submit);
        else
            fprintf (f, ",,,,");
        simrecs_het_places (conf, j, r->part, hp, sizeof (hp));
        fprintf (f, "%s,%s,%u,%.6e,%d,%d,%s\n", pn, on, r->f_khz, r->energy_j,
                 r->killed, r->rejected, hp);
    }
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    return 0;
}

/* A job's candidates for the static bound: every partition that has its
 * nodes (and GPUs), at every frequency, for its true runtime at the home's
 * nominal frequency, with no queue: the truth's expected runtime and
 * energy there (simulate.c's truth without its noise). */
void
simrecs_bound_cands (const ms_siteconf_t *conf, const ms_predtab_t *tab,
                     const ms_wjob_t *j, size_t home, ms_cands_t *cs)
{
    cs->n = 0;
    if (j->app < 0 || (size_t)j->app >= tab->napps)
        return;
    candidates_build (tab, (size_t)j->app, home, j->nodes, j->runtime, NULL, 0,
                      cs);
    candidates_gpus (conf, j->nodes, j->gpus, cs);
    candidates_gpu_profile (tab, (size_t)j->app, j->gpus, cs);
}

/* One row's own totals on the bound's terms: each job's expected runtime
 * and energy where the row ran it. false when a job with candidates did
 * not run on one of them (rejected, or a node count the bound does not
 * know). */
bool
simrecs_bound_row (const ms_siteconf_t *conf, const ms_predtab_t *tab,
                   const ms_workload_t *wl, size_t home,
                   const ms_jobrec_t *recs, ms_cands_t *cs, double *tp,
                   double *ep)
{
    double t = 0, e = 0;

    for (size_t k = 0; k < wl->njobs; k++) {
        size_t i;
        simrecs_bound_cands (conf, tab, &wl->jobs[k], home, cs);
        if (!cs->n)
            continue;
        for (i = 0; i < cs->n; i++)
            if (cs->c[i].part == recs[k].part && cs->c[i].f_khz == recs[k].f_khz
                && recs[k].nodes == wl->jobs[k].nodes)
                break;
        if (i == cs->n)
            return false;
        t += cs->c[i].t;
        e += cs->c[i].e;
    }
    *tp = t;
    *ep = e;
    return true;
}

/* --bound: the table and OUT/bound.csv. */
int
simrecs_bound_report (const char *dir, const ms_bound_t *b,
                      const ms_summary_t *rows, size_t nrows,
                      const ms_summary_t *srows, size_t nsweep,
                      const double *rt, const double *re, const bool *rok,
                      bool print, ms_error_t *errp)
{
    char path[MS_PATH_MAX + 16];
    double n = (double)bound_njobs (b), tf, ef, tl, el;
    FILE *f;

    snprintf (path, sizeof (path), "%s/bound.csv", dir);
    if (!(f = fopen (path, "w")))
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    bound_ends (b, &tf, &ef, &tl, &el);
    fprintf (f, "policy,jobs,mean_runtime_s,job_energy_j,least_energy_j,"
                "least_mean_runtime_s\n");
    fprintf (f, "fastest,%.0f,%.3f,%.6e,,\n", n, tf / n, ef);
    fprintf (f, "leanest,%.0f,%.3f,%.6e,,\n", n, tl / n, el);
    if (print)
        printf ("\nstatic bound (%.0f jobs at their expected runtime and "
                "energy, no queue): every job at its fastest candidate "
                "%.1f s mean runtime, %.2f GJ; at its leanest %.1f s, "
                "%.2f GJ\n%-26s %12s %10s %13s %13s\n",
                n, tf / n, ef / 1e9, tl / n, el / 1e9, "policy", "runtime_s",
                "jobE_GJ", "leastE_at_T", "leastT_at_E");
    for (size_t i = 0; i < nrows + nsweep; i++) {
        const ms_summary_t *r = i < nrows ? &rows[i] : &srows[i - nrows];
        double le, lt;
        if (!rok[i]) {
            fprintf (f, "%s,,,,,\n", r->label);
            if (print)
                printf ("%-26s (a job did not run on one of the bound's "
                        "candidates: rejected, or on another node count)\n",
                        r->label);
            continue;
        }
        le = bound_least_energy (b, rt[i]);
        lt = bound_least_time (b, re[i]);
        fprintf (f, "%s,%.0f,%.3f,%.6e,%.6e,%.3f\n", r->label, n, rt[i] / n,
                 re[i], le, lt / n);
        if (print)
            printf ("%-26s %12.1f %10.2f %+12.2f%% %+12.2f%%\n", r->label,
                    rt[i] / n, re[i] / 1e9, 100 * (le / re[i] - 1),
                    100 * (lt / rt[i] - 1));
    }
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    if (print)
        printf ("leastE_at_T: the least job energy of any choice at the "
                "row's mean runtime, against the row's; leastT_at_E: the "
                "least mean runtime at its job energy. CSV: %s\n",
                path);
    return 0;
}
