/* apireq.c - parse and check a job request (doc/api.md "A job request").
 *
 * The request is a JSON object; each key is checked on its own and a
 * refusal names it. Strings may not hold NUL bytes (jansson would keep
 * them) since they end up in Slurm's C strings.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "metasched/api/apireq.h"
#include "metasched/common/jobspec_json.h"

/* Fail naming field: 400 (or status). */
static int bad (ms_error_t *errp, int status, char *field, size_t fieldlen,
                const char *name, const char *fmt, ...)
    __attribute__ ((format (printf, 6, 7)));

static int
bad (ms_error_t *errp, int status, char *field, size_t fieldlen,
     const char *name, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (field && fieldlen > 0)
        snprintf (field, fieldlen, "%s", name);
    ms_err (errp, MS_ERR_INPUT, "field '%s': %s", name, msg);
    if (errp)
        errp->http_status = status;
    return -1;
}

/* A string value without NUL bytes, at most max bytes (not empty unless
 * allow_empty). */
static int
get_string (json_t *v, const char *name, size_t max, bool allow_empty,
            int too_long_status, const char **sp, size_t *lenp,
            ms_error_t *errp, char *field, size_t fieldlen)
{
    size_t len;
    const char *s;

    if (!json_is_string (v))
        return bad (errp, 400, field, fieldlen, name, "must be a string");
    s = json_string_value (v);
    len = json_string_length (v);
    if (memchr (s, '\0', len))
        return bad (errp, 400, field, fieldlen, name,
                    "must not contain a NUL character");
    if (len > max)
        return bad (errp, too_long_status, field, fieldlen, name,
                    "%zu bytes, more than the limit of %zu", len, max);
    if (len == 0 && !allow_empty)
        return bad (errp, 400, field, fieldlen, name, "must not be empty");
    *sp = s;
    if (lenp)
        *lenp = len;
    return 0;
}

static int
get_count (json_t *v, const char *name, int min, int *out, ms_error_t *errp,
           char *field, size_t fieldlen)
{
    json_int_t n;

    if (!json_is_integer (v))
        return bad (errp, 400, field, fieldlen, name, "must be an integer");
    n = json_integer_value (v);
    if (n < min || n > APIREQ_COUNT_MAX)
        return bad (errp, 400, field, fieldlen, name,
                    "%" JSON_INTEGER_FORMAT " is out of range %d..%d", n, min,
                    APIREQ_COUNT_MAX);
    *out = (int)n;
    return 0;
}

/* An optional path-like string: NULL when JSON null. */
static int
get_path (json_t *v, const char *name, bool absolute, char **out,
          ms_error_t *errp, char *field, size_t fieldlen)
{
    const char *s;
    size_t len;

    if (json_is_null (v))
        return 0;
    if (get_string (v, name, APIREQ_PATH_MAX, false, 400, &s, &len, errp, field,
                    fieldlen)
        < 0)
        return -1;
    if (absolute && s[0] != '/')
        return bad (errp, 400, field, fieldlen, name,
                    "must be an absolute path");
    if (strpbrk (s, "\n\r"))
        return bad (errp, 400, field, fieldlen, name,
                    "must not contain a line break");
    if (!(*out = strndup (s, len)))
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    return 0;
}

static int
get_environment (json_t *v, ms_apireq_t *r, ms_error_t *errp, char *field,
                 size_t fieldlen)
{
    size_t i, n;
    json_t *e;

    if (json_is_null (v))
        return 0;
    if (!json_is_array (v))
        return bad (errp, 400, field, fieldlen, "environment",
                    "must be an array of \"NAME=value\" strings");
    n = json_array_size (v);
    if (n > APIREQ_ENV_MAX)
        return bad (errp, 413, field, fieldlen, "environment",
                    "%zu entries, more than the limit of %d", n,
                    APIREQ_ENV_MAX);
    if (n == 0)
        return 0;
    if (!(r->environment = calloc (n, sizeof (char *))))
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    json_array_foreach (v, i, e)
    {
        const char *s, *eq, *p;
        size_t len;
        char name[40];

        snprintf (name, sizeof (name), "environment[%zu]", i);
        if (get_string (e, name, APIREQ_ENV_LEN_MAX, false, 413, &s, &len, errp,
                        field, fieldlen)
            < 0)
            return -1;
        eq = memchr (s, '=', len);
        if (!eq || eq == s)
            return bad (errp, 400, field, fieldlen, name,
                        "must have the form NAME=value");
        for (p = s; p < eq; p++)
            if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')
                  || *p == '_' || (p > s && *p >= '0' && *p <= '9')))
                return bad (errp, 400, field, fieldlen, name,
                            "'%.*s' is not a variable name", (int)(eq - s), s);
        if (!(r->environment[r->nenvironment] = strndup (s, len)))
            return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
        r->nenvironment++;
    }
    return 0;
}

