/* metrics.c - run metrics (see metrics.h for the definitions). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/sim/metrics.h"
#include "metasched/common/util.h"

void
metrics_summarize (const ms_siteconf_t *conf, const ms_jobrec_t *recs, size_t n,
                   ms_summary_t *out)
{
    double first = INFINITY, last = -INFINITY, busy[MS_METRICS_MAXP] = { 0 };
    double sw = 0, sr = 0, sb = 0, sf = 0, pr[MS_METRICS_MAXP] = { 0 };
    double gbusy[MS_METRICS_MAXP] = { 0 };
    size_t nopt = 0, nopt_known = 0;
    char label[sizeof (out->label)];
    double dps = out->decisions_per_s, wall = out->wall_s;
    size_t rer = out->rerouted;

    memcpy (label, out->label, sizeof (label));
    memset (out, 0, sizeof (*out));
    memcpy (out->label, label, sizeof (label));
    out->decisions_per_s = dps;
    out->wall_s = wall;
    out->rerouted = rer;
    out->njobs = n;
    out->nparts
        = conf->nparts < MS_METRICS_MAXP ? conf->nparts : MS_METRICS_MAXP;
    for (size_t i = 0; i < n; i++) {
        const ms_jobrec_t *r = &recs[i];
        if (r->submit < first)
            first = r->submit;
        if (r->rejected || r->part == SIZE_MAX) {
            out->rejected += r->rejected;
            continue;
        }
        double run = r->end - r->start, resp = r->end - r->submit;
        double bsld = resp / (run > 10 ? run : 10);
        out->done++;
        out->killed += r->killed;
        if (r->end > last)
            last = r->end;
        sw += r->start - r->submit;
        sr += resp;
        sb += bsld > 1 ? bsld : 1;
        sf += r->f_khz / 1e6;
        out->sum_runtime += run;
        out->job_energy_j += r->energy_j;
        if (r->part < out->nparts) {
            busy[r->part] += run * r->nodes;
            gbusy[r->part] += run * r->nodes * r->gpus;
            out->part_jobs[r->part]++;
            out->part_ghz[r->part] += r->f_khz / 1e6;
            pr[r->part] += resp;
        }
        if (r->opt_part != SIZE_MAX) {
            nopt_known++;
            nopt += r->opt_part == r->part;
        }
    }
    if (!out->done)
        return;
    out->mean_wait = sw / out->done;
    out->mean_response = sr / out->done;
    out->mean_bsld = sb / out->done;
    out->mean_ghz = sf / out->done;
    out->makespan = last - first;
    out->opt_share = nopt_known ? (double)nopt / nopt_known : 0;
    for (size_t p = 0; p < out->nparts; p++) {
        const ms_partconf_t *pc = &conf->parts[p];
        double cap = pc->nodes * out->makespan;
        double idle_ns = cap - busy[p];
        out->util[p] = cap > 0 ? busy[p] / cap : 0;
        out->idle_energy_j
            += (idle_ns > 0 ? idle_ns : 0) * conf->archs[pc->arch].idle_power_w;
        if (pc->gpus_per_node > 0) {
            double gcap = cap * pc->gpus_per_node;
            double gidle = gcap - gbusy[p] > 0 ? gcap - gbusy[p] : 0;
            out->gpus = true;
            out->gpu_util[p] = gcap > 0 ? gbusy[p] / gcap : 0;
            out->gpu_energy_j += gbusy[p] * pc->gpu_busy_power_w
                                 + gidle * pc->gpu_idle_power_w;
            out->idle_energy_j += gidle * pc->gpu_idle_power_w;
        }
        if (out->part_jobs[p]) {
            out->part_ghz[p] /= out->part_jobs[p];
            out->part_response[p] = pr[p] / out->part_jobs[p];
        }
    }
    out->system_energy_j = out->job_energy_j + out->idle_energy_j;
    out->edp = out->system_energy_j * out->makespan;
}

double
metrics_idle_floor (const ms_siteconf_t *conf, double makespan)
{
    double e = 0;
    for (size_t p = 0; p < conf->nparts; p++)
        e += conf->parts[p].nodes * makespan
             * conf->archs[conf->parts[p].arch].idle_power_w;
    return e;
}

void
metrics_utilization_series (const ms_siteconf_t *conf, const ms_jobrec_t *recs,
                            size_t n, size_t nbins, double *out, double *t0p,
                            double *binwp)
{
    double t0 = INFINITY, t1 = -INFINITY, bw;
    size_t np = conf->nparts;

    memset (out, 0, nbins * np * sizeof (double));
    for (size_t i = 0; i < n; i++) {
        if (recs[i].submit < t0)
            t0 = recs[i].submit;
        if (recs[i].part != SIZE_MAX && recs[i].end > t1)
            t1 = recs[i].end;
    }
    if (!(t1 > t0)) {
        *t0p = 0;
        *binwp = 0;
        return;
    }
    bw = (t1 - t0) / nbins;
    for (size_t i = 0; i < n; i++) {
        const ms_jobrec_t *r = &recs[i];
        if (r->part == SIZE_MAX || r->part >= np)
            continue;
        size_t b0 = (size_t)((r->start - t0) / bw);
        for (size_t b = b0; b < nbins; b++) {
            double lo = t0 + b * bw, hi = lo + bw;
            double s = r->start > lo ? r->start : lo;
            double e = r->end < hi ? r->end : hi;
            if (s >= r->end)
                break;
            if (e > s)
                out[b * np + r->part] += (e - s) * r->nodes;
        }
    }
    for (size_t b = 0; b < nbins; b++)
        for (size_t p = 0; p < np; p++)
            out[b * np + p] /= bw * conf->parts[p].nodes;
    *t0p = t0;
    *binwp = bw;
}

static bool
has_gpus (const ms_siteconf_t *conf)
{
    for (size_t p = 0; p < conf->nparts && p < MS_METRICS_MAXP; p++)
        if (conf->parts[p].gpus_per_node > 0)
            return true;
    return false;
}

void
metrics_csv_header (FILE *f, const ms_siteconf_t *conf)
{
    fprintf (f, "group,policy,jobs,done,killed,rejected,rerouted,"
                "mean_wait_s,mean_response_s,mean_bsld,makespan_s,"
                "job_energy_j,idle_energy_j,system_energy_j,edp_js,"
                "sum_runtime_s,mean_ghz,opt_share,decisions_per_s");
    for (size_t p = 0; p < conf->nparts && p < MS_METRICS_MAXP; p++)
        fprintf (f, ",util_%s,jobs_%s,ghz_%s,response_%s", conf->parts[p].name,
                 conf->parts[p].name, conf->parts[p].name, conf->parts[p].name);
    /* GPU columns only where GPUs are, after the others */
    if (has_gpus (conf)) {
        fprintf (f, ",gpu_energy_j");
        for (size_t p = 0; p < conf->nparts && p < MS_METRICS_MAXP; p++)
            if (conf->parts[p].gpus_per_node > 0)
                fprintf (f, ",gpu_util_%s", conf->parts[p].name);
    }
    fputc ('\n', f);
}

