/* sha256.h - the SHA-256 digest of a request body as hex, for binding API
 * credentials to it (auth.h). The digest is OpenSSL libcrypto's (EVP);
 * this is only the hex spelling the credential payload carries. */
#ifndef MS_SHA256_H
#define MS_SHA256_H

#include <stddef.h>

#include "metasched/common/error.h"

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64

/* The digest of data as 64 lower-case hex digits and a NUL. 0, or -1 with
 * errp filled if libcrypto refused (no SHA-256 in its provider). */
int sha256_hex (const void *data, size_t len, char out[SHA256_HEX_LEN + 1],
                ms_error_t *errp);

#endif /* MS_SHA256_H */
