/* slurmfmt.c - a meta job in squeue's terms: the names of Slurm's job
 * states, squeue's -o/--format fields and the shape of squeue --json, so
 * that tools written for squeue read msqueue unchanged.
 *
 * A meta job's states map onto Slurm's: queued, deciding, dispatching and
 * submitted are PENDING (the job waits, in metasched or on its cluster);
 * running is RUNNING; completed COMPLETED; cancelled CANCELLED; failed is
 * the state the cluster ended it in where metaschedd recorded one
 * (TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ...: its last error starts "STATE on
 * CLUSTER: ..."), else FAILED; lost (the cluster no longer knows the job)
 * is FAILED; unknown (the cluster forgot the job and keeps no accounting:
 * how it ended is not known until an admin resolves it) is UNKNOWN (UN),
 * which is no Slurm state: nothing Slurm says can stand for it. */
#define _GNU_SOURCE /* strptime, timegm */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "metasched/cli/slurmfmt.h"
#include "metasched/common/util.h"

/* metasched's states, in the order of their bits */
static const char *const meta_states[]
    = { "queued",    "deciding", "dispatching", "submitted", "running",
        "completed", "failed",   "cancelled",   "lost",      "unknown",
        NULL };

/* Slurm's job states (squeue -t), long and compact, and the metasched
 * states a job in that Slurm state may be in (bits; 0: none ever is). */
static const struct {
    const char *name, *compact;
    unsigned meta;
} slurm_states[] = {
    { "PENDING", "PD", 0x0f },    { "RUNNING", "R", 0x10 },
    { "SUSPENDED", "S", 0 },      { "COMPLETING", "CG", 0 },
    { "COMPLETED", "CD", 0x20 },  { "CONFIGURING", "CF", 0 },
    { "CANCELLED", "CA", 0x80 },  { "FAILED", "F", 0x140 },
    { "TIMEOUT", "TO", 0x40 },    { "PREEMPTED", "PR", 0x40 },
    { "BOOT_FAIL", "BF", 0x40 },  { "DEADLINE", "DL", 0x40 },
    { "NODE_FAIL", "NF", 0x40 },  { "OUT_OF_MEMORY", "OOM", 0x40 },
    { "REQUEUED", "RQ", 0 },      { "REQUEUE_FED", "RF", 0 },
    { "REQUEUE_HOLD", "RH", 0 },  { "RESIZING", "RS", 0 },
    { "RESV_DEL_HOLD", "RD", 0 }, { "REVOKED", "RV", 0 },
    { "SIGNALING", "SI", 0 },     { "SPECIAL_EXIT", "SE", 0 },
    { "STAGE_OUT", "SO", 0 },     { "STOPPED", "ST", 0 },
    { "UNKNOWN", "UN", 0x200 },
};
#define NSLURM (sizeof (slurm_states) / sizeof (slurm_states[0]))

static int
meta_index (const char *st)
{
    for (int k = 0; st && meta_states[k]; k++)
        if (!strcmp (st, meta_states[k]))
            return k;
    return -1;
}

const char *
slurmfmt_state (const json_t *job)
{
    const char *st = json_string_value (json_object_get (job, "state"));
    const char *le = json_string_value (json_object_get (job, "last_error"));
    int k = meta_index (st);

    if (k < 0)
        return "FAILED";
    if (k <= 3)
        return "PENDING";
    if (k == 4)
        return "RUNNING";
    if (k == 5)
        return "COMPLETED";
    if (k == 7)
        return "CANCELLED";
    if (k == 9)
        return "UNKNOWN";
    if (k == 6 && le) {
        /* "TIMEOUT on alpha: ..." (metasched/daemon/reconcile.c) */
        for (size_t i = 0; i < NSLURM; i++) {
            size_t n = strlen (slurm_states[i].name);
            if (slurm_states[i].meta == 0x40
                && !strncmp (le, slurm_states[i].name, n)
                && !strncmp (le + n, " on ", 4))
                return slurm_states[i].name;
        }
    }
    return "FAILED";
}

const char *
slurmfmt_state_compact (const char *state)
{
    for (size_t i = 0; i < NSLURM; i++)
        if (!strcmp (state, slurm_states[i].name))
            return slurm_states[i].compact;
    return "F";
}

bool
slurmfmt_finished (const json_t *job)
{
    int k = meta_index (json_string_value (json_object_get (job, "state")));

    /* unknown waits for an admin: neither ended nor to be hidden */
    return k >= 5 && k != 9;
}

