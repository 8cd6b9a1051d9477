/* jobspec_het.c - heterogeneous jobs: the components of one job, each with
 * its own options, as sbatch reads them (#SBATCH hetjob or packjob lines
 * in a script, ':' between the components on the command line).
 *
 * sbatch reads component N+1 with the options of component N still set,
 * less those its option table marks reset_each_pass
 * (slurm_reset_all_options in src/common/slurm_opt.c): the counts, the
 * partition, memory per CPU or GPU, GPUs and generic resources, node lists,
 * constraints, --cpu-freq, --exclusive, mail ... are each component's own;
 * the others (account, qos, --mem, --time, --job-name, --output,
 * --dependency, --begin ...) carry over until a component sets them.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_int.h"
#include "metasched/common/util.h"

bool
jobspec_het_separator (const char *t, size_t *lenp)
{
    size_t n = !strncasecmp (t, "hetjob", 6)    ? 6
               : !strncasecmp (t, "packjob", 7) ? 7
                                                : 0;

    if (!n || (t[n] && !isspace ((unsigned char)t[n])))
        return false;
    if (lenp)
        *lenp = n;
    return true;
}

/* The options sbatch resets for each component (reset_each_pass at
 * slurm-22-05-8-1 and slurm-26-05-3-1), back to jobspec_init's values;
 * --external, --resources, --resv-ports, --tres-bind and --tres-per-task
 * too (reset_each_pass where sbatch has them). */
static void
reset_each_pass (ms_jobspec_t *c)
{
    c->constraint[0] = '\0';
    c->contiguous = false;
    c->core_spec = -1;
    c->cores_per_socket = 0;
    c->cpu_freq[0] = '\0';
    memset (&c->cpu_freq_spec, 0, sizeof (c->cpu_freq_spec));
    c->cpus_per_gpu = 0;
    c->cpus_per_task = 0;
    c->distribution[0] = '\0';
    c->exclusive = false;
    c->exclusive_mode[0] = '\0';
    c->gpu_bind[0] = '\0';
    c->gpu_freq[0] = '\0';
    memset (&c->gpus, 0, sizeof (c->gpus));
    memset (&c->gpus_per_node, 0, sizeof (c->gpus_per_node));
    memset (&c->gpus_per_socket, 0, sizeof (c->gpus_per_socket));
    memset (&c->gpus_per_task, 0, sizeof (c->gpus_per_task));
    c->gres[0] = '\0';
    c->ngres = 0;
    c->gres_flags[0] = '\0';
    c->hint[0] = '\0';
    c->licenses[0] = '\0';
    c->mail_type[0] = '\0';
    c->mail_flags = 0;
    c->mail_user[0] = '\0';
    c->mem_bind[0] = '\0';
    c->mem_per_cpu_mb = 0;
    c->mem_per_gpu_mb = 0;
    c->mincpus = 0;
    c->network[0] = '\0';
    c->nodelist[0] = '\0';
    c->nodes = 0;
    c->nodes_max = 0;
    c->ntasks = 0;
    c->ntasks_per_core = 0;
    c->ntasks_per_node = 0;
    c->ntasks_per_socket = 0;
    c->ntasks_per_gpu = 0;
    c->overcommit = false;
    c->oversubscribe = false;
    c->partition[0] = '\0';
    c->sockets_per_node = 0;
    c->spread_job = false;
    c->switches[0] = '\0';
    c->thread_spec = 0;
    c->threads_per_core = 0;
    c->tmp_mb = 0;
    c->use_min_nodes = false;
    c->external = false;
    c->resources[0] = '\0';
    c->resv_ports = -1;
    c->tres_bind[0] = '\0';
    c->tres_per_task[0] = '\0';
}

ms_jobspec_t *
jobspec_het_at (ms_jobspec_t *s, size_t k)
{
    if (k == 0)
        return s;
    return k <= s->nhet ? s->het[k - 1] : NULL;
}

ms_jobspec_t *
jobspec_het_add (ms_jobspec_t *s, const char *where, ms_error_t *errp)
{
    ms_jobspec_t *prev = jobspec_het_at (s, s->nhet), *c;

    if (s->nhet + 1 >= JOBSPEC_MAX_HET) {
        ms_err (errp, MS_ERR_INPUT,
                "%shetjob: more than %d components (Slurm's limit)", where,
                JOBSPEC_MAX_HET);
        return NULL;
    }
    c = ms_xcalloc (1, sizeof (*c));
    memcpy (c, prev, sizeof (*c));
    for (size_t i = 0; i < prev->nexport; i++)
        c->export_vars[i] = ms_xstrdup (prev->export_vars[i]);
    c->het = NULL;
    c->nhet = 0;
    reset_each_pass (c);
    s->het = ms_xrealloc (s->het, (s->nhet + 1) * sizeof (*s->het));
    s->het[s->nhet++] = c;
    return c;
}

void
jobspec_het_merge (ms_jobspec_t *s)
{
    for (size_t i = 0; i < s->nhet; i++) {
        s->parsable |= s->het[i]->parsable;
        s->wait |= s->het[i]->wait;
        s->test_only |= s->het[i]->test_only;
    }
}
