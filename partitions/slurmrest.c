/* slurmrest.c - the slurmrestd backend (OpenAPI v0.0.38 to v0.0.46, JWT):
 * the transport (libcurl), the negotiation of the version, and the
 * operations of backend.h. What each version's requests and answers look
 * like is in slurmrest_proto.c (the table of versions), slurmrest_parse.c
 * and slurmrest_build.c.
 *
 * Errors name the cluster (added by the backend_* wrappers), the request
 * (method and path), and then what went wrong: connection refused, timeout,
 * the HTTP status, the answer's "errors" array, or where the JSON broke.
 * The token never appears in any message.
 */
#include "config.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/common/util.h"
#include "partitions/slurmrest.h"

#define ANSWER_MAX (256 * 1024 * 1024) /* larger answers are refused */

typedef struct {
    char cluster[MS_NAME_MAX];
    char slurm_cluster[MS_NAME_MAX]; /* Slurm's ClusterName; "": cluster */
    char url[MS_PATH_MAX];
    char *token;
    char token_file[MS_PATH_MAX];
    char token_user[MS_NAME_MAX];
    long connect_timeout_ms;
    long timeout_ms;
    CURL *curl;
    const slurmrest_api_t *pinned; /* api_version of clusters.conf */
    const slurmrest_api_t *api;    /* the version spoken; NULL: negotiate */
    /* the latest job list read through this handle, and the second its
     * request was sent: the next GET /jobs asks for changes since then,
     * and slurmctld answers "no change" (v0.0.38: 304 and no body; later:
     * a warning and no jobs) if its job list has not changed, so an idle
     * cluster's list is not packed, sent and parsed again */
    ms_job_info_t *jcache;
    size_t njcache;
    time_t jcache_at;
    bool jcache_ok;
    uint64_t jobs_unchanged; /* "no change" answers */
    slurmrest_recorder_fn record;
    void *record_arg;
} slurmrest_t;

/* ---- transport ------------------------------------------------------------------ */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void
curl_init_once (void)
{
    curl_global_init (CURL_GLOBAL_DEFAULT);
}

/* The connection was lost before an answer: nothing was received. */
static bool
dropped (CURLcode rc)
{
    return rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING
           || rc == CURLE_SEND_ERROR;
}

/* One HTTP exchange. `as_user` names X-SLURM-USER-NAME (NULL: the token's
 * user). On success the raw answer and status are returned; transport
 * failures are errors here, the answer itself is judged by the parsers. */
