/* simcluster_ops.c - the backend operations of a simulated cluster
 * (simcluster.h): what the scheduling core calls through backend_* to
 * submit, update, cancel and list jobs, and the partitions and nodes it
 * sees. The world, its clock and its passes are simcluster.c's.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "partitions/simcluster_int.h"

/* Is name, cut to USER_LEN - 1 characters, the kept name? (The kept
 * name is that long at most, so the comparison stops at its end.) As
 * strncmp, inline: a short name costs less than the call. */
static bool
user_is (const char *kept, const char *name)
{
    for (size_t i = 0; i < USER_LEN - 1; i++) {
        if (kept[i] != name[i])
            return false;
        if (!kept[i])
            return true;
    }
    return true;
}

/* The slot of name (cut as kept) in slots[0..ns) (ns a power of two):
 * where it is, or the empty slot where it goes. */
static size_t
user_slot (const usertab_t *u, const uint32_t *slots, size_t ns,
           const char *name)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    size_t i;

    for (i = 0; i < USER_LEN - 1 && name[i]; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
    for (i = h & (ns - 1); slots[i]; i = (i + 1) & (ns - 1))
        if (user_is (u->names[slots[i] - 1], name))
            break;
    return i;
}

/* The index of name (NULL: "") in the world's user names, cut to
 * USER_LEN - 1 characters as a job keeps it; added when new. The
 * entries of one gate (0: none) are one job of the core's, of one user:
 * its name is read once, not once an entry (KTH-SP2 -p min_energy: 4
 * million instructions). */
static uint32_t
user_intern (usertab_t *u, const char *name, uint64_t gate)
{
    size_t i;

    if (gate && gate == u->gate && u->n)
        return u->last;
    u->gate = gate;
    if (!name)
        name = "";
    if (u->n && user_is (u->names[u->last], name))
        return u->last;
    if (2 * (u->n + 1) > u->nslots) {
        size_t ns = u->nslots ? 2 * u->nslots : 64;
        uint32_t *slots = ms_xcalloc (ns, sizeof (*slots));
        for (size_t k = 0; k < u->nslots; k++)
            if (u->slots[k])
                slots[user_slot (u, slots, ns, u->names[u->slots[k] - 1])]
                    = u->slots[k];
        free (u->slots);
        u->slots = slots;
        u->nslots = ns;
    }
    i = user_slot (u, u->slots, u->nslots, name);
    if (u->slots[i])
        return u->last = u->slots[i] - 1;
    if (u->n == u->cap) {
        u->cap = u->cap ? 2 * u->cap : 64;
        u->names = ms_xrealloc (u->names, u->cap * sizeof (*u->names));
    }
    ms_strlcpy (u->names[u->n], name, USER_LEN);
    u->slots[i] = (uint32_t)++u->n;
    return u->last = (uint32_t)(u->n - 1);
}

static simpart_t *
find_part (simworld_t *w, size_t cl, const char *name)
{
    const ms_partconf_t *pc = w->conf->parts;
    uintptr_t off;
    size_t k;

    if (!name || !w->conf->nparts)
        return NULL;
    off = (uintptr_t)name - (uintptr_t)pc->name;
    k = off / sizeof (*pc);
    /* the core passes the configuration's own name: its partition found
     * from where it lies, without a search (each partition's record
     * apart, a cache line each) */
    if (off % sizeof (*pc) == 0 && k < w->conf->nparts && pc[k].name == name
        && pc[k].cluster == cl)
        return &w->parts[k];
    for (size_t i = 0; i < w->conf->nparts; i++)
        if (w->conf->parts[i].cluster == cl
            && (w->conf->parts[i].name == name
                || !strcmp (w->conf->parts[i].name, name)))
            return &w->parts[i];
    return NULL;
}

static simjob_t *
find_job (simworld_t *w, size_t cl, uint64_t id)
{
    if (id == 0 || id > w->njobs)
        return NULL;
    simjob_t *j = &w->jobs[id - 1];
    return w->conf->parts[j->part].cluster == cl ? j : NULL;
}

static int
op_ping (void *ctx, ms_error_t *errp)
{
    return 0;
}

