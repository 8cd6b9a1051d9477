/* leader.c - leadership: a lease row in the database (leader_lease,
 * db/migrations/0010) that only the daemon's role may update, renewed by a
 * thread of its own so that a cycle that waits on a cluster never lets it
 * lapse (doc/daemon.md "Leadership").
 *
 * Why not an advisory lock: any role that may connect can take any
 * advisory lock (pg_try_advisory_lock needs no privilege), so a collector
 * or report login could take the leader's lock first and hold it, and no
 * daemon would lead. The lease row is UPDATEd by its owner only.
 *
 * The lease lasts leader_takeover_s / 2 from the server's clock; the
 * holder renews it every leader_takeover_s / 8 and counts itself leader
 * until lease seconds after it *sent* its latest successful renewal (its
 * own monotonic clock), which is before the server's expires_at: a leader
 * cut off from the database stops leading before anyone else may start. A
 * standby tries as often and takes the lease once it has expired, so it
 * leads at most about 5/8 of leader_takeover_s after a leader died. A
 * leader that stops cleanly ends its lease at once.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <sys/random.h>
#include <unistd.h>

#include "metasched/daemon/daemon_int.h"

struct lease {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool stop;
    db_t *db;         /* the lease's own connection (the thread's) */
    char holder[200]; /* host:pid:nonce */
    double lease_s;   /* how long one renewal lasts */
    double period_s;  /* how often the thread renews (or tries) */
    /* under ds.mu */
    bool held;       /* the latest answer: this instance holds it */
    double until;    /* mono () until which a held lease counts */
    unsigned epoch;  /* acquisitions (a lost and regained lease counts) */
    char other[200]; /* who held it when we did not */
    char err[256];   /* the latest error, "" after a success */
};

/* host:pid:nonce, the same for every daemon of this process (a reload's
 * new daemon keeps its predecessor's lease) */
static void
holder_name (char *buf, size_t size)
{
    static char name[200];
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

    pthread_mutex_lock (&mu);
    if (!name[0]) {
        char host[128] = "";
        unsigned long nonce = 0;
        if (gethostname (host, sizeof (host) - 1) < 0 || !host[0])
            snprintf (host, sizeof (host), "unknown");
        if (getrandom (&nonce, sizeof (nonce), GRND_NONBLOCK)
            != (ssize_t)sizeof (nonce))
            nonce
                = (unsigned long)time (NULL) ^ ((unsigned long)getpid () << 16);
        snprintf (name, sizeof (name), "%.120s:%ld:%08lx", host,
                  (long)getpid (), nonce & 0xffffffffUL);
    }
    ms_strlcpy (buf, name, size);
    pthread_mutex_unlock (&mu);
}

/* The lease's connection: the daemon's conninfo and password file. */
static int
lease_open (ms_daemon_t *d, struct lease *l, ms_error_t *errp)
{
    db_opts_t o = { .conninfo = d->dc->database,
                    .password_file
                    = d->dc->password_file[0] ? d->dc->password_file : NULL,
                    .application_name = "metaschedd-leader",
                    .connect_timeout_s = 3,
                    .retry_max_ms = 0 };
    return db_open (&o, &l->db, errp);
}

/* Take or renew the lease: 1 held, 0 another instance holds it (its name
 * in other), -1 an error (errp). One statement: concurrent standbys
 * serialize on the row, and the loser re-reads it and finds it taken. */
static int
lease_renew (struct lease *l, char *other, size_t otherlen, ms_error_t *errp)
{
    char secs[32];
    const char *p[2] = { l->holder, secs };
    PGresult *r;
    int held;

    snprintf (secs, sizeof (secs), "%.3f", l->lease_s);
    r = db_exec (l->db, "lease_renew",
                 "WITH u AS (UPDATE leader_lease SET holder = $1,"
                 "   acquired_at = CASE WHEN holder = $1 AND expires_at"
                 "    > clock_timestamp () THEN acquired_at ELSE now () END,"
                 "   renewed_at = now (),"
                 "   expires_at = clock_timestamp ()"
                 "    + $2::double precision * interval '1 second'"
                 "  WHERE id = 1 AND (holder = $1"
                 "   OR expires_at < clock_timestamp ()) RETURNING holder)"
                 " SELECT (SELECT count (*) FROM u),"
                 "  (SELECT holder FROM leader_lease WHERE id = 1)",
                 2, p, errp);
    if (!r)
        return -1;
    if (PQntuples (r) != 1 || PQgetisnull (r, 0, 1)) {
        PQclear (r);
        return ms_err (errp, MS_ERR_DB,
                       "leader_lease has no row: run `metasched db "
                       "migrate`");
    }
    held = strcmp (PQgetvalue (r, 0, 0), "0") != 0;
    ms_strlcpy (other, PQgetvalue (r, 0, 1), otherlen);
    PQclear (r);
    return held;
}

