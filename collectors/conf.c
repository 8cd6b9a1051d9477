/* conf.c - the collectors' configuration (collect.conf) and the job's
 * identity as Slurm gives it to prolog, epilog and batch step. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collect.h"
#include "collectors/cpufreq.h"
#include "collectors/papi_sampler.h"
#include "collectors/rapl.h"
#include "metasched/common/confval.h"
#include "metasched/common/util.h"

void
collect_conf_defaults (collect_conf_t *c)
{
    memset (c, 0, sizeof (*c));
    ms_strlcpy (c->powercap_root, RAPL_DEFAULT_ROOT, sizeof (c->powercap_root));
    ms_strlcpy (c->cpufreq_root, CPUFREQ_DEFAULT_ROOT, sizeof (c->cpufreq_root));
    ms_strlcpy (c->spool_dir, MS_LOCALSTATEDIR "/spool/metasched",
                sizeof (c->spool_dir));
    ms_strlcpy (c->job_dir, "/run/metasched-jobs", sizeof (c->job_dir));
    ms_strlcpy (c->conninfo, "dbname=metasched user=ms_collector",
                sizeof (c->conninfo));
    ms_strlcpy (c->events, PAPI_SAMPLER_DEFAULT_EVENTS, sizeof (c->events));
    ms_strlcpy (c->scontrol, "scontrol", sizeof (c->scontrol));
    c->max_power_w = 1000;
    c->sample_s = 60;
    c->db_retry_ms = 2000;
    c->db_connect_timeout_s = 3;
    c->epilog_send_ms = 1000;
    c->slurm_query_ms = 3000;
    c->spool_max_files = 20000;
    c->spool_max_bytes = 256ULL << 20;
    c->bad_max_age_days = 30;
}

/* A whole number lo..hi for key; errors name the key and the value. */
static int
conf_u64 (const char *key, const char *val, unsigned long long lo,
          unsigned long long hi, uint64_t *out, ms_error_t *errp)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull (val, &end, 10);
    if (end == val || *end || errno || val[0] == '-' || v < lo || v > hi)
        return ms_err (errp, MS_ERR_INPUT, "%s: '%.40s' is not %llu..%llu", key,
                       val, lo, hi);
    *out = v;
    return 0;
}

