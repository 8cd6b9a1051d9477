/* predictor.h - time, power and energy of an application on every
 * architecture at every CPU frequency (doc/architecture.md "Models").
 *
 * A predictor_t holds:
 *   - architectures: frequencies, nominal frequency, cores, idle power;
 *   - application signatures: per (app, arch), a robust aggregate of runs at
 *     the arch's nominal frequency;
 *   - per arch, an EAR frequency model: coefficients A..F for every pair
 *     (reference, target) of frequencies, loaded from EAR model files or
 *     fitted from learning runs with GSL;
 *   - cross-architecture models, fitted on demand from the apps seen on
 *     both architectures;
 *   - per arch, a default parametric model for archs without learning runs.
 *
 * Every estimate carries a 90% interval and says where it came from.
 * Nothing here touches a database or the network; see predictor/README.
 */
#ifndef MS_PREDICTOR_H
#define MS_PREDICTOR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "metasched/common/error.h"

typedef struct predictor predictor_t;

typedef enum {
    PRED_SRC_NONE = 0,
    PRED_SRC_MEASURED,   /* the app's own signature, at the nominal frequency */
    PRED_SRC_PROJECTED,  /* own signature + the arch's EAR frequency model */
    PRED_SRC_CROSS_ARCH, /* signature on another arch + cross-arch model */
    PRED_SRC_DEFAULT     /* own signature + the default parametric model */
} pred_source_t;

/* At the arch's nominal frequency; power per node. nruns = 0 means a single
 * published figure with no spread known. */
typedef struct {
    double runtime_s, power_w, cpi, tpi, gbs;
    double nodes;
    int nruns;
    double runtime_sd, power_sd;
} pred_signature_t;

typedef struct {
    double time_s, time_lo, time_hi;       /* job runtime at f; lo/hi: 90% interval */
    double power_w, power_lo, power_hi;    /* per node */
    double energy_j, energy_lo, energy_hi; /* P*T*nodes */
    pred_source_t source;
} pred_estimate_t;

/* One learning run (a row of the runs CSV, doc/metasched-model.1). */
typedef struct {
    const char *app;
    const char *arch;
    uint32_t freq_khz;
    double runtime_s, power_w, cpi, tpi, gbs, nodes;
} pred_run_t;

/* Fit quality of one (reference, target) pair of an arch's EAR model. */
typedef struct {
    int present;            /* 0: no data for this pair ("0 0 0" in a file) */
    int fitted;             /* 1: fitted here (stats below valid); 0: loaded */
    double A, B, C;         /* P(f)   = A*P(ref) + B*TPI(ref) + C */
    double D, E, F;         /* CPI(f) = D*CPI(ref) + E*TPI(ref) + F */
    size_t n_power, n_cpi;  /* runs used */
    size_t apps;            /* distinct apps (distinct design rows) */
    double r2_power, r2_cpi;
    double sd_power, sd_cpi; /* relative residual sd (sd / value) */
} pred_pairstat_t;

/* Fit quality of a cross-architecture model a -> b. */
typedef struct {
    size_t napps;           /* apps seen on both */
    size_t nparams;         /* regressors incl. intercept */
    double r2_time, r2_power;
    double sd_time, sd_power; /* residual sd of log ratios */
} pred_crossstat_t;

predictor_t *predictor_new (void);
void predictor_free (predictor_t *p);

/* ---- architectures (arch.c) ---- */

/* freqs need not be sorted; nominal_khz must be one of them. */
int predictor_add_arch (predictor_t *p, const char *name, int cores_per_node,
                        const uint32_t *freqs_khz, size_t nfreqs,
                        uint32_t nominal_khz, double idle_power_w,
                        ms_error_t *errp);
size_t predictor_narchs (const predictor_t *p);
/* i-th arch: name, and its ascending frequencies (pointers stay valid until
 * predictor_free). Returns NULL when i is out of range. */
const char *predictor_arch_name (const predictor_t *p, size_t i);
int predictor_arch_info (const predictor_t *p, const char *arch,
                         const uint32_t **freqs_khz, size_t *nfreqs,
                         uint32_t *nominal_khz, int *cores_per_node,
                         double *idle_power_w, ms_error_t *errp);

/* ---- signatures (signature.c) ---- */

int predictor_set_signature (predictor_t *p, const char *app, const char *arch,
                             const pred_signature_t *sig, ms_error_t *errp);
