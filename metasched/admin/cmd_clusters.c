/* cmd_clusters.c - `metasched clusters`: the configured clusters, and what
 * each one says about its partitions now. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "metasched/admin/cmdopt.h"
#include "metasched/admin/commands.h"
#include "wire/client.h"
#include "partitions/backend.h"
#include "partitions/clusterconf.h"
#include "partitions/slurmrest.h"

static void
usage (FILE *f)
{
    fprintf (f,
             "Usage: metasched clusters [-c FILE]\n"
             "       metasched clusters --daemon [-s SERVER] [-m SOCKET]\n"
             "Show the configured clusters and partitions, and ask each "
             "slurmrest cluster\nfor its partitions' state and free "
             "resources; with --daemon, show what\nmetaschedd sees of each "
             "cluster (reachable or not, the OpenAPI version it\n"
             "negotiated, its last error).\n\n"
             "  -c, --config FILE  cluster configuration (default %s,\n"
             "                     or $METASCHED_CLUSTERS_CONF)\n"
             "  -d, --daemon       ask metaschedd (GET /v1/clusters) instead\n"
             "  -s, --server ADDR  metaschedd's address (as msbatch; "
             "$METASCHED_SERVER)\n"
             "  -m, --munge-socket PATH  munged's socket\n"
             "Exit status: 0 when every cluster answers, 1 when one does "
             "not (or on error).\n",
             MS_DEFAULT_CLUSTERS_CONF);
}

static void
show_partition_conf (const ms_siteconf_t *conf, const ms_partconf_t *p)
{
    const ms_arch_t *a = &conf->archs[p->arch];
    printf ("    %-12s %-10s %5d nodes x %3d cores, %.1f-%.1f GHz (nominal "
            "%.1f), idle %.0f W/node",
            p->name, a->name, p->nodes, a->cores_per_node,
            a->freqs_khz[0] / 1e6, a->freqs_khz[a->nfreqs - 1] / 1e6,
            a->nominal_khz / 1e6, a->idle_power_w);
    if (p->power_cap_w > 0)
        printf (", cap %.0f W", p->power_cap_w);
    if (p->gpus_per_node > 0)
        printf (", %d GPU%s/node%s%s (idle %.0f W, busy %.0f W each)",
                p->gpus_per_node, p->gpus_per_node == 1 ? "" : "s",
                p->gpu_model[0] ? " " : "", p->gpu_model, p->gpu_idle_power_w,
                p->gpu_busy_power_w);
    printf ("\n");
}

/* --daemon: the clusters as metaschedd sees them (GET /v1/clusters). */
static int
daemon_view (const cmdopt_daemon_t *d)
{
    ms_client_t *c;
    ms_error_t e;
    json_t *reply = NULL, *cl, *v;
    size_t i;
    int failed = 0;

    if (cmdopt_daemon_open (d, &c, &e) < 0) {
        fprintf (stderr, "metasched clusters: %s\n", e.text);
        return 1;
    }
    if (ms_client_call (c, "GET", "/v1/clusters", NULL, NULL, &reply, &e) < 0) {
        fprintf (stderr, "metasched clusters: %s\n", e.text);
        json_decref (reply);
        ms_client_close (c);
        return 1;
    }
    cl = json_object_get (reply, "clusters");
    if (!json_is_array (cl)) {
        fprintf (stderr,
                 "metasched clusters: %s answered without a clusters list\n",
                 ms_client_address (c));
        json_decref (reply);
        ms_client_close (c);
        return 1;
    }
    v = json_object_get (reply, "leader");
    printf ("metaschedd at %s (%s)\n", ms_client_address (c),
            json_is_true (v) ? "leading" : "standing by");
    json_array_foreach (cl, i, v)
    {
        const char *name = json_string_value (json_object_get (v, "name"));
        const char *ver
            = json_string_value (json_object_get (v, "api_version"));
        const char *src
            = json_string_value (json_object_get (v, "api_version_source"));
        const char *err = json_string_value (json_object_get (v, "last_error"));
        bool up = json_is_true (json_object_get (v, "reachable"));

        printf ("%s: %s", name ? name : "?", up ? "reachable" : "DOWN");
        if (ver && ver[0])
            printf (", OpenAPI %s (%s)", ver, src ? src : "?");
        else
            printf (", no OpenAPI version yet (negotiated when it answers)");
        printf ("\n");
        if (!up) {
            failed = 1;
            if (err && err[0])
                printf ("  last error: %s\n", err);
        }
    }
    json_decref (reply);
    ms_client_close (c);
    return failed;
}

