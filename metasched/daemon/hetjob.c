/* hetjob.c - heterogeneous jobs in the cycle: where one may go and what is
 * submitted for it.
 *
 * A heterogeneous job runs whole on one cluster (Slurm allocates its
 * components together, on one slurmctld). It may go to a cluster where
 * every component has a partition it fits (job_placement for each); its
 * components' partitions may differ within that cluster. It is decided as
 * one job whose nodes are those of all components and whose limit the
 * longest (apireq.c, het_totals): the first component takes the chosen
 * partition and frequency, each other one the chosen partition where it
 * fits there, else the first partition of the cluster it fits. A cluster
 * with fewer nodes than the components ask for together is no candidate
 * (Slurm allocates them at once; its scheduler needs nodes of its own
 * for each component to start the job: its heterogeneous jobs page,
 * "Limitations").
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/daemon/daemon_int.h"

/* The first component's own nodes where the job's column holds all
 * components' (apireq_options_json), else nodes. */
int
hetjob_first_nodes (json_t *opts, int nodes)
{
    json_t *v = json_object_get (opts, "nodes");

    if (json_is_array (json_object_get (opts, "components"))
        && json_is_integer (v) && json_integer_value (v) > 0)
        return (int)json_integer_value (v);
    return nodes;
}

/* Where component c may run (its own allowed[], nparts bytes). */
static size_t
component_places (const ms_daemon_t *d, const ms_jobspec_t *c, const char *user,
                  uint32_t limit_min, const char *cwd, unsigned char *allowed)
{
    return job_placement (d, c, user, c->nodes > 0 ? c->nodes : 1,
                          c->time_limit_min && c->time_limit_min != UINT32_MAX
                              ? c->time_limit_min
                              : limit_min,
                          cwd, NULL, NULL, NULL, c->ntasks, c->ntasks_per_node,
                          c->cpus_per_task, allowed, NULL);
}

typedef struct {
    const cluster_t *c;
    size_t k; /* the partition whose names are walked */
    int n;
} count_t;

static int
count_new (const char *name, void *arg)
{
    count_t *ct = arg;

    for (size_t j = 0; j < ct->k; j++)
        if (placement_hostlist_has (ct->c->parts[j].node_list, name))
            return 0; /* counted with an earlier partition */
    ct->n++;
    return 0;
}

/* The nodes of cluster c, each once (its partitions may share nodes);
 * -1 where a partition's nodes are unknown. */
static int
cluster_nodes (const cluster_t *c)
{
    count_t ct = { c, 0, 0 };

    if (!c->nparts)
        return -1;
    for (ct.k = 0; ct.k < c->nparts; ct.k++)
        if (!c->parts[ct.k].node_list[0]
            || placement_hostlist_each (c->parts[ct.k].node_list, 1 << 20,
                                        count_new, &ct)
                   < 0)
            return -1;
    return ct.n;
}

/* Slurm allocates a heterogeneous job's components at once, each its own
 * nodes: a cluster with fewer nodes than all components ask for together
 * cannot start it, though each component fits alone. sbatch's answer there
 * is slurmctld's ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE. */
static void
sum_restrict (const ms_daemon_t *d, const ms_jobspec_t *spec,
              unsigned char *allowed, json_t *excluded)
{
    long want = spec->nodes > 0 ? spec->nodes : 1;

    for (size_t k = 0; k < spec->nhet; k++)
        want += spec->het[k]->nodes > 0 ? spec->het[k]->nodes : 1;
    for (size_t i = 0; i < d->ncl; i++) {
        int have = cluster_nodes (&d->cl[i]);
        bool had = false;

        for (size_t p = 0; p < d->site->nparts; p++)
            had |= d->site->parts[p].cluster == i && allowed[p];
        if (!had || have < 0 || want <= have)
            continue;
        for (size_t p = 0; p < d->site->nparts; p++)
            if (d->site->parts[p].cluster == i)
                allowed[p] = 0;
        if (excluded) {
            char why[200];
            snprintf (why, sizeof (why),
                      "heterogeneous job: its components ask for %ld nodes "
                      "together, this cluster has %d (Requested node "
                      "configuration is not available)",
                      want, have);
            json_array_append_new (excluded,
                                   json_pack ("{s:s, s:n, s:s}", "cluster",
                                              d->cl[i].conf->name,
                                              "partition", "reason", why));
        }
    }
}

