/* fuzz_placement.c - fuzz target for the readers of placement.c: feature
 * expressions (--constraint), hostlists (--nodelist, --exclude, a
 * partition's nodes) and paths against mounted prefixes. The first byte
 * splits the input into an expression and a subject. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/core/placement.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
count (const char *name, void *arg)
{
    (void)name;
    ++*(size_t *)arg;
    return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *a, *b;
    size_t cut, n = 0;
    ms_error_t err;
    ms_clusterconf_t *c;
    ms_partition_state_t p;
    ms_place_req_t r;
    char why[256];

    if (size < 1 || size > 4096)
        return 0;
    cut = data[0] % size;
    a = ms_xmalloc (cut + 1);
    b = ms_xmalloc (size - cut + 1);
    memcpy (a, data + 1, cut > 0 ? cut - 1 : 0);
    a[cut > 0 ? cut - 1 : 0] = '\0';
    memcpy (b, data + cut, size - cut);
    b[size - cut] = '\0';
    /* strings stop at their first NUL, as C strings from JSON would */
    (void)placement_features_parse (a, &err);
    (void)placement_features_match (a, b);
    (void)placement_hostlist_each (a, 4096, count, &n);
    (void)placement_hostlist_has (a, b);
    c = ms_xcalloc (1, sizeof (*c));
    ms_strlcpy (c->filesystems[0], "/home", sizeof (c->filesystems[0]));
    ms_strlcpy (c->filesystems[1], "/scratch/a", sizeof (c->filesystems[0]));
    c->nfilesystems = 2;
    (void)placement_path_mounted (c, a, b);
    memset (&p, 0, sizeof (p));
    ms_partition_limits_init (&p);
    ms_strlcpy (p.node_list, b, sizeof (p.node_list));
    ms_partition_add_features (&p, b, 2);
    memset (&r, 0, sizeof (r));
    r.nodes = 2;
    r.constraint = a;
    r.nodelist = a;
    r.exclude = b;
    (void)placement_check_partition (&p, &r, NULL, why, sizeof (why));
    free (c);
    free (a);
    free (b);
    return 0;
}