static int
check_partition (const char *s, ms_error_t *errp, char *field, size_t fieldlen)
{
    const char *slash = strchr (s, '/'), *p;

    if (!slash || slash == s || !slash[1] || strchr (slash + 1, '/'))
        return bad (errp, 400, field, fieldlen, "partition",
                    "must have the form cluster/partition");
    for (p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'
              || *p == '/'))
            return bad (errp, 400, field, fieldlen, "partition",
                        "holds the character '%c'; names are letters, "
                        "digits, '_', '-' and '.'",
                        *p);
    return 0;
}

/* submit_key: APIREQ_KEY_MIN..APIREQ_KEY_MAX letters, digits, '_' and
 * '-' (a random key of the client's, sent again with each retry). */
static int
get_submit_key (json_t *v, ms_apireq_t *r, ms_error_t *errp, char *field,
                size_t fieldlen)
{
    const char *s;
    size_t len;

    if (get_string (v, "submit_key", APIREQ_KEY_MAX, false, 400, &s, &len, errp,
                    field, fieldlen)
        < 0)
        return -1;
    if (len < APIREQ_KEY_MIN)
        return bad (errp, 400, field, fieldlen, "submit_key",
                    "%zu bytes; a key has %d to %d", len, APIREQ_KEY_MIN,
                    APIREQ_KEY_MAX);
    for (const char *p = s; *p; p++)
        if (!(isalnum ((unsigned char)*p) || *p == '_' || *p == '-'))
            return bad (errp, 400, field, fieldlen, "submit_key",
                        "holds a character other than letters, digits, "
                        "'_' and '-'");
    memcpy (r->submit_key, s, len + 1);
    return 0;
}

/* A heterogeneous job is predicted as the sum of its components: the
 * nodes of all, the longest time limit (doc/api.md "components"). */
static int
het_totals (ms_apireq_t *r, ms_error_t *errp, char *field, size_t fieldlen)
{
    long nodes = r->nodes;
    uint32_t limit = r->time_limit_min;

    r->first_nodes = r->nodes;
    r->first_time_limit_min = r->time_limit_min;
    for (size_t i = 0; i < r->sb.nhet; i++) {
        const ms_jobspec_t *c = r->sb.het[i];
        if (c->time_limit_min == UINT32_MAX)
            return bad (errp, 400, field, fieldlen, "components",
                        "component %zu: time_limit_min: UNLIMITED is not "
                        "taken (give minutes)",
                        i + 1);
        nodes += c->nodes > 0 ? c->nodes : 1;
        if (c->time_limit_min > limit)
            limit = c->time_limit_min;
    }
    if (nodes > APIREQ_COUNT_MAX)
        return bad (errp, 400, field, fieldlen, "components",
                    "%ld nodes in all: more than %d", nodes,
                    APIREQ_COUNT_MAX);
    r->nodes = (int)nodes;
    r->time_limit_min = limit;
    return 0;
}

/* "script": the batch script, an interpreter line first. */
static int
get_script (json_t *v, size_t max, ms_apireq_t *r, ms_error_t *errp,
            char *field, size_t fieldlen)
{
    const char *s;
    size_t len;

    if (get_string (v, "script", max, false, 413, &s, &len, errp, field,
                    fieldlen)
        < 0)
        return -1;
    if (len < 2 || s[0] != '#' || s[1] != '!')
        return bad (errp, 400, field, fieldlen, "script",
                    "must start with \"#!\" (an interpreter line)");
    if (!(r->script = malloc (len + 1)))
        return ms_err (errp, MS_ERR_SYSTEM, "out of memory");
    memcpy (r->script, s, len);
    r->script[len] = '\0';
    r->script_len = len;
    return 0;
}

