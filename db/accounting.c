/* accounting.c - what Slurm's accounting says about finished jobs
 * (job_accounting), upserted by `metasched collect ingest` and compared
 * with job_runs in the job_reconciliation view (0002). */
#include "config.h"

#include <stdio.h>

#include "db/db.h"

int
db_accounting_upsert (db_t *db, const db_accounting_t *rows, size_t n,
                      ms_error_t *errp)
{
    if (db_begin (db, errp) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const db_accounting_t *a = &rows[i];
        char id[24], st[32], en[32], ec[16], nn[16], fr[16], ce[32];
        const char *p[13];

        snprintf (id, sizeof (id), "%llu", (unsigned long long)a->slurm_job_id);
        snprintf (st, sizeof (st), "%.0f", a->start_time);
        snprintf (en, sizeof (en), "%.0f", a->end_time);
        snprintf (ec, sizeof (ec), "%d", a->exit_code);
        snprintf (nn, sizeof (nn), "%d", a->nodes);
        snprintf (fr, sizeof (fr), "%u", a->freq_req_khz);
        snprintf (ce, sizeof (ce), "%.6f", a->consumed_energy_j);
        p[0] = a->cluster;
        p[1] = id;
        p[2] = a->partition[0] ? a->partition : NULL;
        p[3] = a->user_name[0] ? a->user_name : NULL;
        p[4] = a->state;
        p[5] = a->start_time > 0 ? st : NULL;
        p[6] = a->end_time > 0 ? en : NULL;
        p[7] = a->has_exit_code ? ec : NULL;
        p[8] = a->nodes > 0 ? nn : NULL;
        p[9] = a->node_list[0] ? a->node_list : NULL;
        p[10] = a->freq_req_khz ? fr : NULL;
        p[11] = a->consumed_energy_j >= 0 ? ce : NULL;
        p[12] = a->comment[0] ? a->comment : NULL;
        if (db_command (db, "accounting_upsert",
                        "INSERT INTO job_accounting (cluster, slurm_job_id,"
                        " partition, user_name, state, start_time, end_time,"
                        " exit_code, nodes, node_list, freq_req_khz,"
                        " consumed_energy_j, comment) VALUES ($1,"
                        " $2::bigint, $3, $4, $5,"
                        " to_timestamp ($6::double precision),"
                        " to_timestamp ($7::double precision), $8::integer,"
                        " $9::integer, $10, $11::integer,"
                        " $12::double precision, $13)"
                        " ON CONFLICT (cluster, slurm_job_id) DO UPDATE SET"
                        " partition = EXCLUDED.partition,"
                        " user_name = EXCLUDED.user_name,"
                        " state = EXCLUDED.state,"
                        " start_time = EXCLUDED.start_time,"
                        " end_time = EXCLUDED.end_time,"
                        " exit_code = EXCLUDED.exit_code,"
                        " nodes = EXCLUDED.nodes,"
                        " node_list = EXCLUDED.node_list,"
                        " freq_req_khz = EXCLUDED.freq_req_khz,"
                        " consumed_energy_j = EXCLUDED.consumed_energy_j,"
                        " comment = EXCLUDED.comment, ingested_at = now ()",
                        13, p, NULL, errp) < 0) {
            ms_err_prefix (errp, "job %s/%s", a->cluster, id);
            db_rollback (db);
            return -1;
        }
    }
    return db_commit (db, errp);
}
