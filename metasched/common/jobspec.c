/* jobspec.c - read a batch job like sbatch does: #SBATCH lines of the
 * script, then the command line. Every error names where it was found:
 * "job.sh:3: --time=abc: ..." for the script, "--time=abc: ..." for the
 * command line. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/util.h"

typedef enum {
    OPT_NODES, OPT_NTASKS, OPT_NTASKS_PER_NODE, OPT_CPUS_PER_TASK, OPT_TIME,
    OPT_JOB_NAME, OPT_OUTPUT, OPT_ERROR, OPT_INPUT, OPT_CHDIR, OPT_PARTITION,
    OPT_EXCLUSIVE, OPT_TEST_ONLY, OPT_EXPORT, OPT_APP, OPT_BEGIN,
} opt_id_t;

static const struct {
    const char *name;
    char shortname;
    bool has_arg;
    opt_id_t id;
} options[] = {
    { "nodes", 'N', true, OPT_NODES },
    { "ntasks", 'n', true, OPT_NTASKS },
    { "ntasks-per-node", 0, true, OPT_NTASKS_PER_NODE },
    { "cpus-per-task", 'c', true, OPT_CPUS_PER_TASK },
    { "time", 't', true, OPT_TIME },
    { "job-name", 'J', true, OPT_JOB_NAME },
    { "output", 'o', true, OPT_OUTPUT },
    { "error", 'e', true, OPT_ERROR },
    { "input", 'i', true, OPT_INPUT },
    { "chdir", 'D', true, OPT_CHDIR },
    { "partition", 'p', true, OPT_PARTITION },
    { "exclusive", 0, false, OPT_EXCLUSIVE },
    { "test-only", 0, false, OPT_TEST_ONLY },
    { "export", 0, true, OPT_EXPORT },
    { "app", 0, true, OPT_APP },
    { "begin", 0, true, OPT_BEGIN },
};
#define NOPTIONS (sizeof (options) / sizeof (options[0]))

void
jobspec_init (ms_jobspec_t *s)
{
    memset (s, 0, sizeof (*s));
    ms_strlcpy (s->export_mode, "ALL", sizeof (s->export_mode));
}

void
jobspec_free (ms_jobspec_t *s)
{
    for (size_t i = 0; i < s->nexport; i++)
        free (s->export_vars[i]);
    s->nexport = 0;
}

int
jobspec_parse_time (const char *s, uint32_t *minutes)
{
    unsigned long v[4];
    int n = 0, days = 0;
    const char *p = s;
    unsigned long long secs;

    if (!strcasecmp (s, "UNLIMITED") || !strcasecmp (s, "INFINITE")) {
        *minutes = UINT32_MAX;
        return 0;
    }
    if (!isdigit ((unsigned char)*p))
        return -1;
    /* D-... */
    const char *dash = strchr (p, '-');
    if (dash) {
        char *end;
        errno = 0;
        unsigned long d = strtoul (p, &end, 10);
        if (errno || end != dash || d > 365 * 100)
            return -1;
        days = (int)d;
        p = dash + 1;
    }
    while (*p) {
        char *end;
        if (!isdigit ((unsigned char)*p) || n == 3)
            return -1;
        errno = 0;
        v[n++] = strtoul (p, &end, 10);
        if (errno || v[n - 1] > 10000000UL)
            return -1;
        p = end;
        if (*p == ':')
            p++;
        else if (*p)
            return -1;
        if (p[-1] == ':' && !*p)
            return -1;
    }
    if (n == 0)
        return -1;
    if (dash) {
        /* D-HH, D-HH:MM, D-HH:MM:SS */
        secs = days * 86400ULL + v[0] * 3600ULL;
        if (n >= 2)
            secs += v[1] * 60ULL;
        if (n == 3)
            secs += v[2];
    } else if (n == 1)
        secs = v[0] * 60ULL; /* minutes */
    else if (n == 2)
        secs = v[0] * 60ULL + v[1]; /* MM:SS */
    else
        secs = v[0] * 3600ULL + v[1] * 60ULL + v[2]; /* HH:MM:SS */
    if (secs / 60 >= UINT32_MAX)
        return -1;
    *minutes = (uint32_t)((secs + 59) / 60);
    if (*minutes == 0 && secs > 0)
        *minutes = 1;
    return 0;
}

