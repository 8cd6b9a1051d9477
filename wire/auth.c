/* auth.c - MUNGE credentials bound to API requests (auth.h).
 *
 * munged vouches for the uid and gid of whoever encoded the credential and
 * refuses to decode one twice; the payload ties it to one method, target
 * and body, so a credential seen on the wire cannot be used for another
 * request either.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <munge.h>

#include "wire/auth.h"
#include "wire/sha256.h"

#define PAYLOAD_PREFIX "metasched/1"

static int
token_ok (const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* "metasched/1 METHOD TARGET " into out: the payload without the body's
 * digest. */
static int
payload_head (const char *method, const char *target, char *out, size_t outlen,
              ms_error_t *errp)
{
    int n;

    if (!token_ok (method))
        return ms_err (errp, MS_ERR_INPUT, "bad request method");
    if (!token_ok (target))
        return ms_err (errp, MS_ERR_INPUT,
                       "request target is empty or holds a space or a "
                       "control character");
    n = snprintf (out, outlen, PAYLOAD_PREFIX " %s %s ", method, target);
    if (n < 0 || (size_t)n + SHA256_HEX_LEN >= outlen)
        return ms_err (errp, MS_ERR_INPUT,
                       "request target too long for a credential (%zu bytes)",
                       strlen (target));
    return 0;
}

int
ms_auth_payload (const char *method, const char *target, const void *body,
                 size_t len, char *out, size_t outlen, ms_error_t *errp)
{
    char hex[SHA256_HEX_LEN + 1];

    if (payload_head (method, target, out, outlen, errp) < 0)
        return -1;
    if (sha256_hex (body ? body : "", body ? len : 0, hex, errp) < 0)
        return -1;
    strcat (out, hex);
    return 0;
}

static munge_ctx_t
ctx_new (const char *munge_socket, ms_error_t *errp)
{
    munge_ctx_t ctx = munge_ctx_create ();

    if (!ctx) {
        ms_err (errp, MS_ERR_SYSTEM, "munge: out of memory");
        return NULL;
    }
    if (munge_socket && *munge_socket
        && munge_ctx_set (ctx, MUNGE_OPT_SOCKET, munge_socket)
               != EMUNGE_SUCCESS) {
        ms_err (errp, MS_ERR_INPUT, "munge socket %s: %s", munge_socket,
                munge_ctx_strerror (ctx));
        munge_ctx_destroy (ctx);
        return NULL;
    }
    return ctx;
}

int
ms_auth_encode (const char *munge_socket, const char *method,
                const char *target, const void *body, size_t len, char **credp,
                ms_error_t *errp)
{
    char payload[MS_AUTH_PAYLOAD_MAX];
    munge_ctx_t ctx;
    munge_err_t e;

    if (ms_auth_payload (method, target, body, len, payload, sizeof (payload),
                         errp)
        < 0)
        return -1;
    if (!(ctx = ctx_new (munge_socket, errp)))
        return -1;
    e = munge_encode (credp, ctx, payload, (int)strlen (payload));
    if (e != EMUNGE_SUCCESS) {
        ms_err (errp, e == EMUNGE_SOCKET ? MS_ERR_CONNECT : MS_ERR_AUTH,
                "munge: cannot encode a credential: %s",
                munge_ctx_strerror (ctx) ? munge_ctx_strerror (ctx)
                                         : munge_strerror (e));
        munge_ctx_destroy (ctx);
        return -1;
    }
    munge_ctx_destroy (ctx);
    return 0;
}

/* 401 (or status) saying why; what is the reason's text. */
static int
refuse (ms_error_t *errp, int status, const char *why, const char *what)
{
    ms_err (errp, MS_ERR_AUTH, "%s%s", why, what ? what : "");
    if (errp)
        errp->http_status = status;
    return -1;
}

int
ms_auth_decode (const char *munge_socket, const char *cred, const char *method,
                const char *target, uid_t *uidp, gid_t *gidp,
                char digest[MS_AUTH_DIGEST_LEN + 1], ms_error_t *errp)
{
    char head[MS_AUTH_PAYLOAD_MAX];
    void *buf = NULL;
    int blen = 0, rc;
    size_t hl;
    munge_ctx_t ctx;
    munge_err_t e;
    uid_t uid;
    gid_t gid;

    if (!cred || !*cred)
        return refuse (errp, 401, "", "no credential");
    if (payload_head (method, target, head, sizeof (head), errp) < 0) {
        if (errp)
            errp->http_status = 400;
        return -1;
    }
    if (!(ctx = ctx_new (munge_socket, errp))) {
        if (errp)
            errp->http_status = 503;
        return -1;
    }
    e = munge_decode (cred, ctx, &buf, &blen, &uid, &gid);
    munge_ctx_destroy (ctx);
    switch (e) {
    case EMUNGE_SUCCESS:
        break;
    case EMUNGE_CRED_REPLAYED:
        free (buf);
        return refuse (errp, 401, "", "credential replayed");
    case EMUNGE_CRED_EXPIRED:
        free (buf);
        return refuse (errp, 401, "", "credential expired");
    case EMUNGE_CRED_REWOUND:
        free (buf);
        return refuse (errp, 401, "", "credential from the future (clock)");
    case EMUNGE_SOCKET:
    case EMUNGE_SNAFU:
    case EMUNGE_NO_MEMORY:
        free (buf);
        ms_err (errp, MS_ERR_CONNECT, "munged unreachable: %s",
                munge_strerror (e));
        if (errp)
            errp->http_status = 503;
        return -1;
    default:
        free (buf);
        return refuse (errp, 401, "invalid credential: ", munge_strerror (e));
    }
    /* the payload is the head, then exactly the body's digest in lower
     * case hex */
    hl = strlen (head);
    rc = blen >= 0 && (size_t)blen == hl + MS_AUTH_DIGEST_LEN
         && memcmp (buf, head, hl) == 0;
    for (size_t i = hl; rc && i < (size_t)blen; i++) {
        char ch = ((const char *)buf)[i];
        rc = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
    }
    if (rc) {
        memcpy (digest, (const char *)buf + hl, MS_AUTH_DIGEST_LEN);
        digest[MS_AUTH_DIGEST_LEN] = '\0';
    }
    free (buf);
    if (!rc)
        return refuse (errp, 401, "",
                       "credential does not match this request (method, "
                       "target or body)");
    *uidp = uid;
    *gidp = gid;
    return 0;
}

int
ms_auth_check_body (const char *digest, const void *body, size_t len,
                    ms_error_t *errp)
{
    char hex[SHA256_HEX_LEN + 1];

    if (sha256_hex (body ? body : "", body ? len : 0, hex, errp) < 0) {
        if (errp)
            errp->http_status = 500;
        return -1;
    }
    if (strcmp (hex, digest) != 0)
        return refuse (errp, 401, "",
                       "credential does not match this request (method, "
                       "target or body)");
    return 0;
}

int
ms_auth_verify (const char *munge_socket, const char *cred, const char *method,
                const char *target, const void *body, size_t len, uid_t *uidp,
                gid_t *gidp, ms_error_t *errp)
{
    char digest[MS_AUTH_DIGEST_LEN + 1];
    uid_t uid;
    gid_t gid;

    if (ms_auth_decode (munge_socket, cred, method, target, &uid, &gid, digest,
                        errp)
            < 0
        || ms_auth_check_body (digest, body, len, errp) < 0)
        return -1;
    *uidp = uid;
    *gidp = gid;
    return 0;
}
