/* jobspec.h - a user's job as metasched receives it: the batch script and
 * its options, read like sbatch reads them (#SBATCH lines, then the command
 * line, which wins). No partition: metasched chooses it. */
#ifndef MS_JOBSPEC_H
#define MS_JOBSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "metasched/common/error.h"

#define JOBSPEC_SCRIPT_MAX (1024 * 1024) /* bytes */
#define JOBSPEC_MAX_ENV 256
#define JOBSPEC_BEGIN_AHEAD_MAX (731 * 86400) /* --begin: the API's limit */
#define JOBSPEC_PRIORITY_TOP 0xfffffffdLL /* --priority=TOP (Slurm's) */
#define JOBSPEC_PRIORITY_MAX 0xfffffffdLL /* below Slurm's NO_VAL */

/* A GPU or generic resource request: [type:]count, or name[:type]:count
 * for --gres. */
typedef struct {
    char name[32]; /* "gpu" for the --gpus* options */
    char type[32]; /* "" when any type */
    uint32_t count;
} ms_tres_req_t;

#define JOBSPEC_MAX_GRES 8
#define JOBSPEC_MAX_ARRAY_RANGES 64
#define JOBSPEC_MAX_DEPS 32
#define JOBSPEC_MAX_HET 128 /* components of a heterogeneous job (Slurm's
                               MAX_HET_JOB_COMPONENTS) */
#define JOBSPEC_ARRAY_MAX_INDEX 4000000 /* the highest index an array takes */

/* --array=1-10:2,15,20-30%4 */
typedef struct {
    uint32_t first, last, step; /* step 1 for a single index or N-M */
} ms_array_range_t;

typedef struct {
    ms_array_range_t r[JOBSPEC_MAX_ARRAY_RANGES];
    size_t nranges;     /* 0: not an array */
    uint32_t ntasks;    /* indexes in all (a repeated index counts again) */
    uint32_t max_index; /* the highest index */
    uint32_t max_running; /* %N: at most N tasks at once; 0: no limit */
} ms_array_t;

/* --dependency=afterok:12:13,singleton (or '?' between: any of them) */
typedef enum {
    JOBSPEC_DEP_AFTER = 1,    /* after:ID[+MIN]: started (or cancelled) */
    JOBSPEC_DEP_AFTERANY,     /* ended */
    JOBSPEC_DEP_AFTEROK,      /* ended with exit code 0 */
    JOBSPEC_DEP_AFTERNOTOK,   /* ended otherwise */
    JOBSPEC_DEP_AFTERCORR,    /* the same array task ended with 0 */
    JOBSPEC_DEP_AFTERBURSTBUFFER, /* ended and its burst buffer staged out */
    JOBSPEC_DEP_SINGLETON,    /* no other job of this name and user runs */
} ms_dep_type_t;

typedef struct {
    ms_dep_type_t type;
    uint64_t job_id;   /* a meta job id; 0 for singleton */
    uint32_t delay_min; /* after:ID+MIN */
} ms_dep_t;

typedef struct {
    ms_dep_t d[JOBSPEC_MAX_DEPS];
    size_t n;          /* 0: no dependency */
    bool any;          /* '?' separated: one of them suffices */
} ms_deps_t;

/* --mail-type flags */
enum {
    JOBSPEC_MAIL_BEGIN = 1 << 0,
    JOBSPEC_MAIL_END = 1 << 1,
    JOBSPEC_MAIL_FAIL = 1 << 2,
    JOBSPEC_MAIL_REQUEUE = 1 << 3,
    JOBSPEC_MAIL_INVALID_DEPEND = 1 << 4,
    JOBSPEC_MAIL_STAGE_OUT = 1 << 5,
    JOBSPEC_MAIL_TIME_LIMIT = 1 << 6,
    JOBSPEC_MAIL_TIME_LIMIT_90 = 1 << 7,
    JOBSPEC_MAIL_TIME_LIMIT_80 = 1 << 8,
    JOBSPEC_MAIL_TIME_LIMIT_50 = 1 << 9,
    JOBSPEC_MAIL_ARRAY_TASKS = 1 << 10,
    JOBSPEC_MAIL_ALL = JOBSPEC_MAIL_BEGIN | JOBSPEC_MAIL_END | JOBSPEC_MAIL_FAIL
                       | JOBSPEC_MAIL_REQUEUE | JOBSPEC_MAIL_INVALID_DEPEND
                       | JOBSPEC_MAIL_STAGE_OUT,
};

