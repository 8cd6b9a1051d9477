/* test_gpuprof.c - the GPU side of app profiles (predictor/gpuprof.h):
 * the file format and its errors (file:line), the candidates of a GPU
 * job of a profiled app (its GPUs' busy power, its GPU model's time
 * ratio), and a simulated run whose truth follows the profile. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/sim/simulate.h"
#include "predictor/gpuprof.h"
#include "predictor/predictor.h"
#include "tests/simworld.h"
#include "tests/testutil.h"

static const char site[] = SIMWORLD_GPU_SITE;

START_TEST (test_parse)
{
    static const char good[]
        = "# GPU apps\n"
          "[app lu]\n"
          "gpus_per_node = 2   # two a node\n"
          "gpu_busy_power_w = 250\n"
          "gpu_time = a100:1, v100:1.8\n"
          "\n"
          "[app ep]\n"
          "gpu_busy_power_w = 120.5\n";
    static const struct {
        const char *text, *want;
    } bad[] = {
        { "gpus_per_node = 1\n", "p:1: gpus_per_node outside an [app NAME]" },
        { "[app lu]\ngpus_per_node = 1.5\n", "p:2: gpus_per_node: 0 to 64" },
        { "[app lu]\ngpus_per_node = 65\n", "p:2: gpus_per_node: 0 to 64" },
        { "[app lu]\ngpu_busy_power_w = -3\n", "p:2: gpu_busy_power_w" },
        { "[app lu]\ngpu_time = a100\n", "p:2: gpu_time: MODEL:RATIO" },
        { "[app lu]\ngpu_time = a100:0\n", "p:2: gpu_time a100: a ratio" },
        { "[app lu]\ngpu_time = a100:1,a100:2\n", "p:2: gpu_time: model a100 twice" },
        { "[app lu]\nfoo = 1\n", "p:2: unknown key 'foo'" },
        { "[app lu]\n[app lu]\n", "p:2: app lu again (first at line 1)" },
        { "[cluster x]\n", "p:1: a section is [app NAME]" },
        { "[app l/u]\n", "p:1: bad app name 'l/u'" },
        { "[app lu]\ngpus_per_node 2\n", "p:2: KEY = VALUE" },
    };
    pred_gpuprof_t *g;
    size_t n;
    ms_error_t err;

    ck_assert_msg (gpuprof_parse (good, strlen (good), "p", &g, &n, &err) == 0,
                   "%s", err.text);
    ck_assert_uint_eq (n, 2);
    ck_assert_str_eq (g[0].app, "lu");
    ck_assert_int_eq (g[0].gpus_per_node, 2);
    ck_assert (g[0].busy_power_w == 250);
    ck_assert (gpuprof_time_ratio (&g[0], "v100") == 1.8);
    ck_assert (gpuprof_time_ratio (&g[0], "a100") == 1);
    ck_assert (gpuprof_time_ratio (&g[0], "h100") == 1);
    ck_assert (gpuprof_time_ratio (NULL, "v100") == 1);
    ck_assert_int_eq (g[1].gpus_per_node, 0);
    ck_assert (g[1].busy_power_w == 120.5 && g[1].nmodels == 0);
    ck_assert_int_eq (g[1].line, 7);
    free (g);
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        ck_assert_msg (gpuprof_parse (bad[i].text, strlen (bad[i].text), "p",
                                      &g, &n, &err)
                           < 0,
                       "accepted: %s", bad[i].text);
        ck_assert_msg (strstr (err.text, bad[i].want), "'%s': %s (wanted %s)",
                       bad[i].text, err.text, bad[i].want);
    }
    ck_assert (gpuprof_load ("/nonexistent/gpu.prof", &g, &n, &err) < 0);
    ck_assert (strstr (err.text, "/nonexistent/gpu.prof"));
}
END_TEST

static void
world_init (world_t *w)
{
    world_init_site (w, site, "gpu");
}

static const char prof[] = "[app X]\ngpus_per_node = 2\ngpu_busy_power_w = 250\n"
                           "gpu_time = a100:1, v100:1.8\n";

static void
set_prof (world_t *w, size_t app)
{
    pred_gpuprof_t *g;
    size_t n;
    ms_error_t err;
    ck_assert (gpuprof_parse (prof, strlen (prof), "p", &g, &n, &err) == 0);
    ms_strlcpy (g[0].app, w->tab->apps[app], sizeof (g[0].app));
    predtab_set_gpuprof (w->tab, app, &g[0]);
    free (g);
}

START_TEST (test_candidates)
{
    world_t w;
    ms_cands_t base = { 0 }, cs = { 0 };

    world_init (&w);
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &base);
    candidates_gpus (w.conf, 2, 2, &base);
    /* no profile: nothing changes */
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_gpus (w.conf, 2, 2, &cs);
    candidates_gpu_profile (w.tab, 0, 2, &cs);
    ck_assert_uint_eq (cs.n, base.n);
    for (size_t i = 0; i < cs.n; i++)
        ck_assert (cs.c[i].p == base.c[i].p && cs.c[i].t == base.c[i].t);
    set_prof (&w, 0);
    ck_assert (predtab_gpuprof (w.tab, 0) && !predtab_gpuprof (w.tab, 1));
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_gpus (w.conf, 2, 2, &cs);
    candidates_gpu_profile (w.tab, 0, 2, &cs);
    ck_assert_uint_gt (cs.n, 0);
    for (size_t i = 0; i < cs.n; i++) {
        const ms_cand_t *c = &cs.c[i], *b = &base.c[i];
        const ms_partconf_t *pc = &w.conf->parts[c->part];
        double r = c->part == 2 ? 1.8 : 1;
        ck_assert (fabs (c->p - (b->p + 2 * (250 - pc->gpu_busy_power_w)))
                   < 1e-9);
        ck_assert (fabs (c->t - b->t * r) <= 1e-9 * b->t);
        ck_assert (fabs (c->e - c->p * c->t * 2) <= 1e-9 * c->e);
        ck_assert (c->e_hi >= c->e);
    }
    /* a CPU job of the app: no GPUs, nothing changes */
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &cs);
    candidates_build (w.tab, 0, 0, 2, 3600, NULL, 0, &base);
    candidates_gpu_profile (w.tab, 0, 0, &cs);
    for (size_t i = 0; i < cs.n; i++)
        ck_assert (cs.c[i].p == base.c[i].p && cs.c[i].t == base.c[i].t);
    candidates_free (&cs);
    candidates_free (&base);
    world_fini (&w);
}
END_TEST

