/* powertrace.c - the power a run drew over time (see powertrace.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/sim/powertrace.h"
#include "metasched/common/util.h"

/* A tolerance for sums of doubles in another order. */
#define SLACK_W 1e-6

typedef struct {
    double t;
    double w; /* above idle: + at a start, - at an end */
    size_t cluster;
} pev_t;

struct ms_powertrace {
    const ms_siteconf_t *conf;
    ms_budgets_t bs;
    size_t nscopes; /* clusters, then the site */
    size_t n;       /* samples */
    double *t;      /* [n] */
    double *w;      /* [n * nscopes]: the draw from t[k] to t[k + 1] */
    size_t starts_over;
};

static int
pev_cmp (const void *a, const void *b)
{
    const pev_t *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    /* ends first */
    return (x->w > 0) - (y->w > 0);
}

static size_t
scope_of (const ms_powertrace_t *pt, size_t s)
{
    return s == pt->nscopes - 1 ? MS_POWER_SITE : s;
}

/* After the events at one time: does a scope that a start touched draw
 * over its budget? */
static size_t
count_over (const ms_powertrace_t *pt, const double *draw, const pev_t *ev,
            size_t a, size_t b)
{
    size_t over = 0;
    for (size_t k = a; k < b; k++) {
        size_t c = ev[k].cluster;
        double bc, bsite;
        if (!(ev[k].w > 0))
            continue;
        bc = power_budget_at (&pt->bs, c, ev[k].t);
        bsite = power_budget_at (&pt->bs, MS_POWER_SITE, ev[k].t);
        if (draw[c] > bc + SLACK_W || draw[pt->nscopes - 1] > bsite + SLACK_W)
            over++;
    }
    return over;
}

ms_powertrace_t *
powertrace_build (const ms_siteconf_t *conf, const ms_jobrec_t *recs, size_t n,
                  const ms_budgets_t *bs)
{
    ms_powertrace_t *pt = ms_xcalloc (1, sizeof (*pt));
    pev_t *ev = ms_xcalloc (2 * n + 1, sizeof (*ev));
    double *draw, *idle;
    size_t ne = 0, ns;

    pt->conf = conf;
    pt->nscopes = ns = conf->nclusters + 1;
    if (bs && bs->n) {
        pt->bs.b = ms_xcalloc (bs->n, sizeof (*bs->b));
        memcpy (pt->bs.b, bs->b, bs->n * sizeof (*bs->b));
        pt->bs.n = bs->n;
    }
    draw = ms_xcalloc (ns, sizeof (double));
    idle = ms_xcalloc (ns, sizeof (double));
    for (size_t p = 0; p < conf->nparts; p++) {
        double w = conf->parts[p].nodes
                   * conf->archs[conf->parts[p].arch].idle_power_w;
        idle[conf->parts[p].cluster] += w;
        idle[ns - 1] += w;
    }
    for (size_t k = 0; k < n; k++) {
        const ms_jobrec_t *r = &recs[k];
        const ms_partconf_t *pc;
        double w;
        if (r->part >= conf->nparts || !(r->end > r->start) || r->nodes < 1)
            continue;
        pc = &conf->parts[r->part];
        w = r->energy_j / (r->end - r->start)
            - r->nodes * conf->archs[pc->arch].idle_power_w;
        ev[ne++] = (pev_t){ r->start, w > 0 ? w : 1e-300, pc->cluster };
        ev[ne++] = (pev_t){ r->end, w > 0 ? -w : -1e-300, pc->cluster };
    }
    qsort (ev, ne, sizeof (*ev), pev_cmp);
    pt->t = ms_xcalloc (ne + 1, sizeof (double));
    pt->w = ms_xcalloc ((ne + 1) * ns, sizeof (double));
    for (size_t a = 0; a < ne;) {
        size_t b = a;
        while (b < ne && ev[b].t == ev[a].t) {
            draw[ev[b].cluster] += ev[b].w;
            draw[ns - 1] += ev[b].w;
            b++;
        }
        pt->t[pt->n] = ev[a].t;
        for (size_t s = 0; s < ns; s++)
            pt->w[pt->n * ns + s] = idle[s] + (draw[s] > 0 ? draw[s] : 0);
        if (pt->bs.n) {
            double *abs = &pt->w[pt->n * ns];
            pt->starts_over += count_over (pt, abs, ev, a, b);
        }
        pt->n++;
        a = b;
    }
    free (ev);
    free (draw);
    free (idle);
    return pt;
}

