/* slurmrest_parse.c - the parsers of slurmrestd's answers, one per
 * operation for every OpenAPI version (the table of versions is
 * slurmrest_proto.c). The readers take every shape a version has used for
 * a value: a number may be an integer, a numeric string (v0.0.38's
 * cpu_frequency) or {set, infinite, number} (v0.0.39 on); a state a string
 * or a list of flags (v0.0.40 on).
 *
 * Parsers take the raw answer, so the fuzz target and the unit tests reach
 * every line that reads what the server sent. Errors say where the answer
 * broke ("jobs[3].time_limit: expected an integer") or quote its "errors".
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"
#include "partitions/slurmrest.h"
#include "partitions/slurmrest_int.h"
#include "partitions/slurmrest_parse_int.h"

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
int
srp_parse_answer (const char *body, size_t len, long http_status, json_t **rootp,
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

/* Field readers: see slurmrest_parse_int.h. */

void
srp_ftype (struct srp_fctx *f, const char *key, const char *want)
{
    if (!f->failed)
        ms_err (f->errp, MS_ERR_PROTOCOL, "%s[%zu].%s: expected %s", f->what,
                f->index, key, want);
    f->failed = 1;
}

/* o's member at path "a/b/c"; NULL if any step is missing. */
json_t *
srp_jpath (json_t *o, const char *path)
{
    char step[64];
    const char *p = path;

    while (o && *p) {
        size_t n = strcspn (p, "/");
        if (n >= sizeof (step))
            return NULL;
        memcpy (step, p, n);
        step[n] = '\0';
        o = json_is_object (o) ? json_object_get (o, step) : NULL;
        p += n;
        if (*p == '/')
            p++;
    }
    return o;
}

void
srp_fstr (struct srp_fctx *f, json_t *o, const char *key, char *buf, size_t size)
{
    json_t *v = srp_jpath (o, key);
    buf[0] = '\0';
    if (!v || json_is_null (v))
        return;
    if (!json_is_string (v)) {
        srp_ftype (f, key, "a string");
        return;
    }
    ms_strlcpy (buf, json_string_value (v), size);
}

/* A number in any of the shapes the versions use. `inf`: the value of
 * {"infinite": true}; a number that is not set gives dflt. */
int64_t
srp_fnum (struct srp_fctx *f, json_t *o, const char *key, int64_t dflt, int64_t inf)
{
    json_t *v = srp_jpath (o, key);
    if (!v || json_is_null (v))
        return dflt;
    if (json_is_object (v)) {
        /* v0.0.39 on: {"set": true, "infinite": false, "number": 7} */
        json_t *set = json_object_get (v, "set");
        json_t *infinite = json_object_get (v, "infinite");
        json_t *num = json_object_get (v, "number");
        if ((set && !json_is_boolean (set))
            || (infinite && !json_is_boolean (infinite))) {
            srp_ftype (f, key, "{set, infinite, number}");
            return dflt;
        }
        if (json_is_true (infinite))
            return inf;
        if (set && !json_is_true (set))
            return dflt;
        if (!num || json_is_null (num))
            return dflt;
        v = num;
    }
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
    srp_ftype (f, key, "an integer");
    return dflt;
}

int64_t
srp_fint (struct srp_fctx *f, json_t *o, const char *key, int64_t dflt)
{
    return srp_fnum (f, o, key, dflt, dflt);
}

uint64_t
srp_fjobid (struct srp_fctx *f, json_t *o)
{
    int64_t v = srp_fint (f, o, "job_id", -1);

    if (v <= 0 && !f->failed)
        srp_ftype (f, "job_id", "a positive integer");
    return v > 0 ? (uint64_t)v : 0;
}

/* Offered one string of a list: s, the i-th; false stops the walk. */
typedef bool srp_each_fn (const char *s, size_t i, void *arg);

/* The value at key as text: a string goes whole to buf, each string of a
 * list is offered to each (); null or no value leaves buf empty. Another
 * type is f's error that the value is not `either`, a list with anything
 * but strings that it is not `list`. */
