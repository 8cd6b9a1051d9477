/* tagged.c - the cluster jobs that carry a meta job's tag: each
 * cluster's listing read for tags whose MAC verifies and whose user is
 * the meta job's owner (collect_tags, sorted by tag for reconcile.c), a
 * forged claim logged once while it lasts; a live meta job by id
 * (find_live).
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

static int
cmp_tagged (const void *a, const void *b)
{
    const tagged_t *x = a, *y = b;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->j->id < y->j->id ? -1 : x->j->id > y->j->id;
}

const queue_live_t *
find_live (const queue_live_t *live, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (live[mid].id == id)
            return &live[mid];
        if (live[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int
cmp_forgery (const void *a, const void *b)
{
    const forgery_t *x = a, *y = b;
    if (x->cl != y->cl)
        return x->cl < y->cl ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Cluster job j of cluster ci claims meta job `claim` by a tag that does
 * not prove it: into the cycle's list of forgeries (nf), logged and
 * counted the first time a listing shows it (it was not in old). Nothing
 * is done to it or to the meta job on its account. */
static void
forgery_add (forgery_t f, forgery_t **nf, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *nf = ms_xrealloc (*nf, *cap * sizeof (**nf));
    }
    (*nf)[(*n)++] = f;
}

static void
forgery (ms_daemon_t *d, size_t ci, const ms_job_info_t *j, int64_t claim,
         const char *why, const forgery_t *old, size_t nold, forgery_t **nf,
         size_t *n, size_t *cap)
{
    forgery_t f = { ci, j->id };

    forgery_add (f, nf, n, cap);
    if (nold && bsearch (&f, old, nold, sizeof (f), cmp_forgery))
        return;
    pthread_mutex_lock (&d->ds.mu);
    d->forge.forged++;
    pthread_mutex_unlock (&d->ds.mu);
    daemon_log (LOG_WARNING,
                "forged tag: %s job %" PRIu64 " of user %s (uid %" PRIu32
                ") claims meta job %" PRId64
                " with %s; it is not adopted, counted or cancelled as "
                "that job's",
                d->cl[ci].conf->name, j->id, j->user[0] ? j->user : "?",
                j->user_id, claim, why);
}

/* Every cluster job whose tag proves it a copy of a meta job in flight,
 * by tag: the tag's MAC verifies on the job's cluster (tag.h) and the
 * job runs as the meta job's owner. A claim that is not proven is a
 * forgery (or a copy of an older metaschedd, whose tags had no MAC): it is
 * logged once and counted, and left out. */
tagged_t *
collect_tags (ms_daemon_t *d, const queue_live_t *live, size_t nlive,
              size_t *np)
{
    size_t n = 0, cap = 0, nf = 0, fcap = 0, k0 = 0;
    tagged_t *t = NULL;
    forgery_t *f = NULL;

    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        if (!c->fresh) {
            /* not listed this cycle: what was noted of it stays */
            for (; k0 < d->forge.n && d->forge.list[k0].cl <= i; k0++)
                if (d->forge.list[k0].cl == i)
                    forgery_add (d->forge.list[k0], &f, &nf, &fcap);
            continue;
        }
        for (size_t k = 0; k < c->njobs; k++) {
            const ms_job_info_t *j = &c->jobs[k];
            const queue_live_t *l;
            int64_t claim;
            tag_check_t tc;
            char why[200];

            /* an array stands for itself by its own record (the one whose
             * id is the array's); its tasks carry the tag too */
            if (j->array_job_id && j->array_job_id != j->id)
                continue;
            tc = tag_check (&d->tag_key, j->comment, c->conf->name, &claim);
            if (tc == TAG_NONE)
                continue;
            if (tc != TAG_VALID) {
                forgery (d, i, j, claim, tag_check_why (tc), d->forge.list,
                         d->forge.n, &f, &nf, &fcap);
                continue;
            }
            l = find_live (live, nlive, claim);
            if (!l)
                continue; /* no job in flight to take */
            if (strcmp (j->user, l->owner)) {
                snprintf (why, sizeof (why),
                          "a valid tag of another cluster job (the meta "
                          "job's owner is %s)",
                          l->owner);
                forgery (d, i, j, claim, why, d->forge.list, d->forge.n, &f,
                         &nf, &fcap);
                continue;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                t = ms_xrealloc (t, cap * sizeof (*t));
            }
            t[n].tag = claim;
            t[n].cl = i;
            t[n].j = j;
            n++;
        }
    }
    if (n)
        qsort (t, n, sizeof (*t), cmp_tagged);
    free (d->forge.list);
    d->forge.list = f;
    d->forge.n = nf;
    *np = n;
    return t;
}
