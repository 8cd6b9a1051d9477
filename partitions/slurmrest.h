/* slurmrest.h - the backend for a real Slurm cluster: a libcurl client of
 * slurmrestd, authenticated by JWT, speaking every OpenAPI version from
 * v0.0.38 (Slurm 22.05, 23.02) to v0.0.46 (Slurm 26.11).
 *
 * metasched holds one token of the site's root user per cluster
 * (`scontrol token username=root`); with it slurmrestd accepts
 * X-SLURM-USER-NAME of any user, so jobs are submitted on behalf of, and
 * run as, the user who asked for them.
 *
 * Versions: each handle negotiates its cluster's version on its first
 * request (the newest version both sides know; see slurmrest_negotiate),
 * unless clusters.conf pins one with api_version. The versions differ in a
 * table of spellings and shapes inside slurmrest.c; every operation and
 * every parser is one code path for all of them.
 */
#ifndef MS_SLURMREST_H
#define MS_SLURMREST_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "partitions/backend.h"
#include "partitions/clusterconf.h"

/* One OpenAPI version metasched speaks. */
typedef struct slurmrest_api slurmrest_api_t;

/* The known versions, oldest first: i from 0 to slurmrest_api_count ()-1. */
size_t slurmrest_api_count (void);
const slurmrest_api_t *slurmrest_api_at (size_t i);
/* The version named "v0.0.42" (the leading v may be left out), or NULL. */
const slurmrest_api_t *slurmrest_api_find (const char *name);
const char *slurmrest_api_name (const slurmrest_api_t *api);
/* The query of a job listing of the changes since `since` into buf
 * ("?update_time=..."), or "" where the version cannot ask for them. */
void slurmrest_jobs_query (const slurmrest_api_t *api, time_t since,
                           char *buf, size_t size);
/* "v0.0.38, v0.0.39, ..., v0.0.46" */
const char *slurmrest_api_list (void);
/* Is api a version spoken only where the server serves no older one?
 * (23.02's v0.0.39: its slurmrestd exits on a job's nice) */
bool slurmrest_api_draft (const slurmrest_api_t *api);

typedef struct {
    const char *cluster;     /* name, for messages */
    const char *url;         /* base URL, e.g. http://127.0.0.1:6820 */
    const char *token;       /* the JWT itself */
    const char *token_file;  /* where it came from, for messages (or NULL) */
    const char *token_user;  /* the token's user; NULL: root */
    const char *api_version; /* pinned version; NULL or "": negotiate */
    long connect_timeout_ms; /* 0: 3000 */
    long timeout_ms;         /* whole request; 0: 15000 */
    const char *slurm_cluster; /* Slurm's ClusterName, for its
                                  associations; NULL or "": cluster */
} slurmrest_opts_t;

/* Create the backend. The token is copied. Nothing is sent yet. */
int slurmrest_create (const slurmrest_opts_t *opts, ms_backend_t **bp,
                      ms_error_t *errp);

/* Create the backend of a configured cluster: reads its token file, which
 * must be mode 0600. */
int slurmrest_from_conf (const ms_clusterconf_t *c, ms_backend_t **bp,
                         ms_error_t *errp);

/* Choose the version of b (a slurmrest backend) now, if it has none yet:
 * the pinned one, or the newest that both metasched and the server know.
 * The server is asked by GET /slurm/VERSION/ping, newest first (a version
 * it does not serve answers 404); if it serves none of ours, its OpenAPI
 * description names what it does serve, for the error. Every operation
 * negotiates by itself when needed; a 404 on a path the version serves
 * (the server was upgraded) makes the next request negotiate again. */
int slurmrest_negotiate (ms_backend_t *b, ms_error_t *errp);

/* The version b speaks now ("v0.0.42"), "" before negotiation; "" for
 * other backends. */
const char *slurmrest_version (const ms_backend_t *b);
/* "pinned" or "negotiated" (or "" before negotiation). */
const char *slurmrest_version_source (const ms_backend_t *b);

/* How many job listings through b (a slurmrest backend) slurmctld
 * answered "not modified since the previous one", so that the previous
 * list was given again without being sent; 0 for other backends. */
uint64_t slurmrest_jobs_unchanged (const ms_backend_t *b);

/* A job's energy as Slurm's accounting holds it (sacct's ConsumedEnergy). */
typedef struct {
    uint64_t id;
    double energy_j;
} slurmrest_energy_t;

/* The energy slurmdbd accounted for the cluster's jobs (GET
 * /slurmdb/VERSION/jobs): only jobs with a figure (an energy plugin
 * measured them). A cluster without the accounting endpoints (404) has
 * none: 0 with *n 0. */
