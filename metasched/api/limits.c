/* limits.c - the per-user limits of the API (limits.h).
 *
 * The what-if rate is a token bucket per user: a burst of per_minute at
 * most, then per_minute / 60 a second. The buckets live in one array
 * under the table's lock; a bucket full again (its user asked nothing for
 * a minute) says nothing a new one would not, so such buckets go when the
 * array has doubled since the last sweep: the array holds the users of
 * about the last minute. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/api/limits.h"

typedef struct {
    uid_t uid;
    double tokens;
    double at; /* when tokens was counted */
} bucket_t;

struct ms_limits {
    pthread_mutex_t mu;
    ms_limits_values_t v;
    double read_at;
    bool read;
    bucket_t *b;
    size_t n, cap, swept; /* swept: n after the last sweep */
};

ms_limits_t *
limits_new (void)
{
    ms_limits_t *l = calloc (1, sizeof (*l));

    if (l)
        pthread_mutex_init (&l->mu, NULL);
    return l;
}

void
limits_free (ms_limits_t *l)
{
    if (!l)
        return;
    pthread_mutex_destroy (&l->mu);
    free (l->b);
    free (l);
}

bool
limits_get (ms_limits_t *l, double now, ms_limits_values_t *v)
{
    bool fresh;

    pthread_mutex_lock (&l->mu);
    *v = l->v;
    fresh = l->read && now - l->read_at < LIMITS_TTL_S && now >= l->read_at;
    pthread_mutex_unlock (&l->mu);
    return fresh;
}

void
limits_set (ms_limits_t *l, double now, const ms_settings_t *s)
{
    pthread_mutex_lock (&l->mu);
    l->v.max_queued_per_user = s->max_queued_per_user;
    l->v.max_held_per_user = s->max_held_per_user;
    l->v.whatif_per_minute = s->whatif_per_minute;
    l->read_at = now;
    l->read = true;
    pthread_mutex_unlock (&l->mu);
}

/* The bucket's tokens at now (at most per_minute). */
static double
refill (const bucket_t *b, int per_minute, double now)
{
    double t = b->tokens;

    if (now > b->at)
        t += (now - b->at) * per_minute / 60.0;
    return t > per_minute ? per_minute : t;
}

/* Drop the buckets that are full again. Caller holds l->mu. */
static void
sweep (ms_limits_t *l, int per_minute, double now)
{
    size_t k = 0;

    for (size_t i = 0; i < l->n; i++)
        if (refill (&l->b[i], per_minute, now) < per_minute)
            l->b[k++] = l->b[i];
    l->n = l->swept = k;
}

bool
limits_whatif_take (ms_limits_t *l, uid_t uid, int per_minute, double now,
                    int *retry_after_s)
{
    bucket_t *b = NULL;
    bool ok;

    *retry_after_s = 0;
    if (per_minute <= 0)
        return true;
    pthread_mutex_lock (&l->mu);
    for (size_t i = 0; i < l->n && !b; i++)
        if (l->b[i].uid == uid)
            b = &l->b[i];
    if (!b) {
        if (l->n >= 2 * l->swept + 64)
            sweep (l, per_minute, now);
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 64;
            bucket_t *nb = realloc (l->b, cap * sizeof (*nb));
            if (!nb) {
                pthread_mutex_unlock (&l->mu);
                *retry_after_s = 1; /* out of memory: refuse, not fail */
                return false;
            }
            l->b = nb;
            l->cap = cap;
        }
        b = &l->b[l->n++];
        b->uid = uid;
        b->tokens = per_minute;
        b->at = now;
    }
    b->tokens = refill (b, per_minute, now);
    b->at = now;
    ok = b->tokens >= 1;
    if (ok)
        b->tokens -= 1;
    else
        *retry_after_s = (int)ceil ((1 - b->tokens) * 60.0 / per_minute);
    if (!ok && *retry_after_s < 1)
        *retry_after_s = 1;
    pthread_mutex_unlock (&l->mu);
    return ok;
}
