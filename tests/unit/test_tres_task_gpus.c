/* test_tres_task_gpus.c - GPUs asked through --tres-per-task (Slurm 23.02
 * on) count as --gpus-per-task's: Slurm reads "gres/gpu=N" per task as
 * gpus_per_task (slurm_opt.c, _set_tres_per_task_from_sibling_opt, 24.05;
 * 23.02's "gres:gpu:N", slurm_format_tres_string), so a node holds N times
 * its tasks. Each case: the GPUs per node jobspec_gpus_per_node gives (the
 * number GPU placement and the prediction use), the same as the
 * --gpus-per-task spelling of the job, and the same from the stored
 * options with the task counts apart (jobspec_gpus_per_node_tasks, as
 * metaschedd's admission, placement and replay read a job); the candidates only
 * where a node holds them (candidates_gpus, on the GPU site of
 * tests/simworld.h: a100 with 4 GPUs a node, v100 with 2), with their GPUs'
 * busy power; the same after the job's options' JSON (what metaschedd stores
 * and re-reads); malformed lists and a second GPU request refused as sbatch
 * refuses them. */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_json.h"
#include "metasched/common/util.h"
#include "metasched/sim/simulate.h"
#include "predictor/predictor.h"
#include "tests/simworld.h"
#include "tests/testutil.h"

static const char site[] = SIMWORLD_GPU_SITE;

/* Parse "#SBATCH <line>" and check it; -1 with err on a refusal. */
static int
spec_of (const char *line, ms_jobspec_t *s, ms_error_t *err)
{
    char sc[512];

    snprintf (sc, sizeof (sc), "#!/bin/sh\n#SBATCH %s\ntrue\n", line);
    jobspec_init (s);
    if (jobspec_parse_script (s, sc, strlen (sc), "j.sh", err) < 0)
        return -1;
    return jobspec_check (s, sc, strlen (sc), true, err);
}

static const struct {
    const char *tpt, *same; /* --tres-per-task, its --gpus-per-task job */
    int nodes, per_node;
    const char *type;
    bool a100, v100; /* candidates there */
} cases[] = {
    /* 2 tasks x 1 GPU on one node: 2 a node, both GPU partitions */
    { "-n 2 --tres-per-task=gres/gpu:1", "-n 2 --gpus-per-task=1", 1, 2, "",
      true, true },
    { "-n 2 --tres-per-task=gres/gpu=1", "-n 2 --gpus-per-task=1", 1, 2, "",
      true, true },
    /* 23.02's spelling, in another case */
    { "-n 2 --tres-per-task=GRES:gpu:1", "-n 2 --gpus-per-task=1", 1, 2, "",
      true, true },
    /* 4 tasks x 1: 4 a node, the a100 partition only */
    { "-n 4 --tres-per-task=gres/gpu=1", "-n 4 --gpus-per-task=1", 1, 4, "",
      true, false },
    /* the tasks spread over 2 nodes: 2 a node */
    { "-N 2 -n 4 --tres-per-task=gres/gpu=1", "-N 2 -n 4 --gpus-per-task=1", 2,
      2, "", true, true },
    /* --ntasks-per-node rules the busiest node */
    { "-N 2 --ntasks-per-node=3 --tres-per-task=gres/gpu=1",
      "-N 2 --ntasks-per-node=3 --gpus-per-task=1", 2, 3, "", true, false },
    /* a type (metaschedd's placement matches it to gpu_model) */
    { "-n 2 --tres-per-task=gres/gpu:v100=1", "-n 2 --gpus-per-task=v100:1", 1,
      2, "v100", true, true },
    { "-n 1 --tres-per-task=cpu=2,gres/gpu:a100=2,license/x=1",
      "-n 1 --gpus-per-task=a100:2", 1, 2, "a100", true, true },
    /* 3 a task x 2 tasks: no partition holds 6 */
    { "-n 2 --tres-per-task=gres/gpu=3", "-n 2 --gpus-per-task=3", 1, 6, "",
      false, false },
    /* no count: one */
    { "-n 2 --tres-per-task=gres/gpu", "-n 2 --gpus-per-task=1", 1, 2, "", true,
      true },
    /* other TRES only: a CPU job */
    { "-n 2 --tres-per-task=cpu=2", "-n 2", 1, 0, "", true, true },
    { "-n 2 --tres-per-task=gres/gpufoo=1", "-n 2", 1, 0, "", true, true },
};