int
slurmfmt_states_parse (const char *list, slurmfmt_states_t *st,
                       ms_error_t *errp)
{
    char buf[512], *save = NULL;

    memset (st, 0, sizeof (*st));
    if (!*list || strlen (list) >= sizeof (buf))
        return ms_err (errp, MS_ERR_INPUT,
                       "--states: expected a list of job states");
    ms_strlcpy (buf, list, sizeof (buf));
    for (char *t = strtok_r (buf, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        size_t i;
        int k;
        if (!strcasecmp (t, "all")) {
            st->all = true;
            continue;
        }
        for (k = 0; meta_states[k]; k++)
            if (!strcasecmp (t, meta_states[k]))
                break;
        if (meta_states[k]) {
            st->meta |= 1u << k;
            continue;
        }
        for (i = 0; i < NSLURM; i++)
            if (!strcasecmp (t, slurm_states[i].name)
                || !strcasecmp (t, slurm_states[i].compact))
                break;
        if (i == NSLURM)
            return ms_err (errp, MS_ERR_INPUT,
                           "--states: '%.64s' is not a job state (Slurm's: "
                           "PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, "
                           "CANCELLED, ... or PD, R, CD, F, TO, CA, ...; "
                           "metasched's: queued, deciding, dispatching, "
                           "submitted, running, completed, failed, "
                           "cancelled, lost, unknown; or all)",
                           t);
        if (st->nslurm < sizeof (st->slurm) / sizeof (st->slurm[0]))
            ms_strlcpy (st->slurm[st->nslurm++], slurm_states[i].name,
                        sizeof (st->slurm[0]));
    }
    return 0;
}

bool
slurmfmt_states_match (const slurmfmt_states_t *st, const json_t *job)
{
    int k = meta_index (json_string_value (json_object_get (job, "state")));
    const char *s = slurmfmt_state (job);

    if (st->all)
        return true;
    if (k >= 0 && (st->meta & (1u << k)))
        return true;
    for (size_t i = 0; i < st->nslurm; i++)
        if (!strcmp (st->slurm[i], s))
            return true;
    return false;
}

void
slurmfmt_states_query (const slurmfmt_states_t *st, char *out, size_t outlen)
{
    unsigned bits = st->meta;

    out[0] = '\0';
    if (st->all)
        return;
    for (size_t i = 0; i < st->nslurm; i++)
        for (size_t k = 0; k < NSLURM; k++)
            if (!strcmp (st->slurm[i], slurm_states[k].name))
                bits |= slurm_states[k].meta;
    if (!bits) {
        /* states no meta job is ever in: ask for one and match none */
        ms_strlcpy (out, "lost", outlen);
        return;
    }
    for (int k = 0; meta_states[k]; k++)
        if (bits & (1u << k)) {
            if (out[0])
                strncat (out, ",", outlen - strlen (out) - 1);
            strncat (out, meta_states[k], outlen - strlen (out) - 1);
        }
}

long long
slurmfmt_time (const json_t *v)
{
    const char *s = json_string_value (v);
    struct tm tm;
    char *end;

    if (!s)
        return -1;
    memset (&tm, 0, sizeof (tm));
    end = strptime (s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || (*end && strcmp (end, "Z")))
        return -1;
    return (long long)timegm (&tm);
}

/* ---- -o/--format ---------------------------------------------------- */

typedef struct {
    char field;   /* 0: the text before the first field */
    int width;    /* 0: as long as it is */
    bool right;   /* '.': right-justified */
    char *suffix; /* the text after the field */
} item_t;

struct slurmfmt {
    item_t *items;
    size_t n;
};

/* The fields msqueue prints, with squeue's headers. */
static const struct {
    char c;
    const char *header;
} fields[] = {
    { 'i', "JOBID" },         { 'j', "NAME" },
    { 'u', "USER" },          { 't', "ST" },
    { 'T', "STATE" },         { 'M', "TIME" },
    { 'l', "TIME_LIMIT" },    { 'L', "TIME_LEFT" },
    { 'D', "NODES" },         { 'P', "PARTITION" },
    { 'N', "NODELIST" },      { 'R', "NODELIST(REASON)" },
    { 'r', "REASON" },        { 'V', "SUBMIT_TIME" },
    { 'S', "START_TIME" },    { 'e', "END_TIME" },
    { 'E', "DEPENDENCY" },    { 'F', "ARRAY_JOB_ID" },
    { 'K', "ARRAY_TASK_ID" }, { 'U', "UID" },
    { 'G', "GROUP" },
};
#define NFIELDS (sizeof (fields) / sizeof (fields[0]))

static const char *
field_header (char c)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (fields[i].c == c)
            return fields[i].header;
    return NULL;
}