int
collect_conf_set (collect_conf_t *c, const char *key, const char *val,
                  ms_error_t *errp)
{
    char *end;

    if (!strcmp (key, "powercap_root"))
        return confval_str (NULL, key, val, c->powercap_root,
                            sizeof (c->powercap_root), errp);
    if (!strcmp (key, "cpufreq_root"))
        return confval_str (NULL, key, val, c->cpufreq_root,
                            sizeof (c->cpufreq_root), errp);
    if (!strcmp (key, "spool_dir"))
        return confval_str (NULL, key, val, c->spool_dir, sizeof (c->spool_dir),
                            errp);
    if (!strcmp (key, "job_dir"))
        return confval_str (NULL, key, val, c->job_dir, sizeof (c->job_dir),
                            errp);
    if (!strcmp (key, "conninfo")) {
        if (confval_str (NULL, key, val, c->conninfo, sizeof (c->conninfo),
                         errp)
            < 0)
            return -1;
        return db_check_passfile (c->conninfo, errp);
    }
    if (!strcmp (key, "password_file"))
        return confval_str (NULL, key, val, c->password_file,
                            sizeof (c->password_file), errp);
    if (!strcmp (key, "events"))
        return confval_str (NULL, key, val, c->events, sizeof (c->events),
                            errp);
    if (!strcmp (key, "scontrol"))
        return confval_str (NULL, key, val, c->scontrol, sizeof (c->scontrol),
                            errp);
    if (!strcmp (key, "squeue"))
        return confval_str (NULL, key, val, c->squeue, sizeof (c->squeue),
                            errp);
    if (!strcmp (key, "cluster"))
        return confval_str (NULL, key, val, c->cluster, sizeof (c->cluster),
                            errp);
    if (!strcmp (key, "max_power_w")) {
        double w = strtod (val, &end);
        if (end == val || *end || !(w > 0 && w < 1e5))
            return ms_err (errp, MS_ERR_INPUT,
                           "max_power_w: '%s' is not a power in watts", val);
        c->max_power_w = w;
        return 0;
    }
    if (!strcmp (key, "sample_s")) {
        uint64_t v;
        if (conf_u64 (key, val, 0, 3600, &v, errp) < 0)
            return -1;
        c->sample_s = (int)v;
        return 0;
    }
    if (!strcmp (key, "db_connect_timeout_s")) {
        uint64_t v;
        /* libpq takes 2 s as its least connect_timeout */
        if (conf_u64 (key, val, 2, 60, &v, errp) < 0)
            return -1;
        c->db_connect_timeout_s = (int)v;
        return 0;
    }
    if (!strcmp (key, "epilog_send_ms")) {
        uint64_t v;
        if (conf_u64 (key, val, 0, 10000, &v, errp) < 0)
            return -1;
        c->epilog_send_ms = (int)v;
        return 0;
    }
    if (!strcmp (key, "slurm_query_ms")) {
        uint64_t v;
        if (conf_u64 (key, val, 100, 60000, &v, errp) < 0)
            return -1;
        c->slurm_query_ms = (int)v;
        return 0;
    }
    if (!strcmp (key, "bad_max_age_days")) {
        uint64_t v;
        if (conf_u64 (key, val, 1, 3650, &v, errp) < 0)
            return -1;
        c->bad_max_age_days = (int)v;
        return 0;
    }
    /* at least one record fits (spool.h: SPOOL_MAX_BYTES) */
    if (!strcmp (key, "spool_max_files"))
        return conf_u64 (key, val, 1, 100000000ULL, &c->spool_max_files, errp);
    if (!strcmp (key, "spool_max_bytes"))
        return conf_u64 (key, val, SPOOL_MAX_BYTES, 1ULL << 40,
                         &c->spool_max_bytes, errp);
    if (!strcmp (key, "db_retry_ms")) {
        long ms = strtol (val, &end, 10);
        if (end == val || *end || ms < 0 || ms > 600000)
            return ms_err (errp, MS_ERR_INPUT,
                           "db_retry_ms: '%s' is not 0..600000", val);
        c->db_retry_ms = (int)ms;
        return 0;
    }
    return ms_err (errp, MS_ERR_INPUT, "unknown key '%s'", key);
}