/* --cpu-freq as Slurm reads it (cpu_freq_verify_cmdline): a frequency, a
 * range MIN-MAX, each kHz or a name, and a governor; or a governor alone.
 * The names stand for places in a partition's frequency list
 * (jobspec_cpu_freq_pick). */
#define JOBSPEC_FREQ_LOW 0x80000001u    /* the lowest */
#define JOBSPEC_FREQ_MEDIUM 0x80000002u /* the middle ((n - 1) / 2) */
#define JOBSPEC_FREQ_HIGH 0x80000003u   /* the highest */
#define JOBSPEC_FREQ_HIGHM1 0x80000004u /* the one below the highest */
typedef enum {
    JOBSPEC_GOV_NONE = 0,
    JOBSPEC_GOV_CONSERVATIVE,
    JOBSPEC_GOV_ONDEMAND,
    JOBSPEC_GOV_PERFORMANCE,
    JOBSPEC_GOV_POWERSAVE,
    JOBSPEC_GOV_USERSPACE,
    JOBSPEC_GOV_SCHEDUTIL,
} jobspec_gov_t;

typedef struct {
    uint32_t min, max; /* kHz or JOBSPEC_FREQ_*; 0: not given (a single
                          frequency is max with min 0) */
    jobspec_gov_t gov;
} ms_cpufreq_t;

/* The fields are those of doc/msbatch.1 "OPTIONS UNDER METASCHED"; their
 * JSON names (jobspec_json.c, doc/api.md) are the field names. "" for a
 * string, 0 for a number, -1 for a tri-state means: not given. */