static int
rest_exchange (slurmrest_t *s, const char *method, const char *path,
               const char *as_user, const char *body, ms_buf_t *ans,
               long *statusp, ms_error_t *errp)
{
    char url[MS_PATH_MAX + 256], hdr_user[128], *hdr_token;
    struct curl_slist *hdrs = NULL;
    CURLcode rc;
    size_t toklen = strlen (s->token);

    memset (ans, 0, sizeof (*ans));
    ans->max = ANSWER_MAX;
    snprintf (url, sizeof (url), "%s%s", s->url, path);
    snprintf (hdr_user, sizeof (hdr_user), "X-SLURM-USER-NAME: %s",
              as_user ? as_user : s->token_user);
    hdr_token = ms_xmalloc (toklen + 32);
    snprintf (hdr_token, toklen + 32, "X-SLURM-USER-TOKEN: %s", s->token);
    hdrs = curl_slist_append (hdrs, hdr_user);
    hdrs = curl_slist_append (hdrs, hdr_token);
    hdrs = curl_slist_append (hdrs, "Accept: application/json");
    if (body)
        hdrs = curl_slist_append (hdrs, "Content-Type: application/json");
    explicit_bzero (hdr_token, toklen + 32);
    free (hdr_token);

    curl_easy_reset (s->curl);
    curl_easy_setopt (s->curl, CURLOPT_URL, url);
    curl_easy_setopt (s->curl, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt (s->curl, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt (s->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt (s->curl, CURLOPT_POSTFIELDSIZE, (long)strlen (body));
    }
    curl_easy_setopt (s->curl, CURLOPT_WRITEFUNCTION, ms_buf_write);
    curl_easy_setopt (s->curl, CURLOPT_WRITEDATA, ans);
    curl_easy_setopt (s->curl, CURLOPT_CONNECTTIMEOUT_MS, s->connect_timeout_ms);
    curl_easy_setopt (s->curl, CURLOPT_TIMEOUT_MS, s->timeout_ms);
    curl_easy_setopt (s->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt (s->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    rc = curl_easy_perform (s->curl);
    /* A connection dropped before any answer came (reset by the peer, or
     * closed with nothing sent: slurmrestd does so now and then under
     * load) is tried once more for a GET, which changes nothing on the
     * cluster. A POST or DELETE is never repeated: it may have been done. */
    if (dropped (rc) && !ans->len && !strcmp (method, "GET")) {
        free (ans->data);
        memset (ans, 0, sizeof (*ans));
        ans->max = ANSWER_MAX;
        rc = curl_easy_perform (s->curl);
    }
    curl_slist_free_all (hdrs);
    if (rc != CURLE_OK) {
        free (ans->data);
        ans->data = NULL;
        if (ans->overflow)
            return ms_err (errp, MS_ERR_PROTOCOL,
                           "%s %s: answer larger than %d bytes", method, path,
                           ANSWER_MAX);
        if (rc == CURLE_OPERATION_TIMEDOUT)
            return ms_err (errp, MS_ERR_TIMEOUT,
                           "%s %s%s: no answer within %ld ms (timeout_ms, "
                           "connect_timeout_ms)",
                           method, s->url, path, s->timeout_ms);
        if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
            return ms_err (errp, MS_ERR_CONNECT,
                           "%s %s%s: %s (is slurmrestd running?)", method,
                           s->url, path, curl_easy_strerror (rc));
        return ms_err (errp, MS_ERR_CONNECT, "%s %s%s: %s", method, s->url,
                       path, curl_easy_strerror (rc));
    }
    curl_easy_getinfo (s->curl, CURLINFO_RESPONSE_CODE, statusp);
    if (s->record)
        s->record (s->record_arg, method, path,
                   as_user ? as_user : s->token_user, body, *statusp,
                   ans->data ? ans->data : "", ans->len);
    return 0;
}

/* Append a note naming the token file to errp: before, the file, after. */
static void
token_note (const slurmrest_t *s, ms_error_t *errp, const char *before,
            const char *after)
{
    size_t used = strlen (errp->text);
    snprintf (errp->text + used, sizeof (errp->text) - used, "%s%s%s", before,
              s->token_file[0] ? s->token_file : "token_file", after);
}

/* Prefix a parser's error with the request, and explain what slurmctld
 * answers when it refuses a token. A 404 where the version's path should
 * be (`versioned`: the path exists in every version) means the server no
 * longer serves this version: the next request negotiates again. */
static int
request_error (slurmrest_t *s, const char *method, const char *path,
               bool versioned, ms_error_t *errp)
{
    if (errp && (errp->kind == MS_ERR_REMOTE || errp->kind == MS_ERR_AUTH
                 || errp->kind == MS_ERR_HTTP)
        && (errp->http_status == 401 || errp->http_status == 403
            || strstr (errp->text, "Protocol authentication error")
            || strstr (errp->text, "Unspecified error")
            || strstr (errp->text, "Invalid authentication")
            || strstr (errp->text, "Access/permission denied"))) {
        token_note (s, errp,
                    " -- slurmctld refused the request: check that the "
                    "token in ",
                    " is valid for this cluster and not expired");
        errp->kind = MS_ERR_AUTH;
    } else if (errp && strstr (errp->text, "does not answer the ping"))
        /* 23.11 to 25.11 say DOWN both for a controller that is down and
         * for one that refused the token */
        token_note (s, errp, " -- is slurmctld up, and is the token in ",
                    " valid for this cluster?");
    if (versioned && errp && errp->http_status == 404 && !s->pinned
        && s->api) {
        size_t used = strlen (errp->text);
        snprintf (errp->text + used, sizeof (errp->text) - used,
                  " -- the server no longer serves %s; the next request "
                  "negotiates the version again",
                  slurmrest_api_name (s->api));
        s->api = NULL;
        s->jcache_ok = false;
    }
    return ms_err_prefix (errp, "%s %s", method, path);
}

/* Find the version to speak (see slurmrest_negotiate in slurmrest.h). */
static int
negotiate (slurmrest_t *s, ms_error_t *errp)
{
    ms_buf_t ans;
    long status = 0;
    char path[64], served[256] = "", nodb[128] = "";
    ms_error_t e2;
    const slurmrest_api_t *draft = NULL;

    if (s->api)
        return 0;
    if (s->pinned) {
        s->api = s->pinned;
        return 0;
    }
    for (size_t i = slurmrest_api_count (); i-- > 0;) {
        const slurmrest_api_t *api = slurmrest_api_at (i);
        snprintf (path, sizeof (path), "/slurm/%s/ping",
                  slurmrest_api_name (api));
        if (rest_exchange (s, "GET", path, NULL, NULL, &ans, &status, errp)
            < 0)
            return ms_err_prefix (errp, "negotiating the OpenAPI version");
        if (status == 404) {
            free (ans.data);
            continue;
        }
        if (status == 401 || status == 403) {
            /* authentication comes before the path: nothing learnt */
            (void)slurmrest_parse_status (api, ans.data, ans.len, status,
                                          errp);
            free (ans.data);
            request_error (s, "GET", path, false, errp);
            return ms_err_prefix (errp, "negotiating the OpenAPI version");
        }
        /* served only with slurmdbd: 23.02's v0.0.39 opens an accounting
         * connection for every request, even a ping, and fails every one
         * on a cluster without slurmdbd ("Unable to connect to database",
         * error 7000); an older version may serve */
        if (status >= 300
            && slurmrest_parse_status (api, ans.data, ans.len, status, &e2) < 0
            && strstr (e2.text, "[error 7000]")) {
            free (ans.data);
            snprintf (nodb, sizeof (nodb), "; %s needs slurmdbd there",
                      slurmrest_api_name (api));
            continue;
        }
        /* served, even if slurmctld itself did not answer the ping; a
         * draft version only where nothing older serves (23.02's v0.0.39:
         * its slurmrestd exits on a job's nice, and its v0.0.38 serves
         * every request metasched makes) */
        free (ans.data);
        if (slurmrest_api_draft (api)) {
            draft = api;
            continue;
        }
        s->api = api;
        return 0;
    }
    if (draft) {
        s->api = draft;
        return 0;
    }
    /* nothing in common: what does it serve? */
    if (rest_exchange (s, "GET", "/openapi/v3", NULL, NULL, &ans, &status, &e2)
            == 0
        && status == 200) {
        (void)slurmrest_parse_openapi_versions (ans.data, ans.len, served,
                                                sizeof (served), &e2);
    }
    if (ans.data)
        free (ans.data);
    return ms_err (errp, MS_ERR_PROTOCOL,
                   "negotiating the OpenAPI version: %s serves none of the "
                   "versions metasched speaks (%s); it serves %s%s",
                   s->url, slurmrest_api_list (),
                   served[0] ? served
                             : "none that its OpenAPI description "
                               "(GET /openapi/v3) names",
                   nodb);
}

/* One request of an operation and its answer. */
typedef struct {
    const char *method;
    char path[128]; /* "/slurm/v0.0.42/ping" */
    ms_buf_t ans;
    long status; /* left as it was where no answer came */
} rest_call_t;

static int rest_send (slurmrest_t *s, rest_call_t *c, const char *base,
                      const char *as_user, const char *body, ms_error_t *errp,
                      const char *fmt, ...)
    __attribute__ ((format (printf, 7, 8)));

/* Negotiate the version, then send c->method to the path `base` ("/slurm"
 * or "/slurmdb"), "/" and the version, then fmt; `as_user` and `body` as
 * for rest_exchange. The answer, in c, goes to a parser, then rest_done. */
static int
rest_send (slurmrest_t *s, rest_call_t *c, const char *base,
           const char *as_user, const char *body, ms_error_t *errp,
           const char *fmt, ...)
{
    va_list ap;
    size_t used;

    if (negotiate (s, errp) < 0)
        return -1;
    snprintf (c->path, sizeof (c->path), "%s/%s", base,
              slurmrest_api_name (s->api));
    used = strlen (c->path);
    va_start (ap, fmt);
    vsnprintf (c->path + used, sizeof (c->path) - used, fmt, ap);
    va_end (ap);
    return rest_exchange (s, c->method, c->path, as_user, body, &c->ans,
                          &c->status, errp);
}

/* After the parser (which returned rc) read c's answer: free it, and name
 * the request in the parser's error (`versioned` as for request_error). */
static int
rest_done (slurmrest_t *s, rest_call_t *c, int rc, bool versioned,
           ms_error_t *errp)
{
    free (c->ans.data);
    if (rc < 0)
        return request_error (s, c->method, c->path, versioned, errp);
    return 0;
}

/* rest_send of a GET to the accounting endpoint "/slurmdb/VERSION" what.
 * Returns 1, the answer dropped, where the server has no accounting (404:
 * no slurmdbd plugin loaded), else as rest_send. */
static int
rest_send_db (slurmrest_t *s, rest_call_t *c, const char *what,
              ms_error_t *errp)
{
    if (rest_send (s, c, "/slurmdb", NULL, NULL, errp, "%s", what) < 0)
        return -1;
    if (c->status == 404) {
        free (c->ans.data);
        return 1;
    }
    return 0;
}

static int
sr_ping (void *ctx, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "GET" };
    int rc;

    if (rest_send (s, &c, "/slurm", NULL, NULL, errp, "/ping") < 0)
        return -1;
    rc = slurmrest_parse_ping (s->api, c.ans.data, c.ans.len, c.status, errp);
    return rest_done (s, &c, rc, true, errp);
}

/* Give the remembered list again. */
static void
jobs_from_cache (slurmrest_t *s, ms_job_info_t **out, size_t *n)
{
    s->jobs_unchanged++;
    *n = s->njcache;
    *out = ms_xcalloc (s->njcache + 1, sizeof (**out));
    if (s->njcache)
        memcpy (*out, s->jcache, s->njcache * sizeof (**out));
}

static int
sr_jobs (void *ctx, ms_job_info_t **out, size_t *n, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "GET" };
    time_t sent = time (NULL);
    bool unchanged = false;
    int rc;

    if (negotiate (s, errp) < 0)
        return -1;
    /* changes at or after update_time give the whole list again, so the
     * second the previous request was sent misses nothing that happened
     * while it was answered */
    char query[64] = "";
    if (s->jcache_ok)
        slurmrest_jobs_query (s->api, s->jcache_at, query, sizeof (query));
    if (rest_send (s, &c, "/slurm", NULL, NULL, errp, "/jobs%s", query) < 0)
        return -1;
    if (c.status == 304 && s->jcache_ok) {
        free (c.ans.data);
        jobs_from_cache (s, out, n);
        return 0;
    }
    rc = slurmrest_parse_jobs (s->api, c.ans.data, c.ans.len, c.status, out, n,
                               s->jcache_ok ? &unchanged : NULL, errp);
    if (rest_done (s, &c, rc, true, errp) < 0) {
        s->jcache_ok = false;
        return -1;
    }
    if (unchanged) {
        free (*out);
        jobs_from_cache (s, out, n);
        return 0;
    }
    free (s->jcache);
    s->jcache = ms_xcalloc (*n + 1, sizeof (*s->jcache));
    if (*n)
        memcpy (s->jcache, *out, *n * sizeof (*s->jcache));
    s->njcache = *n;
    s->jcache_at = sent;
    s->jcache_ok = true;
    return 0;
}

static int
sr_job (void *ctx, uint64_t id, ms_job_info_t *out, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "GET" };
    ms_job_info_t *jobs = NULL;
    size_t n = 0;
    int rc;

    if (rest_send (s, &c, "/slurm", NULL, NULL, errp, "/job/%llu",
                   (unsigned long long)id)
        < 0)
        return -1;
    rc = slurmrest_parse_jobs (s->api, c.ans.data, c.ans.len, c.status, &jobs,
                               &n, NULL, errp);
    if (rc < 0 && errp
        && (strstr (errp->text, "Invalid job id")
            || strstr (errp->text, "Unable to find job")))
        errp->kind = MS_ERR_MISSING;
    if (rest_done (s, &c, rc, false, errp) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].id == id) {
            *out = jobs[i];
            free (jobs);
            return 0;
        }
    free (jobs);
    return ms_err (errp, MS_ERR_MISSING, "GET %s: job %llu not in the answer",
                   c.path, (unsigned long long)id);
}

