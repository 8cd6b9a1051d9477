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
 * "Limitations"); place.c, sum_restrict.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/daemon/daemon_int.h"

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
    pthread_mutex_lock (&d->ds.mu);
    for (size_t k = 0; k < spec->nhet; k++) {
        const ms_jobspec_t *c = spec->het[k];
        size_t pick;

        component_places (d, c, user, first->time_limit_min, first->cwd, mine);
        /* the rule the replay applies too (core/hetplace.c) */
        if ((pick = hetplace_component (d->site, mine, part)) == SIZE_MAX) {
            pthread_mutex_unlock (&d->ds.mu);
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
    pthread_mutex_unlock (&d->ds.mu);
    free (mine);
    return r;
}