static void
lease_release (struct lease *l)
{
    const char *p[1] = { l->holder };
    ms_error_t e;

    if (!l->db)
        return;
    PQclear (db_exec (l->db, "lease_release",
                      "UPDATE leader_lease SET expires_at = '-infinity'"
                      " WHERE id = 1 AND holder = $1",
                      1, p, &e));
}

static void *
lease_main (void *arg)
{
    ms_daemon_t *d = arg;
    struct lease *l = d->ld.lease;

    pthread_mutex_lock (&l->mu);
    while (!l->stop) {
        char other[200] = "";
        ms_error_t e = { 0 };
        double t0;
        int got;
        bool kick = false;
        struct timespec ts;

        pthread_mutex_unlock (&l->mu);
        t0 = mono ();
        if (!l->db && lease_open (d, l, &e) < 0)
            got = -1;
        else
            got = lease_renew (l, other, sizeof (other), &e);
        pthread_mutex_lock (&l->mu);
        if (got > 0) {
            /* a lease that ran out meanwhile counts as a new one: another
             * instance may have led between */
            if (!l->held || t0 >= l->until) {
                l->epoch++;
                kick = true;
            }
            l->held = true;
            l->until = t0 + l->lease_s;
            l->err[0] = '\0';
        } else if (got == 0) {
            kick = l->held;
            l->held = false;
            ms_strlcpy (l->other, other, sizeof (l->other));
            l->err[0] = '\0';
        } else
            /* keep what we had: a held lease counts until it runs out */
            ms_strlcpy (l->err, e.text, sizeof (l->err));
        if (kick)
            dwake_kick (&d->wake);
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_sec += (time_t)l->period_s;
        ts.tv_nsec += (long)((l->period_s - (double)(time_t)l->period_s) * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        while (!l->stop
               && pthread_cond_timedwait (&l->cond, &l->mu, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock (&l->mu);
    lease_release (l);
    return NULL;
}

static int
lease_start (ms_daemon_t *d)
{
    struct lease *l = ms_xcalloc (1, sizeof (*l));

    holder_name (l->holder, sizeof (l->holder));
    l->lease_s = d->dc->leader_takeover_s / 2;
    l->period_s = d->dc->leader_takeover_s / 8;
    pthread_mutex_init (&l->mu, NULL);
    pthread_cond_init (&l->cond, NULL);
    d->ld.lease = l;
    if (pthread_create (&l->thread, NULL, lease_main, d) != 0) {
        daemon_log (LOG_ERR, "leadership: cannot start the lease thread");
        pthread_mutex_destroy (&l->mu);
        pthread_cond_destroy (&l->cond);
        free (l);
        d->ld.lease = NULL;
        return -1;
    }
    return 0;
}

/* Stop renewing and end the lease (another instance may lead at once). */
void
daemon_lease_stop (ms_daemon_t *d)
{
    struct lease *l = d->ld.lease;

    if (!l)
        return;
    pthread_mutex_lock (&l->mu);
    l->stop = true;
    pthread_cond_broadcast (&l->cond);
    pthread_mutex_unlock (&l->mu);
    pthread_join (l->thread, NULL);
    db_close (l->db);
    pthread_mutex_destroy (&l->mu);
    pthread_cond_destroy (&l->cond);
    free (l);
    d->ld.lease = NULL;
}

/* Whether this instance leads now: it holds the lease, and has held it
 * without a break since it began to lead. */
bool
daemon_leadership (ms_daemon_t *d)
{
    struct lease *l;
    char other[200], err[256];
    unsigned epoch;
    bool held;

    if (!d->ld.lease && lease_start (d) < 0)
        return false;
    l = d->ld.lease;
    pthread_mutex_lock (&l->mu);
    held = l->held && mono () < l->until;
    epoch = l->epoch;
    ms_strlcpy (other, l->other, sizeof (other));
    ms_strlcpy (err, l->err, sizeof (err));
    pthread_mutex_unlock (&l->mu);
    if (d->ld.leader) {
        if (held && epoch == d->ld.epoch)
            return true;
        if (err[0])
            daemon_log (LOG_WARNING,
                        "leadership lost: the lease was not renewed in "
                        "time: %s",
                        err);
        else
            daemon_log (LOG_WARNING, "leadership lost: the lease is %s's",
                        other[0] ? other : "nobody");
        d->ld.leader = false;
        d->ld.reconciled = false;
    }
    if (held) {
        daemon_log (LOG_NOTICE, "leading: this instance now schedules");
        d->ld.leader = true;
        d->ld.epoch = epoch;
        d->ld.reconciled = false;
    }
    return held;
}

bool
daemon_is_leader (const ms_daemon_t *d)
{
    return d->ld.leader;
}
