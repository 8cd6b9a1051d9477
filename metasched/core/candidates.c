/* candidates.c - predictions per candidate and the partition view (see
 * candidates.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/candidates.h"
#include "metasched/core/placement.h"
#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"

int
predtab_build (const predictor_t *pred, const ms_siteconf_t *conf,
               ms_predtab_t **tabp, ms_error_t *errp)
{
    ms_predtab_t *tab = ms_xcalloc (1, sizeof (*tab));
    pred_estimate_t est[MS_MAX_FREQS];

    tab->conf = conf;
    tab->nparts = conf->nparts;
    tab->napps = predictor_napps (pred);
    tab->maxf = 1;
    tab->nfreqs = ms_xcalloc (conf->nparts + 1, sizeof (size_t));
    tab->nominal = ms_xcalloc (conf->nparts + 1, sizeof (size_t));
    for (size_t p = 0; p < conf->nparts; p++) {
        const ms_arch_t *a = &conf->archs[conf->parts[p].arch];
        tab->nfreqs[p] = a->nfreqs;
        tab->nominal[p] = (size_t)clusterconf_freq_index (a, a->nominal_khz);
        if (a->nfreqs > tab->maxf)
            tab->maxf = a->nfreqs;
    }
    if (!tab->napps) {
        predtab_free (tab);
        return ms_err (errp, MS_ERR_MISSING, "the predictor knows no app");
    }
    tab->apps = ms_xcalloc (tab->napps, sizeof (char *));
    tab->speedup = ms_xcalloc (tab->napps, sizeof (*tab->speedup));
    tab->gpuprof = ms_xcalloc (tab->napps, sizeof (*tab->gpuprof));
    tab->e
        = ms_xcalloc (tab->napps * tab->nparts * tab->maxf, sizeof (*tab->e));
    for (size_t ai = 0; ai < tab->napps; ai++) {
        const char *app = predictor_app_name (pred, ai);
        tab->apps[ai] = ms_xstrdup (app);
        for (size_t p = 0; p < conf->nparts; p++) {
            const ms_arch_t *a = &conf->archs[conf->parts[p].arch];
            size_t n = 0;
            ms_error_t e2;
            if (predictor_estimate_all (pred, app, a->name, 1, est,
                                        MS_MAX_FREQS, &n, &e2)
                < 0) {
                if (e2.kind == MS_ERR_MISSING)
                    continue; /* no candidate there for this app */
                predtab_free (tab);
                ms_err (errp, e2.kind, "app %s on architecture %s: %s", app,
                        a->name, e2.text);
                return -1;
            }
            const uint32_t *pf;
            size_t npf;
            uint32_t nom;
            int cores;
            double idle;
            if (predictor_arch_info (pred, a->name, &pf, &npf, &nom, &cores,
                                     &idle, &e2)
                < 0) {
                predtab_free (tab);
                ms_err (errp, e2.kind, "architecture %s: %s", a->name, e2.text);
                return -1;
            }
            /* Pair the predictor's frequencies with the arch's by value:
             * a frequency the predictor lacks is no candidate. */
            for (size_t k = 0; k < n && k < npf; k++) {
                int fi = clusterconf_freq_index (a, pf[k]);
                ms_predent_t *d;
                if (fi < 0)
                    continue;
                d = &tab->e[(ai * tab->nparts + p) * tab->maxf + (size_t)fi];
                d->f_khz = pf[k];
                d->t = est[k].time_s;
                d->t_lo = est[k].time_lo;
                d->p = est[k].power_w;
                d->p_lo = est[k].power_lo;
                /* an upper bound under the estimate is the estimate:
                 * taken here once, not at each job's candidates */
                d->t_hi = est[k].time_hi > d->t ? est[k].time_hi : d->t;
                d->p_hi = est[k].power_hi > d->p ? est[k].power_hi : d->p;
                d->ok = est[k].source != PRED_SRC_NONE && d->t > 0 && d->p > 0;
            }
        }
    }
    *tabp = tab;
    return 0;
}

