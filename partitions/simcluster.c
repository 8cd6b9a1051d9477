/* simcluster.c - event-driven simulated clusters (see simcluster.h).
 *
 * Data: one array of every job ever submitted (the cluster job id is the
 * index + 1, unique in the world), per partition a queue of pending jobs
 * kept sorted and its running ones by predicted end (their start order
 * is their seqs'), and one binary heap of job ends
 * and begin times (a job submitted with a begin time is not eligible
 * before it, as Slurm's --begin). A scheduling pass runs on a partition
 * when something changed there: a submit, an update, a cancel, an end or
 * a begin time reached. The data is simcluster_int.h's; the backend
 * operations that submit, update and cancel are simcluster_ops.c's.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "partitions/simcluster_int.h"

const char *
sim_backfill_name (sim_backfill_t b)
{
    switch (b) {
    case SIM_EASY:
        return "easy";
    case SIM_FCFS:
        return "fcfs";
    case SIM_CONSERVATIVE:
        return "conservative";
    }
    return "?";
}

int
sim_backfill_parse (const char *s, sim_backfill_t *out)
{
    for (int b = SIM_EASY; b <= SIM_CONSERVATIVE; b++)
        if (!strcmp (s, sim_backfill_name ((sim_backfill_t)b))) {
            *out = (sim_backfill_t)b;
            return 0;
        }
    return -1;
}

static void
vec_push (idxvec_t *v, size_t x)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 16;
        v->v = ms_xrealloc (v->v, v->cap * sizeof (*v->v));
    }
    v->v[v->n++] = x;
}

void
sim_vec_remove (idxvec_t *v, size_t x)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i] == x) {
            memmove (v->v + i, v->v + i + 1, (v->n - i - 1) * sizeof (size_t));
            v->n--;
            return;
        }
}

/* Queue order: lower nice first, then older, then lower id. */
static int
queue_cmp (const simjob_t *a, const simjob_t *b)
{
    if (a->nice != b->nice)
        return a->nice < b->nice ? -1 : 1;
    if (a->order_time != b->order_time)
        return a->order_time < b->order_time ? -1 : 1;
    return a < b ? -1 : a > b; /* the id is the index + 1 */
}

void
sim_queue_insert (simworld_t *w, simpart_t *p, size_t j)
{
    size_t lo = 0, hi = p->pending.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (queue_cmp (&w->jobs[p->pending.v[mid]], &w->jobs[j]) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    vec_push (&p->pending, j);
    memmove (p->pending.v + lo + 1, p->pending.v + lo,
             (p->pending.n - 1 - lo) * sizeof (size_t));
    p->pending.v[lo] = j;
}

void
sim_heap_push (simworld_t *w, double t, size_t job)
{
    size_t i;
    if (w->nheap == w->capheap) {
        w->capheap = w->capheap ? w->capheap * 2 : 256;
        w->heap = ms_xrealloc (w->heap, w->capheap * sizeof (*w->heap));
    }
    i = w->nheap++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (w->heap[up].t <= t)
            break;
        w->heap[i] = w->heap[up];
        i = up;
    }
    w->heap[i].t = t;
    w->heap[i].job = job;
}

static heapent_t
heap_pop (simworld_t *w)
{
    heapent_t top = w->heap[0], last = w->heap[--w->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->nheap)
            break;
        if (c + 1 < w->nheap && w->heap[c + 1].t < w->heap[c].t)
            c++;
        if (w->heap[c].t >= last.t)
            break;
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (w->nheap)
        w->heap[i] = last;
    return top;
}

void
sim_notify (simworld_t *w, sim_evtype_t type, const simjob_t *j)
{
    sim_event_t ev;
    sim_hint_t hint;
    if (!w->listen)
        return;
    hint.job = j->wjob;
    hint.pred_runtime_s = j->pred_s;
    hint.order_time = j->order_time;
    hint.gate = j->gate;
    hint.rank = j->rank;
    /* every field set here: no memset first */
    ev.type = type;
    ev.t = w->now;
    ev.cluster = w->conf->parts[j->part].cluster;
    ev.part = j->part;
    ev.id = job_id (w, j);
    ev.hint = &hint;
    ev.nodes = j->nodes;
    ev.f_khz = j->f_khz;
    ev.submit = j->submit;
    ev.start = j->start;
    ev.end = j->end;
    ev.power_w = j->power_w;
    ev.started = j->start >= 0;
    ev.energy_j = 0;
    if (type != SIM_EV_START && j->start >= 0)
        ev.energy_j = j->power_w * j->nodes * (j->end - j->start);
    ev.killed = j->killed;
    w->listen (w->listen_arg, &ev);
}