int
slurmfmt_parse (const char *format, slurmfmt_t **fp, ms_error_t *errp)
{
    slurmfmt_t *f = ms_xcalloc (1, sizeof (*f));
    const char *p = format, *pct;
    size_t cap = strlen (format) + 2;

    *fp = NULL;
    f->items = ms_xcalloc (cap, sizeof (item_t));
    if (!strchr (format, '%')) {
        slurmfmt_free (f);
        return ms_err (errp, MS_ERR_INPUT,
                       "--format=%.64s: expected fields such as %%i, "
                       "%%.10T (see msqueue(1))",
                       format);
    }
    /* the text before the first field */
    pct = strchr (p, '%');
    if (pct > p) {
        f->items[f->n].field = 0;
        f->items[f->n++].suffix = strndup (p, (size_t)(pct - p));
    }
    p = pct;
    while (p && *p == '%') {
        item_t *it = &f->items[f->n];
        const char *q = p + 1, *next;

        if (*q == '.') {
            it->right = true;
            q++;
        }
        while (isdigit ((unsigned char)*q)) {
            if (it->width < 10000)
                it->width = it->width * 10 + (*q - '0');
            q++;
        }
        if (!*q || !field_header (*q)) {
            char bad[8] = "";
            if (*q)
                snprintf (bad, sizeof (bad), "%%%c", *q);
            slurmfmt_free (f);
            return ms_err (errp, MS_ERR_INPUT,
                           "--format=%.64s: %s%s: not a field msqueue "
                           "prints (i j u t T M l L D P N R r V S e E F K "
                           "U G; see msqueue(1))",
                           format, bad[0] ? "" : "a '%' ends the format", bad);
        }
        it->field = *q++;
        next = strchr (q, '%');
        it->suffix = next ? strndup (q, (size_t)(next - q)) : strdup (q);
        f->n++;
        p = next;
    }
    *fp = f;
    return 0;
}

void
slurmfmt_free (slurmfmt_t *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        free (f->items[i].suffix);
    free (f->items);
    free (f);
}

/* squeue's rule: a width pads and cuts; '.' pads on the left. */
static void
put (FILE *out, const item_t *it, const char *s)
{
    if (it->width <= 0)
        fputs (s, out);
    else if (it->right)
        fprintf (out, "%*.*s", it->width, it->width, s);
    else
        fprintf (out, "%-*.*s", it->width, it->width, s);
}

/* Seconds as squeue shows a time: M:SS, H:MM:SS or D-HH:MM:SS. */
static void
secs_str (long long secs, char *buf, size_t len)
{
    long long d, h, m, s;

    if (secs < 0)
        secs = 0;
    d = secs / 86400;
    h = secs / 3600 % 24;
    m = secs / 60 % 60;
    s = secs % 60;
    if (d)
        snprintf (buf, len, "%lld-%2.2lld:%2.2lld:%2.2lld", d, h, m, s);
    else if (h)
        snprintf (buf, len, "%lld:%2.2lld:%2.2lld", h, m, s);
    else
        snprintf (buf, len, "%lld:%2.2lld", m, s);
}

