/* collect.h - the collectors: job wrapper, node side (prolog/epilog),
 * spool flush and accounting ingest (doc/architecture.md "Data flow";
 * doc/collectors.md).
 *
 *   wrapper (as the user, the job's batch step)
 *     runs the command, counts its process tree (papi_sampler), measures
 *     RAPL itself where the user may read it, and writes the counter file
 *     JOB_DIR/CLUSTER.JOBID.NODE.counters that the prolog created for it.
 *   prolog (root, every node)
 *     creates that counter file for the job's user, reads RAPL, and
 *     starts a sampler that reads RAPL often enough to see every wrap.
 *   epilog (root, every node)
 *     stops the sampler, reads RAPL, merges the counter file, writes one
 *     job_runs row to the spool (under its cap), then tries for at most
 *     epilog_send_ms to insert it with the collector role; what is not
 *     sent waits for the flush (`metasched-collect flush`, run by a timer),
 *     never for the job's end.
 *
 * Nothing here may fail a job or drain a node: the programs log and exit 0
 * (the wrapper exits with its command's status).
 */
#ifndef MS_COLLECT_H
#define MS_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/spool.h"
#include "db/db.h"
#include "metasched/common/error.h"

#define COLLECT_VERSION "metasched-collect " PACKAGE_VERSION
#define COLLECT_DEFAULT_CONF MS_SYSCONFDIR "/metasched/collect.conf"

typedef struct {
    char powercap_root[512];  /* "%n" is replaced by the node's name */
    char cpufreq_root[512];   /* observed frequency (cpufreq sysfs), %n too */
    char spool_dir[512];      /* root-only: spooled rows and node state */
    char job_dir[512];        /* where the wrapper's counter files live */
    char conninfo[1024];      /* collector role; no password in it */
    char password_file[512];  /* or a 0600 file with the password */
    char events[512];         /* counters to read, comma-separated */
    char scontrol[256];       /* scontrol to ask Slurm about the job */
    char squeue[256];         /* squeue, where scontrol has no --json ("":
                                 the one beside scontrol) */
    char cluster[64];         /* default: SLURM_CLUSTER_NAME */
    double max_power_w;       /* per package, for the RAPL sampling rate */
    int sample_s;             /* a running job's measured power reported
                                 every sample_s (0: never) */
    int db_retry_ms;          /* how long a flush waits for PostgreSQL */
    int db_connect_timeout_s; /* libpq connect_timeout of every connection */
    int slurm_query_ms;       /* the most the epilog waits for Slurm's
                                 record of the job */
    int epilog_send_ms;       /* the most the epilog spends sending its row
                                 (0: leave it to the flush) */
    uint64_t spool_max_files; /* the spool's cap: rows and bad/ together */
    uint64_t spool_max_bytes;
    int bad_max_age_days;     /* files in bad/ older than this go */
} collect_conf_t;

void collect_conf_defaults (collect_conf_t *c);
/* Read "key = value" lines ('#' comments) over the defaults; a missing
 * file is fine when missing_ok. Errors name file:line. */
int collect_conf_load (const char *path, bool missing_ok, collect_conf_t *c,
                       ms_error_t *errp);
/* Set one key (the same names as the file; options use them too). */
int collect_conf_set (collect_conf_t *c, const char *key, const char *val,
                      ms_error_t *errp);
/* A path pattern with "%n" replaced by the node's name. */
void collect_expand_node (const char *pattern, const char *node, char *out,
                          size_t len);
/* The powercap root of a node ("%n" expanded). */
void collect_powercap_root (const collect_conf_t *c, const char *node,
                            char *out, size_t len);

/* What Slurm tells the node side about the job (from the environment). */
typedef struct {
    char cluster[64];
    uint64_t job_id;
    char node[64];
    char user[65];
    long uid;           /* -1: unknown */
    long gid;
    char partition[64];
} collect_job_t;

/* Fill from SLURM_JOB_ID, SLURMD_NODENAME, SLURM_CLUSTER_NAME,
 * SLURM_JOB_USER, SLURM_JOB_UID, SLURM_JOB_PARTITION (cluster from the
 * conf when set). */
int collect_job_from_env (const collect_conf_t *c, collect_job_t *j,
                          ms_error_t *errp);
/* Names derived from a job: "CLUSTER.JOBID.NODE" + suffix. */
void collect_job_file (const collect_job_t *j, const char *suffix, char *out,
                       size_t len);

/* ---- the wrapper's counter file (counters.c) ---- */

