/* tag.c - the keyed tag of a cluster job (see tag.h): the site's key,
 * a tag made at submission, a comment's claim checked at reconciliation.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "metasched/common/util.h"
#include "metasched/daemon/tag.h"

#define PREFIX "metasched:"
#define PREFIX_LEN 10

/* A new key file at path, or nothing when another daemon made one first:
 * the key goes to a temporary file of mode 0600 beside it, which is then
 * linked to path (link fails rather than replace a file that exists). */
static int
key_create (const char *path, bool *createdp, ms_error_t *errp)
{
    unsigned char raw[TAG_KEY_MIN];
    char hex[2 * TAG_KEY_MIN + 2], tmp[PATH_MAX];
    int fd, rc = 0;
    size_t len;

    if (RAND_bytes (raw, sizeof (raw)) != 1)
        return ms_err (errp, MS_ERR_SYSTEM,
                       "%s: no random bytes for a new tag key", path);
    for (size_t i = 0; i < sizeof (raw); i++)
        snprintf (hex + 2 * i, 3, "%02x", raw[i]);
    OPENSSL_cleanse (raw, sizeof (raw));
    len = 2 * sizeof (raw);
    hex[len++] = '\n';
    hex[len] = '\0';
    if ((size_t)snprintf (tmp, sizeof (tmp), "%s.XXXXXX", path)
        >= sizeof (tmp)) {
        OPENSSL_cleanse (hex, sizeof (hex));
        return ms_err (errp, MS_ERR_INPUT, "%s: path too long", path);
    }
    fd = mkstemp (tmp);
    if (fd < 0) {
        OPENSSL_cleanse (hex, sizeof (hex));
        return ms_err (errp, MS_ERR_SYSTEM, "%s: creating the tag key: %s",
                       path, strerror (errno));
    }
    if (fchmod (fd, 0600) < 0 || write (fd, hex, len) != (ssize_t)len
        || fsync (fd) < 0)
        rc = ms_err (errp, MS_ERR_SYSTEM, "%s: writing the tag key: %s", tmp,
                     strerror (errno));
    OPENSSL_cleanse (hex, sizeof (hex));
    if (close (fd) < 0 && rc == 0)
        rc = ms_err (errp, MS_ERR_SYSTEM, "%s: writing the tag key: %s", tmp,
                     strerror (errno));
    if (rc == 0) {
        if (link (tmp, path) == 0) {
            if (createdp)
                *createdp = true;
        } else if (errno != EEXIST)
            rc = ms_err (errp, MS_ERR_SYSTEM, "%s: creating the tag key: %s",
                         path, strerror (errno));
    }
    unlink (tmp);
    return rc;
}

int
tag_key_load (const char *path, bool create, tag_key_t *key, bool *createdp,
              ms_error_t *errp)
{
    struct stat st;
    char *s = NULL;
    size_t len;

    memset (key, 0, sizeof (*key));
    if (createdp)
        *createdp = false;
    if (!path || !*path)
        return ms_err (errp, MS_ERR_INPUT, "tag_key_file: not set");
    if (create && stat (path, &st) < 0 && errno == ENOENT
        && key_create (path, createdp, errp) < 0)
        return -1;
    if (ms_read_secret_file (path, &s, errp) < 0)
        return ms_err_prefix (errp, "tag key");
    len = strlen (s);
    if (len < TAG_KEY_MIN || len > TAG_KEY_MAX) {
        OPENSSL_cleanse (s, len);
        free (s);
        return ms_err (errp, MS_ERR_INPUT,
                       "%s: tag key of %zu bytes; it must have %d to %d "
                       "(the daemon writes %d hexadecimal digits)",
                       path, len, TAG_KEY_MIN, TAG_KEY_MAX, 2 * TAG_KEY_MIN);
    }
    memcpy (key->k, s, len);
    key->len = len;
    OPENSSL_cleanse (s, len);
    free (s);
    return 0;
}

void
tag_key_clear (tag_key_t *key)
{
    OPENSSL_cleanse (key, sizeof (*key));
}

