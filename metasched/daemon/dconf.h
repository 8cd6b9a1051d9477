/* dconf.h - metaschedd's own configuration (doc/metaschedd.conf.5), in
 * the INI-like format of clusters.conf:
 *
 *   [daemon]
 *   clusters_conf     = /etc/metasched/clusters.conf
 *   database          = host=/run/postgresql dbname=metasched user=ms_daemon
 *   password_file     = /etc/metasched/db.password     # 0600, optional
 *   socket            = /run/metasched/metaschedd.sock
 *   listen            = 127.0.0.1:6830                 # optional
 *   munge_socket      = /run/munge/munge.socket.2      # optional
 *   admins            = root, alice, @wheel
 *   allow_partition   = no
 *   partition_requests = refuse                        # or honor, map
 *   partition_map gpu = alpha/gpu beta/gpu-a100        # map: a class
 *   cluster_requests  = honor                          # or refuse, map
 *   cluster_map hpc2  = beta gamma                     # map: a class
 *   cpu_freq_requests = honor                          # or ignore, refuse
 *   metrics_public    = no
 *   cycle_s           = 10
 *   leader_takeover_s = 10
 *   refit_s           = 3600
 *   collect_wrapper   = /usr/bin/metasched-collect
 *   collect_config    = /etc/metasched/collect.conf    # optional
 *   api_server_for_jobs = unix:/run/metasched/metaschedd.sock
 *   gate_wait_s       = 30     # a sibling's start gate: then refused
 *   log               = stderr                          # or syslog
 *   max_script_bytes  = 1048576
 *   script_retention_days = 30    # a finished job's script and environment
 *   gpu_profiles      = /etc/metasched/gpu-profiles.conf   # optional
 *   threads           = 2      # the API's threads per listening socket
 *   request_timeout_s = 30     # a whole API request, headers to answer
 *   max_connections   = 256    # per listening socket
 *   max_connections_per_user    = 16   # unix socket, by the peer's uid
 *   max_connections_per_address = 64   # TCP, by the client's address
 *   tag_key_file      = /etc/metasched/tag.key         # 0600, standbys too
 *   power_budget      = site 700 kW; site 600 kW from 14:00 until 18:00
 *   carbon_signal     = CISO=/var/lib/metasched/ciso.json, \
 *                       ERCO=https://example.org/erco.csv
 *   carbon_poll_s     = 300    # an http(s) source's polls
 *   carbon_max_age_s  = 3600   # then energy alone for that zone
 *
 * dconf_load only parses (errors "file:line: key: ..."); dconf_check then
 * looks at what the values name: the cluster configuration, secret files
 * and their modes. Reachability is the daemon's business (daemon_new).
 */
#ifndef MS_DCONF_H
#define MS_DCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/common/error.h"
#include "metasched/core/settings_table.h"
#include "partitions/clusterconf.h"
#include "predictor/gpuprof.h"

#define DCONF_DEFAULT_PATH MS_SYSCONFDIR "/metasched/metaschedd.conf"
#define DCONF_DEFAULT_SOCKET "/run/metasched/metaschedd.sock"
#define DCONF_RETENTION_DAYS 30
#define DCONF_GATE_WAIT_S 30 /* the wrapper's own default */
#define DCONF_DEFAULT_TAG_KEY MS_SYSCONFDIR "/metasched/tag.key"

typedef enum { DCONF_LOG_STDERR = 0, DCONF_LOG_SYSLOG } dconf_log_t;

/* What a job's --partition does (doc/metaschedd.conf.5): refused (unless
 * allow_partition pins a cluster/partition), honored (the partitions of
 * that name on any cluster), or mapped (a name of partition_map is a class
 * of partitions; other names are honored). */
typedef enum {
    DCONF_PART_REFUSE = 0,
    DCONF_PART_HONOR,
    DCONF_PART_MAP
} dconf_partreq_t;

typedef struct {
    char name[MS_NAME_MAX];
    char targets[1024]; /* "cluster/partition" (cluster_map: "cluster")
                           separated by spaces */
    int line;
} dconf_partmap_t;