void
powertrace_free (ms_powertrace_t *pt)
{
    if (!pt)
        return;
    power_budgets_free (&pt->bs);
    free (pt->t);
    free (pt->w);
    free (pt);
}

/* The time and energy that draw w over [a, b) spends above scope's
 * budgets (which may change inside). */
static void
over_budget (const ms_budgets_t *bs, size_t scope, double w, double a, double b,
             double *sp, double *jp)
{
    for (double t = a; t < b;) {
        double next = power_budget_next (bs, scope, t), lim;
        double end = next < b ? next : b;
        lim = power_budget_at (bs, scope, t);
        if (w > lim + SLACK_W) {
            *sp += end - t;
            *jp += (w - lim) * (end - t);
        }
        t = end;
    }
}

void
powertrace_summary (const ms_powertrace_t *pt, ms_powersum_t *out)
{
    size_t ns = pt->nscopes;
    double e = 0;

    memset (out, 0, sizeof (*out));
    out->budget_w = INFINITY;
    for (size_t k = 0; k < pt->n; k++) {
        double w = pt->w[k * ns + ns - 1];
        if (w > out->peak_w) {
            out->peak_w = w;
            out->peak_at = pt->t[k];
        }
        if (k + 1 == pt->n)
            continue;
        e += w * (pt->t[k + 1] - pt->t[k]);
        if (!pt->bs.n)
            continue;
        /* over any budget: the union over scopes, by the worst scope of
         * each stretch (the time counted once) */
        double s_any = 0, j_any = 0;
        for (size_t s = 0; s < ns; s++) {
            double so = 0, jo = 0;
            over_budget (&pt->bs, scope_of (pt, s), pt->w[k * ns + s], pt->t[k],
                         pt->t[k + 1], &so, &jo);
            if (so > s_any)
                s_any = so;
            j_any += jo;
        }
        out->over_s += s_any;
        out->over_j += j_any;
    }
    if (pt->n > 1 && pt->t[pt->n - 1] > pt->t[0])
        out->mean_w = e / (pt->t[pt->n - 1] - pt->t[0]);
    out->starts_over = pt->starts_over;
    if (pt->n)
        out->budget_w = power_budget_at (&pt->bs, MS_POWER_SITE, out->peak_at);
}

double
powertrace_cluster_peak (const ms_powertrace_t *pt, size_t cluster)
{
    double m = 0;
    if (cluster >= pt->nscopes - 1)
        return 0;
    for (size_t k = 0; k < pt->n; k++)
        if (pt->w[k * pt->nscopes + cluster] > m)
            m = pt->w[k * pt->nscopes + cluster];
    return m;
}

static void
put_budget (FILE *f, const ms_budgets_t *bs, size_t scope, double t)
{
    double b = power_budget_at (bs, scope, t);
    if (isfinite (b))
        fprintf (f, ",%.0f", b);
    else
        fprintf (f, ",");
}

int
powertrace_csv (const ms_powertrace_t *pt, const char *path, ms_error_t *errp)
{
    size_t ns = pt->nscopes;
    FILE *f = fopen (path, "w");

    if (!f)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    fprintf (f, "time_s,site_w,site_budget_w");
    for (size_t c = 0; c + 1 < ns; c++)
        fprintf (f, ",%s_w,%s_budget_w", pt->conf->clusters[c].name,
                 pt->conf->clusters[c].name);
    fprintf (f, "\n");
    for (size_t k = 0; k < pt->n; k++) {
        fprintf (f, "%.3f,%.0f", pt->t[k], pt->w[k * ns + ns - 1]);
        put_budget (f, &pt->bs, MS_POWER_SITE, pt->t[k]);
        for (size_t c = 0; c + 1 < ns; c++) {
            fprintf (f, ",%.0f", pt->w[k * ns + c]);
            put_budget (f, &pt->bs, c, pt->t[k]);
        }
        fprintf (f, "\n");
    }
    if (fclose (f) != 0)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    return 0;
}
