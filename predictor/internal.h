/* internal.h - the predictor's private structures, shared by its files.
 * Nothing outside predictor/ includes this. */
#ifndef MS_PREDICTOR_INTERNAL_H
#define MS_PREDICTOR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "predictor/predictor.h"

#define PRED_NAME_MAX 64
#define PRED_MAX_ARCHS 32
#define PRED_MAX_FREQS 64

/* Two-sided 90% interval: the 0.95 quantile. */
#define PRED_Q 0.95

/* Why a pair has no coefficients. */
typedef enum {
    PAIR_NO_DATA = 0, /* no runs at both frequencies / "0 0 0" in a file */
    PAIR_TOO_FEW,     /* fewer runs or distinct apps than parameters + 1 */
    PAIR_SINGULAR,    /* the design matrix has rank < 3 */
    PAIR_OK
} pair_state_t;

/* One (reference, target) pair of an EAR model. Coefficient order follows
 * the design columns [1, x_ref, TPI_ref]: cp = {C, A, B}, cc = {F, D, E}. */
typedef struct {
    pair_state_t state;
    unsigned char has_p, has_c; /* loaded power / time rows present */
    int fitted;                 /* covariance and residuals below are valid */
    double cp[3], cc[3];
    double cov_p[9], cov_c[9];  /* coefficient covariance (scaled by s^2) */
    double sd_p, sd_c;          /* relative residual sd of P and CPI */
    double sd_logt;             /* residual sd of log(T_run / T_predicted) */
    double tq;                  /* t quantile for dof = n - 3 */
    double r2_p, r2_c;
    size_t n, apps;
    double h_loaded;            /* log half-width of a loaded pair (no fit
                                 * statistics), set when it is read */
} pred_pair_t;

typedef struct {
    char name[PRED_NAME_MAX];
    int cores;
    uint32_t freqs[PRED_MAX_FREQS]; /* ascending */
    size_t nf;
    size_t nom;                     /* index of the nominal frequency */
    double idle_w;
    pred_pair_t *pairs;             /* nf*nf, row = ref*nf + f; NULL: no model */
    double def_beta;                /* default parametric model */
    double def_static;
} pred_arch_t;

typedef struct {
    char name[PRED_NAME_MAX];
    double beta;                      /* NAN: not set */
    double arch_beta[PRED_MAX_ARCHS]; /* NAN: not set */
    unsigned char has[PRED_MAX_ARCHS];
    pred_signature_t sig[PRED_MAX_ARCHS];
} pred_app_t;

/* A fitted cross-architecture model a -> b, doc/architecture.md "Across
 * architectures". */
typedef struct {
    int state;                  /* 0 not fitted, 1 ok, -1 too few apps */
    size_t napps, np;
    int use[3];                 /* which of cpi, tpi, gbs are regressors */
    double bt[4], bp[4];        /* coefficients for log(T_b/T_a), log(P_b/P_a) */
    double cov_t[16], cov_p[16];
    double sd_t, sd_p, tq;
    double r2_t, r2_p;
    double mean[3], scale[3];   /* regressor standardisation */
} pred_cross_t;

typedef struct {
    unsigned long version;      /* of the signatures it was fitted from */
    pred_cross_t m[PRED_MAX_ARCHS * PRED_MAX_ARCHS];
} pred_cache_t;

struct predictor {
    pred_arch_t archs[PRED_MAX_ARCHS];
    size_t narchs;
    pred_app_t **apps;
    size_t napps, capps;
    size_t *hash;               /* open addressing: app index + 1, 0 empty */
    size_t nhash;
    unsigned long version;      /* bumped when a signature changes */
    pred_cache_t *cache;        /* lazily fitted cross models (mutable) */
};

/* arch.c */
int pred_arch_index (const predictor_t *p, const char *name);
int pred_freq_index (const pred_arch_t *a, uint32_t khz);
int pred_arch_lookup (const predictor_t *p, const char *name, pred_arch_t **ap,
                      ms_error_t *errp);

/* signature.c */
pred_app_t *pred_app_find (const predictor_t *p, const char *name);
pred_app_t *pred_app_get (predictor_t *p, const char *name);
double pred_median (double *v, size_t n);

/* ear.c: the EAR projection and the intervals, below every model file
 * (project.c, crossarch.c, defmodel.c, fit.c and synth.c call it) */
double pred_tq (double dof);
void pred_interval (double x, double h, double *lo, double *hi);
double pred_sig_rel_se (double sd, double x, int n);
int pred_project_pair (const pred_arch_t *a, size_t fi,
                       const pred_signature_t *sig, double *t, double *ht,
                       double *pw, double *hp);

/* ear.c */
/* Relative model error assumed for EAR coefficients loaded from files, which
 * carry no fit statistics, at the frequency farthest from nominal; it scales
 * with |log(nom/f)|. Derived in doc/predictor.md ("Loaded models"): the
 * RMS of log(T_EAR(fmin)/T_table(fmin)) between the eamc-2hw projections and
 * the runtimes implied by Table 6.1's dr_df, 16 (app, module) cases. */
#define PRED_LOADED_REL_SD 0.064

/* defmodel.c */
#define PRED_DEFAULT_BETA 0.751
#define PRED_DEFAULT_BETA_SD 0.341
#define PRED_DEFAULT_STATIC 0.426
#define PRED_DEFAULT_STATIC_SD 0.097
#define PRED_DEFAULT_GAMMA 2.0
#define PRED_APP_BETA_SD 0.095
int pred_default_project (const predictor_t *p, const pred_arch_t *a,
                          const pred_app_t *app, int ai, size_t fi,
                          const pred_signature_t *sig, double *t, double *ht,
                          double *pw, double *hp);

/* table61.c */
double pred_table61_beta (size_t app, int partition0);

/* crossarch.c */
int pred_cross_sig (const predictor_t *p, const pred_app_t *app, int bi,
                    int *ai_out, pred_signature_t *sig, double *ht,
                    double *hp, ms_error_t *errp);

#endif
