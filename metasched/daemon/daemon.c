/* daemon.c - metaschedd's state and its scheduling cycle (see daemon.h,
 * doc/daemon.md): logging, daemon_new and daemon_free, the run loop
 * (leadership, LISTEN, the wait between cycles) and one cycle's steps in
 * order: settings, predictions, cluster readings, the view, reconcile,
 * follow, re-route, dependencies, dispatch, refit. The steps live in files
 * named for them (README); daemon_int.h holds the state they share.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

#include "metasched/daemon/daemon.h"
#include "metasched/daemon/daemon_int.h"
#include "partitions/slurmrest.h"

/* ---- the cycle ---- */

static int
cycle (ms_daemon_t *d)
{
    queue_live_t *live = NULL;
    tagged_t *tags = NULL;
    size_t nlive = 0, ntags = 0;
    double t0 = mono (), refit_s;
    uint64_t adopted;
    ms_error_t e;
    int rc = 0;

    daemon_load_settings (d);
    if (!d->ds.tab || mono () - d->last_pred_load > 600) {
        if (load_predictor (d, &e) < 0) {
            daemon_log (LOG_ERR, "%s", e.text);
            if (!d->ds.tab)
                return -1;
        }
    }
    if (d->rf.on)
        take_readings (d);
    else {
        /* the first cycle reads the clusters itself: nothing is decided
         * on an empty view */
        refresh_clusters (d);
        for (size_t i = 0; i < d->ncl; i++)
            d->cl[i].have = d->cl[i].have || d->cl[i].fresh;
        if (d->cl[0].rd.b)
            refresher_start (d);
    }
    pthread_mutex_lock (&d->ds.mu);
    rebuild_view (d);
    daemon_power_rebuild (d);
    snapshot_publish (d);
    pthread_mutex_unlock (&d->ds.mu);
    if (!d->ds.mix_loaded)
        daemon_mix_history (d);

    if (queue_live_jobs (d->db, &live, &nlive, &e) < 0) {
        daemon_log (LOG_ERR, "reading the queue: %s", e.text);
        return -1;
    }
    /* the jobs in flight stay counted in the job mix (decide.c) */
    daemon_mix_live (d, live, nlive);
    tags = collect_tags (d, live, nlive, &ntags);
    adopted = d->m.adopted;
    if (daemon_reconcile (d, live, nlive, tags, ntags) < 0)
        rc = -1;
    if (rc == 0 && d->m.adopted != adopted) {
        /* a job adopted just now is submitted in the database but still
         * dispatching in this reading: followed on that, a copy that has
         * already ended would have its submission marked ended while the
         * job stayed submitted, and no later cycle would follow it again.
         * Read the queue as it now is. */
        free (live);
        live = NULL;
        if (queue_live_jobs (d->db, &live, &nlive, &e) < 0) {
            daemon_log (LOG_ERR, "reading the queue: %s", e.text);
            rc = -1;
        }
    }
    if (!d->ld.reconciled && rc == 0 && all_fresh (d)) {
        daemon_log (LOG_NOTICE,
                    "reconciled %zu in-flight jobs with the "
                    "clusters",
                    nlive);
        d->ld.reconciled = true;
    }
    if (rc == 0)
        rc = daemon_follow (d, live, nlive);
    if (rc == 0)
        rc = daemon_reroute (d, live, nlive);
    free (tags);
    free (live);
    if (rc == 0)
        rc = daemon_dependencies (d);
    if (rc == 0)
        rc = dispatch_queued (d);
    /* the setting, where an admin set one, else the configuration's
     * refit_s; 0 in both: never */
    refit_s = d->ds.set.refit_interval_s > 0 ? d->ds.set.refit_interval_s
                                             : d->dc->refit_s;
    if (rc == 0 && refit_s > 0 && mono () - d->last_refit > refit_s)
        daemon_refit (d);
    if (rc == 0)
        daemon_retention (d);
    if (rc == 0)
        daemon_spool_drops (d);
    if (rc == 0) {
        daemon_power_measure (d);
        daemon_power_corrections (d);
        daemon_power_history (d);
    }
    if (db_reconnects (d->db) != d->db_reconnects_seen) {
        /* a statement found the server gone and made the connection
         * again (db/db.c): say so, once */
        d->db_reconnects_seen = db_reconnects (d->db);
        daemon_log (LOG_WARNING,
                    "database connection lost and made again (%u times "
                    "since the start)",
                    d->db_reconnects_seen);
    }
    pthread_mutex_lock (&d->ds.mu);
    d->m.cycles++;
    d->m.last_cycle_s = mono () - t0;
    pthread_mutex_unlock (&d->ds.mu);
    return rc;
}