/* 0 and *sig filled, or -1 MS_ERR_MISSING. */
int predictor_get_signature (const predictor_t *p, const char *app,
                             const char *arch, pred_signature_t *sig,
                             ms_error_t *errp);
size_t predictor_napps (const predictor_t *p);
const char *predictor_app_name (const predictor_t *p, size_t i);
/* Median-based signature of the runs of each (app, arch) at the arch's
 * nominal frequency: set as the app's signature there (runs elsewhere are
 * learning runs). Replaces an earlier signature. */
int predictor_signatures_from_runs (predictor_t *p, const pred_run_t *runs,
                                    size_t nruns, ms_error_t *errp);

/* ---- EAR frequency projection (project.c) ---- */
/* doc/architecture.md "Frequency model" */

/* T, P, E of `app` on `arch` at f_khz for a job of `nodes` nodes (the
 * signature's runtime scaled to this job is the caller's business: the
 * estimate is for the app's signature run). Uses, in order: the arch's
 * fitted/loaded EAR frequency model from the app's nominal signature there;
 * else the cross-architecture model from another arch's signature; else the
 * default parametric model. Returns -1 (MS_ERR_MISSING) when nothing can be
 * said, never an invented number; MS_ERR_INPUT for an unknown arch or a
 * frequency the arch does not have. */
int predictor_estimate (const predictor_t *p, const char *app, const char *arch,
                        uint32_t f_khz, double nodes, pred_estimate_t *out,
                        ms_error_t *errp);

/* All frequencies of `arch` at once (ascending; out has room for max):
 * looks the app up once, for candidate tables. */
int predictor_estimate_all (const predictor_t *p, const char *app,
                            const char *arch, double nodes,
                            pred_estimate_t *out, size_t max, size_t *nout,
                            ms_error_t *errp);

/* Project a given nominal signature on `arch` to f_khz with the arch's EAR
 * model only (no fallback); MS_ERR_MISSING when the pair has no data. */
int predictor_project (const predictor_t *p, const char *arch,
                       const pred_signature_t *sig, uint32_t f_khz,
                       double nodes, pred_estimate_t *out, ms_error_t *errp);

const char *predictor_source_name (pred_source_t s);

/* ---- EAR model files (modelfile.c); layout in doc/predictor.md ---- */

/* Load `<module>.power` and `<module>.time` as the frequency model of
 * `arch` (N*N rows, row = ref*N + f, index 0 = lowest frequency). */
int predictor_load_ear_model (predictor_t *p, const char *arch,
                              const char *power_path, const char *time_path,
                              ms_error_t *errp);
/* The same from text in memory (name is used in messages); which = 'P'
 * (A B C rows) or 'T' (D E F rows). Used by the fuzz target. */
int predictor_parse_ear_coeffs (predictor_t *p, const char *arch, int which,
                                const char *text, size_t len, const char *name,
                                ms_error_t *errp);
/* Write the arch's model as EAR files (missing pairs as "0 0 0"). */
int predictor_save_ear_model (const predictor_t *p, const char *arch,
                              const char *power_path, const char *time_path,
                              ms_error_t *errp);
/* Read the eamc-2hw `apps` file: signatures of the 8 apps (names lu.C, ep.D,
 * bt-mz.C, sp-mz.C, lu-mz.C, ua.C, DGEMM, STREAM, in that order) on each
 * module; module_arch[i] names the arch for module id i. */
int predictor_load_apps_file (predictor_t *p, const char *path,
                              const char *const *module_arch, size_t nmodules,
                              ms_error_t *errp);
/* Set up the two eamc-2hw node models from DIR: archs `normal` (module 0,
 * 2x Xeon Platinum 8168, 1.2..2.7 GHz) and `normal2` (module 1, 2x Xeon Gold
 * 6254, 1.2..3.1 GHz), their EAR models and the 8 apps' signatures. */
int predictor_load_eamc2hw (predictor_t *p, const char *dir, ms_error_t *errp);
extern const char *const predictor_eamc_apps[8];

/* Pair statistics of arch's model (ref, f both frequencies of arch). */
int predictor_pair_stat (const predictor_t *p, const char *arch,
                         uint32_t ref_khz, uint32_t f_khz, pred_pairstat_t *st,
                         ms_error_t *errp);

/* ---- fitting (fit.c), doc/architecture.md "Frequency model" ---- */

typedef enum { PRED_FIT_OLS = 0, PRED_FIT_ROBUST } pred_fitmode_t;

