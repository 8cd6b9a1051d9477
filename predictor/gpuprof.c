/* gpuprof.c - GPU profiles of apps (see gpuprof.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "predictor/gpuprof.h"

static char *
trim (char *s)
{
    char *e;
    while (isspace ((unsigned char)*s))
        s++;
    e = s + strlen (s);
    while (e > s && isspace ((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static bool
num (const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod (s, &end);
    return end != s && !*trim (end) && errno == 0 && isfinite (*v);
}

static bool
name_ok (const char *s)
{
    if (!*s || strlen (s) >= 64)
        return false;
    for (; *s; s++)
        if (!isalnum ((unsigned char)*s) && !strchr ("-_.+", *s))
            return false;
    return true;
}

static int
parse_times (pred_gpuprof_t *g, char *v, const char *name, int line,
             ms_error_t *errp)
{
    char *save = NULL;
    g->nmodels = 0;
    for (char *t = strtok_r (v, ",", &save); t; t = strtok_r (NULL, ",", &save)) {
        char *c = strchr (t, ':'), *m;
        double r;
        if (!c)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: gpu_time: MODEL:RATIO, not '%s'", name,
                           line, trim (t));
        *c = '\0';
        m = trim (t);
        if (!name_ok (m))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: gpu_time: bad GPU model '%s'", name, line,
                           m);
        if (!num (c + 1, &r) || r <= 0 || r > 1000)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: gpu_time %s: a ratio above 0 (at most "
                           "1000), not '%s'",
                           name, line, m, trim (c + 1));
        for (size_t k = 0; k < g->nmodels; k++)
            if (!strcmp (g->model[k], m))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: gpu_time: model %s twice", name, line,
                               m);
        if (g->nmodels == GPUPROF_MAX_MODELS)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: gpu_time: more than %d models", name, line,
                           GPUPROF_MAX_MODELS);
        ms_strlcpy (g->model[g->nmodels], m, sizeof (g->model[0]));
        g->time_ratio[g->nmodels++] = r;
    }
    if (!g->nmodels)
        return ms_err (errp, MS_ERR_INPUT, "%s:%d: gpu_time: no model", name,
                       line);
    return 0;
}

int
gpuprof_parse (const char *text, size_t len, const char *name,
               pred_gpuprof_t **outp, size_t *np, ms_error_t *errp)
{
    pred_gpuprof_t *out = NULL, *g = NULL;
    size_t n = 0, cap = 0, pos = 0;
    int line = 0;
    char buf[1024];

    *outp = NULL;
    *np = 0;
    while (pos < len) {
        size_t e = pos;
        char *s, *eq, *k, *v;
        while (e < len && text[e] != '\n')
            e++;
        line++;
        if (e - pos >= sizeof (buf)) {
            free (out);
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: line too long", name,
                           line);
        }
        memcpy (buf, text + pos, e - pos);
        buf[e - pos] = '\0';
        pos = e + 1;
        if ((s = strchr (buf, '#')))
            *s = '\0';
        s = trim (buf);
        if (!*s)
            continue;
        if (*s == '[') {
            char *end = strchr (s, ']'), *a;
            if (!end || *trim (end + 1) || strncmp (s, "[app", 4)
                || !isspace ((unsigned char)s[4])) {
                free (out);
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: a section is [app NAME], not '%s'",
                               name, line, s);
            }
            *end = '\0';
            a = trim (s + 4);
            if (!name_ok (a)) {
                free (out);
                return ms_err (errp, MS_ERR_INPUT, "%s:%d: bad app name '%s'",
                               name, line, a);
            }
            for (size_t i = 0; i < n; i++)
                if (!strcmp (out[i].app, a)) {
                    int l0 = out[i].line;
                    free (out);
                    return ms_err (errp, MS_ERR_INPUT,
                                   "%s:%d: app %s again (first at line %d)",
                                   name, line, a, l0);
                }
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                out = ms_xrealloc (out, cap * sizeof (*out));
            }
            g = &out[n++];
            memset (g, 0, sizeof (*g));
            ms_strlcpy (g->app, a, sizeof (g->app));
            g->line = line;
            continue;
        }
        if (!(eq = strchr (s, '='))) {
            free (out);
            return ms_err (errp, MS_ERR_INPUT, "%s:%d: KEY = VALUE, not '%s'",
                           name, line, s);
        }
        *eq = '\0';
        k = trim (s);
        v = trim (eq + 1);
        if (!g) {
            free (out);
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: %s outside an [app NAME] section", name,
                           line, k);
        }
        double x;
        if (!strcmp (k, "gpus_per_node")) {
            if (!num (v, &x) || x < 0 || x > 64 || x != floor (x)) {
                free (out);
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: gpus_per_node: 0 to 64, not '%s'",
                               name, line, v);
            }
            g->gpus_per_node = (int)x;
        } else if (!strcmp (k, "gpu_busy_power_w")) {
            if (!num (v, &x) || x <= 0 || x > 10000) {
                free (out);
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: gpu_busy_power_w: watts above 0 (at "
                               "most 10000), not '%s'",
                               name, line, v);
            }
            g->busy_power_w = x;
        } else if (!strcmp (k, "gpu_time")) {
            if (parse_times (g, v, name, line, errp) < 0) {
                free (out);
                return -1;
            }
        } else {
            free (out);
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: unknown key '%s' (gpus_per_node, "
                           "gpu_busy_power_w, gpu_time)",
                           name, line, k);
        }
    }
    *outp = out;
    *np = n;
    return 0;
}

int
gpuprof_load (const char *path, pred_gpuprof_t **out, size_t *n,
              ms_error_t *errp)
{
    FILE *f = fopen (path, "r");
    char *text = NULL;
    size_t len = 0, cap = 0, r;
    int rc;

    if (!f)
        return ms_err (errp, MS_ERR_SYSTEM, "%s: %s", path, strerror (errno));
    do {
        if (cap - len < 4096) {
            cap = cap ? 2 * cap : 8192;
            if (cap > (64u << 20)) {
                fclose (f);
                free (text);
                return ms_err (errp, MS_ERR_INPUT, "%s: larger than 64 MiB",
                               path);
            }
            text = ms_xrealloc (text, cap);
        }
        r = fread (text + len, 1, cap - len, f);
        len += r;
    } while (r > 0);
    if (ferror (f)) {
        fclose (f);
        free (text);
        return ms_err (errp, MS_ERR_SYSTEM, "%s: read error", path);
    }
    fclose (f);
    rc = gpuprof_parse (text ? text : "", len, path, out, n, errp);
    free (text);
    return rc;
}

double
gpuprof_time_ratio (const pred_gpuprof_t *g, const char *model)
{
    if (!g || !model)
        return 1;
    for (size_t k = 0; k < g->nmodels; k++)
        if (!strcmp (g->model[k], model))
            return g->time_ratio[k];
    return 1;
}
