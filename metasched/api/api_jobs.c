/* api_jobs.c - the API's job endpoints (doc/api.md): POST and GET
 * /v1/jobs, GET and DELETE /v1/jobs/ID, POST /v1/jobs/ID/claim, POST
 * /v1/whatif, with the site's options and the per-user limits they are
 * checked against.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metasched/api/api_int.h"
#include "metasched/api/resolve.h"
#include "metasched/api/settings.h"

/* What the site makes of a request's --clusters and --cpu-freq
 * (metaschedd.conf cluster_requests, cpu_freq_requests), and --priority by
 * Slurm's rule: only an operator (here: metasched's admins) sets one;
 * priority 0 holds the job (slurmctld's validate_job_create_req and its
 * hold), a user's other priority is refused with slurmctld's answer to a user
 * who raises a priority (ESLURM_ACCESS_DENIED). 0, or -1 with errp and *field.
 * notes (may be NULL) gets what was ignored. */
static int
site_options (const ms_api_t *api, const caller_t *who, ms_apireq_t *r,
              json_t *notes, const char **field, ms_error_t *errp)
{
    if (r->sb.clusters[0] && api->conf.cluster_requests == 1) {
        *field = "clusters";
        return ms_err (errp, MS_ERR_INPUT,
                       "--clusters=%s: metasched chooses the cluster; this "
                       "site does not take a script's clusters "
                       "(cluster_requests = refuse): remove -M/--clusters",
                       r->sb.clusters);
    }
    if (r->sb.cpu_freq[0] && api->conf.cpu_freq_requests == 2) {
        *field = "cpu_freq";
        return ms_err (errp, MS_ERR_INPUT,
                       "--cpu-freq=%s: metasched chooses the CPU frequency; "
                       "this site does not take a pinned one "
                       "(cpu_freq_requests = refuse): remove --cpu-freq",
                       r->sb.cpu_freq);
    }
    if (r->sb.cpu_freq[0] && api->conf.cpu_freq_requests == 1) {
        if (notes)
            json_array_append_new (
                notes, json_sprintf ("--cpu-freq=%s: ignored: metasched "
                                     "chooses the CPU frequency at this site "
                                     "(cpu_freq_requests = ignore)",
                                     r->sb.cpu_freq));
        r->sb.cpu_freq[0] = '\0';
        memset (&r->sb.cpu_freq_spec, 0, sizeof (r->sb.cpu_freq_spec));
    }
    if (r->sb.priority > 0 && !who->admin) {
        *field = "priority";
        ms_err (errp, MS_ERR_AUTH,
                "--priority=%lld: Access/permission denied (only operators "
                "set a job's priority: metasched's admins; use --nice)",
                (long long)r->sb.priority);
        errp->http_status = 403;
        return -1;
    }
    if (r->sb.priority == 0) {
        /* priority 0: held, as Slurm holds it (a user's hold, or an
         * operator's) */
        r->sb.hold = true;
        r->sb.priority = -1;
    }
    return 0;
}

/* ---- per-user limits (doc/api.md "Limits") ---- */

/* The admin's limits, read again from the settings when the server's
 * copy is older than LIMITS_TTL_S. Caller does not hold the database. */
static int
user_limits (ms_api_t *api, ms_limits_values_t *v, ms_error_t *errp)
{
    struct timespec ts;
    ms_settings_t *s;
    double now;
    int rc;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    if (limits_get (api->limits, now, v))
        return 0;
    if (!(s = malloc (sizeof (*s))))
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    if (api_db_acquire (api, errp) < 0) {
        free (s);
        return -1;
    }
    rc = settings_load (api->db, s, NULL, 0, errp);
    api_db_release (api);
    if (rc == 0) {
        limits_set (api->limits, now, s);
        (void)limits_get (api->limits, now, v);
    }
    free (s);
    return rc;
}

