/* fuzz_counters.c - what the root epilog reads from the job's side on
 * arbitrary bytes: the wrapper's counter file (written by the user) and
 * Slurm's JSON answer. An accepted counter file yields a counters object
 * that the database's checks accept. */
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
    spool_rec_t *r;
    collect_counters_t k;
    collect_slurm_job_t sj;

    collect_parse_slurm_json ((const char *)data, size, 1, &sj, NULL);
    if (spool_rec_parse ((const char *)data, size, "fuzz.counters", &r, NULL) < 0)
        return 0;
    if (collect_counters_from_rec (r, &k, NULL) == 0) {
        /* the row built from it must pass the spool's own row checks */
        db_job_run_t row, back;
        spool_rec_t *rec;
        db_job_run_init (&row);
        strcpy (row.cluster, "c");
        strcpy (row.partition, "p");
        row.slurm_job_id = 1;
        strcpy (row.node, "n");
        strcpy (row.user_name, "u");
        strcpy (row.collector_version, "f");
        row.start_time = k.start_time;
        row.end_time = k.end_time;
        row.runtime_s = k.end_time - k.start_time;
        memcpy (row.counters_json, k.counters_json, sizeof (row.counters_json));
        memcpy (row.events_used, k.events_used, sizeof (row.events_used));
        memcpy (row.events_unavailable, k.events_unavailable,
                sizeof (row.events_unavailable));
        rec = collect_jobrun_to_rec (&row);
        if (collect_jobrun_from_rec (rec, &back, NULL) < 0)
            abort ();
        spool_rec_free (rec);
    }
    spool_rec_free (r);
    return 0;
}
