/* resolve.c - the body of an admin's resolution of an unknown job (a job
 * whose end its cluster could not tell: doc/daemon.md, "Jobs missing from
 * a controller"). Every mistake is refused with the field it is in. */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "metasched/api/resolve.h"
#include "metasched/common/util.h"

static int
bad (ms_error_t *errp, char *field, size_t fsize, const char *name,
     const char *msg)
{
    snprintf (field, fsize, "%s", name);
    ms_err (errp, MS_ERR_INPUT, "%s: %s", name, msg);
    if (errp)
        errp->http_status = 400;
    return -1;
}

int
resolve_parse (const char *body, size_t len, resolve_req_t *r, char *field,
               size_t fsize, ms_error_t *errp)
{
    json_error_t je;
    json_t *o, *v;
    const char *key, *s;
    int rc = -1;

    memset (r, 0, sizeof (*r));
    r->exit_code = -1;
    field[0] = '\0';
    o = json_loadb (body ? body : "", len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        ms_err (errp, MS_ERR_INPUT, "malformed JSON at line %d, column %d: %s",
                je.line, je.column, je.text);
        if (errp)
            errp->http_status = 400;
        return -1;
    }
    if (!json_is_object (o)) {
        bad (errp, field, fsize, "body", "expected a JSON object");
        goto out;
    }
    json_object_foreach (o, key, v)
    {
        if (strcmp (key, "state") && strcmp (key, "exit_code")
            && strcmp (key, "reason")) {
            bad (errp, field, fsize, key,
                 "unknown field (state, exit_code, reason)");
            goto out;
        }
    }
    v = json_object_get (o, "state");
    s = json_string_value (v);
    if (!s) {
        bad (errp, field, fsize, "state",
             v ? "expected a string"
               : "missing: completed, failed or cancelled");
        goto out;
    }
    if (strcmp (s, "completed") && strcmp (s, "failed")
        && strcmp (s, "cancelled")) {
        bad (errp, field, fsize, "state",
             "expected one of completed, failed, cancelled");
        goto out;
    }
    ms_strlcpy (r->state, s, sizeof (r->state));
    v = json_object_get (o, "exit_code");
    if (v && !json_is_null (v)) {
        json_int_t n;
        if (!json_is_integer (v) || (n = json_integer_value (v)) < 0
            || n > 255) {
            bad (errp, field, fsize, "exit_code",
                 "expected an integer from 0 to 255");
            goto out;
        }
        r->exit_code = (int)n;
    }
    if (!strcmp (r->state, "completed")) {
        if (r->exit_code > 0) {
            bad (errp, field, fsize, "exit_code",
                 "a completed job exits 0 (resolve it as failed)");
            goto out;
        }
        r->exit_code = 0;
    } else if (!strcmp (r->state, "failed") && r->exit_code == 0) {
        bad (errp, field, fsize, "exit_code",
             "a failed job does not exit 0 (resolve it as completed)");
        goto out;
    }
    v = json_object_get (o, "reason");
    if (v && !json_is_null (v)) {
        if (!(s = json_string_value (v))) {
            bad (errp, field, fsize, "reason", "expected a string");
            goto out;
        }
        if (strlen (s) > RESOLVE_REASON_MAX) {
            bad (errp, field, fsize, "reason", "longer than 1024 bytes");
            goto out;
        }
        for (const char *c = s; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                bad (errp, field, fsize, "reason",
                     "control characters are not allowed");
                goto out;
            }
        ms_strlcpy (r->reason, s, sizeof (r->reason));
    }
    rc = 0;
out:
    json_decref (o);
    return rc;
}
