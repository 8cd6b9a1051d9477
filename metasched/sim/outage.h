/* outage.h - the simulator's cluster outages (`metasched simulate
 * --outage CLUSTER@START+DURATION,...`): while one lasts its cluster takes
 * no new job (sched_set_up); the engine's rules decide what waits and what
 * goes elsewhere (doc/simulator.md, "Outages").
 */
#ifndef MS_OUTAGE_H
#define MS_OUTAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/common/error.h"
#include "partitions/clusterconf.h"

/* At most this many outages in one run. */
#define MS_OUTAGE_MAX 1024

typedef struct {
    size_t cluster; /* index into conf->clusters */
    double start_s; /* after the workload's first submit */
    double dur_s;   /* > 0 */
} ms_outage_t;

typedef struct {
    ms_outage_t *o;
    size_t n;
} ms_outages_t;

/* Parse CLUSTER@START+DURATION[,...] (START and DURATION seconds, or a
 * number with s, m, h or d) against conf's clusters into *out (empty
 * first; outages_free). Errors name `what` (the option) and the item by
 * its place and text. */
int outage_parse (const char *spec, const char *what, const ms_siteconf_t *conf,
                  ms_outages_t *out, ms_error_t *errp);
void outages_free (ms_outages_t *os);

/* Whether cluster c is down at t (s after the first submit). */
bool outage_down (const ms_outages_t *os, size_t c, double t);
/* The first start or end of an outage after t; INFINITY: none. */
double outage_next (const ms_outages_t *os, double t);

#endif /* MS_OUTAGE_H */
