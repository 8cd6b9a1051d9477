/* tag.h - the tag that ties a cluster job to its meta job (doc/daemon.md,
 * "The tag"): the comment
 *
 *   metasched:<id>:<dispatch>.<copy>:<mac>
 *
 * where mac is the first TAG_MAC_HEX hexadecimal digits of HMAC-SHA256,
 * keyed with the site's tag key (metaschedd.conf tag_key_file), over the
 * meta job's id, the cluster's name, the dispatch number and the copy
 * number. Nobody without the key can write a tag that verifies, and a tag
 * copied from one cluster job verifies nowhere else than on its cluster.
 * The user's own --comment may follow the tag after a space.
 */
#ifndef MS_TAG_H
#define MS_TAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"

#define TAG_KEY_MIN 32   /* bytes of a key file, at least */
#define TAG_KEY_MAX 1024 /* and at most */
#define TAG_MAC_HEX 32   /* 128 bits of the HMAC */
#define TAG_MAX 96       /* a tag's length, with its NUL */

typedef struct {
    unsigned char k[TAG_KEY_MAX];
    size_t len;
} tag_key_t;

/* What a comment claims and whether it proves it. */
typedef enum {
    TAG_NONE = 0,  /* no claim: not a metasched: comment */
    TAG_VALID,     /* the MAC verifies on this cluster */
    TAG_NO_MAC,    /* metasched:<id> alone (an older metaschedd's form) */
    TAG_MALFORMED, /* metasched:<id> followed by something else */
    TAG_BAD_MAC    /* well formed, the MAC does not verify */
} tag_check_t;

/* The key from path; when the file does not exist and create is true, a
 * new one (TAG_KEY_MIN random bytes, written as hexadecimal digits, mode
 * 0600) is made first, atomically: daemons starting together all read
 * the one that won. The file must be a secret file (0600, regular) of
 * TAG_KEY_MIN to TAG_KEY_MAX bytes; errors name the file. *createdp (may
 * be NULL) tells whether this call made it. */
int tag_key_load (const char *path, bool create, tag_key_t *key, bool *createdp,
                  ms_error_t *errp);

/* Wipe the key from memory. */
void tag_key_clear (tag_key_t *key);

/* Write the tag of meta job id's copy `copy` of dispatch `dispatch` on
 * cluster into buf (TAG_MAX bytes). */
void tag_make (const tag_key_t *key, int64_t id, const char *cluster,
               int dispatch, int copy, char *buf, size_t size);

/* The claim of a cluster job's comment on cluster: the meta job id it
 * names in *idp (0 for TAG_NONE) and whether the tag proves it. The MAC
 * is compared in constant time. */
tag_check_t tag_check (const tag_key_t *key, const char *comment,
                       const char *cluster, int64_t *idp);

/* The words of a tag_check_t that is not TAG_VALID, for the log. */
const char *tag_check_why (tag_check_t c);

#endif /* MS_TAG_H */
