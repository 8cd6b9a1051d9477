/* slurmrest.c - the slurmrestd backend (OpenAPI v0.0.38, JWT).
 *
 * Transport (libcurl) and parsing (jansson) are kept apart: the
 * slurmrest_parse_* functions take the raw answer, so the fuzz target and
 * the unit tests reach every line that reads what the server sent.
 *
 * Errors name the cluster (added by the backend_* wrappers), the request
 * (method and path), and then what went wrong: connection refused, timeout,
 * the HTTP status, the answer's "errors" array, or where the JSON broke.
 * The token never appears in any message.
 */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metasched/util.h"
#include "partitions/slurmrest.h"

#define ANSWER_MAX (256 * 1024 * 1024) /* larger answers are refused */

typedef struct {
    char cluster[MS_NAME_MAX];
    char url[MS_PATH_MAX];
    char *token;
    char token_file[MS_PATH_MAX];
    char token_user[MS_NAME_MAX];
    long connect_timeout_ms;
    long timeout_ms;
    CURL *curl;
    /* the latest job list read through this handle, and the second its
     * request was sent: the next GET /jobs asks for changes since then,
     * and slurmctld answers 304 (no body) if its job list has not changed,
     * so an idle cluster's list is not packed, sent and parsed again */
    ms_job_info_t *jcache;
    size_t njcache;
    time_t jcache_at;
    bool jcache_ok;
    uint64_t jobs_unchanged; /* 304 answers */
} slurmrest_t;

/* ---- parsing --------------------------------------------------------------- */

/* Put the answer's "errors" array into errp, if there is one that is not
 * empty. Returns 1 if it did, 0 if not. */
static int
answer_errors (json_t *root, long http_status, ms_error_t *errp)
{
    json_t *errs = json_object_get (root, "errors");
    char msg[768] = "";
    size_t used = 0, i;
    json_t *e;

    if (!json_is_array (errs) || json_array_size (errs) == 0)
        return 0;
    json_array_foreach (errs, i, e)
    {
        const char *text = json_string_value (json_object_get (e, "error"));
        const char *desc
            = json_string_value (json_object_get (e, "description"));
        const char *src = json_string_value (json_object_get (e, "source"));
        json_t *num = json_object_get (e, "error_number");
        if (!num)
            num = json_object_get (e, "error_code");
        int n = snprintf (msg + used, sizeof (msg) - used, "%s%s%s%s%s%s",
                          i ? "; " : "", src ? src : "", src ? ": " : "",
                          text ? text : "error", desc && *desc ? " (" : "",
                          desc && *desc ? desc : "");
        if (n < 0 || (size_t)n >= sizeof (msg) - used)
            break;
        used += (size_t)n;
        if (desc && *desc) {
            n = snprintf (msg + used, sizeof (msg) - used, ")");
            if (n > 0 && (size_t)n < sizeof (msg) - used)
                used += (size_t)n;
        }
        if (json_is_integer (num)) {
            n = snprintf (msg + used, sizeof (msg) - used, " [error %lld]",
                          (long long)json_integer_value (num));
            if (n > 0 && (size_t)n < sizeof (msg) - used)
                used += (size_t)n;
        }
    }
    if (http_status > 0)
        ms_err (errp, MS_ERR_REMOTE, "HTTP %ld: %s", http_status, msg);
    else
        ms_err (errp, MS_ERR_REMOTE, "%s", msg);
    if (errp)
        errp->http_status = (int)http_status;
    return 1;
}

