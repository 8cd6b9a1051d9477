/* sha256.h - SHA-256 (FIPS 180-4), for binding API credentials to request
 * bodies (auth.h). Small and dependency-free. */
#ifndef MS_SHA256_H
#define MS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64

typedef struct {
    uint32_t h[8];
    uint64_t nbytes;
    uint8_t buf[64];
    size_t nbuf;
} sha256_t;

void sha256_init (sha256_t *c);
void sha256_update (sha256_t *c, const void *data, size_t len);
void sha256_final (sha256_t *c, uint8_t out[SHA256_DIGEST_LEN]);

/* The digest of data as 64 lower-case hex digits and a NUL. */
void sha256_hex (const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);

#endif /* MS_SHA256_H */