static void
fill_partition (simworld_t *w, simpart_t *p, ms_partition_state_t *s)
{
    memset (s, 0, sizeof (*s));
    ms_strlcpy (s->name, p->pc->name, sizeof (s->name));
    s->up = true;
    s->nodes_total = p->pc->nodes;
    s->nodes_alloc = p->busy;
    s->nodes_idle = p->pc->nodes - p->busy;
    s->cpus_total = p->pc->nodes * p->arch->cores_per_node;
    s->cpus_idle = s->nodes_idle * p->arch->cores_per_node;
    s->max_time_min = -1;
    s->default_time_min = -1;
    /* the limits clusters.conf declares (none: unlimited, unknown) */
    ms_partition_limits_init (s);
    ms_partition_apply_conf (s, &p->pc->limits, p->pc->nodes);
    s->pending_jobs = (int)simworld_pending (w, p->index);
    s->running_jobs = (int)p->ends.n;
}

static int
op_partitions (void *ctx, ms_partition_state_t **out, size_t *n,
               ms_error_t *errp)
{
    simcl_t *c = ctx;
    simworld_t *w = c->w;
    size_t k = 0;

    *out = ms_xcalloc (w->conf->nparts ? w->conf->nparts : 1, sizeof (**out));
    for (size_t i = 0; i < w->conf->nparts; i++)
        if (w->conf->parts[i].cluster == c->index)
            fill_partition (w, &w->parts[i], &(*out)[k++]);
    *n = k;
    return 0;
}

static int
op_nodes (void *ctx, ms_node_state_t **out, size_t *n, ms_error_t *errp)
{
    simcl_t *c = ctx;
    simworld_t *w = c->w;
    size_t total = 0, k = 0;

    for (size_t i = 0; i < w->conf->nparts; i++)
        if (w->conf->parts[i].cluster == c->index)
            total += (size_t)w->conf->parts[i].nodes;
    *out = ms_xcalloc (total ? total : 1, sizeof (**out));
    for (size_t i = 0; i < w->conf->nparts; i++) {
        simpart_t *p = &w->parts[i];
        if (p->pc->cluster != c->index)
            continue;
        /* Nodes are interchangeable in the model: the first `busy` are
         * shown allocated. */
        for (int nd = 0; nd < p->pc->nodes; nd++, k++) {
            ms_node_state_t *s = &(*out)[k];
            snprintf (s->name, sizeof (s->name), "%.40s-%d", p->pc->name,
                      nd + 1);
            ms_strlcpy (s->state, nd < p->busy ? "allocated" : "idle",
                        sizeof (s->state));
            s->cpus = p->arch->cores_per_node;
            s->cpus_alloc = nd < p->busy ? s->cpus : 0;
            ms_strlcpy (s->partitions, p->pc->name, sizeof (s->partitions));
            s->usable = true;
        }
    }
    *n = k;
    return 0;
}