/* Parse an answer: JSON object, no errors, a 2xx status. */
static int
parse_answer (const char *body, size_t len, long http_status, json_t **rootp,
              ms_error_t *errp)
{
    json_error_t jerr;
    json_t *root;

    if (len == 0) {
        if (http_status >= 300 || http_status == 0) {
            ms_err (errp, MS_ERR_HTTP, "HTTP %ld with an empty answer",
                    http_status);
            if (errp)
                errp->http_status = (int)http_status;
            return -1;
        }
        return ms_err (errp, MS_ERR_PROTOCOL,
                       "empty answer where JSON was expected");
    }
    root = json_loadb (body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (http_status >= 300) {
            ms_err (errp, MS_ERR_HTTP, "HTTP %ld: answer is not JSON",
                    http_status);
            if (errp)
                errp->http_status = (int)http_status;
            return -1;
        }
        return ms_err (errp, MS_ERR_PROTOCOL,
                       "malformed JSON in answer at line %d, column %d: %s",
                       jerr.line, jerr.column, jerr.text);
    }
    if (!json_is_object (root)) {
        json_decref (root);
        return ms_err (errp, MS_ERR_PROTOCOL,
                       "answer is JSON but not an object");
    }
    if (answer_errors (root, http_status, errp)) {
        json_decref (root);
        return -1;
    }
    if (http_status >= 300) {
        json_decref (root);
        ms_err (errp,
                http_status == 401 || http_status == 403 ? MS_ERR_AUTH
                                                         : MS_ERR_HTTP,
                "HTTP %ld", http_status);
        if (errp)
            errp->http_status = (int)http_status;
        return -1;
    }
    *rootp = root;
    return 0;
}

/* Field readers: a missing or null field gives the default; a field of the
 * wrong type is an error naming it. */
struct fctx {
    const char *what; /* "jobs" */
    size_t index;
    ms_error_t *errp;
    int failed;
};

static void
ftype (struct fctx *f, const char *key, const char *want)
{
    if (!f->failed)
        ms_err (f->errp, MS_ERR_PROTOCOL, "%s[%zu].%s: expected %s", f->what,
                f->index, key, want);
    f->failed = 1;
}

static void
fstr (struct fctx *f, json_t *o, const char *key, char *buf, size_t size)
{
    json_t *v = json_object_get (o, key);
    buf[0] = '\0';
    if (!v || json_is_null (v))
        return;
    if (!json_is_string (v)) {
        ftype (f, key, "a string");
        return;
    }
    ms_strlcpy (buf, json_string_value (v), size);
}

static int64_t
fint (struct fctx *f, json_t *o, const char *key, int64_t dflt)
{
    json_t *v = json_object_get (o, key);
    if (!v || json_is_null (v))
        return dflt;
    if (json_is_integer (v))
        return (int64_t)json_integer_value (v);
    if (json_is_real (v)) {
        double d = json_real_value (v);
        if (isfinite (d) && d > -9e18 && d < 9e18)
            return (int64_t)d;
    }
    /* v0.0.38 spells some numbers as strings ("cpu_frequency") */
    if (json_is_string (v)) {
        char *end;
        const char *s = json_string_value (v);
        errno = 0;
        long long l = strtoll (s, &end, 10);
        if (!errno && end != s && *end == '\0')
            return l;
    }
    ftype (f, key, "an integer");
    return dflt;
}

static uint32_t
clamp_u32 (int64_t v)
{
    if (v < 0)
        return 0;
    if (v > UINT32_MAX)
        return UINT32_MAX;
    return (uint32_t)v;
}

static int
clamp_int (int64_t v)
{
    if (v < INT_MIN)
        return INT_MIN;
    if (v > INT_MAX)
        return INT_MAX;
    return (int)v;
}

/* The answer's array `key`, which must exist. */
static json_t *
answer_array (json_t *root, const char *key, ms_error_t *errp)
{
    json_t *a = json_object_get (root, key);
    if (!json_is_array (a)) {
        ms_err (errp, MS_ERR_PROTOCOL, "answer has no \"%s\" array", key);
        return NULL;
    }
    return a;
}

