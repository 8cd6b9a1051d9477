/* fuzz_jobspec.c - arbitrary bytes as a batch script with #SBATCH lines,
 * then the job as JSON (jobspec_json.c) and read back, and the bytes as
 * one option's value of each kind on the command line. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_json.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const char *const opts[]
        = { "array", "dependency", "gres", "gpus", "mem", "signal",
            "time", "begin", "mail-type", "distribution", "nodelist",
            "extra-node-info", "hint", "export", "nodes", "switches" };
    ms_jobspec_t s, back;
    ms_error_t err;
    char *val;

    jobspec_init (&s);
    if (jobspec_parse_script (&s, (const char *)data, size, "fuzz.sh", &err)
        == 0) {
        json_t *o = json_object ();
        (void)jobspec_check (&s, (const char *)data, size, false, &err);
        jobspec_json_put (&s, o);
        jobspec_json_put_parsed (&s, o);
        jobspec_init (&back);
        (void)jobspec_json_read (&back, o, &err);
        jobspec_free (&back);
        json_decref (o);
    }
    jobspec_free (&s);
    if (size > 4096)
        return 0;
    val = malloc (size + 1);
    if (!val)
        return 0;
    memcpy (val, data, size);
    val[size] = '\0';
    jobspec_init (&s);
    (void)jobspec_apply_option (&s, opts[size % (sizeof (opts) / sizeof (opts[0]))],
                                val, &err);
    jobspec_free (&s);
    free (val);
    return 0;
}