/* Fit the EAR models of every arch that has learning runs among `runs`
 * (every pair (ref, f) whose apps ran at both frequencies), replacing the
 * arch's previous model pair by pair; pairs without data become missing.
 * Runs of unknown archs or frequencies are an error naming the run index
 * (callers name their own file:line). Apps need a signature-free pass: the
 * reference side of a pair is the per-app mean of its runs at ref. */
int predictor_fit (predictor_t *p, const pred_run_t *runs, size_t nruns,
                   pred_fitmode_t mode, ms_error_t *errp);

/* ---- cross-architecture model (crossarch.c) ---- */
/* doc/architecture.md "Across architectures" */

/* Stats of the model that carries apps from arch a to arch b, as it would be
 * fitted now (apps with signatures on both). MS_ERR_MISSING if too few. */
int predictor_cross_stat (const predictor_t *p, const char *arch_a,
                          const char *arch_b, pred_crossstat_t *st,
                          ms_error_t *errp);
/* Nominal signature of `app` on arch_b predicted from its signature on
 * arch_a, ignoring any signature it has on b (leave-one-app-out evaluation
 * uses this). time and power get a 90% interval. */
int predictor_cross_predict (const predictor_t *p, const char *app,
                             const char *arch_a, const char *arch_b,
                             pred_estimate_t *out, ms_error_t *errp);

/* ---- default parametric model (defmodel.c) ---- */

/* Default parametric model (for archs without learning runs):
 * T(f)=T(nom)*(beta*(nom/f-1)+1), P(f) static+dynamic; per-app beta given,
 * or the documented default. beta < 0 or static_power_share outside [0,1)
 * keep the built-in defaults (doc/predictor.md). */
int predictor_set_default_model (predictor_t *p, const char *arch, double beta,
                                 double static_power_share, ms_error_t *errp);
int predictor_set_app_beta (predictor_t *p, const char *app, double beta,
                            ms_error_t *errp);
/* A beta for one (app, arch); overrides the app's beta there. */
int predictor_set_app_arch_beta (predictor_t *p, const char *app,
                                 const char *arch, double beta,
                                 ms_error_t *errp);

/* ---- Table 6.1 (table61.c) ---- */

/* Signatures of the 8 Table 6.1 apps on partitions p1, p2, p3 (the archs
 * named; NULL skips a partition, archs must exist) and the per-(app, arch)
 * betas derived from its dr_df column (doc/predictor.md). */
int predictor_load_table61 (predictor_t *p, const char *arch_p1,
                            const char *arch_p2, const char *arch_p3,
                            ms_error_t *errp);
/* Frequencies of the three Table 6.1 partitions (kHz, ascending, step
 * 100 MHz): p = 1, 2 or 3. Returns the count written (<= max). */
size_t predictor_table61_freqs (int partition, uint32_t *freqs_khz, size_t max);

/* ---- synthetic runs (synth.c) ---- */

/* Add `count` apps named "<base>~k" whose signatures on arch vary those of
 * the apps already there by log-uniform factors within exp(+-spread). */
int predictor_synth_apps (predictor_t *p, const char *arch, size_t count,
                          double spread, unsigned long seed, ms_error_t *errp);
/* Runs of every app with a signature on arch, runs_per_freq at every
 * frequency whose nominal pair has data, drawn from p's own model with
 * multiplicative Gaussian noise; *runsp (free()) points into p's names. */
int predictor_synth_runs (const predictor_t *p, const char *arch,
                          size_t runs_per_freq, double noise,
                          unsigned long seed, pred_run_t **runsp,
                          size_t *nrunsp, ms_error_t *errp);

/* ---- runs CSV (runs.c) ---- */

/* Read a runs CSV (header: app,arch,freq_khz,runtime_s,power_w,cpi,tpi,gbs,
 * nodes; '#' comments). The strings live in *runsp's own storage; free with
 * predictor_runs_free. Errors name path:line. */
typedef struct pred_runs pred_runs_t;
int predictor_runs_read (const char *path, pred_runs_t **runsp,
                         ms_error_t *errp);
int predictor_runs_parse (const char *text, size_t len, const char *name,
                          pred_runs_t **runsp, ms_error_t *errp);
const pred_run_t *predictor_runs_get (const pred_runs_t *r, size_t *nruns);
/* The CSV line of run i (for messages). */
int predictor_runs_line (const pred_runs_t *r, size_t i);
void predictor_runs_free (pred_runs_t *r);

#endif /* MS_PREDICTOR_H */
