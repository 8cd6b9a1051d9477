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