/* "name" or "app" (key) into dst: printable text; null leaves it unset. */
static int
get_label (json_t *v, const char *key, char *dst, ms_error_t *errp, char *field,
           size_t fieldlen)
{
    const char *s, *p;
    size_t len;

    if (json_is_null (v))
        return 0;
    if (get_string (v, key, APIREQ_NAME_MAX, false, 400, &s, &len, errp, field,
                    fieldlen)
        < 0)
        return -1;
    for (p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return bad (errp, 400, field, fieldlen, key,
                        "must not contain control characters");
    memcpy (dst, s, len + 1);
    return 0;
}

/* "time_limit_min": 1 minute to a year; null leaves it unset. */
static int
get_time_limit (json_t *v, ms_apireq_t *r, ms_error_t *errp, char *field,
                size_t fieldlen)
{
    const char *key = "time_limit_min";
    json_int_t n;

    if (json_is_null (v))
        return 0;
    if (!json_is_integer (v))
        return bad (errp, 400, field, fieldlen, key,
                    "must be an integer (minutes)");
    n = json_integer_value (v);
    if (n < 1 || n > 366 * 24 * 60)
        return bad (
            errp, 400, field, fieldlen, key,
            "%" JSON_INTEGER_FORMAT " is out of range 1..527040 (a year)", n);
    r->time_limit_min = (uint32_t)n;
    return 0;
}

/* "begin_time": Unix time, at most APIREQ_BEGIN_AHEAD_MAX ahead; null
 * leaves it unset. */
static int
get_begin_time (json_t *v, ms_apireq_t *r, ms_error_t *errp, char *field,
                size_t fieldlen)
{
    const char *key = "begin_time";
    int64_t now = (int64_t)time (NULL);
    json_int_t n;

    if (json_is_null (v))
        return 0;
    if (!json_is_integer (v))
        return bad (errp, 400, field, fieldlen, key,
                    "must be an integer (Unix time, seconds)");
    n = json_integer_value (v);
    if (n < 0 || n > now + APIREQ_BEGIN_AHEAD_MAX)
        return bad (errp, 400, field, fieldlen, key,
                    "%" JSON_INTEGER_FORMAT " is out of range 0..%" PRId64
                    " (Unix time, at most 731 days from now)",
                    n, now + APIREQ_BEGIN_AHEAD_MAX);
    r->begin_time = n;
    return 0;
}

/* "partition": where the site lets users ask for one (lim), names as
 * sbatch takes them (a,b) or cluster/partition; null leaves it unset. */
static int
get_partition (json_t *v, const ms_apireq_limits_t *lim, ms_apireq_t *r,
               ms_error_t *errp, char *field, size_t fieldlen)
{
    const char *key = "partition", *s;
    size_t len;

    if (json_is_null (v))
        return 0;
    if (get_string (v, key, sizeof (r->partition) - 1, false, 400, &s, &len,
                    errp, field, fieldlen)
        < 0)
        return -1;
    if (!lim || (!lim->allow_partition && !lim->partition_names))
        return bad (errp, 400, field, fieldlen, key,
                    "metasched chooses the partition: this site "
                    "refuses --partition (the administrator's "
                    "partition_requests, allow_partition)");
    if (lim->partition_names && !strchr (s, '/')) {
        /* names, as sbatch takes them: a,b */
        for (const char *q = s; *q; q++)
            if (!(isalnum ((unsigned char)*q) || *q == '_' || *q == '-'
                  || *q == '.' || *q == ','))
                return bad (errp, 400, field, fieldlen, key,
                            "holds the character '%c'; partition "
                            "names are letters, digits, '_', '-' "
                            "and '.', separated by ','",
                            *q);
        if (!*s || *s == ',' || strstr (s, ",,") || s[strlen (s) - 1] == ',')
            return bad (errp, 400, field, fieldlen, key,
                        "an empty partition name");
    } else if (check_partition (s, errp, field, fieldlen) < 0)
        return -1;
    memcpy (r->partition, s, len + 1);
    return 0;
}

/* One key of the request's object into r. */
static int
parse_key (const char *key, json_t *v, const ms_apireq_limits_t *lim,
           size_t max_script, ms_apireq_t *r, ms_error_t *errp, char *field,
           size_t fieldlen)
{
    if (!strcmp (key, "script"))
        return get_script (v, max_script, r, errp, field, fieldlen);
    if (!strcmp (key, "name") || !strcmp (key, "app"))
        return get_label (v, key, key[0] == 'n' ? r->name : r->app, errp, field,
                          fieldlen);
    if (!strcmp (key, "nodes"))
        return get_count (v, key, 1, &r->nodes, errp, field, fieldlen);
    if (!strcmp (key, "tasks"))
        return get_count (v, key, 0, &r->tasks, errp, field, fieldlen);
    if (!strcmp (key, "tasks_per_node"))
        return get_count (v, key, 0, &r->tasks_per_node, errp, field, fieldlen);
    if (!strcmp (key, "cpus_per_task"))
        return get_count (v, key, 0, &r->cpus_per_task, errp, field, fieldlen);
    if (!strcmp (key, "time_limit_min"))
        return get_time_limit (v, r, errp, field, fieldlen);
    if (!strcmp (key, "begin_time"))
        return get_begin_time (v, r, errp, field, fieldlen);
    if (!strcmp (key, "exclusive")) {
        if (!json_is_boolean (v))
            return bad (errp, 400, field, fieldlen, key,
                        "must be true or false");
        r->exclusive = json_is_true (v);
        return 0;
    }
    if (!strcmp (key, "cwd")) {
        if (json_is_null (v))
            return bad (errp, 400, field, fieldlen, key, "is required");
        return get_path (v, key, true, &r->cwd, errp, field, fieldlen);
    }
    if (!strcmp (key, "stdout"))
        return get_path (v, key, false, &r->std_out, errp, field, fieldlen);
    if (!strcmp (key, "stderr"))
        return get_path (v, key, false, &r->std_err, errp, field, fieldlen);
    if (!strcmp (key, "stdin"))
        return get_path (v, key, false, &r->std_in, errp, field, fieldlen);
    if (!strcmp (key, "environment"))
        return get_environment (v, r, errp, field, fieldlen);
    if (!strcmp (key, "partition"))
        return get_partition (v, lim, r, errp, field, fieldlen);
    if (!strcmp (key, "submit_key"))
        return get_submit_key (v, r, errp, field, fieldlen);
    if (jobspec_json_known (key)) {
        if (jobspec_json_set (&r->sb, key, v, errp) < 0) {
            /* the text names the field already */
            if (field && fieldlen > 0)
                snprintf (field, fieldlen, "%s", key);
            if (errp)
                errp->http_status = 400;
            return -1;
        }
        return 0;
    }
    char shown[72];

    snprintf (shown, sizeof (shown), "%s", key);
    return bad (errp, 400, field, fieldlen, shown, "unknown key");
}

/* What the keys must say together: the required ones, tasks against
 * nodes, one memory option, the deadline after the begin time, a hetjob's
 * totals. */
static int
check_whole (ms_apireq_t *r, ms_error_t *errp, char *field, size_t fieldlen)
{
    if (!r->script)
        return bad (errp, 400, field, fieldlen, "script", "is required");
    if (!r->cwd)
        return bad (errp, 400, field, fieldlen, "cwd", "is required");
    if (r->tasks_per_node > 0 && r->tasks > 0
        && (long)r->tasks_per_node * r->nodes < r->tasks)
        return bad (errp, 400, field, fieldlen, "tasks",
                    "%d tasks do not fit %d nodes of %d tasks each", r->tasks,
                    r->nodes, r->tasks_per_node);
    if (r->tasks > 0 && r->tasks < r->nodes)
        return bad (errp, 400, field, fieldlen, "tasks",
                    "%d tasks are fewer than the %d nodes", r->tasks, r->nodes);
    if (r->sb.nodes_max && r->sb.nodes_max < r->nodes)
        return bad (errp, 400, field, fieldlen, "nodes_max",
                    "%d is fewer than the %d nodes", r->sb.nodes_max, r->nodes);
    if ((r->sb.mem_per_node_set != 0) + (r->sb.mem_per_cpu_mb != 0)
            + (r->sb.mem_per_gpu_mb != 0)
        > 1)
        return bad (errp, 400, field, fieldlen,
                    r->sb.mem_per_cpu_mb ? "mem_per_cpu_mb" : "mem_per_gpu_mb",
                    "mem_per_node_mb, mem_per_cpu_mb and mem_per_gpu_mb "
                    "exclude each other (as sbatch's --mem options)");
    if (r->sb.deadline && r->begin_time && r->sb.deadline < r->begin_time)
        return bad (errp, 400, field, fieldlen, "deadline",
                    "is before begin_time");
    return het_totals (r, errp, field, fieldlen);
}

static int
parse_obj (json_t *o, const ms_apireq_limits_t *lim, ms_apireq_t *r,
           ms_error_t *errp, char *field, size_t fieldlen)
{
    size_t max_script
        = lim && lim->max_script ? lim->max_script : APIREQ_SCRIPT_MAX;
    const char *key;
    json_t *v;

    json_object_foreach (o, key, v)
    {
        if (parse_key (key, v, lim, max_script, r, errp, field, fieldlen) < 0)
            return -1;
    }
    return check_whole (r, errp, field, fieldlen);
}

int
apireq_parse (const char *body, size_t len, const ms_apireq_limits_t *lim,
              ms_apireq_t *r, char *field, size_t fieldlen, ms_error_t *errp)
{
    json_error_t je;
    json_t *o;
    int rc;

    apireq_init (r);
    if (field && fieldlen > 0)
        field[0] = '\0';
    if (len > APIREQ_BODY_MAX) {
        ms_err (errp, MS_ERR_INPUT,
                "request body of %zu bytes is over the limit of %d", len,
                APIREQ_BODY_MAX);
        if (errp)
            errp->http_status = 413;
        return -1;
    }
    o = json_loadb (body, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!o) {
        ms_err (errp, MS_ERR_INPUT, "malformed JSON at line %d column %d: %s",
                je.line, je.column, je.text);
        if (errp)
            errp->http_status = 400;
        return -1;
    }
    if (!json_is_object (o)) {
        json_decref (o);
        ms_err (errp, MS_ERR_INPUT, "a job request must be a JSON object");
        if (errp)
            errp->http_status = 400;
        return -1;
    }
    rc = parse_obj (o, lim, r, errp, field, fieldlen);
    json_decref (o);
    if (rc < 0)
        apireq_free (r);
    return rc;
}
