/* clusterconf.c - read the cluster configuration (see clusterconf.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metasched/common/confval.h"
#include "metasched/common/ini.h"
#include "metasched/common/util.h"
#include "partitions/clusterconf.h"
#include "partitions/slurmrest.h"

#define CONF_MAX_BYTES (4 * 1024 * 1024)

typedef enum { SEC_NONE, SEC_ARCH, SEC_CLUSTER, SEC_PARTITION } section_t;

struct parser {
    confval_at_t at; /* the file and the line of messages */
    ms_siteconf_t *conf;
    section_t sec;
    size_t cur; /* index of the current section's object */
    /* partitions name their architecture and cluster by name; resolved at
     * the end so sections may come in any order */
    char (*part_arch)[MS_NAME_MAX];
    char (*part_cluster)[MS_NAME_MAX];
};

/* "name:line: message", the line being the parser's */
#define perr(p, errp, ...) confval_err (&(p)->at, errp, __VA_ARGS__)

static bool
valid_name (const char *s)
{
    if (!*s || strlen (s) >= MS_NAME_MAX)
        return false;
    for (; *s; s++)
        if (!isalnum ((unsigned char)*s) && *s != '-' && *s != '_'
            && *s != '.')
            return false;
    return true;
}

static int
cmp_u32 (const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* A frequency's slot in ms_arch_t's fslot: its MHz modulo the slots, so
 * that up to 32 frequencies 100 MHz apart (or 64 at 50, 128 at 25) each
 * have their own (the simulator asks for a frequency's index per job it
 * starts, and a search of the list was 2-3% of a run's time). */
static inline unsigned
freq_slot (uint32_t khz)
{
    return khz / 1000 & (MS_FREQ_SLOTS - 1);
}

/* a's fslot from its frequencies: the first of equal ones in its slot;
 * two different ones in a slot leave fslots_ok false (a search). */
static void
freq_slots (ms_arch_t *a)
{
    memset (a->fslot, 0, sizeof (a->fslot));
    a->fslots_ok = false;
    for (size_t i = 0; i < a->nfreqs; i++) {
        unsigned k = freq_slot (a->freqs_khz[i]), at = a->fslot[k];
        if (!at)
            a->fslot[k] = (uint8_t)(i + 1);
        else if (a->freqs_khz[at - 1] != a->freqs_khz[i])
            return;
    }
    a->fslots_ok = true;
}

/* "1200000-2700000/100000" or "1200000, 1300000 1400000" */
static int
parse_freqs (struct parser *p, const char *val, ms_arch_t *a, ms_error_t *errp)
{
    unsigned long lo, hi, step;
    char tail;

    a->nfreqs = 0;
    if (strpbrk (val, "-/")) {
        /* LO-HI/STEP, digits only: %lu alone would take "-1" as a huge
         * step and wrap past HI */
        const char *d = "0123456789", *v = val;
        size_t n1 = strspn (v, d), n2 = 0, n3 = 0;
        if (n1 && v[n1] == '-')
            n2 = strspn (v + n1 + 1, d);
        if (n2 && v[n1 + 1 + n2] == '/')
            n3 = strspn (v + n1 + 2 + n2, d);
        if (!n3 || v[n1 + 2 + n2 + n3] != '\0' || n1 > 9 || n2 > 9 || n3 > 9
            || sscanf (val, "%lu-%lu/%lu%c", &lo, &hi, &step, &tail) != 3)
            return perr (p, errp,
                         "frequencies_khz: '%s' is not LO-HI/STEP in kHz",
                         val);
        if (lo == 0 || hi < lo || step == 0 || hi > 100000000UL)
            return perr (p, errp, "frequencies_khz: bad range '%s'", val);
        if ((hi - lo) / step + 1 > MS_MAX_FREQS)
            return perr (p, errp,
                         "frequencies_khz: range '%s' has more than %d "
                         "frequencies",
                         val, MS_MAX_FREQS);
        for (unsigned long i = 0, n = (hi - lo) / step + 1; i < n; i++)
            a->freqs_khz[a->nfreqs++] = (uint32_t)(lo + i * step);
        return 0;
    }
    const char *s = val;
    while (*s) {
        char *end;
        unsigned long f;
        while (*s == ',' || isspace ((unsigned char)*s))
            s++;
        if (!*s)
            break;
        if (!isdigit ((unsigned char)*s))
            return perr (p, errp, "frequencies_khz: '%s' is not a list of kHz",
                         val);
        errno = 0;
        f = strtoul (s, &end, 10);
        if (errno || f == 0 || f > 100000000UL)
            return perr (p, errp, "frequencies_khz: bad frequency in '%s'",
                         val);
        if (a->nfreqs >= MS_MAX_FREQS)
            return perr (p, errp, "frequencies_khz: more than %d frequencies",
                         MS_MAX_FREQS);
        a->freqs_khz[a->nfreqs++] = (uint32_t)f;
        s = end;
        if (*s && *s != ',' && !isspace ((unsigned char)*s))
            return perr (p, errp, "frequencies_khz: '%s' is not a list of kHz",
                         val);
    }
    if (a->nfreqs == 0)
        return perr (p, errp, "frequencies_khz: empty list");
    qsort (a->freqs_khz, a->nfreqs, sizeof (uint32_t), cmp_u32);
    for (size_t i = 1; i < a->nfreqs; i++)
        if (a->freqs_khz[i] == a->freqs_khz[i - 1])
            return perr (p, errp, "frequencies_khz: %u listed twice",
                         a->freqs_khz[i]);
    return 0;
}

static int
set_arch (struct parser *p, ms_arch_t *a, const char *key, const char *val,
          ms_error_t *errp)
{
    long l;

    if (!strcmp (key, "description"))
        ms_strlcpy (a->description, val, sizeof (a->description));
    else if (!strcmp (key, "cores_per_node")) {
        if (confval_long (&p->at, key, val, 1, 1 << 20, &l, errp) < 0)
            return -1;
        a->cores_per_node = (int)l;
    } else if (!strcmp (key, "frequencies_khz"))
        return parse_freqs (p, val, a, errp);
    else if (!strcmp (key, "nominal_khz")) {
        if (confval_long (&p->at, key, val, 1, 100000000L, &l, errp) < 0)
            return -1;
        a->nominal_khz = (uint32_t)l;
    } else if (!strcmp (key, "idle_power_w"))
        return confval_double (&p->at, key, val, 0, 1e6, &a->idle_power_w,
                               errp);
    else
        return perr (p, errp, "unknown key '%s' in [architecture %s]", key,
                     a->name);
    return 0;
}

static int
set_cluster (struct parser *p, ms_clusterconf_t *c, const char *key,
             const char *val, ms_error_t *errp)
{
    long l;

    if (!strcmp (key, "backend")) {
        if (!strcmp (val, "slurmrest"))
            c->backend = MS_BACKEND_SLURMREST;
        else if (!strcmp (val, "simulated"))
            c->backend = MS_BACKEND_SIMULATED;
        else
            return perr (p, errp,
                         "backend: '%s' is not one of slurmrest, simulated",
                         val);
    } else if (!strcmp (key, "url")) {
        if (strncmp (val, "http://", 7) && strncmp (val, "https://", 8))
            return perr (p, errp, "url: '%s' must start with http:// or "
                         "https://", val);
        if (strlen (val) >= sizeof (c->url))
            return perr (p, errp, "url: too long");
        ms_strlcpy (c->url, val, sizeof (c->url));
        size_t n = strlen (c->url);
        while (n > 0 && c->url[n - 1] == '/')
            c->url[--n] = '\0';
    } else if (!strcmp (key, "token_file")) {
        if (val[0] != '/')
            return perr (p, errp, "token_file: '%s' must be an absolute path",
                         val);
        if (strlen (val) >= sizeof (c->token_file))
            return perr (p, errp, "token_file: too long");
        ms_strlcpy (c->token_file, val, sizeof (c->token_file));
    } else if (!strcmp (key, "token_user")) {
        if (!valid_name (val))
            return perr (p, errp, "token_user: '%s' is not a user name", val);
        ms_strlcpy (c->token_user, val, sizeof (c->token_user));
    } else if (!strcmp (key, "api_version")) {
        const slurmrest_api_t *api = slurmrest_api_find (val);
        if (!api)
            return perr (p, errp, "api_version: '%s' is not one of %s", val,
                         slurmrest_api_list ());
        ms_strlcpy (c->api_version, slurmrest_api_name (api),
                    sizeof (c->api_version));
    } else if (!strcmp (key, "connect_timeout_ms")) {
        if (confval_long (&p->at, key, val, 1, 3600000L, &l, errp) < 0)
            return -1;
        c->connect_timeout_ms = l;
    } else if (!strcmp (key, "timeout_ms")) {
        if (confval_long (&p->at, key, val, 1, 3600000L, &l, errp) < 0)
            return -1;
        c->timeout_ms = l;
    } else if (!strcmp (key, "min_job_age")) {
        if (confval_long (&p->at, key, val, 2, 365L * 86400, &l, errp) < 0)
            return -1;
        c->min_job_age_s = l;
    } else if (!strcmp (key, "slurm_cluster")) {
        if (!valid_name (val))
            return perr (p, errp, "slurm_cluster: '%s' is not a valid name",
                         val);
        ms_strlcpy (c->slurm_cluster, val, sizeof (c->slurm_cluster));
    } else if (!strcmp (key, "zone")) {
        if (!valid_name (val))
            return perr (p, errp, "zone: '%s' is not a valid name (letters, "
                         "digits, '_', '-', '.')", val);
        ms_strlcpy (c->zone, val, sizeof (c->zone));
        c->zone_line = p->at.line;
    } else if (!strcmp (key, "accounting")) {
        if (!strcmp (val, "auto"))
            c->accounting = true;
        else if (!strcmp (val, "none"))
            c->accounting = false;
        else
            return perr (p, errp, "accounting: '%s' is not one of auto, none",
                         val);
    } else if (!strcmp (key, "filesystems")) {
        char buf[4096], *save = NULL, *w;
        if (strlen (val) >= sizeof (buf))
            return perr (p, errp, "filesystems: too long");
        ms_strlcpy (buf, val, sizeof (buf));
        c->nfilesystems = 0;
        for (w = strtok_r (buf, " \t,", &save); w;
             w = strtok_r (NULL, " \t,", &save)) {
            size_t n = strlen (w);
            if (w[0] != '/')
                return perr (p, errp,
                             "filesystems: '%s' is not an absolute path", w);
            if (strstr (w, "/../") || strstr (w, "/./")
                || (n >= 3 && !strcmp (w + n - 3, "/..")) || !strcmp (w, "/.")
                || (n >= 2 && !strcmp (w + n - 2, "/.")))
                return perr (p, errp,
                             "filesystems: '%s' holds '.' or '..'", w);
            if (n >= sizeof (c->filesystems[0]))
                return perr (p, errp, "filesystems: '%s' is too long", w);
            if (c->nfilesystems == MS_MAX_FILESYSTEMS)
                return perr (p, errp, "filesystems: more than %d prefixes",
                             MS_MAX_FILESYSTEMS);
            /* kept without trailing slashes ("/" stays "/") */
            while (n > 1 && w[n - 1] == '/')
                w[--n] = '\0';
            ms_strlcpy (c->filesystems[c->nfilesystems++], w,
                        sizeof (c->filesystems[0]));
        }
        if (!c->nfilesystems)
            return perr (p, errp, "filesystems: no path given");
    } else
        return perr (p, errp, "unknown key '%s' in [cluster %s]", key,
                     c->name);
    return 0;
}

static int
set_partition (struct parser *p, size_t i, const char *key, const char *val,
               ms_error_t *errp)
{
    ms_partconf_t *pt = &p->conf->parts[i];
    long l;

    if (!strcmp (key, "architecture")) {
        if (!valid_name (val))
            return perr (p, errp, "architecture: '%s' is not a valid name",
                         val);
        ms_strlcpy (p->part_arch[i], val, MS_NAME_MAX);
    } else if (!strcmp (key, "nodes")) {
        if (confval_long (&p->at, key, val, 1, 1 << 24, &l, errp) < 0)
            return -1;
        pt->nodes = (int)l;
    } else if (!strcmp (key, "power_cap_w"))
        return confval_double (&p->at, key, val, 0, 1e12, &pt->power_cap_w,
                               errp);
    else if (!strcmp (key, "gpus_per_node")) {
        if (confval_long (&p->at, key, val, 0, 64, &l, errp) < 0)
            return -1;
        pt->gpus_per_node = (int)l;
    } else if (!strcmp (key, "gpu_model")) {
        if (!valid_name (val))
            return perr (p, errp, "gpu_model: '%s' is not a valid name", val);
        ms_strlcpy (pt->gpu_model, val, sizeof (pt->gpu_model));
    } else if (!strcmp (key, "gpu_idle_power_w"))
        return confval_double (&p->at, key, val, 0, 1e5, &pt->gpu_idle_power_w,
                               errp);
    else if (!strcmp (key, "gpu_busy_power_w"))
        return confval_double (&p->at, key, val, 0, 1e5, &pt->gpu_busy_power_w,
                               errp);
    else if (!strcmp (key, "max_time")) {
        /* minutes, or UNLIMITED / INFINITE */
        if (!strcasecmp (val, "UNLIMITED") || !strcasecmp (val, "INFINITE"))
            pt->limits.max_time_min = -1;
        else if (confval_long (&p->at, key, val, 1, 366L * 24 * 60 * 100, &l,
                               errp)
                 < 0)
            return -1;
        else
            pt->limits.max_time_min = l;
        pt->limits.set |= MS_LIM_MAX_TIME;
    } else if (!strcmp (key, "max_nodes")) {
        if (!strcasecmp (val, "UNLIMITED") || !strcasecmp (val, "INFINITE"))
            pt->limits.max_nodes = -1;
        else if (confval_long (&p->at, key, val, 1, 1 << 24, &l, errp) < 0)
            return -1;
        else
            pt->limits.max_nodes = (int)l;
        pt->limits.set |= MS_LIM_MAX_NODES;
    } else if (!strcmp (key, "min_nodes")) {
        if (confval_long (&p->at, key, val, 0, 1 << 24, &l, errp) < 0)
            return -1;
        pt->limits.min_nodes = (int)l;
        pt->limits.set |= MS_LIM_MIN_NODES;
    } else if (!strcmp (key, "mem_per_node_mb")) {
        if (confval_long (&p->at, key, val, 1, 1L << 40, &l, errp) < 0)
            return -1;
        pt->limits.mem_per_node_mb = l;
        pt->limits.set |= MS_LIM_MEM;
    } else {
        static const struct {
            const char *key;
            unsigned flag;
            size_t off;
        } lists[] = {
            { "features", MS_LIM_FEATURES, offsetof (ms_partlimits_t, features) },
            { "allow_accounts", MS_LIM_ALLOW_ACCOUNTS,
              offsetof (ms_partlimits_t, allow_accounts) },
            { "deny_accounts", MS_LIM_DENY_ACCOUNTS,
              offsetof (ms_partlimits_t, deny_accounts) },
            { "allow_groups", MS_LIM_ALLOW_GROUPS,
              offsetof (ms_partlimits_t, allow_groups) },
            { "allow_qos", MS_LIM_ALLOW_QOS,
              offsetof (ms_partlimits_t, allow_qos) },
            { "deny_qos", MS_LIM_DENY_QOS, offsetof (ms_partlimits_t, deny_qos) },
        };
        for (size_t k = 0; k < sizeof (lists) / sizeof (lists[0]); k++) {
            char *dst;
            size_t cap = k == 0 ? sizeof (pt->limits.features)
                                : sizeof (pt->limits.allow_accounts);
            if (strcmp (key, lists[k].key))
                continue;
            if (strlen (val) >= cap)
                return perr (p, errp, "%s: longer than %zu characters", key,
                             cap - 1);
            /* a comma-separated list of names */
            for (const char *c = val; *c; c++)
                if (!(isalnum ((unsigned char)*c) || *c == '_' || *c == '-'
                      || *c == '.' || *c == ','))
                    return perr (p, errp,
                                 "%s: '%s' holds '%c'; a comma-separated list "
                                 "of names is expected",
                                 key, val, *c);
            dst = (char *)&pt->limits + lists[k].off;
            ms_strlcpy (dst, val, cap);
            pt->limits.set |= lists[k].flag;
            return 0;
        }
        return perr (p, errp, "unknown key '%s' in [partition %s/%s]", key,
                     p->part_cluster[i], pt->name);
    }
    return 0;
}

static int
begin_section (struct parser *p, char *hdr, ms_error_t *errp)
{
    ms_siteconf_t *c = p->conf;
    char *kind = ms_strtrim (hdr), *name;

    name = kind;
    while (*name && !isspace ((unsigned char)*name))
        name++;
    if (*name)
        *name++ = '\0';
    name = ms_strtrim (name);
    if (!*name)
        return perr (p, errp, "section [%s] needs a name", kind);

    if (!strcmp (kind, "architecture")) {
        if (!valid_name (name))
            return perr (p, errp, "'%s' is not a valid architecture name",
                         name);
        if (clusterconf_arch (c, name))
            return perr (p, errp, "architecture '%s' is defined twice", name);
        c->archs = ms_xrealloc (c->archs, (c->narchs + 1) * sizeof (*c->archs));
        ms_arch_t *a = &c->archs[c->narchs];
        memset (a, 0, sizeof (*a));
        ms_strlcpy (a->name, name, sizeof (a->name));
        a->line = p->at.line;
        a->idle_power_w = -1;
        p->sec = SEC_ARCH;
        p->cur = c->narchs++;
    } else if (!strcmp (kind, "cluster")) {
        if (!valid_name (name))
            return perr (p, errp, "'%s' is not a valid cluster name", name);
        if (clusterconf_cluster (c, name))
            return perr (p, errp, "cluster '%s' is defined twice", name);
        c->clusters = ms_xrealloc (c->clusters,
                                   (c->nclusters + 1) * sizeof (*c->clusters));
        ms_clusterconf_t *cl = &c->clusters[c->nclusters];
        memset (cl, 0, sizeof (*cl));
        ms_strlcpy (cl->name, name, sizeof (cl->name));
        ms_strlcpy (cl->token_user, "root", sizeof (cl->token_user));
        cl->connect_timeout_ms = 3000;
        cl->accounting = true;
        cl->timeout_ms = 15000;
        cl->min_job_age_s = 300;
        cl->line = p->at.line;
        p->sec = SEC_CLUSTER;
        p->cur = c->nclusters++;
    } else if (!strcmp (kind, "partition")) {
        char *slash = strchr (name, '/');
        if (!slash)
            return perr (p, errp,
                         "partition '%s' must be named CLUSTER/PARTITION",
                         name);
        *slash = '\0';
        if (!valid_name (name) || !valid_name (slash + 1))
            return perr (p, errp, "'%s/%s' is not a valid partition name",
                         name, slash + 1);
        for (size_t i = 0; i < c->nparts; i++)
            if (!strcmp (p->part_cluster[i], name)
                && !strcmp (c->parts[i].name, slash + 1))
                return perr (p, errp, "partition '%s/%s' is defined twice",
                             name, slash + 1);
        size_t n = c->nparts + 1;
        c->parts = ms_xrealloc (c->parts, n * sizeof (*c->parts));
        p->part_arch = ms_xrealloc (p->part_arch, n * MS_NAME_MAX);
        p->part_cluster = ms_xrealloc (p->part_cluster, n * MS_NAME_MAX);
        ms_partconf_t *pt = &c->parts[c->nparts];
        memset (pt, 0, sizeof (*pt));
        ms_strlcpy (pt->name, slash + 1, sizeof (pt->name));
        pt->line = p->at.line;
        p->part_arch[c->nparts][0] = '\0';
        ms_strlcpy (p->part_cluster[c->nparts], name, MS_NAME_MAX);
        p->sec = SEC_PARTITION;
        p->cur = c->nparts++;
    } else
        return perr (p, errp,
                     "unknown section [%s %s] (expected architecture, "
                     "cluster or partition)",
                     kind, name);
    return 0;
}

static int
finish (struct parser *p, ms_error_t *errp)
{
    ms_siteconf_t *c = p->conf;

    for (size_t i = 0; i < c->narchs; i++) {
        ms_arch_t *a = &c->archs[i];
        p->at.line = a->line;
        if (a->cores_per_node == 0)
            return perr (p, errp, "[architecture %s] needs cores_per_node",
                         a->name);
        if (a->nfreqs == 0)
            return perr (p, errp, "[architecture %s] needs frequencies_khz",
                         a->name);
        if (a->nominal_khz == 0)
            a->nominal_khz = a->freqs_khz[a->nfreqs - 1];
        freq_slots (a);
        if (clusterconf_freq_index (a, a->nominal_khz) < 0)
            return perr (p, errp,
                         "[architecture %s] nominal_khz %u is not one of its "
                         "frequencies",
                         a->name, a->nominal_khz);
        if (a->idle_power_w < 0)
            return perr (p, errp, "[architecture %s] needs idle_power_w",
                         a->name);
    }
    for (size_t i = 0; i < c->nclusters; i++) {
        ms_clusterconf_t *cl = &c->clusters[i];
        p->at.line = cl->line;
        if (cl->backend == MS_BACKEND_SLURMREST && !cl->url[0])
            return perr (p, errp, "[cluster %s] needs url", cl->name);
        if (cl->backend == MS_BACKEND_SLURMREST && !cl->token_file[0])
            return perr (p, errp, "[cluster %s] needs token_file", cl->name);
    }
    for (size_t i = 0; i < c->nparts; i++) {
        ms_partconf_t *pt = &c->parts[i];
        const ms_arch_t *a;
        const ms_clusterconf_t *cl;
        p->at.line = pt->line;
        if (!(cl = clusterconf_cluster (c, p->part_cluster[i])))
            return perr (p, errp, "[partition %s/%s]: no [cluster %s]",
                         p->part_cluster[i], pt->name, p->part_cluster[i]);
        pt->cluster = (size_t)(cl - c->clusters);
        if (!p->part_arch[i][0])
            return perr (p, errp, "[partition %s/%s] needs architecture",
                         p->part_cluster[i], pt->name);
        if (!(a = clusterconf_arch (c, p->part_arch[i])))
            return perr (p, errp,
                         "[partition %s/%s]: unknown architecture '%s'",
                         p->part_cluster[i], pt->name, p->part_arch[i]);
        pt->arch = (size_t)(a - c->archs);
        if (pt->nodes == 0)
            return perr (p, errp, "[partition %s/%s] needs nodes",
                         p->part_cluster[i], pt->name);
        if (!pt->gpus_per_node
            && (pt->gpu_model[0] || pt->gpu_idle_power_w > 0
                || pt->gpu_busy_power_w > 0))
            return perr (p, errp,
                         "[partition %s/%s]: gpu_model and GPU powers need "
                         "gpus_per_node",
                         p->part_cluster[i], pt->name);
        if (pt->gpu_busy_power_w > 0
            && pt->gpu_busy_power_w < pt->gpu_idle_power_w)
            return perr (p, errp,
                         "[partition %s/%s]: gpu_busy_power_w %g is below "
                         "gpu_idle_power_w %g",
                         p->part_cluster[i], pt->name, pt->gpu_busy_power_w,
                         pt->gpu_idle_power_w);
    }
    for (size_t i = 0; i < c->nclusters; i++) {
        size_t n = 0;
        for (size_t j = 0; j < c->nparts; j++)
            n += c->parts[j].cluster == i;
        if (n == 0) {
            p->at.line = c->clusters[i].line;
            return perr (p, errp, "[cluster %s] has no partition",
                         c->clusters[i].name);
        }
    }
    if (c->nclusters == 0) {
        p->at.line = 0;
        return ms_err (errp, MS_ERR_INPUT, "%s: no cluster is configured",
                       p->at.name);
    }
    return 0;
}

/* ms_ini_walk's callbacks: a section header, a key = value */
static int
on_section (void *arg, char *key, char *val, ms_error_t *errp)
{
    (void)val;
    return begin_section (arg, key, errp);
}

static int
on_key (void *arg, char *key, char *val, ms_error_t *errp)
{
    struct parser *p = arg;

    switch (p->sec) {
    case SEC_NONE:
        return perr (p, errp, "key '%s' outside of any section", key);
    case SEC_ARCH:
        return set_arch (p, &p->conf->archs[p->cur], key, val, errp);
    case SEC_CLUSTER:
        return set_cluster (p, &p->conf->clusters[p->cur], key, val, errp);
    case SEC_PARTITION:
        return set_partition (p, p->cur, key, val, errp);
    }
    return 0;
}

int
clusterconf_parse (const char *text, size_t len, const char *name,
                   ms_siteconf_t **confp, ms_error_t *errp)
{
    struct parser p = { .at.name = name };
    int rc;

    p.conf = ms_xcalloc (1, sizeof (*p.conf));
    ms_strlcpy (p.conf->path, name, sizeof (p.conf->path));
    rc = ms_ini_walk (text, len, name, &p.at.line, on_section, on_key, &p,
                      errp);
    if (rc == 0)
        rc = finish (&p, errp);
    free (p.part_arch);
    free (p.part_cluster);
    if (rc < 0) {
        clusterconf_free (p.conf);
        return -1;
    }
    *confp = p.conf;
    return 0;
}

/* clusterconf_load's reader for ms_parse_file */
static int
parse_text (const char *text, size_t len, const char *name, void *confp,
            ms_error_t *errp)
{
    return clusterconf_parse (text, len, name, confp, errp);
}

int
clusterconf_load (const char *path, ms_siteconf_t **confp, ms_error_t *errp)
{
    return ms_parse_file (path, CONF_MAX_BYTES, parse_text, confp, errp);
}

void
clusterconf_free (ms_siteconf_t *conf)
{
    if (conf) {
        free (conf->archs);
        free (conf->clusters);
        free (conf->parts);
        free (conf);
    }
}

const ms_arch_t *
clusterconf_arch (const ms_siteconf_t *conf, const char *name)
{
    for (size_t i = 0; i < conf->narchs; i++)
        if (!strcmp (conf->archs[i].name, name))
            return &conf->archs[i];
    return NULL;
}

const ms_clusterconf_t *
clusterconf_cluster (const ms_siteconf_t *conf, const char *name)
{
    for (size_t i = 0; i < conf->nclusters; i++)
        if (!strcmp (conf->clusters[i].name, name))
            return &conf->clusters[i];
    return NULL;
}

const ms_partconf_t *
clusterconf_partition (const ms_siteconf_t *conf, const char *cluster,
                       const char *partition)
{
    for (size_t i = 0; i < conf->nparts; i++)
        if (!strcmp (conf->parts[i].name, partition)
            && !strcmp (conf->clusters[conf->parts[i].cluster].name, cluster))
            return &conf->parts[i];
    return NULL;
}

int
clusterconf_freq_index (const ms_arch_t *arch, uint32_t khz)
{
    if (arch->fslots_ok) {
        unsigned i = arch->fslot[freq_slot (khz)];
        return i && arch->freqs_khz[i - 1] == khz ? (int)i - 1 : -1;
    }
    for (size_t i = 0; i < arch->nfreqs; i++)
        if (arch->freqs_khz[i] == khz)
            return (int)i;
    return -1;
}