void
predtab_free (ms_predtab_t *tab)
{
    if (!tab)
        return;
    for (size_t i = 0; tab->apps && i < tab->napps; i++)
        free (tab->apps[i]);
    free (tab->apps);
    free (tab->speedup);
    free (tab->gpuprof);
    free (tab->e);
    free (tab->nfreqs);
    free (tab->nominal);
    free (tab);
}

int
predtab_app_index (const ms_predtab_t *tab, const char *app)
{
    for (size_t i = 0; i < tab->napps; i++)
        if (!strcmp (tab->apps[i], app))
            return (int)i;
    return -1;
}

void
predtab_set_gpuprof (ms_predtab_t *tab, size_t app, const pred_gpuprof_t *g)
{
    if (app >= tab->napps)
        return;
    if (g)
        tab->gpuprof[app] = *g;
    else
        memset (&tab->gpuprof[app], 0, sizeof (tab->gpuprof[app]));
}

const pred_gpuprof_t *
predtab_gpuprof (const ms_predtab_t *tab, size_t app)
{
    if (!tab->gpuprof || app >= tab->napps || !tab->gpuprof[app].app[0])
        return NULL;
    return &tab->gpuprof[app];
}

void
predtab_set_speedup (ms_predtab_t *tab, size_t app, const ms_speedup_t *sp)
{
    if (app >= tab->napps)
        return;
    if (sp)
        tab->speedup[app] = *sp;
    else
        memset (&tab->speedup[app], 0, sizeof (tab->speedup[app]));
}

/* ---- view ---- */

typedef struct {
    uint64_t key;
    int nodes;
    double end;
    double power;
} vrun_t;

typedef struct {
    uint64_t key; /* the cluster's job id; 0: not known yet */
    int nodes;
    double pred;  /* predicted runtime, s */
    int nice;
    double begin; /* not before (absolute); 0: now */
    uint64_t seq; /* the order it came in */
} vpend_t;

typedef struct {
    int nodes;
    double idle_w;
    int busy;
    double run_power; /* sum of power * nodes of running jobs */
    double queued_ns; /* node-seconds waiting */
    int queued;
    vrun_t *run; /* sorted by predicted end */
    size_t nrun, caprun;
    vpend_t *pend; /* the queued entries, in the order they came */
    size_t npend, cappend;
} vpart_t;

struct ms_view {
    size_t nparts;
    vpart_t *p;
    const ms_siteconf_t *conf; /* its power caps, read when used */
    uint64_t seq;
};

ms_view_t *
view_new (const ms_siteconf_t *conf)
{
    ms_view_t *v = ms_xcalloc (1, sizeof (*v));
    v->nparts = conf->nparts;
    v->conf = conf;
    v->p = ms_xcalloc (conf->nparts + 1, sizeof (*v->p));
    for (size_t i = 0; i < conf->nparts; i++) {
        v->p[i].nodes = conf->parts[i].nodes;
        v->p[i].idle_w = conf->archs[conf->parts[i].arch].idle_power_w;
    }
    return v;
}

void
view_free (ms_view_t *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->nparts; i++) {
        free (v->p[i].run);
        free (v->p[i].pend);
    }
    free (v->p);
    free (v);
}

void
view_pending_add (ms_view_t *v, size_t part, uint64_t key, int nodes,
                  double pred_s, int nice, double begin)
{
    vpart_t *p = &v->p[part];
    vpend_t *e;

    p->queued_ns += nodes * pred_s;
    p->queued++;
    if (p->npend == p->cappend) {
        p->cappend = p->cappend ? p->cappend * 2 : 32;
        p->pend = ms_xrealloc (p->pend, p->cappend * sizeof (*p->pend));
    }
    e = &p->pend[p->npend++];
    e->key = key;
    e->nodes = nodes;
    e->pred = pred_s;
    e->nice = nice;
    e->begin = begin;
    e->seq = v->seq++;
}

/* The queued entry key (or, for key 0 or none of that key, the first of
 * those nodes and runtime); SIZE_MAX when there is none. */
