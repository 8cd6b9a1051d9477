/* confval.h - the values of configuration keys: integers and numbers in a
 * range, seconds, booleans, strings and absolute paths that must fit their
 * field. Shared by the cluster configuration (partitions/clusterconf.c), the
 * daemon's (metasched/daemon/dconf.c) and the collectors'
 * (collectors/conf.c), so that each kind of value is checked, and refused
 * in words, the same way everywhere.
 *
 * Messages name the key and the value ("cycle_s: 'x' is not a number of
 * seconds") after the place the value stands at, "name:line: ".
 */
#ifndef MS_CONFVAL_H
#define MS_CONFVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/common/error.h"

/* Where a value stands: the file's name and the line in messages. A reader
 * keeps one and moves line along; NULL where the caller puts the place in
 * front of the message itself (ms_err_prefix). */
typedef struct {
    const char *name;
    int line;
} confval_at_t;

/* Fill errp with MS_ERR_INPUT, "name:line: " and the formatted message (at
 * most 767 bytes of it); return -1. */
int confval_err (const confval_at_t *at, ms_error_t *errp, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* A decimal integer in [min, max]. */
int confval_long (const confval_at_t *at, const char *key, const char *val,
                  long min, long max, long *out, ms_error_t *errp);

/* A finite number in [min, max]; confval_seconds says "a number of
 * seconds" where it refuses one. */
int confval_double (const confval_at_t *at, const char *key, const char *val,
                    double min, double max, double *out, ms_error_t *errp);
int confval_seconds (const confval_at_t *at, const char *key, const char *val,
                     double min, double max, double *out, ms_error_t *errp);

/* yes/true/on/1 or no/false/off/0, letters in either case. */
int confval_bool (const confval_at_t *at, const char *key, const char *val,
                  bool *out, ms_error_t *errp);

/* val copied into out (size bytes with the NUL) when it fits. */
int confval_str (const confval_at_t *at, const char *key, const char *val,
                 char *out, size_t size, ms_error_t *errp);

/* An absolute path, copied into out as confval_str does. */
int confval_path (const confval_at_t *at, const char *key, const char *val,
                  char *out, size_t size, ms_error_t *errp);

#endif /* MS_CONFVAL_H */
