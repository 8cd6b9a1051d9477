/* fuzz_dconf.c - arbitrary bytes as metaschedd.conf (dconf_parse: the
 * reader of dconf_load without the file; dconf_check is left out, since it
 * opens the files the configuration names). */
#include "config.h"

#include <stdint.h>

#include "metasched/daemon/dconf.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ms_dconf_t *conf;
    ms_error_t err;

    if (dconf_parse ((const char *)data, size, "fuzz.conf", &conf, &err) == 0)
        dconf_free (conf);
    return 0;
}
