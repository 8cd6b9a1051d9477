/* siminput.c - the inputs of `metasched simulate` beyond a trace or the
 * generator: apps' GPU profiles (--gpu-profiles), moldable jobs' speedup
 * models (--moldable-share) and what moldability saved. The site's own
 * history as the workload (--from-db) is simhistory.c's.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/admin/siminput.h"
#include "metasched/common/util.h"
#include "predictor/gpuprof.h"
#include "predictor/speedup.h"

/* ---- apps' GPU profiles (--gpu-profiles) ---- */

/* Load the profiles into the prediction table; the jobs of an app whose
 * profile gives gpus_per_node become GPU jobs with that many GPUs per
 * node (their nodes clipped to the largest partition with as many). */
int
siminput_gpu_profiles (const opts_t *o, const ms_siteconf_t *conf,
                       ms_predtab_t *tab, ms_workload_t *wl, ms_error_t *errp)
{
    pred_gpuprof_t *gp = NULL;
    size_t n = 0, njobs = 0;

    if (gpuprof_load (o->gpu_profiles, &gp, &n, errp) < 0)
        return ms_err_prefix (errp, "--gpu-profiles");
    for (size_t i = 0; i < n; i++) {
        int a = predtab_app_index (tab, gp[i].app), maxn = 0;
        if (a < 0) {
            ms_err (errp, MS_ERR_INPUT,
                    "--gpu-profiles: %s:%d: app %s is not in the profiles "
                    "(%s)",
                    o->gpu_profiles, gp[i].line, gp[i].app, o->profiles);
            free (gp);
            return -1;
        }
        predtab_set_gpuprof (tab, (size_t)a, &gp[i]);
        if (!gp[i].gpus_per_node)
            continue;
        for (size_t p = 0; p < conf->nparts; p++)
            if (conf->parts[p].gpus_per_node >= gp[i].gpus_per_node
                && conf->parts[p].nodes > maxn)
                maxn = conf->parts[p].nodes;
        if (!maxn) {
            ms_err (errp, MS_ERR_INPUT,
                    "--gpu-profiles: %s:%d: app %s uses %d GPUs per node; "
                    "the most a partition of %s has is %d",
                    o->gpu_profiles, gp[i].line, gp[i].app,
                    gp[i].gpus_per_node, conf->path,
                    candidates_max_gpus (conf));
            free (gp);
            return -1;
        }
        for (size_t k = 0; k < wl->njobs; k++)
            if (wl->jobs[k].app == a) {
                wl->jobs[k].gpus = gp[i].gpus_per_node;
                if (wl->jobs[k].nodes > maxn)
                    wl->jobs[k].nodes = maxn;
                njobs++;
            }
    }
    if (!o->quiet)
        printf ("GPU profiles: %s, %zu apps; %zu jobs of GPU apps\n",
                o->gpu_profiles, n, njobs);
    free (gp);
    return 0;
}

/* ---- moldable jobs (--moldable-share) ---- */

/* Each app's true serial fraction (a hash of the seed and the app,
 * uniform in MOLD_SERIAL_LO..HI), and the speedup model the core sizes
 * its moldable jobs with: fitted, as a site would, from runs of the app
 * at 1, 2, 4 and 8 nodes (three each) drawn from that truth with the
 * truth's runtime noise. */
int
siminput_moldable_models (const opts_t *o, ms_predtab_t *tab, double *serial,
                          ms_error_t *errp)
{
    static const int counts[] = { 1, 2, 4, 8 };
    for (size_t a = 0; a < tab->napps; a++) {
        int nodes[12];
        double t[12];
        size_t n = 0;
        ms_speedup_t sp;
        uint64_t h = ms_hash64 (o->seed * 0x100000001b3ULL ^ a ^ 0x73706475ULL);
        double sf = MOLD_SERIAL_LO
                    + (MOLD_SERIAL_HI - MOLD_SERIAL_LO) * ms_hash_unit (h);
        serial[a] = sf;
        for (size_t k = 0; k < 4; k++)
            for (int r = 0; r < 3; r++) {
                h = ms_hash64 (h + 1);
                nodes[n] = counts[k];
                t[n++] = 3600 * (sf + (1 - sf) / counts[k])
                         * exp (o->noise * ms_hash_normal (h));
            }
        if (speedup_fit (nodes, t, n, &sp, errp) < 0)
            return ms_err_prefix (errp, "--moldable-share: app %s",
                                  tab->apps[a]);
        predtab_set_speedup (tab, a, &sp);
    }
    return 0;
}

/* What moldability saved: metasched (the first of its rows) on the same
 * workload with every moldable job fixed at its minimum. */
int
siminput_moldable_saved (const opts_t *o, ms_simsetup_t *su,
                         const ms_policy_t *pols, size_t npols,
                         const ms_summary_t *rows, ms_jobrec_t *recs,
                         ms_error_t *errp)
{
    ms_workload_t fixed = *su->wl;
    const ms_workload_t *wl = su->wl;
    ms_summary_t fs;
    size_t k, nmold = 0;
    double wider = 0;
    int rc;

    for (k = 0; k < npols; k++)
        if (pols[k].kind == POL_METASCHED)
            break;
    if (k == npols)
        return 0;
    fixed.jobs = ms_xcalloc (wl->njobs + 1, sizeof (*fixed.jobs));
    memcpy (fixed.jobs, wl->jobs, wl->njobs * sizeof (*fixed.jobs));
    for (size_t i = 0; i < wl->njobs; i++)
        fixed.jobs[i].nodes_max = 0;
    su->wl = &fixed;
    su->progress = "metasched, moldable jobs fixed";
    rc = simulate_run (su, &pols[k], recs, &fs, errp);
    su->wl = wl;
    free (fixed.jobs);
    if (rc < 0)
        return -1;
    (void)o;
    /* the moldable run's counts: simulate_run left the last policy's
     * records, so run the moldable one again for them */
    ms_summary_t ms;
    if (simulate_run (su, &pols[k], recs, &ms, errp) < 0)
        return -1;
    for (size_t i = 0; i < wl->njobs; i++)
        if (wl->jobs[i].nodes_max > 0 && !recs[i].rejected) {
            nmold++;
            wider += recs[i].nodes - wl->jobs[i].nodes;
        }
    printf ("\nmoldable jobs under %s: %zu ran on %.2f nodes more than "
            "their minimum on average; against the same workload with every "
            "job on its minimum: job energy %.4f GJ against %.4f GJ "
            "(%+.2f%%), system energy %+.2f%%, mean response %.2f h against "
            "%.2f h (%+.2f%%), mean wait %.2f h against %.2f h\n",
            rows[k].label, nmold, nmold ? wider / nmold : 0,
            ms.job_energy_j / 1e9, fs.job_energy_j / 1e9,
            fs.job_energy_j > 0
                ? 100 * (ms.job_energy_j / fs.job_energy_j - 1)
                : 0,
            fs.system_energy_j > 0
                ? 100 * (ms.system_energy_j / fs.system_energy_j - 1)
                : 0,
            ms.mean_response / 3600, fs.mean_response / 3600,
            fs.mean_response > 0
                ? 100 * (ms.mean_response / fs.mean_response - 1)
                : 0,
            ms.mean_wait / 3600, fs.mean_wait / 3600);
    return 0;
}