/* LISTEN on the cycle's connection (again after a reconnect). */
static void
listen_jobs (ms_daemon_t *d)
{
    ms_error_t e;
    if (d->listening && db_reconnects (d->db) == d->listen_reconnects
        && PQstatus (db_conn (d->db)) == CONNECTION_OK)
        return;
    d->listening = db_command (d->db, "listen", "LISTEN metasched_jobs", 0,
                               NULL, NULL, &e)
                   == 0;
    d->listen_reconnects = db_reconnects (d->db);
}

/* Wait up to timeout_s for a notification that asks for a cycle (a job
 * queued or cancelled), a kick, or the timeout. */
static void
wait_wake (ms_daemon_t *d, double timeout_s, volatile sig_atomic_t *stop,
           volatile sig_atomic_t *reload)
{
    double until = mono () + timeout_s;

    while (!*stop && !*reload) {
        struct pollfd pf[2];
        int nfd = 1, ms;
        double left = until - mono ();
        PGconn *c = db_conn (d->db);
        bool wake = false;

        if (left <= 0)
            return;
        ms = (int)(left * 1000) + 1;
        pf[0].fd = d->wake.fd[0];
        pf[0].events = POLLIN;
        if (d->listening && PQstatus (c) == CONNECTION_OK
            && PQsocket (c) >= 0) {
            pf[1].fd = PQsocket (c);
            pf[1].events = POLLIN;
            nfd = 2;
        }
        if (poll (pf, (nfds_t)nfd, ms) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (pf[0].revents & POLLIN) {
            char buf[64];
            while (read (d->wake.fd[0], buf, sizeof (buf)) > 0)
                ;
            wake = true;
        }
        if (nfd == 2 && (pf[1].revents & (POLLIN | POLLERR | POLLHUP))) {
            PGnotify *n;
            if (!PQconsumeInput (c)) {
                d->listening = false;
                return;
            }
            while ((n = PQnotifies (c))) {
                const char *sp = strchr (n->extra, ' ');
                if (sp
                    && (!strcmp (sp + 1, "queued")
                        || !strcmp (sp + 1, "cancelled")))
                    wake = true;
                PQfreemem (n);
            }
        }
        if (wake) {
            /* let a burst of submissions gather for a moment (a cycle
             * dispatches what arrives meanwhile in batches anyway) */
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep (&ts, NULL);
            return;
        }
    }
}

int
daemon_run (ms_daemon_t *d, volatile sig_atomic_t *stop,
            volatile sig_atomic_t *reload)
{
    double errwait = 0;

    while (!*stop && !*reload) {
        double wait_s;
        if (daemon_leadership (d)) {
            d->ld.checked = mono ();
            listen_jobs (d);
            if (cycle (d) < 0) {
                d->m.db_errors++;
                errwait = errwait > 0 ? errwait * 2 : 1;
                if (errwait > 30)
                    errwait = 30;
            } else
                errwait = 0;
            wait_s = errwait > 0 ? errwait : d->dc->cycle_s;
        } else
            wait_s = 1; /* a standby tries the lock every second */
        wait_wake (d, wait_s, stop, reload);
    }
    return 0;
}

/* ---- setup ---- */

int
daemon_new (const ms_dconf_t *dc, ms_daemon_t **dp, ms_error_t *errp)
{
    ms_daemon_t *d = ms_xcalloc (1, sizeof (*d));
    const ms_siteconf_t *s = dc->site;
    db_opts_t o
        = { .conninfo = dc->database,
            .password_file = dc->password_file[0] ? dc->password_file : NULL,
            .application_name = "metaschedd",
            .connect_timeout_s = 5,
            .retry_max_ms = 5000 };
    ms_error_t e;
    int version = 0;
    long tmo = 0;
    bool made = false;

    d->dc = dc;
    d->wake.fd[0] = d->wake.fd[1] = -1;
    pthread_mutex_init (&d->ds.mu, NULL);
    pthread_mutex_init (&d->sn.mu, NULL);
    pthread_mutex_init (&d->rf.mu, NULL);
    pthread_cond_init (&d->rf.cond, NULL);
    pthread_mutex_init (&d->sub.mu, NULL);
    pthread_cond_init (&d->sub.cond, NULL);
    settings_init (&d->ds.set);
    policy_init (&d->ds.pol, POL_METASCHED);
    jobmix_init (&d->ds.mix);
    mixids_init (&d->ds.mixed);
    d->ds.pol.wait_weight
        = d->ds.set.dispatch_mode == DISPATCH_SIBLINGS ? 0 : 1;
    if (pipe2 (d->wake.fd, O_NONBLOCK | O_CLOEXEC) < 0) {
        ms_err (errp, MS_ERR_SYSTEM, "pipe: %s", strerror (errno));
        goto fail;
    }
    /* the key of the tags: made at the first start (daemons starting
     * together share the one made first) */
    if (tag_key_load (dc->tag_key_file, true, &d->tag_key, &made, &e) < 0) {
        if (dc->tag_key_file_line)
            ms_err (errp, e.kind, "%s:%d: tag_key_file: %s", dc->path,
                    dc->tag_key_file_line, e.text);
        else
            ms_err (errp, e.kind, "%s: tag_key_file (default %s): %s", dc->path,
                    dc->tag_key_file, e.text);
        goto fail;
    }
    if (made)
        daemon_log (LOG_NOTICE,
                    "tag key %s made (mode 0600): copy it to every standby "
                    "before it starts",
                    dc->tag_key_file);
    /* a private copy of the site: settings change its power caps */
    if (clusterconf_load (s->path, &d->site, &e) < 0) {
        ms_err (errp, e.kind, "%s", e.text);
        goto fail;
    }
    /* the zones' carbon signals: read once now, then by a thread */
    daemon_carbon_start (d);
    if (db_open (&o, &d->db, &e) < 0) {
        ms_err (errp, e.kind, "%s:%d: database: %s", dc->path,
                dc->database_line, e.text);
        goto fail;
    }
    if (db_schema_version (d->db, &version, &e) < 0) {
        ms_err (errp, e.kind, "%s:%d: database: %s", dc->path,
                dc->database_line, e.text);
        goto fail;
    }
    if (version < db_schema_latest ()) {
        ms_err (errp, MS_ERR_INPUT,
                "%s:%d: database: schema version %d, this program needs %d: "
                "run 'metasched db migrate' first",
                dc->path, dc->database_line, version, db_schema_latest ());
        goto fail;
    }
    if (db_sync_site (d->db, d->site, NULL, &e) < 0) {
        ms_err (errp, e.kind, "%s: storing the clusters: %s", s->path, e.text);
        goto fail;
    }
    d->ncl = d->site->nclusters;
    d->cl = ms_xcalloc (d->ncl + 1, sizeof (*d->cl));
    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        c->conf = &d->site->clusters[i];
        if (c->conf->timeout_ms > tmo)
            tmo = c->conf->timeout_ms;
        if (slurmrest_from_conf (c->conf, &c->b, &e) < 0) {
            ms_err (errp, e.kind, "%s:%d: [cluster %s]: %s", s->path,
                    c->conf->line, c->conf->name, e.text);
            goto fail;
        }
        if (slurmrest_from_conf (c->conf, &c->rd.b, &e) < 0) {
            ms_err (errp, e.kind, "%s:%d: [cluster %s]: %s", s->path,
                    c->conf->line, c->conf->name, e.text);
            goto fail;
        }
        /* A cluster down at the start (maintenance, a slurmrestd being
         * restarted) does not keep the daemon from routing to the others:
         * it starts marked down, the refresher tries it with backoff, and
         * the first reading that succeeds negotiates its version. */
        if (backend_ping (c->b, &e) < 0
            || slurmrest_negotiate (c->rd.b, &e) < 0) {
            daemon_log (LOG_WARNING,
                        "%s:%d: [cluster %s]: %s is unreachable at the start: "
                        "%s; routing to the other clusters until it answers",
                        s->path, c->conf->line, c->conf->name, c->conf->url,
                        e.text);
            ms_strlcpy (c->last_error, e.text, sizeof (c->last_error));
            c->failures++;
            c->up = false;
            c->retry_at = 0; /* the first refresh tries it again */
            continue;
        }
        ms_strlcpy (c->api_version, slurmrest_version (c->b),
                    sizeof (c->api_version));
        daemon_log (LOG_INFO, "cluster %s: slurmrestd at %s, OpenAPI %s (%s)",
                    c->conf->name, c->conf->url, c->api_version,
                    slurmrest_version_source (c->b));
        c->up = true;
    }
    d->grace_s = tmo / 1000.0 + 5;
    if (d->grace_s < dc->cycle_s)
        d->grace_s = dc->cycle_s;
    d->last_refit = mono ();
    *dp = d;
    return 0;
fail:
    daemon_free (d);
    return -1;
}