typedef struct ms_jobspec {
    char name[128];          /* --job-name; default: the script's name */
    char app[64];            /* --app: the application, for the predictor */
    int nodes;               /* --nodes (0: not given); the minimum */
    int nodes_max;           /* --nodes=MIN-MAX: the maximum (0: = nodes) */
    char nodes_list[128];    /* --nodes=2,4,8: the sizes it may run at ("":
                                any from nodes to nodes_max) */
    int ntasks;              /* --ntasks */
    int ntasks_per_node;     /* --ntasks-per-node */
    int cpus_per_task;       /* --cpus-per-task */
    uint32_t time_limit_min; /* --time, in minutes (0: not given) */
    uint32_t time_min_min;   /* --time-min, in minutes (0: not given) */
    int64_t begin;           /* --begin, Unix time (0: not given) */
    char std_out[256];       /* --output (%j %x %A %a %u ... kept) */
    char std_err[256];       /* --error */
    char std_in[256];        /* --input */
    char chdir[256];         /* --chdir */
    char partition[64];      /* --partition: the site's setting decides */
    char clusters[256];      /* -M --clusters: names, "," between (the
                                site's cluster_requests decides) */
    char cpu_freq[64];       /* --cpu-freq as given */
    ms_cpufreq_t cpu_freq_spec; /* ... parsed */
    int64_t priority;        /* --priority: -1 not given; 0 holds; TOP is
                                JOBSPEC_PRIORITY_TOP (operators only) */
    bool exclusive;          /* --exclusive */
    char exclusive_mode[8];  /* --exclusive=user|mcs|topo; "" for plain */
    bool test_only;          /* --test-only: candidates, not a submission */
    bool parsable;           /* --parsable: msbatch prints only the id */
    bool wait;               /* -W, --wait: msbatch waits for the job's end
                                and exits with its exit code */
    char export_mode[16];    /* "ALL" (default), "NONE", "NIL" */
    char *export_vars[JOBSPEC_MAX_ENV]; /* --export=VAR[=value],...: owned */
    size_t nexport;

    /* Routing constraints (and carried to the cluster as well) */
    char account[64];         /* -A --account */
    char qos[64];             /* -q --qos */
    uint64_t mem_per_node_mb; /* --mem in MiB (0 with mem_per_node_set:
                               * all of a node's memory) */
    bool mem_per_node_set;
    uint64_t mem_per_cpu_mb;  /* --mem-per-cpu, MiB (0: not given) */
    uint64_t mem_per_gpu_mb;  /* --mem-per-gpu, MiB (0: not given) */
    uint64_t tmp_mb;          /* --tmp: disk per node, MiB (0: not given) */
    char constraint[256];     /* -C --constraint: a feature expression */
    char prefer[256];         /* --prefer: features wished, not required */
    char nodelist[1024];      /* -w --nodelist: nodes required (pins) */
    char exclude[1024];       /* -x --exclude: nodes excluded */
    char reservation[128];    /* --reservation: names a cluster's one */
    char licenses[256];       /* -L --licenses: name[@db][:count],... */
    char gres[256];           /* --gres as given ("gpu:a100:2,nvme:1") */
    ms_tres_req_t gres_list[JOBSPEC_MAX_GRES]; /* --gres parsed */
    size_t ngres;
    char gres_flags[64];      /* --gres-flags */
    ms_tres_req_t gpus;       /* -G --gpus: in all (count 0: not given) */
    ms_tres_req_t gpus_per_node;   /* --gpus-per-node */
    ms_tres_req_t gpus_per_task;   /* --gpus-per-task */
    ms_tres_req_t gpus_per_socket; /* --gpus-per-socket */
    int cpus_per_gpu;         /* --cpus-per-gpu */
    int ntasks_per_gpu;       /* --ntasks-per-gpu */

    /* Arrays and dependencies (routed by metasched) */
    char array[256];          /* -a --array as given */
    ms_array_t array_spec;    /* ... parsed */
    char dependency[512];     /* -d --dependency as given (meta job ids) */
    ms_deps_t deps;           /* ... parsed */
    int kill_on_invalid_dep;  /* --kill-on-invalid-dep: 1 yes, 0 no, -1 */

    /* Carried to the cluster as given */
    char mail_type[128];      /* --mail-type, upper case, comma-separated */
    unsigned mail_flags;      /* ... as JOBSPEC_MAIL_* */
    char mail_user[128];      /* --mail-user */
    char signal[32];          /* --signal=[{R|B}:]SIG[@TIME] as given */
    int signal_num;           /* ... its signal number (0: none) */
    int signal_time;          /* ... seconds before the end (default 60) */
    char signal_flags[4];     /* "", "B" (batch shell only), "R" */
    int requeue;              /* --requeue 1, --no-requeue 0, -1 */
    char open_mode[16];       /* --open-mode: "append", "truncate" or "" */
    char wckey[64];           /* --wckey */
    char comment[256];        /* --comment (beside metasched's tag) */
    bool hold;                /* -H --hold */
    int64_t deadline;         /* --deadline, Unix time (0: not given) */
    int nice;                 /* --nice[=N] (default 100 when no N) */
    bool nice_set;
    char get_user_env[32];    /* --get-user-env[=T][S|L]: "1" when bare */
    char hint[64];            /* --hint */
    char distribution[64];    /* -m --distribution */
    int ntasks_per_core;      /* --ntasks-per-core */
    int ntasks_per_socket;    /* --ntasks-per-socket */
    int sockets_per_node;     /* --sockets-per-node (-B S) */
    int cores_per_socket;     /* --cores-per-socket (-B S:C) */
    int threads_per_core;     /* --threads-per-core (-B S:C:T) */
    int mincpus;              /* --mincpus */
    int core_spec;            /* -S --core-spec (-1: not given) */
    int thread_spec;          /* --thread-spec (0: not given) */
    bool contiguous;          /* --contiguous */
    bool overcommit;          /* -O --overcommit */
    bool oversubscribe;       /* -s --oversubscribe */
    bool spread_job;          /* --spread-job */
    bool use_min_nodes;       /* --use-min-nodes */
    bool no_kill;             /* -k --no-kill */
    bool reboot;              /* --reboot */
    int wait_all_nodes;       /* --wait-all-nodes 0|1 (-1: not given) */
    uint32_t delay_boot_min;  /* --delay-boot, minutes (0: not given) */
    char acctg_freq[64];      /* --acctg-freq */
    char profile[64];         /* --profile */
    char mem_bind[64];        /* --mem-bind */
    char gpu_bind[64];        /* --gpu-bind */
    char gpu_freq[64];        /* --gpu-freq */
    char network[64];         /* --network */
    char mcs_label[64];       /* --mcs-label */
    char batch_features[128]; /* --batch */
    char switches[32];        /* --switches=N[@TIME] */
    char propagate[128];      /* --propagate[=LIMITS]: "ALL" when bare;
                                 msbatch sends the limits of its shell */
    char export_file[1024];   /* --export-file: msbatch reads the job's
                                 environment from it */
    char container[256];      /* --container */
    /* options of later Slurm releases (jobspec_since.c: the OpenAPI
     * version from which slurmrestd carries each) */
    char extra[256];           /* --extra */
    char container_id[256];    /* --container-id */
    int oom_kill_step;         /* --oom-kill-step[=0|1] (-1: not given) */
    int segment_size;          /* --segment=N (-1: not given) */
    bool stepmgr;              /* --stepmgr */
    bool spread_segments;      /* --spread-segments */
    bool consolidate_segments; /* --consolidate-segments */
    char tres_per_task[256];   /* --tres-per-task=LIST */
    char tres_bind[256];       /* --tres-bind=SPEC */
    char resources[256];       /* --resources=LIST */
    char container_type[64];   /* --container-type=TYPE */
    char mem_update[64];       /* --mem-update=MARGIN@DELAY, as given */
    int resv_ports;            /* --resv-ports[=N] (-1: not given) */
    bool external;             /* --external */
    char wrap[4096];          /* --wrap: the command of a script msbatch
                                 writes (command line only) */

    /* A heterogeneous job (#SBATCH hetjob, ':' on the command line): this
     * spec is its first component, het[] the others in order, each with
     * its own options (owned; jobspec_het.c) */
    struct ms_jobspec **het;
    size_t nhet;
} ms_jobspec_t;