START_TEST (test_run)
{
    world_t w;
    ms_workload_t *wl;
    ms_genparams_t gp;
    ms_simsetup_t su;
    ms_jobrec_t *recs;
    ms_error_t err;
    double wts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    size_t ngpu = 0;

    world_init (&w);
    set_prof (&w, 0);
    workload_gen_defaults (&gp);
    gp.njobs = 200;
    gp.mean_interarrival_s = 300;
    gp.mean_nodes = 3;
    gp.max_nodes = 16;
    ck_assert (workload_generate (&gp, &wl, &err) == 0);
    workload_assign_apps (wl, wts, 8, 7);
    for (size_t i = 0; i < wl->njobs; i++)
        if (wl->jobs[i].app == 0) {
            wl->jobs[i].gpus = 2;
            ngpu++;
        }
    ck_assert_uint_gt (ngpu, 0);
    simulate_setup_init (&su);
    su.conf = w.conf;
    su.tab = w.tab;
    su.wl = wl;
    su.seed = 7;
    su.noise_t = 0;
    su.noise_p = 0;
    recs = ms_xcalloc (wl->njobs, sizeof (*recs));
    for (int k = 0; k < POL_NKINDS; k++) {
        ms_policy_t pol;
        ms_summary_t s;
        policy_init (&pol, (ms_polkind_t)k);
        ck_assert_msg (simulate_run (&su, &pol, recs, &s, &err) == 0, "%s: %s",
                       pol.label, err.text);
        for (size_t i = 0; i < wl->njobs; i++) {
            const ms_jobrec_t *r = &recs[i];
            const ms_wjob_t *j = &wl->jobs[i];
            const ms_partconf_t *pc = &w.conf->parts[r->part];
            int fi = clusterconf_freq_index (&w.conf->archs[pc->arch],
                                             r->f_khz);
            const ms_predent_t *d = predtab_get (w.tab, 0, r->part,
                                                 (size_t)fi);
            const ms_predent_t *ref
                = predtab_get (w.tab, 0, 0, w.tab->nominal[0]);
            double run = r->end - r->start, want_t, want_e;
            if (j->app != 0)
                continue;
            /* the truth without noise: the profile's time ratio and the
             * app's busy GPU power */
            ck_assert (pc->gpus_per_node >= 2);
            want_t = j->runtime * d->t / ref->t * (r->part == 2 ? 1.8 : 1);
            want_e = (d->p + 2 * 250) * r->nodes * run;
            if (!r->killed)
                ck_assert_msg (fabs (run - want_t) <= 1e-6 * want_t,
                               "%s: job %zu ran %.3f s, the profile says %.3f",
                               pol.label, i + 1, run, want_t);
            ck_assert_msg (fabs (r->energy_j - want_e) <= 1e-6 * want_e,
                           "%s: job %zu drew %.0f J, the profile says %.0f",
                           pol.label, i + 1, r->energy_j, want_e);
        }
    }
    free (recs);
    workload_free (wl);
    world_fini (&w);
}
END_TEST

int
main (void)
{
    Suite *s = suite_create ("gpuprof");
    TCase *tc = tcase_create ("gpuprof");
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_parse);
    tcase_add_test (tc, test_candidates);
    tcase_add_test (tc, test_run);
    suite_add_tcase (s, tc);
    return test_run_suite (s);
}