static int
op_submit (void *ctx, const ms_job_request_t *req, uint64_t *idp,
           ms_error_t *errp)
{
    simcl_t *c = ctx;
    simworld_t *w = c->w;
    simpart_t *p = find_part (w, c->index, req->partition);
    const sim_hint_t *h = req->backend_hint;
    uint32_t f = req->cpu_freq_khz ? req->cpu_freq_khz : 0;
    int nodes = req->nodes > 0 ? req->nodes : 1;
    uint32_t limit_min = req->time_limit_min;
    double rt = 0, pw = 0;
    simjob_t *j;
    size_t ji;

    /* A heterogeneous job runs as one: all its components' nodes at once
     * for the longest of their limits, as metaschedd decides it
     * (doc/daemon.md "Heterogeneous jobs"). */
    for (size_t k = 0; k < req->nhet; k++) {
        nodes += req->het[k].nodes > 0 ? req->het[k].nodes : 1;
        if (req->het[k].time_limit_min > limit_min)
            limit_min = req->het[k].time_limit_min;
    }

    if (!p)
        return ms_err (errp, MS_ERR_INPUT, "no partition '%s'",
                       req->partition ? req->partition : "(none)");
    if (!h)
        return ms_err (errp, MS_ERR_INPUT,
                       "a simulated cluster needs the job model "
                       "(backend_hint)");
    if (nodes > p->pc->nodes)
        return ms_err (errp, MS_ERR_INPUT,
                       "job asks %d nodes; partition '%s' has %d", nodes,
                       p->pc->name, p->pc->nodes);
    if (!f)
        f = p->arch->nominal_khz;
    /* most jobs run at nominal, the last frequency the search would try */
    if (!(f == p->arch->nominal_khz && p->nominal_ok)
        && clusterconf_freq_index (p->arch, f) < 0)
        return ms_err (errp, MS_ERR_INPUT,
                       "partition '%s' does not offer %u kHz", p->pc->name, f);
    if (h->gate >= GATE_MAX)
        return ms_err (errp, MS_ERR_INPUT, "start gate key too large");
    /* lazy: only whether the truth answers, the figures at the start */
    if (w->truth (w->truth_arg, h->job, p->index, f, nodes,
                  w->lazy ? NULL : &rt, w->lazy ? NULL : &pw, errp)
        < 0)
        return -1;
    if (!(rt >= 0) || !(pw >= 0))
        return ms_err (errp, MS_ERR_INPUT, "job model gives no runtime");
    if (w->njobs >= NO_JOB - 1)
        return ms_err (errp, MS_ERR_INPUT, "too many simulated jobs");
    if (w->njobs == w->capjobs)
        sim_jobs_grow (w, w->capjobs ? w->capjobs * 2 : 1024);
    ji = w->njobs++;
    j = &w->jobs[ji];
    /* every field set here: no memset of fresh memory first */
    j->part = (uint32_t)p->index;
    j->nodes = nodes;
    j->nice = req->nice;
    j->f_khz = f;
    j->state = MS_JOB_PENDING;
    j->submit = w->now;
    j->begin = req->begin_time > w->now ? (double)req->begin_time : 0;
    j->start = -1;
    j->end = -1;
    j->limit_min = limit_min;
    j->true_rt = rt;
    j->power_w = pw;
    j->known = !w->lazy;
    j->killed = false;
    j->late = false;
    j->wjob = h->job;
    j->pred_s = h->pred_runtime_s;
    j->order_time = h->order_time;
    j->gate = (uint32_t)h->gate;
    j->rank = h->rank;
    j->gate_next = NO_JOB;
    j->user = user_intern (&w->users, req->user, h->gate);
    if (h->gate) {
        if (h->gate >= w->ngates)
            sim_gates_grow (w, h->gate + 1, false);
        j->gate_next = w->gates[h->gate].first;
        j->late = w->gates[h->gate].started;
        w->gates[h->gate].first = (uint32_t)ji;
    }
    sim_queue_insert (w, p, ji);
    if (j->begin > 0)
        sim_heap_push (w, j->begin, ji); /* the pass when it may start */
    p->dirty = true;
    *idp = ji + 1;
    return 0;
}

static int
op_update (void *ctx, uint64_t id, const ms_job_update_t *upd, ms_error_t *errp)
{
    simcl_t *c = ctx;
    simworld_t *w = c->w;
    simjob_t *j = find_job (w, c->index, id);
    simpart_t *p;

    if (!j)
        return ms_err (errp, MS_ERR_MISSING, "no job %llu",
                       (unsigned long long)id);
    p = &w->parts[j->part];
    if (upd->time_limit_min != MS_KEEP_TIME) {
        j->limit_min = upd->time_limit_min;
        if (j->state == MS_JOB_RUNNING) {
            /* The end moves with the limit; the old heap entry goes stale.
             * So may the predicted end: its place among the ends. */
            size_t ji = (size_t)(j - w->jobs);
            double run = j->true_rt;
            sim_ends_insert (p, j, ji, sim_ends_remove (p, ji));
            j->killed = run > limit_s (j);
            if (j->killed)
                run = limit_s (j);
            j->end = j->start + run;
            if (j->end < w->now)
                j->end = w->now;
            sim_heap_push (w, j->end, (size_t)(j - w->jobs));
        }
    }
    if (upd->nice != MS_KEEP_NICE && j->state == MS_JOB_PENDING) {
        sim_vec_remove (&p->pending, (size_t)(j - w->jobs));
        j->nice = upd->nice;
        sim_queue_insert (w, p, (size_t)(j - w->jobs));
    }
    p->dirty = true;
    return 0;
}

static int
op_cancel (void *ctx, uint64_t id, ms_error_t *errp)
{
    simcl_t *c = ctx;
    simworld_t *w = c->w;
    simjob_t *j = find_job (w, c->index, id);
    simpart_t *p;

    if (!j)
        return ms_err (errp, MS_ERR_MISSING, "no job %llu",
                       (unsigned long long)id);
    p = &w->parts[j->part];
    if (j->state == MS_JOB_PENDING) {
        sim_vec_remove (&p->pending, (size_t)(j - w->jobs));
        sim_cancel_pending (w, j);
    } else if (j->state == MS_JOB_RUNNING) {
        j->state = MS_JOB_CANCELLED;
        j->end = w->now;
        p->busy -= j->nodes;
        sim_ends_remove (p, (size_t)(j - w->jobs));
        sim_notify (w, SIM_EV_CANCEL, j);
    }
    p->dirty = true;
    return 0;
}

