/* jobspec_values.c - the value syntax of sbatch's options: times (--time,
 * --time-min, --delay-boot), dates (--begin, --deadline), memory sizes,
 * job arrays, dependencies, and the values of --gres and --gpus*,
 * --mail-type, --signal and --distribution. The option table and apply ()
 * in jobspec.c call them; what they share is in jobspec_int.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_int.h"
#include "metasched/common/util.h"

int
jobspec_parse_mem (const char *s, uint64_t *mib)
{
    uint64_t v = 0;
    const char *p = s;
    int shift = 0;

    if (!isdigit ((unsigned char)*p))
        return -1;
    for (; isdigit ((unsigned char)*p); p++) {
        if (v > (UINT64_MAX >> 21) / 10) /* room for T (<< 20) */
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    switch (*p) {
    case '\0':
        break;
    case 'k': case 'K': shift = -10; break;
    case 'm': case 'M': shift = 0; break;
    case 'g': case 'G': shift = 10; break;
    case 't': case 'T': shift = 20; break;
    default:
        return -1;
    }
    if (*p) {
        p++;
        if (*p == 'b' || *p == 'B')
            p++;
        if (*p)
            return -1;
    }
    *mib = shift < 0 ? (v + 1023) >> 10 : v << shift;
    return 0;
}

/* A decimal number at *pp (at most max); *pp moves past it. */
bool
jobspec_read_u32 (const char **pp, uint32_t max, uint32_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;

    if (!isdigit ((unsigned char)*p))
        return false;
    for (; isdigit ((unsigned char)*p); p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > max)
            return false;
    }
    *out = (uint32_t)v;
    *pp = p;
    return true;
}

int
jobspec_parse_array (const char *s, ms_array_t *out, ms_error_t *errp)
{
    const char *p = s;
    uint64_t ntasks = 0;

    memset (out, 0, sizeof (*out));
    if (!*s)
        return 0; /* empty: sbatch keeps "" (no array) */
    for (;;) {
        ms_array_range_t r = { 0, 0, 1 };

        if (out->nranges == JOBSPEC_MAX_ARRAY_RANGES)
            return ms_err (errp, MS_ERR_INPUT, "more than %d ranges",
                           JOBSPEC_MAX_ARRAY_RANGES);
        if (!jobspec_read_u32 (&p, JOBSPEC_ARRAY_MAX_INDEX, &r.first))
            return ms_err (errp, MS_ERR_INPUT,
                           "expected an index from 0 to %d at '%.32s'",
                           JOBSPEC_ARRAY_MAX_INDEX, p);
        r.last = r.first;
        if (*p == '-') {
            p++;
            if (!jobspec_read_u32 (&p, JOBSPEC_ARRAY_MAX_INDEX, &r.last))
                return ms_err (errp, MS_ERR_INPUT,
                               "expected the last index (0 to %d) at '%.32s'",
                               JOBSPEC_ARRAY_MAX_INDEX, p);
            if (r.last < r.first)
                return ms_err (errp, MS_ERR_INPUT,
                               "the range %u-%u ends before it starts",
                               r.first, r.last);
            if (*p == ':') {
                p++;
                if (!jobspec_read_u32 (&p, JOBSPEC_ARRAY_MAX_INDEX, &r.step)
                    || r.step == 0)
                    return ms_err (errp, MS_ERR_INPUT,
                                   "expected a step of at least 1 at '%.32s'",
                                   p);
            }
        }
        out->r[out->nranges++] = r;
        ntasks += (r.last - r.first) / r.step + 1;
        {
            uint32_t top = r.last - (r.last - r.first) % r.step;
            if (top > out->max_index)
                out->max_index = top;
        }
        if (*p == ',') {
            p++;
            continue;
        }
        break;
    }
    if (*p == '%') {
        p++;
        if (!jobspec_read_u32 (&p, JOBSPEC_ARRAY_MAX_INDEX, &out->max_running)
            || out->max_running == 0)
            return ms_err (errp, MS_ERR_INPUT,
                           "expected %%N with N at least 1 at '%.32s'", p - 1);
    }
    if (*p)
        return ms_err (errp, MS_ERR_INPUT, "unexpected '%.32s'", p);
    if (ntasks > JOBSPEC_ARRAY_MAX_INDEX)
        return ms_err (errp, MS_ERR_INPUT, "more than %d tasks",
                       JOBSPEC_ARRAY_MAX_INDEX);
    out->ntasks = (uint32_t)ntasks;
    return 0;
}

