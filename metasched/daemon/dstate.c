/* dstate.c - the shared part of metaschedd's state (dstate.h): the
 * cycle's wake-up and the small helpers every step uses.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "metasched/daemon/dstate.h"
#include "metasched/common/util.h"
#include "partitions/backend.h"

void
dwake_kick (dwake_t *w)
{
    char c = 1;
    ssize_t n = write (w->fd[1], &c, 1);
    (void)n;
}

const char *
daemon_jstr (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_string (v) && *json_string_value (v) ? json_string_value (v)
                                                        : NULL;
}

/* Make room for need more bytes and the NUL in the growing buffer *buf
 * of *cap bytes, len of them used. */
void
daemon_reserve (char **buf, size_t len, size_t *cap, size_t need)
{
    if (len + need + 1 > *cap) {
        *cap = (len + need + 1) * 2;
        *buf = ms_xrealloc (*buf, *cap);
    }
}

int
cmp_jobinfo (const void *a, const void *b)
{
    const ms_job_info_t *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}
