/* jobmix.h - the jobs seen so far, for metasched's width term, drain
 * price and calibrated energy odds. The core keeps one for the simulator
 * (sched_submit), metaschedd its own. */
#ifndef MS_JOBMIX_H
#define MS_JOBMIX_H

#include <stdbool.h>
#include <stddef.h>

#include "metasched/core/candidates.h"
#include "metasched/core/policy.h"
#include "partitions/clusterconf.h"

/* The jobs seen so far, for the policy's width term (ref_nodes) and drain
 * price: how many and their nodes, and per partition, how many jobs only
 * it could run and that needed over half of it (captive), and how many it
 * could run but not every partition (restricted). The core keeps one for
 * the simulator (sched_submit), metaschedd its own. */
typedef struct {
    double first_s, last_s; /* when the first and the last job came
                               (seen: any yet; times may be negative, a
                               replay's history before its window) */
    bool seen;
    double njobs, nodes_sum;
    double captive[MS_MAX_RANKED];
    double restricted[MS_MAX_RANKED];
    /* The last MS_MIX_JOBS jobs with a choice, each as its front: the
     * candidates within the maximum slowdown that no other is both leaner
     * and faster than (predicted energy and runtime), for the
     * calibration of the energy odds (mix_calibrate). */
    struct ms_mixjob *ring;  /* allocated at the first job kept */
    struct ms_mixpt *pts;    /* their hulls' vertices, in the order kept */
    size_t ptspos;           /* where the next job's vertices go */
    float *wj;               /* scratch: each kept job's width term */
    struct ms_mixpick *pick; /* scratch of the bisection (mix_edge) */
    bool no_fronts;          /* keep no fronts: the policy does not calibrate
                                (jobmix_keep_fronts) */
    size_t nring, ringpos;
    size_t since_cal; /* jobs added since the last calibration */
    double scale;     /* the calibrated scale (0: none yet) */
    /* The jobs seen to end (jobmix_observe): their waits and runtimes,
     * each sum decayed by 1 - 1/MS_MIX_OBS a job, and how many were */
    double wait_sum, run_sum;
    size_t nseen;
} ms_jobmix_t;

#define MS_MIX_JOBS 32768
#define MS_MIX_PTS 16
#define MS_MIX_MIN 64
/* The observed waits weigh the last few thousand jobs most: each job
 * seen to end weighs 1, the one before it 1 - 1/MS_MIX_OBS, ... */
#define MS_MIX_OBS 8192
/* The observed waits' share of response from which the lean is
 * cal_lean (jobmix_lean). */
#define MS_LEAN_WAIT_FULL 0.03

void jobmix_init (ms_jobmix_t *m);
void jobmix_free (ms_jobmix_t *m);
/* Whether jobmix_add keeps each job's front for the calibration (on
 * after jobmix_init). A user whose policy never calibrates (not
 * metasched, or cal_lean 0, for the whole run) turns it off, and the
 * calibration then costs nothing; ref_nodes and the drain price's counts
 * are kept either way. */
void jobmix_keep_fronts (ms_jobmix_t *m, bool on);
/* Count a job of `nodes` nodes come at now with candidates cs (every
 * partition it could run on, before any the user asked for); pol gives
 * the maximum slowdown of its front. */
void jobmix_add (ms_jobmix_t *m, const ms_siteconf_t *conf,
                 const ms_policy_t *pol, const ms_cands_t *cs, int nodes,
                 double now);
/* The mean job width into pol (ref_nodes), the arrival rates
 * (captive_rate, restricted_rate): the counts over the time from the
 * first job to the last, at least a day (a few early jobs are not a
 * rate), and for metasched the calibrated odds (odds_scale; from
 * MS_MIX_MIN jobs with a choice on, calibrated again every 32 jobs and a
 * sixteenth of the jobs kept; 0 before). */
void jobmix_apply (ms_jobmix_t *m, const ms_siteconf_t *conf, ms_policy_t *pol);
/* The margins of the kept jobs' static choices at w_E 0.5 and energy odds
 * scale `scale` (1 - their energy over the energy-delay choices', 1 -
 * their runtime over the energy-delay^1.5 choices'); returns the jobs
 * counted (0: none, margins 0): what mix_calibrate balances, for tests. */
size_t jobmix_margins (ms_jobmix_t *m, const ms_policy_t *pol, double scale,
                       double *em, double *tm);
/* The front kept for the job `back` jobs before the last one kept (0:
 * the last): its hull's vertices, fastest first (at most max into e and
 * t), and its energy-delay choice's energy and energy-delay^1.5 choice's
 * runtime (e1, t15, each may be NULL); returns the vertices, 0 where no
 * such job is kept (back >= nring). For tests. */
size_t jobmix_front (const ms_jobmix_t *m, size_t back, float *e, float *t,
                     size_t max, float *e1, float *t15);
/* The jobs counted (jobmix_add) so far. */
size_t jobmix_njobs (const ms_jobmix_t *m);
/* The simulator's mix (sched.c: each job counted at its arrival where
 * the run's policy is metasched's, the only one that reads it; empty
 * otherwise), read-only. */
const ms_jobmix_t *sched_jobmix (const ms_sched_t *s);
/* Count a job seen to end: how long it waited (from its submission to
 * its start) and ran, in seconds; a negative or non-finite one is not
 * counted. */
void jobmix_observe (ms_jobmix_t *m, double wait_s, double run_s);
/* The observed waits' share of the observed response (0 to 1; 0 before
 * any job was seen to end). */
double jobmix_wait_share (const ms_jobmix_t *m);
/* The lean of metasched's calibrated odds (odds_scale is it times the
 * calibrated scale): cal_lean_idle plus (cal_lean - cal_lean_idle) times
 * the observed waits' share of the observed response over
 * MS_LEAN_WAIT_FULL, at most cal_lean; cal_lean while no job was seen to
 * end, or without cal_lean_idle. */
double jobmix_lean (const ms_jobmix_t *m, const ms_policy_t *pol);

#endif /* MS_JOBMIX_H */