/* The GPUs per node the job asks for, on `nodes` nodes (0: not given, 1):
 * --gpus-per-node, --gres=gpu[:type]:N, --gpus spread over the nodes
 * (rounded up), --gpus-per-task or --tres-per-task's GPUs times the tasks
 * of the busiest node; 0 for a CPU job. *typep (may be NULL): the GPU
 * type asked for, "" for any (valid until the thread's next call). */
int jobspec_gpus_per_node (const ms_jobspec_t *s, int nodes,
                           const char **typep);
/* The same where the task counts come apart from s (the API's "tasks" and
 * "tasks_per_node", which the options' JSON does not hold): s's own where
 * these are 0. */
int jobspec_gpus_per_node_tasks (const ms_jobspec_t *s, int nodes, int ntasks,
                                 int ntasks_per_node, const char **typep);
/* The GPUs per task of a --tres-per-task list into *t: its gres/gpu entry
 * (gres/gpu=N, gres/gpu:TYPE=N, gres/gpu:N; 23.02's gres:gpu:N; no count:
 * 1), as Slurm reads it for --gpus-per-task. 1 found, 0 none, -1
 * malformed or named twice. */
int jobspec_tres_task_gpus (const char *list, ms_tres_req_t *t);
void jobspec_init (ms_jobspec_t *s);
void jobspec_free (ms_jobspec_t *s);