static gate_t *
gate_of (simworld_t *w, const simjob_t *j)
{
    if (!j->gate || j->gate >= w->ngates)
        return NULL;
    return &w->gates[j->gate];
}

/* The power cap (clusters.conf power_cap_w) is the cluster's, whichever
 * policy routes to it: a job starts only while the partition's draw (idle
 * nodes at idle power, running jobs at theirs) stays under the cap with
 * it. The draw above idle is linear in jobs like nodes are, so the
 * passes track it beside free nodes: the room is the cap minus every node
 * at idle minus the running jobs' power above idle. A job that alone
 * would exceed the cap needs the whole room (it runs alone). */
static double
cap_room0_of (const simpart_t *p)
{
    if (!(p->pc->power_cap_w > 0))
        return INFINITY;
    return p->pc->power_cap_w - p->pc->nodes * p->arch->idle_power_w;
}

/* The same, as simworld_new kept it. */
static inline double
cap_room0 (const simpart_t *p)
{
    return p->room0;
}

static void sim_job_truth (simworld_t *w, simjob_t *j);

/* Job j's true runtime and power, asked of the truth when not yet. */
static inline void
job_truth (simworld_t *w, simjob_t *j)
{
    if (!j->known)
        sim_job_truth (w, j);
}

/* What job j takes of its partition's room. Without a cap the room is
 * infinite and any finite need fits it: 0 then, without asking a lazy
 * truth for the job's power. */
static inline double
power_need (simworld_t *w, const simpart_t *p, simjob_t *j)
{
    double r0 = cap_room0 (p), need;

    if (r0 == INFINITY)
        return 0;
    job_truth (w, j);
    need = j->nodes * (j->power_w - p->arch->idle_power_w);
    return need > r0 ? r0 : need;
}

static double
cap_room (const simpart_t *p)
{
    return cap_room0 (p) - p->dyn_w;
}

/* A small tolerance: sums of doubles in a different order. */
static bool
cap_fits (double need, double room)
{
    return need <= room + 1e-6;
}

/* Cancel a pending job (its gate opened for a sibling, or a cancel). */
void
sim_cancel_pending (simworld_t *w, simjob_t *j)
{
    j->state = MS_JOB_CANCELLED;
    j->end = w->now;
    sim_notify (w, SIM_EV_CANCEL, j);
}

static void
start_job (simworld_t *w, simpart_t *p, size_t ji)
{
    simjob_t *j = &w->jobs[ji];
    gate_t *g = gate_of (w, j);
    double run, lim = limit_s (j);

    job_truth (w, j);
    run = j->true_rt;
    j->state = MS_JOB_RUNNING;
    j->start = w->now;
    if (run > lim) {
        run = lim;
        j->killed = true;
    }
    j->end = w->now + run;
    /* Invariant: no partition over-allocated nor over its power cap
     * (checked on every start). */
    if (!cap_fits (power_need (w, p, j), cap_room (p)))
        w->violations++;
    p->busy += j->nodes;
    p->dyn_w += j->nodes * (j->power_w - p->arch->idle_power_w);
    if (p->busy > p->pc->nodes)
        w->violations++;
    sim_ends_insert (p, j, ji, w->nstarts++);
    sim_heap_push (w, j->end, ji);
    sim_notify (w, SIM_EV_START, j);
    if (g) {
        /* The start gate: the first sibling to start wins. */
        g->started = true;
        for (size_t s = g->first; s != NO_JOB; s = w->jobs[s].gate_next)
            if (w->jobs[s].state == MS_JOB_PENDING)
                sim_cancel_pending (w, &w->jobs[s]);
    }
}

/* The predicted end of a running job: its start plus its predicted
 * runtime, at most its limit. */
