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

/* Free the components of a heterogeneous job (jobspec_het.c). */
void jobspec_het_free (ms_jobspec_t *s);

/* What sbatch reads from every component (its first pass): --parsable,
 * --wait, --test-only in any component hold for the job. */
void jobspec_het_merge (ms_jobspec_t *s);

#endif