void
metrics_csv_row (FILE *f, const ms_siteconf_t *conf, const ms_summary_t *s,
                 const char *group)
{
    fprintf (f,
             "%s,%s,%zu,%zu,%zu,%zu,%zu,%.3f,%.3f,%.4f,%.1f,%.6e,%.6e,"
             "%.6e,%.6e,%.1f,%.4f,%.4f,%.1f",
             group, s->label, s->njobs, s->done, s->killed, s->rejected,
             s->rerouted, s->mean_wait, s->mean_response, s->mean_bsld,
             s->makespan, s->job_energy_j, s->idle_energy_j, s->system_energy_j,
             s->edp, s->sum_runtime, s->mean_ghz, s->opt_share,
             s->decisions_per_s);
    for (size_t p = 0; p < s->nparts; p++)
        fprintf (f, ",%.4f,%zu,%.4f,%.1f", s->util[p], s->part_jobs[p],
                 s->part_ghz[p], s->part_response[p]);
    if (has_gpus (conf)) {
        fprintf (f, ",%.6e", s->gpu_energy_j);
        for (size_t p = 0; p < s->nparts; p++)
            if (conf->parts[p].gpus_per_node > 0)
                fprintf (f, ",%.4f", s->gpu_util[p]);
    }
    fputc ('\n', f);
}

void
metrics_print_table (FILE *f, const ms_siteconf_t *conf,
                     const ms_summary_t *rows, size_t n)
{
    fprintf (f, "%-24s %8s %9s %7s %7s %9s %9s %9s %9s %5s %5s", "policy",
             "wait_h", "resp_h", "bsld", "mksp_d", "jobE_GJ", "sysE_GJ",
             "EDP_GJd", "dJob%", "GHz", "opt%");
    for (size_t p = 0; p < conf->nparts && p < MS_METRICS_MAXP; p++)
        fprintf (f, " %6.6s%%", conf->parts[p].name);
    fprintf (f, " %6s %9s", "killed", "dec/s");
    if (has_gpus (conf)) {
        fprintf (f, " %9s", "gpuE_GJ");
        for (size_t p = 0; p < conf->nparts && p < MS_METRICS_MAXP; p++)
            if (conf->parts[p].gpus_per_node > 0)
                fprintf (f, " g%5.5s%%", conf->parts[p].name);
    }
    fputc ('\n', f);
    for (size_t i = 0; i < n; i++) {
        const ms_summary_t *s = &rows[i];
        /* dJob%: job energy against the first row. */
        double d = rows[0].job_energy_j > 0
                       ? 100 * (s->job_energy_j / rows[0].job_energy_j - 1)
                       : 0;
        fprintf (f,
                 "%-24s %8.2f %9.2f %7.2f %7.2f %9.2f %9.2f %9.1f %+9.1f "
                 "%5.2f %5.1f",
                 s->label, s->mean_wait / 3600, s->mean_response / 3600,
                 s->mean_bsld, s->makespan / 86400, s->job_energy_j / 1e9,
                 s->system_energy_j / 1e9, s->edp / 1e9 / 86400, d, s->mean_ghz,
                 100 * s->opt_share);
        for (size_t p = 0; p < s->nparts; p++)
            fprintf (f, " %6.1f%%", 100 * s->util[p]);
        fprintf (f, " %6zu %9.0f", s->killed, s->decisions_per_s);
        if (has_gpus (conf)) {
            fprintf (f, " %9.3f", s->gpu_energy_j / 1e9);
            for (size_t p = 0; p < s->nparts; p++)
                if (conf->parts[p].gpus_per_node > 0)
                    fprintf (f, " %6.1f%%", 100 * s->gpu_util[p]);
        }
        fputc ('\n', f);
    }
}