static void
parse_one_job (struct fctx *f, json_t *o, ms_job_info_t *j)
{
    int64_t v;

    memset (j, 0, sizeof (*j));
    v = fint (f, o, "job_id", -1);
    if (v <= 0 && !f->failed)
        ftype (f, "job_id", "a positive integer");
    j->id = v > 0 ? (uint64_t)v : 0;
    fstr (f, o, "name", j->name, sizeof (j->name));
    fstr (f, o, "user_name", j->user, sizeof (j->user));
    j->user_id = clamp_u32 (fint (f, o, "user_id", 0));
    j->group_id = clamp_u32 (fint (f, o, "group_id", 0));
    fstr (f, o, "partition", j->partition, sizeof (j->partition));
    fstr (f, o, "job_state", j->state_name, sizeof (j->state_name));
    j->state = ms_job_state_parse (j->state_name);
    fstr (f, o, "state_reason", j->state_reason, sizeof (j->state_reason));
    j->submit_time = (time_t)fint (f, o, "submit_time", 0);
    j->eligible_time = (time_t)fint (f, o, "eligible_time", 0);
    j->start_time = (time_t)fint (f, o, "start_time", 0);
    j->end_time = (time_t)fint (f, o, "end_time", 0);
    j->time_limit_min = clamp_u32 (fint (f, o, "time_limit", 0));
    j->cpu_freq_min_khz = clamp_u32 (fint (f, o, "cpu_frequency_minimum", 0));
    j->cpu_freq_max_khz = clamp_u32 (fint (f, o, "cpu_frequency_maximum", 0));
    j->nice = clamp_int (fint (f, o, "nice", 0));
    j->priority = clamp_u32 (fint (f, o, "priority", 0));
    fstr (f, o, "comment", j->comment, sizeof (j->comment));
    j->nodes = clamp_int (fint (f, o, "node_count", 0));
    j->tasks = clamp_int (fint (f, o, "tasks", 0));
    j->cpus = clamp_int (fint (f, o, "cpus", 0));
    fstr (f, o, "nodes", j->node_list, sizeof (j->node_list));
    j->exit_code = clamp_int (fint (f, o, "exit_code", -1));
    fstr (f, o, "current_working_directory", j->cwd, sizeof (j->cwd));
    fstr (f, o, "standard_output", j->std_out, sizeof (j->std_out));
}

