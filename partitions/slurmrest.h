/* slurmrest.h - the backend for a real Slurm cluster: a libcurl client of
 * slurmrestd, OpenAPI v0.0.38, authenticated by JWT.
 *
 * metasched holds one token of the site's root user per cluster
 * (`scontrol token username=root`); with it slurmrestd accepts
 * X-SLURM-USER-NAME of any user, so jobs are submitted on behalf of, and
 * run as, the user who asked for them.
 */
#ifndef MS_SLURMREST_H
#define MS_SLURMREST_H

#include <stddef.h>

#include "partitions/backend.h"
#include "partitions/clusterconf.h"

#define SLURMREST_API "v0.0.38"

typedef struct {
    const char *cluster;     /* name, for messages */
    const char *url;         /* base URL, e.g. http://127.0.0.1:6820 */
    const char *token;       /* the JWT itself */
    const char *token_file;  /* where it came from, for messages (or NULL) */
    const char *token_user;  /* the token's user; NULL: root */
    long connect_timeout_ms; /* 0: 3000 */
    long timeout_ms;         /* whole request; 0: 15000 */
} slurmrest_opts_t;

/* Create the backend. The token is copied. */
int slurmrest_create (const slurmrest_opts_t *opts, ms_backend_t **bp,
                      ms_error_t *errp);

/* Create the backend of a configured cluster: reads its token file, which
 * must be mode 0600. */
int slurmrest_from_conf (const ms_clusterconf_t *c, ms_backend_t **bp,
                         ms_error_t *errp);

/* How many job listings through b (a slurmrest backend) slurmctld
 * answered "not modified since the previous one", so that the previous
 * list was given again without being sent; 0 for other backends. */
uint64_t slurmrest_jobs_unchanged (const ms_backend_t *b);

/* The parsers of slurmrestd's answers, separate from the transport so that
 * tests and the fuzz target can feed them arbitrary bytes. Each checks the
 * answer's "errors" array and the HTTP status (0: not known). */
int slurmrest_parse_status (const char *body, size_t len, long http_status,
                            ms_error_t *errp);
int slurmrest_parse_jobs (const char *body, size_t len, long http_status,
                          ms_job_info_t **out, size_t *n, ms_error_t *errp);
int slurmrest_parse_partitions (const char *body, size_t len, long http_status,
                                ms_partition_state_t **out, size_t *n,
                                ms_error_t *errp);
int slurmrest_parse_nodes (const char *body, size_t len, long http_status,
                           ms_node_state_t **out, size_t *n, ms_error_t *errp);
int slurmrest_parse_submit (const char *body, size_t len, long http_status,
                            uint64_t *idp, ms_error_t *errp);

/* The JSON body of a submission (for tests); the caller frees it. */
char *slurmrest_submit_body (const ms_job_request_t *req, ms_error_t *errp);

#endif /* MS_SLURMREST_H */
