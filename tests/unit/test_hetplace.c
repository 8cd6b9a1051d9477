/* test_hetplace.c - a heterogeneous job's clusters and its components'
 * partitions (core/hetplace.h), the rule metaschedd routes a hetjob by
 * and the replay of the history applies: on the GPU site of
 * tests/simworld.h (cluster cpu: batch; cluster gpu: a100 with 4 GPUs a
 * node, v100 with 2), each component's partitions by the core's check of
 * a partition (candidates_part_fits: nodes, GPUs, limits), the clusters
 * where all components fit, those whose nodes hold all components
 * together, and where each component goes. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/core/candidates.h"
#include "metasched/core/hetplace.h"
#include "metasched/sim/simulate.h"
#include "predictor/predictor.h"
#include "tests/simworld.h"
#include "tests/testutil.h"

static const char site[] = SIMWORLD_GPU_SITE;

/* The partitions a component of `nodes` nodes and `gpus` GPUs a node fits
 * into row. */
static void
fits_of (const ms_siteconf_t *conf, int nodes, int gpus, unsigned char *row)
{
    ms_place_req_t r;

    memset (&r, 0, sizeof (r));
    r.nodes = nodes;
    for (size_t p = 0; p < conf->nparts; p++)
        row[p] = candidates_part_fits (conf, p, &r, gpus);
}

static size_t
part_of (const ms_siteconf_t *conf, const char *name)
{
    for (size_t p = 0; p < conf->nparts; p++)
        if (!strcmp (conf->parts[p].name, name))
            return p;
    ck_abort_msg ("no partition %s", name);
    return SIZE_MAX;
}

static const struct {
    int nodes[3], gpus[3]; /* components; nodes 0 ends the list */
    const char *allowed;   /* the partitions kept, in site order */
    size_t nofit_cpu, nofit_gpu;
    const char *chosen;    /* the job's partition */
    const char *places[3]; /* each component's; NULL: none */
} cases[] = {
    /* CPU + 3 GPUs: only cluster gpu; the CPU component on the chosen
     * a100, the GPU one too (4 a node) */
    { { 1, 1 }, { 0, 3 }, "a100,v100", 2, 0, "a100", { "a100", "a100" } },
    /* CPU + 2 GPUs chosen on v100: both there */
    { { 1, 1 }, { 0, 2 }, "a100,v100", 2, 0, "v100", { "v100", "v100" } },
    /* 3 GPUs and 1 GPU, job on v100 (the first component's choice where
     * the rule is told so): the 3-GPU component goes to a100, the
     * cluster's first it fits */
    { { 1, 1 }, { 3, 1 }, "a100,v100", 1, 0, "v100", { "a100", "v100" } },
    /* CPU components only: both clusters (every partition) */
    { { 2, 1 },
      { 0, 0 },
      "batch,a100,v100",
      0,
      0,
      "batch",
      { "batch", "batch" } },
    /* 40 nodes fit batch only (64), GPU one on gpu: no cluster has both */
    { { 40, 1 }, { 0, 1 }, "", 2, 1, "batch", { "batch", NULL } },
    /* 8 GPUs a node: no partition; nothing kept */
    { { 1, 1, 1 }, { 0, 1, 8 }, "", 2, 3, "a100", { "a100", "a100", NULL } },
};

START_TEST (clusters_and_places)
{
    world_t w;
    const ms_siteconf_t *conf;
    unsigned char fits[3 * 8], allowed[8];
    size_t n = 0, nofit[4], nok, want = 0;
    char kept[128] = "";

    world_init_site (&w, site, "gpu-site");
    conf = w.conf;
    ck_assert (conf->nparts <= 8 && conf->nclusters <= 4);
    while (n < 3 && cases[_i].nodes[n])
        n++;
    for (size_t k = 0; k < n; k++)
        fits_of (conf, cases[_i].nodes[k], cases[_i].gpus[k],
                 fits + k * conf->nparts);
    memset (allowed, 1, conf->nparts);
    nok = hetplace_clusters (conf, fits, n, allowed, nofit);
    for (size_t p = 0; p < conf->nparts; p++)
        if (allowed[p]) {
            snprintf (kept + strlen (kept), sizeof (kept) - strlen (kept),
                      "%s%s", kept[0] ? "," : "", conf->parts[p].name);
            want++;
        }
    ck_assert_str_eq (kept, cases[_i].allowed);
    ck_assert_uint_eq (nok, want);
    ck_assert_uint_eq (nofit[0], cases[_i].nofit_cpu);
    ck_assert_uint_eq (nofit[1], cases[_i].nofit_gpu);
    for (size_t k = 0; k < n; k++) {
        size_t p = hetplace_component (conf, fits + k * conf->nparts,
                                       part_of (conf, cases[_i].chosen));
        if (!cases[_i].places[k])
            ck_assert_uint_eq (p, SIZE_MAX);
        else
            ck_assert_msg (
                p < conf->nparts
                    && !strcmp (conf->parts[p].name, cases[_i].places[k]),
                "case %d component %zu: %s, not %s", _i, k,
                p < conf->nparts ? conf->parts[p].name : "none",
                cases[_i].places[k]);
    }
    ck_assert_uint_eq (hetplace_component (conf, fits, conf->nparts), SIZE_MAX);
    world_fini (&w);
}
END_TEST