void
hetjob_restrict (const ms_daemon_t *d, const ms_jobspec_t *spec,
                 const char *user, uint32_t limit_min, const char *cwd,
                 unsigned char *allowed, json_t *excluded)
{
    size_t np = d->site->nparts;
    unsigned char *mine = ms_xcalloc (np ? np : 1, 1);

    for (size_t k = 0; k < spec->nhet; k++) {
        component_places (d, spec->het[k], user, limit_min, cwd, mine);
        for (size_t i = 0; i < d->ncl; i++) {
            bool fits = false, had = false;
            for (size_t p = 0; p < np; p++)
                if (d->site->parts[p].cluster == i) {
                    fits |= mine[p] != 0;
                    had |= allowed[p] != 0;
                }
            if (fits || !had)
                continue;
            for (size_t p = 0; p < np; p++)
                if (d->site->parts[p].cluster == i)
                    allowed[p] = 0;
            if (excluded) {
                char why[160];
                snprintf (why, sizeof (why),
                          "heterogeneous job: component %zu fits no "
                          "partition of this cluster",
                          k + 1);
                json_array_append_new (excluded,
                                       json_pack ("{s:s, s:n, s:s}", "cluster",
                                                  d->cl[i].conf->name,
                                                  "partition", "reason", why));
            }
        }
    }
    free (mine);
    sum_restrict (d, spec, allowed, excluded);
}

ms_job_request_t *
hetjob_requests (ms_daemon_t *d, const ms_jobspec_t *spec,
                 const ms_job_request_t *first, size_t part, const char *user,
                 double scale, ms_error_t *errp)
{
    size_t np = d->site->nparts, cluster = d->site->parts[part].cluster;
    unsigned char *mine = ms_xcalloc (np ? np : 1, 1);
    ms_job_request_t *r = ms_xcalloc (spec->nhet, sizeof (*r));

    /* the partitions' state as the cycle reads it (a submit worker holds
     * no lock of its own on it) */
    pthread_mutex_lock (&d->mu);
    for (size_t k = 0; k < spec->nhet; k++) {
        const ms_jobspec_t *c = spec->het[k];
        size_t pick = np;

        component_places (d, c, user, first->time_limit_min, first->cwd, mine);
        if (mine[part])
            pick = part;
        for (size_t p = 0; p < np && pick == np; p++)
            if (mine[p] && d->site->parts[p].cluster == cluster)
                pick = p;
        if (pick == np) {
            pthread_mutex_unlock (&d->mu);
            free (mine);
            free (r);
            ms_err (errp, MS_ERR_INPUT,
                    "heterogeneous job: component %zu fits no partition of "
                    "cluster %s now",
                    k + 1, d->cl[cluster].conf->name);
            return NULL;
        }
        r[k] = *first;
        r[k].het = NULL;
        r[k].nhet = 0;
        r[k].script = NULL;  /* the first component's */
        r[k].comment = NULL; /* the tag marks the first component only */
        r[k].partition = d->site->parts[pick].name;
        /* a frequency chosen for the first component's partition */
        r[k].cpu_freq_khz = pick == part ? first->cpu_freq_khz : 0;
        if (c->time_limit_min && c->time_limit_min != UINT32_MAX)
            r[k].time_limit_min = (uint32_t)ceil (c->time_limit_min * scale);
        r[k].nodes = c->nodes > 0 ? c->nodes : 1;
        r[k].tasks = c->ntasks > 0            ? c->ntasks
                     : c->ntasks_per_node > 0 ? c->ntasks_per_node * r[k].nodes
                                              : 0;
        r[k].cpus_per_task = c->cpus_per_task;
        r[k].exclusive = c->exclusive;
        r[k].sbatch = c;
    }
    pthread_mutex_unlock (&d->mu);
    free (mine);
    return r;
}
