/* fuzz_jobspec.c - arbitrary bytes as a batch script with #SBATCH lines. */
#include "config.h"

#include <stdint.h>

#include "metasched/common/jobspec.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    ms_jobspec_t s;
    ms_error_t err;

    jobspec_init (&s);
    if (jobspec_parse_script (&s, (const char *)data, size, "fuzz.sh", &err) == 0)
        (void)jobspec_check (&s, (const char *)data, size, false, &err);
    jobspec_free (&s);
    return 0;
}
