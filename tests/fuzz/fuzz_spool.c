/* fuzz_spool.c - spool records (the job_runs rows `metasched collect
 * flush` reads back) on arbitrary bytes. An accepted record must survive
 * a format-and-parse round trip, and an accepted row must do the same. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collect.h"
#include "collectors/spool.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    spool_rec_t *r, *again;
    db_job_run_t row, row2;
    char *text;
    size_t len;

    if (spool_rec_parse ((const char *)data, size, "fuzz.run", &r, NULL) < 0)
        return 0;
    text = spool_rec_format (r, &len);
    if (spool_rec_parse (text, len, "again", &again, NULL) < 0
        || spool_rec_count (again) != spool_rec_count (r))
        abort ();
    spool_rec_free (again);
    free (text);
    if (collect_jobrun_from_rec (r, &row, NULL) == 0) {
        spool_rec_t *back = collect_jobrun_to_rec (&row);
        if (collect_jobrun_from_rec (back, &row2, NULL) < 0
            || row2.slurm_job_id != row.slurm_job_id
            || strcmp (row2.counters_json, row.counters_json))
            abort ();
        spool_rec_free (back);
    }
    spool_rec_free (r);
    return 0;
}