/* The nodes all components ask for together against each cluster's
 * (hetplace_sum): Slurm gives each component nodes of its own, so a
 * cluster with fewer is dropped though each component fits it alone. */
static const struct {
    int nodes[3]; /* components (ncomp of them) */
    size_t ncomp;
    int have[2];         /* cluster cpu's nodes, gpu's; -1: not known */
    const char *start;   /* the partitions allowed before; NULL: all */
    long want;           /* the nodes asked together */
    const char *allowed; /* the partitions kept, in site order */
    unsigned char dropped[2];
} sums[] = {
    /* 1 + 16 nodes: cpu (64) holds them, gpu (16) does not */
    { { 1, 16 }, 2, { 64, 16 }, NULL, 17, "batch", { 0, 1 } },
    /* exactly the cluster's nodes: kept */
    { { 8, 8 }, 2, { 64, 16 }, NULL, 16, "batch,a100,v100", { 0, 0 } },
    /* gpu's nodes not known (-1): kept, never dropped */
    { { 1, 16 }, 2, { 64, -1 }, NULL, 17, "batch,a100,v100", { 0, 0 } },
    /* a count of 0 or less is one node: 3 nodes on clusters of 2 */
    { { 0, -4, 1 }, 3, { 2, 2 }, NULL, 3, "", { 1, 1 } },
    /* a cluster with no partition allowed is not counted as dropped */
    { { 4, 4 }, 2, { 64, 4 }, "a100", 8, "", { 0, 1 } },
    { { 4, 4 }, 2, { 4, 64 }, "a100", 8, "a100", { 0, 0 } },
    /* one component: its own nodes */
    { { 20 }, 1, { 64, 16 }, NULL, 20, "batch", { 0, 1 } },
};

START_TEST (nodes_together)
{
    world_t w;
    const ms_siteconf_t *conf;
    unsigned char allowed[8], dropped[2] = { 9, 9 };
    char kept[128] = "";
    size_t nok, want = 0;
    long asked;

    world_init_site (&w, site, "gpu-site");
    conf = w.conf;
    ck_assert (conf->nparts <= 8 && conf->nclusters == 2);
    for (size_t p = 0; p < conf->nparts; p++)
        allowed[p]
            = !sums[_i].start || !strcmp (conf->parts[p].name, sums[_i].start);
    asked = hetplace_nodes (sums[_i].nodes, sums[_i].ncomp);
    ck_assert_int_eq (asked, sums[_i].want);
    nok = hetplace_sum (conf, asked, sums[_i].have, allowed, dropped);
    for (size_t p = 0; p < conf->nparts; p++)
        if (allowed[p]) {
            snprintf (kept + strlen (kept), sizeof (kept) - strlen (kept),
                      "%s%s", kept[0] ? "," : "", conf->parts[p].name);
            want++;
        }
    ck_assert_str_eq (kept, sums[_i].allowed);
    ck_assert_uint_eq (nok, want);
    ck_assert_uint_eq (dropped[0], sums[_i].dropped[0]);
    ck_assert_uint_eq (dropped[1], sums[_i].dropped[1]);
    /* without the dropped list: the same partitions kept */
    for (size_t p = 0; p < conf->nparts; p++)
        allowed[p]
            = !sums[_i].start || !strcmp (conf->parts[p].name, sums[_i].start);
    ck_assert_uint_eq (hetplace_sum (conf, asked, sums[_i].have, allowed, NULL),
                       nok);
    world_fini (&w);
}
END_TEST

/* The replay's count of a cluster's nodes from clusters.conf alone
 * (hetplace_conf_nodes): its partitions' nodes summed, the most it can
 * have where partitions share nodes. */
START_TEST (conf_nodes)
{
    world_t w;
    int have[2] = { -7, -7 };
    unsigned char allowed[8];

    world_init_site (&w, site, "gpu-site");
    ck_assert (w.conf->nclusters == 2 && w.conf->nparts <= 8);
    hetplace_conf_nodes (w.conf, have);
    ck_assert_int_eq (have[0], 64); /* batch */
    ck_assert_int_eq (have[1], 32); /* a100 16 + v100 16 */
    /* 16 + 16 + 1 nodes: no more than 32 on gpu, though each component
     * fits one of its partitions; cpu's 64 hold them */
    {
        int nodes[3] = { 16, 16, 1 };
        memset (allowed, 1, w.conf->nparts);
        ck_assert_uint_eq (hetplace_sum (w.conf, hetplace_nodes (nodes, 3),
                                         have, allowed, NULL),
                           1);
        ck_assert (allowed[part_of (w.conf, "batch")]);
    }
    world_fini (&w);
}
END_TEST

int
main (void)
{
    Suite *su = suite_create ("hetplace");
    TCase *tc = tcase_create ("core");

    tcase_add_loop_test (tc, clusters_and_places, 0,
                         (int)(sizeof (cases) / sizeof (cases[0])));
    tcase_add_loop_test (tc, nodes_together, 0,
                         (int)(sizeof (sums) / sizeof (sums[0])));
    tcase_add_test (tc, conf_nodes);
    suite_add_tcase (su, tc);
    return test_run_suite (su);
}