static void
str_or_list (struct srp_fctx *f, json_t *o, const char *key, char *buf,
             size_t size, const char *either, const char *list,
             srp_each_fn *each, void *arg)
{
    json_t *v = srp_jpath (o, key), *e;
    size_t i;

    buf[0] = '\0';
    if (!v || json_is_null (v))
        return;
    if (json_is_string (v)) {
        ms_strlcpy (buf, json_string_value (v), size);
        return;
    }
    if (!json_is_array (v)) {
        srp_ftype (f, key, either);
        return;
    }
    json_array_foreach (v, i, e)
    {
        const char *s = json_string_value (e);
        if (!s) {
            srp_ftype (f, key, list);
            return;
        }
        if (!each (s, i, arg))
            return;
    }
}

/* Where a list's strings go: the first to buf, the others to flags (NULL:
 * nowhere), comma-separated; used is what flags holds. */
struct state_out {
    char *buf, *flags;
    size_t size, fsize, used;
};

static bool
state_word (const char *s, size_t i, void *arg)
{
    struct state_out *o = arg;

    if (i == 0) {
        ms_strlcpy (o->buf, s, o->size);
        return true;
    }
    if (o->flags) {
        int w = snprintf (o->flags + o->used, o->fsize - o->used, "%s%s",
                          o->used ? "," : "", s);
        if (w > 0 && (size_t)w < o->fsize - o->used)
            o->used += (size_t)w;
    }
    return true;
}

/* A state: a string (v0.0.38, v0.0.39) or a list of flags, the base state
 * first (v0.0.40 on). The base goes to buf; with flags, each flag is
 * offered to keep (), which may replace the base (COMPLETING does). */
void
srp_fstate (struct srp_fctx *f, json_t *o, const char *key, char *buf,
            size_t size, char *flags, size_t fsize)
{
    struct state_out out = { buf, flags, size, fsize, 0 };

    if (flags)
        flags[0] = '\0';
    str_or_list (f, o, key, buf, size, "a string or a list of strings",
                 "a list of strings", state_word, &out);
}

/* Is flag in the comma-separated list? (case-insensitive) */
bool
srp_has_flag (const char *list, const char *flag)
{
    size_t len = strlen (flag);
    for (const char *p = list; p && *p;) {
        size_t n = strcspn (p, ",");
        if (n == len && !strncasecmp (p, flag, len))
            return true;
        p += n;
        if (*p == ',')
            p++;
    }
    return false;
}

/* The wait status of an exit code (v0.0.38, v0.0.39) as a shell reports
 * it: the exit status, or 128 + the signal. */
static int
wait_status_code (int64_t st)
{
    if (st < 0 || st > INT_MAX)
        return -1;
    if (st & 0x7f)
        return 128 + (int)(st & 0x7f);
    return (int)((st >> 8) & 0xff);
}

/* An exit code as a shell reports it, from a wait status (an integer
 * v0.0.38, {set, number} v0.0.39) or {status: [...], return_code: {set,
 * number}, signal: {id, name}} (v0.0.40 on); -1 where unknown. */
int
srp_fexit (struct srp_fctx *f, json_t *o, const char *key)
{
    json_t *v = srp_jpath (o, key);
    if (json_is_object (v) && json_object_get (v, "return_code")) {
        int64_t rc = srp_fnum (f, v, "return_code", -1, -1);
        int64_t sn = srp_fnum (f, v, "signal/id", 0, 0);
        /* the accounting endpoints of v0.0.38: signal/signal_id */
        if (sn <= 0)
            sn = srp_fnum (f, v, "signal/signal_id", 0, 0);
        if (sn > 0 && sn < 128)
            return (int)(128 + sn);
        return rc < INT_MIN ? INT_MIN : rc > INT_MAX ? INT_MAX : (int)rc;
    }
    return wait_status_code (srp_fint (f, o, key, -1));
}

uint32_t
srp_clamp_u32 (int64_t v)
{
    if (v < 0)
        return 0;
    if (v > UINT32_MAX)
        return UINT32_MAX;
    return (uint32_t)v;
}

int
srp_clamp_int (int64_t v)
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


/* The objects of root's array `key`, each read by read_one into an item of
 * `size` bytes, in an array with room for one more; errors name the
 * element ("what[3].name"). Takes root. Returns the array and sets *n to
 * the items kept, or returns NULL. */
