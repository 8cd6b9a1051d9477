/* simdaemon.h - metaschedd's state over a simworld.h site, for the tests
 * that run the same jobs through the daemon's decision code and the
 * simulator's (test_engine_paths, test_engine_mix): every cluster up as
 * its refresh leaves it, each partition with clusters.conf's limits, no
 * job anywhere. */
#ifndef MS_TEST_SIMDAEMON_H
#define MS_TEST_SIMDAEMON_H

#include <string.h>

#include "metasched/daemon/daemon_int.h"
#include "tests/simworld.h"

static inline void
simdaemon_setup (ms_daemon_t *d, ms_dconf_t *dc, world_t *w, ms_polkind_t kind)
{
    memset (d, 0, sizeof (*d));
    memset (dc, 0, sizeof (*dc));
    d->dc = dc;
    d->site = w->conf;
    d->ds.tab = w->tab;
    d->ds.view = view_new (w->conf);
    policy_init (&d->ds.pol, kind);
    jobmix_init (&d->ds.mix);
    d->ncl = w->conf->nclusters;
    d->cl = ms_xcalloc (d->ncl, sizeof (*d->cl));
    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        c->conf = &w->conf->clusters[i];
        c->up = c->have = true;
        c->parts = ms_xcalloc (w->conf->nparts, sizeof (*c->parts));
        for (size_t p = 0; p < w->conf->nparts; p++) {
            const ms_partconf_t *pc = &w->conf->parts[p];
            ms_partition_state_t *st = &c->parts[c->nparts];
            if (pc->cluster != i)
                continue;
            ms_strlcpy (st->name, pc->name, sizeof (st->name));
            st->up = true;
            st->nodes_total = st->nodes_idle = pc->nodes;
            st->max_time_min = -1;
            st->default_time_min = -1;
            ms_partition_limits_init (st);
            ms_partition_apply_conf (st, &pc->limits, pc->nodes);
            c->nparts++;
        }
    }
}

static inline void
simdaemon_teardown (ms_daemon_t *d)
{
    for (size_t i = 0; i < d->ncl; i++)
        free (d->cl[i].parts);
    free (d->cl);
    view_free (d->ds.view);
    jobmix_free (&d->ds.mix);
    mixids_free (&d->ds.mixed);
    candidates_free (&d->ds.cs);
}

#endif
