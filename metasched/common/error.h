/* error.h - errors as values that carry their context.
 *
 * A function that can fail takes an `ms_error_t *errp` (which may be NULL)
 * and fills it at the place that knows the file, line, field or HTTP status.
 * Libraries never print and never exit; only programs report.
 */
#ifndef MS_ERROR_H
#define MS_ERROR_H

#include <stdarg.h>

typedef enum {
    MS_ERR_NONE = 0,
    MS_ERR_INPUT,    /* bad input: config, trace, request, model file */
    MS_ERR_SYSTEM,   /* a system call failed (errno in sys_errno) */
    MS_ERR_CONNECT,  /* could not connect to a service */
    MS_ERR_TIMEOUT,  /* a service did not answer in time */
    MS_ERR_HTTP,     /* a service answered with an HTTP error status */
    MS_ERR_PROTOCOL, /* a service answered with something unparseable */
    MS_ERR_REMOTE,   /* a service reported an error in a well-formed answer */
    MS_ERR_DB,       /* a database error (sqlstate holds the SQL state) */
    MS_ERR_MISSING,  /* asked-for data does not exist (no model for a pair, ...) */
    MS_ERR_AUTH,     /* authentication or permission refused */
} ms_errkind_t;

typedef struct {
    ms_errkind_t kind;
    int http_status; /* MS_ERR_HTTP and MS_ERR_REMOTE: the answer's status */
    int sys_errno;   /* MS_ERR_SYSTEM: errno */
    char sqlstate[6];
    char text[1024];
} ms_error_t;

/* Fill errp (if not NULL) with kind and a formatted message; return -1. */
int ms_err (ms_error_t *errp, ms_errkind_t kind, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
int ms_verr (ms_error_t *errp, ms_errkind_t kind, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 3, 0)));

/* Put "prefix: " before the message already in errp; return -1. */
int ms_err_prefix (ms_error_t *errp, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

void ms_err_clear (ms_error_t *errp);

const char *ms_errkind_name (ms_errkind_t kind);

#endif /* MS_ERROR_H */