/* A time as squeue shows it: local, YYYY-MM-DDTHH:MM:SS; N/A if none. */
static void
time_str (long long t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (t < 0 || !localtime_r (&tt, &tm))
        ms_strlcpy (buf, "N/A", len);
    else
        strftime (buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static const char *
str_or (const json_t *job, const char *key, const char *dflt)
{
    const char *s = json_string_value (json_object_get (job, key));
    return s && *s ? s : dflt;
}

/* The seconds the job has run (0 before it started). */
static long long
used_s (const json_t *job, long long now)
{
    long long st = slurmfmt_time (json_object_get (job, "started_at"));
    long long en = slurmfmt_time (json_object_get (job, "finished_at"));

    if (st < 0)
        return 0;
    if (en < 0 || !slurmfmt_finished (job))
        en = now;
    return en > st ? en - st : 0;
}

/* squeue's %r: why a pending job waits, why an unknown one is unknown;
 * None otherwise. */
static const char *
reason_str (const json_t *job)
{
    const char *held = str_or (job, "held", NULL);
    int k = meta_index (json_string_value (json_object_get (job, "state")));

    if (k == 9)
        return str_or (job, "last_error", "None");
    if (k >= 0 && k <= 3)
        return held ? held : k == 3 ? "Priority" : "None";
    if (held)
        return held;
    return "None";
}

static void
field_value (char c, const json_t *job, long long now, char *buf, size_t len)
{
    const json_t *v;
    long long lim;

    buf[0] = '\0';
    switch (c) {
    case 'i':
    case 'F':
        if (json_is_string (v = json_object_get (job, "id")))
            ms_strlcpy (buf, json_string_value (v), len);
        else
            snprintf (buf, len, "%" JSON_INTEGER_FORMAT,
                      json_integer_value (v));
        if (c == 'F') {
            buf[strcspn (buf, "_")] = '\0';
            break;
        }
        if (json_is_integer (v) && str_or (job, "array", NULL)) {
            size_t n = strlen (buf);
            snprintf (buf + n, len - n, "_[%s]", str_or (job, "array", ""));
        }
        break;
    case 'K':
        if (json_is_string (v = json_object_get (job, "id"))
            && strchr (json_string_value (v), '_'))
            ms_strlcpy (buf, strchr (json_string_value (v), '_') + 1, len);
        else
            ms_strlcpy (buf, str_or (job, "array", "N/A"), len);
        break;
    case 'j':
        ms_strlcpy (buf, str_or (job, "name", ""), len);
        break;
    case 'u':
        ms_strlcpy (buf, str_or (job, "owner", ""), len);
        break;
    case 'U':
        snprintf (buf, len, "%" JSON_INTEGER_FORMAT,
                  json_integer_value (json_object_get (job, "uid")));
        break;
    case 'G':
        snprintf (buf, len, "%" JSON_INTEGER_FORMAT,
                  json_integer_value (json_object_get (job, "gid")));
        break;
    case 'T':
        ms_strlcpy (buf, slurmfmt_state (job), len);
        break;
    case 't':
        ms_strlcpy (buf, slurmfmt_state_compact (slurmfmt_state (job)), len);
        break;
    case 'M':
        secs_str (used_s (job, now), buf, len);
        break;
    case 'l':
    case 'L':
        v = json_object_get (job, "time_limit_min");
        if (!json_is_integer (v)) {
            ms_strlcpy (buf, c == 'l' ? "UNLIMITED" : "N/A", len);
            break;
        }
        lim = json_integer_value (v) * 60;
        secs_str (c == 'l' ? lim : lim - used_s (job, now), buf, len);
        break;
    case 'D':
        snprintf (buf, len, "%" JSON_INTEGER_FORMAT,
                  json_integer_value (json_object_get (job, "nodes")));
        break;
    case 'P':
        ms_strlcpy (buf, str_or (job, "partition", "N/A"), len);
        break;
    case 'N':
    case 'R':
        if (c == 'R'
            && (!strcmp (slurmfmt_state (job), "UNKNOWN")
                || !json_object_get (job, "started_at")
                || json_is_null (json_object_get (job, "started_at"))
                || !strcmp (slurmfmt_state (job), "PENDING"))) {
            snprintf (buf, len, "(%s)", reason_str (job));
            break;
        }
        /* metasched knows the cluster a job ran on, not its nodes */
        if (!json_is_null (json_object_get (job, "started_at")))
            ms_strlcpy (buf, str_or (job, "cluster", ""), len);
        break;
    case 'r':
        ms_strlcpy (buf, reason_str (job), len);
        break;
    case 'V':
        time_str (slurmfmt_time (json_object_get (job, "submitted_at")), buf,
                  len);
        break;
    case 'S':
        time_str (slurmfmt_time (json_object_get (job, "started_at")), buf,
                  len);
        break;
    case 'e':
        time_str (slurmfmt_finished (job)
                      ? slurmfmt_time (json_object_get (job, "finished_at"))
                      : -1,
                  buf, len);
        break;
    case 'E':
        ms_strlcpy (buf, str_or (job, "dependency", "(null)"), len);
        break;
    }
    /* control characters of a name or reason never reach the terminal */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

void
slurmfmt_header (const slurmfmt_t *f, FILE *out)
{
    for (size_t i = 0; i < f->n; i++) {
        if (f->items[i].field)
            put (out, &f->items[i], field_header (f->items[i].field));
        fputs (f->items[i].suffix ? f->items[i].suffix : "", out);
    }
    fputc ('\n', out);
}

void
slurmfmt_row (const slurmfmt_t *f, const json_t *job, long long now, FILE *out)
{
    char buf[1024];

    for (size_t i = 0; i < f->n; i++) {
        if (f->items[i].field) {
            field_value (f->items[i].field, job, now, buf, sizeof (buf));
            put (out, &f->items[i], buf);
        }
        fputs (f->items[i].suffix ? f->items[i].suffix : "", out);
    }
    fputc ('\n', out);
}

/* ---- --json ----------------------------------------------------------- */

/* data_parser's number: {"set", "infinite", "number"} */
static json_t *
num (bool set, long long v)
{
    return json_pack ("{s:b,s:b,s:I}", "set", set, "infinite", false, "number",
                      (json_int_t)(set ? v : 0));
}

static json_t *
tstamp (const json_t *v)
{
    long long t = slurmfmt_time (v);
    return num (t >= 0, t);
}

/* exit_code as data_parser's PROCESS_EXIT_CODE_VERBOSE: metasched keeps
 * a signal's end as 128 + its number (partitions/slurmrest_parse.c). */
static json_t *
exit_code (const json_t *job)
{
    const json_t *v = json_object_get (job, "exit_code");
    long long rc = json_is_integer (v) ? json_integer_value (v) : -1;
    const char *status;
    long long sig = 0;

    if (!slurmfmt_finished (job) || rc < 0)
        status = "PENDING";
    else if (rc > 128 && rc < 128 + 65) {
        status = "SIGNALED";
        sig = rc - 128;
    } else
        status = rc == 0 ? "SUCCESS" : "ERROR";
    return json_pack ("{s:[s],s:o,s:{s:o,s:s}}", "status", status,
                      "return_code", num (rc >= 0 && !sig, rc), "signal", "id",
                      num (sig > 0, sig), "name", "");
}

json_t *
slurmfmt_json_job (const json_t *job)
{
    const json_t *v = json_object_get (job, "time_limit_min");
    json_int_t id = json_integer_value (json_object_get (job, "id"));
    const char *arr = str_or (job, "array", NULL);
    const char *state = slurmfmt_state (job);
    json_t *o = json_object ();

    json_object_set_new (o, "job_id", json_integer (id));
    json_object_set_new (o, "array_job_id", num (arr != NULL, arr ? id : 0));
    json_object_set_new (o, "array_task_id", num (false, 0));
    json_object_set_new (o, "array_task_string", json_string (arr ? arr : ""));
    json_object_set_new (o, "name", json_string (str_or (job, "name", "")));
    json_object_set_new (
        o, "user_id",
        json_integer (json_integer_value (json_object_get (job, "uid"))));
    json_object_set_new (o, "user_name",
                         json_string (str_or (job, "owner", "")));
    json_object_set_new (
        o, "group_id",
        json_integer (json_integer_value (json_object_get (job, "gid"))));
    json_object_set_new (o, "job_state", json_pack ("[s]", state));
    json_object_set_new (o, "state_reason", json_string (reason_str (job)));
    json_object_set_new (o, "state_description",
                         json_string (str_or (job, "last_error", "")));
    json_object_set_new (o, "cluster",
                         json_string (str_or (job, "cluster", "")));
    json_object_set_new (o, "partition",
                         json_string (str_or (job, "partition", "")));
    json_object_set_new (o, "nodes", json_string (""));
    json_object_set_new (
        o, "node_count",
        num (true, json_integer_value (json_object_get (job, "nodes"))));
    json_object_set_new (o, "time_limit",
                         num (json_is_integer (v), json_integer_value (v)));
    json_object_set_new (o, "submit_time",
                         tstamp (json_object_get (job, "submitted_at")));
    json_object_set_new (o, "start_time",
                         tstamp (json_object_get (job, "started_at")));
    json_object_set_new (o, "end_time",
                         slurmfmt_finished (job)
                             ? tstamp (json_object_get (job, "finished_at"))
                             : num (false, 0));
    json_object_set_new (o, "dependency",
                         json_string (str_or (job, "dependency", "")));
    json_object_set_new (o, "exit_code", exit_code (job));
    json_object_set_new (o, "metasched", json_deep_copy (job));
    return o;
}

json_t *
slurmfmt_json (const json_t *jobs, long long now)
{
    json_t *arr = json_array (), *j;
    size_t i;

    json_array_foreach (jobs, i, j)
        json_array_append_new (arr, slurmfmt_json_job (j));
    return json_pack (
        "{s:o,s:o,s:o,s:{s:{s:s,s:s,s:s},s:[s,s],s:{s:s}},s:[],s:[]}", "jobs",
        arr, "last_backfill", num (false, 0), "last_update", num (true, now),
        "meta", "plugin", "type", "", "name", "metasched", "data_parser",
        "data_parser/v0.0.40", "command", "msqueue", "--json", "slurm",
        "release", "metasched " PACKAGE_VERSION, "errors", "warnings");
}