typedef struct {
    char app[129];
    double start_time, end_time;   /* Unix time */
    bool has_exit;
    int exit_code;                 /* exit status, or -1 when signalled */
    int term_signal;               /* 0: not signalled */
    double utime_s, stime_s;
    long maxrss_kb;
    char events_used[1024];
    char events_unavailable[1024];
    char counters_json[4096];      /* {"EVENT": value, ...} */
    int64_t cycles, instructions, mem_transactions; /* -1: unavailable */
    double user_pkg_j, user_dram_j; /* < 0: not measured by the user */
    uint32_t freq_req_khz;          /* from SLURM_CPU_FREQ_REQ, 0: none */
    /* The start gate (sibling mode) stopped the command before it ran:
     * "lost" (another sibling claimed the meta job) or "refused" (the
     * claim could not be made); "" for a command that ran. The epilog
     * records no row for such a job: it is no run to learn from. */
    char gate[8];
    uint64_t gate_job_id;           /* the meta job claimed, 0: unknown */
    /* The wrapper's notes and warnings about its own work (events not
     * counted, ...), also in the node's log; never in the job's output.
     * The user's word, like everything in the file: the epilog names it
     * as the wrapper's note in its log line and nowhere else. */
    char note[1024];
} collect_counters_t;

void collect_counters_init (collect_counters_t *k);
spool_rec_t *collect_counters_to_rec (const collect_counters_t *k);
/* Strict: the file is written by the user's side; errors name the file. */
int collect_counters_from_rec (const spool_rec_t *rec, collect_counters_t *k,
                               ms_error_t *errp);

/* ---- job_runs rows as spool records (jobrun_rec.c) ---- */

spool_rec_t *collect_jobrun_to_rec (const db_job_run_t *r);
int collect_jobrun_from_rec (const spool_rec_t *rec, db_job_run_t *r,
                             ms_error_t *errp);

/* ---- the wrapper (wrapper.c) ---- */

typedef struct {
    const char *app;           /* --app, or NULL */
    const char *counters_path; /* write here instead of the job's file */
} collect_wrap_opts_t;

/* Run argv measured; returns the wait status of the command (or -1 with
 * errp when it could not be started at all). Writes nothing to stdout or
 * stderr but what a shell would (the command cannot be executed) and the
 * start gate's refusal; notes go to the log (log.h) and k->note. */
int collect_wrap (const collect_conf_t *c, const collect_wrap_opts_t *o,
                  char *const argv[], collect_counters_t *k, ms_error_t *errp);

/* ---- node side (nodeside.c) ---- */

int collect_prolog (const collect_conf_t *c, const collect_job_t *j,
                    ms_error_t *errp);
/* Builds the row; inserts or spools it. *spooled (may be NULL) says
 * whether it went to the spool. Returns 0 (inserted), 1 (inserted, errp
 * holds a note: a warning of the epilog's own and/or "the wrapper's note:
 * ..." from the counter file), -1 (not inserted: spooled or lost, errp says
 * why, the wrapper's note after it) or
 * COLLECT_EPILOG_SKIPPED: no row on purpose, because the wrapper's counter
 * file says that the start gate stopped the command (errp says so). */
#define COLLECT_EPILOG_SKIPPED 2
int collect_epilog (const collect_conf_t *c, const collect_job_t *j,
                    bool *spooled, ms_error_t *errp);
/* The sampler the prolog starts (runs until the epilog stops it). */
int collect_sampler_run (const collect_conf_t *c, const collect_job_t *j,
                         ms_error_t *errp);
/* What Slurm records of the job, for the row: from Slurm's structured
 * answer (`scontrol show job --json`, else `squeue --json`), parsed as a
 * JSON job record of any release (partitions/slurmrest_parse.c), never
 * from a split of text, where a job name or comment with spaces could pose
 * as another field. */
typedef struct {
    uint32_t freq_max_khz;     /* cpu_frequency_maximum, 0: none */
    int nodes;                 /* node_count, 0: not said */
    char name[129];            /* the job's name (the user's) */
    int exclusive;             /* 1, 0, -1 unknown */
    char partition[64];
    double start_time;         /* Unix time, 0: not said */
    double end_time;           /* 0: not ended (or not said) */
    uint64_t het_job_id;       /* a hetjob's component: the job's id, 0 */
    int het_job_offset;
} collect_slurm_job_t;
/* Find job job_id in a JSON answer of Slurm's (the "jobs" array of a job
 * listing) and fill sj; errors name what was wrong (MS_ERR_MISSING: the
 * answer has no such job). */
int collect_parse_slurm_json (const char *text, size_t len, uint64_t job_id,
                              collect_slurm_job_t *sj, ms_error_t *errp);
/* The app name as a counter file may give it: 1 to 128 bytes of UTF-8,
 * no control characters, no space at either end. */
bool collect_app_name_ok (const char *s);
/* A user_reported list of a row (jobrun_rec.c): known names, each once. */
bool collect_user_reported_ok (const char *list);

/* ---- spool flush (flush.c) ---- */

/* Send every spooled row (batched, one transaction), then remove the
 * files sent; unreadable files move to SPOOL/bad/. Files in bad/ past
 * their age go (spoolcap.c). */
int collect_flush (const collect_conf_t *c, db_t *db, size_t *sent,
                   size_t *left, ms_error_t *errp);
