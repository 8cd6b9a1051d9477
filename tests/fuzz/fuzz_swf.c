/* fuzz_swf.c - fuzz target for the SWF reader (both modes). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "partitions/swf.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    swf_trace_t *t;
    ms_error_t err;

    for (int flags = 0; flags <= SWF_SKIP_MALFORMED; flags++) {
        if (swf_parse ((const char *)data, size, "fuzz", flags, &t, &err) == 0)
            swf_free (t);
    }
    return 0;
}