static double
predicted_end_raw (const simjob_t *j)
{
    double e = j->start + j->pred_s;
    if (e > j->start + limit_s (j))
        e = j->start + limit_s (j);
    return e;
}

/* Predicted end of a running job, as reservations see it. */
double
sim_predicted_end (const simworld_t *w, const simjob_t *j)
{
    double e = predicted_end_raw (j);
    return e < w->now ? w->now : e;
}

void
sim_ends_insert (simpart_t *p, const simjob_t *j, size_t ji, uint32_t seq)
{
    endvec_t *v = &p->ends;
    double t = predicted_end_raw (j);
    size_t lo = 0, hi = v->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v->v[mid].t < t || (v->v[mid].t == t && v->v[mid].seq < seq))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 16;
        v->v = ms_xrealloc (v->v, v->cap * sizeof (*v->v));
    }
    memmove (v->v + lo + 1, v->v + lo, (v->n - lo) * sizeof (*v->v));
    v->v[lo].t = t;
    v->v[lo].job = (uint32_t)ji;
    v->v[lo].seq = seq;
    v->n++;
}

/* Returns the seq job ji had. */
uint32_t
sim_ends_remove (simpart_t *p, size_t ji)
{
    endvec_t *v = &p->ends;
    for (size_t i = 0; i < v->n; i++)
        if (v->v[i].job == ji) {
            uint32_t seq = v->v[i].seq;
            memmove (v->v + i, v->v + i + 1, (v->n - i - 1) * sizeof (*v->v));
            v->n--;
            return seq;
        }
    return 0;
}

/* Sort a[0..n) by t, equal ends in their order (what a merge sort
 * gives, as the C library's qsort did here), with tmp[0..n) beside:
 * runs of 16 by insertion, then merges, the comparison inline. */
