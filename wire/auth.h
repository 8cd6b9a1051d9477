/* auth.h - MUNGE credentials bound to API requests (doc/api.md).
 *
 * The client encodes a credential whose payload is
 *     "metasched/1 METHOD TARGET SHA256HEX(body)"
 * and sends it as "Authorization: MUNGE <cred>". The daemon decodes it with
 * munged, which gives the caller's uid and gid and refuses replays, and
 * checks that the payload matches the request it came with.
 */
#ifndef MS_AUTH_H
#define MS_AUTH_H

#include <stddef.h>
#include <sys/types.h>

#include "metasched/common/error.h"

#define MS_AUTH_SCHEME "MUNGE"
#define MS_AUTH_PAYLOAD_MAX 1200
#define MS_AUTH_DIGEST_LEN 64 /* the body's SHA-256 in hex */

/* The payload text of a request; -1 (MS_ERR_INPUT) if it does not fit. */
int ms_auth_payload (const char *method, const char *target, const void *body,
                     size_t len, char *out, size_t outlen, ms_error_t *errp);

/* Client: a credential for this request, malloc'd in *credp. munge_socket
 * NULL means libmunge's default socket. */
int ms_auth_encode (const char *munge_socket, const char *method,
                    const char *target, const void *body, size_t len,
                    char **credp, ms_error_t *errp);

/* Server, before any of the body is read: decode cred with munged and
 * check that its payload names this method and target; the body's digest
 * it names goes to digest, for ms_auth_check_body once the body is in.
 * Errors as ms_auth_verify's. */
int ms_auth_decode (const char *munge_socket, const char *cred,
                    const char *method, const char *target, uid_t *uidp,
                    gid_t *gidp, char digest[MS_AUTH_DIGEST_LEN + 1],
                    ms_error_t *errp);

/* Server, once the body is in: 0 if it is the one the credential named
 * (ms_auth_decode's digest), else -1 (401). */
int ms_auth_check_body (const char *digest, const void *body, size_t len,
                        ms_error_t *errp);

/* Server: decode cred with munged and check its payload against the
 * request (ms_auth_decode, then ms_auth_check_body). On failure errp has
 * kind MS_ERR_AUTH and http_status 401 and says why (replayed, expired,
 * payload mismatch, munged unreachable: 503). */
int ms_auth_verify (const char *munge_socket, const char *cred,
                    const char *method, const char *target, const void *body,
                    size_t len, uid_t *uidp, gid_t *gidp, ms_error_t *errp);

#endif /* MS_AUTH_H */