static const struct {
    const char *name;
    ms_dep_type_t type;
} dep_types[] = {
    { "after", JOBSPEC_DEP_AFTER },
    { "afterany", JOBSPEC_DEP_AFTERANY },
    { "afterok", JOBSPEC_DEP_AFTEROK },
    { "afternotok", JOBSPEC_DEP_AFTERNOTOK },
    { "aftercorr", JOBSPEC_DEP_AFTERCORR },
    { "afterburstbuffer", JOBSPEC_DEP_AFTERBURSTBUFFER },
    { "singleton", JOBSPEC_DEP_SINGLETON },
};

const char *
jobspec_dep_name (ms_dep_type_t t)
{
    for (size_t i = 0; i < sizeof (dep_types) / sizeof (dep_types[0]); i++)
        if (dep_types[i].type == t)
            return dep_types[i].name;
    return "?";
}

int
jobspec_parse_dependency (const char *s, ms_deps_t *out, ms_error_t *errp)
{
    const char *p = s;
    char sep = 0;

    memset (out, 0, sizeof (*out));
    while (*p) {
        size_t n = strcspn (p, ":,?");
        ms_dep_type_t type = 0;

        for (size_t i = 0; i < sizeof (dep_types) / sizeof (dep_types[0]); i++)
            if (strlen (dep_types[i].name) == n
                && !strncasecmp (p, dep_types[i].name, n))
                type = dep_types[i].type;
        if (!type)
            return ms_err (errp, MS_ERR_INPUT,
                           "'%.*s' is not after, afterany, afterok, "
                           "afternotok, aftercorr, afterburstbuffer or "
                           "singleton",
                           (int)(n > 32 ? 32 : n), p);
        p += n;
        if (type == JOBSPEC_DEP_SINGLETON) {
            if (out->n == JOBSPEC_MAX_DEPS)
                return ms_err (errp, MS_ERR_INPUT, "more than %d conditions",
                               JOBSPEC_MAX_DEPS);
            out->d[out->n++] = (ms_dep_t){ type, 0, 0 };
        } else {
            if (*p != ':')
                return ms_err (errp, MS_ERR_INPUT,
                               "%s needs job ids (%s:ID[:ID...])",
                               jobspec_dep_name (type),
                               jobspec_dep_name (type));
            while (*p == ':') {
                ms_dep_t d = { type, 0, 0 };
                char *end;
                unsigned long long id;

                p++;
                errno = 0;
                id = strtoull (p, &end, 10);
                if (!isdigit ((unsigned char)*p) || errno || id == 0
                    || id > INT64_MAX)
                    return ms_err (errp, MS_ERR_INPUT,
                                   "expected a job id at '%.32s'", p);
                if (*end == '_')
                    return ms_err (errp, MS_ERR_INPUT,
                                   "'%.32s': a task of an array is not a "
                                   "meta job; name the array's job id",
                                   p);
                d.job_id = id;
                p = end;
                if (*p == '+') {
                    uint32_t delay;
                    p++;
                    if (type != JOBSPEC_DEP_AFTER
                        || !jobspec_read_u32 (&p, 525600, &delay))
                        return ms_err (errp, MS_ERR_INPUT,
                                       "+MINUTES is for after:ID only, a "
                                       "number of minutes (at most a year)");
                    d.delay_min = delay;
                }
                if (out->n == JOBSPEC_MAX_DEPS)
                    return ms_err (errp, MS_ERR_INPUT,
                                   "more than %d conditions",
                                   JOBSPEC_MAX_DEPS);
                out->d[out->n++] = d;
            }
        }
        if (!*p)
            break;
        if (*p != ',' && *p != '?')
            return ms_err (errp, MS_ERR_INPUT, "unexpected '%.32s'", p);
        if (sep && *p != sep)
            return ms_err (errp, MS_ERR_INPUT,
                           "',' (all of) and '?' (any of) are not mixed");
        sep = *p++;
        if (!*p)
            return ms_err (errp, MS_ERR_INPUT, "a condition must follow '%c'",
                           sep);
    }
    if (out->n == 0)
        return ms_err (errp, MS_ERR_INPUT, "empty");
    out->any = sep == '?';
    return 0;
}

