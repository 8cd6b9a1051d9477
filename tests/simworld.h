/* simworld.h - what the simulator's and the core's Check tests build on: a
 * site parsed from a clusters.conf text, a predictor with its architectures
 * and Table 6.1's apps, and the prediction table of the two. */
#ifndef MS_TEST_SIMWORLD_H
#define MS_TEST_SIMWORLD_H

#include <string.h>

#include "metasched/core/candidates.h"
#include "partitions/clusterconf.h"
#include "predictor/predictor.h"
#include "tests/testutil.h"

/* A CPU cluster and a GPU cluster of two GPU models (doc/examples/
 * sim-gpu.conf's site), for the GPU tests. */
#define SIMWORLD_GPU_SITE                                                    \
    "[architecture skx8168]\n" \
    "cores_per_node = 48\nfrequencies_khz = 1200000-2700000/100000\n" \
    "nominal_khz = 2700000\nidle_power_w = 110\n" \
    "[architecture clx6254]\n" \
    "cores_per_node = 36\nfrequencies_khz = 1200000-3100000/100000\n" \
    "nominal_khz = 3100000\nidle_power_w = 100\n" \
    "[architecture skx6148]\n" \
    "cores_per_node = 40\nfrequencies_khz = 1000000-2400000/100000\n" \
    "nominal_khz = 2400000\nidle_power_w = 90\n" \
    "[cluster cpu]\nbackend = simulated\n" \
    "[partition cpu/batch]\narchitecture = skx8168\nnodes = 64\n" \
    "[cluster gpu]\nbackend = simulated\n" \
    "[partition gpu/a100]\narchitecture = clx6254\nnodes = 16\n" \
    "gpus_per_node = 4\ngpu_model = a100\ngpu_idle_power_w = 50\n" \
    "gpu_busy_power_w = 300\n" \
    "[partition gpu/v100]\narchitecture = skx6148\nnodes = 16\n" \
    "gpus_per_node = 2\ngpu_model = v100\ngpu_idle_power_w = 35\n" \
    "gpu_busy_power_w = 220\n"

typedef struct {
    ms_siteconf_t *conf;
    predictor_t *pred;
    ms_predtab_t *tab;
} world_t;

/* `name` is the configuration's name in error messages. */
static inline void
world_init_site (world_t *w, const char *site, const char *name)
{
    ms_error_t err;
    memset (w, 0, sizeof (*w));
    ck_assert_msg (clusterconf_parse (site, strlen (site), name, &w->conf,
                                      &err)
                       == 0,
                   "%s", err.text);
    w->pred = predictor_new ();
    for (size_t i = 0; i < w->conf->narchs; i++) {
        const ms_arch_t *a = &w->conf->archs[i];
        ck_assert (predictor_add_arch (w->pred, a->name, a->cores_per_node,
                                       a->freqs_khz, a->nfreqs, a->nominal_khz,
                                       a->idle_power_w, &err)
                   == 0);
    }
    ck_assert (predictor_load_table61 (w->pred, "skx8168", "clx6254",
                                       "skx6148", &err)
               == 0);
    ck_assert_msg (predtab_build (w->pred, w->conf, &w->tab, &err) == 0, "%s",
                   err.text);
}

static inline void
world_fini (world_t *w)
{
    predtab_free (w->tab);
    predictor_free (w->pred);
    clusterconf_free (w->conf);
}

#endif /* MS_TEST_SIMWORLD_H */