int
collect_conf_load (const char *path, bool missing_ok, collect_conf_t *c,
                   ms_error_t *errp)
{
    char *text, *line;
    size_t len;
    int lineno = 0;

    if (ms_read_file (path, 256 * 1024, &text, &len, errp) < 0) {
        if (missing_ok && errp && errp->kind == MS_ERR_SYSTEM
            && errp->sys_errno == ENOENT) {
            ms_err_clear (errp);
            return 0;
        }
        return -1;
    }
    /* strtok_r would skip empty lines and lose the count: split by hand */
    line = text;
    while (line && *line) {
        char *nl = strchr (line, '\n'), *eq, *key, *val, *hash;
        if (nl)
            *nl = '\0';
        lineno++;
        if ((hash = strchr (line, '#')))
            *hash = '\0';
        key = ms_strtrim (line);
        if (*key) {
            if (!(eq = strchr (key, '='))) {
                ms_err (errp, MS_ERR_INPUT, "%s:%d: expected key = value",
                        path, lineno);
                free (text);
                return -1;
            }
            *eq = '\0';
            key = ms_strtrim (key);
            val = ms_strtrim (eq + 1);
            if (collect_conf_set (c, key, val, errp) < 0) {
                ms_err_prefix (errp, "%s:%d", path, lineno);
                free (text);
                return -1;
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    free (text);
    return 0;
}

void
collect_powercap_root (const collect_conf_t *c, const char *node, char *out,
                       size_t len)
{
    collect_expand_node (c->powercap_root, node, out, len);
}

void
collect_expand_node (const char *pattern, const char *node, char *out,
                     size_t len)
{
    size_t o = 0;

    for (const char *p = pattern; *p && o + 1 < len; p++) {
        if (p[0] == '%' && p[1] == 'n') {
            o += ms_strlcpy (out + o, node, len - o);
            if (o >= len)
                o = len - 1;
            p++;
        } else
            out[o++] = *p;
    }
    out[o] = '\0';
}

/* Names that end up in file names and SQL parameters. */
static bool
safe_name (const char *s)
{
    if (!*s || strlen (s) > 63 || s[0] == '.' || s[0] == '-')
        return false;
    for (; *s; s++)
        if (!(isalnum ((unsigned char)*s) || strchr ("_.+-", *s)))
            return false;
    return true;
}

int
collect_job_from_env (const collect_conf_t *c, collect_job_t *j,
                      ms_error_t *errp)
{
    const char *id = getenv ("SLURM_JOB_ID"), *node = getenv ("SLURMD_NODENAME"),
               *cl = c->cluster[0] ? c->cluster : getenv ("SLURM_CLUSTER_NAME"),
               *user = getenv ("SLURM_JOB_USER"), *uid = getenv ("SLURM_JOB_UID"),
               *gid = getenv ("SLURM_JOB_GID"),
               *part = getenv ("SLURM_JOB_PARTITION");
    char *end;
    unsigned long long v;

    memset (j, 0, sizeof (*j));
    j->uid = j->gid = -1;
    if (!id || !*id)
        return ms_err (errp, MS_ERR_INPUT,
                       "SLURM_JOB_ID is not set: not run by Slurm");
    errno = 0;
    v = strtoull (id, &end, 10);
    if (*end || errno || v == 0)
        return ms_err (errp, MS_ERR_INPUT, "SLURM_JOB_ID '%.32s' is not a job",
                       id);
    j->job_id = v;
    if (!node || !safe_name (node))
        return ms_err (errp, MS_ERR_INPUT, "SLURMD_NODENAME missing or odd");
    ms_strlcpy (j->node, node, sizeof (j->node));
    if (!cl || !safe_name (cl))
        return ms_err (errp, MS_ERR_INPUT,
                       "no cluster name (SLURM_CLUSTER_NAME or cluster =)");
    ms_strlcpy (j->cluster, cl, sizeof (j->cluster));
    if (part && safe_name (part))
        ms_strlcpy (j->partition, part, sizeof (j->partition));
    if (uid && *uid) {
        long u = strtol (uid, &end, 10);
        if (!*end && u >= 0)
            j->uid = u;
    }
    if (gid && *gid) {
        long g = strtol (gid, &end, 10);
        if (!*end && g >= 0)
            j->gid = g;
    }
    if (user && *user)
        ms_strlcpy (j->user, user, sizeof (j->user));
    if ((j->uid < 0 || j->gid < 0) && j->user[0]) {
        struct passwd *pw = getpwnam (j->user);
        if (pw) {
            if (j->uid < 0)
                j->uid = (long)pw->pw_uid;
            if (j->gid < 0)
                j->gid = (long)pw->pw_gid;
        }
    }
    if (!j->user[0] && j->uid >= 0) {
        struct passwd *pw = getpwuid ((uid_t)j->uid);
        if (pw)
            ms_strlcpy (j->user, pw->pw_name, sizeof (j->user));
    }
    return 0;
}

void
collect_job_file (const collect_job_t *j, const char *suffix, char *out,
                  size_t len)
{
    snprintf (out, len, "%s.%llu.%s%s", j->cluster,
              (unsigned long long)j->job_id, j->node, suffix);
}
