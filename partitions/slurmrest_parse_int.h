/* slurmrest_parse_int.h - the field readers of slurmrestd's answers,
 * shared by the parsers of slurmctld's endpoints (slurmrest_parse.c) and
 * of the accounting endpoints (slurmrest_parse_db.c). Private to them. */
#ifndef MS_SLURMREST_PARSE_INT_H
#define MS_SLURMREST_PARSE_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"

/* Field readers: a missing or null field gives the default; a field of the
 * wrong type is an error naming it ("jobs[3].time_limit: expected an
 * integer"). Keys may be paths ("nodes/total"). */
struct srp_fctx {
    const char *what; /* "jobs" */
    size_t index;
    ms_error_t *errp;
    int failed;
};

/* Reads one element of an answer's array, the object o, into item (zeroed).
 * Returns 1 to keep the item, 0 to leave it out (the next element is read
 * into the same place); an error sets f->failed. */
typedef int (*srp_item_fn) (struct srp_fctx *f, json_t *o, void *item,
                            const void *arg);

/* An answer: a JSON object, no errors, a 2xx status. */
int srp_parse_answer (const char *body, size_t len, long http_status,
                      json_t **rootp, ms_error_t *errp);
/* The error "expected WANT" for the field key (the first one only). */
void srp_ftype (struct srp_fctx *f, const char *key, const char *want);
/* o's member at path "a/b/c"; NULL if any step is missing. */
json_t *srp_jpath (json_t *o, const char *path);
void srp_fstr (struct srp_fctx *f, json_t *o, const char *key, char *buf,
               size_t size);
/* A number in any shape a version uses; `inf`: {"infinite": true}. */
int64_t srp_fnum (struct srp_fctx *f, json_t *o, const char *key, int64_t dflt,
                  int64_t inf);
int64_t srp_fint (struct srp_fctx *f, json_t *o, const char *key, int64_t dflt);
/* A record's "job_id": a positive integer, else 0 and the field's error. */
uint64_t srp_fjobid (struct srp_fctx *f, json_t *o);
/* A state: a string or a list of flags, the base first. */
void srp_fstate (struct srp_fctx *f, json_t *o, const char *key, char *buf,
                 size_t size, char *flags, size_t fsize);
/* A list of strings (or one string) as a comma-separated list. */
void srp_flist (struct srp_fctx *f, json_t *o, const char *key, char *buf,
                size_t size);
/* An exit code as a shell reports it; -1 where unknown. */
int srp_fexit (struct srp_fctx *f, json_t *o, const char *key);
bool srp_has_flag (const char *list, const char *flag);
uint32_t srp_clamp_u32 (int64_t v);
int srp_clamp_int (int64_t v);
/* The objects of root's array `key`, each read by read_one (takes root). */
void *srp_read_items (json_t *root, const char *key, const char *what,
                      size_t size, srp_item_fn read_one, const void *arg,
                      size_t *n, ms_error_t *errp);
/* srp_read_items on an answer. */
void *srp_parse_items (const char *body, size_t len, long http_status,
                       const char *key, size_t size, srp_item_fn read_one,
                       const void *arg, size_t *n, ms_error_t *errp);

#endif
