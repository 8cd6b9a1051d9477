/* hetplace.c - heterogeneous jobs: their candidate clusters and their
 * components' partitions (hetplace.h). */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "metasched/core/hetplace.h"

size_t
hetplace_clusters (const ms_siteconf_t *conf, const unsigned char *fits,
                   size_t ncomp, unsigned char *allowed, size_t *nofit)
{
    size_t np = conf->nparts, nok = 0;

    for (size_t i = 0; i < conf->nclusters; i++) {
        bool had = false;
        size_t bad = 0;

        for (size_t p = 0; p < np; p++)
            had |= conf->parts[p].cluster == i && allowed[p];
        for (size_t k = 0; had && k < ncomp && !bad; k++) {
            bool fit = false;
            for (size_t p = 0; p < np; p++)
                fit |= conf->parts[p].cluster == i && fits[k * np + p];
            if (!fit)
                bad = k + 1;
        }
        if (bad)
            for (size_t p = 0; p < np; p++)
                if (conf->parts[p].cluster == i)
                    allowed[p] = 0;
        if (nofit)
            nofit[i] = bad;
    }
    for (size_t p = 0; p < np; p++)
        nok += allowed[p] != 0;
    return nok;
}

long
hetplace_nodes (const int *nodes, size_t ncomp)
{
    long want = 0;

    for (size_t k = 0; k < ncomp; k++)
        want += nodes[k] > 0 ? nodes[k] : 1;
    return want;
}

size_t
hetplace_sum (const ms_siteconf_t *conf, long want, const int *have,
              unsigned char *allowed, unsigned char *dropped)
{
    size_t np = conf->nparts, nok = 0;

    for (size_t i = 0; i < conf->nclusters; i++) {
        bool had = false;

        for (size_t p = 0; p < np; p++)
            had |= conf->parts[p].cluster == i && allowed[p];
        if (dropped)
            dropped[i] = had && have[i] >= 0 && want > have[i];
        if (!had || have[i] < 0 || want <= have[i])
            continue;
        for (size_t p = 0; p < np; p++)
            if (conf->parts[p].cluster == i)
                allowed[p] = 0;
    }
    for (size_t p = 0; p < np; p++)
        nok += allowed[p] != 0;
    return nok;
}

void
hetplace_conf_nodes (const ms_siteconf_t *conf, int *have)
{
    for (size_t i = 0; i < conf->nclusters; i++)
        have[i] = 0;
    for (size_t p = 0; p < conf->nparts; p++) {
        int *h = &have[conf->parts[p].cluster];
        *h = conf->parts[p].nodes > INT_MAX - *h ? INT_MAX
                                                 : *h + conf->parts[p].nodes;
    }
}

size_t
hetplace_component (const ms_siteconf_t *conf, const unsigned char *fits_k,
                    size_t chosen)
{
    if (chosen >= conf->nparts)
        return SIZE_MAX;
    if (fits_k[chosen])
        return chosen;
    for (size_t p = 0; p < conf->nparts; p++)
        if (fits_k[p] && conf->parts[p].cluster == conf->parts[chosen].cluster)
            return p;
    return SIZE_MAX;
}
