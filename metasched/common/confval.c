/* confval.c - the values of configuration keys (confval.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metasched/common/confval.h"
#include "metasched/common/util.h"

int
confval_err (const confval_at_t *at, ms_error_t *errp, const char *fmt, ...)
{
    char msg[768];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (!at)
        return ms_err (errp, MS_ERR_INPUT, "%s", msg);
    return ms_err (errp, MS_ERR_INPUT, "%s:%d: %s", at->name, at->line, msg);
}

int
confval_long (const confval_at_t *at, const char *key, const char *val,
              long min, long max, long *out, ms_error_t *errp)
{
    char *end;
    long v;

    errno = 0;
    v = strtol (val, &end, 10);
    if (errno || end == val || *end != '\0')
        return confval_err (at, errp, "%s: '%s' is not an integer", key, val);
    if (v < min || v > max)
        return confval_err (at, errp, "%s: %ld is out of range [%ld, %ld]", key,
                            v, min, max);
    *out = v;
    return 0;
}

/* what: how a refusal names the value ("a number") */
static int
number (const confval_at_t *at, const char *key, const char *val,
        const char *what, double min, double max, double *out, ms_error_t *errp)
{
    char *end;
    double v;

    errno = 0;
    v = strtod (val, &end);
    if (errno || end == val || *end != '\0' || !isfinite (v))
        return confval_err (at, errp, "%s: '%s' is not %s", key, val, what);
    if (v < min || v > max)
        return confval_err (at, errp, "%s: %g is out of range [%g, %g]", key, v,
                            min, max);
    *out = v;
    return 0;
}

int
confval_double (const confval_at_t *at, const char *key, const char *val,
                double min, double max, double *out, ms_error_t *errp)
{
    return number (at, key, val, "a number", min, max, out, errp);
}

int
confval_seconds (const confval_at_t *at, const char *key, const char *val,
                 double min, double max, double *out, ms_error_t *errp)
{
    return number (at, key, val, "a number of seconds", min, max, out, errp);
}

int
confval_bool (const confval_at_t *at, const char *key, const char *val,
              bool *out, ms_error_t *errp)
{
    if (!strcasecmp (val, "yes") || !strcasecmp (val, "true")
        || !strcmp (val, "1") || !strcasecmp (val, "on"))
        *out = true;
    else if (!strcasecmp (val, "no") || !strcasecmp (val, "false")
             || !strcmp (val, "0") || !strcasecmp (val, "off"))
        *out = false;
    else
        return confval_err (at, errp, "%s: '%s' is not a boolean (yes or no)",
                            key, val);
    return 0;
}

int
confval_str (const confval_at_t *at, const char *key, const char *val,
             char *out, size_t size, ms_error_t *errp)
{
    if (strlen (val) >= size)
        return confval_err (at, errp, "%s: longer than %zu bytes", key,
                            size - 1);
    ms_strlcpy (out, val, size);
    return 0;
}

int
confval_path (const confval_at_t *at, const char *key, const char *val,
              char *out, size_t size, ms_error_t *errp)
{
    if (val[0] != '/')
        return confval_err (at, errp, "%s: '%s' must be an absolute path", key,
                            val);
    return confval_str (at, key, val, out, size, errp);
}