static void
ends_sort (heapent_t *a, heapent_t *tmp, size_t n)
{
    heapent_t *src = a, *dst = tmp;

    for (size_t r = 0; r < n; r += 16) {
        size_t e = r + 16 < n ? r + 16 : n;
        for (size_t i = r + 1; i < e; i++) {
            heapent_t x = a[i];
            size_t j = i;
            for (; j > r && a[j - 1].t > x.t; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
    }
    for (size_t w = 16; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = src[j].t < src[i].t ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        heapent_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy (a, src, n * sizeof (*a));
}

/* Running jobs of p as (predicted end, index) into w->scratch, sorted by
 * end, equal ends in start order. p->ends holds them so already, but for
 * the clamp to now: those whose predicted end is past (a prefix) all end
 * now, in start order; they are put back in it by their seqs. */
static size_t
sorted_ends (simworld_t *w, simpart_t *p)
{
    const endvec_t *e = &p->ends;
    size_t k = 0;

    if (w->capscratch < e->n) {
        w->capscratch = e->n * 2;
        /* the sort's second half beside the entries */
        w->scratch = ms_xrealloc (w->scratch,
                                  2 * w->capscratch * sizeof (*w->scratch));
    }
    for (; k < e->n && e->v[k].t <= w->now; k++) {
        w->scratch[k].t = e->v[k].seq;
        w->scratch[k].job = e->v[k].job;
    }
    if (k > 1)
        ends_sort (w->scratch, w->scratch + w->capscratch, k);
    for (size_t i = 0; i < k; i++)
        w->scratch[i].t = w->now;
    for (; k < e->n; k++) {
        w->scratch[k].t = e->v[k].t;
        w->scratch[k].job = e->v[k].job;
    }
    return e->n;
}

/* A better-ranked sibling could start now on its own partition: leave
 * this entry for it. */
static bool
deferred (simworld_t *w, const simjob_t *j)
{
    gate_t *g;
    if (j->rank == 0 || w->no_defer)
        return false; /* the preferred sibling, or the second round */
    g = gate_of (w, j);
    if (!g)
        return false;
    for (size_t s = g->first; s != NO_JOB; s = w->jobs[s].gate_next) {
        simjob_t *sj = &w->jobs[s];
        const simpart_t *sp = &w->parts[sj->part];
        if (sj == j || sj->state != MS_JOB_PENDING || sj->begin > w->now
            || sj->rank >= j->rank)
            continue;
        if (sp->pc->nodes - sp->busy >= sj->nodes
            && cap_fits (power_need (w, sp, sj), cap_room (sp)))
            return true;
    }
    return false;
}

/* Conservative backfill: a profile of free nodes and power room over
 * time. */
typedef struct {
    double *t;
    int *free;
    double *room;
    size_t n, cap;
} profile_t;

static void
profile_split (profile_t *pr, double t)
{
    size_t i;
    for (i = 0; i < pr->n && pr->t[i] < t; i++)
        ;
    if (i < pr->n && pr->t[i] == t)
        return;
    if (pr->n == pr->cap) {
        pr->cap = pr->cap * 2 + 16;
        pr->t = ms_xrealloc (pr->t, pr->cap * sizeof (double));
        pr->free = ms_xrealloc (pr->free, pr->cap * sizeof (int));
        pr->room = ms_xrealloc (pr->room, pr->cap * sizeof (double));
    }
    memmove (pr->t + i + 1, pr->t + i, (pr->n - i) * sizeof (double));
    memmove (pr->free + i + 1, pr->free + i, (pr->n - i) * sizeof (int));
    memmove (pr->room + i + 1, pr->room + i, (pr->n - i) * sizeof (double));
    pr->t[i] = t;
    pr->free[i] = pr->free[i - 1]; /* i > 0: t > pr->t[0] = now */
    pr->room[i] = pr->room[i - 1];
    pr->n++;
}

/* Earliest start >= t[0] where n nodes and need watts of room are free
 * for dur seconds. */
static double
profile_find (const profile_t *pr, int n, double need, double dur)
{
    for (size_t i = 0; i < pr->n; i++) {
        double s = pr->t[i];
        size_t k;
        bool ok = true;
        for (k = i; k < pr->n && pr->t[k] < s + dur; k++)
            if (pr->free[k] < n || !cap_fits (need, pr->room[k])) {
                ok = false;
                break;
            }
        if (ok)
            return s;
    }
    return INFINITY; /* cannot happen: the last step has every node free */
}

static void
profile_take (profile_t *pr, double s, double dur, int n, double need)
{
    profile_split (pr, s);
    if (isfinite (s + dur))
        profile_split (pr, s + dur);
    for (size_t i = 0; i < pr->n; i++)
        if (pr->t[i] >= s && pr->t[i] < s + dur) {
            pr->free[i] -= n;
            pr->room[i] -= need;
        }
}

static void
pass_conservative (simworld_t *w, simpart_t *p)
{
    profile_t pr = { 0 };
    size_t nr = sorted_ends (w, p), keep = 0;
    int freen = p->pc->nodes - p->busy;
    double room = cap_room (p);

    pr.cap = nr + 16;
    pr.t = ms_xmalloc (pr.cap * sizeof (double));
    pr.free = ms_xmalloc (pr.cap * sizeof (int));
    pr.room = ms_xmalloc (pr.cap * sizeof (double));
    pr.t[0] = w->now;
    pr.free[0] = freen;
    pr.room[0] = room;
    pr.n = 1;
    for (size_t i = 0; i < nr; i++) {
        const simjob_t *rj = &w->jobs[w->scratch[i].job];
        freen += rj->nodes;
        room += rj->nodes * (rj->power_w - p->arch->idle_power_w);
        if (i == nr - 1)
            room = cap_room0 (p); /* all ended: no drift */
        if (w->scratch[i].t == pr.t[pr.n - 1]) {
            pr.free[pr.n - 1] = freen;
            pr.room[pr.n - 1] = room;
        } else {
            pr.t[pr.n] = w->scratch[i].t;
            pr.room[pr.n] = room;
            pr.free[pr.n++] = freen;
        }
    }
    for (size_t i = 0; i < p->pending.n; i++) {
        size_t ji = p->pending.v[i];
        simjob_t *j = &w->jobs[ji];
        double dur = j->pred_s > 0 ? j->pred_s : 1;
        double s, need;
        if (j->state != MS_JOB_PENDING)
            continue;
        if (j->late) {
            sim_cancel_pending (w, j);
            continue;
        }
        if (j->begin > w->now) {
            /* not eligible yet: it neither starts nor reserves */
            p->pending.v[keep++] = ji;
            continue;
        }
        if (j->rank && deferred (w, j)) {
            p->deferred = true;
            p->pending.v[keep++] = ji;
            continue;
        }
        need = power_need (w, p, j);
        s = profile_find (&pr, j->nodes, need, dur);
        if (s <= w->now && j->nodes <= p->pc->nodes - p->busy
            && cap_fits (need, cap_room (p))) {
            profile_take (&pr, w->now, dur, j->nodes, need);
            start_job (w, p, ji);
            continue;
        }
        if (isfinite (s))
            profile_take (&pr, s, dur, j->nodes, need);
        p->pending.v[keep++] = ji;
    }
    p->pending.n = keep;
    free (pr.t);
    free (pr.free);
    free (pr.room);
}

/* EASY backfill, doc/architecture.md "Simulator" (Lifka 1995; Mu'alem and
 * Feitelson 2001): start jobs in queue order while they fit; the first that
 * does not fit gets a reservation at the shadow time, when enough running jobs
 * will have ended by their predicted runtimes; a later job may start now if it
 * fits in the free nodes and either ends (by its prediction) before the shadow
 * time or uses only nodes the reservation does not need (extra nodes).
 * Under a power cap, "fits" and the reservation count the power room as
 * they count nodes. */
static void
pass_easy (simworld_t *w, simpart_t *p, bool fcfs)
{
    int freen = p->pc->nodes - p->busy;
    bool reserved = false;
    double shadow = INFINITY, extra_w = 0;
    int extra = 0;
    size_t keep = 0, i;

    for (i = 0; i < p->pending.n; i++) {
        size_t ji = p->pending.v[i];
        simjob_t *j = &w->jobs[ji];
        double need;

        if (j->state != MS_JOB_PENDING)
            continue;
        if (j->late) {
            sim_cancel_pending (w, j);
            continue;
        }
        if (freen <= 0 && reserved)
            break;
        if (j->begin > w->now) {
            /* not eligible yet: it neither starts nor reserves */
            p->pending.v[keep++] = ji;
            continue;
        }
        if (j->rank && deferred (w, j)) {
            p->deferred = true;
            p->pending.v[keep++] = ji;
            continue;
        }
        need = power_need (w, p, j);
        if (!reserved) {
            if (j->nodes <= freen && cap_fits (need, cap_room (p))) {
                start_job (w, p, ji);
                freen -= j->nodes;
                continue;
            }
            p->pending.v[keep++] = ji;
            if (fcfs) {
                i++;
                break;
            }
            /* The reservation of the first job that does not fit. */
            size_t nr = sorted_ends (w, p);
            int avail = freen;
            double room = cap_room (p);
            reserved = true;
            for (size_t k = 0; k < nr; k++) {
                const simjob_t *rj = &w->jobs[w->scratch[k].job];
                avail += rj->nodes;
                room += rj->nodes * (rj->power_w - p->arch->idle_power_w);
                if (k == nr - 1)
                    room = cap_room0 (p);
                if (avail >= j->nodes && cap_fits (need, room)) {
                    shadow = w->scratch[k].t;
                    extra = avail - j->nodes;
                    extra_w = room - need;
                    break;
                }
            }
            continue;
        }
        if (j->nodes <= freen && cap_fits (need, cap_room (p))) {
            bool before = w->now + j->pred_s <= shadow;
            if (before || (j->nodes <= extra && cap_fits (need, extra_w))) {
                start_job (w, p, ji);
                freen -= j->nodes;
                if (!before) {
                    extra -= j->nodes;
                    extra_w -= need;
                }
                continue;
            }
        }
        p->pending.v[keep++] = ji;
    }
    for (; i < p->pending.n; i++)
        p->pending.v[keep++] = p->pending.v[i];
    p->pending.n = keep;
}

static void
pass (simworld_t *w, simpart_t *p)
{
    p->dirty = false;
    p->deferred = false;
    if (!p->pending.n)
        return;
    if (w->bf == SIM_CONSERVATIVE)
        pass_conservative (w, p);
    else
        pass_easy (w, p, w->bf == SIM_FCFS);
}

void
simworld_schedule (simworld_t *w)
{
    /* Two rounds: an entry deferred to a better sibling in the first round
     * gets its chance in the second if the sibling did not start. */
    bool again = false;
    for (size_t i = 0; i < w->conf->nparts; i++)
        if (w->parts[i].dirty) {
            pass (w, &w->parts[i]);
            again |= w->parts[i].deferred;
        }
    if (!again)
        return;
    w->no_defer = true;
    for (size_t i = 0; i < w->conf->nparts; i++)
        if (w->parts[i].deferred)
            pass (w, &w->parts[i]);
    w->no_defer = false;
}

static void
end_job (simworld_t *w, size_t ji)
{
    simjob_t *j = &w->jobs[ji];
    simpart_t *p = &w->parts[j->part];

    j->state = j->killed ? MS_JOB_TIMEOUT : MS_JOB_COMPLETED;
    p->busy -= j->nodes;
    p->dyn_w -= j->nodes * (j->power_w - p->arch->idle_power_w);
    if (p->busy == 0)
        p->dyn_w = 0; /* no drift from rounding */
    sim_ends_remove (p, ji);
    p->dirty = true;
    sim_notify (w, SIM_EV_END, j);
}

void
simworld_advance (simworld_t *w, double t)
{
    while (w->nheap && w->heap[0].t <= t) {
        double et = w->heap[0].t;
        if (et > w->now)
            w->now = et;
        while (w->nheap && w->heap[0].t <= et) {
            heapent_t e = heap_pop (w);
            simjob_t *j = &w->jobs[e.job];
            if (j->state == MS_JOB_RUNNING && j->end == e.t)
                end_job (w, e.job);
            else if (j->state == MS_JOB_PENDING && j->begin == e.t)
                w->parts[j->part].dirty = true; /* eligible now */
        }
        simworld_schedule (w);
    }
    if (t > w->now && isfinite (t))
        w->now = t;
}

void
simworld_drain (simworld_t *w)
{
    simworld_schedule (w);
    while (w->nheap)
        simworld_advance (w, w->heap[0].t);
}

double
simworld_now (const simworld_t *w)
{
    return w->now;
}

double
simworld_next_event (const simworld_t *w)
{
    return w->nheap ? w->heap[0].t : INFINITY;
}

int
simworld_busy_nodes (const simworld_t *w, size_t p)
{
    return w->parts[p].busy;
}

size_t
simworld_pending (const simworld_t *w, size_t p)
{
    size_t n = 0;
    for (size_t i = 0; i < w->parts[p].pending.n; i++)
        n += w->jobs[w->parts[p].pending.v[i]].state == MS_JOB_PENDING;
    return n;
}

size_t
simworld_running (const simworld_t *w, size_t p)
{
    return w->parts[p].ends.n;
}

size_t
simworld_violations (const simworld_t *w)
{
    return w->violations;
}

void
simworld_set_listener (simworld_t *w, sim_listener_fn fn, void *arg)
{
    w->listen = fn;
    w->listen_arg = arg;
}

void
simworld_lazy_truth (simworld_t *w)
{
    w->lazy = true;
}

/* Job j's runtime and power from the truth (lazy: at the first need),
 * checked as op_submit checks them. */
static void
sim_job_truth (simworld_t *w, simjob_t *j)
{
    ms_error_t err;
    double rt = 0, pw = 0;

    err.kind = MS_ERR_NONE; /* what ms_err reads of it */
    j->known = true;
    if (w->truth (w->truth_arg, j->wjob, j->part, j->f_khz, j->nodes, &rt, &pw,
                  &err)
        < 0)
        rt = pw = NAN;
    else if (!(rt >= 0) || !(pw >= 0))
        ms_err (&err, MS_ERR_INPUT, "job model gives no runtime");
    if (!(rt >= 0) || !(pw >= 0)) {
        if (!w->truth_failed)
            w->truth_err = err;
        w->truth_failed = true;
        rt = pw = 0;
    }
    j->true_rt = rt;
    j->power_w = pw;
}

int
simworld_truth_error (const simworld_t *w, ms_error_t *errp)
{
    if (!w->truth_failed)
        return 0;
    if (errp)
        *errp = w->truth_err;
    return -1;
}

/* Room for n jobs. The heap of `metasched simulate` is offered huge
 * pages (metasched/admin/main.c), so the jobs need no memory of their
 * own for that. */
void
sim_jobs_grow (simworld_t *w, size_t n)
{
    if (n <= w->capjobs)
        return;
    w->jobs = ms_xrealloc (w->jobs, n * sizeof (*w->jobs));
    w->capjobs = n;
}

/* Room for gate keys below n: n exactly when reserved, else doubling
 * from 1024. */
void
sim_gates_grow (simworld_t *w, size_t n, bool exact)
{
    size_t cap = w->ngates ? w->ngates : 1024;
    if (n <= w->ngates)
        return;
    while (cap < n)
        cap *= 2;
    if (exact)
        cap = n;
    w->gates = ms_xrealloc (w->gates, cap * sizeof (*w->gates));
    for (size_t i = w->ngates; i < cap; i++) {
        w->gates[i].started = false;
        w->gates[i].first = NO_JOB;
    }
    w->ngates = cap;
}

/* Room that no entry takes costs address space only (the pages are never
 * touched), while growing the entries as they come would copy them: a
 * page fault for every page, twice. */
void
simworld_reserve (simworld_t *w, size_t njobs)
{
    sim_jobs_grow (w, njobs * (w->conf->nparts ? w->conf->nparts : 1));
    sim_gates_grow (w, njobs + 1, true); /* the core's ids, from 1 */
}

ms_backend_t *
simworld_backend (simworld_t *w, size_t i)
{
    return i < w->conf->nclusters ? w->backends[i] : NULL;
}

int
simworld_new (const ms_siteconf_t *conf, sim_backfill_t bf, sim_truth_fn truth,
              void *truth_arg, simworld_t **wp, ms_error_t *errp)
{
    simworld_t *w;
    size_t nsim = 0;

    if (!truth)
        return ms_err (errp, MS_ERR_INPUT, "simulated clusters need a truth");
    w = ms_xcalloc (1, sizeof (*w));
    w->conf = conf;
    w->bf = bf;
    w->truth = truth;
    w->truth_arg = truth_arg;
    w->parts = ms_xcalloc (conf->nparts ? conf->nparts : 1, sizeof (*w->parts));
    w->backends = ms_xcalloc (conf->nclusters ? conf->nclusters : 1,
                              sizeof (*w->backends));
    w->cls
        = ms_xcalloc (conf->nclusters ? conf->nclusters : 1, sizeof (*w->cls));
    for (size_t i = 0; i < conf->nparts; i++) {
        w->parts[i].pc = &conf->parts[i];
        w->parts[i].arch = &conf->archs[conf->parts[i].arch];
        w->parts[i].index = i;
        w->parts[i].room0 = cap_room0_of (&w->parts[i]);
        w->parts[i].nominal_ok
            = clusterconf_freq_index (w->parts[i].arch,
                                      w->parts[i].arch->nominal_khz)
              >= 0;
    }
    for (size_t i = 0; i < conf->nclusters; i++) {
        if (conf->clusters[i].backend != MS_BACKEND_SIMULATED)
            continue;
        w->cls[i].w = w;
        w->cls[i].index = i;
        w->backends[i] = ms_xcalloc (1, sizeof (ms_backend_t));
        w->backends[i]->ops = &simcluster_ops;
        w->backends[i]->ctx = &w->cls[i];
        ms_strlcpy (w->backends[i]->cluster, conf->clusters[i].name,
                    sizeof (w->backends[i]->cluster));
        nsim++;
    }
    if (!nsim) {
        simworld_free (w);
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: no cluster has backend = simulated", conf->path);
    }
    *wp = w;
    return 0;
}

void
simworld_free (simworld_t *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->conf->nclusters; i++)
        if (w->backends[i])
            backend_destroy (w->backends[i]);
    for (size_t i = 0; i < w->conf->nparts; i++) {
        free (w->parts[i].pending.v);
        free (w->parts[i].ends.v);
    }
    free (w->parts);
    free (w->backends);
    free (w->cls);
    free (w->jobs);
    free (w->heap);
    free (w->gates);
    free (w->users.names);
    free (w->users.slots);
    free (w->scratch);
    free (w);
}