static size_t
pend_find (const vpart_t *p, uint64_t key, int nodes, double pred_s)
{
    if (key)
        for (size_t i = 0; i < p->npend; i++)
            if (p->pend[i].key == key)
                return i;
    for (size_t i = 0; i < p->npend; i++)
        if (p->pend[i].nodes == nodes && p->pend[i].pred == pred_s)
            return i;
    return SIZE_MAX;
}

void
view_pending_renice (ms_view_t *v, size_t part, uint64_t key, int nice)
{
    vpart_t *p = &v->p[part];
    for (size_t i = 0; key && i < p->npend; i++)
        if (p->pend[i].key == key)
            p->pend[i].nice = nice;
}

void
view_pending_remove (ms_view_t *v, size_t part, uint64_t key, int nodes,
                     double pred_s)
{
    vpart_t *p = &v->p[part];
    size_t i = pend_find (p, key, nodes, pred_s);

    if (i != SIZE_MAX) {
        memmove (p->pend + i, p->pend + i + 1,
                 (p->npend - i - 1) * sizeof (*p->pend));
        p->npend--;
    }
    p->queued_ns -= nodes * pred_s;
    /* An empty queue holds no work, whatever rounding left behind. */
    if (--p->queued <= 0 || p->queued_ns < 0) {
        if (p->queued < 0)
            p->queued = 0;
        if (p->queued == 0 || p->queued_ns < 0)
            p->queued_ns = 0;
    }
}

void
view_run_start (ms_view_t *v, size_t part, uint64_t key, int nodes,
                double pred_end, double power_w)
{
    vpart_t *p = &v->p[part];
    size_t i;
    if (p->nrun == p->caprun) {
        p->caprun = p->caprun ? p->caprun * 2 : 32;
        p->run = ms_xrealloc (p->run, p->caprun * sizeof (*p->run));
    }
    for (i = p->nrun; i > 0 && p->run[i - 1].end > pred_end; i--)
        p->run[i] = p->run[i - 1];
    p->run[i].key = key;
    p->run[i].nodes = nodes;
    p->run[i].end = pred_end;
    p->run[i].power = power_w * nodes;
    p->nrun++;
    p->busy += nodes;
    p->run_power += power_w * nodes;
}

void
view_run_end (ms_view_t *v, size_t part, uint64_t key)
{
    vpart_t *p = &v->p[part];
    for (size_t i = 0; i < p->nrun; i++)
        if (p->run[i].key == key) {
            p->busy -= p->run[i].nodes;
            p->run_power -= p->run[i].power;
            memmove (p->run + i, p->run + i + 1,
                     (p->nrun - i - 1) * sizeof (*p->run));
            p->nrun--;
            if (!p->nrun)
                p->run_power = 0;
            return;
        }
}

double
view_shadow_wait (const ms_view_t *v, size_t part, int nodes, double now)
{
    const vpart_t *p = &v->p[part];
    int avail = p->nodes - p->busy;
    double shadow = 0;

    if (avail < nodes) {
        shadow = INFINITY;
        for (size_t i = 0; i < p->nrun; i++) {
            avail += p->run[i].nodes;
            if (avail >= nodes) {
                shadow = p->run[i].end - now;
                break;
            }
        }
        if (shadow < 0)
            shadow = 0;
    }
    return shadow;
}

void
view_waits (const ms_view_t *v, size_t part, int nodes, double now,
            double *waitp, double *shadowp)
{
    double shadow = view_shadow_wait (v, part, nodes, now);
    double drain = v->p[part].queued_ns / v->p[part].nodes;

    *waitp = shadow > drain ? shadow : drain;
    if (shadowp)
        *shadowp = shadow;
}

