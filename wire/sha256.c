/* sha256.c - SHA-256 as hex through OpenSSL libcrypto's EVP interface. */
#include "config.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include "wire/sha256.h"

int
sha256_hex (const void *data, size_t len, char out[SHA256_HEX_LEN + 1],
            ms_error_t *errp)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;

    out[0] = '\0';
    if (EVP_Digest (len ? data : "", len, md, &mdlen, EVP_sha256 (), NULL) != 1
        || mdlen != SHA256_DIGEST_LEN) {
        unsigned long e = ERR_get_error ();
        char why[256] = "no reason given";

        if (e)
            ERR_error_string_n (e, why, sizeof (why));
        ERR_clear_error ();
        return ms_err (errp, MS_ERR_SYSTEM, "SHA-256 from libcrypto: %s", why);
    }
    for (unsigned int i = 0; i < mdlen; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 0x0f];
    }
    out[2 * mdlen] = '\0';
    return 0;
}
