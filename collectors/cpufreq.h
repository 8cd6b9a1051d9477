/* cpufreq.h - the CPU frequency a node actually ran at, from the cpufreq
 * sysfs (/sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq, kHz).
 * Machines without cpufreq (VMs) have none: the observed frequency of their
 * runs stays unknown, never invented. */
#ifndef MS_CPUFREQ_H
#define MS_CPUFREQ_H

#include <stdint.h>

#define CPUFREQ_DEFAULT_ROOT "/sys/devices/system/cpu"

/* Mean of scaling_cur_freq over the CPUs under root (NULL: the default);
 * 0 when no CPU reports one. */
uint32_t cpufreq_mean_khz (const char *root);

#endif /* MS_CPUFREQ_H */