void
view_reservation (const ms_view_t *v, size_t part, int nodes, double now,
                  ms_resv_t *r)
{
    const vpart_t *p = &v->p[part];
    int freen = p->nodes - p->busy, avail;
    const vpend_t *h = NULL;
    size_t k;

    r->set = false;
    r->start = r->blocked = 0;
    /* A job that does not fit the free nodes waits for its own shadow
     * time anyway (view_waits). */
    if (nodes > freen)
        return;
    /* The head: the first queued entry in queue order (nice, then the
     * order they came) that may start now and does not fit. Under EASY
     * backfill it holds the reservation. Only entries at nice 0 or less
     * come before the job (at nice 0, as its first choice goes). */
    for (size_t i = 0; i < p->npend; i++) {
        const vpend_t *e = &p->pend[i];
        if (e->nodes <= freen || e->begin > now || e->nice > 0)
            continue;
        if (!h || e->nice < h->nice)
            h = e;
    }
    if (!h)
        return;
    /* Its start: when enough running jobs have ended for its nodes. */
    avail = freen;
    for (k = 0; k < p->nrun; k++) {
        avail += p->run[k].nodes;
        if (avail >= h->nodes)
            break;
    }
    if (k == p->nrun)
        return; /* wider than what runs and is free: not a reservation */
    r->start = p->run[k].end > now ? p->run[k].end - now : 0;
    avail -= h->nodes;
    /* Nodes free beside it: a job that fits them starts now whatever its
     * runtime. */
    if (nodes <= avail)
        return;
    /* Otherwise, once the head has started, the job starts when running
     * jobs have ended for it, at the latest when the head ends. */
    r->set = true;
    r->blocked = r->start + h->pred;
    for (k++; k < p->nrun; k++) {
        avail += p->run[k].nodes;
        if (avail >= nodes) {
            double t = p->run[k].end > now ? p->run[k].end - now : 0;
            if (t < r->blocked)
                r->blocked = t;
            break;
        }
    }
}

double
view_first_drain (const ms_view_t *v, size_t part, double now)
{
    const vpart_t *p = &v->p[part];
    double ns = 0;

    for (size_t i = 0; i < p->npend; i++)
        if (p->pend[i].nice <= 0 && p->pend[i].begin <= now)
            ns += p->pend[i].nodes * p->pend[i].pred;
    return ns / p->nodes;
}

void
view_part_waits (const ms_view_t *v, size_t part, int nodes, double now,
                 ms_partwaits_t *pw)
{
    view_waits (v, part, nodes, now, &pw->w, &pw->ws);
    view_reservation (v, part, nodes, now, &pw->rv);
    pw->wf = view_first_drain (v, part, now);
}

double
view_predicted_wait (const ms_view_t *v, size_t part, int nodes, double now)
{
    double w;

    view_waits (v, part, nodes, now, &w, NULL);
    return w;
}

double
view_power_wait (const ms_view_t *v, size_t part, int nodes, double power_w,
                 double now)
{
    const vpart_t *p = &v->p[part];
    double cap = v->conf->parts[part].power_cap_w, room0, room, need;

    if (!(cap > 0))
        return 0;
    room0 = cap - p->nodes * p->idle_w;
    room = room0 - (p->run_power - p->busy * p->idle_w);
    need = nodes * (power_w - p->idle_w);
    if (need > room0)
        need = room0; /* it runs alone */
    if (need <= room)
        return 0;
    for (size_t i = 0; i < p->nrun; i++) {
        room += p->run[i].power - p->run[i].nodes * p->idle_w;
        if (need <= room || i == p->nrun - 1)
            return p->run[i].end > now ? p->run[i].end - now : 0;
    }
    return 0;
}

double
view_power (const ms_view_t *v, size_t part)
{
    const vpart_t *p = &v->p[part];
    return p->run_power + (p->nodes - p->busy) * p->idle_w;
}

int
view_busy (const ms_view_t *v, size_t part)
{
    return v->p[part].busy;
}

/* ---- candidates ---- */

/* Room in cs for n more candidates. */
static void
cands_room (ms_cands_t *cs, size_t n)
{
    if (cs->n + n <= cs->cap)
        return;
    while (cs->cap < cs->n + n)
        cs->cap = cs->cap ? cs->cap * 2 : 64;
    cs->c = ms_xrealloc (cs->c, cs->cap * sizeof (*cs->c));
}

