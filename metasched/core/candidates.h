/* candidates.h - the candidates of a job: every (partition, frequency)
 * where it fits, with predicted time, power and energy from the predictor
 * and a predicted wait from the partition's state (doc/architecture.md "Data
 * flow" and "Policies").
 *
 * ms_predtab_t caches the predictor's estimates per (app, partition,
 * frequency) for the app's signature run; a job's own predictions scale
 * them by the job's length: T_j(p, f) = base_j * T_app(p, f) / T_app(home,
 * nominal), where base_j is what the core knows of the job's length at the
 * home's nominal frequency (its time limit, the only length a submission
 * carries). Policies read predictions only through this table.
 *
 * ms_view_t is the core's picture of each partition: running jobs with
 * predicted ends and power, and the node-seconds waiting in its queue. The
 * simulator feeds it from its events; the daemon from backend_jobs.
 */
#ifndef MS_CANDIDATES_H
#define MS_CANDIDATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"
#include "metasched/core/placement.h"
#include "partitions/clusterconf.h"
#include "predictor/predictor.h"
#include "predictor/gpuprof.h"
#include "predictor/speedup.h"

typedef struct {
    uint32_t f_khz;
    double t, t_lo, t_hi; /* signature run, s; t_hi never under t */
    double p, p_lo, p_hi; /* per node, W; p_hi never under p */
    bool ok;              /* the predictor had something to say */
} ms_predent_t;

typedef struct {
    const ms_siteconf_t *conf;
    size_t napps, nparts;
    char **apps;
    size_t *nfreqs; /* per partition (its arch's frequencies) */
    size_t maxf;
    ms_predent_t *e; /* [app][part][f] */
    size_t *nominal; /* per partition: index of the nominal frequency */
    ms_speedup_t *speedup; /* per app: its speedup model (nruns 0: none,
                              a moldable job then takes its minimum) */
    pred_gpuprof_t *gpuprof; /* per app: its GPU profile (app "": none) */
} ms_predtab_t;

/* Estimates of every app the predictor knows on every partition of conf
 * (partition archs are looked up by name in the predictor). */
int predtab_build (const predictor_t *pred, const ms_siteconf_t *conf,
                   ms_predtab_t **tabp, ms_error_t *errp);
void predtab_free (ms_predtab_t *tab);
int predtab_app_index (const ms_predtab_t *tab, const char *app);
/* The GPU profile of app (predictor/gpuprof.h); NULL removes it. */
void predtab_set_gpuprof (ms_predtab_t *tab, size_t app,
                          const pred_gpuprof_t *g);
/* The GPU profile of app, NULL without one. */
const pred_gpuprof_t *predtab_gpuprof (const ms_predtab_t *tab, size_t app);
/* The speedup model of app (predictor/speedup.h) that moldable jobs of
 * the app are sized with; NULL removes it. */
void predtab_set_speedup (ms_predtab_t *tab, size_t app,
                          const ms_speedup_t *sp);

static inline const ms_predent_t *
predtab_get (const ms_predtab_t *tab, size_t app, size_t part, size_t fi)
{
    return &tab->e[(app * tab->nparts + part) * tab->maxf + fi];
}

/* ---- the partitions as the core sees them ---- */

typedef struct ms_view ms_view_t;

ms_view_t *view_new (const ms_siteconf_t *conf);
void view_free (ms_view_t *v);
/* An entry queued on part: key the cluster's job id (0 while it has none),
 * its nodes, predicted runtime, nice and begin time (absolute; 0: now). */
void view_pending_add (ms_view_t *v, size_t part, uint64_t key, int nodes,
                       double pred_s, int nice, double begin);
/* The entry key leaves the queue (key 0, or a key the view does not hold:
 * the first entry of those nodes and predicted runtime). */
void view_pending_remove (ms_view_t *v, size_t part, uint64_t key, int nodes,
                          double pred_s);
/* The queued entry key now has this nice. */
void view_pending_renice (ms_view_t *v, size_t part, uint64_t key, int nice);
void view_run_start (ms_view_t *v, size_t part, uint64_t key, int nodes,
                     double pred_end, double power_w);