static void
fill_job (simworld_t *w, const simjob_t *j, ms_job_info_t *o)
{
    const simpart_t *p = &w->parts[j->part];
    memset (o, 0, sizeof (*o));
    o->id = job_id (w, j);
    ms_strlcpy (o->user, w->users.names[j->user], sizeof (o->user));
    ms_strlcpy (o->partition, p->pc->name, sizeof (o->partition));
    o->state = (ms_job_state_t)j->state;
    ms_strlcpy (o->state_name, ms_job_state_name (o->state),
                sizeof (o->state_name));
    o->submit_time = (time_t)j->submit;
    o->eligible_time = (time_t)(j->begin > j->submit ? j->begin : j->submit);
    o->start_time = j->start >= 0 ? (time_t)j->start : 0;
    if (j->state == MS_JOB_RUNNING)
        o->end_time = (time_t)sim_predicted_end (w, j);
    else
        o->end_time = j->end >= 0 ? (time_t)j->end : 0;
    o->time_limit_min = j->limit_min;
    o->cpu_freq_max_khz = j->f_khz;
    o->nice = j->nice;
    o->priority = (uint32_t)(100000 - j->nice);
    if (j->gate)
        snprintf (o->comment, sizeof (o->comment), "metasched:%llu",
                  (unsigned long long)j->gate);
    o->nodes = j->nodes;
    o->tasks = j->nodes;
    o->cpus = j->nodes * p->arch->cores_per_node;
    o->exit_code = j->state == MS_JOB_COMPLETED ? 0 : -1;
}

static int
seq_cmp (const void *a, const void *b)
{
    uint32_t x = ((const endent_t *)a)->seq, y = ((const endent_t *)b)->seq;
    return x < y ? -1 : x > y;
}

/* p's running jobs into out[*k...], in start order: their ends sorted by
 * seq. */
static void
running_by_start (simworld_t *w, const simpart_t *p, ms_job_info_t *out,
                  size_t *k)
{
    size_t n = p->ends.n;
    endent_t *v = ms_xmalloc ((n ? n : 1) * sizeof (*v));

    if (n)
        memcpy (v, p->ends.v, n * sizeof (*v));
    qsort (v, n, sizeof (*v), seq_cmp);
    for (size_t r = 0; r < n; r++)
        fill_job (w, &w->jobs[v[r].job], &out[(*k)++]);
    free (v);
}

static int
op_jobs (void *ctx, ms_job_info_t **out, size_t *n, ms_error_t *errp)
{
    simcl_t *c = ctx;
    simworld_t *w = c->w;
    size_t k = 0, total = 0;

    /* The live jobs (pending and running) of this cluster. */
    for (size_t i = 0; i < w->conf->nparts; i++)
        if (w->conf->parts[i].cluster == c->index)
            total += w->parts[i].pending.n + w->parts[i].ends.n;
    *out = ms_xcalloc (total ? total : 1, sizeof (**out));
    for (size_t i = 0; i < w->conf->nparts; i++) {
        simpart_t *p = &w->parts[i];
        if (p->pc->cluster != c->index)
            continue;
        running_by_start (w, p, *out, &k);
        for (size_t q = 0; q < p->pending.n; q++)
            if (w->jobs[p->pending.v[q]].state == MS_JOB_PENDING)
                fill_job (w, &w->jobs[p->pending.v[q]], &(*out)[k++]);
    }
    *n = k;
    return 0;
}

static int
op_job (void *ctx, uint64_t id, ms_job_info_t *out, ms_error_t *errp)
{
    simcl_t *c = ctx;
    simjob_t *j = find_job (c->w, c->index, id);
    if (!j)
        return ms_err (errp, MS_ERR_MISSING, "no job %llu",
                       (unsigned long long)id);
    fill_job (c->w, j, out);
    return 0;
}

static void
op_destroy (void *ctx)
{
    /* The world owns the cluster; simworld_free releases it. */
}

const struct ms_backend_ops simcluster_ops = {
    .type = "simulated",
    .ping = op_ping,
    .partitions = op_partitions,
    .nodes = op_nodes,
    .submit = op_submit,
    .update = op_update,
    .cancel = op_cancel,
    .jobs = op_jobs,
    .job = op_job,
    .destroy = op_destroy,
};