/* The waits of the n candidates c of partition p (build_part), from pw
 * (NULL: none). Without a reservation that can hold the job back, every
 * runtime gets the same wait; under a power cap, the job also waits for
 * its power. */
static void
part_waits_fill (const ms_partwaits_t *pw, const ms_view_t *view, size_t p,
                 int nodes, double now, ms_cand_t *c, size_t n)
{
    if (!pw) {
        for (size_t i = 0; i < n; i++)
            c[i].w = c[i].ws = c[i].wf = 0;
        return;
    }
    /* view_power_wait is 0 where the partition has no power cap */
    if (view->conf->parts[p].power_cap_w > 0) {
        for (size_t i = 0; i < n; i++) {
            double pwait = view_power_wait (view, p, nodes, c[i].p, now);
            part_waits_apply (pw, &c[i]);
            if (pwait > c[i].w)
                c[i].w = pwait;
            if (pwait > c[i].ws)
                c[i].ws = pwait;
        }
    } else if (!pw->rv.set) {
        /* part_waits_apply's wait, with no reservation for any runtime */
        double w = 0 > pw->w ? 0 : pw->w;
        for (size_t i = 0; i < n; i++) {
            c[i].w = w;
            c[i].ws = pw->ws;
            c[i].wf = pw->wf;
        }
    } else
        for (size_t i = 0; i < n; i++)
            part_waits_apply (pw, &c[i]);
}

/* The candidates of partition p (candidates_build): the job's figures
 * from the app's there, its waits from pw (NULL: none). */
static void
build_part (const ms_predtab_t *tab, size_t app, size_t p, int nodes,
            double scale, const ms_partwaits_t *pw, const ms_view_t *view,
            double now, ms_cands_t *cs)
{
    const ms_predent_t *d = predtab_get (tab, app, p, 0);
    size_t nf = tab->nfreqs[p], n, n0;
    ms_cand_t *c;

    cands_room (cs, nf);
    /* the list's end and array in locals: a store through c cannot
     * change them */
    n = n0 = cs->n;
    c = cs->c + n;
    for (size_t fi = 0; fi < nf; fi++, d++) {
        if (!d->ok)
            continue;
        c->part = p;
        c->fi = fi;
        c->f_khz = d->f_khz;
        c->t = d->t * scale;
        c->t_hi = d->t_hi * scale;
        c->p = d->p;
        c->e = c->p * c->t * nodes;
        c->e_hi = d->p_hi * c->t_hi * nodes;
        c->nodes = nodes;
        c++;
        n++;
    }
    cs->n = n;
    part_waits_fill (pw, view, p, nodes, now, cs->c + n0, n - n0);
}
void
candidates_build (const ms_predtab_t *tab, size_t app, size_t home, int nodes,
                  double base_s, const ms_view_t *view, double now,
                  ms_cands_t *cs)
{
    const ms_predent_t *ref = predtab_get (tab, app, home, tab->nominal[home]);
    double tref = ref->ok ? ref->t : 0;
    /* Without the home's nominal figure, the signature run stands for the
     * job's length. Once a job, not a division a candidate. */
    double scale = tref > 0 ? base_s / tref : 1;

    cs->n = 0;
    cs->home = home;
    cs->carbon = cs->cost = false;
    for (size_t p = 0; p < tab->nparts; p++) {
        ms_partwaits_t waits;
        if (nodes > tab->conf->parts[p].nodes)
            continue;
        /* without a view every wait is 0 (part_waits_apply of zeros) */
        if (view)
            view_part_waits (view, p, nodes, now, &waits);
        build_part (tab, app, p, nodes, scale, view ? &waits : NULL, view, now,
                    cs);
    }
}

