/* sites.c - clusters and partitions from the site configuration
 * (partitions/clusterconf.h) into the database, so that job_runs and jobs
 * can refer to them and the frequency check knows what each offers. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "metasched/common/util.h"

/* {a,b,c} array literal of the frequencies: numbers only, never text. */
static void
freq_array (const ms_arch_t *a, char *buf, size_t len)
{
    size_t off = 0;

    off += (size_t)snprintf (buf, len, "{");
    for (size_t i = 0; i < a->nfreqs && off < len; i++)
        off += (size_t)snprintf (buf + off, len - off, "%s%u", i ? "," : "",
                                 a->freqs_khz[i]);
    if (off < len)
        snprintf (buf + off, len - off, "}");
}

int
db_sync_site (db_t *db, const ms_siteconf_t *conf, size_t *nparts,
              ms_error_t *errp)
{
    if (db_begin (db, errp) < 0)
        return -1;
    for (size_t i = 0; i < conf->nclusters; i++) {
        const ms_clusterconf_t *c = &conf->clusters[i];
        const char *p[3] = { c->name,
                             c->backend == MS_BACKEND_SIMULATED ? "simulated"
                                                                : "slurmrest",
                             c->url[0] ? c->url : NULL };
        if (db_command (db, "site_cluster",
                        "INSERT INTO clusters (name, backend, url)"
                        " VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE"
                        " SET backend = EXCLUDED.backend, url = EXCLUDED.url,"
                        " updated_at = now ()",
                        3, p, NULL, errp) < 0)
            goto fail;
    }
    for (size_t i = 0; i < conf->nparts; i++) {
        const ms_partconf_t *pc = &conf->parts[i];
        const ms_arch_t *a = &conf->archs[pc->arch];
        char nodes[16], cores[16], freqs[MS_MAX_FREQS * 12 + 4], nominal[16],
            idle[32], cap[32];
        const char *p[9];

        snprintf (nodes, sizeof (nodes), "%d", pc->nodes);
        snprintf (cores, sizeof (cores), "%d", a->cores_per_node);
        freq_array (a, freqs, sizeof (freqs));
        snprintf (nominal, sizeof (nominal), "%u", a->nominal_khz);
        snprintf (idle, sizeof (idle), "%.17g", a->idle_power_w);
        snprintf (cap, sizeof (cap), "%.17g", pc->power_cap_w);
        p[0] = conf->clusters[pc->cluster].name;
        p[1] = pc->name;
        p[2] = a->name;
        p[3] = nodes;
        p[4] = cores;
        p[5] = freqs;
        p[6] = nominal;
        p[7] = idle;
        p[8] = pc->power_cap_w > 0 ? cap : NULL;
        if (db_command (db, "site_partition",
                        "INSERT INTO partitions (cluster, name, architecture,"
                        " nodes, cores_per_node, freqs_khz, nominal_khz,"
                        " idle_power_w, power_cap_w) VALUES ($1, $2, $3,"
                        " $4::integer, $5::integer, $6::integer[],"
                        " $7::integer, $8::double precision,"
                        " $9::double precision)"
                        " ON CONFLICT (cluster, name) DO UPDATE SET"
                        " architecture = EXCLUDED.architecture,"
                        " nodes = EXCLUDED.nodes,"
                        " cores_per_node = EXCLUDED.cores_per_node,"
                        " freqs_khz = EXCLUDED.freqs_khz,"
                        " nominal_khz = EXCLUDED.nominal_khz,"
                        " idle_power_w = EXCLUDED.idle_power_w,"
                        " power_cap_w = EXCLUDED.power_cap_w,"
                        " updated_at = now ()",
                        9, p, NULL, errp) < 0) {
            ms_err_prefix (errp, "%s:%d: partition %s/%s", conf->path, pc->line,
                           p[0], pc->name);
            goto fail;
        }
    }
    if (db_commit (db, errp) < 0)
        return -1;
    if (nparts)
        *nparts = conf->nparts;
    return 0;
fail:
    db_rollback (db);
    return -1;
}