/* What a job's --cpu-freq does (doc/metaschedd.conf.5): honored (the
 * candidates' frequency is the one it names on each partition), ignored
 * (metasched chooses, and says so at submission) or refused. */
typedef enum {
    DCONF_FREQ_HONOR = 0,
    DCONF_FREQ_IGNORE,
    DCONF_FREQ_REFUSE
} dconf_freqreq_t;

/* One zone's signal (carbon_signal = ZONE=SOURCE, ...): a file (CSV or
 * JSON, core/carbon.h) or an http(s) URL polled every carbon_poll_s. */
typedef struct {
    char zone[MS_NAME_MAX];
    char source[MS_PATH_MAX];
    bool url;
} dconf_csig_t;

typedef struct {
    char path[MS_PATH_MAX];
    char clusters_conf[MS_PATH_MAX];
    int clusters_conf_line;
    char database[1024]; /* libpq conninfo (no password in it) */
    int database_line;
    char password_file[MS_PATH_MAX]; /* "" : none */
    int password_file_line;
    char socket[MS_PATH_MAX];       /* "" : none */
    char listen[128];               /* "" : none */
    char munge_socket[MS_PATH_MAX]; /* "" : libmunge's default */
    char **admin_users;             /* names and "@group" */
    size_t nadmin_users;
    char **admin_groups; /* the groups, without '@' */
    size_t nadmin_groups;
    bool allow_partition;
    dconf_partreq_t partition_requests;
    dconf_partmap_t *partition_map;
    size_t npartition_map;
    dconf_partreq_t cluster_requests; /* -M/--clusters; default honor */
    dconf_partmap_t *cluster_map;
    size_t ncluster_map;
    dconf_freqreq_t cpu_freq_requests; /* --cpu-freq; default honor */
    bool metrics_public;
    double cycle_s;
    double leader_takeover_s;
    double script_retention_days; /* a finished job's script and
                                     environment kept that long */
    double refit_s; /* 0: never */
    char collect_wrapper[MS_PATH_MAX];
    int collect_wrapper_line;
    char collect_config[MS_PATH_MAX]; /* "": the wrapper's default */
    char api_server_for_jobs[MS_PATH_MAX + 16];
    double gate_wait_s; /* how long a sibling's start gate tries to reach
                           the API before it refuses the copy (whole
                           seconds; DCONF_GATE_WAIT_S) */
    dconf_log_t log;
    size_t max_script_bytes;
    char gpu_profiles[MS_PATH_MAX]; /* "": none */
    int gpu_profiles_line;
    unsigned threads; /* the API's (api.h ms_api_conf_t) */
    double request_timeout_s;
    unsigned max_connections;
    unsigned max_connections_per_user;
    unsigned max_connections_per_address;
    char power_budget[SETTINGS_TEXT_MAX]; /* power budgets (core/power.h;
                                             "": none); the live setting
                                             replaces them */
    int power_budget_line;
    dconf_csig_t *csig; /* the zones' carbon signals (none: energy alone) */
    size_t ncsig;
    int carbon_signal_line;
    double carbon_poll_s;    /* between polls of an http(s) source */
    double carbon_max_age_s; /* a zone's signal read longer ago, or its
                                last value older: energy alone there */
    char tag_key_file[MS_PATH_MAX]; /* the key of the cluster jobs' tags */
    int tag_key_file_line;          /* 0: the default */
    ms_siteconf_t *site; /* dconf_check: the clusters */
    pred_gpuprof_t *gpuprof; /* dconf_check: the apps' GPU profiles */
    size_t ngpuprof;
} ms_dconf_t;

/* Parse path into *confp (defaults for keys not given). */
int dconf_load (const char *path, ms_dconf_t **confp, ms_error_t *errp);
int dconf_parse (const char *text, size_t len, const char *name,
                 ms_dconf_t **confp, ms_error_t *errp);
/* Load the cluster configuration, check the password file, the tag key
 * file where it exists (the daemon makes it at its first start) and every
 * cluster's token file (regular, 0600), and the wrapper (executable);
 * read the apps' GPU profiles (gpu_profiles). */
int dconf_check (ms_dconf_t *conf, ms_error_t *errp);
void dconf_free (ms_dconf_t *conf);

#endif /* MS_DCONF_H */