/* Read the #SBATCH lines of a script (they end at its first command).
 * `name` is the script's name in messages ("job.sh:3: ..."). */
int jobspec_parse_script (ms_jobspec_t *s, const char *script, size_t len,
                          const char *name, ms_error_t *errp);

/* Read command-line options (argv[0] is not an option). On success *argip is
 * the index of the first argument that is not an option (the script). */
int jobspec_parse_args (ms_jobspec_t *s, int argc, char **argv, int *argip,
                        ms_error_t *errp);

/* Parse a Slurm time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS;
 * "UNLIMITED"/"INFINITE" give UINT32_MAX. Rounds seconds up to minutes. */
int jobspec_parse_time (const char *s, uint32_t *minutes);

/* Parse a Slurm begin time against `now`, in local time: now[+N[UNIT]]
 * (UNIT seconds (default), minutes, hours, days, weeks or s, sec, m, min,
 * h, hour, d, day, w, week; plurals too), HH:MM[:SS] (today, or tomorrow
 * when already past), YYYY-MM-DD[THH:MM[:SS]], today (its 00:00), tomorrow
 * and midnight (tomorrow's 00:00), noon (the next 12:00). Words and units in
 * any case. Returns 0, -1 when malformed, -2 when before 1970 or more than
 * JOBSPEC_BEGIN_AHEAD_MAX seconds after now. */
int jobspec_parse_begin (const char *s, time_t now, int64_t *out);

/* Memory as sbatch writes it: N[K|M|G|T][B], any case; no unit is MiB.
 * Rounds KiB up. Returns 0 or -1. */
int jobspec_parse_mem (const char *s, uint64_t *mib);

/* --array: N, N-M, N-M:STEP, lists of them, %LIMIT at the end. */
int jobspec_parse_array (const char *s, ms_array_t *out, ms_error_t *errp);

/* --dependency: TYPE:ID[:ID...][,TYPE:ID...] or with '?' between, and
 * singleton; after:ID+MINUTES. */
int jobspec_parse_dependency (const char *s, ms_deps_t *out,
                              ms_error_t *errp);

/* Set one option by its long name (val NULL for a flag), as on the command
 * line: the JSON readers (jobspec_json.c) check values with it. */
int jobspec_apply_option (ms_jobspec_t *s, const char *name, const char *val,
                          ms_error_t *errp);

/* --cpu-freq's value (Slurm's cpu_freq_verify_cmdline at 22.05 and
 * 26.05: what either takes). Returns 0 or -1 with errp. */
int jobspec_parse_cpu_freq (const char *val, ms_cpufreq_t *out,
                            ms_error_t *errp);

/* The frequencies of a partition (freqs ascending, n of them) a --cpu-freq
 * allows, as Slurm's slurmd turns it into a frequency: *lo to *hi (equal
 * for one frequency). A name is its place in the list, a number in kHz the
 * listed frequency equal to it or the next above (the lowest below the
 * list, the highest above it), a range both ends; the governor alone:
 * Performance the highest, PowerSave the lowest, the others any.
 * Returns false where c pins nothing. */
bool jobspec_cpu_freq_pick (const ms_cpufreq_t *c, const uint32_t *freqs,
                            size_t n, uint32_t *lo, uint32_t *hi);

/* --propagate's resource limits, in Slurm's order (slurm_rlimits_info.c):
 * CPU FSIZE DATA STACK CORE RSS NPROC NOFILE MEMLOCK AS; NULL past them. */
const char *jobspec_rlimit_name (size_t i);

/* --propagate's value as sbatch's parse_rlimits reads it: ALL, NONE, or
 * names ([RLIMIT_]NAME, upper case) separated by ',' or blanks; *maskp
 * gets bit i for jobspec_rlimit_name (i). Returns 0 or -1 with errp. */
int jobspec_parse_propagate (const char *val, unsigned *maskp,
                             ms_error_t *errp);