/* The units of now+N, as sbatch spells them. */
static const struct {
    int64_t secs;
    const char *names[7]; /* NULL-terminated */
} begin_units[] = {
    { 1, { "", "s", "sec", "secs", "second", "seconds", NULL } },
    { 60, { "m", "min", "mins", "minute", "minutes", NULL } },
    { 3600, { "h", "hour", "hours", NULL } },
    { 86400, { "d", "day", "days", NULL } },
    { 7 * 86400, { "w", "week", "weeks", NULL } },
};

/* The seconds of a unit of now+N; 0 for none. */
static int64_t
begin_unit (const char *s)
{
    for (size_t k = 0; k < sizeof (begin_units) / sizeof (begin_units[0]); k++)
        for (int i = 0; begin_units[k].names[i]; i++)
            if (!strcasecmp (s, begin_units[k].names[i]))
                return begin_units[k].secs;
    return 0;
}

/* min..max decimal digits at *pp into *out; *pp moves past them. */
static bool
read_digits (const char **pp, int min, int max, int *out)
{
    const char *p = *pp;
    int v = 0, n = 0;

    while (n < max && isdigit ((unsigned char)*p)) {
        v = v * 10 + (*p++ - '0');
        n++;
    }
    if (n < min || isdigit ((unsigned char)*p))
        return false;
    *out = v;
    *pp = p;
    return true;
}

/* HH:MM[:SS] at *pp (the hour may have one digit); *pp moves past it. */
static bool
read_clock (const char **pp, int *h, int *m, int *sec)
{
    const char *p = *pp;

    *sec = 0;
    if (!read_digits (&p, 1, 2, h) || *p != ':')
        return false;
    p++;
    if (!read_digits (&p, 2, 2, m))
        return false;
    if (*p == ':') {
        p++;
        if (!read_digits (&p, 2, 2, sec))
            return false;
    }
    if (*h > 23 || *m > 59 || *sec > 59)
        return false;
    *pp = p;
    return true;
}

/* Local time at h:m:s, `days` after now's date. mktime normalizes the day
 * and decides whether daylight saving time is in force on it. */
static int64_t
local_at (time_t now, int days, int h, int m, int sec)
{
    struct tm tm;

    localtime_r (&now, &tm);
    tm.tm_mday += days;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    return (int64_t)mktime (&tm);
}

