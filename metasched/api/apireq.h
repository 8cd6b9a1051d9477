/* apireq.h - a job request of the API (POST /v1/jobs, POST /v1/whatif;
 * doc/api.md "A job request"): parse and check the JSON into a struct.
 *
 * Every refusal names the field (errp->text "field 'nodes': ...", and
 * apireq_errfield gives the bare name for the answer's "field"); unknown
 * keys are refused. Limits: doc/api.md "Limits".
 */
#ifndef MS_APIREQ_H
#define MS_APIREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/jobreq.h"
#include "metasched/common/error.h"
#include "metasched/common/jobspec.h"


typedef struct {
    size_t max_script;    /* 0: APIREQ_SCRIPT_MAX */
    bool allow_partition; /* may a user pin a partition */
    bool partition_names; /* may a user name partitions (NAME[,NAME...]),
                             which the daemon honors or maps */
} ms_apireq_limits_t;

/* Parse body (len bytes, not NUL-terminated) into r (initialized here).
 * On failure r is left empty, errp (kind MS_ERR_INPUT, http_status 400 or
 * 413 for a script over the limit) names the field; field (may be NULL,
 * fieldlen bytes) gets the field's name or "". lim may be NULL. */
int apireq_parse (const char *body, size_t len, const ms_apireq_limits_t *lim,
                  ms_apireq_t *r, char *field, size_t fieldlen,
                  ms_error_t *errp);


#endif /* MS_APIREQ_H */
