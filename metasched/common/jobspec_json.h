/* jobspec_json.h - the options of a job (ms_jobspec_t) as JSON: in the
 * requests of the API (doc/api.md "A job request"), in jobs.options of the
 * database and in what `msbatch --parse` prints. One name a field, the
 * field's own (doc/api.md lists them). Values are checked by the same code
 * as the options of msbatch, so a refusal names the field and says what
 * sbatch's option expects. */
#ifndef MS_JOBSPEC_JSON_H
#define MS_JOBSPEC_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "metasched/common/error.h"
#include "metasched/common/jobspec.h"

/* Is key one of the fields below (the sbatch options beyond the API's
 * first ones: account, qos, mem_per_node_mb ...)? */
bool jobspec_json_known (const char *key);

/* Set the field key of s from v (JSON null: leave it). 0, or -1 with errp
 * "field 'KEY': ..." (kind MS_ERR_INPUT). */
int jobspec_json_set (ms_jobspec_t *s, const char *key, json_t *v,
                      ms_error_t *errp);

/* Every field of the list that is given, into o. */
void jobspec_json_put (const ms_jobspec_t *s, json_t *o);

/* What the parsers made of the text of some fields (array_spec,
 * dependency_spec, gres_list, mail_flags), for msbatch --parse. */
void jobspec_json_put_parsed (const ms_jobspec_t *s, json_t *o);

/* Read every known field of a stored options object into s (initialized
 * by the caller); unknown keys are left alone. */
int jobspec_json_read (ms_jobspec_t *s, json_t *options, ms_error_t *errp);

#endif /* MS_JOBSPEC_JSON_H */
