/* simcarbon.c - the grid's signals in the simulator (see simcarbon.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/admin/simcarbon.h"
#include "metasched/common/util.h"

/* The next "A=B" item of a comma-separated list: *a, *b point into s
 * (modified); NULL at the end. */
static char *
next_pair (char *s, char **a, char **b)
{
    char *c, *eq;

    if (!s || !*s)
        return NULL;
    c = strchr (s, ',');
    if (c)
        *c++ = '\0';
    eq = strchr (s, '=');
    *a = s;
    *b = NULL;
    if (eq) {
        *eq = '\0';
        *b = eq + 1;
    }
    return c ? c : s + strlen (s);
}

/* --carbon-start: the run's time 0 at start, a step boundary of the
 * first zone inside its signal. */
static int
set_start (ms_carbon_t *cb, const char *start, ms_error_t *errp)
{
    const ms_csig_t *s = &cb->z[0];
    double t, k;

    if (!carbon_parse_time (start, &t))
        return ms_err (errp, MS_ERR_INPUT,
                       "--carbon-start: '%.64s' is not a time "
                       "(2022-07-01T00:00Z)",
                       start);
    k = (t - s->t0) / s->step;
    if (k < 0 || k >= (double)s->n)
        return ms_err (errp, MS_ERR_INPUT,
                       "--carbon-start: '%.64s' is outside zone %s's signal",
                       start, s->zone);
    if (k != floor (k))
        return ms_err (errp, MS_ERR_INPUT,
                       "--carbon-start: '%.64s' is not on a step of zone "
                       "%s's signal (%.0f s)",
                       start, s->zone, s->step);
    cb->epoch = t;
    return 0;
}

int
simcarbon_load (const char *spec, const char *zones, const char *start,
                const ms_siteconf_t *conf, ms_carbon_t *cb, ms_error_t *errp)
{
    char *s = ms_xstrdup (spec), *p = s, *a, *b;
    int rc = 0;

    carbon_init (cb);
    while (rc == 0 && (p = next_pair (p, &a, &b)))
        if (!b || !*a || !*b)
            rc = ms_err (errp, MS_ERR_INPUT,
                         "--carbon: '%.64s' is not ZONE=FILE", a);
        else if (carbon_read_csv (cb, a, b, errp) < 0)
            rc = ms_err_prefix (errp, "--carbon");
    free (s);
    if (rc == 0 && !cb->nz)
        rc = ms_err (errp, MS_ERR_INPUT, "--carbon: no ZONE=FILE given");
    if (rc == 0 && !zones)
        for (size_t i = 0; i < conf->nclusters && i < cb->nz && rc == 0; i++)
            rc = carbon_assign (cb, conf->clusters[i].name, cb->z[i].zone,
                                errp);
    if (rc == 0 && zones) {
        s = p = ms_xstrdup (zones);
        while (rc == 0 && (p = next_pair (p, &a, &b))) {
            bool known = false;
            for (size_t i = 0; i < conf->nclusters; i++)
                known |= !strcmp (conf->clusters[i].name, a);
            if (!b || !*b)
                rc = ms_err (errp, MS_ERR_INPUT,
                             "--carbon-zones: '%.64s' is not CLUSTER=ZONE", a);
            else if (!known)
                rc = ms_err (errp, MS_ERR_INPUT,
                             "--carbon-zones: no cluster '%.64s'", a);
            else if (carbon_assign (cb, a, b, errp) < 0)
                rc = ms_err_prefix (errp, "--carbon-zones");
        }
        free (s);
    }
    if (rc == 0 && start)
        rc = set_start (cb, start, errp);
    if (rc < 0)
        carbon_free (cb);
    return rc;
}

size_t
simcarbon_deadlines (ms_workload_t *wl, double share, double k, uint64_t seed)
{
    size_t n = 0;

    for (size_t i = 0; i < wl->njobs; i++) {
        ms_wjob_t *j = &wl->jobs[i];
        double u = (double)(ms_hash64 (seed * 0x9e3779b97f4a7c15ULL
                                       ^ j->id * 131 ^ 0xdeadULL)
                            >> 11)
                   / 9007199254740992.0;
        j->deadline = 0;
        if (u < share) {
            j->deadline
                = j->submit + k * (j->req_time > 0 ? j->req_time : j->runtime);
            n++;
        }
    }
    return n;
}

void
simcarbon_row (const ms_carbon_t *cb, const ms_siteconf_t *conf,
               const ms_workload_t *wl, const ms_jobrec_t *recs,
               simcarbon_row_t *row)
{
    double sg = 0, sr = 0;

    memset (row, 0, sizeof (*row));
    for (size_t k = 0; k < wl->njobs; k++) {
        const ms_jobrec_t *j = &recs[k];
        size_t z;
        double g, price;
        if (j->part == SIZE_MAX || j->ends != 1)
            continue;
        row->jobs++;
        if (wl->jobs[k].deadline > 0 && j->end > wl->jobs[k].deadline)
            row->late++;
        sr += j->end - j->submit;
        z = carbon_zone_of (cb,
                            conf->clusters[conf->parts[j->part].cluster].name);
        if (z == SIZE_MAX
            || !carbon_over (&cb->z[z], cb->stale_s, cb->epoch + j->start,
                             j->end - j->start, &g, &price)) {
            row->missing++;
            continue;
        }
        sg += j->energy_j / 3.6e6 * g;
    }
    row->mean_response = row->jobs ? sr / row->jobs : NAN;
    row->g_per_job
        = row->jobs > row->missing ? sg / (row->jobs - row->missing) : NAN;
}

void
simcarbon_print (FILE *f, const ms_carbon_t *cb, const char *const *labels,
                 const simcarbon_row_t *rows, size_t n)
{
    fprintf (f, "\ncarbon (");
    for (size_t i = 0; i < cb->ncl; i++)
        fprintf (f, "%s%s %s", i ? ", " : "", cb->cluster[i],
                 cb->z[cb->czone[i]].zone);
    fprintf (f, ")\n%-32s %14s %14s %10s %10s\n", "policy", "carbon g/job",
             "response s", "no signal", "late");
    for (size_t i = 0; i < n; i++)
        fprintf (f, "%-32s %14.1f %14.1f %10zu %10zu\n", labels[i],
                 rows[i].g_per_job, rows[i].mean_response, rows[i].missing,
                 rows[i].late);
}
