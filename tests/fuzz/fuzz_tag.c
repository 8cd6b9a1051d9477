/* fuzz_tag.c - a cluster job's comment, which any user who submits to a
 * cluster writes, read as a claim on a meta job (metasched/daemon/tag.h):
 * on arbitrary bytes tag_check never crashes and never proves a claim
 * that the key did not make; a tag the key made verifies on its own
 * cluster only, and no longer once any character of its MAC changes. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/daemon/tag.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    tag_key_t key;
    char *comment, tag[TAG_MAX], made[TAG_MAX];
    int64_t id = 0, id2 = 0;
    tag_check_t c;
    int dispatch, copy;

    memset (&key, 0, sizeof (key));
    for (size_t i = 0; i < TAG_KEY_MIN; i++)
        key.k[i] = (unsigned char)(0x5a ^ i);
    key.len = TAG_KEY_MIN;

    /* the bytes as a comment */
    if (!(comment = malloc (size + 1)))
        return 0;
    memcpy (comment, data, size);
    comment[size] = '\0';
    c = tag_check (&key, comment, "alpha", &id);
    if (c == TAG_VALID) {
        /* only a tag the key made verifies: the claim must be exactly
         * the tag of some dispatch and copy of that id on alpha */
        const char *p = strchr (comment + strlen ("metasched:"), ':');
        if (!p || sscanf (p + 1, "%d.%d", &dispatch, &copy) != 2)
            abort ();
        tag_make (&key, id, "alpha", dispatch, copy, made, sizeof (made));
        if (strncmp (comment, made, strlen (made)) != 0)
            abort ();
    }
    (void)tag_check_why (c);
    free (comment);

    /* a tag made from the bytes' numbers: valid on its cluster only, and
     * not with one character of its MAC changed */
    if (size >= 6) {
        id = 1 + (int64_t)(((uint32_t)data[0] << 16) | ((uint32_t)data[1] << 8)
                           | data[2]);
        dispatch = data[3];
        copy = data[4] % 8;
        tag_make (&key, id, "beta", dispatch, copy, tag, sizeof (tag));
        if (tag_check (&key, tag, "beta", &id2) != TAG_VALID || id2 != id)
            abort ();
        if (tag_check (&key, tag, "gamma", &id2) == TAG_VALID)
            abort ();
        {
            size_t len = strlen (tag), at = len - 1 - data[5] % TAG_MAC_HEX;
            tag[at] = tag[at] == '0' ? '1' : '0';
            if (tag_check (&key, tag, "beta", &id2) == TAG_VALID)
                abort ();
        }
    }
    tag_key_clear (&key);
    return 0;
}
