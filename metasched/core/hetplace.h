/* hetplace.h - where a heterogeneous job may run and where each of its
 * components goes: the rules metaschedd routes one by (daemon/hetjob.c,
 * daemon/place.c) and the replay of the site's history applies
 * (simulate --from-db), from each component's own fit.
 *
 * A heterogeneous job runs whole on one cluster (Slurm allocates its
 * components together, on one slurmctld): a cluster is a candidate where
 * every component has a partition it fits (hetplace_clusters) and whose
 * nodes hold all components together (hetplace_sum: Slurm gives each
 * component nodes of its own). It is decided as one job of all
 * components' nodes; the first component takes the chosen partition,
 * each other one the chosen partition where it fits there, else the
 * cluster's first partition it fits.
 *
 * fits holds one row of conf->nparts bytes a component (component k's at
 * fits + k * conf->nparts): may component k run on partition p.
 */
#ifndef MS_HETPLACE_H
#define MS_HETPLACE_H

#include <stddef.h>

#include "partitions/clusterconf.h"

/* Keep allowed[p] only where p's cluster has, for every component, a
 * partition it fits. nofit (conf->nclusters entries, or NULL) gets per
 * cluster 0 where it stays (or had no allowed partition), else 1 + the
 * first component that fits no partition of it. Returns the partitions
 * still allowed. */
size_t hetplace_clusters (const ms_siteconf_t *conf, const unsigned char *fits,
                          size_t ncomp, unsigned char *allowed, size_t *nofit);

/* The nodes a heterogeneous job's components ask for together:
 * nodes[k] for each of its ncomp components, one where 0 or less. */
long hetplace_nodes (const int *nodes, size_t ncomp);

/* Slurm allocates a heterogeneous job's components at once, each its own
 * nodes: keep allowed[p] only where p's cluster i has at least want nodes
 * (have[i], one entry a cluster of conf; negative where not known: the
 * cluster is kept). dropped (conf->nclusters bytes, or NULL) gets 1 for
 * each cluster that had a partition allowed and lost it, else 0. Returns
 * the partitions still allowed. */
size_t hetplace_sum (const ms_siteconf_t *conf, long want, const int *have,
                     unsigned char *allowed, unsigned char *dropped);

/* Each cluster's nodes as the configuration alone tells them (have, one
 * entry a cluster): the sum of its partitions' nodes. Partitions may share
 * nodes and clusters.conf does not say which, so this is the most the
 * cluster can have: a cluster it drops surely lacks the nodes. */
void hetplace_conf_nodes (const ms_siteconf_t *conf, int *have);

/* Where a component whose row is fits_k goes when the job is given
 * partition chosen: chosen where it fits, else the first partition of
 * chosen's cluster it fits; SIZE_MAX where none. */
size_t hetplace_component (const ms_siteconf_t *conf,
                           const unsigned char *fits_k, size_t chosen);

#endif /* MS_HETPLACE_H */
