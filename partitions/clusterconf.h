/* clusterconf.h - the cluster configuration: architectures, clusters and
 * their partitions, in metasched's own INI-like format (doc/clusters.conf.5).
 *
 *   [architecture skx8168]
 *   cores_per_node  = 48
 *   frequencies_khz = 1200000-2700000/100000   # or a list: 1200000, 1300000
 *   nominal_khz     = 2700000
 *   idle_power_w    = 110
 *
 *   [cluster alpha]
 *   backend    = slurmrest                     # or: simulated
 *   url        = http://127.0.0.1:6820
 *   token_file = /etc/metasched/alpha.token    # 0600
 *   api_version = v0.0.42                      # optional: pin the version
 *
 *   [partition alpha/batch]
 *   architecture = skx8168
 *   nodes        = 4
 */
#ifndef MS_CLUSTERCONF_H
#define MS_CLUSTERCONF_H

#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"

#define MS_NAME_MAX 64
#define MS_PATH_MAX 512
#define MS_MAX_FREQS 64

typedef struct {
    char name[MS_NAME_MAX];
    char description[128];
    int cores_per_node;
    uint32_t freqs_khz[MS_MAX_FREQS]; /* ascending */
    size_t nfreqs;
    uint32_t nominal_khz;             /* one of freqs_khz */
    double idle_power_w;              /* one idle node */
    int line;                         /* where it was defined */
} ms_arch_t;

typedef struct {
    char name[MS_NAME_MAX];
    size_t cluster;                   /* index into conf->clusters */
    size_t arch;                      /* index into conf->archs */
    int nodes;
    double power_cap_w;               /* 0: none */
    int line;
} ms_partconf_t;

typedef enum { MS_BACKEND_SLURMREST, MS_BACKEND_SIMULATED } ms_backend_type_t;

typedef struct {
    char name[MS_NAME_MAX];
    ms_backend_type_t backend;
    char url[MS_PATH_MAX];            /* slurmrestd base URL */
    char token_file[MS_PATH_MAX];     /* JWT of the site's root user, 0600 */
    char token_user[MS_NAME_MAX];     /* the token's user (default root) */
    char api_version[16];             /* pinned OpenAPI version; "": negotiate */
    long connect_timeout_ms;          /* default 3000 */
    long timeout_ms;                  /* whole request, default 15000 */
    int line;
} ms_clusterconf_t;

typedef struct {
    char path[MS_PATH_MAX];
    ms_arch_t *archs;
    size_t narchs;
    ms_clusterconf_t *clusters;
    size_t nclusters;
    ms_partconf_t *parts;
    size_t nparts;
} ms_siteconf_t;

/* Parse a configuration file; on error errp says "file:line: ...". */
int clusterconf_load (const char *path, ms_siteconf_t **confp,
                      ms_error_t *errp);
/* Parse configuration text; name is used in messages. */
int clusterconf_parse (const char *text, size_t len, const char *name,
                       ms_siteconf_t **confp, ms_error_t *errp);
void clusterconf_free (ms_siteconf_t *conf);

const ms_arch_t *clusterconf_arch (const ms_siteconf_t *conf,
                                   const char *name);
const ms_clusterconf_t *clusterconf_cluster (const ms_siteconf_t *conf,
                                             const char *name);
const ms_partconf_t *clusterconf_partition (const ms_siteconf_t *conf,
                                            const char *cluster,
                                            const char *partition);
/* Index of f in arch's frequency list, or -1. */
int clusterconf_freq_index (const ms_arch_t *arch, uint32_t khz);

#endif /* MS_CLUSTERCONF_H */