void *
srp_read_items (json_t *root, const char *key, const char *what, size_t size,
            srp_item_fn read_one, const void *arg, size_t *n, ms_error_t *errp)
{
    struct srp_fctx f = { .what = what, .errp = errp };
    json_t *arr, *o;
    char *items;
    size_t i, k = 0;

    if (!(arr = answer_array (root, key, errp))) {
        json_decref (root);
        return NULL;
    }
    items = ms_xcalloc (json_array_size (arr) + 1, size);
    json_array_foreach (arr, i, o)
    {
        int keep;
        f.index = i;
        if (!json_is_object (o)) {
            srp_ftype (&f, "", "an object");
            break;
        }
        /* a slot starts empty, also after an element left out */
        memset (items + k * size, 0, size);
        keep = read_one (&f, o, items + k * size, arg);
        if (f.failed)
            break;
        if (keep)
            k++;
    }
    json_decref (root);
    if (f.failed) {
        free (items);
        return NULL;
    }
    *n = k;
    return items;
}

/* srp_read_items on an answer, its errors naming the elements after the array
 * ("nodes[3].cpus"). */
void *
srp_parse_items (const char *body, size_t len, long http_status, const char *key,
             size_t size, srp_item_fn read_one, const void *arg, size_t *n,
             ms_error_t *errp)
{
    json_t *root;

    if (srp_parse_answer (body, len, http_status, &root, errp) < 0)
        return NULL;
    return srp_read_items (root, key, key, size, read_one, arg, n, errp);
}

/* Whether the job has its nodes to itself (1), shares them (0), or is not
 * said (-1). Slurm's job record keeps the request in `shared`: a string in
 * v0.0.38 ("none": --exclusive, OverSubscribe=NO; "shared"/"oversubscribe",
 * "user", "mcs": shared in some way; null: not asked, OverSubscribe=OK), a
 * list of such flags from v0.0.39 on, where `exclusive` ("true", "false",
 * "user", "mcs", "topo") may say it too. Anything else is not said. */
static int
job_exclusive (json_t *o)
{
    json_t *sh = json_object_get (o, "shared"),
           *ex = json_object_get (o, "exclusive"), *e;
    const char *one = NULL;
    size_t i;
    int r = -1;

    if (json_is_array (ex))
        json_array_foreach (ex, i, e)
        {
            const char *v = json_string_value (e);
            if (v && !strcmp (v, "true"))
                return 1;
        }
    else if (json_is_string (ex) && !strcmp (json_string_value (ex), "true"))
        return 1;
    if (json_is_null (sh))
        return 0;
    if (json_is_string (sh))
        one = json_string_value (sh);
    if (one)
        return !strcmp (one, "none") || !strcmp (one, "exclusive") ? 1
               : one[0]                                            ? 0
                                                                   : -1;
    if (!json_is_array (sh))
        return -1;
    json_array_foreach (sh, i, e)
    {
        const char *v = json_string_value (e);
        if (!v)
            return -1;
        if (!strcmp (v, "none") || !strcmp (v, "exclusive"))
            return 1;
        r = 0;
    }
    /* an empty list: no OverSubscribe asked, as null above */
    return json_array_size (sh) == 0 ? 0 : r;
}