void view_run_end (ms_view_t *v, size_t part, uint64_t key);
/* Predicted wait of a job of `nodes` nodes submitted now (doc/architecture.md
 * "Policies": W^ from the running jobs' predicted ends and the queue): the
 * later of the shadow time (enough running jobs ended for it) and the time the
 * queued node-seconds ahead of it take on the whole partition. */
double view_predicted_wait (const ms_view_t *v, size_t part, int nodes,
                            double now);
/* The shadow time alone: how long until enough of the running jobs have
 * ended (by their predicted ends) for `nodes` nodes to be free; 0 when
 * they are free now. The queue does not count. */
double view_shadow_wait (const ms_view_t *v, size_t part, int nodes,
                         double now);
/* Both at once: *waitp the predicted wait, *shadowp (when not NULL) the
 * shadow time it was made from. */
void view_waits (const ms_view_t *v, size_t part, int nodes, double now,
                 double *waitp, double *shadowp);
/* The reservation a job of `nodes` nodes coming now finds ahead of it
 * under EASY backfill: the first entry in queue order (lowest nice, then
 * the oldest) that may start now and does not fit the free nodes starts
 * when enough running jobs have ended (start, s from now); a job that fits
 * the free nodes starts at once if it ends before then or fits the nodes
 * free beside that entry, and otherwise waits until running jobs have
 * ended for it after the entry started, at the latest until the entry
 * ends (blocked, s from now). set is false where no reservation can hold
 * the job back: no such entry, the job fits beside it, or it does not fit
 * the free nodes anyway (it waits for its shadow time, view_waits). */
typedef struct {
    bool set;
    double start;
    double blocked;
} ms_resv_t;

void view_reservation (const ms_view_t *v, size_t part, int nodes, double now,
                       ms_resv_t *r);


/* The node-seconds of the entries queued on part at nice 0 or less and
 * eligible now (its first choices: the jobs that prefer it, and those
 * sent there directly) over its nodes, s: how long they would keep the
 * whole partition. Siblings, at a higher nice, do not count. */
double view_first_drain (const ms_view_t *v, size_t part, double now);

/* What a job of `nodes` nodes finds on part now, for each of its
 * candidates there (part_waits_apply): the predicted wait and the shadow
 * time (view_waits), the reservation ahead of it (view_reservation) and
 * the first choices queued (view_first_drain). */
typedef struct {
    double w, ws, wf;
    ms_resv_t rv;
} ms_partwaits_t;

void view_part_waits (const ms_view_t *v, size_t part, int nodes, double now,
                      ms_partwaits_t *pw);

/* Predicted power of the partition now: running jobs plus idle nodes. */
double view_power (const ms_view_t *v, size_t part);
int view_busy (const ms_view_t *v, size_t part);
/* Under the partition's power cap (power_cap_w of the configuration the
 * view was made from, read at each call, so settings that change it
 * count): how long until the running jobs' predicted ends leave room for
 * `nodes` nodes drawing power_w each (its draw above idle; a job that
 * alone exceeds the cap waits for all of them). 0 without a cap. */
double view_power_wait (const ms_view_t *v, size_t part, int nodes,
                        double power_w, double now);

/* ---- a job's candidates ---- */

typedef struct {
    size_t part;
    size_t fi;
    uint32_t f_khz;
    double t, t_hi; /* the job's predicted runtime, s */
    double p;       /* per node, W */
    double e, e_hi; /* the job's predicted energy, J */
    double w;       /* predicted wait, s (when asked) */
    double ws;      /* the part of it that the running jobs alone make:
                       until enough of them end for the job's nodes (and
                       its power under a cap), s */
    double wf;      /* the partition's queued first choices (entries at
                       nice 0 or less, eligible now): their node-seconds
                       over its nodes, s (view_first_drain) */
    int nodes;      /* the job's node count there (a moldable job's chosen
                       count, candidates_mold) */
    double carbon_g, cost; /* predicted carbon (g) and cost ($) over its
                              predicted run (carbon_apply; valid only
                              where ms_cands_t's carbon, cost say so) */
    double shift_s;        /* ...a job with a deadline: that run starts this
                              long after its predicted wait (0: at once) */
} ms_cand_t;

/* The wait r makes for a job that runs t seconds: r->blocked when it ends
 * after the reservation starts, 0 otherwise. */
