/* slurmfmt.h - a meta job in squeue's terms, for the tools that drive
 * Slurm's commands: Slurm's state names (-t, %T, %t), squeue's -o/--format
 * and the shape of squeue --json. msqueue and mscancel share it. */
#ifndef MS_SLURMFMT_H
#define MS_SLURMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "metasched/common/error.h"

/* The job's state as Slurm names it (PENDING, RUNNING, COMPLETED, FAILED,
 * TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, CANCELLED, ...) and its compact form
 * (PD, R, CD, F, TO, OOM, NF, CA). */
const char *slurmfmt_state (const json_t *job);
const char *slurmfmt_state_compact (const char *state);

/* A state selection (-t/--states): Slurm's names, long or compact, any
 * case, metasched's own states (queued ... lost) and "all". */
typedef struct {
    bool all;           /* no selection */
    unsigned meta;      /* bits: metasched's states asked by their name */
    char slurm[32][16]; /* Slurm's names asked (long form) */
    size_t nslurm;
} slurmfmt_states_t;

/* Read a comma-separated list; an unknown name is an error naming it. */
int slurmfmt_states_parse (const char *list, slurmfmt_states_t *st,
                           ms_error_t *errp);

/* Does job match? */
bool slurmfmt_states_match (const slurmfmt_states_t *st, const json_t *job);

/* metasched's states a query to metaschedd must ask for ("" when every
 * state may match); written comma-separated into out. */
void slurmfmt_states_query (const slurmfmt_states_t *st, char *out,
                            size_t outlen);

/* Has job ended (completed, failed, cancelled, lost)? */
bool slurmfmt_finished (const json_t *job);

/* A time of the API ("2026-11-28T09:30:57Z") as Unix time; -1 if none. */
long long slurmfmt_time (const json_t *v);

/* squeue's -o/--format: "%[.][WIDTH]FIELD" with text between; an unknown
 * field is an error naming it. */
typedef struct slurmfmt slurmfmt_t;

int slurmfmt_parse (const char *format, slurmfmt_t **fp, ms_error_t *errp);
void slurmfmt_header (const slurmfmt_t *f, FILE *out);
void slurmfmt_row (const slurmfmt_t *f, const json_t *job, long long now,
                   FILE *out);
void slurmfmt_free (slurmfmt_t *f);

/* One job of the API (doc/api.md) in the shape of squeue --json (the
 * job_info of data_parser v0.0.40 and later) for the fields metasched has,
 * with the API's own object under "metasched". */
json_t *slurmfmt_json_job (const json_t *job);

/* The whole answer: {"jobs": [...], "last_backfill", "last_update",
 * "meta", "errors", "warnings"}. */
json_t *slurmfmt_json (const json_t *jobs, long long now);

#endif /* MS_SLURMFMT_H */
