/* predict.c - the predictions: the predictor loaded from the database
 * with a signature for apps never seen, the prediction table built from
 * it, and the periodic refit of the models from the learning runs.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

/* ---- predictions ---- */

/* A signature for jobs of apps never seen ("unknown"), on every arch that
 * has none: an hour at nominal frequency on the fastest clock, power
 * 2.5 times idle; the default model does the rest (doc/architecture.md
 * "Uncertainty": no history, nominal frequency and a performance-leaning
 * choice). */
static void
add_unknown_app (predictor_t *p, const ms_siteconf_t *site)
{
    uint32_t fmax = 0;
    for (size_t a = 0; a < site->narchs; a++)
        if (site->archs[a].nominal_khz > fmax)
            fmax = site->archs[a].nominal_khz;
    for (size_t a = 0; a < site->narchs; a++) {
        const ms_arch_t *ar = &site->archs[a];
        pred_signature_t sig;
        ms_error_t e;
        if (predictor_get_signature (p, UNKNOWN_APP, ar->name, &sig, &e) == 0)
            continue;
        memset (&sig, 0, sizeof (sig));
        sig.runtime_s = 3600.0 * fmax / ar->nominal_khz;
        sig.power_w = ar->idle_power_w > 0 ? 2.5 * ar->idle_power_w : 250;
        sig.nodes = 1;
        if (predictor_set_signature (p, UNKNOWN_APP, ar->name, &sig, &e) < 0)
            daemon_log (LOG_WARNING, "architecture %s: %s", ar->name, e.text);
    }
}

/* The apps' GPU profiles of gpu_profiles (metaschedd.conf) on the apps
 * the predictor knows; a profile of an app it does not know yet waits for
 * a reload that knows it. "unknown" is the app of the jobs that name none
 * the predictor knows. The jobs' GPU counts are what they ask for: a
 * profile's gpus_per_node is the simulator's. */
static void
apply_gpu_profiles (ms_daemon_t *d, ms_predtab_t *tab)
{
    size_t used = 0;

    for (size_t i = 0; i < d->dc->ngpuprof; i++) {
        const pred_gpuprof_t *g = &d->dc->gpuprof[i];
        int a = predtab_app_index (tab, g->app);
        if (a < 0) {
            daemon_log (LOG_DEBUG,
                        "%s:%d: GPU profile of app %s: no such app in the "
                        "predictor yet",
                        d->dc->gpu_profiles, g->line, g->app);
            continue;
        }
        predtab_set_gpuprof (tab, (size_t)a, g);
        used++;
    }
    if (d->dc->ngpuprof)
        daemon_log (LOG_INFO, "GPU profiles: %zu of %zu apps of %s", used,
                    d->dc->ngpuprof, d->dc->gpu_profiles);
}

int
load_predictor (ms_daemon_t *d, ms_error_t *errp)
{
    predictor_t *p = predictor_new ();
    ms_predtab_t *tab = NULL;
    size_t npairs = 0;

    if (db_predictor_load (d->db, p, &npairs, errp) < 0) {
        predictor_free (p);
        return ms_err_prefix (errp, "loading the predictor");
    }
    add_unknown_app (p, d->site);
    if (predtab_build (p, d->site, &tab, errp) < 0) {
        predictor_free (p);
        return ms_err_prefix (errp, "building the predictions");
    }
    /* the apps' speedup models, for moldable jobs */
    {
        db_speedup_t *sm = NULL;
        size_t nsm = 0, used = 0;
        ms_error_t e2;
        if (db_speedup_load (d->db, &sm, &nsm, &e2) < 0)
            daemon_log (LOG_WARNING, "speedup models: %s", e2.text);
        for (size_t i = 0; i < nsm; i++) {
            int a = predtab_app_index (tab, sm[i].app);
            if (a < 0)
                continue;
            predtab_set_speedup (tab, (size_t)a, &sm[i].sp);
            used++;
            daemon_log (LOG_DEBUG,
                        "speedup of %s: T(n) = %.1f + %.1f / n s, from %zu "
                        "runs at %d-%d nodes on %s/%s",
                        sm[i].app, sm[i].sp.a, sm[i].sp.b, sm[i].sp.nruns,
                        sm[i].sp.nmin, sm[i].sp.nmax, sm[i].cluster,
                        sm[i].partition);
        }
        free (sm);
        if (used)
            daemon_log (LOG_INFO, "speedup models: %zu apps", used);
    }
    apply_gpu_profiles (d, tab);
    pthread_mutex_lock (&d->ds.mu);
    /* a snapshot may still read the old table: its holders free it */
    if (d->sn.tabh)
        tabhold_release (d, d->sn.tabh);
    else
        predtab_free (d->ds.tab);
    predictor_free (d->ds.pred);
    d->ds.tab = tab;
    d->sn.tabh = tabhold_new (tab);
    d->ds.pred = p;
    pthread_mutex_unlock (&d->ds.mu);
    d->last_pred_load = mono ();
    daemon_log (LOG_INFO, "predictor loaded: %zu apps, %zu stored pairs",
                tab->napps, npairs);
    return 0;
}

void
daemon_refit (ms_daemon_t *d)
{
    predictor_t *p = predictor_new ();
    size_t nruns = 0, stored = 0;
    ms_error_t e;

    if (db_predictor_archs (d->db, p, NULL, &e) < 0
        || db_fit_and_store (d->db, p, PRED_FIT_ROBUST, &nruns, &stored, &e)
               < 0)
        daemon_log (LOG_WARNING, "refit: %s", e.text);
    else
        daemon_log (LOG_INFO,
                    "refit: %zu learning runs, %zu model pairs "
                    "stored",
                    nruns, stored);
    predictor_free (p);
    d->last_refit = mono ();
    if (load_predictor (d, &e) < 0)
        daemon_log (LOG_WARNING, "%s", e.text);
}