/* Spool one row as SPOOL/CLUSTER.JOBID.NODE.SOURCE.run, after making room
 * for it under the spool's cap (dropping the oldest, logged and counted;
 * spoolcap.c). */
int collect_spool_row (const collect_conf_t *c, const db_job_run_t *r,
                       ms_error_t *errp);
/* The spool file's name of a row. */
void collect_spool_name (const db_job_run_t *r, char *out, size_t len);
/* Insert a row that is already in the spool, then remove its file; in a
 * child process that is killed after timeout_ms, so that the caller waits
 * no longer than that whatever PostgreSQL does (a row sent but still in
 * the spool is stored once by the next flush: ON CONFLICT DO NOTHING).
 * 0 sent; -1 not (errp says why: MS_ERR_TIMEOUT, the connection's or the
 * database's error). */
int collect_send_row (const collect_conf_t *c, const db_job_run_t *r,
                      int timeout_ms, ms_error_t *errp);
/* Connect with the collector's settings. */
int collect_db_open (const collect_conf_t *c, int retry_ms, db_t **dbp,
                     ms_error_t *errp);

/* ---- the spool's cap (spoolcap.c) ---- */

/* What the spool dropped: the totals in SPOOL/dropped, since it began. */
typedef struct {
    uint64_t rows;     /* spooled rows dropped for the cap */
    uint64_t bad;      /* files of bad/ dropped for the cap */
    uint64_t aged;     /* files of bad/ removed for their age */
    uint64_t bytes;    /* their bytes */
    uint64_t reported_rows, reported_bad, reported_aged; /* last report */
    uint64_t last;     /* Unix time of the last drop, 0: none */
    /* the spool's node: the cluster and node of the row whose write made
     * the latest drop ("": none yet), what the database's count is
     * keyed by */
    char cluster[64];
    char node[64];
} collect_drops_t;

/* Take SPOOL/.lock, waiting at most wait_ms (-1: as long as it takes);
 * returns its descriptor. Whoever removes spooled rows holds it. */
int collect_spool_lock (const collect_conf_t *c, int wait_ms,
                        ms_error_t *errp);
void collect_spool_unlock (int fd);
/* Under the lock: remove bad/ files past their age, then drop the oldest
 * files (bad/ first) until the spool with one more file `keep` of
 * add_bytes (keep NULL: none) is within its cap; log each drop and add it
 * to SPOOL/dropped. *dropped (may be NULL): this call's drops. */
int collect_spool_trim (const collect_conf_t *c, const char *keep,
                        size_t add_bytes, collect_drops_t *dropped,
                        ms_error_t *errp);
/* The same for a writer of the row of node on cluster: a drop records
 * them in SPOOL/dropped as the spool's node. */
int collect_spool_trim_for (const collect_conf_t *c, const char *keep,
                            size_t add_bytes, const char *cluster,
                            const char *node, collect_drops_t *dropped,
                            ms_error_t *errp);
/* Read SPOOL/dropped (none: zeros). */
int collect_drops_read (const collect_conf_t *c, collect_drops_t *d,
                        ms_error_t *errp);
/* The totals (*d) and what was dropped since the last report (*since),
 * logged when not nothing; marks it reported. */
int collect_drops_report (const collect_conf_t *c, collect_drops_t *d,
                          collect_drops_t *since, ms_error_t *errp);
/* Report the totals of SPOOL/dropped to the database (db_spool_drops_put:
 * the larger totals win there), keyed by the spool's node; nothing to do
 * when nothing was dropped. A spool whose drops name no node (only aged
 * files so far) is reported as c->cluster and the host's short name. */
int collect_drops_send (const collect_conf_t *c, db_t *db, ms_error_t *errp);
/* One line for an admin: "dropped for the spool's cap: ..." */
void collect_drops_format (const collect_drops_t *d,
                           const collect_drops_t *since, char *out,
                           size_t len);
/* `flush` of the programs: report the drops (stdout and the log; the
 * spool's count needs no database), then send the spooled rows. Returns
 * the exit status (0, or 1 with the reason on stderr as "PROG: ..."). */
int collect_flush_main (const collect_conf_t *c, const char *prog);

/* The metasched-collect program itself (collectors/metasched-collect.c):
 * wrapper, hooks and flush. Its main() (metasched/admin/collect_main.c)
 * hands it everything but `--metasched db|collect`. Returns the exit
 * status. */
int collect_program (int argc, char **argv);

/* ---- accounting ingest (ingest.c) ---- */

typedef struct {
    size_t jobs_seen;     /* finished jobs the clusters reported */
    size_t upserted;
    size_t missing;       /* accounted but never measured */
    size_t clusters_failed;
} collect_ingest_stats_t;

/* Pull finished jobs from every slurmrest cluster of the site
 * configuration and upsert them into job_accounting (daemon role). */
int collect_ingest (const char *clusters_conf, db_t *db,
                    collect_ingest_stats_t *st, ms_error_t *errp);

#endif /* MS_COLLECT_H */
