/* jobspec_int.h - what jobspec.c (the lines, the command line, the option
 * table) and jobspec_values.c (the syntax of the options' values) share;
 * not part of the interface: that is jobspec.h. */
#ifndef MS_JOBSPEC_INT_H
#define MS_JOBSPEC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
#include "metasched/common/jobspec.h"

/* The option types of jobspec.c's table (jobspec_apply.c applies them). */
typedef enum {
    O_NONE = 0, /* msbatch's own: no effect on the job */
    O_STR,      /* a string field at off (size bytes) */
    O_FLAG,     /* a bool field at off */
    O_COUNT,    /* an int field at off: 1.. */
    O_COUNT0,   /* an int field at off: 0.. */
    O_NAME,     /* a string field at off: a name, no spaces or quotes */
    O_MEM,      /* a uint64_t MiB field at off */
    O_REFUSE,   /* refused */
    /* the rest: their own code in apply () */
    O_NODES, O_TIME, O_TIME_MIN, O_BEGIN, O_DEADLINE, O_DELAY_BOOT,
    O_OUTPUT_PATH, O_JOB_NAME, O_APP, O_EXCLUSIVE, O_EXPORT, O_MEM_NODE,
    O_CONSTRAINT, O_NODELIST, O_GRES, O_GPUS, O_ARRAY, O_DEPENDENCY,
    O_KILL_INV_DEP, O_MAIL_TYPE, O_SIGNAL, O_REQUEUE, O_NO_REQUEUE,
    O_OPEN_MODE, O_NICE, O_GET_USER_ENV, O_HINT, O_DISTRIBUTION,
    O_EXTRA_NODE_INFO, O_CORE_SPEC, O_WAIT_ALL_NODES, O_PROPAGATE,
    O_NO_KILL, O_SWITCHES, O_WRAP, O_CLUSTERS, O_CPU_FREQ, O_PRIORITY,
    O_OOM_KILL_STEP, O_SEGMENT, O_MEM_UPDATE, O_RESV_PORTS,
} otype_t;

/* An option of the table: what it is, its type and its field. */
typedef struct {
    jobspec_option_t o;
    otype_t type;
    size_t off, size;
} opt_t;

/* The value val (NULL: none) of option o into s; where prefixes errors
 * (jobspec_apply.c). */
int jobspec_opt_apply (ms_jobspec_t *s, const char *where, const opt_t *o,
                       const char *val, ms_error_t *errp);

/* A decimal number at *pp (at most max); *pp moves past it. */
bool jobspec_read_u32 (const char **pp, uint32_t max, uint32_t *out);

/* A word of a NULL-terminated list of choices, case-insensitive; -1 if
 * none. */
int jobspec_choice (const char *val, size_t n, const char *const *words);

/* [type:]count: the --gpus* options; -1 when malformed. */
int jobspec_parse_tres (const char *val, ms_tres_req_t *t);

/* --gres=name[[:type]:count][,...] or "none" into s->gres_list. */
int jobspec_parse_gres (ms_jobspec_t *s, const char *where, const char *val,
                        ms_error_t *errp);

/* --mail-type=TYPE[,TYPE...] into s->mail_flags and s->mail_type. */
int jobspec_parse_mail_type (ms_jobspec_t *s, const char *where,
                             const char *val, ms_error_t *errp);

/* --signal=[{R|B}:]SIG[@TIME] into s->signal*. */
int jobspec_parse_signal (ms_jobspec_t *s, const char *where,
                          const char *val, ms_error_t *errp);

/* --distribution's value:
 * {*|block|cyclic|arbitrary|plane=N}[:{*|block|cyclic|fcyclic}[:...]]
 * [,Pack|NoPack] */
bool jobspec_valid_distribution (const char *val);

/* --nodes=N, MIN-MAX or a list of sizes into s->nodes, s->nodes_max
 * (jobspec_nodes.c). */
int jobspec_parse_nodes (ms_jobspec_t *s, const char *where, const char *val,
                         ms_error_t *errp);

/* Slurm's parse_uint16: 0..65533 in strtoll's syntax (jobspec_since.c). */
int jobspec_parse_u16 (const char *val, int *out);

/* --oom-kill-step[=0|1] and --segment=N (jobspec_since.c). */
int jobspec_parse_oom_kill_step (ms_jobspec_t *s, const char *where,
                                 const char *val, ms_error_t *errp);
int jobspec_parse_segment (ms_jobspec_t *s, const char *where,
                           const char *val, ms_error_t *errp);

/* --mem-update=MARGIN@DELAY and --resv-ports[=N] (jobspec_since.c). */
int jobspec_parse_mem_update (ms_jobspec_t *s, const char *where,
                              const char *val, ms_error_t *errp);
int jobspec_parse_resv_ports (ms_jobspec_t *s, const char *where,
                              const char *val, ms_error_t *errp);

/* Free the components of a heterogeneous job (jobspec.c, with
 * jobspec_free). */
void jobspec_het_free (ms_jobspec_t *s);

/* One option word of the script or the command line (with its value,
 * maybe in the next word) through jobspec.c's table. Returns the number
 * of words used, or -1. */
int jobspec_one_option (ms_jobspec_t *s, const char *where, const char *word,
                        const char *next, ms_error_t *errp);

/* What sbatch reads from every component (its first pass): --parsable,
 * --wait, --test-only in any component hold for the job. */
void jobspec_het_merge (ms_jobspec_t *s);

#endif
