/* dcarbon.c - the zones' carbon signals (metaschedd.conf carbon_signal,
 * doc/daemon.md "Carbon intensity and price"): a thread of their own
 * reads each file source when it changes and polls each http(s) source
 * every carbon_poll_s (libcurl); the cycle builds from the fresh ones the
 * engine's signal set (core/carbon.h), which the policy scores with and
 * a snapshot keeps while a what-if reads it (daemon_carbon_hold). A zone
 * whose signal is missing, was read longer than carbon_max_age_s ago or
 * has no value now is left out: its clusters' jobs are scored on energy
 * alone, logged once, noted in the what-if and in /metrics.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>

#include <curl/curl.h>
#include <sys/stat.h>

#include "metasched/core/carbon.h"
#include "metasched/daemon/daemon_int.h"

#define HTTP_TIMEOUT_S 30L
/* A source's host that does not answer a connection in this long fails
 * the poll; the other zones' polls wait no longer for it. */
#define HTTP_CONNECT_TIMEOUT_S 10L

/* One source and what it last gave (under dcarbon.mu). */
typedef struct {
    const dconf_csig_t *conf;
    ms_csig_t sig;  /* the latest good signal; n 0: none yet */
    double read_at; /* wall () of the latest good read or check; 0: none */
    double next_poll;
    struct stat st; /* a file's, when it was read */
    char err[512];  /* the latest failure ("": none since) */
    char logged[512];
    bool stale; /* left out by the latest build */
    bool stale_known;
} dsrc_t;

/* The set the engine reads: the fresh zones' signals, kept while a
 * policy copy (a snapshot's) points into it. */
struct cset {
    ms_carbon_t cb;
    unsigned refs;   /* under dcarbon.mu */
    char note[1024]; /* the zones left out and why ("": none) */
};

struct dcarbon {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    pthread_t th;
    bool th_on, stop;
    dsrc_t *src;
    size_t n;
    unsigned gen, built_gen; /* a new signal bumps gen */
    struct cset *cur;        /* the cycle's (d->ds.pol.carbon points in) */
    double max_age, poll_s;
};

static void
sig_free (ms_csig_t *s)
{
    free (s->g);
    free (s->price);
    memset (s, 0, sizeof (*s));
}

/* Read or poll source s once (without dcarbon.mu): a new signal in *out
 * (n 0: unchanged), or -1 with errp. */
static int
fetch_file (dsrc_t *s, const struct stat *prev, struct stat *stp,
            ms_csig_t *out, ms_error_t *errp)
{
    ms_carbon_t cb;

    memset (out, 0, sizeof (*out));
    if (stat (s->conf->source, stp) < 0)
        return ms_err (errp, MS_ERR_INPUT, "%s: %s", s->conf->source,
                       strerror (errno));
    if (prev->st_ino == stp->st_ino && prev->st_dev == stp->st_dev
        && prev->st_size == stp->st_size
        && prev->st_mtim.tv_sec == stp->st_mtim.tv_sec
        && prev->st_mtim.tv_nsec == stp->st_mtim.tv_nsec)
        return 0;
    carbon_init (&cb);
    if (carbon_read_file (&cb, s->conf->zone, s->conf->source, errp) < 0) {
        carbon_free (&cb);
        return -1;
    }
    *out = cb.z[0];
    memset (&cb.z[0], 0, sizeof (cb.z[0]));
    carbon_free (&cb);
    return 0;
}