static inline double
resv_wait (const ms_resv_t *r, double t)
{
    return r->set && t > r->start ? r->blocked : 0;
}

/* Candidate c's waits from its partition's pw: w (with the reservation,
 * for c's runtime: a job that cannot backfill waits for it), ws, wf. */
static inline void
part_waits_apply (const ms_partwaits_t *pw, ms_cand_t *c)
{
    double r = resv_wait (&pw->rv, c->t);

    c->w = r > pw->w ? r : pw->w;
    c->ws = pw->ws;
    c->wf = pw->wf;
}

typedef struct {
    ms_cand_t *c;
    size_t n, cap;
    size_t home; /* the job's home partition (candidates_build) */
    bool carbon, cost; /* every candidate has its carbon_g, its cost
                          (carbon.h: carbon_apply; candidates_build
                          clears them) */
} ms_cands_t;

/* Fill cs with the candidates of a job of `nodes` nodes, app index app,
 * whose length at the home partition's nominal frequency is base_s. With
 * view non-NULL, each candidate gets its partition's predicted wait. */
void candidates_build (const ms_predtab_t *tab, size_t app, size_t home,
                       int nodes, double base_s, const ms_view_t *view,
                       double now, ms_cands_t *cs);
/* A GPU job (gpus per node > 0) is a candidate only where its partition
 * has that many GPUs per node, and draws their busy power there besides
 * the node's (gpu_busy_power_w each, doc/architecture.md "Policies"): drop the
 * other candidates, add the GPUs' power to the rest. Nothing for gpus <= 0. */
/* May a job of r's nodes, time limit, memory and features, with gpus
 * GPUs per node, run on partition p of conf by its configured size, GPUs
 * and limits (the checks candidates_build, candidates_gpus and
 * candidates_limits make)? */
bool candidates_part_fits (const ms_siteconf_t *conf, size_t p,
                           const ms_place_req_t *r, int gpus);
void candidates_gpus (const ms_siteconf_t *conf, int nodes, int gpus,
                      ms_cands_t *cs);
/* A GPU job (gpus > 0) of an app with a GPU profile, on candidates that
 * candidates_gpus kept: each GPU draws the app's gpu_busy_power_w where
 * the profile gives one (instead of the partition's), and the time is
 * scaled by the app's gpu_time ratio for the partition's gpu_model; the
 * energy follows. Nothing without a profile or for gpus <= 0. */
void candidates_gpu_profile (const ms_predtab_t *tab, size_t app, int gpus,
                             ms_cands_t *cs);
/* A moldable job (msbatch -N nmin-nmax, nmax > nmin) on candidates built
 * for nmin nodes: each candidate takes the node count speedup_choose
 * gives with the app's speedup model, the candidate's power per node and
 * its partition's predicted wait (view may be NULL: no wait), within the
 * partition's nodes and max_nodes, under the energy weight w_e; its time,
 * energy and wait become those of that count (T(n) / T(nmin) of the
 * model). Without a model, or nmax <= nmin, nothing changes. */
void candidates_mold (const ms_predtab_t *tab, size_t app, int nmin, int nmax,
                      double w_e, const ms_view_t *view, double now,
                      ms_cands_t *cs);
/* The same for a job of a --nodes list (sizes: "2,4,8", NULL: any from
 * nmin to nmax): the count chosen is one of the list. */
void candidates_mold_sizes (const ms_predtab_t *tab, size_t app, int nmin,
                            int nmax, const char *sizes, double w_e,
                            const ms_view_t *view, double now,
                            ms_cands_t *cs);
/* The most GPUs per node any partition of conf offers (0: none). */
int candidates_max_gpus (const ms_siteconf_t *conf);
/* dst becomes a copy of src: its candidates (dst's array reused, grown
 * as needed) and what the list says of them (home, carbon, cost). */
void candidates_copy (ms_cands_t *dst, const ms_cands_t *src);
void candidates_free (ms_cands_t *cs);
/* Keep the candidates whose partition's limits in clusters.conf
 * (max_time, max_nodes, min_nodes: the simulated clusters') take a job of
 * `nodes` nodes and a time limit of limit_s (0: none). */
void candidates_limits (const ms_siteconf_t *conf, int nodes, double limit_s,
                        ms_cands_t *cs);

#endif /* MS_CANDIDATES_H */