static int
read_job (struct srp_fctx *f, json_t *o, void *item, const void *arg)
{
    ms_job_info_t *j = item;
    char flags[128];
    int64_t v;

    (void)arg;
    j->id = srp_fjobid (f, o);
    srp_fstr (f, o, "name", j->name, sizeof (j->name));
    srp_fstr (f, o, "user_name", j->user, sizeof (j->user));
    j->user_id = srp_clamp_u32 (srp_fint (f, o, "user_id", 0));
    j->group_id = srp_clamp_u32 (srp_fint (f, o, "group_id", 0));
    srp_fstr (f, o, "partition", j->partition, sizeof (j->partition));
    srp_fstate (f, o, "job_state", j->state_name, sizeof (j->state_name), flags,
            sizeof (flags));
    /* v0.0.38 says COMPLETING for a job with that flag; so does this */
    if (srp_has_flag (flags, "COMPLETING"))
        ms_strlcpy (j->state_name, "COMPLETING", sizeof (j->state_name));
    j->state = ms_job_state_parse (j->state_name);
    srp_fstr (f, o, "state_reason", j->state_reason, sizeof (j->state_reason));
    j->submit_time = (time_t)srp_fint (f, o, "submit_time", 0);
    j->eligible_time = (time_t)srp_fint (f, o, "eligible_time", 0);
    j->start_time = (time_t)srp_fint (f, o, "start_time", 0);
    j->end_time = (time_t)srp_fint (f, o, "end_time", 0);
    j->time_limit_min = srp_clamp_u32 (srp_fint (f, o, "time_limit", 0));
    j->cpu_freq_min_khz = srp_clamp_u32 (srp_fint (f, o, "cpu_frequency_minimum", 0));
    j->cpu_freq_max_khz = srp_clamp_u32 (srp_fint (f, o, "cpu_frequency_maximum", 0));
    j->nice = srp_clamp_int (srp_fint (f, o, "nice", 0));
    j->priority = srp_clamp_u32 (srp_fint (f, o, "priority", 0));
    srp_fstr (f, o, "comment", j->comment, sizeof (j->comment));
    j->nodes = srp_clamp_int (srp_fint (f, o, "node_count", 0));
    j->tasks = srp_clamp_int (srp_fint (f, o, "tasks", 0));
    j->cpus = srp_clamp_int (srp_fint (f, o, "cpus", 0));
    srp_fstr (f, o, "nodes", j->node_list, sizeof (j->node_list));
    j->exit_code = srp_fexit (f, o, "exit_code");
    srp_fstr (f, o, "current_working_directory", j->cwd, sizeof (j->cwd));
    srp_fstr (f, o, "standard_output", j->std_out, sizeof (j->std_out));
    v = srp_fint (f, o, "array_job_id", 0);
    j->array_job_id = v > 0 ? (uint64_t)v : 0;
    j->array_task_id = j->array_job_id ? srp_fint (f, o, "array_task_id", -1) : -1;
    if (j->array_task_id < 0 || j->array_task_id > JOBSPEC_ARRAY_MAX_INDEX)
        j->array_task_id = -1;
    srp_fstr (f, o, "array_task_string", j->array_tasks, sizeof (j->array_tasks));
    j->exclusive = job_exclusive (o);
    v = srp_fint (f, o, "het_job_id", 0);
    j->het_job_id = v > 0 ? (uint64_t)v : 0;
    j->het_job_offset
        = j->het_job_id ? srp_clamp_int (srp_fint (f, o, "het_job_offset", 0))
                        : 0;
    return 1;
}

/* Does the answer say that no job changed since update_time? v0.0.38
 * answers 304 with no body (see sr_jobs); the later versions answer with
 * a warning and no jobs. */
static bool
answer_unchanged (json_t *root)
{
    json_t *w = json_object_get (root, "warnings"), *e;
    size_t i;
    json_array_foreach (w, i, e)
    {
        const char *d = json_string_value (json_object_get (e, "description"));
        if (d && !strncmp (d, "No job changes since", 20))
            return true;
    }
    return false;
}

