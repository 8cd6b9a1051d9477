/* fuzz_clusterconf.c - arbitrary bytes into the cluster config reader. */
#include "config.h"

#include <stdint.h>

#include "partitions/clusterconf.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ms_siteconf_t *conf;
    ms_error_t err;

    if (clusterconf_parse ((const char *)data, size, "fuzz.conf", &conf, &err)
        == 0)
        clusterconf_free (conf);
    return 0;
}
