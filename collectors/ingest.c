/* ingest.c - `metasched collect ingest`: what Slurm says about finished
 * jobs (state, start, end, exit code, nodes, frequency request), pulled
 * from every cluster's slurmrestd through the backend interface and
 * upserted into job_accounting, where the job_reconciliation view sets it
 * beside what the collectors measured. A cluster that does not answer is
 * counted and skipped: the others are still ingested. Slurm's
 * ConsumedEnergy comes from the cluster's accounting (slurmdbd, through
 * slurmrestd's /slurmdb/ endpoints) where an energy plugin measured the
 * job; elsewhere the column stays empty (doc/collectors.md). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collect.h"
#include "metasched/common/util.h"
#include "partitions/backend.h"
#include "partitions/slurmrest.h"

static void
to_row (const char *cluster, const ms_job_info_t *j, db_accounting_t *a)
{
    memset (a, 0, sizeof (*a));
    ms_strlcpy (a->cluster, cluster, sizeof (a->cluster));
    a->slurm_job_id = j->id;
    ms_strlcpy (a->partition, j->partition, sizeof (a->partition));
    ms_strlcpy (a->user_name, j->user, sizeof (a->user_name));
    ms_strlcpy (a->state, j->state_name[0] ? j->state_name
                                           : ms_job_state_name (j->state),
                sizeof (a->state));
    a->start_time = (double)j->start_time;
    a->end_time = j->end_time >= j->start_time ? (double)j->end_time : 0;
    a->has_exit_code = j->exit_code >= 0;
    a->exit_code = j->exit_code;
    a->nodes = j->nodes;
    ms_strlcpy (a->node_list, j->node_list, sizeof (a->node_list));
    a->freq_req_khz = j->cpu_freq_max_khz;
    a->consumed_energy_j = -1;
    ms_strlcpy (a->comment, j->comment, sizeof (a->comment));
}

int
collect_ingest (const char *clusters_conf, db_t *db,
                collect_ingest_stats_t *st, ms_error_t *errp)
{
    ms_siteconf_t *conf;
    ms_error_t first;
    PGresult *res;

    memset (st, 0, sizeof (*st));
    ms_err_clear (&first);
    if (clusterconf_load (clusters_conf, &conf, errp) < 0)
        return -1;
    for (size_t i = 0; i < conf->nclusters; i++) {
        const ms_clusterconf_t *c = &conf->clusters[i];
        ms_backend_t *b;
        ms_job_info_t *jobs = NULL;
        db_accounting_t *rows;
        size_t n = 0, k = 0;
        ms_error_t e;

        if (c->backend != MS_BACKEND_SLURMREST)
            continue;
        if (slurmrest_from_conf (c, &b, &e) < 0
            || (backend_jobs (b, &jobs, &n, &e) < 0
                && (backend_destroy (b), 1))) {
            st->clusters_failed++;
            if (!first.kind)
                first = e;
            continue;
        }
        /* ConsumedEnergy where the cluster's accounting has it; none
         * (no slurmdbd, no energy plugin, an error) leaves it empty */
        slurmrest_energy_t *en = NULL;
        size_t nen = 0;
        ms_error_t ee;
        if (slurmrest_accounted_energy (b, &en, &nen, &ee) < 0)
            nen = 0;
        backend_destroy (b);
        rows = ms_xcalloc (n ? n : 1, sizeof (*rows));
        for (size_t j = 0; j < n; j++)
            if (ms_job_state_final (jobs[j].state) && jobs[j].id > 0) {
                to_row (c->name, &jobs[j], &rows[k]);
                for (size_t x = 0; x < nen; x++)
                    if (en[x].id == jobs[j].id)
                        rows[k].consumed_energy_j = en[x].energy_j;
                k++;
            }
        free (en);
        free (jobs);
        st->jobs_seen += k;
        if (k && db_accounting_upsert (db, rows, k, &e) < 0) {
            free (rows);
            clusterconf_free (conf);
            if (errp)
                *errp = e;
            return -1;
        }
        st->upserted += k;
        free (rows);
    }
    clusterconf_free (conf);
    res = db_exec (db, "ingest_missing",
                   "SELECT count (*) FROM job_reconciliation"
                   " WHERE measured = 'missing'",
                   0, NULL, errp);
    if (!res)
        return -1;
    st->missing = (size_t)atol (PQgetvalue (res, 0, 0));
    PQclear (res);
    if (st->clusters_failed && errp) {
        *errp = first;
        return 1; /* partial */
    }
    return 0;
}
