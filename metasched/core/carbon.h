/* carbon.h - the grid's signal per zone: carbon intensity (gCO2eq/kWh)
 * and optionally the price of electricity ($/MWh), one value a step
 * (an hour in the shipped data, tests/data/carbon), past and forecast
 * alike, and each candidate's predicted carbon and cost from it
 * (doc/architecture.md "Carbon and price").
 *
 * A zone's signal is read from a CSV file (carbon_read_csv): a header
 * row naming the columns, among them time_utc (ISO 8601, UTC, the start
 * of the step) and gco2eq_per_kwh, and optionally price_per_mwh; other
 * columns are ignored. An empty value, or a step with no row, is a
 * missing value, never zero. A candidate whose predicted run covers a
 * missing step, or lies past the signal's end by more than stale_s,
 * has no carbon: the score then falls back to energy alone for the job
 * (carbon_apply says so).
 */
#ifndef MS_CARBON_H
#define MS_CARBON_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/common/error.h"
#include "metasched/core/candidates.h"
#include "partitions/clusterconf.h"

typedef struct {
    char zone[MS_NAME_MAX];
    double t0;     /* the first step's start, s since the epoch (UTC) */
    double step;   /* s */
    size_t n;      /* steps */
    double *g;     /* gCO2eq/kWh per step; NAN: missing */
    double *price; /* $/MWh per step; NAN: missing; NULL: no price */
} ms_csig_t;

/* The zones' signals and the zone each cluster draws from. */
typedef struct ms_carbon {
    ms_csig_t *z;
    size_t nz;
    char (*cluster)[MS_NAME_MAX]; /* cluster names ... */
    size_t *czone;                /* ... and their zones' indexes */
    size_t ncl;
    double stale_s; /* the last step holds this long past its end (3600) */
    double epoch;   /* what the caller's time 0 is, s since the epoch (the
                       daemon: 0; the simulator: the first zone's start) */
} ms_carbon_t;

#define MS_CARBON_STALE_S 3600.0

void carbon_init (ms_carbon_t *cb);
void carbon_free (ms_carbon_t *cb);
/* Read the signal of zone from path (the CSV form above) and add it to
 * cb. Errors name path:line and the field. */
int carbon_read_csv (ms_carbon_t *cb, const char *zone, const char *path,
                     ms_error_t *errp);
/* The same from the text buf (NUL-terminated, changed in place), errors
 * naming name:line. */
int carbon_parse_csv (ms_carbon_t *cb, const char *zone, const char *name,
                      char *buf, ms_error_t *errp);
/* The JSON form (carbon_json.c):
 *   {"zone": "Z", "unit": "gCO2eq/kWh",
 *    "points": [{"start": "2026-11-29T14:00Z", "carbon": 312.0,
 *                "price": 81.2}, ...]}
 * zone and unit optional (zone, where given, must be the zone it is read
 * for; unit only gCO2eq/kWh); each point's start ISO 8601 UTC (seconds
 * optional), in order, a whole number of steps (the first two points'
 * distance) after the first; carbon a number >= 0 or null (missing);
 * price ($/MWh) optional, the same. Errors name name, the field and the
 * point's index (points[3].carbon). */
int carbon_parse_json (ms_carbon_t *cb, const char *zone, const char *name,
                       const char *buf, size_t len, ms_error_t *errp);
/* A signal of either form from buf: JSON where its first character that
 * is not blank is '{' or '[', else CSV. */
int carbon_parse_any (ms_carbon_t *cb, const char *zone, const char *name,
                      char *buf, size_t len, ms_error_t *errp);
/* ... read from the file path (at most MS_CARBON_MAX_BYTES). */
int carbon_read_file (ms_carbon_t *cb, const char *zone, const char *path,
                      ms_error_t *errp);
#define MS_CARBON_MAX_BYTES (64u << 20)
/* A signal spans at most this many steps (a year of minutes and more):
 * a far second row or point cannot make it take gigabytes. */