int
slurmrest_parse_jobs (const char *body, size_t len, long http_status,
                      ms_job_info_t **out, size_t *n, ms_error_t *errp)
{
    json_t *root, *arr, *o;
    ms_job_info_t *jobs;
    size_t i;
    struct fctx f = { .what = "jobs", .errp = errp };

    if (parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    if (!(arr = answer_array (root, "jobs", errp))) {
        json_decref (root);
        return -1;
    }
    jobs = ms_xcalloc (json_array_size (arr), sizeof (*jobs));
    json_array_foreach (arr, i, o)
    {
        f.index = i;
        if (!json_is_object (o))
            ftype (&f, "", "an object");
        else
            parse_one_job (&f, o, &jobs[i]);
        if (f.failed)
            break;
    }
    json_decref (root);
    if (f.failed) {
        free (jobs);
        return -1;
    }
    *out = jobs;
    *n = i;
    return 0;
}

int
slurmrest_parse_partitions (const char *body, size_t len, long http_status,
                            ms_partition_state_t **out, size_t *n,
                            ms_error_t *errp)
{
    json_t *root, *arr, *o;
    ms_partition_state_t *parts;
    size_t i;
    struct fctx f = { .what = "partitions", .errp = errp };

    if (parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    if (!(arr = answer_array (root, "partitions", errp))) {
        json_decref (root);
        return -1;
    }
    parts = ms_xcalloc (json_array_size (arr), sizeof (*parts));
    json_array_foreach (arr, i, o)
    {
        ms_partition_state_t *p = &parts[i];
        char state[32];
        f.index = i;
        if (!json_is_object (o)) {
            ftype (&f, "", "an object");
            break;
        }
        fstr (&f, o, "name", p->name, sizeof (p->name));
        if (!p->name[0] && !f.failed)
            ftype (&f, "name", "a partition name");
        fstr (&f, o, "state", state, sizeof (state));
        p->up = strcmp (state, "UP") == 0;
        p->nodes_total = clamp_int (fint (&f, o, "total_nodes", 0));
        p->cpus_total = clamp_int (fint (&f, o, "total_cpus", 0));
        p->max_time_min = fint (&f, o, "max_time_limit", -1);
        p->default_time_min = fint (&f, o, "default_time_limit", -1);
        /* free resources come from the nodes and jobs */
        p->nodes_idle = p->nodes_total;
        p->cpus_idle = p->cpus_total;
        if (f.failed)
            break;
    }
    json_decref (root);
    if (f.failed) {
        free (parts);
        return -1;
    }
    *out = parts;
    *n = i;
    return 0;
}

int
slurmrest_parse_nodes (const char *body, size_t len, long http_status,
                       ms_node_state_t **out, size_t *n, ms_error_t *errp)
{
    json_t *root, *arr, *o;
    ms_node_state_t *nodes;
    size_t i;
    struct fctx f = { .what = "nodes", .errp = errp };

    if (parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    if (!(arr = answer_array (root, "nodes", errp))) {
        json_decref (root);
        return -1;
    }
    nodes = ms_xcalloc (json_array_size (arr), sizeof (*nodes));
    json_array_foreach (arr, i, o)
    {
        ms_node_state_t *nd = &nodes[i];
        json_t *parts, *flags, *e;
        size_t k;
        f.index = i;
        if (!json_is_object (o)) {
            ftype (&f, "", "an object");
            break;
        }
        fstr (&f, o, "name", nd->name, sizeof (nd->name));
        fstr (&f, o, "state", nd->state, sizeof (nd->state));
        nd->cpus = clamp_int (fint (&f, o, "cpus", 0));
        nd->cpus_alloc = clamp_int (fint (&f, o, "alloc_cpus", 0));
        nd->usable = strcmp (nd->state, "down") && strcmp (nd->state, "drain")
                     && strcmp (nd->state, "error")
                     && strcmp (nd->state, "future")
                     && strcmp (nd->state, "unknown") && nd->state[0];
        flags = json_object_get (o, "state_flags");
        if (json_is_array (flags))
            json_array_foreach (flags, k, e)
            {
                const char *s = json_string_value (e);
                if (s
                    && (!strcmp (s, "DRAIN") || !strcmp (s, "DRAINING")
                        || !strcmp (s, "DRAINED") || !strcmp (s, "NOT_RESPONDING")
                        || !strcmp (s, "FAIL")))
                    nd->usable = false;
            }
        parts = json_object_get (o, "partitions");
        if (parts && !json_is_null (parts)) {
            size_t used = 0;
            if (!json_is_array (parts)) {
                ftype (&f, "partitions", "an array");
                break;
            }
            json_array_foreach (parts, k, e)
            {
                const char *s = json_string_value (e);
                int w;
                if (!s)
                    continue;
                w = snprintf (nd->partitions + used,
                              sizeof (nd->partitions) - used, "%s%s",
                              used ? "," : "", s);
                if (w < 0 || (size_t)w >= sizeof (nd->partitions) - used)
                    break;
                used += (size_t)w;
            }
        }
        if (f.failed)
            break;
    }
    json_decref (root);
    if (f.failed) {
        free (nodes);
        return -1;
    }
    *out = nodes;
    *n = i;
    return 0;
}

int
slurmrest_parse_submit (const char *body, size_t len, long http_status,
                        uint64_t *idp, ms_error_t *errp)
{
    json_t *root, *id;

    if (parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    id = json_object_get (root, "job_id");
    if (!json_is_integer (id) || json_integer_value (id) <= 0) {
        json_decref (root);
        return ms_err (errp, MS_ERR_PROTOCOL,
                       "answer to a submission has no positive \"job_id\"");
    }
    *idp = (uint64_t)json_integer_value (id);
    json_decref (root);
    return 0;
}

int
slurmrest_parse_status (const char *body, size_t len, long http_status,
                        ms_error_t *errp)
{
    json_t *root;

    if (parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    json_decref (root);
    return 0;
}

/* ---- requests ---------------------------------------------------------------- */

char *
slurmrest_submit_body (const ms_job_request_t *req, ms_error_t *errp)
{
    json_t *job, *env, *root;
    char *body;

    if (!req->script || strncmp (req->script, "#!", 2) != 0) {
        ms_err (errp, MS_ERR_INPUT, "script: must start with #!");
        return NULL;
    }
    if (!req->partition || !*req->partition) {
        ms_err (errp, MS_ERR_INPUT, "partition: required");
        return NULL;
    }
    if (!req->cwd || req->cwd[0] != '/') {
        ms_err (errp, MS_ERR_INPUT,
                "current_working_directory: an absolute path is required");
        return NULL;
    }
    job = json_object ();
    env = json_object ();
    if (req->environment) {
        for (const char *const *e = req->environment; *e; e++) {
            const char *eq = strchr (*e, '=');
            if (!eq || eq == *e) {
                json_decref (job);
                json_decref (env);
                ms_err (errp, MS_ERR_INPUT,
                        "environment: '%.64s' is not KEY=VALUE", *e);
                return NULL;
            }
            char key[256];
            size_t kl = (size_t)(eq - *e);
            if (kl >= sizeof (key))
                kl = sizeof (key) - 1;
            memcpy (key, *e, kl);
            key[kl] = '\0';
            json_object_set_new (env, key, json_string (eq + 1));
        }
    }
    if (json_object_size (env) == 0) /* Slurm requires an environment */
        json_object_set_new (env, "PATH",
                             json_string ("/usr/local/bin:/usr/bin:/bin"));
    json_object_set_new (job, "environment", env);
    json_object_set_new (job, "partition", json_string (req->partition));
    json_object_set_new (job, "current_working_directory",
                         json_string (req->cwd));
    if (req->name)
        json_object_set_new (job, "name", json_string (req->name));
    if (req->cpu_freq_khz) {
        char f[32];
        snprintf (f, sizeof (f), "%u", req->cpu_freq_khz);
        json_object_set_new (job, "cpu_frequency", json_string (f));
    }
    if (req->time_limit_min)
        json_object_set_new (job, "time_limit",
                             json_integer (req->time_limit_min));
    if (req->begin_time > 0) {
        /* slurmrestd 0.0.38 reads begin_time as sbatch's --begin text (an
         * integer is refused: "Unable to parse time"); now+SECONDS keeps
         * clear of the time zone and the clock of the cluster */
        long long ahead = (long long)(req->begin_time - (int64_t)time (NULL));
        if (ahead > 0) {
            char b[48];
            snprintf (b, sizeof (b), "now+%lld", ahead);
            json_object_set_new (job, "begin_time", json_string (b));
        }
    }
    if (req->nice)
        json_object_set_new (job, "nice", json_integer (req->nice));
    if (req->comment)
        json_object_set_new (job, "comment", json_string (req->comment));
    if (req->std_out)
        json_object_set_new (job, "standard_output", json_string (req->std_out));
    if (req->std_err)
        json_object_set_new (job, "standard_error", json_string (req->std_err));
    if (req->std_in)
        json_object_set_new (job, "standard_input", json_string (req->std_in));
    json_object_set_new (job, "nodes", json_integer (req->nodes > 0 ? req->nodes : 1));
    if (req->tasks > 0)
        json_object_set_new (job, "tasks", json_integer (req->tasks));
    if (req->cpus_per_task > 0)
        json_object_set_new (job, "cpus_per_task",
                             json_integer (req->cpus_per_task));
    if (req->exclusive)
        /* slurmrestd 0.0.38 takes sbatch's --exclusive words: "exclusive",
         * "oversubscribe", "user" or "mcs" ("true" is refused) */
        json_object_set_new (job, "exclusive", json_string ("exclusive"));
    root = json_pack ("{s:s, s:o}", "script", req->script, "job", job);
    if (!root) {
        ms_err (errp, MS_ERR_INPUT,
                "script or a field is not valid UTF-8 text");
        return NULL;
    }
    body = json_dumps (root, JSON_COMPACT);
    json_decref (root);
    if (!body)
        ms_err (errp, MS_ERR_INPUT, "could not encode the submission");
    return body;
}

/* ---- transport ------------------------------------------------------------------ */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void
curl_init_once (void)
{
    curl_global_init (CURL_GLOBAL_DEFAULT);
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
    return 0;
}

/* Prefix a parser's error with the request, and explain what slurmctld
 * answers when it refuses a token. */
static int
request_error (slurmrest_t *s, const char *method, const char *path,
               ms_error_t *errp)
{
    if (errp && (errp->kind == MS_ERR_REMOTE || errp->kind == MS_ERR_AUTH)
        && (errp->http_status == 401 || errp->http_status == 403
            || strstr (errp->text, "Unspecified error")
            || strstr (errp->text, "Invalid authentication")
            || strstr (errp->text, "Access/permission denied"))) {
        char note[MS_PATH_MAX + 128];
        snprintf (note, sizeof (note),
                  " -- slurmctld refused the request: check that the token "
                  "in %s is valid for this cluster and not expired",
                  s->token_file[0] ? s->token_file : "token_file");
        size_t used = strlen (errp->text);
        ms_strlcpy (errp->text + used, note, sizeof (errp->text) - used);
        errp->kind = MS_ERR_AUTH;
    }
    return ms_err_prefix (errp, "%s %s", method, path);
}

#define API "/slurm/" SLURMREST_API

static int
sr_ping (void *ctx, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    ms_buf_t ans;
    long status = 0;
    int rc;

    if (rest_exchange (s, "GET", API "/ping", NULL, NULL, &ans, &status, errp)
        < 0)
        return -1;
    rc = slurmrest_parse_status (ans.data, ans.len, status, errp);
    free (ans.data);
    if (rc < 0)
        return request_error (s, "GET", API "/ping", errp);
    return 0;
}

static int
sr_jobs (void *ctx, ms_job_info_t **out, size_t *n, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    ms_buf_t ans;
    long status = 0;
    char path[128];
    time_t sent = time (NULL);
    int rc;

    /* changes at or after update_time give the whole list again, so the
     * second the previous request was sent misses nothing that happened
     * while it was answered */
    if (s->jcache_ok)
        snprintf (path, sizeof (path), API "/jobs?update_time=%lld",
                  (long long)s->jcache_at);
    else
        snprintf (path, sizeof (path), API "/jobs");
    if (rest_exchange (s, "GET", path, NULL, NULL, &ans, &status, errp) < 0)
        return -1;
    if (status == 304 && s->jcache_ok) {
        free (ans.data);
        s->jobs_unchanged++;
        *n = s->njcache;
        *out = ms_xcalloc (s->njcache + 1, sizeof (**out));
        if (s->njcache)
            memcpy (*out, s->jcache, s->njcache * sizeof (**out));
        return 0;
    }
    rc = slurmrest_parse_jobs (ans.data, ans.len, status, out, n, errp);
    free (ans.data);
    if (rc < 0) {
        s->jcache_ok = false;
        return request_error (s, "GET", API "/jobs", errp);
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
    ms_buf_t ans;
    long status = 0;
    char path[128];
    ms_job_info_t *jobs = NULL;
    size_t n = 0;
    int rc;

    snprintf (path, sizeof (path), API "/job/%llu", (unsigned long long)id);
    if (rest_exchange (s, "GET", path, NULL, NULL, &ans, &status, errp) < 0)
        return -1;
    rc = slurmrest_parse_jobs (ans.data, ans.len, status, &jobs, &n, errp);
    free (ans.data);
    if (rc < 0) {
        if (errp && strstr (errp->text, "Invalid job id"))
            errp->kind = MS_ERR_MISSING;
        return request_error (s, "GET", path, errp);
    }
    for (size_t i = 0; i < n; i++)
        if (jobs[i].id == id) {
            *out = jobs[i];
            free (jobs);
            return 0;
        }
    free (jobs);
    return ms_err (errp, MS_ERR_MISSING, "GET %s: job %llu not in the answer",
                   path, (unsigned long long)id);
}

static int
sr_nodes (void *ctx, ms_node_state_t **out, size_t *n, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    ms_buf_t ans;
    long status = 0;
    int rc;

    if (rest_exchange (s, "GET", API "/nodes", NULL, NULL, &ans, &status,
                       errp)
        < 0)
        return -1;
    rc = slurmrest_parse_nodes (ans.data, ans.len, status, out, n, errp);
    free (ans.data);
    if (rc < 0)
        return request_error (s, "GET", API "/nodes", errp);
    return 0;
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
    ms_buf_t ans;
    long status = 0;
    ms_partition_state_t *parts = NULL;
    ms_node_state_t *nodes = NULL;
    ms_job_info_t *jobs = NULL;
    size_t np = 0, nn = 0, nj = 0;
    int rc;

    if (rest_exchange (s, "GET", API "/partitions", NULL, NULL, &ans, &status,
                       errp)
        < 0)
        return -1;
    rc = slurmrest_parse_partitions (ans.data, ans.len, status, &parts, &np,
                                     errp);
    free (ans.data);
    if (rc < 0)
        return request_error (s, "GET", API "/partitions", errp);
    if (sr_nodes (ctx, &nodes, &nn, errp) < 0
        || sr_jobs (ctx, &jobs, &nj, errp) < 0) {
        free (parts);
        free (nodes);
        return -1;
    }
    for (size_t i = 0; i < np; i++) {
        ms_partition_state_t *p = &parts[i];
        p->nodes_idle = p->nodes_alloc = p->nodes_down = p->cpus_idle = 0;
        for (size_t k = 0; k < nn; k++) {
            if (!in_list (nodes[k].partitions, p->name))
                continue;
            if (!nodes[k].usable)
                p->nodes_down++;
            else if (nodes[k].cpus_alloc == 0)
                p->nodes_idle++;
            else
                p->nodes_alloc++;
            if (nodes[k].usable && nodes[k].cpus > nodes[k].cpus_alloc)
                p->cpus_idle += nodes[k].cpus - nodes[k].cpus_alloc;
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

static int
sr_submit (void *ctx, const ms_job_request_t *req, uint64_t *idp,
           ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    ms_buf_t ans;
    long status = 0;
    char *body;
    int rc;

    if (!req->user || !*req->user)
        return ms_err (errp, MS_ERR_INPUT,
                       "submit: the user to run the job as is required");
    if (!(body = slurmrest_submit_body (req, errp)))
        return ms_err_prefix (errp, "submit");
    rc = rest_exchange (s, "POST", API "/job/submit", req->user, body, &ans,
                        &status, errp);
    free (body);
    if (rc < 0)
        return -1;
    rc = slurmrest_parse_submit (ans.data, ans.len, status, idp, errp);
    free (ans.data);
    if (rc < 0)
        return request_error (s, "POST", API "/job/submit", errp);
    return 0;
}

static int
sr_update (void *ctx, uint64_t id, const ms_job_update_t *upd,
           ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    ms_buf_t ans;
    long status = 0;
    char path[128], *body;
    json_t *o = json_object ();
    int rc;

    if (upd->priority != MS_KEEP_PRIORITY)
        json_object_set_new (o, "priority", json_integer (upd->priority));
    if (upd->nice != MS_KEEP_NICE)
        json_object_set_new (o, "nice", json_integer (upd->nice));
    if (upd->time_limit_min != MS_KEEP_TIME)
        json_object_set_new (o, "time_limit",
                             json_integer (upd->time_limit_min));
    if (upd->comment)
        json_object_set_new (o, "comment", json_string (upd->comment));
    if (json_object_size (o) == 0) {
        json_decref (o);
        return ms_err (errp, MS_ERR_INPUT, "update of job %llu changes nothing",
                       (unsigned long long)id);
    }
    body = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    snprintf (path, sizeof (path), API "/job/%llu", (unsigned long long)id);
    rc = rest_exchange (s, "POST", path, NULL, body, &ans, &status, errp);
    free (body);
    if (rc < 0)
        return -1;
    rc = slurmrest_parse_status (ans.data, ans.len, status, errp);
    free (ans.data);
    if (rc < 0)
        return request_error (s, "POST", path, errp);
    return 0;
}

static int
sr_cancel (void *ctx, uint64_t id, ms_error_t *errp)
{
    slurmrest_t *s = ctx;
    ms_buf_t ans;
    long status = 0;
    char path[128];
    int rc;

    snprintf (path, sizeof (path), API "/job/%llu", (unsigned long long)id);
    if (rest_exchange (s, "DELETE", path, NULL, NULL, &ans, &status, errp) < 0)
        return -1;
    rc = slurmrest_parse_status (ans.data, ans.len, status, errp);
    free (ans.data);
    if (rc < 0)
        return request_error (s, "DELETE", path, errp);
    return 0;
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

uint64_t
slurmrest_jobs_unchanged (const ms_backend_t *b)
{
    if (!b || b->ops != &slurmrest_ops)
        return 0;
    return ((const slurmrest_t *)b->ctx)->jobs_unchanged;
}

static const struct ms_backend_ops slurmrest_ops = {
    .type = "slurmrest",
    .ping = sr_ping,
    .partitions = sr_partitions,
    .nodes = sr_nodes,
    .submit = sr_submit,
    .update = sr_update,
    .cancel = sr_cancel,
    .jobs = sr_jobs,
    .job = sr_job,
    .destroy = sr_destroy,
};

int
slurmrest_create (const slurmrest_opts_t *o, ms_backend_t **bp,
                  ms_error_t *errp)
{
    slurmrest_t *s;
    ms_backend_t *b;

    if (!o->url || (strncmp (o->url, "http://", 7)
                    && strncmp (o->url, "https://", 8)))
        return ms_err (errp, MS_ERR_INPUT,
                       "cluster %s: url must start with http:// or https://",
                       o->cluster ? o->cluster : "?");
    if (!o->token || !*o->token || strpbrk (o->token, "\r\n"))
        return ms_err (errp, MS_ERR_INPUT, "cluster %s: no usable token",
                       o->cluster ? o->cluster : "?");
    pthread_once (&curl_once, curl_init_once);
    s = ms_xcalloc (1, sizeof (*s));
    ms_strlcpy (s->cluster, o->cluster ? o->cluster : "", sizeof (s->cluster));
    ms_strlcpy (s->url, o->url, sizeof (s->url));
    size_t ul = strlen (s->url);
    while (ul > 0 && s->url[ul - 1] == '/')
        s->url[--ul] = '\0';
    s->token = ms_xstrdup (o->token);
    if (o->token_file)
        ms_strlcpy (s->token_file, o->token_file, sizeof (s->token_file));
    ms_strlcpy (s->token_user, o->token_user ? o->token_user : "root",
                sizeof (s->token_user));
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
        .connect_timeout_ms = c->connect_timeout_ms,
        .timeout_ms = c->timeout_ms,
    };
    rc = slurmrest_create (&o, bp, errp);
    explicit_bzero (token, strlen (token));
    free (token);
    return rc;
}