void
candidates_gpus (const ms_siteconf_t *conf, int nodes, int gpus,
                 ms_cands_t *cs)
{
    size_t k = 0;

    if (gpus <= 0)
        return;
    for (size_t i = 0; i < cs->n; i++) {
        ms_cand_t c = cs->c[i];
        const ms_partconf_t *pc = &conf->parts[c.part];
        if (pc->gpus_per_node < gpus)
            continue;
        int n = c.nodes > 0 ? c.nodes : nodes;
        c.p += gpus * pc->gpu_busy_power_w;
        c.e = c.p * c.t * n;
        c.e_hi += gpus * pc->gpu_busy_power_w * c.t_hi * n;
        if (c.e_hi < c.e) /* rounding, where the bound is the estimate */
            c.e_hi = c.e;
        cs->c[k++] = c;
    }
    cs->n = k;
}

bool
candidates_part_fits (const ms_siteconf_t *conf, size_t p,
                      const ms_place_req_t *r, int gpus)
{
    const ms_partconf_t *pc = &conf->parts[p];
    ms_partition_state_t st;
    char why[256];

    if ((r->nodes > 0 ? r->nodes : 1) > pc->nodes
        || (gpus > 0 && pc->gpus_per_node < gpus))
        return false;
    if (!pc->limits.set)
        return true;
    memset (&st, 0, sizeof (st));
    st.max_time_min = -1;
    ms_partition_limits_init (&st);
    ms_partition_apply_conf (&st, &pc->limits, pc->nodes);
    return placement_check_partition (&st, r, NULL, why, sizeof (why));
}

void
candidates_limits (const ms_siteconf_t *conf, int nodes, double limit_s,
                   ms_cands_t *cs)
{
    ms_place_req_t r;
    size_t k = 0, lastp = SIZE_MAX;
    bool lastok = true, any = false;

    /* without limits on the candidates' partitions all are kept (the
     * usual case: nothing to copy); where no partition of the site has
     * limits, the candidates need not be looked at */
    for (size_t p = 0; p < conf->nparts && !any; p++)
        any = conf->parts[p].limits.set != 0;
    if (!any)
        return;
    any = false;
    for (size_t i = 0; i < cs->n && !any; i++)
        any = conf->parts[cs->c[i].part].limits.set != 0;
    if (!any)
        return;
    memset (&r, 0, sizeof (r));
    r.nodes = nodes;
    r.time_limit_min = isfinite (limit_s) && limit_s > 0
                           ? (uint32_t)ceil (limit_s / 60.0 - 1e-9)
                           : 0;
    /* the verdict is the partition's: a partition's candidates (in a
     * row, one per frequency) are checked once */
    for (size_t i = 0; i < cs->n; i++) {
        const ms_partconf_t *pc = &conf->parts[cs->c[i].part];
        ms_partition_state_t st;
        char why[256];
        if (pc->limits.set && cs->c[i].part != lastp) {
            memset (&st, 0, sizeof (st));
            st.max_time_min = -1;
            ms_partition_limits_init (&st);
            ms_partition_apply_conf (&st, &pc->limits, pc->nodes);
            lastp = cs->c[i].part;
            lastok
                = placement_check_partition (&st, &r, NULL, why, sizeof (why));
        }
        if (pc->limits.set && !lastok)
            continue;
        cs->c[k++] = cs->c[i];
    }
    cs->n = k;
}

void
candidates_gpu_profile (const ms_predtab_t *tab, size_t app, int gpus,
                        ms_cands_t *cs)
{
    const pred_gpuprof_t *g = predtab_gpuprof (tab, app);

    if (!g || gpus <= 0)
        return;
    for (size_t i = 0; i < cs->n; i++) {
        ms_cand_t *c = &cs->c[i];
        const ms_partconf_t *pc = &tab->conf->parts[c->part];
        double r = gpuprof_time_ratio (g, pc->gpu_model), p0 = c->p;
        int n = c->nodes > 0 ? c->nodes : 1;
        if (g->busy_power_w > 0)
            c->p += gpus * (g->busy_power_w - pc->gpu_busy_power_w);
        c->t *= r;
        c->t_hi *= r;
        c->e_hi *= r * (p0 > 0 ? c->p / p0 : 1);
        c->e = c->p * c->t * n;
        if (c->e_hi < c->e)
            c->e_hi = c->e;
    }
}

