/* mixids.c - the ids of the jobs counted in metaschedd's job mix that are
 * still in the queue (mixids.h). Linear probing at most half full; a
 * prune builds the table again from the ids it keeps, so that no slot is
 * ever removed in place. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/daemon/mixids.h"

struct mixid {
    int64_t id;
    uint32_t pass; /* the latest pass that saw the job */
    bool used;
};

#define MIXIDS_MIN 64

void
mixids_init (ms_mixids_t *s)
{
    memset (s, 0, sizeof (*s));
}

void
mixids_free (ms_mixids_t *s)
{
    free (s->slot);
    mixids_init (s);
}

static size_t
mixid_hash (int64_t id, size_t cap)
{
    uint64_t h = (uint64_t)id * UINT64_C (0x9E3779B97F4A7C15);
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* The slot of id, or the free slot where it would go. */
static struct mixid *
mixid_find (const ms_mixids_t *s, int64_t id)
{
    size_t i = mixid_hash (id, s->cap);

    while (s->slot[i].used && s->slot[i].id != id)
        i = (i + 1) & (s->cap - 1);
    return &s->slot[i];
}

/* The table again at cap slots, with the ids of the old one seen in the
 * current pass (every one with keep_all). */
static void
mixids_rebuild (ms_mixids_t *s, size_t cap, bool keep_all)
{
    struct mixid *old = s->slot;
    size_t ocap = s->cap;

    s->slot = ms_xcalloc (cap, sizeof (*s->slot));
    s->cap = cap;
    s->n = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].used && (keep_all || old[i].pass == s->pass)) {
            struct mixid *m = mixid_find (s, old[i].id);
            *m = old[i];
            s->n++;
        }
    free (old);
}

bool
mixids_add (ms_mixids_t *s, int64_t id)
{
    struct mixid *m;

    if (2 * (s->n + 1) > s->cap)
        mixids_rebuild (s, s->cap ? 2 * s->cap : MIXIDS_MIN, true);
    m = mixid_find (s, id);
    m->pass = s->pass;
    if (m->used)
        return false;
    m->used = true;
    m->id = id;
    s->n++;
    return true;
}

bool
mixids_has (const ms_mixids_t *s, int64_t id)
{
    return s->n > 0 && mixid_find (s, id)->used;
}

void
mixids_seen (ms_mixids_t *s, int64_t id)
{
    struct mixid *m;

    if (s->n == 0)
        return;
    m = mixid_find (s, id);
    if (m->used)
        m->pass = s->pass;
}

void
mixids_pass (ms_mixids_t *s)
{
    s->pass++;
}

size_t
mixids_prune (ms_mixids_t *s)
{
    size_t before = s->n, cap = MIXIDS_MIN, kept = 0;

    if (s->n == 0)
        return 0;
    for (size_t i = 0; i < s->cap; i++)
        kept += s->slot[i].used && s->slot[i].pass == s->pass;
    if (kept == before)
        return 0;
    while (cap < 4 * kept)
        cap *= 2;
    mixids_rebuild (s, cap, false);
    return before - s->n;
}

size_t
mixids_count (const ms_mixids_t *s)
{
    return s->n;
}