/* A name of gres or GPU type: letters, digits, '_', '-', '.' */
static bool
gres_word (const char *s, size_t n)
{
    if (n == 0 || n >= 32)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum ((unsigned char)s[i]) && !strchr ("_-.", s[i]))
            return false;
    return true;
}

/* A count with sbatch's suffixes k, m, g (x1024) at *pp. */
static bool
read_gres_count (const char **pp, uint32_t *out)
{
    uint32_t v;
    uint64_t mult = 1;
    const char *p = *pp;

    if (!jobspec_read_u32 (&p, 1000000000, &v))
        return false;
    if (*p && strchr ("kKmMgG", *p)) {
        mult = *p == 'k' || *p == 'K' ? 1024 : *p == 'm' || *p == 'M'
                                                   ? 1024 * 1024
                                                   : 1024 * 1024 * 1024;
        p++;
    }
    if ((uint64_t)v * mult > UINT32_MAX)
        return false;
    *out = (uint32_t)((uint64_t)v * mult);
    *pp = p;
    return true;
}

/* [type:]count: the --gpus* options. */
int
jobspec_parse_tres (const char *val, ms_tres_req_t *t)
{
    const char *colon = strchr (val, ':');
    const char *p;

    memset (t, 0, sizeof (*t));
    ms_strlcpy (t->name, "gpu", sizeof (t->name));
    if (colon) {
        if (!gres_word (val, (size_t)(colon - val)))
            return -1;
        memcpy (t->type, val, (size_t)(colon - val));
        t->type[colon - val] = '\0';
        p = colon + 1;
    } else
        p = val;
    if (!read_gres_count (&p, &t->count) || *p || t->count == 0)
        return -1;
    return 0;
}

/* --gres=name[[:type]:count][,...] or "none". */
int
jobspec_parse_gres (ms_jobspec_t *s, const char *where, const char *val,
                    ms_error_t *errp)
{
    const char *p = val;

    s->ngres = 0;
    if (!strcasecmp (val, "none"))
        return 0;
    while (*p) {
        size_t n = strcspn (p, ",");
        const char *end = p + n, *w[3];
        size_t wl[3];
        int nw = 0;
        ms_tres_req_t t;

        memset (&t, 0, sizeof (t));
        if (!strncmp (p, "gres/", 5)) /* the TRES spelling */
            p += 5;
        while (p <= end && nw < 3) {
            size_t k = strcspn (p, ":,");
            if (p + k > end)
                k = (size_t)(end - p);
            w[nw] = p;
            wl[nw++] = k;
            p += k;
            if (*p != ':' || p >= end)
                break;
            p++;
        }
        if (p < end || nw == 0 || !gres_word (w[0], wl[0]))
            goto bad;
        memcpy (t.name, w[0], wl[0]);
        t.count = 1;
        if (nw >= 2) {
            const char *c = w[nw - 1];
            bool last_is_count = isdigit ((unsigned char)c[0]);
            if (last_is_count) {
                if (!read_gres_count (&c, &t.count) || c != w[nw - 1] + wl[nw - 1]
                    || t.count == 0)
                    goto bad;
            }
            if (nw == 3 && !last_is_count)
                goto bad;
            if ((nw == 3) || (nw == 2 && !last_is_count)) {
                if (!gres_word (w[1], wl[1]))
                    goto bad;
                memcpy (t.type, w[1], wl[1]);
            }
        }
        if (s->ngres == JOBSPEC_MAX_GRES)
            return ms_err (errp, MS_ERR_INPUT, "%s--gres: more than %d kinds",
                           where, JOBSPEC_MAX_GRES);
        s->gres_list[s->ngres++] = t;
        p = end;
        if (*p == ',')
            p++;
        continue;
    bad:
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--gres=%s: expected NAME[[:TYPE]:COUNT][,...] "
                       "(e.g. gpu:a100:2)",
                       where, val);
    }
    return 0;
}