static int
fetch_url (const dsrc_t *s, ms_csig_t *out, ms_error_t *errp)
{
    CURL *c = curl_easy_init ();
    ms_buf_t b = { NULL, 0, MS_CARBON_MAX_BYTES, 0 };
    ms_carbon_t cb;
    long status = 0;
    CURLcode rc;
    int r = -1;

    memset (out, 0, sizeof (*out));
    if (!c)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: curl_easy_init failed",
                       s->conf->source);
    curl_easy_setopt (c, CURLOPT_URL, s->conf->source);
    curl_easy_setopt (c, CURLOPT_WRITEFUNCTION, ms_buf_write);
    curl_easy_setopt (c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt (c, CURLOPT_TIMEOUT, HTTP_TIMEOUT_S);
    curl_easy_setopt (c, CURLOPT_CONNECTTIMEOUT, HTTP_CONNECT_TIMEOUT_S);
    curl_easy_setopt (c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt (c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt (c, CURLOPT_MAXREDIRS, 3L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt (c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt (c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt (c, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
    curl_easy_setopt (c, CURLOPT_REDIR_PROTOCOLS,
                      CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
    rc = curl_easy_perform (c);
    curl_easy_getinfo (c, CURLINFO_RESPONSE_CODE, &status);
    if (b.overflow)
        ms_err (errp, MS_ERR_INPUT, "%s: more than %u bytes", s->conf->source,
                MS_CARBON_MAX_BYTES);
    else if (rc != CURLE_OK)
        ms_err (errp, MS_ERR_SYSTEM, "%s: %s", s->conf->source,
                curl_easy_strerror (rc));
    else if (status != 200)
        ms_err (errp, MS_ERR_INPUT, "%s: HTTP status %ld", s->conf->source,
                status);
    else if (!b.data)
        ms_err (errp, MS_ERR_INPUT, "%s: an empty answer", s->conf->source);
    else {
        carbon_init (&cb);
        if (carbon_parse_any (&cb, s->conf->zone, s->conf->source, b.data,
                              b.len, errp)
            == 0) {
            *out = cb.z[0];
            memset (&cb.z[0], 0, sizeof (cb.z[0]));
            r = 0;
        }
        carbon_free (&cb);
    }
    curl_easy_cleanup (c);
    free (b.data);
    return r;
}

/* One round over the sources (the files alone with files_only): what is
 * due read without the lock, its outcome stored under it. */
static void
round_once (struct dcarbon *dc, bool files_only)
{
    for (size_t i = 0; i < dc->n; i++) {
        dsrc_t *s = &dc->src[i];
        struct stat prev, st;
        ms_csig_t sig;
        ms_error_t e;
        double now = wall ();
        int rc;

        if (files_only && s->conf->url)
            continue;
        pthread_mutex_lock (&dc->mu);
        prev = s->st;
        if (s->conf->url && now < s->next_poll) {
            pthread_mutex_unlock (&dc->mu);
            continue;
        }
        pthread_mutex_unlock (&dc->mu);
        memset (&st, 0, sizeof (st));
        rc = s->conf->url ? fetch_url (s, &sig, &e)
                          : fetch_file (s, &prev, &st, &sig, &e);
        pthread_mutex_lock (&dc->mu);
        if (s->conf->url)
            s->next_poll = now + dc->poll_s;
        if (rc < 0)
            ms_strlcpy (s->err, e.text, sizeof (s->err));
        else {
            s->err[0] = '\0';
            s->logged[0] = '\0';
            s->read_at = now;
            if (sig.n) {
                sig_free (&s->sig);
                s->sig = sig;
                s->st = st;
                dc->gen++;
            }
        }
        pthread_mutex_unlock (&dc->mu);
    }
}

static void *
carbon_main (void *arg)
{
    struct dcarbon *dc = arg;

    pthread_mutex_lock (&dc->mu);
    while (!dc->stop) {
        struct timespec ts;
        pthread_mutex_unlock (&dc->mu);
        round_once (dc, false);
        pthread_mutex_lock (&dc->mu);
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        if (!dc->stop)
            pthread_cond_timedwait (&dc->cond, &dc->mu, &ts);
    }
    pthread_mutex_unlock (&dc->mu);
    return NULL;
}

void
daemon_carbon_start (ms_daemon_t *d)
{
    struct dcarbon *dc;

    if (!d->dc->ncsig)
        return;
    dc = ms_xcalloc (1, sizeof (*dc));
    pthread_mutex_init (&dc->mu, NULL);
    pthread_cond_init (&dc->cond, NULL);
    dc->n = d->dc->ncsig;
    dc->src = ms_xcalloc (dc->n, sizeof (*dc->src));
    for (size_t i = 0; i < dc->n; i++)
        dc->src[i].conf = &d->dc->csig[i];
    dc->max_age = d->dc->carbon_max_age_s;
    dc->poll_s = d->dc->carbon_poll_s;
    /* the files before the first cycle decides; the http(s) sources
     * only in the thread, which polls them at once: a host that does not
     * answer never holds the daemon's start, and until a signal arrives
     * their zones' clusters are scored on energy alone (stale_why) */
    round_once (dc, true);
    dc->th_on = pthread_create (&dc->th, NULL, carbon_main, dc) == 0;
    d->carbon = dc;
}

static void
cset_release (struct dcarbon *dc, struct cset *c)
{
    bool last;

    if (!c)
        return;
    pthread_mutex_lock (&dc->mu);
    last = --c->refs == 0;
    pthread_mutex_unlock (&dc->mu);
    if (last) {
        carbon_free (&c->cb);
        free (c);
    }
}

void
daemon_carbon_free (ms_daemon_t *d)
{
    struct dcarbon *dc = d->carbon;

    if (!dc)
        return;
    pthread_mutex_lock (&dc->mu);
    dc->stop = true;
    pthread_cond_broadcast (&dc->cond);
    pthread_mutex_unlock (&dc->mu);
    if (dc->th_on)
        pthread_join (dc->th, NULL);
    cset_release (dc, dc->cur);
    for (size_t i = 0; i < dc->n; i++)
        sig_free (&dc->src[i].sig);
    free (dc->src);
    pthread_mutex_destroy (&dc->mu);
    pthread_cond_destroy (&dc->cond);
    free (dc);
    d->carbon = NULL;
}

/* Why source s gives no signal now (NULL: it does); under dc->mu. */
static const char *
stale_why (const struct dcarbon *dc, const dsrc_t *s, double now, char *buf,
           size_t size)
{
    double g, p;

    if (!s->sig.n)
        snprintf (buf, size, "carbon signal missing, none read yet%s%s",
                  s->err[0] ? ": " : "", s->err);
    else if (now - s->read_at > dc->max_age)
        snprintf (buf, size, "read %.0f s ago, over carbon_max_age_s %.0f%s%s",
                  now - s->read_at, dc->max_age, s->err[0] ? ": " : "", s->err);
    else if (!carbon_over (&s->sig, dc->max_age, now, 1, &g, &p))
        snprintf (buf, size,
                  "no value for now (its steps end %.0f s ago, "
                  "carbon_max_age_s %.0f)",
                  now - (s->sig.t0 + s->sig.n * s->sig.step), dc->max_age);
    else
        return NULL;
    return buf;
}

/* A new set from the fresh zones; under dc->mu. */
static struct cset *
build (ms_daemon_t *d, struct dcarbon *dc, double now)
{
    struct cset *c = ms_xcalloc (1, sizeof (*c));
    size_t used = 0;

    carbon_init (&c->cb);
    c->cb.stale_s = dc->max_age;
    c->refs = 1;
    for (size_t i = 0; i < dc->n; i++) {
        dsrc_t *s = &dc->src[i];
        char why[700];
        const char *w = stale_why (dc, s, now, why, sizeof (why));
        if (w) {
            int n = snprintf (c->note + used, sizeof (c->note) - used,
                              "%szone %s: %s", used ? "; " : "", s->conf->zone,
                              w);
            if (n > 0 && (size_t)n < sizeof (c->note) - used)
                used += (size_t)n;
            if (!s->stale || !s->stale_known)
                daemon_log (LOG_WARNING,
                            "carbon: zone %s: %s; its clusters' jobs are "
                            "scored on energy alone",
                            s->conf->zone, w);
        } else {
            ms_csig_t cp = s->sig;
            cp.g = ms_xmalloc (cp.n * sizeof (double));
            memcpy (cp.g, s->sig.g, cp.n * sizeof (double));
            if (s->sig.price) {
                cp.price = ms_xmalloc (cp.n * sizeof (double));
                memcpy (cp.price, s->sig.price, cp.n * sizeof (double));
            }
            carbon_add (&c->cb, &cp);
            if (s->stale && s->stale_known)
                daemon_log (LOG_NOTICE, "carbon: zone %s: signal fresh again",
                            s->conf->zone);
        }
        if (s->err[0] && strcmp (s->err, s->logged)) {
            daemon_log (LOG_WARNING,
                        "carbon: zone %s: %s (keeping the last "
                        "good signal)",
                        s->conf->zone, s->err);
            ms_strlcpy (s->logged, s->err, sizeof (s->logged));
        }
        s->stale = w != NULL;
        s->stale_known = true;
    }
    c->cb.epoch = 0; /* the daemon's time is the epoch's */
    for (size_t k = 0; k < d->site->nclusters; k++) {
        const ms_clusterconf_t *cl = &d->site->clusters[k];
        ms_error_t e;
        if (cl->zone[0])
            (void)carbon_assign (&c->cb, cl->name, cl->zone, &e);
    }
    return c;
}

void
daemon_carbon_update (ms_daemon_t *d)
{
    struct dcarbon *dc = d->carbon;
    double now = wall ();
    struct cset *old = NULL;
    bool rebuild;

    if (!dc)
        return;
    pthread_mutex_lock (&dc->mu);
    rebuild = !dc->cur || dc->gen != dc->built_gen;
    for (size_t i = 0; i < dc->n && !rebuild; i++) {
        char why[700];
        rebuild = (stale_why (dc, &dc->src[i], now, why, sizeof (why)) != NULL)
                      != dc->src[i].stale
                  || (dc->src[i].err[0]
                      && strcmp (dc->src[i].err, dc->src[i].logged));
    }
    if (rebuild) {
        old = dc->cur;
        dc->cur = build (d, dc, now);
        dc->built_gen = dc->gen;
    }
    pthread_mutex_unlock (&dc->mu);
    cset_release (dc, old);
    d->cset = dc->cur;
    d->ds.pol.carbon = dc->cur->cb.nz ? &dc->cur->cb : NULL;
}

struct cset *
daemon_carbon_hold (ms_daemon_t *d)
{
    struct dcarbon *dc = d->carbon;
    struct cset *c;

    if (!dc)
        return NULL;
    pthread_mutex_lock (&dc->mu);
    if ((c = dc->cur))
        c->refs++;
    pthread_mutex_unlock (&dc->mu);
    return c;
}

void
daemon_carbon_drop (ms_daemon_t *d, struct cset *c)
{
    if (d->carbon)
        cset_release (d->carbon, c);
}

const char *
daemon_carbon_note (const ms_daemon_t *d)
{
    return d->cset && d->cset->note[0] ? d->cset->note : NULL;
}

/* metaschedd_carbon_intensity{zone} (gCO2eq/kWh now; none without a
 * value), metaschedd_carbon_signal_age_seconds{zone} (since the latest
 * good read; -1: none yet) and metaschedd_carbon_stale{zone} (1: energy
 * alone for its clusters). */
void
daemon_carbon_metrics (ms_daemon_t *d, char **buf, size_t *len, size_t *cap)
{
    struct dcarbon *dc = d->carbon;
    double now = wall ();

    if (!dc)
        return;
    pthread_mutex_lock (&dc->mu);
    for (int m = 0; m < 3; m++) {
        static const char *const names[]
            = { "metaschedd_carbon_intensity",
                "metaschedd_carbon_signal_age_seconds",
                "metaschedd_carbon_stale" };
        char line[256];
        int n = snprintf (line, sizeof (line), "# TYPE %s gauge\n", names[m]);
        daemon_reserve (buf, *len, cap, (size_t)n + 1);
        memcpy (*buf + *len, line, (size_t)n + 1);
        *len += (size_t)n;
        for (size_t i = 0; i < dc->n; i++) {
            const dsrc_t *s = &dc->src[i];
            double v, p;
            char why[700];
            if (m == 0) {
                if (!s->sig.n
                    || !carbon_over (&s->sig, dc->max_age, now, 1, &v, &p))
                    continue;
            } else if (m == 1)
                v = s->read_at > 0 ? now - s->read_at : -1;
            else
                v = stale_why (dc, s, now, why, sizeof (why)) ? 1 : 0;
            n = snprintf (line, sizeof (line), "%s{zone=\"%s\"} %.3f\n",
                          names[m], s->conf->zone, v);
            daemon_reserve (buf, *len, cap, (size_t)n + 1);
            memcpy (*buf + *len, line, (size_t)n + 1);
            *len += (size_t)n;
        }
    }
    pthread_mutex_unlock (&dc->mu);
}