int slurmrest_accounted_energy (ms_backend_t *b, slurmrest_energy_t **out,
                                size_t *n, ms_error_t *errp);
/* ... its parser: the job's allocated energy TRES, else the sum of its
 * steps' consumed energy. */
int slurmrest_parse_db_energy (const slurmrest_api_t *api, const char *body,
                               size_t len, long http_status,
                               slurmrest_energy_t **out, size_t *n,
                               ms_error_t *errp);

/* Every exchange of b is shown to fn after it is answered (for capturing
 * real requests and answers; the token is never shown). NULL: none. */
typedef void (*slurmrest_recorder_fn) (void *arg, const char *method,
                                       const char *path, const char *as_user,
                                       const char *body, long http_status,
                                       const char *answer, size_t len);
void slurmrest_set_recorder (ms_backend_t *b, slurmrest_recorder_fn fn,
                             void *arg);

/* The parsers of slurmrestd's answers, separate from the transport so that
 * tests and the fuzz target can feed them arbitrary bytes. Each checks the
 * answer's "errors" array and the HTTP status (0: not known). */
int slurmrest_parse_status (const slurmrest_api_t *api, const char *body,
                            size_t len, long http_status, ms_error_t *errp);
/* unchangedp (may be NULL): set when the answer says that no job changed
 * since the listing's update_time (the jobs are then not in it). */
int slurmrest_parse_jobs (const slurmrest_api_t *api, const char *body,
                          size_t len, long http_status, ms_job_info_t **out,
                          size_t *n, bool *unchangedp, ms_error_t *errp);
int slurmrest_parse_partitions (const slurmrest_api_t *api, const char *body,
                                size_t len, long http_status,
                                ms_partition_state_t **out, size_t *n,
                                ms_error_t *errp);
/* How many of gres `name` ("gpu") a node's gres text names (0: none; -1:
 * an entry without a count). */
int slurmrest_gres_count (const char *gres, const char *name);
int slurmrest_parse_nodes (const slurmrest_api_t *api, const char *body,
                           size_t len, long http_status, ms_node_state_t **out,
                           size_t *n, ms_error_t *errp);
/* The job records of an answer of GET /slurmdb/VERSION/jobs or
 * /slurmdb/VERSION/job/ID (ms_acct_job_t), every version's shapes. */
int slurmrest_parse_db_jobs (const slurmrest_api_t *api, const char *body,
                             size_t len, long http_status,
                             ms_acct_job_t **out, size_t *n,
                             ms_error_t *errp);
/* The users' associations of `cluster` (NULL: of every cluster) in an
 * answer of GET /slurmdb/VERSION/associations, and the QOS of GET
 * /slurmdb/VERSION/qos. */
int slurmrest_parse_associations (const slurmrest_api_t *api, const char *body,
                                  size_t len, long http_status,
                                  const char *cluster, ms_assoc_t **out,
                                  size_t *n, ms_error_t *errp);
int slurmrest_parse_qos (const slurmrest_api_t *api, const char *body,
                         size_t len, long http_status, ms_qos_t **out,
                         size_t *n, ms_error_t *errp);
int slurmrest_parse_submit (const slurmrest_api_t *api, const char *body,
                            size_t len, long http_status, uint64_t *idp,
                            ms_error_t *errp);
/* The answer to a ping: the status, and whether a slurmctld answered (an
 * answer of 200 can say that none did, or that it refused the token). */
int slurmrest_parse_ping (const slurmrest_api_t *api, const char *body,
                          size_t len, long http_status, ms_error_t *errp);
/* The answer to an update: the status and, from v0.0.40, each result. */
int slurmrest_parse_update (const slurmrest_api_t *api, const char *body,
                            size_t len, long http_status, ms_error_t *errp);
/* The versions a server's OpenAPI description names, as "v0.0.40, ..."
 * into buf (empty if none). */
int slurmrest_parse_openapi_versions (const char *body, size_t len,
                                      char *buf, size_t size,
                                      ms_error_t *errp);

/* The JSON body of a submission in version api, the begin time counted
 * from now where the version needs it; the caller frees it. */
char *slurmrest_submit_body (const slurmrest_api_t *api,
                             const ms_job_request_t *req, time_t now,
                             ms_error_t *errp);
/* The JSON body of an update; the caller frees it. */
char *slurmrest_update_body (const slurmrest_api_t *api,
                             const ms_job_update_t *upd, ms_error_t *errp);

#endif /* MS_SLURMREST_H */