static int
sr_nodes (void *ctx, ms_node_state_t **out, size_t *n, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "GET" };
    int rc;

    if (rest_send (s, &c, "/slurm", NULL, NULL, errp, "/nodes") < 0)
        return -1;
    rc = slurmrest_parse_nodes (s->api, c.ans.data, c.ans.len, c.status, out, n,
                                errp);
    return rest_done (s, &c, rc, true, errp);
}

static bool
in_list (const char *list, const char *name)
{
    size_t len = strlen (name);
    for (const char *p = list; (p = strstr (p, name)); p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return true;
    return false;
}

/* Partitions with their free resources: /partitions gives the totals,
 * /nodes the free nodes and CPUs, /jobs the queue lengths. */
static int
sr_partitions (void *ctx, ms_partition_state_t **out, size_t *n,
               ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "GET" };
    ms_partition_state_t *parts = NULL;
    ms_node_state_t *nodes = NULL;
    ms_job_info_t *jobs = NULL;
    size_t np = 0, nn = 0, nj = 0;
    int rc;

    if (rest_send (s, &c, "/slurm", NULL, NULL, errp, "/partitions") < 0)
        return -1;
    rc = slurmrest_parse_partitions (s->api, c.ans.data, c.ans.len, c.status,
                                     &parts, &np, errp);
    if (rest_done (s, &c, rc, true, errp) < 0)
        return -1;
    if (sr_nodes (ctx, &nodes, &nn, errp) < 0
        || sr_jobs (ctx, &jobs, &nj, errp) < 0) {
        free (parts);
        free (nodes);
        return -1;
    }
    for (size_t i = 0; i < np; i++) {
        ms_partition_state_t *p = &parts[i];
        p->nodes_idle = p->nodes_alloc = p->nodes_down = p->cpus_idle = 0;
        p->gpus_total = p->gpus_idle = 0;
        for (size_t k = 0; k < nn; k++) {
            if (!in_list (nodes[k].partitions, p->name))
                continue;
            /* the memory a job may ask per node: the least of its nodes' */
            if (nodes[k].real_memory_mb > 0
                && (p->mem_per_node_mb == 0
                    || nodes[k].real_memory_mb < p->mem_per_node_mb))
                p->mem_per_node_mb = nodes[k].real_memory_mb;
            ms_partition_add_features (p, nodes[k].features, 1);
            if (!nodes[k].usable)
                p->nodes_down++;
            else if (nodes[k].cpus_alloc == 0)
                p->nodes_idle++;
            else
                p->nodes_alloc++;
            if (nodes[k].usable && nodes[k].cpus > nodes[k].cpus_alloc)
                p->cpus_idle += nodes[k].cpus - nodes[k].cpus_alloc;
            if (nodes[k].usable) {
                p->gpus_total += nodes[k].gpus;
                p->gpus_idle += nodes[k].gpus - nodes[k].gpus_used;
            }
        }
        for (size_t k = 0; k < nj; k++) {
            if (strcmp (jobs[k].partition, p->name))
                continue;
            if (jobs[k].state == MS_JOB_PENDING)
                p->pending_jobs++;
            else if (jobs[k].state == MS_JOB_RUNNING
                     || jobs[k].state == MS_JOB_COMPLETING)
                p->running_jobs++;
        }
    }
    free (nodes);
    free (jobs);
    *out = parts;
    *n = np;
    return 0;
}