/* 429 naming the limit and its value; Retry-After where it is known. */
static enum MHD_Result
send_limited (struct MHD_Connection *c, const char *limit, long value,
              int retry_after_s, const char *msg)
{
    json_t *o = json_pack ("{s:s, s:s, s:I}", "error", msg, "limit", limit,
                           "value", (json_int_t)value);
    char *text = o ? json_dumps (o, JSON_COMPACT) : NULL;
    struct MHD_Response *r;
    enum MHD_Result ret;
    char ra[24];

    json_decref (o);
    r = MHD_create_response_from_buffer (
        text ? strlen (text) : 2, text ? text : "{}", MHD_RESPMEM_MUST_COPY);
    free (text);
    if (!r)
        return MHD_NO;
    MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE,
                             "application/json");
    if (retry_after_s > 0) {
        snprintf (ra, sizeof (ra), "%d", retry_after_s);
        MHD_add_response_header (r, MHD_HTTP_HEADER_RETRY_AFTER, ra);
    }
    ret = MHD_queue_response (c, 429, r);
    MHD_destroy_response (r);
    return ret;
}

/* Would one more job of uid (held: with --dependency) pass its limit? 0
 * yes, 1 no (*keyp, *capp and msg name the limit), -1 on an error. */
static int
submit_over_limit (ms_api_t *api, uid_t uid, bool held, const char **keyp,
                   long *capp, char *msg, size_t msglen, ms_error_t *errp)
{
    ms_limits_values_t v;
    long cap, nq = 0, nh = 0, n;
    int rc;

    *keyp = held ? "max_held_per_user" : "max_queued_per_user";
    if (user_limits (api, &v, errp) < 0)
        return -1;
    *capp = cap = held ? v.max_held_per_user : v.max_queued_per_user;
    if (cap <= 0)
        return 0;
    if (api_db_acquire (api, errp) < 0)
        return -1;
    rc = db_jobs_waiting (api->db, uid, held ? 0 : cap, held ? cap : 0, &nq,
                          &nh, errp);
    api_db_release (api);
    if (rc < 0)
        return -1;
    n = held ? nh : nq;
    if (n < cap)
        return 0;
    snprintf (msg, msglen,
              "limit %s = %ld reached: you have %ld %s jobs already; submit "
              "again when some have %s",
              *keyp, cap, n, held ? "held" : "queued",
              held ? "been released or cancelled"
                   : "been dispatched or cancelled");
    return 1;
}

