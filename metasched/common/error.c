/* error.c - errors as values that carry their context. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "metasched/common/error.h"

int
ms_verr (ms_error_t *errp, ms_errkind_t kind, const char *fmt, va_list ap)
{
    if (errp) {
        int saved = errp->kind == MS_ERR_SYSTEM ? errp->sys_errno : 0;
        memset (errp, 0, sizeof (*errp));
        errp->kind = kind;
        errp->sys_errno = saved;
        vsnprintf (errp->text, sizeof (errp->text), fmt, ap);
    }
    return -1;
}

int
ms_err (ms_error_t *errp, ms_errkind_t kind, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    ms_verr (errp, kind, fmt, ap);
    va_end (ap);
    return -1;
}

int
ms_err_prefix (ms_error_t *errp, const char *fmt, ...)
{
    char prefix[512];
    size_t plen, olen, cap;
    va_list ap;

    if (!errp)
        return -1;
    va_start (ap, fmt);
    vsnprintf (prefix, sizeof (prefix), fmt, ap);
    va_end (ap);
    cap = sizeof (errp->text) - 1;
    plen = strlen (prefix);
    if (plen + 2 > cap)
        plen = cap - 2;
    olen = strlen (errp->text);
    if (plen + 2 + olen > cap)
        olen = cap - plen - 2;
    memmove (errp->text + plen + 2, errp->text, olen);
    memcpy (errp->text, prefix, plen);
    errp->text[plen] = ':';
    errp->text[plen + 1] = ' ';
    errp->text[plen + 2 + olen] = '\0';
    return -1;
}

void
ms_err_clear (ms_error_t *errp)
{
    if (errp)
        memset (errp, 0, sizeof (*errp));
}

const char *
ms_errkind_name (ms_errkind_t kind)
{
    switch (kind) {
    case MS_ERR_NONE: return "none";
    case MS_ERR_INPUT: return "input";
    case MS_ERR_SYSTEM: return "system";
    case MS_ERR_CONNECT: return "connect";
    case MS_ERR_TIMEOUT: return "timeout";
    case MS_ERR_HTTP: return "http";
    case MS_ERR_PROTOCOL: return "protocol";
    case MS_ERR_REMOTE: return "remote";
    case MS_ERR_DB: return "db";
    case MS_ERR_MISSING: return "missing";
    case MS_ERR_AUTH: return "auth";
    }
    return "unknown";
}
