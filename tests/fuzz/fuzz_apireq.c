/* fuzz_apireq.c - arbitrary bytes as an API job request body. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "metasched/api/apireq.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ms_apireq_limits_t lim = { .max_script = 4096,
                               .allow_partition = size > 0 && (data[0] & 1),
                               .partition_names = size > 0 && (data[0] & 2) };
    char field[80];
    ms_apireq_t r;
    ms_error_t err;

    if (apireq_parse ((const char *)data, size, &lim, &r, field, sizeof (field),
                      &err)
        == 0) {
        free (apireq_options_json (&r));
        apireq_free (&r);
    }
    return 0;
}