/* The MAC in hex (TAG_MAC_HEX digits and a NUL into out); false when
 * it could not be computed. The message separates its fields by
 * newlines: no cluster name holds one. */
static bool
mac_hex (const tag_key_t *key, int64_t id, const char *cluster, int dispatch,
         int copy, char *out)
{
    char msg[512];
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    int n;

    n = snprintf (msg, sizeof (msg), "metasched tag 1\n%" PRId64 "\n%s\n%d\n%d",
                  id, cluster, dispatch, copy);
    if (n < 0 || (size_t)n >= sizeof (msg))
        n = (int)sizeof (msg) - 1;
    out[0] = '\0';
    if (!HMAC (EVP_sha256 (), key->k, (int)key->len, (unsigned char *)msg,
               (size_t)n, md, &mdlen)
        || mdlen * 2 < TAG_MAC_HEX)
        return false;
    for (int i = 0; i < TAG_MAC_HEX / 2; i++)
        snprintf (out + 2 * i, 3, "%02x", md[i]);
    out[TAG_MAC_HEX] = '\0';
    OPENSSL_cleanse (md, sizeof (md));
    return true;
}

void
tag_make (const tag_key_t *key, int64_t id, const char *cluster, int dispatch,
          int copy, char *buf, size_t size)
{
    char mac[TAG_MAC_HEX + 1];

    if (!mac_hex (key, id, cluster, dispatch, copy, mac))
        mac[0] = '\0'; /* a tag that verifies nowhere */
    snprintf (buf, size, PREFIX "%" PRId64 ":%d.%d:%s", id, dispatch, copy,
              mac);
}

/* Decimal digits without a sign or a leading zero, at most max, into *v;
 * the first character after them in *endp. */
static bool
number (const char *s, const char **endp, int64_t max, int64_t *v)
{
    int64_t x = 0;
    const char *p = s;

    if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (x > (max - (*p - '0')) / 10)
            return false;
        x = x * 10 + (*p - '0');
    }
    *endp = p;
    *v = x;
    return true;
}

tag_check_t
tag_check (const tag_key_t *key, const char *comment, const char *cluster,
           int64_t *idp)
{
    const char *p;
    int64_t id, dispatch, copy;
    char want[TAG_MAC_HEX + 1];
    int diff;

    *idp = 0;
    if (strncmp (comment, PREFIX, PREFIX_LEN))
        return TAG_NONE;
    if (!number (comment + PREFIX_LEN, &p, INT64_MAX, &id) || id == 0)
        return TAG_NONE; /* no id: claims nothing */
    *idp = id;
    if (*p == '\0' || *p == ' ')
        return TAG_NO_MAC;
    if (*p != ':' || !number (p + 1, &p, INT_MAX, &dispatch) || *p != '.'
        || !number (p + 1, &p, INT_MAX, &copy) || *p != ':')
        return TAG_MALFORMED;
    p++;
    for (int i = 0; i < TAG_MAC_HEX; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return TAG_MALFORMED;
    if (p[TAG_MAC_HEX] != '\0' && p[TAG_MAC_HEX] != ' ')
        return TAG_MALFORMED;
    if (key->len == 0)
        return TAG_BAD_MAC;
    if (!mac_hex (key, id, cluster, (int)dispatch, (int)copy, want))
        return TAG_BAD_MAC;
    diff = CRYPTO_memcmp (want, p, TAG_MAC_HEX);
    OPENSSL_cleanse (want, sizeof (want));
    return diff == 0 ? TAG_VALID : TAG_BAD_MAC;
}

const char *
tag_check_why (tag_check_t c)
{
    switch (c) {
    case TAG_NO_MAC:
        return "a tag without a MAC";
    case TAG_MALFORMED:
        return "a malformed tag";
    case TAG_BAD_MAC:
        return "a tag whose MAC does not verify";
    case TAG_VALID:
        return "a valid tag";
    default:
        return "no tag";
    }
}