typedef struct {
    const ms_view_t *view;
    size_t part;
    double now, power_w;
    const char *sizes; /* a --nodes list: the only sizes (NULL: any) */
} moldwait_t;

static double
mold_wait (int nodes, void *arg)
{
    const moldwait_t *m = arg;
    double w, pw;

    /* a size the job's list does not hold: never chosen */
    if (!jobspec_nodes_in (m->sizes, nodes))
        return INFINITY;
    if (!m->view)
        return 0;
    w = view_predicted_wait (m->view, m->part, nodes, m->now);
    pw = view_power_wait (m->view, m->part, nodes, m->power_w, m->now);
    return pw > w ? pw : w;
}

void
candidates_mold (const ms_predtab_t *tab, size_t app, int nmin, int nmax,
                 double w_e, const ms_view_t *view, double now, ms_cands_t *cs)
{
    candidates_mold_sizes (tab, app, nmin, nmax, NULL, w_e, view, now, cs);
}

void
candidates_mold_sizes (const ms_predtab_t *tab, size_t app, int nmin,
                       int nmax, const char *sizes, double w_e,
                       const ms_view_t *view, double now, ms_cands_t *cs)
{
    const ms_speedup_t *sp;

    if (nmax <= nmin || app >= tab->napps || !tab->speedup[app].nruns)
        return;
    sp = &tab->speedup[app];
    for (size_t i = 0; i < cs->n; i++) {
        ms_cand_t *c = &cs->c[i];
        const ms_partconf_t *pc = &tab->conf->parts[c->part];
        int hi = nmax < pc->nodes ? nmax : pc->nodes, n;
        double t0 = speedup_time (sp, nmin, NULL, NULL), r;
        moldwait_t mw = { view, c->part, now, c->p, sizes };
        if ((pc->limits.set & MS_LIM_MAX_NODES) && pc->limits.max_nodes >= 0
            && pc->limits.max_nodes < hi)
            hi = pc->limits.max_nodes;
        if (hi <= nmin || !(t0 > 0))
            continue;
        n = speedup_choose (sp, nmin, hi, c->p, w_e,
                            view || sizes ? mold_wait : NULL, &mw);
        if (n == nmin)
            continue;
        r = speedup_time (sp, n, NULL, NULL) / t0;
        c->t *= r;
        c->t_hi *= r;
        c->e = c->p * c->t * n;
        c->e_hi *= r * n / (double)nmin;
        if (c->e_hi < c->e)
            c->e_hi = c->e;
        c->nodes = n;
        if (view) {
            double pw = view_power_wait (view, c->part, n, c->p, now);
            ms_partwaits_t waits;
            view_part_waits (view, c->part, n, now, &waits);
            part_waits_apply (&waits, c);
            if (pw > c->w)
                c->w = pw;
            if (pw > c->ws)
                c->ws = pw;
        }
    }
}

int
candidates_max_gpus (const ms_siteconf_t *conf)
{
    int m = 0;
    for (size_t p = 0; p < conf->nparts; p++)
        if (conf->parts[p].gpus_per_node > m)
            m = conf->parts[p].gpus_per_node;
    return m;
}

void
candidates_copy (ms_cands_t *dst, const ms_cands_t *src)
{
    /* room for one more than src's, so that an empty list has its array */
    if (dst->cap < src->n + 1) {
        dst->cap = src->n + 1;
        dst->c = ms_xrealloc (dst->c, dst->cap * sizeof (*dst->c));
    }
    if (src->n)
        memcpy (dst->c, src->c, src->n * sizeof (*dst->c));
    dst->n = src->n;
    dst->home = src->home;
    dst->carbon = src->carbon;
    dst->cost = src->cost;
}

void
candidates_free (ms_cands_t *cs)
{
    free (cs->c);
    cs->c = NULL;
    cs->n = cs->cap = 0;
}