/* The cluster's associations and QOS from slurmrestd's accounting
 * endpoints (/slurmdb/VERSION/...). A server without them (404: no
 * slurmdbd plugin loaded) has no accounting to check. */
static int
sr_accounting (void *ctx, ms_accounting_t *out, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "GET" };
    int rc;

    memset (out, 0, sizeof (*out));
    if ((rc = rest_send_db (s, &c, "/associations", errp)) != 0)
        return rc < 0 ? -1 : 0;
    rc = slurmrest_parse_associations (s->api, c.ans.data, c.ans.len, c.status,
                                       s->slurm_cluster[0] ? s->slurm_cluster
                                                           : s->cluster,
                                       &out->assocs, &out->nassocs, errp);
    if (rest_done (s, &c, rc, false, errp) < 0)
        return -1;
    if (rest_send (s, &c, "/slurmdb", NULL, NULL, errp, "/qos") < 0) {
        ms_accounting_free (out);
        return -1; /* the transport's message names the request */
    }
    rc = slurmrest_parse_qos (s->api, c.ans.data, c.ans.len, c.status,
                              &out->qos, &out->nqos, errp);
    if (rest_done (s, &c, rc, false, errp) < 0) {
        ms_accounting_free (out);
        return -1;
    }
    out->enabled = true;
    return 0;
}

