/* placement.h - where a job may run by the rules of the site and of its
 * clusters, and why it may not run elsewhere: the partitions' limits as
 * the clusters report them (MaxTime, MaxNodes, MinNodes, the nodes'
 * memory and features, the nodes for --nodelist and --exclude,
 * AllowAccounts, DenyAccounts, AllowGroups,
 * AllowQos, DenyQos), the users' associations and QOS where a cluster
 * runs accounting (slurmdbd), and the filesystems each cluster mounts
 * (clusters.conf). A job is no candidate where Slurm would refuse it or
 * hold it for ever, or where its paths do not exist.
 *
 * Pure functions of what they are given: the daemon feeds them the
 * clusters' state, the simulator the limits of clusters.conf. Each check
 * returns true when the job may go there, else false with the reason in
 * `why` ("MaxTime 30 min < 60 min asked"); the caller names the cluster
 * or partition in front.
 */
#ifndef MS_PLACEMENT_H
#define MS_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
#include "partitions/backend.h"
#include "partitions/clusterconf.h"

/* What a job asks that limits where it may run. Strings may be NULL or
 * "" where not given. */
typedef struct {
    const char *user;
    const char *const *groups; /* the user's groups (names) */
    size_t ngroups;
    const char *account;       /* "": the user's default there */
    const char *qos;           /* "": the association's default */
    uint32_t time_limit_min;   /* 0: not given */
    int nodes;                 /* 0: 1 */
    int cpus;                  /* in all (QOS limits on CPUs); 0: unknown */
    int cpus_per_node;         /* for --mem-per-cpu; 0: 1 */
    uint64_t mem_per_node_mb;  /* --mem; 0: not given */
    uint64_t mem_per_cpu_mb;   /* --mem-per-cpu; 0: not given */
    const char *constraint;    /* --constraint: a feature expression */
    const char *nodelist;      /* --nodelist: a hostlist of nodes it needs */
    const char *exclude;       /* --exclude: a hostlist of nodes it avoids */
    const char *cwd;           /* the working directory (absolute) */
    const char *paths[3];      /* output, error, input (relative: to cwd) */
} ms_place_req_t;

/* What accounting decides on a cluster, for the partition checks: the
 * account and QOS the job gets there ("" where unknown). */
typedef struct {
    char account[64];
    char qos[64];
    char partitions[256]; /* the user's associations for the account hold
                             only these partitions; "": every one */
    int64_t max_wall_min; /* the least of the QOS's and the association's
                             MaxWall, minutes; -1: none (a time limit
                             metasched scales stays within it) */
} ms_place_acct_t;

/* ---- feature expressions (--constraint) ---- */

/* Check the syntax of a feature expression: names (letters, digits, '_',
 * '-', '.', ':', '='), joined by '&' (and) and '|' (or), grouped by '(' ')'
 * or '[' ']', a name optionally followed by "*COUNT". -1 with errp naming
 * the place when malformed. */
int placement_features_parse (const char *expr, ms_error_t *errp);
/* Does a node with the comma-separated features satisfy expr? (expr must
 * parse; a malformed one matches nothing) */
bool placement_features_match (const char *expr, const char *features);
/* How many nodes of p satisfy expr; -1 when p's features are unknown. */
int placement_feature_nodes (const ms_partition_state_t *p,
                             const char *expr);

/* ---- hostlists (--nodelist, --exclude, a partition's nodes) ---- */

/* Call fn for each name of a Slurm hostlist ("a[1-3,07-09],b5,rack[1-2]-n[1-2]":
 * ranges keep the width of their zero-padded bounds), at most max names;
 * fn returning non-zero stops the walk with that value. -1 when malformed
 * or longer than max. */
int placement_hostlist_each (const char *list, size_t max,
                             int (*fn) (const char *name, void *arg),
                             void *arg);
/* Is name one of list's? (false for a malformed list) */
bool placement_hostlist_has (const char *list, const char *name);

/* ---- filesystems ---- */

/* Is path (relative paths: under cwd) under one of the cluster's mounted
 * prefixes? A cluster that names none mounts every path. '.' and '..' are
 * resolved in the text, never on this machine. */
bool placement_path_mounted (const ms_clusterconf_t *c, const char *path,
                             const char *cwd);

/* ---- the checks ---- */

/* The cluster as a whole: its filesystems (the working directory and the
 * paths) and, with acct enabled (and the cluster's `accounting` not
 * none), the user's association for the job's account and its QOS with
 * the QOS's limits. *out gets the account and QOS the job would run
 * under there. */
bool placement_check_cluster (const ms_clusterconf_t *c,
                              const ms_accounting_t *acct,
                              const ms_place_req_t *r, ms_place_acct_t *out,
                              char *why, size_t len);

/* One partition: its limits against the job's time, nodes, memory,
 * features, account, groups and QOS (a, from placement_check_cluster). */
bool placement_check_partition (const ms_partition_state_t *p,
                                const ms_place_req_t *r,
                                const ms_place_acct_t *a, char *why,
                                size_t len);

/* Is name in the comma-separated list? ("ALL" holds every name) */
bool placement_in_list (const char *list, const char *name);

#endif /* MS_PLACEMENT_H */