/* YYYY-MM-DD[THH:MM[:SS]] in local time; -1 when malformed. */
static int
parse_date (const char *p, int64_t *out)
{
    static const int mdays[12]
        = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y, mo, d, h = 0, m = 0, sec = 0, last;
    struct tm tm;

    if (!read_digits (&p, 4, 4, &y) || *p++ != '-'
        || !read_digits (&p, 2, 2, &mo) || *p++ != '-'
        || !read_digits (&p, 2, 2, &d))
        return -1;
    if (*p == 'T') {
        p++;
        if (!read_clock (&p, &h, &m, &sec))
            return -1;
    }
    if (*p || mo < 1 || mo > 12)
        return -1;
    last = mdays[mo - 1];
    if (mo == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
        last = 29;
    if (d < 1 || d > last)
        return -1;
    memset (&tm, 0, sizeof (tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    *out = (int64_t)mktime (&tm);
    return 0;
}

int
jobspec_parse_begin (const char *s, time_t now, int64_t *out)
{
    int64_t t;

    if (!strncasecmp (s, "now", 3)) {
        const char *p = s + 3;

        t = now;
        if (*p) {
            int64_t n = 0, unit;

            if (*p++ != '+' || !isdigit ((unsigned char)*p))
                return -1;
            for (; isdigit ((unsigned char)*p); p++)
                if (n <= INT64_MAX / 100) /* else far too large already */
                    n = n * 10 + (*p - '0');
            if (!(unit = begin_unit (p)))
                return -1;
            if (n > JOBSPEC_BEGIN_AHEAD_MAX / unit)
                return -2;
            t += n * unit;
        }
    } else if (!strcasecmp (s, "today"))
        t = local_at (now, 0, 0, 0, 0);
    else if (!strcasecmp (s, "tomorrow") || !strcasecmp (s, "midnight"))
        t = local_at (now, 1, 0, 0, 0);
    else if (!strcasecmp (s, "noon")) {
        t = local_at (now, 0, 12, 0, 0);
        if (t < now)
            t = local_at (now, 1, 12, 0, 0);
    } else if (isdigit ((unsigned char)s[0]) && strchr (s, '-')) {
        if (parse_date (s, &t) < 0)
            return -1;
    } else {
        const char *p = s;
        int h, m, sec;

        if (!read_clock (&p, &h, &m, &sec) || *p)
            return -1;
        t = local_at (now, 0, h, m, sec);
        if (t < now) /* already past: tomorrow, as sbatch */
            t = local_at (now, 1, h, m, sec);
    }
    if (t < 0 || t > (int64_t)now + JOBSPEC_BEGIN_AHEAD_MAX)
        return -2;
    *out = t;
    return 0;
}

static int
parse_count (const char *where, const char *opt, const char *val, int max,
             int *out, ms_error_t *errp)
{
    char *end;
    long v;

    errno = 0;
    v = strtol (val, &end, 10);
    if (errno || end == val || *end || v < 1 || v > max)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--%s=%s: expected a whole number from 1 to %d", where,
                       opt, val, max);
    *out = (int)v;
    return 0;
}

static int
copy_str (const char *where, const char *opt, const char *val, char *dst,
          size_t size, ms_error_t *errp)
{
    if (!*val)
        return ms_err (errp, MS_ERR_INPUT, "%s--%s: empty value", where, opt);
    if (strlen (val) >= size)
        return ms_err (errp, MS_ERR_INPUT, "%s--%s: longer than %zu bytes",
                       where, opt, size - 1);
    for (const char *c = val; *c; c++)
        if ((unsigned char)*c < 0x20)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--%s: control character in value", where, opt);
    ms_strlcpy (dst, val, size);
    return 0;
}

static bool
valid_env_name (const char *s, size_t n)
{
    if (n == 0 || !(isalpha ((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!isalnum ((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

static int
parse_export (ms_jobspec_t *s, const char *where, const char *val,
              ms_error_t *errp)
{
    const char *p = val;

    for (size_t i = 0; i < s->nexport; i++)
        free (s->export_vars[i]);
    s->nexport = 0;
    ms_strlcpy (s->export_mode, "ALL", sizeof (s->export_mode));
    if (!*val)
        return ms_err (errp, MS_ERR_INPUT, "%s--export: empty value", where);
    while (*p) {
        const char *comma = strchr (p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen (p);
        const char *eq = memchr (p, '=', n);
        size_t namelen = eq ? (size_t)(eq - p) : n;

        if (n == 3 && !strncmp (p, "ALL", 3))
            ms_strlcpy (s->export_mode, "ALL", sizeof (s->export_mode));
        else if (n == 4 && !strncmp (p, "NONE", 4))
            ms_strlcpy (s->export_mode, "NONE", sizeof (s->export_mode));
        else if (!valid_env_name (p, namelen))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--export: '%.*s' is not ALL, NONE or "
                           "VAR[=value]",
                           where, (int)(n > 64 ? 64 : n), p);
        else {
            if (s->nexport >= JOBSPEC_MAX_ENV)
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--export: more than %d variables", where,
                               JOBSPEC_MAX_ENV);
            char *v = ms_xmalloc (n + 1);
            memcpy (v, p, n);
            v[n] = '\0';
            s->export_vars[s->nexport++] = v;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

static int
apply (ms_jobspec_t *s, const char *where, int k, const char *val,
       ms_error_t *errp)
{
    const char *opt = options[k].name;

    switch (options[k].id) {
    case OPT_NODES:
        return parse_count (where, opt, val, 1 << 20, &s->nodes, errp);
    case OPT_NTASKS:
        return parse_count (where, opt, val, 1 << 24, &s->ntasks, errp);
    case OPT_NTASKS_PER_NODE:
        return parse_count (where, opt, val, 1 << 16, &s->ntasks_per_node, errp);
    case OPT_CPUS_PER_TASK:
        return parse_count (where, opt, val, 1 << 16, &s->cpus_per_task, errp);
    case OPT_TIME:
        if (jobspec_parse_time (val, &s->time_limit_min) < 0)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--time=%s: expected minutes, MM:SS, HH:MM:SS, "
                           "D-HH, D-HH:MM or D-HH:MM:SS",
                           where, val);
        return 0;
    case OPT_BEGIN:
        switch (jobspec_parse_begin (val, time (NULL), &s->begin)) {
        case -1:
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--begin=%s: expected now, now+N[UNIT] (UNIT "
                           "seconds, minutes, hours, days or weeks), "
                           "HH:MM[:SS], YYYY-MM-DD[THH:MM[:SS]], today, "
                           "tomorrow, midnight or noon",
                           where, val);
        case -2:
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--begin=%s: out of range (from 1970 to %d days "
                           "from now)",
                           where, val, JOBSPEC_BEGIN_AHEAD_MAX / 86400);
        }
        return 0;
    case OPT_JOB_NAME:
        return copy_str (where, opt, val, s->name, sizeof (s->name), errp);
    case OPT_OUTPUT:
        return copy_str (where, opt, val, s->std_out, sizeof (s->std_out), errp);
    case OPT_ERROR:
        return copy_str (where, opt, val, s->std_err, sizeof (s->std_err), errp);
    case OPT_INPUT:
        return copy_str (where, opt, val, s->std_in, sizeof (s->std_in), errp);
    case OPT_CHDIR:
        return copy_str (where, opt, val, s->chdir, sizeof (s->chdir), errp);
    case OPT_PARTITION:
        return copy_str (where, opt, val, s->partition, sizeof (s->partition),
                         errp);
    case OPT_APP:
        if (copy_str (where, opt, val, s->app, sizeof (s->app), errp) < 0)
            return -1;
        for (const char *c = val; *c; c++)
            if (!isalnum ((unsigned char)*c) && !strchr ("._-+", *c))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--app=%s: only letters, digits and . _ - + "
                               "are allowed",
                               where, val);
        return 0;
    case OPT_EXCLUSIVE:
        s->exclusive = true;
        return 0;
    case OPT_TEST_ONLY:
        s->test_only = true;
        return 0;
    case OPT_EXPORT:
        return parse_export (s, where, val, errp);
    }
    return 0;
}

/* One option word (with its value, for short options, maybe in the next
 * word). Returns the number of words used, or -1. */
static int
one_option (ms_jobspec_t *s, const char *where, const char *word,
            const char *next, ms_error_t *errp)
{
    if (word[0] == '-' && word[1] == '-') {
        const char *name = word + 2, *eq = strchr (name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen (name);
        for (size_t k = 0; k < NOPTIONS; k++) {
            if (strlen (options[k].name) != n
                || strncmp (options[k].name, name, n))
                continue;
            if (options[k].has_arg && !eq) {
                if (!next)
                    return ms_err (errp, MS_ERR_INPUT,
                                   "%s--%s: needs a value", where,
                                   options[k].name);
                return apply (s, where, (int)k, next, errp) < 0 ? -1 : 2;
            }
            if (!options[k].has_arg && eq)
                return ms_err (errp, MS_ERR_INPUT,
                               "%s--%s takes no value", where, options[k].name);
            return apply (s, where, (int)k, eq ? eq + 1 : NULL, errp) < 0 ? -1
                                                                        : 1;
        }
        return ms_err (errp, MS_ERR_INPUT,
                       "%sunknown option '--%.*s' (see msbatch --help)", where,
                       (int)(n > 64 ? 64 : n), name);
    }
    if (word[0] == '-' && word[1] && word[1] != '-') {
        for (size_t k = 0; k < NOPTIONS; k++) {
            if (options[k].shortname != word[1])
                continue;
            if (!options[k].has_arg)
                return word[2] ? ms_err (errp, MS_ERR_INPUT,
                                         "%s-%c takes no value", where, word[1])
                               : (apply (s, where, (int)k, NULL, errp) < 0 ? -1 : 1);
            if (word[2])
                return apply (s, where, (int)k, word[2] == '=' ? word + 3 : word + 2,
                              errp) < 0 ? -1 : 1;
            if (!next)
                return ms_err (errp, MS_ERR_INPUT, "%s-%c: needs a value",
                               where, word[1]);
            return apply (s, where, (int)k, next, errp) < 0 ? -1 : 2;
        }
        return ms_err (errp, MS_ERR_INPUT,
                       "%sunknown option '-%c' (see msbatch --help)", where,
                       isprint ((unsigned char)word[1]) ? word[1] : '?');
    }
    return ms_err (errp, MS_ERR_INPUT, "%s'%.64s' is not an option", where,
                   word);
}

int
jobspec_parse_script (ms_jobspec_t *s, const char *script, size_t len,
                      const char *name, ms_error_t *errp)
{
    size_t pos = 0;
    int line = 0;

    if (len > JOBSPEC_SCRIPT_MAX)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: script is larger than %d bytes", name,
                       JOBSPEC_SCRIPT_MAX);
    if (memchr (script, '\0', len))
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: script contains a NUL byte (binary file?)", name);
    while (pos < len) {
        char buf[1024], where[512];
        size_t end = pos, n;
        char *l, *words[3] = { NULL, NULL, NULL };
        int nw = 0;

        while (end < len && script[end] != '\n')
            end++;
        n = end - pos;
        line++;
        if (n >= sizeof (buf)) {
            if (n >= 7 && !strncmp (script + pos, "#SBATCH", 7))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: #SBATCH line longer than %zu bytes",
                               name, line, sizeof (buf) - 1);
            if (script[pos] != '#')
                break; /* a long command ends the #SBATCH block */
            pos = end + 1;
            continue;
        }
        memcpy (buf, script + pos, n);
        buf[n] = '\0';
        pos = end + 1;
        if (n && buf[n - 1] == '\r')
            buf[--n] = '\0';
        l = ms_strtrim (buf);
        if (!*l)
            continue;
        if (*l != '#')
            break; /* the first command ends the #SBATCH block, as in sbatch */
        if (strncmp (l, "#SBATCH", 7) || (l[7] && !isspace ((unsigned char)l[7])))
            continue;
        l += 7;
        /* drop a trailing comment */
        for (char *h = l; *h; h++)
            if (*h == '#' && isspace ((unsigned char)h[-1])) {
                *h = '\0';
                break;
            }
        snprintf (where, sizeof (where), "%s:%d: ", name, line);
        for (char *tok = strtok (l, " \t"); tok; tok = strtok (NULL, " \t")) {
            if (nw == 2)
                return ms_err (errp, MS_ERR_INPUT,
                               "%sonly one option per #SBATCH line", where);
            words[nw++] = tok;
        }
        if (nw == 0)
            return ms_err (errp, MS_ERR_INPUT, "%s#SBATCH without an option",
                           where);
        int used = one_option (s, where, words[0], words[1], errp);
        if (used < 0)
            return -1;
        if (used < nw)
            return ms_err (errp, MS_ERR_INPUT, "%sunexpected '%.64s'", where,
                           words[1]);
    }
    return 0;
}

int
jobspec_parse_args (ms_jobspec_t *s, int argc, char **argv, int *argip,
                    ms_error_t *errp)
{
    int i = 1;

    while (i < argc) {
        const char *w = argv[i];
        if (!strcmp (w, "--")) {
            i++;
            break;
        }
        if (w[0] != '-' || !w[1])
            break;
        int used = one_option (s, "", w, i + 1 < argc ? argv[i + 1] : NULL,
                               errp);
        if (used < 0)
            return -1;
        i += used;
    }
    *argip = i;
    return 0;
}

int
jobspec_check (const ms_jobspec_t *s, const char *script, size_t len,
               bool allow_partition, ms_error_t *errp)
{
    if (len < 2 || strncmp (script, "#!", 2))
        return ms_err (errp, MS_ERR_INPUT,
                       "script: must start with #! (an interpreter line, as "
                       "sbatch requires)");
    if (len > JOBSPEC_SCRIPT_MAX)
        return ms_err (errp, MS_ERR_INPUT, "script: larger than %d bytes",
                       JOBSPEC_SCRIPT_MAX);
    if (s->partition[0] && !allow_partition)
        return ms_err (errp, MS_ERR_INPUT,
                       "--partition=%s: metasched chooses the cluster, "
                       "partition and frequency; this site does not allow "
                       "pinning a partition (remove --partition/-p)",
                       s->partition);
    if (s->nodes && s->ntasks && s->ntasks_per_node
        && s->ntasks > s->nodes * s->ntasks_per_node)
        return ms_err (errp, MS_ERR_INPUT,
                       "--ntasks=%d does not fit --nodes=%d with "
                       "--ntasks-per-node=%d",
                       s->ntasks, s->nodes, s->ntasks_per_node);
    if (s->chdir[0] && s->chdir[0] != '/')
        return ms_err (errp, MS_ERR_INPUT,
                       "--chdir=%s: must be an absolute path", s->chdir);
    return 0;
}