static slurmrest_t *ctx_of (const ms_backend_t *b);

int
slurmrest_accounted_energy (ms_backend_t *b, slurmrest_energy_t **out,
                            size_t *n, ms_error_t *errp)
{
    slurmrest_t *s = ctx_of (b);
    rest_call_t c = { .method = "GET" };
    int rc;

    *out = NULL;
    *n = 0;
    if (!s)
        return ms_err (errp, MS_ERR_INPUT, "not a slurmrest backend");
    if ((rc = rest_send_db (s, &c, "/jobs", errp)) != 0)
        return rc < 0 ? -1 : 0;
    rc = slurmrest_parse_db_energy (s->api, c.ans.data, c.ans.len, c.status,
                                    out, n, errp);
    return rest_done (s, &c, rc, false, errp);
}

/* Job records of the accounting endpoints: GET /slurmdb/VERSION/job/ID,
 * or /jobs?start_time=uts<since> (every version parses Slurm's time text,
 * which takes "uts" and a Unix time). A server without them (404) keeps
 * no accounting; one whose slurmdbd does not answer fails. */
static int
sr_acct_jobs (void *ctx, const ms_acct_query_t *q, ms_acct_job_t **out,
              size_t *n, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "GET" };
    char what[96];
    int rc;

    if (q->id)
        snprintf (what, sizeof (what), "/job/%llu",
                  (unsigned long long)q->id);
    else
        snprintf (what, sizeof (what), "/jobs?start_time=uts%lld",
                  (long long)(q->since > 1000000 ? q->since : 1000000));
    if ((rc = rest_send_db (s, &c, what, errp)) != 0)
        return rc < 0 ? -1 : 1;
    rc = slurmrest_parse_db_jobs (s->api, c.ans.data, c.ans.len, c.status, out,
                                  n, errp);
    return rest_done (s, &c, rc, false, errp);
}