/* --chdir as sbatch resolves it: a relative path is taken from the
 * submission directory cwd ("cwd/DIR", as sbatch writes it). */
int jobspec_resolve_chdir (ms_jobspec_t *s, const char *cwd,
                           ms_error_t *errp);

/* "afterok" for JOBSPEC_DEP_AFTEROK ... */
const char *jobspec_dep_name (ms_dep_type_t t);

/* What metasched does with an sbatch option (doc/msbatch.1). */
typedef enum {
    JOBSPEC_CARRIED = 1, /* passed on to the cluster's Slurm */
    JOBSPEC_ROUTED,      /* a routing constraint (and carried) */
    JOBSPEC_METASCHED,   /* metasched itself does it (array, dependency,
                          * begin, test-only ...) */
    JOBSPEC_MSBATCH,     /* an option of the command (help, parsable) */
    JOBSPEC_REFUSED,     /* refused, with the reason */
} jobspec_handling_t;

typedef struct {
    const char *name;  /* long name without "--" */
    char shortname;    /* 0: none */
    int has_arg;       /* 0 none, 1 required, 2 optional (--opt[=val]) */
    jobspec_handling_t handling;
    const char *why;   /* for refused options: the reason */
} jobspec_option_t;

/* The options sbatch knows, in order; NULL past the end. */
const jobspec_option_t *jobspec_option_at (size_t i);

/* An option of a later Slurm release than 22.05 (jobspec_since.c): its
 * name, the OpenAPI version from which slurmrestd carries it and the
 * release that brought that version; a hint is dropped where it cannot
 * be carried, the others make a cluster no candidate. */
typedef struct {
    const char *name, *api, *release; /* api NULL: no version carries it */
    bool hint;
} jobspec_since_t;

/* The options of s that OpenAPI version api does not carry, one a call,
 * from *ip (0 first) on; NULL after the last, or where api is "" (not
 * known yet). */
const jobspec_since_t *jobspec_since_missing (const ms_jobspec_t *s,
                                              const char *api, size_t *ip);
/* Does version api carry option opt (true for the options of 22.05)? */
bool jobspec_since_carries (const char *opt, const char *api);

/* Is n one of the sizes of a --nodes list ("2,4-8:2"; "" or NULL: any
 * size)? (jobspec_nodes.c) */
bool jobspec_nodes_in (const char *list, int n);

/* Check the whole: a script that starts with #!, sizes within limits,
 * counts that agree. */
/* ---- heterogeneous jobs (jobspec_het.c) ---- */

/* Is the directive text t (after "#SBATCH" and blanks) a component
 * separator, "hetjob" or "packjob" alone or before blanks? *lenp: its
 * length. */
bool jobspec_het_separator (const char *t, size_t *lenp);

/* Add a component after the last one of s, as sbatch starts its next
 * component: the previous one's options, less those sbatch resets for each
 * component (slurm_reset_all_options: counts, partition, memory per CPU,
 * GPUs ...). NULL with errp ("WHERE...") past JOBSPEC_MAX_HET. */
struct ms_jobspec *jobspec_het_add (ms_jobspec_t *s, const char *where,
                                    ms_error_t *errp);

/* Component k of s (0: s itself); NULL past the last. */
struct ms_jobspec *jobspec_het_at (ms_jobspec_t *s, size_t k);

/* Whether the environment variable NAME (its first n bytes; an entry
 * "NAME=value" may be passed with n the name's length) describes a running
 * job: its identity, array, step and allocation, which Slurm sets for each
 * job (SLURM_JOB_ID, SLURM_ARRAY_*, ...; msbatch(1) lists them), and
 * metasched's own job variables. A job submitted from inside another would
 * otherwise carry the other's: such variables are never exported. */
bool jobspec_env_is_identity (const char *name, size_t n);

int jobspec_check (const ms_jobspec_t *s, const char *script, size_t len,
                   bool allow_partition, ms_error_t *errp);

#endif /* MS_JOBSPEC_H */
