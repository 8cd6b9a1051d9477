/* snapshot.c - what the API's hooks read, apart from the cycle
 * (snapshot_publish, snapshot_take, snapshot_drop).
 *
 * A what-if decides a job as the cycle would, on the cycle's picture: the
 * prediction table, the view of the partitions, the clusters' partitions
 * and accounting, the policy. Deciding under the cycle's lock (d->ds.mu) let
 * a storm of what-ifs stall the cycle. So the cycle, once a cycle, copies
 * that picture into a snapshot that it never changes again, and the hooks
 * decide on a snapshot without d->ds.mu: they only take d->sn.mu for as long as
 * it takes to count themselves in or out. The snapshot goes when the cycle
 * has published a newer one and its last reader is done. The prediction
 * table is shared, not copied (it is never changed once loaded): a count
 * of its holders keeps it while a snapshot reads it (tabhold_t).
 *
 * The site (clusters.conf) is shared too: only the power caps of the
 * settings are written into it, the same values each cycle unless an
 * admin changed them.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

struct tabhold {
    ms_predtab_t *tab;
    unsigned refs; /* under d->sn.mu */
};

struct snap {
    unsigned refs;  /* under d->sn.mu; the published one counts one more */
    ms_daemon_t sh; /* the picture, as decide.c reads a daemon: dc, site,
                       cl, ncl, tab, view, pol, set; the rest zero */
    tabhold_t *tabh;
    double lean, wait_share; /* the energy odds' lean and the observed
                                waits' share (what-if "odds") */
    size_t nseen, nring;
};

tabhold_t *
tabhold_new (ms_predtab_t *tab)
{
    tabhold_t *h = ms_xcalloc (1, sizeof (*h));

    h->tab = tab;
    h->refs = 1;
    return h;
}

void
tabhold_release (ms_daemon_t *d, tabhold_t *h)
{
    bool last;

    if (!h)
        return;
    pthread_mutex_lock (&d->sn.mu);
    last = --h->refs == 0;
    pthread_mutex_unlock (&d->sn.mu);
    if (last) {
        predtab_free (h->tab);
        free (h);
    }
}

static void *
memdup (const void *p, size_t n)
{
    void *q;

    if (!p || n == 0)
        return NULL;
    q = ms_xmalloc (n);
    memcpy (q, p, n);
    return q;
}

static void
snap_free (ms_daemon_t *d, snap_t *s)
{
    daemon_carbon_drop (d, s->sh.cset);
    for (size_t i = 0; i < s->sh.ncl; i++) {
        free (s->sh.cl[i].parts);
        ms_accounting_free (&s->sh.cl[i].acct);
    }
    free (s->sh.cl);
    view_free (s->sh.ds.view);
    daemon_power_release (s->sh.power);
    free (s);
}

void
snapshot_publish (ms_daemon_t *d)
{
    snap_t *s, *old;
    ms_view_t *keep;

    if (!d->ds.tab || !d->ds.view || !d->sn.tabh)
        return;
    s = ms_xcalloc (1, sizeof (*s));
    s->refs = 1;
    s->sh.dc = d->dc;
    s->sh.site = d->site;
    s->sh.ds.tab = d->ds.tab;
    s->sh.ds.pol = d->ds.pol;
    s->sh.ds.set = d->ds.set;
    s->sh.ld.leader = d->ld.leader;
    s->sh.ncl = d->ncl;
    s->sh.cl = ms_xcalloc (d->ncl + 1, sizeof (cluster_t));
    for (size_t i = 0; i < d->ncl; i++) {
        const cluster_t *c = &d->cl[i];
        cluster_t *k = &s->sh.cl[i];
        k->conf = c->conf;
        k->up = c->up;
        memcpy (k->api_version, c->api_version, sizeof (k->api_version));
        k->have = c->have;
        k->parts = memdup (c->parts, c->nparts * sizeof (*c->parts));
        k->nparts = k->parts ? c->nparts : 0;
        k->acct_read = c->acct_read;
        k->acct.enabled = c->acct.enabled;
        k->acct.assocs
            = memdup (c->acct.assocs, c->acct.nassocs * sizeof (ms_assoc_t));
        k->acct.nassocs = k->acct.assocs ? c->acct.nassocs : 0;
        k->acct.qos = memdup (c->acct.qos, c->acct.nqos * sizeof (ms_qos_t));
        k->acct.nqos = k->acct.qos ? c->acct.nqos : 0;
    }
    /* a view of its own, built as the cycle's (the cycle goes on changing
     * its own while it dispatches) */
    keep = d->ds.view;
    d->ds.view = NULL;
    rebuild_view (d);
    s->sh.ds.view = d->ds.view;
    d->ds.view = keep;
    s->sh.power = daemon_power_copy (d);
    s->sh.cset = daemon_carbon_hold (d); /* what s->sh.pol.carbon reads */
    s->lean = jobmix_lean (&d->ds.mix, &d->ds.pol);
    s->wait_share = jobmix_wait_share (&d->ds.mix);
    s->nseen = d->ds.mix.nseen;
    s->nring = d->ds.mix.nring;
    pthread_mutex_lock (&d->sn.mu);
    d->sn.tabh->refs++;
    s->tabh = d->sn.tabh;
    old = d->sn.snap;
    d->sn.snap = s;
    pthread_mutex_unlock (&d->sn.mu);
    snapshot_drop (d, old);
}

snap_t *
snapshot_take (ms_daemon_t *d)
{
    snap_t *s;

    pthread_mutex_lock (&d->sn.mu);
    if ((s = d->sn.snap))
        s->refs++;
    pthread_mutex_unlock (&d->sn.mu);
    return s;
}

void
snapshot_drop (ms_daemon_t *d, snap_t *s)
{
    bool last;

    if (!s)
        return;
    pthread_mutex_lock (&d->sn.mu);
    last = --s->refs == 0;
    pthread_mutex_unlock (&d->sn.mu);
    if (last) {
        tabhold_release (d, s->tabh);
        snap_free (d, s);
    }
}

void
snapshot_fini (ms_daemon_t *d)
{
    snap_t *s;

    pthread_mutex_lock (&d->sn.mu);
    s = d->sn.snap;
    d->sn.snap = NULL;
    pthread_mutex_unlock (&d->sn.mu);
    snapshot_drop (d, s);
}

ms_daemon_t *
snapshot_daemon (const snap_t *s)
{
    ms_daemon_t *w = ms_xmalloc (sizeof (*w));

    *w = s->sh;
    memset (&w->ds.cs, 0, sizeof (w->ds.cs));
    return w;
}

void
snapshot_odds (const snap_t *s, double *lean, double *wait_share, size_t *nseen,
               size_t *nring)
{
    *lean = s->lean;
    *wait_share = s->wait_share;
    *nseen = s->nseen;
    *nring = s->nring;
}