static int
sr_submit (void *ctx, const ms_job_request_t *req, uint64_t *idp,
           ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "POST" };
    char *body;
    int rc;

    if (!req->user || !*req->user)
        return ms_err (errp, MS_ERR_INPUT,
                       "submit: the user to run the job as is required");
    if (negotiate (s, errp) < 0)
        return -1;
    if (!(body = slurmrest_submit_body (s->api, req, time (NULL), errp)))
        return ms_err_prefix (errp, "submit");
    rc = rest_send (s, &c, "/slurm", req->user, body, errp, "/job/submit");
    free (body);
    if (rc < 0)
        return -1;
    rc = slurmrest_parse_submit (s->api, c.ans.data, c.ans.len, c.status, idp,
                                 errp);
    return rest_done (s, &c, rc, true, errp);
}

static int
sr_update (void *ctx, uint64_t id, const ms_job_update_t *upd,
           ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "POST" };
    char *body;
    int rc;

    if (negotiate (s, errp) < 0)
        return -1;
    if (!(body = slurmrest_update_body (s->api, upd, errp)))
        return ms_err_prefix (errp, "update of job %llu",
                              (unsigned long long)id);
    rc = rest_send (s, &c, "/slurm", NULL, body, errp, "/job/%llu",
                    (unsigned long long)id);
    free (body);
    if (rc < 0)
        return -1;
    rc = slurmrest_parse_update (s->api, c.ans.data, c.ans.len, c.status, errp);
    return rest_done (s, &c, rc, false, errp);
}