enum MHD_Result
api_do_submit (ms_api_t *api, struct MHD_Connection *c, const req_t *rq,
               const caller_t *who)
{
    ms_apireq_limits_t lim = { api->conf.max_script, api->conf.allow_partition,
                               api->conf.partition_names };
    char field[80];
    ms_apireq_t r;
    ms_error_t e = { 0 };
    int64_t id;
    int rc;
    bool replayed = false;
    json_t *notes, *ans;
    const char *sf = NULL;

    if (apireq_parse (rq->body, rq->len, &lim, &r, field, sizeof (field), &e)
        < 0)
        return api_send_err (c, &e, field);
    notes = json_array ();
    if (site_options (api, who, &r, notes, &sf, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return api_send_err (c, &e, sf);
    }
    if (!who->admin) {
        /* a job with --dependency waits held; any other waits queued */
        const char *key;
        long cap;
        char msg[300];
        int over = submit_over_limit (api, who->uid, r.sb.dependency[0] != '\0',
                                      &key, &cap, msg, sizeof (msg), &e);
        if (over != 0) {
            apireq_free (&r);
            json_decref (notes);
            return over < 0 ? api_send_err (c, &e, NULL)
                            : send_limited (c, key, cap, 0, msg);
        }
    }
    if (api->hooks.admit
        && api->hooks.admit (api->ctx, &r, who->uid, notes, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return api_send_err (c, &e, NULL);
    }
    if (api_db_acquire (api, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return api_send_err (c, &e, NULL);
    }
    rc = db_jobs_submit (api->db, who->uid, who->gid, who->user, &r, &id,
                         &replayed, &e);
    api_db_release (api);
    apireq_free (&r);
    if (rc < 0) {
        json_decref (notes);
        return api_send_err (c, &e, NULL);
    }
    if (api->hooks.kick)
        api->hooks.kick (api->ctx);
    ans = json_pack ("{s:I}", "id", (json_int_t)id);
    if (replayed) /* the submission's key names a job stored before */
        json_object_set_new (ans, "replayed", json_true ());
    if (json_array_size (notes))
        json_object_set (ans, "notes", notes);
    json_decref (notes);
    return api_send_json (c, 201, ans);
}

enum MHD_Result
api_do_whatif (ms_api_t *api, struct MHD_Connection *c, const req_t *rq,
               const caller_t *who)
{
    ms_apireq_limits_t lim = { api->conf.max_script, api->conf.allow_partition,
                               api->conf.partition_names };
    char field[80];
    ms_apireq_t r;
    ms_error_t e = { 0 };
    json_t *out = NULL, *notes = json_array ();
    const char *sf = NULL;
    int rc;

    if (apireq_parse (rq->body, rq->len, &lim, &r, field, sizeof (field), &e)
        < 0) {
        json_decref (notes);
        return api_send_err (c, &e, field);
    }
    if (site_options (api, who, &r, notes, &sf, &e) < 0) {
        apireq_free (&r);
        json_decref (notes);
        return api_send_err (c, &e, sf);
    }
    if (!api->hooks.whatif) {
        json_decref (notes);
        apireq_free (&r);
        return api_send_error (c, 503, "what-if is not available", NULL, NULL);
    }
    if (!who->admin) {
        ms_limits_values_t v;
        struct timespec ts;
        int retry;

        if (user_limits (api, &v, &e) < 0) {
            apireq_free (&r);
            return api_send_err (c, &e, NULL);
        }
        clock_gettime (CLOCK_MONOTONIC, &ts);
        if (!limits_whatif_take (api->limits, who->uid, v.whatif_per_minute,
                                 (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9,
                                 &retry)) {
            char msg[200];
            snprintf (msg, sizeof (msg),
                      "limit whatif_per_minute = %d reached: retry in %d s",
                      v.whatif_per_minute, retry);
            apireq_free (&r);
            return send_limited (c, "whatif_per_minute", v.whatif_per_minute,
                                 retry, msg);
        }
    }
    rc = api->hooks.whatif (api->ctx, &r, who->uid, &out, &e);
    apireq_free (&r);
    if (rc < 0) {
        json_decref (notes);
        return api_send_err (c, &e, NULL);
    }
    if (!out)
        out = json_object ();
    if (json_array_size (notes)) {
        /* the site's notes first, then the daemon's */
        json_array_extend (notes, json_object_get (out, "notes"));
        json_object_set (out, "notes", notes);
    }
    json_decref (notes);
    return api_send_json (c, 200, out);
}

/* ?state=a,b: known state names only. */
static int
check_states (const char *s, ms_error_t *e)
{
    static const char *const names[]
        = { "queued",    "deciding", "dispatching", "submitted", "running",
            "completed", "failed",   "cancelled",   "lost",      "unknown" };
    const char *p = s;

    if (strlen (s) > 200)
        return ms_err (e, MS_ERR_INPUT, "state: too long");
    while (*p) {
        size_t n = strcspn (p, ","), i;
        bool ok = false;
        for (i = 0; i < sizeof (names) / sizeof (names[0]); i++)
            if (strlen (names[i]) == n && !strncmp (p, names[i], n))
                ok = true;
        if (!ok)
            return ms_err (e, MS_ERR_INPUT, "state: unknown job state '%.*s'",
                           (int)(n > 32 ? 32 : n), p);
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

enum MHD_Result
api_do_list (ms_api_t *api, struct MHD_Connection *c, const caller_t *who)
{
    const char *all
        = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND, "all");
    const char *state
        = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND, "state");
    const char *limit
        = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND, "limit");
    long uid = (long)who->uid;
    ms_error_t e = { 0 };
    json_t *out;
    int n = 1000, rc;

    if (all && strcmp (all, "0") != 0) {
        if (strcmp (all, "1") != 0)
            return api_send_error (c, 400, "all: must be 0 or 1", "all", NULL);
        if (!who->admin)
            return api_send_error (c, 403, "all=1: only admins list every job",
                                   "all", NULL);
        uid = DB_JOBS_ANY_UID;
    }
    if (state && check_states (state, &e) < 0)
        return api_send_error (c, 400, e.text, "state", NULL);
    if (limit) {
        char *end;
        long l = strtol (limit, &end, 10);
        if (*end || l < 1 || l > 100000)
            return api_send_error (
                c, 400, "limit: must be an integer 1..100000", "limit", NULL);
        n = (int)l;
    }
    if (api_db_acquire (api, &e) < 0)
        return api_send_err (c, &e, NULL);
    rc = db_jobs_list (api->db, uid, state, n, &out, &e);
    api_db_release (api);
    if (rc < 0)
        return api_send_err (c, &e, NULL);
    return api_send_json (c, 200, out);
}

/* DELETE /v1/jobs/ID?signal=N: the signal to the job where it runs, as
 * scancel --signal; the job is not cancelled. Only a job on a cluster
 * (submitted or running) takes one. */
static enum MHD_Result
do_signal (ms_api_t *api, struct MHD_Connection *c, int64_t id, long uid,
           const char *sigtext)
{
    ms_error_t e = { 0 };
    json_t *job = NULL;
    const char *st, *cl;
    char *end;
    long sig;
    int rc;

    errno = 0;
    sig = strtol (sigtext, &end, 10);
    if (errno || end == sigtext || *end || sig < 1 || sig > 64)
        return api_send_error (c, 400,
                               "signal: expected a signal number from 1 to 64",
                               "signal", NULL);
    if (api_db_acquire (api, &e) < 0)
        return api_send_err (c, &e, NULL);
    rc = db_jobs_get (api->db, id, uid, &job, &e);
    api_db_release (api);
    if (rc < 0)
        return api_send_err (c, &e, NULL);
    st = json_string_value (json_object_get (job, "state"));
    cl = json_string_value (json_object_get (job, "cluster"));
    if (!st || (strcmp (st, "submitted") && strcmp (st, "running")) || !cl
        || !json_is_integer (json_object_get (job, "cluster_job_id"))) {
        char msg[160];
        snprintf (msg, sizeof (msg),
                  "job %" PRId64 " is %s: only a job on a cluster (submitted "
                  "or running) takes a signal",
                  id, st ? st : "unknown");
        json_decref (job);
        return api_send_error (c, 409, msg, NULL, NULL);
    }
    if (!api->hooks.signal) {
        json_decref (job);
        return api_send_error (c, 503, "signals are not available", NULL, NULL);
    }
    rc = api->hooks.signal (
        api->ctx, cl,
        (uint64_t)json_integer_value (json_object_get (job, "cluster_job_id")),
        (int)sig, &e);
    json_decref (job);
    if (rc < 0) {
        if (!e.http_status)
            e.http_status = 502;
        return api_send_err (c, &e, NULL);
    }
    return api_send_json (
        c, 200,
        json_pack ("{s:I,s:i}", "id", (json_int_t)id, "signal", (int)sig));
}

enum MHD_Result
api_do_job (ms_api_t *api, struct MHD_Connection *c, const char *method,
            int64_t id, const caller_t *who)
{
    long uid = who->admin ? DB_JOBS_ANY_UID : (long)who->uid;
    ms_error_t e = { 0 };
    char state[16];
    json_t *out = NULL;
    const char *sig
        = MHD_lookup_connection_value (c, MHD_GET_ARGUMENT_KIND, "signal");
    int rc;

    if (sig && strcmp (method, "GET"))
        return do_signal (api, c, id, uid, sig);
    if (api_db_acquire (api, &e) < 0)
        return api_send_err (c, &e, NULL);
    if (!strcmp (method, "GET"))
        rc = db_jobs_get (api->db, id, uid, &out, &e);
    else
        rc = db_jobs_cancel (api->db, id, uid, state, &e);
    api_db_release (api);
    if (rc < 0)
        return api_send_err (c, &e, NULL);
    if (!strcmp (method, "GET"))
        return api_send_json (c, 200, out);
    if (api->hooks.kick)
        api->hooks.kick (api->ctx);
    return api_send_json (
        c, 200,
        json_pack ("{s:I,s:s}", "id", (json_int_t)id, "state", "cancelled"));
}

enum MHD_Result
api_do_claim (ms_api_t *api, struct MHD_Connection *c, const req_t *rq,
              int64_t id, const caller_t *who)
{
    json_t *o, *cl, *cj;
    json_error_t je;
    ms_error_t e = { 0 };
    const char *cluster, *p;
    json_int_t cjid;
    uint64_t aid;
    char cname[65];
    bool run = false, sub = false, open = false;
    unsigned ident = 0; /* 403, 503: the claimer is not who it says */
    ms_error_t ie = { 0 };
    int rc;

    o = json_loadb (rq->body ? rq->body : "", rq->len, JSON_REJECT_DUPLICATES,
                    &je);
    if (!o || !json_is_object (o)) {
        char msg[300];
        snprintf (msg, sizeof (msg), "malformed JSON: %s",
                  o ? "not an object" : je.text);
        json_decref (o);
        return api_send_error (c, 400, msg, NULL, NULL);
    }
    cl = json_object_get (o, "cluster");
    cj = json_object_get (o, "cluster_job_id");
    if (json_object_size (o) != (size_t)(!!cl + !!cj)) {
        json_decref (o);
        return api_send_error (c, 400,
                               "unknown key (a claim has cluster and "
                               "cluster_job_id)",
                               NULL, NULL);
    }
    if (!json_is_string (cl) || json_string_length (cl) == 0
        || json_string_length (cl) > 64) {
        json_decref (o);
        return api_send_error (c, 400, "cluster: must be a cluster name",
                               "cluster", NULL);
    }
    cluster = json_string_value (cl);
    for (p = cluster; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')
              || (*p >= '0' && *p <= '9') || strchr ("_.+-", *p)))
            break;
    if (*p
        || !strchr ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "0123456789",
                    cluster[0])) {
        json_decref (o);
        return api_send_error (c, 400, "cluster: not a cluster name", "cluster",
                               NULL);
    }
    if (!json_is_integer (cj) || (cjid = json_integer_value (cj)) <= 0) {
        json_decref (o);
        return api_send_error (c, 400,
                               "cluster_job_id: must be a positive integer",
                               "cluster_job_id", NULL);
    }
    /* Which copy claims is the cluster's word, not the job's environment
     * (which the user writes and a job submitted from inside another
     * inherits): Slurm's record of the claimer's own job id names its user
     * and, for a task, its array (a task claims for its array: the copy
     * that was dispatched). Only a copy that metaschedd recorded as a
     * submission of this meta job may win it; a claim on a job already
     * claimed or ended is lost whoever asks. */
    snprintf (cname, sizeof (cname), "%s", cluster);
    cluster = cname; /* the name outlives the request's JSON */
    json_decref (o);
    aid = (uint64_t)cjid;
    if (api->hooks.cluster_job) {
        uid_t juid = (uid_t)-1;
        uint64_t arr = 0;
        if (api->hooks.cluster_job (api->ctx, cluster, (uint64_t)cjid, &juid,
                                    &arr, &ie)
            < 0)
            ident = ie.kind && ie.kind != MS_ERR_MISSING ? 503 : 403;
        else if (juid != who->uid)
            ident = 403;
        else if (arr)
            aid = arr;
    }
    if (api_db_acquire (api, &e) < 0)
        return api_send_err (c, &e, NULL);
    rc = db_jobs_is_submission (api->db, id, (long)who->uid, cluster,
                                (int64_t)aid, &sub, &open, &e);
    if (rc == 0 && !ident && sub)
        rc = db_jobs_claim (api->db, id, (long)who->uid, cluster, (int64_t)aid,
                            &run, &e);
    api_db_release (api);
    if (rc < 0)
        return api_send_err (c, &e, NULL);
    /* another copy won, or the job ended: lost, whoever asks (but a
     * cluster that cannot be asked now may hide the winner asking again) */
    if ((ident == 403 || !sub) && !open)
        return api_send_json (c, 409, json_pack ("{s:b}", "run", false));
    if (ident == 503) {
        char msg[sizeof (ie.text) + 200];
        snprintf (msg, sizeof (msg),
                  "cluster_job_id: cannot ask cluster %s about job %lld now, "
                  "retry later: %s",
                  cluster, (long long)cjid, ie.text);
        return api_send_error (c, 503, msg, "cluster_job_id", NULL);
    }
    if (ident) {
        char msg[200];
        snprintf (msg, sizeof (msg),
                  "cluster_job_id: cluster %s has no job %lld of this user",
                  cluster, (long long)cjid);
        return api_send_error (c, 403, msg, "cluster_job_id", NULL);
    }
    if (!sub) {
        /* not (yet) recorded: a copy may start before metaschedd has
         * written down its submission; the start gate retries, then
         * refuses */
        char msg[300];
        snprintf (msg, sizeof (msg),
                  "cluster_job_id: job %llu on cluster %s is not a recorded "
                  "submission of job %lld (not yet, or never): retry later",
                  (unsigned long long)aid, cluster, (long long)id);
        return api_send_error (c, 503, msg, "cluster_job_id", NULL);
    }
    return api_send_json (c, run ? 200 : 409, json_pack ("{s:b}", "run", run));
}
