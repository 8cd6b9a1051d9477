/* rapl.h - package and DRAM energy through the Linux powercap sysfs.
 *
 * Under a powercap root (default /sys/class/powercap) each CPU package is a
 * zone intel-rapl:N (name "package-N") and its DRAM a sub-zone
 * intel-rapl:N:M named "dram". energy_uj is a free-running counter that
 * wraps at max_energy_range_uj. Since Linux 5.10 energy_uj is readable by
 * root only (CVE-2020-8694); rapl_open still succeeds then and marks the
 * zone unreadable, and rapl_hint_unreadable says how to grant access.
 */
#ifndef MS_RAPL_H
#define MS_RAPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"

#define RAPL_DEFAULT_ROOT "/sys/class/powercap"
#define RAPL_MAX_ZONES 32

typedef enum { RAPL_PACKAGE = 0, RAPL_DRAM } rapl_kind_t;

typedef struct {
    char path[512];         /* the zone's directory */
    char name[32];          /* "package-0", "dram" */
    rapl_kind_t kind;
    int package;            /* N of intel-rapl:N */
    uint64_t max_range_uj;  /* the counter wraps here */
    bool readable;          /* energy_uj could be read at open */
    char error[256];        /* why not, when !readable */
} rapl_zone_t;

typedef struct rapl rapl_t;

/* A reading of every zone (index = zone index). ok[i] false: zone i could
 * not be read this time. */
typedef struct {
    double time;            /* CLOCK_REALTIME seconds */
    uint64_t uj[RAPL_MAX_ZONES];
    bool ok[RAPL_MAX_ZONES];
} rapl_sample_t;

/* Find the package zones and their DRAM sub-zones under root (NULL: the
 * default). Fails only when root holds no package zone at all; zones that
 * cannot be read are kept and marked (see rapl_zone). */
int rapl_open (const char *root, rapl_t **rp, ms_error_t *errp);
void rapl_close (rapl_t *r);

size_t rapl_nzones (const rapl_t *r);
const rapl_zone_t *rapl_zone (const rapl_t *r, size_t i);
/* true when some zone was unreadable at open. */
bool rapl_any_unreadable (const rapl_t *r);
/* How to let a non-root user read energy_uj (for messages and docs). */
const char *rapl_hint_unreadable (void);

/* Read every zone's energy_uj. Returns the number of zones read; -1 with
 * errp when none could be read (errp then names the first failure). */
int rapl_read (rapl_t *r, rapl_sample_t *s, ms_error_t *errp);

/* Energy between two readings of a counter that wraps at max_range:
 * at most one wrap is assumed (the caller samples often enough). */
uint64_t rapl_delta (uint64_t before, uint64_t after, uint64_t max_range);

/* Mean power (W) between readings a and b (b later): the sum over the
 * zones read in both (a wrap handled per zone, at most one), DRAM
 * included. A zone missing from either reading is left out; -1 when no
 * zone was read in both or no time passed between them. */
double rapl_interval_watts (const rapl_t *r, const rapl_sample_t *a,
                            const rapl_sample_t *b);

/* Seconds between samples such that at most one wrap can occur: the time
 * to wrap at max_power_w, halved for safety, clamped to [0.05, 3600]. */
double rapl_sample_interval (uint64_t max_range_uj, double max_power_w);
/* The shortest interval over the zones (max_power_w per package). */
double rapl_min_interval (const rapl_t *r, double max_power_w);

/* Parse a powercap counter file's text (a decimal, optional newline) as
 * written by the kernel; -1 with errp naming `what` on garbage. */
int rapl_parse_u64 (const char *text, size_t len, const char *what,
                    uint64_t *v, ms_error_t *errp);

/* Running totals per zone across many readings (handles wraps). */
typedef struct {
    rapl_sample_t first;
    rapl_sample_t last;
    double total_uj[RAPL_MAX_ZONES];
    bool valid[RAPL_MAX_ZONES];   /* every reading of the zone succeeded */
    unsigned wraps[RAPL_MAX_ZONES];
} rapl_accum_t;

void rapl_accum_start (rapl_accum_t *a, const rapl_t *r,
                       const rapl_sample_t *s);
void rapl_accum_add (rapl_accum_t *a, const rapl_t *r, const rapl_sample_t *s);
/* Package and DRAM joules summed over the zones (< 0: none valid). */
void rapl_accum_energy (const rapl_accum_t *a, const rapl_t *r, double *pkg_j,
                        double *dram_j);

#endif /* MS_RAPL_H */