int
slurmrest_parse_jobs (const slurmrest_api_t *api, const char *body,
                      size_t len, long http_status, ms_job_info_t **out,
                      size_t *n, bool *unchangedp, ms_error_t *errp)
{
    json_t *root, *arr;
    ms_job_info_t *jobs;

    (void)api; /* every version's jobs read alike */
    if (unchangedp)
        *unchangedp = false;
    if (srp_parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    arr = json_object_get (root, "jobs");
    if ((!arr || json_is_null (arr) || json_array_size (arr) == 0)
        && answer_unchanged (root)) {
        json_decref (root);
        if (!unchangedp)
            return ms_err (errp, MS_ERR_PROTOCOL,
                           "answer says no job changed, and lists none");
        *unchangedp = true;
        *out = ms_xcalloc (1, sizeof (**out));
        *n = 0;
        return 0;
    }
    jobs = srp_read_items (root, "jobs", "jobs", sizeof (*jobs), read_job, NULL, n,
                       errp);
    if (!jobs)
        return -1;
    *out = jobs;
    return 0;
}

/* arg: the version */
static int
read_partition (struct srp_fctx *f, json_t *o, void *item, const void *arg)
{
    const slurmrest_api_t *api = arg;
    ms_partition_state_t *p = item;
    char state[32], flags[64];
    bool nested = api->flags & V_PART_NESTED;

    srp_fstr (f, o, "name", p->name, sizeof (p->name));
    if (!p->name[0] && !f->failed)
        srp_ftype (f, "name", "a partition name");
    srp_fstate (f, o, nested ? "partition/state" : "state", state, sizeof (state),
            flags, sizeof (flags));
    /* v0.0.39 does not say (its partitions are shown up) */
    p->up = !strcasecmp (state, "UP") || (nested && !state[0]);
    p->nodes_total
        = srp_clamp_int (srp_fint (f, o, nested ? "nodes/total" : "total_nodes", 0));
    p->cpus_total
        = srp_clamp_int (srp_fint (f, o, nested ? "cpus/total" : "total_cpus", 0));
    p->max_time_min
        = srp_fnum (f, o, nested ? "maximums/time" : "max_time_limit", -1, -1);
    p->default_time_min
        = srp_fnum (f, o, nested ? "defaults/time" : "default_time_limit", -1, -1);
    /* limits: v0.0.38 writes unlimited node counts as -1, later
     * versions as {"infinite": true} */
    ms_partition_limits_init (p);
    p->max_nodes = srp_clamp_int (srp_fnum (
        f, o, nested ? "maximums/nodes" : "maximum_nodes_per_job", -1, -1));
    if (p->max_nodes < 0 || p->max_nodes == INT32_MAX)
        p->max_nodes = -1;
    p->min_nodes = srp_clamp_int (
        srp_fint (f, o, nested ? "minimums/nodes" : "min nodes per job", 0));
    if (p->min_nodes < 0)
        p->min_nodes = 0;
    srp_fstr (f, o, nested ? "accounts/allowed" : "allowed_accounts",
          p->allow_accounts, sizeof (p->allow_accounts));
    srp_fstr (f, o, nested ? "accounts/deny" : "denied_accounts", p->deny_accounts,
          sizeof (p->deny_accounts));
    srp_fstr (f, o, nested ? "groups/allowed" : "allowed_groups", p->allow_groups,
          sizeof (p->allow_groups));
    srp_fstr (f, o, nested ? "qos/allowed" : "allowed_qos", p->allow_qos,
          sizeof (p->allow_qos));
    srp_fstr (f, o, nested ? "qos/deny" : "denied_qos", p->deny_qos,
          sizeof (p->deny_qos));
    srp_fstr (f, o, nested ? "nodes/configured" : "nodes", p->node_list,
          sizeof (p->node_list));
    /* free resources come from the nodes and jobs */
    p->nodes_idle = p->nodes_total;
    p->cpus_idle = p->cpus_total;
    return 1;
}

int
slurmrest_parse_partitions (const slurmrest_api_t *api, const char *body,
                            size_t len, long http_status,
                            ms_partition_state_t **out, size_t *n,
                            ms_error_t *errp)
{
    ms_partition_state_t *parts
        = srp_parse_items (body, len, http_status, "partitions", sizeof (*parts),
                       read_partition, api, n, errp);

    if (!parts)
        return -1;
    *out = parts;
    return 0;
}

/* Where a list's names go: buf, comma-separated, up to the first that
 * does not fit; used is what it holds. */
struct list_out {
    char *buf;
    size_t size, used;
};

static bool
list_name (const char *s, size_t i, void *arg)
{
    struct list_out *o = arg;
    int w;

    (void)i;
    w = snprintf (o->buf + o->used, o->size - o->used, "%s%s",
                  o->used ? "," : "", s);
    if (w < 0 || (size_t)w >= o->size - o->used) {
        o->buf[o->used] = '\0';
        return false;
    }
    o->used += (size_t)w;
    return true;
}

/* A list of names: a comma-separated string (v0.0.38) or an array of
 * strings (later), into buf comma-separated. */
void
srp_flist (struct srp_fctx *f, json_t *o, const char *key, char *buf, size_t size)
{
    struct list_out out = { buf, size, 0 };

    str_or_list (f, o, key, buf, size, "a string or an array of strings",
                 "an array of strings", list_name, &out);
}

/* How many of gres `name` a node's gres text names: "gpu:2",
 * "gpu:a100:4(S:0-1)", "gpu:(null):0(IDX:N/A)", "gpu:tesla:1,gpu:a100:2",
 * "nvme:1,gpu:2(IDX:0,1)" (commas inside brackets belong to the entry); 0
 * where it names none, -1 where an entry of that name has no count. */
int
slurmrest_gres_count (const char *gres, const char *name)
{
    size_t nl = strlen (name);
    int total = 0;

    if (!gres)
        return 0;
    for (const char *p = gres; *p;) {
        const char *end = p, *paren, *colon;
        int depth = 0;
        while (*end && (depth > 0 || *end != ',')) {
            depth += *end == '(';
            depth -= *end == ')' && depth > 0;
            end++;
        }
        /* the bracket after the count, not a type "(null)" */
        for (paren = p; paren < end; paren++)
            if (*paren == '(' && paren > p && paren[-1] != ':')
                break;
        if ((size_t)(paren - p) > nl && !strncmp (p, name, nl) && p[nl] == ':') {
            long v = 0;
            /* the count is the last field before any bracket */
            colon = paren;
            while (colon > p && colon[-1] != ':')
                colon--;
            if (colon == paren)
                return -1;
            for (const char *d = colon; d < paren; d++) {
                if (*d < '0' || *d > '9' || v > 1000000)
                    return -1;
                v = v * 10 + (*d - '0');
            }
            total += (int)v;
        } else if ((size_t)(paren - p) == nl && !strncmp (p, name, nl))
            total += 1; /* "gpu" alone: one */
        p = *end ? end + 1 : end;
    }
    return total;
}

/* Node states and flags that take a node out of use. */
static bool
node_unusable (const char *s)
{
    static const char *const bad[] = {
        "down", "drain", "drained", "draining", "error", "future",
        "unknown", "not_responding", "fail", "failing", "maint",
        "powered_down", "powering_down", "power_down", "reboot_issued",
        "invalid_reg", "invalid",
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
        if (!strcasecmp (s, bad[i]))
            return true;
    return false;
}

static int
read_node (struct srp_fctx *f, json_t *o, void *item, const void *arg)
{
    ms_node_state_t *nd = item;
    json_t *parts, *flags, *e;
    char fl[256];
    size_t k;

    (void)arg;
    srp_fstr (f, o, "name", nd->name, sizeof (nd->name));
    /* v0.0.38: "idle" and state_flags; later: ["IDLE", "DRAIN"] */
    srp_fstate (f, o, "state", nd->state, sizeof (nd->state), fl, sizeof (fl));
    for (char *c = nd->state; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    nd->cpus = srp_clamp_int (srp_fint (f, o, "cpus", 0));
    nd->cpus_alloc = srp_clamp_int (srp_fint (f, o, "alloc_cpus", 0));
    nd->real_memory_mb = srp_fint (f, o, "real_memory", 0);
    if (nd->real_memory_mb < 0)
        nd->real_memory_mb = 0;
    /* v0.0.38: "a,b"; later: ["a", "b"]. The active features are the
     * ones a job can ask for (they differ on nodes that change
     * modes). */
    srp_flist (f, o,
           json_object_get (o, "active_features") ? "active_features"
                                                  : "features",
           nd->features, sizeof (nd->features));
    /* GPUs: "gres" what the node has, "gres_used" what jobs hold
     * (v0.0.38 to now: strings; "" or null where none) */
    {
        char g[256];
        srp_fstr (f, o, "gres", g, sizeof (g));
        nd->gpus = slurmrest_gres_count (g, "gpu");
        srp_fstr (f, o, "gres_used", g, sizeof (g));
        nd->gpus_used = slurmrest_gres_count (g, "gpu");
        if (nd->gpus < 0)
            nd->gpus = 0;
        if (nd->gpus_used < 0 || nd->gpus_used > nd->gpus)
            nd->gpus_used = nd->gpus_used < 0 ? 0 : nd->gpus;
    }
    nd->usable = nd->state[0] && !node_unusable (nd->state);
    for (const char *p = fl; *p;) {
        char one[32];
        size_t m = strcspn (p, ",");
        snprintf (one, sizeof (one), "%.*s", (int)(m < 31 ? m : 31), p);
        if (node_unusable (one))
            nd->usable = false;
        p += m;
        if (*p == ',')
            p++;
    }
    flags = json_object_get (o, "state_flags");
    if (json_is_array (flags))
        json_array_foreach (flags, k, e)
        {
            const char *s = json_string_value (e);
            if (s && node_unusable (s))
                nd->usable = false;
        }
    parts = json_object_get (o, "partitions");
    if (parts && !json_is_null (parts)) {
        size_t used = 0;
        if (!json_is_array (parts)) {
            srp_ftype (f, "partitions", "an array");
            return 0;
        }
        json_array_foreach (parts, k, e)
        {
            const char *s = json_string_value (e);
            int w;
            if (!s)
                continue;
            w = snprintf (nd->partitions + used, sizeof (nd->partitions) - used,
                          "%s%s", used ? "," : "", s);
            if (w < 0 || (size_t)w >= sizeof (nd->partitions) - used)
                break;
            used += (size_t)w;
        }
    }
    return 1;
}

int
slurmrest_parse_nodes (const slurmrest_api_t *api, const char *body, size_t len,
                       long http_status, ms_node_state_t **out, size_t *n,
                       ms_error_t *errp)
{
    ms_node_state_t *nodes
        = srp_parse_items (body, len, http_status, "nodes", sizeof (*nodes),
                       read_node, NULL, n, errp);

    (void)api;
    if (!nodes)
        return -1;
    *out = nodes;
    return 0;
}

/* ---- accounting (/slurmdb/VERSION/...) ---- */

int
slurmrest_parse_submit (const slurmrest_api_t *api, const char *body,
                        size_t len, long http_status, uint64_t *idp,
                        ms_error_t *errp)
{
    json_t *root, *id;

    (void)api;
    if (srp_parse_answer (body, len, http_status, &root, errp) < 0) {
        /* v0.0.38 lists "Job is in held state, pending scheduler release"
         * (--hold) among the errors of a job it took: a job id is a job */
        json_t *r = http_status < 300 && body
                        ? json_loadb (body, len, 0, NULL)
                        : NULL;
        id = json_object_get (r, "job_id");
        if (json_is_integer (id) && json_integer_value (id) > 0) {
            *idp = (uint64_t)json_integer_value (id);
            json_decref (r);
            return 0;
        }
        json_decref (r);
        return -1;
    }
    id = json_object_get (root, "job_id");
    if (!id) /* v0.0.40 and v0.0.41 also have it in result */
        id = srp_jpath (root, "result/job_id");
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
slurmrest_parse_status (const slurmrest_api_t *api, const char *body,
                        size_t len, long http_status, ms_error_t *errp)
{
    json_t *root;

    (void)api;
    if (srp_parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    json_decref (root);
    return 0;
}

int
slurmrest_parse_ping (const slurmrest_api_t *api, const char *body,
                      size_t len, long http_status, ms_error_t *errp)
{
    json_t *root, *pings, *p;
    size_t i;
    bool answered = false;
    char why[256] = "";

    (void)api;
    if (srp_parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    /* v0.0.38: "ping": "UP"; v0.0.40: "pinged": "UP"; v0.0.42 on also
     * "responding" and, when slurmctld refused slurmrestd's credential,
     * "status": "Protocol authentication error" with HTTP 200 */
    pings = json_object_get (root, "pings");
    json_array_foreach (pings, i, p)
    {
        json_t *resp = json_object_get (p, "responding");
        const char *up = json_string_value (json_object_get (p, "pinged"));
        const char *st = json_string_value (json_object_get (p, "status"));
        bool ok;
        if (!up)
            up = json_string_value (json_object_get (p, "ping"));
        if (json_is_boolean (resp))
            ok = json_is_true (resp);
        else
            ok = up && !strcasecmp (up, "UP");
        if (ok)
            answered = true;
        else if (!why[0])
            snprintf (why, sizeof (why), "%s%s%s",
                      st && *st ? st : up ? up : "not responding",
                      json_string_value (json_object_get (p, "hostname"))
                          ? " at "
                          : "",
                      json_string_value (json_object_get (p, "hostname"))
                          ? json_string_value (json_object_get (p, "hostname"))
                          : "");
    }
    size_t npings = json_array_size (pings);
    json_decref (root);
    if (npings > 0 && !answered) {
        ms_err (errp,
                strstr (why, "authentication") ? MS_ERR_AUTH : MS_ERR_REMOTE,
                "HTTP %ld: slurmctld does not answer the ping: %s",
                http_status, why);
        if (errp)
            errp->http_status = (int)http_status;
        return -1;
    }
    return 0;
}

int
slurmrest_parse_update (const slurmrest_api_t *api, const char *body,
                        size_t len, long http_status, ms_error_t *errp)
{
    json_t *root, *res, *e;
    size_t i;

    (void)api;
    if (srp_parse_answer (body, len, http_status, &root, errp) < 0)
        return -1;
    /* v0.0.40 on: one result per job updated, each with its own error */
    res = json_object_get (root, "results");
    json_array_foreach (res, i, e)
    {
        json_t *code = json_object_get (e, "error_code");
        if (json_is_integer (code) && json_integer_value (code) != 0) {
            const char *why = json_string_value (json_object_get (e, "why"));
            const char *err = json_string_value (json_object_get (e, "error"));
            ms_err (errp, MS_ERR_REMOTE, "HTTP %ld: %s%s%s [error %lld]",
                    http_status, err ? err : "update refused",
                    why && *why ? ": " : "", why && *why ? why : "",
                    (long long)json_integer_value (code));
            if (errp)
                errp->http_status = (int)http_status;
            json_decref (root);
            return -1;
        }
    }
    json_decref (root);
    return 0;
}

/* Is "/slurm/v0.0.NN/" at the start of s? Returns the version's length. */
static size_t
version_in_path (const char *s)
{
    const char *p;
    if (strncmp (s, "/slurm/v", 8))
        return 0;
    p = s + 8;
    size_t n = strspn (p, "0123456789.");
    if (n == 0 || p[n] != '/')
        return 0;
    return n + 1; /* with the v */
}

int
slurmrest_parse_openapi_versions (const char *body, size_t len, char *buf,
                                  size_t size, ms_error_t *errp)
{
    json_error_t jerr;
    json_t *root = json_loadb (body, len, 0, &jerr), *paths, *v;
    const char *key;
    size_t used = 0;

    if (!buf || !size) {
        json_decref (root);
        return ms_err (errp, MS_ERR_INPUT,
                       "OpenAPI description: no room for the versions");
    }
    buf[0] = '\0';
    if (!root)
        return ms_err (errp, MS_ERR_PROTOCOL,
                       "OpenAPI description: malformed JSON at line %d: %s",
                       jerr.line, jerr.text);
    paths = json_object_get (root, "paths");
    if (!json_is_object (paths)) {
        json_decref (root);
        return ms_err (errp, MS_ERR_PROTOCOL,
                       "OpenAPI description has no \"paths\" object");
    }
    json_object_foreach (paths, key, v)
    {
        size_t n = version_in_path (key);
        char ver[24];
        if (!n || n >= sizeof (ver))
            continue;
        memcpy (ver, key + 7, n);
        ver[n] = '\0';
        /* listed already? */
        bool seen = false;
        for (const char *p = buf; *p;) {
            size_t m = strcspn (p, ",");
            if (m == strlen (ver) && !strncmp (p, ver, m))
                seen = true;
            p += m;
            while (*p == ',' || *p == ' ')
                p++;
        }
        if (seen)
            continue;
        int w = snprintf (buf + used, size - used, "%s%s", used ? ", " : "",
                          ver);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    (void)v;
    json_decref (root);
    return 0;
}