static const struct {
    const char *name;
    unsigned flag;
} mail_types[] = {
    { "NONE", 0 },
    { "BEGIN", JOBSPEC_MAIL_BEGIN },
    { "END", JOBSPEC_MAIL_END },
    { "FAIL", JOBSPEC_MAIL_FAIL },
    { "REQUEUE", JOBSPEC_MAIL_REQUEUE },
    { "ALL", JOBSPEC_MAIL_ALL },
    { "INVALID_DEPEND", JOBSPEC_MAIL_INVALID_DEPEND },
    { "STAGE_OUT", JOBSPEC_MAIL_STAGE_OUT },
    { "TIME_LIMIT", JOBSPEC_MAIL_TIME_LIMIT },
    { "TIME_LIMIT_90", JOBSPEC_MAIL_TIME_LIMIT_90 },
    { "TIME_LIMIT_80", JOBSPEC_MAIL_TIME_LIMIT_80 },
    { "TIME_LIMIT_50", JOBSPEC_MAIL_TIME_LIMIT_50 },
    { "ARRAY_TASKS", JOBSPEC_MAIL_ARRAY_TASKS },
};

/* Slurm's parse_mail_type: words in any case, "," between; a word it does
 * not know is passed over where another is known, NONE ends the list (the
 * words before it count for nothing). A repeated --mail-type adds to the
 * one before (arg_set_mail_type). mail_type keeps the words in the order
 * given, in upper case. */
