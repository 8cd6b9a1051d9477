/* limits.h - the per-user limits of the API (doc/api.md "Limits"): the
 * admin's values (settings max_queued_per_user, max_held_per_user,
 * whatif_per_minute) as the server last read them, and the what-if rate
 * of each user. Thread-safe: every function takes the table's lock. */
#ifndef MS_API_LIMITS_H
#define MS_API_LIMITS_H

#include <stdbool.h>
#include <sys/types.h>

#include "metasched/api/settings.h"

/* The values are read again from the settings table when they are older
 * than this: a change through PUT /v1/settings holds within a second. */
#define LIMITS_TTL_S 1.0

typedef struct {
    int max_queued_per_user; /* 0: none */
    int max_held_per_user;
    int whatif_per_minute;
} ms_limits_values_t;

typedef struct ms_limits ms_limits_t;

ms_limits_t *limits_new (void);
void limits_free (ms_limits_t *l);

/* The values in *v; false when they are older than LIMITS_TTL_S at time
 * now (seconds, a monotonic clock) or were never set: read them again and
 * limits_set them. */
bool limits_get (ms_limits_t *l, double now, ms_limits_values_t *v);
void limits_set (ms_limits_t *l, double now, const ms_settings_t *s);

/* One what-if of uid at time now, per_minute a minute at most (0: no
 * limit): true when it may go. Each user has a bucket of per_minute
 * what-ifs that fills again at per_minute / 60 a second; when it is empty
 * *retry_after_s (whole seconds, at least 1) says when one is back. */
bool limits_whatif_take (ms_limits_t *l, uid_t uid, int per_minute, double now,
                         int *retry_after_s);

#endif /* MS_API_LIMITS_H */
