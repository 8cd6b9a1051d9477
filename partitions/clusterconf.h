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
 *   gpus_per_node = 4            # optional: GPUs (gres gpu) per node,
 *   gpu_model     = a100         # their model (Slurm's gres type),
 *   gpu_idle_power_w = 50        # the power of one idle GPU
 *   gpu_busy_power_w = 300       # and of one busy GPU (W)
 */
#ifndef MS_CLUSTERCONF_H
#define MS_CLUSTERCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"

#define MS_NAME_MAX 64
#define MS_PATH_MAX 512
#define MS_MAX_FREQS 64
#define MS_FREQ_SLOTS 128 /* ms_arch_t's fslot: a power of two */

typedef struct {
    char name[MS_NAME_MAX];
    char description[128];
    int cores_per_node;
    uint32_t freqs_khz[MS_MAX_FREQS]; /* ascending */
    size_t nfreqs;
    uint32_t nominal_khz;             /* one of freqs_khz */
    double idle_power_w;              /* one idle node */
    int line;                         /* where it was defined */
    /* clusterconf_freq_index's table (clusterconf.c): 1 + the index of
     * the frequency in each slot, 0 none; fslots_ok where the parser
     * made it and no two frequencies share a slot (else a search) */
    uint8_t fslot[MS_FREQ_SLOTS];
    bool fslots_ok;
} ms_arch_t;

/* A partition's limits as clusters.conf sets them: they declare the
 * limits of a simulated cluster's partitions and override what a real
 * cluster reports. `set` says which are given (MS_LIM_*). */
enum {
    MS_LIM_MAX_TIME = 1 << 0,
    MS_LIM_MAX_NODES = 1 << 1,
    MS_LIM_MIN_NODES = 1 << 2,
    MS_LIM_MEM = 1 << 3,
    MS_LIM_FEATURES = 1 << 4,
    MS_LIM_ALLOW_ACCOUNTS = 1 << 5,
    MS_LIM_DENY_ACCOUNTS = 1 << 6,
    MS_LIM_ALLOW_GROUPS = 1 << 7,
    MS_LIM_ALLOW_QOS = 1 << 8,
    MS_LIM_DENY_QOS = 1 << 9,
};
typedef struct {
    unsigned set;
    int64_t max_time_min;             /* -1: unlimited */
    int max_nodes;                    /* -1: unlimited */
    int min_nodes;
    int64_t mem_per_node_mb;
    char features[192];               /* every node's, comma-separated */
    char allow_accounts[256], deny_accounts[256], allow_groups[256];
    char allow_qos[256], deny_qos[256];
} ms_partlimits_t;

#define MS_MAX_FILESYSTEMS 32

typedef struct {
    char name[MS_NAME_MAX];
    size_t cluster;                   /* index into conf->clusters */
    size_t arch;                      /* index into conf->archs */
    int nodes;
    double power_cap_w;               /* 0: none */
    /* GPUs (Slurm's gres "gpu"): per node, their model (Slurm's type, as
     * in --gpus=a100:2), and the power of one GPU idle and busy (the
     * default for apps whose profile gives none). 0 / "": none. */
    int gpus_per_node;
    char gpu_model[MS_NAME_MAX];
    double gpu_idle_power_w, gpu_busy_power_w;
    ms_partlimits_t limits;           /* max_time, mem_per_node_mb, ... */
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
    char slurm_cluster[MS_NAME_MAX];  /* Slurm's ClusterName; "": name */
    bool accounting;                  /* check slurmdbd's associations
                                         where it answers (default) */
    long min_job_age_s;               /* slurm.conf's MinJobAge: how long
                                         its controller lists an ended job
                                         (default 300, Slurm's) */
    /* The path prefixes its nodes mount (filesystems = /home /scratch);
     * none given: every path. */
    char filesystems[MS_MAX_FILESYSTEMS][MS_PATH_MAX / 2];
    size_t nfilesystems;
    char zone[MS_NAME_MAX]; /* the grid zone it draws from (metaschedd.conf
                               carbon_signal); "": none */
    int zone_line;
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