#define MS_CARBON_MAX_STEPS 1000000
/* The readers' parts: zone is a good name not yet in cb; s added to cb
 * (moved: s is left empty); a point at time t put into s, growing it
 * (carbon_point: the first point is the start, the second sets the step;
 * each after the one before, *tprev (< 0: none yet), a whole number of
 * steps after the first and fewer than MS_CARBON_MAX_STEPS; errors begin
 * with where, what names a point: "row", "point"). */
int carbon_check_zone (const ms_carbon_t *cb, const char *zone,
                       const char *name, ms_error_t *errp);
/* The text of the file path (at most MS_CARBON_MAX_BYTES) for zone, a good
 * name not yet in cb; the caller frees *bufp. */
int carbon_read_text (const ms_carbon_t *cb, const char *zone, const char *path,
                      char **bufp, size_t *lenp, ms_error_t *errp);
void carbon_add (ms_carbon_t *cb, ms_csig_t *s);
/* A reader's end: s added to cb where rc >= 0 (0), its arrays freed where
 * not (-1). */
int carbon_keep (ms_carbon_t *cb, ms_csig_t *s, int rc);
int carbon_point (ms_csig_t *s, size_t *cap, double t, double *tprev, double g,
                  double price, bool has_price, const char *where,
                  const char *what, ms_error_t *errp);
/* Cluster draws from zone (a zone read before). */
int carbon_assign (ms_carbon_t *cb, const char *cluster, const char *zone,
                   ms_error_t *errp);
/* The zone's index of a cluster, SIZE_MAX without one. */
size_t carbon_zone_of (const ms_carbon_t *cb, const char *cluster);
/* The mean intensity (*gp) and price (*pp, NAN without one) of signal s
 * over [t, t + dur) (s since the epoch), weighted by time; false where
 * the interval covers a missing step or lies past the signal's end by
 * more than stale_s (then both are NAN). */
bool carbon_over (const ms_csig_t *s, double stale_s, double t, double dur,
                  double *gp, double *pp);
/* The deadline rule: the start, from earliest on, of a run of t seconds
 * (t_hi its upper bound) in zone z with the least value among earliest
 * and the signal's step boundaries after it whose run ends, by its upper
 * bound, at the deadline or before (all in the caller's time, cb->epoch
 * its 0), at most MS_CARBON_SHIFT_STEPS steps on. A start's value is its
 * run's mean intensity plus the price of its delay past earliest, g0 x
 * delay_k per second (g0 the intensity of the run at earliest): delay_k
 * 0 gives the cleanest run (time shifting alone), a larger one shifts
 * only where the run is cleaner by more than the delay costs, INFINITY
 * never. *gp gets the chosen run's intensity. earliest itself without a
 * deadline (deadline <= 0), where even it would end past the deadline,
 * or where the signal has no value at it (then *gp is NAN): a job is
 * never delayed but for a cleaner run before its deadline. Ties go to
 * the earliest. */
double carbon_best_start (const ms_carbon_t *cb, size_t z, double earliest,
                          double t, double t_hi, double deadline,
                          double delay_k, double *gp);
#define MS_CARBON_SHIFT_STEPS 168
/* Each candidate's predicted carbon (g) and cost ($) from its predicted
 * energy and its zone's signal over its predicted run (from now plus its
 * predicted wait, for its predicted runtime); for a job with a deadline
 * (> 0, the caller's time) the run that carbon_best_start picks with
 * delay_k = shift_k / (deadline - now): a delay is priced as a share of
 * the time the user allows the job (from now to its deadline), shift_k
 * times its share of the run's intensity (0: the cleanest run before the
 * deadline; INFINITY: never shifted; rank_shift_k gives metasched's).
 * The delay past the predicted wait goes in the candidate's shift_s (0
 * without). cs->carbon is set when every candidate has its carbon (and
 * cs->cost when each has a cost). Returns how many candidates have
 * none. */
size_t carbon_apply (const ms_carbon_t *cb, const ms_siteconf_t *conf,
                     double now, double deadline, double shift_k,
                     ms_cands_t *cs);
/* "2022-01-01T00:00:00Z" (":00" seconds and Z optional): s since the
 * epoch. */
bool carbon_parse_time (const char *s, double *tp);

#endif /* MS_CARBON_H */