int
jobspec_parse_mail_type (ms_jobspec_t *s, const char *where, const char *val,
                         ms_error_t *errp)
{
    const char *p = val;
    unsigned flags = 0;
    bool known = false;
    char out[sizeof (s->mail_type)] = "";

    while (*p) {
        size_t n = strcspn (p, ","), k;
        for (k = 0; k < sizeof (mail_types) / sizeof (mail_types[0]); k++)
            if (strlen (mail_types[k].name) == n
                && !strncasecmp (p, mail_types[k].name, n))
                break;
        if (k < sizeof (mail_types) / sizeof (mail_types[0])) {
            known = true;
            if (mail_types[k].flag == 0) {
                flags = 0;
                out[0] = '\0';
                break;
            }
            if ((flags & mail_types[k].flag) != mail_types[k].flag) {
                size_t used = strlen (out);
                snprintf (out + used, sizeof (out) - used, "%s%s",
                          used ? "," : "", mail_types[k].name);
            }
            flags |= mail_types[k].flag;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (!known)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--mail-type=%.64s: expected NONE, BEGIN, END, "
                       "FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT, "
                       "TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, "
                       "TIME_LIMIT_50 or ARRAY_TASKS, \",\" between",
                       where, val);
    if (s->mail_flags && flags) {
        /* added to the one before */
        char all[sizeof (s->mail_type)];
        size_t n1 = strlen (s->mail_type), n2 = strlen (out);
        if (n1 + n2 + 2 > sizeof (all))
            return ms_err (errp, MS_ERR_INPUT, "%s--mail-type: too long",
                           where);
        memcpy (all, s->mail_type, n1);
        all[n1] = ',';
        memcpy (all + n1 + 1, out, n2 + 1);
        ms_strlcpy (out, all, sizeof (out));
    } else if (s->mail_flags)
        ms_strlcpy (out, s->mail_type, sizeof (out));
    s->mail_flags |= flags;
    ms_strlcpy (s->mail_type, s->mail_flags ? out : "NONE",
                sizeof (s->mail_type));
    return 0;
}

static const struct {
    const char *name;
    int num;
} signals[] = {
    { "HUP", SIGHUP },   { "INT", SIGINT },   { "QUIT", SIGQUIT },
    { "ABRT", SIGABRT }, { "KILL", SIGKILL }, { "ALRM", SIGALRM },
    { "TERM", SIGTERM }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
    { "URG", SIGURG },   { "CONT", SIGCONT }, { "STOP", SIGSTOP },
    { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
    { "XCPU", SIGXCPU },
};

/* [{R|B}:]SIG[@TIME] as Slurm's get_signal_opts reads it: R, then B, then
 * R again (any case), an optional ':', a signal by number (1 to 65535) or
 * name (SIG before it or not, any case, blanks after it), then @SECONDS
 * (0 to 65535; default 60). */
int
jobspec_parse_signal (ms_jobspec_t *s, const char *where, const char *val,
                      ms_error_t *errp)
{
    const char *p = val, *at;
    char flags[4] = "", name[32];
    long num = 0, secs = 60;
    size_t nf = 0, n;
    char *end;

    if (*p == 'R' || *p == 'r')
        flags[nf++] = 'R', p++;
    if (*p == 'B' || *p == 'b')
        flags[nf++] = 'B', p++;
    if ((*p == 'R' || *p == 'r') && !strchr (flags, 'R'))
        flags[nf++] = 'R', p++;
    if (*p == ':')
        p++;
    at = strchr (p, '@');
    n = at ? (size_t)(at - p) : strlen (p);
    if (n == 0 || n >= sizeof (name))
        goto bad;
    memcpy (name, p, n);
    name[n] = '\0';
    errno = 0;
    num = strtol (name, &end, 10);
    if (end != name) {
        while (isspace ((unsigned char)*end))
            end++;
        if (*end || errno)
            goto bad;
    } else {
        const char *q = name;
        num = 0;
        while (isspace ((unsigned char)*q))
            q++;
        if (!strncasecmp (q, "SIG", 3))
            q += 3;
        for (size_t k = 0; k < sizeof (signals) / sizeof (signals[0]); k++) {
            size_t l = strlen (signals[k].name);
            const char *r = q + l;
            if (strncasecmp (q, signals[k].name, l))
                continue;
            while (isspace ((unsigned char)*r))
                r++;
            if (!*r) {
                num = signals[k].num;
                break;
            }
        }
    }
    if (num < 1 || num > 0xffff)
        goto bad;
    if (at) {
        errno = 0;
        secs = strtol (at + 1, &end, 10);
        if (errno || secs < 0 || secs > 0xffff || *end)
            goto bad;
    }
    ms_strlcpy (s->signal, val, sizeof (s->signal));
    s->signal_num = (int)num;
    s->signal_time = (int)secs;
    ms_strlcpy (s->signal_flags, flags, sizeof (s->signal_flags));
    return 0;
bad:
    return ms_err (errp, MS_ERR_INPUT,
                   "%s--signal=%.64s: expected [{R|B}:]SIGNAL[@SECONDS] "
                   "(e.g. B:USR1@300)",
                   where, val);
}

/* A word of a list of choices, case-insensitive; -1 if none. */
int
jobspec_choice (const char *val, size_t n, const char *const *words)
{
    for (int k = 0; words[k]; k++)
        if (strlen (words[k]) == n && !strncasecmp (val, words[k], n))
            return k;
    return -1;
}

/* {*|block|cyclic|arbitrary|plane=N}[:{*|block|cyclic|fcyclic}[:...]]
 * [,Pack|NoPack] */
bool
jobspec_valid_distribution (const char *val)
{
    static const char *const first[]
        = { "*", "block", "cyclic", "arbitrary", NULL };
    static const char *const rest[] = { "*", "block", "cyclic", "fcyclic",
                                        NULL };
    static const char *const pack[] = { "Pack", "NoPack", NULL };
    const char *p = val;
    size_t n = strcspn (p, ":,");
    int level = 0;

    if (!strncasecmp (p, "plane=", 6)) {
        uint32_t size;
        const char *q = p + 6;
        if (!jobspec_read_u32 (&q, 1 << 20, &size) || size == 0
            || (*q && !strchr (":,", *q)))
            return false;
        n = (size_t)(q - p);
    } else if (jobspec_choice (p, n, first) < 0)
        return false;
    p += n;
    while (*p == ':' && level < 2) {
        p++;
        n = strcspn (p, ":,");
        if (jobspec_choice (p, n, rest) < 0)
            return false;
        p += n;
        level++;
    }
    if (*p == ',') {
        p++;
        if (jobspec_choice (p, strlen (p), pack) < 0)
            return false;
        return true;
    }
    return *p == '\0';
}

/* ---- times ---- */
int
jobspec_parse_time (const char *s, uint32_t *minutes)
{
    unsigned long v[4];
    int n = 0, days = 0;
    const char *p = s;
    unsigned long long secs;

    /* time_str2mins: -1, INFINITE and UNLIMITED in any case */
    if (!strcasecmp (s, "UNLIMITED") || !strcasecmp (s, "INFINITE")
        || !strcmp (s, "-1")) {
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

/* An optional AM or PM after a clock (12-hour: 1..12). */
static bool
read_ampm (const char **pp, int *h)
{
    const char *p = *pp;

    while (*p == ' ')
        p++;
    if (!strncasecmp (p, "AM", 2) || !strncasecmp (p, "PM", 2)) {
        if (*h < 1 || *h > 12)
            return false;
        *h = *h % 12 + (toupper ((unsigned char)*p) == 'P' ? 12 : 0);
        *pp = p + 2;
    }
    return true;
}

/* MM/DD[/YY][-HH:MM[:SS]], MM.DD[.YY], MMDD[YY]: a date of this year (or
 * the next, when already past and no year is given). */
static int
parse_month_day (const char *p, time_t now, int64_t *out)
{
    int mo, d, y = -1, h = 0, m = 0, sec = 0;
    struct tm tm;
    int64_t t;

    if (isdigit ((unsigned char)p[2])) { /* MMDD[YY] */
        size_t nd = strspn (p, "0123456789");
        if ((nd != 4 && nd != 6) || !read_digits (&p, 2, 6, &d))
            return -1;
        if (d >= 10000) {
            y = d % 100;
            d /= 100;
        }
        mo = d / 100;
        d %= 100;
    } else {
        char sep;

        if (!read_digits (&p, 1, 2, &mo) || (*p != '/' && *p != '.'))
            return -1;
        sep = *p++;
        if (!read_digits (&p, 1, 2, &d))
            return -1;
        if (*p == sep) {
            p++;
            if (!read_digits (&p, 2, 2, &y))
                return -1;
        }
        if (*p == '-' && sep == '/') {
            p++;
            if (!read_clock (&p, &h, &m, &sec))
                return -1;
        }
    }
    if (*p || mo < 1 || mo > 12 || d < 1 || d > 31)
        return -1;
    localtime_r (&now, &tm);
    tm.tm_year = y >= 0 ? 100 + y : tm.tm_year;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    t = (int64_t)mktime (&tm);
    if (t < now && y < 0) {
        tm.tm_year++;
        tm.tm_isdst = -1;
        t = (int64_t)mktime (&tm);
    }
    *out = t;
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
            int sign = *p == '-' ? -1 : 1;

            if ((*p != '+' && *p != '-') || !isdigit ((unsigned char)p[1]))
                return -1;
            p++;
            for (; isdigit ((unsigned char)*p); p++)
                if (n <= INT64_MAX / 100) /* else far too large already */
                    n = n * 10 + (*p - '0');
            if (!(unit = begin_unit (p)))
                return -1;
            if (n > JOBSPEC_BEGIN_AHEAD_MAX / unit)
                return -2;
            t += sign * n * unit; /* now-N: already past, at once */
            if (t < now)
                t = now;
        }
    } else if (!strcasecmp (s, "today"))
        t = local_at (now, 0, 0, 0, 0);
    else if (!strcasecmp (s, "tomorrow") || !strcasecmp (s, "midnight"))
        t = local_at (now, 1, 0, 0, 0);
    else if (!strcasecmp (s, "noon")) {
        t = local_at (now, 0, 12, 0, 0);
        if (t < now)
            t = local_at (now, 1, 12, 0, 0);
    } else if (!strcasecmp (s, "elevenses") || !strcasecmp (s, "fika")
               || !strcasecmp (s, "teatime")) {
        int h = s[0] == 'e' || s[0] == 'E' ? 11 : s[0] == 'f' || s[0] == 'F'
                                                        ? 15
                                                        : 16;
        t = local_at (now, 0, h, 0, 0);
        if (t < now)
            t = local_at (now, 1, h, 0, 0);
    } else if (isdigit ((unsigned char)s[0]) && strlen (s) >= 10
               && s[4] == '-') {
        if (parse_date (s, &t) < 0)
            return -1;
    } else if (isdigit ((unsigned char)s[0])
               && (strchr (s, '/') || (strchr (s, '.') && !strchr (s, ':'))
                   || !strchr (s, ':'))) {
        if (parse_month_day (s, now, &t) < 0)
            return -1;
    } else {
        const char *p = s;
        int h, m, sec;

        if (!read_clock (&p, &h, &m, &sec) || !read_ampm (&p, &h) || *p)
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

/* ---- --cpu-freq (Slurm's cpu_freq_verify_cmdline) ---- */

/* A governor by the first letters Slurm looks at (_cpu_freq_check_gov). */
static jobspec_gov_t
cpu_gov (const char *w)
{
    if (!strncasecmp (w, "co", 2))
        return JOBSPEC_GOV_CONSERVATIVE;
    if (!strncasecmp (w, "perf", 4))
        return JOBSPEC_GOV_PERFORMANCE;
    if (!strncasecmp (w, "pow", 3))
        return JOBSPEC_GOV_POWERSAVE;
    if (!strncasecmp (w, "user", 4))
        return JOBSPEC_GOV_USERSPACE;
    if (!strncasecmp (w, "onde", 4))
        return JOBSPEC_GOV_ONDEMAND;
    if (!strncasecmp (w, "sche", 4))
        return JOBSPEC_GOV_SCHEDUTIL;
    return JOBSPEC_GOV_NONE;
}

/* A frequency by name or kHz (_cpu_freq_check_freq): lo..., him1 or
 * highm1..., hi..., med..., else a number in kHz (22.05 reads its leading
 * digits and passes over what follows, 26.05 wants nothing after them:
 * what either takes is taken); 0 when none. */
static uint32_t
cpu_freq_word (const char *w)
{
    char *end;
    unsigned long v;

    if (!strncasecmp (w, "lo", 2))
        return JOBSPEC_FREQ_LOW;
    if (!strncasecmp (w, "him1", 4) || !strncasecmp (w, "highm1", 6))
        return JOBSPEC_FREQ_HIGHM1;
    if (!strncasecmp (w, "hi", 2))
        return JOBSPEC_FREQ_HIGH;
    if (!strncasecmp (w, "med", 3))
        return JOBSPEC_FREQ_MEDIUM;
    if (!isdigit ((unsigned char)*w))
        return 0;
    errno = 0;
    v = strtoul (w, &end, 10);
    if (errno || v == 0 || v >= JOBSPEC_FREQ_LOW)
        return 0;
    return (uint32_t)v;
}

int
jobspec_parse_cpu_freq (const char *val, ms_cpufreq_t *out, ms_error_t *errp)
{
    char p1[64], p2[64], p3[64];
    const char *colon = strchr (val, ':'), *dash = strchr (val, '-');
    size_t n1;

    memset (out, 0, sizeof (*out));
    if (strlen (val) >= sizeof (p1))
        return ms_err (errp, MS_ERR_INPUT, "longer than %zu bytes",
                       sizeof (p1) - 1);
    if (dash && colon && dash > colon)
        dash = NULL; /* a '-' after the governor's ':' is the governor's */
    n1 = dash ? (size_t)(dash - val)
              : colon ? (size_t)(colon - val) : strlen (val);
    memcpy (p1, val, n1);
    p1[n1] = '\0';
    p2[0] = p3[0] = '\0';
    if (dash) {
        size_t n2 = colon ? (size_t)(colon - dash - 1) : strlen (dash + 1);
        memcpy (p2, dash + 1, n2);
        p2[n2] = '\0';
    }
    if (colon)
        ms_strlcpy (p3, colon + 1, sizeof (p3));
    if ((out->gov = cpu_gov (p1)) != JOBSPEC_GOV_NONE) {
        if (colon)
            return ms_err (errp, MS_ERR_INPUT,
                           "a governor given twice (%s and %s)", p1, p3);
        if (dash)
            return ms_err (errp, MS_ERR_INPUT,
                           "a governor is no frequency range (expected "
                           "MIN-MAX[:GOVERNOR] or GOVERNOR)");
        return 0;
    }
    if (!(out->max = cpu_freq_word (p1)))
        return ms_err (errp, MS_ERR_INPUT,
                       "'%s' is no frequency (expected low, medium, high, "
                       "highm1, a number in kHz or a governor: "
                       "Conservative, OnDemand, Performance, PowerSave, "
                       "SchedUtil, UserSpace)",
                       p1);
    if (dash) {
        uint32_t hi = cpu_freq_word (p2);
        if (!hi)
            return ms_err (errp, MS_ERR_INPUT,
                           "'%s' is no frequency (expected low, medium, "
                           "high, highm1 or a number in kHz)",
                           p2);
        out->min = out->max;
        out->max = hi;
        if (out->max < out->min)
            return ms_err (errp, MS_ERR_INPUT,
                           "the lowest frequency (%s) must be below the "
                           "highest (%s)",
                           p1, p2);
    }
    if (colon) {
        out->gov = cpu_gov (p3);
        if (out->gov == JOBSPEC_GOV_NONE)
            return ms_err (errp, MS_ERR_INPUT,
                           "'%s' is no governor (Conservative, OnDemand, "
                           "Performance, PowerSave, SchedUtil, UserSpace)",
                           p3);
        /* 22.05 takes a governor after a range only; 26.05 after one
         * frequency only UserSpace, after a range any other */
        if (!dash && out->gov != JOBSPEC_GOV_USERSPACE)
            return ms_err (errp, MS_ERR_INPUT,
                           "a governor other than UserSpace needs a range "
                           "MIN-MAX before it");
    }
    return 0;
}

/* Slurm's _cpu_freq_freqspec_num on a partition's list */
static uint32_t
freq_pick_one (uint32_t want, const uint32_t *f, size_t n)
{
    switch (want) {
    case JOBSPEC_FREQ_LOW:
        return f[0];
    case JOBSPEC_FREQ_MEDIUM:
        return f[(n - 1) / 2];
    case JOBSPEC_FREQ_HIGHM1:
        return f[n > 1 ? n - 2 : 0];
    case JOBSPEC_FREQ_HIGH:
        return f[n - 1];
    }
    if (want <= f[0])
        return f[0];
    for (size_t i = 0; i < n; i++)
        if (f[i] >= want)
            return f[i]; /* equal, or the next above */
    return f[n - 1];
}

bool
jobspec_cpu_freq_pick (const ms_cpufreq_t *c, const uint32_t *freqs, size_t n,
                       uint32_t *lo, uint32_t *hi)
{
    if (n == 0)
        return false;
    if (c->max) {
        *hi = freq_pick_one (c->max, freqs, n);
        *lo = c->min ? freq_pick_one (c->min, freqs, n) : *hi;
        return true;
    }
    if (c->gov == JOBSPEC_GOV_PERFORMANCE) {
        *lo = *hi = freqs[n - 1];
        return true;
    }
    if (c->gov == JOBSPEC_GOV_POWERSAVE) {
        *lo = *hi = freqs[0];
        return true;
    }
    return false;
}

int
jobspec_resolve_chdir (ms_jobspec_t *s, const char *cwd, ms_error_t *errp)
{
    char full[sizeof (s->chdir)];

    if (!s->chdir[0] || s->chdir[0] == '/')
        return 0;
    if (!cwd || cwd[0] != '/')
        return ms_err (errp, MS_ERR_INPUT,
                       "--chdir=%s: a relative path, and no submission "
                       "directory to take it from",
                       s->chdir);
    /* make_full_path: "cwd/DIR" as it stands */
    if ((size_t)snprintf (full, sizeof (full), "%s/%s", cwd, s->chdir)
        >= sizeof (full))
        return ms_err (errp, MS_ERR_INPUT,
                       "--chdir=%s: longer than %zu bytes from %s", s->chdir,
                       sizeof (full) - 1, cwd);
    ms_strlcpy (s->chdir, full, sizeof (s->chdir));
    return 0;
}

/* ---- --propagate ------------------------------------------------------------ */

static const char *const rlimit_names[] = {
    "CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE",
    "MEMLOCK", "AS", NULL,
};

const char *
jobspec_rlimit_name (size_t i)
{
    return i < sizeof (rlimit_names) / sizeof (rlimit_names[0])
               ? rlimit_names[i]
               : NULL;
}

int
jobspec_parse_propagate (const char *val, unsigned *maskp, ms_error_t *errp)
{
    unsigned mask = 0;
    const char *p = val;

    /* parse_rlimits: NONE and ALL whole, else tokens of ", \t\n", each
     * RLIMIT_NAME or NAME, compared with case */
    if (!strcmp (val, "NONE")) {
        *maskp = 0;
        return 0;
    }
    if (!strcmp (val, "ALL")) {
        *maskp = (1u << 10) - 1;
        return 0;
    }
    while (*p) {
        size_t n, i;
        p += strspn (p, ", \t\n");
        n = strcspn (p, ", \t\n");
        if (!n)
            break;
        if (n > 7 && !strncmp (p, "RLIMIT_", 7)) {
            p += 7;
            n -= 7;
        }
        for (i = 0; rlimit_names[i]; i++)
            if (strlen (rlimit_names[i]) == n && !strncmp (p, rlimit_names[i], n))
                break;
        if (!rlimit_names[i])
            return ms_err (errp, MS_ERR_INPUT,
                           "bad rlimit name '%.*s' (expected ALL, NONE or "
                           "names of CPU, FSIZE, DATA, STACK, CORE, RSS, "
                           "NPROC, NOFILE, MEMLOCK, AS)",
                           (int)(n > 32 ? 32 : n), p);
        mask |= 1u << i;
        p += n;
    }
    *maskp = mask; /* none named: none, as sbatch */
    return 0;
}