static int
sr_cancel (void *ctx, uint64_t id, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "DELETE" };
    int rc;

    if (rest_send (s, &c, "/slurm", NULL, NULL, errp, "/job/%llu",
                   (unsigned long long)id)
        < 0)
        return -1;
    rc = slurmrest_parse_update (s->api, c.ans.data, c.ans.len, c.status, errp);
    return rest_done (s, &c, rc, false, errp);
}

/* DELETE job/ID?signal=N: every version takes a number and, without
 * flags, signals the batch shell and every step (KILL_FULL_JOB: v0.0.38's
 * _handle_job_delete, v0.0.39's _handle_job_delete, the slurmctld
 * plugin's default from 23.11 on). */
static int
sr_signal (void *ctx, uint64_t id, int sig, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    rest_call_t c = { .method = "DELETE" };
    int rc;

    if (sig < 1 || sig > 64)
        return ms_err (errp, MS_ERR_INPUT, "signal %d: expected 1 to 64",
                       sig);
    if (rest_send (s, &c, "/slurm", NULL, NULL, errp,
                   "/job/%llu?signal=%d", (unsigned long long)id, sig)
        < 0)
        return -1;
    rc = slurmrest_parse_update (s->api, c.ans.data, c.ans.len, c.status, errp);
    return rest_done (s, &c, rc, false, errp);
}

static void
sr_destroy (void *ctx)
{
    slurmrest_t *s = ctx;
    if (!s)
        return;
    if (s->curl)
        curl_easy_cleanup (s->curl);
    free (s->jcache);
    if (s->token) {
        explicit_bzero (s->token, strlen (s->token));
        free (s->token);
    }
    free (s);
}

static const struct ms_backend_ops slurmrest_ops;

static slurmrest_t *
ctx_of (const ms_backend_t *b)
{
    if (!b || b->ops != &slurmrest_ops)
        return NULL;
    return b->ctx;
}

uint64_t
slurmrest_jobs_unchanged (const ms_backend_t *b)
{
    slurmrest_t *s = ctx_of (b);
    return s ? s->jobs_unchanged : 0;
}

int
slurmrest_negotiate (ms_backend_t *b, ms_error_t *errp)
{
    slurmrest_t *s = ctx_of (b);
    if (!s)
        return ms_err (errp, MS_ERR_INPUT, "cluster %s: not a slurmrest cluster",
                       b ? b->cluster : "?");
    if (negotiate (s, errp) < 0)
        return ms_err_prefix (errp, "cluster %s", b->cluster);
    return 0;
}

const char *
slurmrest_version (const ms_backend_t *b)
{
    slurmrest_t *s = ctx_of (b);
    return s && s->api ? slurmrest_api_name (s->api) : "";
}

const char *
slurmrest_version_source (const ms_backend_t *b)
{
    slurmrest_t *s = ctx_of (b);
    if (!s || !s->api)
        return "";
    return s->pinned ? "pinned" : "negotiated";
}

void
slurmrest_set_recorder (ms_backend_t *b, slurmrest_recorder_fn fn, void *arg)
{
    slurmrest_t *s = ctx_of (b);
    if (!s)
        return;
    s->record = fn;
    s->record_arg = arg;
}