START_TEST (per_node_and_candidates)
{
    ms_jobspec_t s, o;
    ms_error_t err;
    const char *type = NULL, *otype = NULL;
    world_t w;
    ms_cands_t cs = { 0 };
    bool a100 = false, v100 = false;
    int g, og, n = cases[_i].nodes;
    json_t *opts;

    ck_assert_msg (spec_of (cases[_i].tpt, &s, &err) == 0, "%s: %s",
                   cases[_i].tpt, err.text);
    ck_assert_msg (spec_of (cases[_i].same, &o, &err) == 0, "%s: %s",
                   cases[_i].same, err.text);
    g = jobspec_gpus_per_node (&s, n, &type);
    ck_assert_msg (g == cases[_i].per_node, "%s: %d GPUs a node, not %d",
                   cases[_i].tpt, g, cases[_i].per_node);
    ck_assert_str_eq (type, cases[_i].type);
    og = jobspec_gpus_per_node (&o, n, &otype);
    ck_assert_msg (og == g && !strcmp (otype, cases[_i].type),
                   "%s gives %d, %s gives %d", cases[_i].tpt, g, cases[_i].same,
                   og);

    /* metaschedd keeps the options as JSON, the task counts beside them
     * (the request's "tasks", "tasks_per_node"), and reads them back */
    opts = json_object ();
    jobspec_json_put (&s, opts);
    ck_assert_ptr_null (json_object_get (opts, "ntasks"));
    jobspec_free (&o);
    jobspec_init (&o);
    ck_assert (jobspec_json_read (&o, opts, &err) == 0);
    ck_assert_int_eq (
        jobspec_gpus_per_node_tasks (&o, n, s.ntasks, s.ntasks_per_node, NULL),
        g);
    json_decref (opts);

    world_init_site (&w, site, "gpu");
    candidates_build (w.tab, 0, 0, n, 3600, NULL, 0, &cs);
    candidates_gpus (w.conf, n, g, &cs);
    for (size_t i = 0; i < cs.n; i++) {
        const char *pn = w.conf->parts[cs.c[i].part].name;
        a100 |= !strcmp (pn, "a100");
        v100 |= !strcmp (pn, "v100");
    }
    ck_assert_msg (a100 == cases[_i].a100 && v100 == cases[_i].v100,
                   "%s: candidates on a100 %d, v100 %d", cases[_i].tpt, a100,
                   v100);
    if (g > 0)
        for (size_t i = 0; i < cs.n; i++) {
            double busy = w.conf->parts[cs.c[i].part].gpu_busy_power_w;
            ck_assert (cs.c[i].p >= g * busy); /* its GPUs' busy power */
        }
    candidates_free (&cs);
    world_fini (&w);
    jobspec_free (&s);
    jobspec_free (&o);
}
END_TEST

static const struct {
    const char *line, *msg;
} refused[] = {
    { "-n 2 --tres-per-task=gres/gpu=x",
      "--tres-per-task=gres/gpu=x: Invalid generic resource (gres) "
      "specification" },
    { "-n 2 --tres-per-task=gres/gpu:a100=0",
      "--tres-per-task=gres/gpu:a100=0: Invalid generic resource" },
    { "-n 2 --tres-per-task=gres/gpu=1,gres/gpu:a100=1",
      "Invalid generic resource" },
    { "-n 2 --tres-per-task=gres/gpu=1 --gpus-per-task=1",
      "You can not have --tres-per-task=gres/gpu= and --gpus-per-task" },
};

START_TEST (refusals)
{
    ms_jobspec_t s;
    ms_error_t err;

    ck_assert_msg (spec_of (refused[_i].line, &s, &err) < 0, "%s accepted",
                   refused[_i].line);
    ck_assert_msg (strstr (err.text, refused[_i].msg), "%s: %s",
                   refused[_i].line, err.text);
    jobspec_free (&s);
}
END_TEST

int
main (void)
{
    Suite *su = suite_create ("tres_task_gpus");
    TCase *tc = tcase_create ("core");

    tcase_set_timeout (tc, 60);
    tcase_add_loop_test (tc, per_node_and_candidates, 0,
                         (int)(sizeof (cases) / sizeof (cases[0])));
    tcase_add_loop_test (tc, refusals, 0,
                         (int)(sizeof (refused) / sizeof (refused[0])));
    suite_add_tcase (su, tc);
    return test_run_suite (su);
}