size_t
daemon_unreachable (const ms_daemon_t *d, char *buf, size_t len)
{
    size_t n = 0, used = 0;

    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < d->ncl; i++) {
        const cluster_t *c = &d->cl[i];
        int w;
        if (c->up)
            continue;
        n++;
        if (used >= len)
            continue;
        w = snprintf (buf + used, len - used,
                      "%s%s:%d: [cluster %s]: %s is "
                      "unreachable: %s",
                      used ? "\n" : "", d->site->path, c->conf->line,
                      c->conf->name, c->conf->url, c->last_error);
        used += w > 0 ? (size_t)w : 0;
    }
    return n;
}

void
daemon_free (ms_daemon_t *d)
{
    if (!d)
        return;
    refresher_stop (d);
    for (size_t i = 0; i < d->ncl; i++) {
        backend_destroy (d->cl[i].b);
        backend_destroy (d->cl[i].rd.b);
        free (d->cl[i].rd.parts);
        free (d->cl[i].rd.jobs);
        free (d->cl[i].boost);
        free (d->cl[i].parts);
        free (d->cl[i].jobs);
        ms_accounting_free (&d->cl[i].acct);
        ms_accounting_free (&d->cl[i].rd.acct);
    }
    free (d->cl);
    jobmix_free (&d->ds.mix);
    mixids_free (&d->ds.mixed);
    daemon_power_free (d);
    daemon_lease_stop (d);
    db_close (d->db);
    snapshot_fini (d);
    daemon_carbon_free (d);
    depcache_free (d->depcache);
    if (d->sn.tabh)
        tabhold_release (d, d->sn.tabh);
    else
        predtab_free (d->ds.tab);
    predictor_free (d->ds.pred);
    view_free (d->ds.view);
    candidates_free (&d->ds.cs);
    clusterconf_free (d->site);
    if (d->wake.fd[0] >= 0)
        close (d->wake.fd[0]);
    if (d->wake.fd[1] >= 0)
        close (d->wake.fd[1]);
    pthread_mutex_destroy (&d->ds.mu);
    pthread_mutex_destroy (&d->sn.mu);
    pthread_mutex_destroy (&d->rf.mu);
    pthread_cond_destroy (&d->rf.cond);
    pthread_mutex_destroy (&d->sub.mu);
    pthread_cond_destroy (&d->sub.cond);
    free (d->sub.late);
    free (d->forge.list);
    daemon_spool_drops_free (d);
    tag_key_clear (&d->tag_key);
    free (d);
}

void
daemon_kick (ms_daemon_t *d)
{
    dwake_kick (&d->wake);
}
