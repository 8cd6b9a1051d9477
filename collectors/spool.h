/* spool.h - small key=value records on disk: the job_runs rows spooled
 * while PostgreSQL is unreachable, the wrapper's counter file, the node
 * side's per-job state.
 *
 *   metasched-spool 1 KIND
 *   key=value
 *   ...
 *   end
 *
 * Keys are [A-Za-z0-9_.:-]{1,64}, values printable ASCII without newline
 * (at most 4000 bytes), at most 512 keys, no key twice, the whole record at
 * most 64 KiB; the closing "end" line tells a complete record from a cut
 * one. Files are written to a temporary name, synced and renamed, so a
 * reader never sees half a record. Parsing is strict and names
 * "file:line" on every error: records may come from users (the counter
 * file) and are fuzzed.
 */
#ifndef MS_SPOOL_H
#define MS_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "metasched/common/error.h"

#define SPOOL_MAX_BYTES 65536
#define SPOOL_MAX_KEYS 512
#define SPOOL_MAX_VALUE 4000

typedef struct spool_rec spool_rec_t;

spool_rec_t *spool_rec_new (const char *kind);
void spool_rec_free (spool_rec_t *r);
const char *spool_rec_kind (const spool_rec_t *r);
const char *spool_rec_name (const spool_rec_t *r); /* file, for messages */

/* Set (or replace) a key. Keys outside the alphabet are a programming
 * error and ignored; control bytes in values are replaced by '?' and
 * values are cut at SPOOL_MAX_VALUE. */
void spool_rec_set (spool_rec_t *r, const char *key, const char *val);
void spool_rec_setf (spool_rec_t *r, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

size_t spool_rec_count (const spool_rec_t *r);
/* i-th key and value (in file order). */
const char *spool_rec_key (const spool_rec_t *r, size_t i);
const char *spool_rec_value (const spool_rec_t *r, size_t i);

/* NULL when absent. */
const char *spool_rec_get (const spool_rec_t *r, const char *key);
/* Typed getters: 1 found and valid, 0 absent (*v untouched), -1 invalid
 * (errp says "file: key: ..."). */
int spool_rec_get_u64 (const spool_rec_t *r, const char *key, uint64_t *v,
                       ms_error_t *errp);
int spool_rec_get_i64 (const spool_rec_t *r, const char *key, int64_t *v,
                       ms_error_t *errp);
int spool_rec_get_double (const spool_rec_t *r, const char *key, double *v,
                          ms_error_t *errp);

/* The record as text; the caller frees it. */
char *spool_rec_format (const spool_rec_t *r, size_t *lenp);
/* Parse text; name is used in messages ("name:line: ..."). */
int spool_rec_parse (const char *text, size_t len, const char *name,
                     spool_rec_t **rp, ms_error_t *errp);

/* Write atomically as dir/file (tmp + fsync + rename) with mode. */
int spool_write (const char *dir, const char *file, const spool_rec_t *r,
                 mode_t mode, ms_error_t *errp);
/* Read and parse a file (no symlinks followed, size limited). If
 * want_kind is not NULL the record must be of that kind. */
int spool_read (const char *path, const char *want_kind, spool_rec_t **rp,
                ms_error_t *errp);
/* Names in dir starting with prefix and ending with suffix, sorted; the
 * caller frees each and the array. */
int spool_list (const char *dir, const char *prefix, const char *suffix,
                char ***namesp, size_t *np, ms_error_t *errp);
void spool_list_free (char **names, size_t n);

#endif /* MS_SPOOL_H */
