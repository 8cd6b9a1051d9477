/* gpuprof.h - the GPU side of app profiles: whether an app's jobs use
 * GPUs (how many per node), what one of its busy GPUs draws, and how its
 * runtime scales between GPU models (doc/predictor.md, "GPU profiles").
 *
 * The file has one section per app:
 *
 *   [app lu]
 *   gpus_per_node    = 2            # its jobs use 2 GPUs per node
 *   gpu_busy_power_w = 250          # one busy GPU of its jobs (W)
 *   gpu_time         = a100:1, v100:1.8   # runtime ratio per GPU model
 *
 * gpu_time gives the app's runtime on a partition whose GPUs are of that
 * model (clusters.conf's gpu_model) relative to its runtime elsewhere
 * (the CPU profile's prediction): 1 for a model it does not list. Every
 * key is optional; '#' starts a comment. Errors name file:line.
 */
#ifndef MS_GPUPROF_H
#define MS_GPUPROF_H

#include <stddef.h>

#include "metasched/common/error.h"

#define GPUPROF_MAX_MODELS 16

typedef struct {
    char app[64];
    int gpus_per_node;   /* 0: its jobs use no GPUs */
    double busy_power_w; /* 0: the partition's gpu_busy_power_w */
    size_t nmodels;
    char model[GPUPROF_MAX_MODELS][64];
    double time_ratio[GPUPROF_MAX_MODELS];
    int line;            /* its section's line */
} pred_gpuprof_t;

/* Parse text (name: the file name in errors); *out malloc'd, *n entries. */
int gpuprof_parse (const char *text, size_t len, const char *name,
                   pred_gpuprof_t **out, size_t *n, ms_error_t *errp);
int gpuprof_load (const char *path, pred_gpuprof_t **out, size_t *n,
                  ms_error_t *errp);
/* The runtime ratio of g on GPUs of model (1: none given; g NULL: 1). */
double gpuprof_time_ratio (const pred_gpuprof_t *g, const char *model);

#endif /* MS_GPUPROF_H */