int
cmd_clusters (int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' },
        { "daemon", no_argument, NULL, 'd' },
        { "server", required_argument, NULL, 's' },
        { "munge-socket", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *path = getenv ("METASCHED_CLUSTERS_CONF");
    ms_siteconf_t *conf;
    ms_error_t err;
    cmdopt_daemon_t d = { NULL, NULL };
    bool from_daemon = false;
    int c, failed = 0;

    if (!path)
        path = MS_DEFAULT_CLUSTERS_CONF;
    while ((c = getopt_long (argc, argv, "c:ds:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            path = optarg;
            break;
        case 'd':
            from_daemon = true;
            break;
        case 's':
        case 'm':
            cmdopt_daemon_set (&d, c, optarg);
            break;
        case 'h':
        default:
            return cmdopt_usage (c, usage);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "metasched clusters: unexpected argument '%s'\n",
                 argv[optind]);
        return 2;
    }
    if (from_daemon)
        return daemon_view (&d);
    if (clusterconf_load (path, &conf, &err) < 0) {
        fprintf (stderr, "metasched clusters: %s\n", err.text);
        return 1;
    }
    for (size_t i = 0; i < conf->nclusters; i++) {
        const ms_clusterconf_t *cl = &conf->clusters[i];
        ms_backend_t *b = NULL;
        ms_partition_state_t *ps = NULL;
        size_t nps = 0;

        printf ("%s (%s%s%s)\n", cl->name,
                cl->backend == MS_BACKEND_SLURMREST ? "slurmrest " : "simulated",
                cl->backend == MS_BACKEND_SLURMREST ? cl->url : "",
                "");
        if (cl->backend == MS_BACKEND_SLURMREST) {
            if (slurmrest_from_conf (cl, &b, &err) < 0
                || slurmrest_negotiate (b, &err) < 0) {
                printf ("  unreachable: %s\n", err.text);
                failed = 1;
                ps = NULL;
            } else {
                printf ("  OpenAPI %s (%s)\n", slurmrest_version (b),
                        slurmrest_version_source (b));
                if (backend_partitions (b, &ps, &nps, &err) < 0) {
                    printf ("  unreachable: %s\n", err.text);
                    failed = 1;
                }
            }
        }
        for (size_t k = 0; k < conf->nparts; k++) {
            const ms_partconf_t *p = &conf->parts[k];
            if (p->cluster != i)
                continue;
            show_partition_conf (conf, p);
            if (!b || !ps)
                continue;
            const ms_partition_state_t *s = NULL;
            for (size_t m = 0; m < nps; m++)
                if (!strcmp (ps[m].name, p->name))
                    s = &ps[m];
            if (!s) {
                printf ("      not on the cluster: slurmrestd lists no "
                        "partition '%s'\n",
                        p->name);
                failed = 1;
                continue;
            }
            printf ("      %s: nodes %d idle, %d allocated, %d down of %d; "
                    "cpus %d idle of %d; jobs %d running, %d pending\n",
                    s->up ? "up" : "DOWN", s->nodes_idle, s->nodes_alloc,
                    s->nodes_down, s->nodes_total, s->cpus_idle, s->cpus_total,
                    s->running_jobs, s->pending_jobs);
            if (s->gpus_total > 0 || p->gpus_per_node > 0)
                printf ("      gpus %d idle of %d (gres gpu of its usable "
                        "nodes)\n",
                        s->gpus_idle, s->gpus_total);
            if (p->gpus_per_node > 0 && s->nodes_total > 0
                && s->gpus_total == 0 && s->nodes_down < s->nodes_total)
                printf ("      note: the config says %d GPUs per node, the "
                        "cluster's nodes have none (gres gpu)\n",
                        p->gpus_per_node);
            if (s->nodes_total != p->nodes)
                printf ("      note: the config says %d nodes, the cluster has "
                        "%d\n",
                        p->nodes, s->nodes_total);
        }
        free (ps);
        backend_destroy (b);
    }
    clusterconf_free (conf);
    return failed ? 1 : 0;
}
