/* api_metrics.c - what the API shows of the daemon (doc/api.md): GET
 * /v1/clusters and the Prometheus text of GET /metrics.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/api/api_int.h"

enum MHD_Result
api_do_clusters (ms_api_t *api, struct MHD_Connection *c)
{
    ms_error_t e = { 0 };
    json_t *out = NULL;

    if (!api->hooks.clusters)
        return api_send_error (c, 503, "cluster state is not available", NULL,
                               NULL);
    if (api->hooks.clusters (api->ctx, &out, &e) < 0)
        return api_send_err (c, &e, NULL);
    return api_send_json (c, 200, out ? out : json_pack ("{s:[]}", "clusters"));
}

static void put_metric (char **buf, size_t *len, size_t *cap, const char *fmt,
                        ...) __attribute__ ((format (printf, 4, 5)));

static void
put_metric (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start (ap, fmt);
        n = vsnprintf (*buf + *len, *cap - *len, fmt, ap);
        va_end (ap);
        if (n < 0)
            return;
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap = (*cap + (size_t)n) * 2;
        *buf = realloc (*buf, *cap);
        if (!*buf)
            abort ();
    }
}

static void
put_value (char **buf, size_t *len, size_t *cap, double v)
{
    if (isnan (v))
        put_metric (buf, len, cap, "NaN\n");
    else
        put_metric (buf, len, cap, "%.17g\n", v);
}

enum MHD_Result
api_do_metrics (ms_api_t *api, struct MHD_Connection *c)
{
    db_jobs_metrics_t m;
    ms_error_t e = { 0 };
    unsigned long refused[3];
    size_t len = 0, cap = 4096;
    char *buf = malloc (cap), *extra = NULL;
    enum MHD_Result ret;
    int rc, i;

    if (!buf)
        return api_send_error (c, 500, "out of memory", NULL, NULL);
    buf[0] = '\0';
    if (api_db_acquire (api, &e) < 0) {
        free (buf);
        return api_send_err (c, &e, NULL);
    }
    rc = db_jobs_metrics (api->db, &m, &e);
    api_db_release (api);
    if (rc < 0) {
        free (buf);
        return api_send_err (c, &e, NULL);
    }
    put_metric (&buf, &len, &cap,
                "# HELP metasched_jobs Jobs in the meta queue by state.\n"
                "# TYPE metasched_jobs gauge\n");
    for (i = 0; i < m.nstates; i++)
        put_metric (&buf, &len, &cap, "metasched_jobs{state=\"%s\"} %ld\n",
                    m.state[i], m.count[i]);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_dispatches_total Submissions of meta jobs "
                "to clusters (siblings and re-routes each count).\n"
                "# TYPE metasched_dispatches_total counter\n"
                "metasched_dispatches_total %ld\n",
                m.dispatches);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_prediction_abs_error_ratio Mean of "
                "|predicted - measured| / measured over measured jobs.\n"
                "# TYPE metasched_prediction_abs_error_ratio gauge\n"
                "metasched_prediction_abs_error_ratio{quantity=\"time\"} ");
    put_value (&buf, &len, &cap, m.time_abs_err);
    put_metric (&buf, &len, &cap,
                "metasched_prediction_abs_error_ratio{quantity=\"energy\"} ");
    put_value (&buf, &len, &cap, m.energy_abs_err);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_prediction_jobs Measured jobs behind the "
                "prediction error.\n"
                "# TYPE metasched_prediction_jobs gauge\n"
                "metasched_prediction_jobs{quantity=\"time\"} %ld\n"
                "metasched_prediction_jobs{quantity=\"energy\"} %ld\n",
                m.time_n, m.energy_n);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_energy_joules_total Energy measured of the "
                "jobs metasched dispatched (package and DRAM).\n"
                "# TYPE metasched_energy_joules_total counter\n"
                "metasched_energy_joules_total ");
    put_value (&buf, &len, &cap, m.energy_joules);
    put_metric (&buf, &len, &cap,
                "# HELP metasched_api_refused_total Connections and requests "
                "the API refused by a limit (429, 408).\n"
                "# TYPE metasched_api_refused_total counter\n");
    pthread_mutex_lock (&api->conn_lock);
    memcpy (refused, api->refused, sizeof (refused));
    pthread_mutex_unlock (&api->conn_lock);
    for (i = 0; i < 3; i++)
        put_metric (&buf, &len, &cap,
                    "metasched_api_refused_total{limit=\"%s\"} %lu\n",
                    api_refused_names[i], refused[i]);
    if (api->hooks.metrics) {
        if (api->hooks.metrics (api->ctx, &extra, &e) == 0 && extra) {
            put_metric (&buf, &len, &cap, "%s", extra);
            if (len > 0 && buf[len - 1] != '\n')
                put_metric (&buf, &len, &cap, "\n");
        }
        free (extra);
    }
    ret = api_send_text (c, 200, "text/plain; version=0.0.4; charset=utf-8",
                         buf, NULL);
    free (buf);
    return ret;
}
