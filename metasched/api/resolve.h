/* resolve.h - an admin's resolution of an unknown job (POST
 * /v1/admin/jobs/ID/resolve, doc/api.md): its body read and checked. */
#ifndef MS_RESOLVE_H
#define MS_RESOLVE_H

#include <stddef.h>

#include "metasched/common/error.h"

#define RESOLVE_REASON_MAX 1024

typedef struct {
    char state[16]; /* completed, failed, cancelled */
    int exit_code;  /* 0..255; -1: none given (completed: 0) */
    char reason[RESOLVE_REASON_MAX + 1]; /* "": none */
} resolve_req_t;

/* The body {"state": ..., "exit_code": N, "reason": "..."}: errors (400)
 * name the field in field (fsize bytes). */
int resolve_parse (const char *body, size_t len, resolve_req_t *r, char *field,
                   size_t fsize, ms_error_t *errp);

#endif