static const struct ms_backend_ops slurmrest_ops = {
    .type = "slurmrest",
    .ping = sr_ping,
    .partitions = sr_partitions,
    .nodes = sr_nodes,
    .submit = sr_submit,
    .update = sr_update,
    .cancel = sr_cancel,
    .signal = sr_signal,
    .jobs = sr_jobs,
    .job = sr_job,
    .accounting = sr_accounting,
    .acct_jobs = sr_acct_jobs,
    .destroy = sr_destroy,
};

int
slurmrest_create (const slurmrest_opts_t *o, ms_backend_t **bp,
                  ms_error_t *errp)
{
    slurmrest_t *s;
    ms_backend_t *b;
    const slurmrest_api_t *pinned = NULL;

    if (!o->url || (strncmp (o->url, "http://", 7)
                    && strncmp (o->url, "https://", 8)))
        return ms_err (errp, MS_ERR_INPUT,
                       "cluster %s: url must start with http:// or https://",
                       o->cluster ? o->cluster : "?");
    if (!o->token || !*o->token || strpbrk (o->token, "\r\n"))
        return ms_err (errp, MS_ERR_INPUT, "cluster %s: no usable token",
                       o->cluster ? o->cluster : "?");
    if (o->api_version && *o->api_version
        && !(pinned = slurmrest_api_find (o->api_version)))
        return ms_err (errp, MS_ERR_INPUT,
                       "cluster %s: api_version '%s' is not one of %s",
                       o->cluster ? o->cluster : "?", o->api_version,
                       slurmrest_api_list ());
    pthread_once (&curl_once, curl_init_once);
    s = ms_xcalloc (1, sizeof (*s));
    ms_strlcpy (s->cluster, o->cluster ? o->cluster : "", sizeof (s->cluster));
    ms_strlcpy (s->slurm_cluster, o->slurm_cluster ? o->slurm_cluster : "",
                sizeof (s->slurm_cluster));
    ms_strlcpy (s->url, o->url, sizeof (s->url));
    size_t ul = strlen (s->url);
    while (ul > 0 && s->url[ul - 1] == '/')
        s->url[--ul] = '\0';
    s->token = ms_xstrdup (o->token);
    if (o->token_file)
        ms_strlcpy (s->token_file, o->token_file, sizeof (s->token_file));
    ms_strlcpy (s->token_user, o->token_user ? o->token_user : "root",
                sizeof (s->token_user));
    s->pinned = pinned;
    s->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 3000;
    s->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 15000;
    if (!(s->curl = curl_easy_init ())) {
        sr_destroy (s);
        return ms_err (errp, MS_ERR_SYSTEM, "cluster %s: curl_easy_init failed",
                       s->cluster);
    }
    b = ms_xcalloc (1, sizeof (*b));
    b->ops = &slurmrest_ops;
    b->ctx = s;
    ms_strlcpy (b->cluster, s->cluster, sizeof (b->cluster));
    *bp = b;
    return 0;
}

int
slurmrest_from_conf (const ms_clusterconf_t *c, ms_backend_t **bp,
                     ms_error_t *errp)
{
    char *token;
    int rc;

    if (c->backend != MS_BACKEND_SLURMREST)
        return ms_err (errp, MS_ERR_INPUT,
                       "cluster %s: not a slurmrest cluster", c->name);
    if (ms_read_secret_file (c->token_file, &token, errp) < 0)
        return ms_err_prefix (errp, "cluster %s: token_file", c->name);
    slurmrest_opts_t o = {
        .cluster = c->name,
        .url = c->url,
        .token = token,
        .token_file = c->token_file,
        .token_user = c->token_user,
        .api_version = c->api_version,
        .connect_timeout_ms = c->connect_timeout_ms,
        .timeout_ms = c->timeout_ms,
        .slurm_cluster = c->slurm_cluster,
    };
    rc = slurmrest_create (&o, bp, errp);
    explicit_bzero (token, strlen (token));
    free (token);
    return rc;
}
