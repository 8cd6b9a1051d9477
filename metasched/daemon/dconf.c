/* dconf.c - read metaschedd's configuration (see dconf.h). The format and
 * the error style are those of partitions/clusterconf.c. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "metasched/daemon/dconf.h"
#include "metasched/common/confval.h"
#include "metasched/common/ini.h"
#include "metasched/common/util.h"
#include "metasched/core/carbon.h"
#include "metasched/core/power.h"
#include "metasched/core/settings_table.h"

#define DCONF_MAX_BYTES (1024 * 1024)

struct parser {
    confval_at_t at; /* the file and the line of messages */
    bool in_daemon;
    bool seen[64];
    ms_dconf_t *c;
};

/* "name:line: message", the line being the parser's */
#define perr(p, errp, ...) confval_err (&(p)->at, errp, __VA_ARGS__)

static bool
valid_admin (const char *s)
{
    if (*s == '@')
        s++;
    if (!*s || strlen (s) > 64)
        return false;
    for (; *s; s++)
        if (!isalnum ((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.'
            && *s != '$')
            return false;
    return true;
}

static void
free_admins (ms_dconf_t *c)
{
    for (size_t i = 0; i < c->nadmin_users; i++)
        free (c->admin_users[i]);
    for (size_t i = 0; i < c->nadmin_groups; i++)
        free (c->admin_groups[i]);
    free (c->admin_users);
    free (c->admin_groups);
    c->admin_users = c->admin_groups = NULL;
    c->nadmin_users = c->nadmin_groups = 0;
}

static int
parse_admins (struct parser *p, char *val, ms_error_t *errp)
{
    ms_dconf_t *c = p->c;
    char *save = NULL;

    free_admins (c);
    for (char *tok = strtok_r (val, ", \t", &save); tok;
         tok = strtok_r (NULL, ", \t", &save)) {
        if (!valid_admin (tok))
            return perr (p, errp, "admins: '%s' is not a user or @group name",
                         tok);
        c->admin_users = ms_xrealloc (c->admin_users,
                                      (c->nadmin_users + 1) * sizeof (char *));
        c->admin_users[c->nadmin_users++] = ms_xstrdup (tok);
        if (*tok == '@') {
            c->admin_groups = ms_xrealloc (
                c->admin_groups, (c->nadmin_groups + 1) * sizeof (char *));
            c->admin_groups[c->nadmin_groups++] = ms_xstrdup (tok + 1);
        }
    }
    return 0;
}

/* "host:port" with a port number */
static int
parse_listen (struct parser *p, const char *val, ms_error_t *errp)
{
    const char *colon = strrchr (val, ':');
    char *end;
    long port;

    if (!colon || colon == val)
        return perr (p, errp, "listen: '%s' is not HOST:PORT", val);
    errno = 0;
    port = strtol (colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || port < 0 || port > 65535)
        return perr (p, errp, "listen: '%s': bad port", val);
    if (strlen (val) >= sizeof (p->c->listen))
        return perr (p, errp, "listen: too long");
    ms_strlcpy (p->c->listen, val, sizeof (p->c->listen));
    return 0;
}

static const char *const keys[] = {
    "clusters_conf",
    "database",
    "password_file",
    "socket",
    "listen",
    "munge_socket",
    "admins",
    "allow_partition",
    "partition_requests",
    "cluster_requests",
    "cpu_freq_requests",
    "metrics_public",
    "cycle_s",
    "leader_takeover_s",
    "refit_s",
    "collect_wrapper",
    "collect_config",
    "api_server_for_jobs",
    "gate_wait_s",
    "log",
    "max_script_bytes",
    "script_retention_days",
    "gpu_profiles",
    /* the API's limits (api.h) */
    "threads",
    "request_timeout_s",
    "max_connections",
    "max_connections_per_user",
    "max_connections_per_address",
    "tag_key_file",
    "power_budget",
    "carbon_signal",
    "carbon_poll_s",
    "carbon_max_age_s",
    NULL,
};

/* partition_map NAME = CLUSTER/PARTITION ... and cluster_map NAME =
 * CLUSTER ...: one parser, told apart by what a target is. */
struct map_kind {
    const char *key;   /* "partition_map" */
    const char *what;  /* what NAME and each target name: "partition" */
    const char *usage; /* a target's form in messages */
    bool part;         /* a target is CLUSTER/PARTITION, else CLUSTER */
};

static const struct map_kind partition_map_kind
    = { "partition_map", "partition", "CLUSTER/PARTITION", true };
static const struct map_kind cluster_map_kind
    = { "cluster_map", "cluster", "CLUSTER", false };

/* Is w a target of kind k? */
static bool
map_target_ok (const struct map_kind *k, const char *w)
{
    const char *slash = strchr (w, '/');

    if (!k->part)
        return !slash;
    return slash && slash != w && slash[1] && !strchr (slash + 1, '/');
}

static int
parse_map (struct parser *p, const struct map_kind *k, const char *key,
           char *val, dconf_partmap_t **mapp, size_t *nmapp, ms_error_t *errp)
{
    const char *name = key + strlen (k->key);
    dconf_partmap_t *m;
    char *save = NULL, *w;
    size_t used = 0;

    while (*name == ' ' || *name == '\t')
        name++;
    if (!*name)
        return perr (p, errp, "%s: needs a name (%s NAME = %s ...)", k->key,
                     k->key, k->usage);
    for (const char *q = name; *q; q++)
        if (!(isalnum ((unsigned char)*q) || *q == '_' || *q == '-'
              || *q == '.'))
            return perr (p, errp,
                         "%s %s: a %s name is letters, digits, '_', '-' "
                         "and '.'",
                         k->key, name, k->what);
    if (strlen (name) >= MS_NAME_MAX)
        return perr (p, errp, "%s %s: name too long", k->key, name);
    for (size_t i = 0; i < *nmapp; i++)
        if (!strcmp ((*mapp)[i].name, name))
            return perr (p, errp, "%s %s: given twice (line %d)", k->key, name,
                         (*mapp)[i].line);
    *mapp = ms_xrealloc (*mapp, (*nmapp + 1) * sizeof (*m));
    m = &(*mapp)[*nmapp];
    memset (m, 0, sizeof (*m));
    ms_strlcpy (m->name, name, sizeof (m->name));
    m->line = p->at.line;
    for (w = strtok_r (val, " \t,", &save); w;
         w = strtok_r (NULL, " \t,", &save)) {
        int n;
        if (!map_target_ok (k, w))
            return k->part ? perr (p, errp, "%s %s: '%s' is not %s", k->key,
                                   name, w, k->usage)
                           : perr (p, errp, "%s %s: '%s' is not a %s name",
                                   k->key, name, w, k->what);
        n = snprintf (m->targets + used, sizeof (m->targets) - used, "%s%s",
                      used ? " " : "", w);
        if (n < 0 || (size_t)n >= sizeof (m->targets) - used)
            return perr (p, errp, "%s %s: too long", k->key, name);
        used += (size_t)n;
    }
    if (!used)
        return perr (p, errp, "%s %s: no %s given", k->key, name, k->what);
    (*nmapp)++;
    return 0;
}

/* carbon_signal = ZONE=SOURCE, ...: a zone's name as clusters.conf's
 * names; SOURCE an absolute path or an http(s) URL (a comma in one is
 * written %2C). */
static int
parse_carbon_signal (struct parser *p, char *val, ms_error_t *errp)
{
    ms_dconf_t *c = p->c;
    char *save = NULL, *w;

    c->carbon_signal_line = p->at.line;
    for (w = strtok_r (val, ",", &save); w; w = strtok_r (NULL, ",", &save)) {
        char *eq, *zone, *src;
        dconf_csig_t *g;
        w = ms_strtrim (w);
        if (!*w)
            continue;
        if (!(eq = strchr (w, '=')))
            return perr (p, errp, "carbon_signal: '%s' is not ZONE=SOURCE", w);
        *eq = '\0';
        zone = ms_strtrim (w);
        src = ms_strtrim (eq + 1);
        if (!*zone || strlen (zone) >= MS_NAME_MAX
            || strspn (zone, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                             "WXYZ0123456789_-.")
                   != strlen (zone))
            return perr (p, errp, "carbon_signal: zone '%s' is not a name "
                         "(letters, digits, '_', '-', '.')", zone);
        for (size_t i = 0; i < c->ncsig; i++)
            if (!strcmp (c->csig[i].zone, zone))
                return perr (p, errp, "carbon_signal: zone '%s' given twice",
                             zone);
        if (strncmp (src, "http://", 7) && strncmp (src, "https://", 8)
            && src[0] != '/')
            return perr (p, errp, "carbon_signal: %s: '%s' is neither an "
                         "absolute path nor an http(s) URL", zone, src);
        if (strlen (src) >= MS_PATH_MAX || strpbrk (src, " \t"))
            return perr (p, errp, "carbon_signal: %s: '%s' is too long or "
                         "holds a blank", zone, src);
        c->csig = ms_xrealloc (c->csig, (c->ncsig + 1) * sizeof (*c->csig));
        g = &c->csig[c->ncsig++];
        memset (g, 0, sizeof (*g));
        ms_strlcpy (g->zone, zone, sizeof (g->zone));
        ms_strlcpy (g->source, src, sizeof (g->source));
        g->url = src[0] != '/';
    }
    if (!c->ncsig)
        return perr (p, errp, "carbon_signal: no ZONE=SOURCE given");
    return 0;
}

/* metaschedd.conf's numbers: their ranges and defaults are rows of the
 * settings table (core/settings_table.c); here is only where each is
 * kept. */
static const struct {
    const char *key;
    size_t off;
    char kind; /* 'd' double, 'u' unsigned, 'z' size_t */
} numbers[] = {
    { "cycle_s", offsetof (ms_dconf_t, cycle_s), 'd' },
    { "leader_takeover_s", offsetof (ms_dconf_t, leader_takeover_s), 'd' },
    { "refit_s", offsetof (ms_dconf_t, refit_s), 'd' },
    { "gate_wait_s", offsetof (ms_dconf_t, gate_wait_s), 'd' },
    { "threads", offsetof (ms_dconf_t, threads), 'u' },
    { "request_timeout_s", offsetof (ms_dconf_t, request_timeout_s), 'd' },
    { "max_connections", offsetof (ms_dconf_t, max_connections), 'u' },
    { "max_connections_per_user",
      offsetof (ms_dconf_t, max_connections_per_user), 'u' },
    { "max_connections_per_address",
      offsetof (ms_dconf_t, max_connections_per_address), 'u' },
    { "max_script_bytes", offsetof (ms_dconf_t, max_script_bytes), 'z' },
    { "script_retention_days", offsetof (ms_dconf_t, script_retention_days),
      'd' },
    { "carbon_poll_s", offsetof (ms_dconf_t, carbon_poll_s), 'd' },
    { "carbon_max_age_s", offsetof (ms_dconf_t, carbon_max_age_s), 'd' },
};

static void
put_number (ms_dconf_t *c, size_t i, double v)
{
    char *f = (char *)c + numbers[i].off;
    unsigned u = (unsigned)v;
    size_t z = (size_t)v;

    if (numbers[i].kind == 'u')
        memcpy (f, &u, sizeof (u));
    else if (numbers[i].kind == 'z')
        memcpy (f, &z, sizeof (z));
    else
        memcpy (f, &v, sizeof (v));
}

/* A number of [daemon] in its row's range; 1: key is not one. The
 * messages name the file and line, the key and the value. */
static int
number_key (struct parser *p, const char *key, const char *val,
            ms_error_t *errp)
{
    const ms_sett_t *r = settings_table_key (key, MS_SETT_CONF);
    size_t i, len = strlen (key);
    double v;
    long l;

    for (i = 0; i < sizeof (numbers) / sizeof (numbers[0]); i++)
        if (!strcmp (numbers[i].key, key))
            break;
    if (!r || i == sizeof (numbers) / sizeof (numbers[0]))
        return 1;
    if (numbers[i].kind != 'd') {
        if (numbers[i].kind == 'z' && val[0] == '-')
            return perr (p, errp, "%s: '%s' is not an integer", key, val);
        if (confval_long (&p->at, key, val, (long)r->lo, (long)r->hi, &l, errp)
            < 0)
            return -1;
        v = (double)l;
    } else if (len > 2 && !strcmp (key + len - 2, "_s")) {
        if (confval_seconds (&p->at, key, val,
                             (r->where & MS_SETT_ZERO_OK) ? 0 : r->lo, r->hi,
                             &v, errp)
            < 0)
            return -1;
    } else if (confval_double (&p->at, key, val, r->lo, r->hi, &v, errp) < 0)
        return -1;
    if (v != 0 && v < r->lo)
        return perr (p, errp, "%s: %g is below %g (0 turns it off)", key, v,
                     r->lo);
    if (r->type == MS_SETT_INTEGER && v != floor (v))
        return perr (p, errp, "%s: '%s' is not a whole number of seconds",
                     key, val);
    put_number (p->c, i, v);
    return 0;
}

/* Which of the n words val is (its index); -1 with an error naming key
 * and the words where none. */
static int
word_of (struct parser *p, const char *key, const char *val,
         const char *const *words, size_t n, ms_error_t *errp)
{
    char list[128];
    size_t used = 0;

    for (size_t i = 0; i < n; i++)
        if (!strcmp (val, words[i]))
            return (int)i;
    list[0] = '\0';
    for (size_t i = 0; i < n && used < sizeof (list); i++)
        used += (size_t)snprintf (list + used, sizeof (list) - used, "%s%s",
                                  i ? ", " : "", words[i]);
    return perr (p, errp, "%s: '%s' is not one of %s", key, val, list);
}

/* How a script's --partition, -M and --cpu-freq are taken; 1: key is
 * none of them. */
static int
requests_key (struct parser *p, const char *key, const char *val,
              ms_error_t *errp)
{
    static const char *const reqs[] = { "refuse", "honor", "map" };
    static const dconf_partreq_t reqv[]
        = { DCONF_PART_REFUSE, DCONF_PART_HONOR, DCONF_PART_MAP };
    static const char *const freqs[] = { "honor", "ignore", "refuse" };
    static const dconf_freqreq_t freqv[]
        = { DCONF_FREQ_HONOR, DCONF_FREQ_IGNORE, DCONF_FREQ_REFUSE };
    ms_dconf_t *c = p->c;
    int i;

    if (!strcmp (key, "partition_requests")) {
        if ((i = word_of (p, key, val, reqs, 3, errp)) < 0)
            return -1;
        c->partition_requests = reqv[i];
        return 0;
    }
    if (!strcmp (key, "cluster_requests")) {
        if ((i = word_of (p, key, val, reqs, 3, errp)) < 0)
            return -1;
        c->cluster_requests = reqv[i];
        return 0;
    }
    if (!strcmp (key, "cpu_freq_requests")) {
        if ((i = word_of (p, key, val, freqs, 3, errp)) < 0)
            return -1;
        c->cpu_freq_requests = freqv[i];
        return 0;
    }
    return 1;
}

static int
set_key (struct parser *p, const char *key, char *val, ms_error_t *errp)
{
    ms_dconf_t *c = p->c;
    int k, rc;

    if (!strncmp (key, "partition_map", 13)
        && (key[13] == '\0' || key[13] == ' ' || key[13] == '\t'))
        return parse_map (p, &partition_map_kind, key, val,
                          &p->c->partition_map, &p->c->npartition_map, errp);
    if (!strncmp (key, "cluster_map", 11)
        && (key[11] == '\0' || key[11] == ' ' || key[11] == '\t'))
        return parse_map (p, &cluster_map_kind, key, val, &p->c->cluster_map,
                          &p->c->ncluster_map, errp);
    for (k = 0; keys[k] && strcmp (keys[k], key); k++)
        ;
    if (!keys[k])
        return perr (p, errp, "unknown key '%s' in [daemon]", key);
    if (p->seen[k])
        return perr (p, errp, "%s: given twice", key);
    p->seen[k] = true;
    if ((rc = number_key (p, key, val, errp)) != 1)
        return rc;

    if (!strcmp (key, "carbon_signal"))
        return parse_carbon_signal (p, val, errp);
    if (!strcmp (key, "power_budget")) {
        c->power_budget_line = p->at.line;
        return confval_str (&p->at, key, val, c->power_budget,
                            sizeof (c->power_budget), errp);
    }
    if (!strcmp (key, "clusters_conf")) {
        c->clusters_conf_line = p->at.line;
        return confval_path (&p->at, key, val, c->clusters_conf,
                             sizeof (c->clusters_conf), errp);
    }
    if (!strcmp (key, "database")) {
        if (confval_str (&p->at, key, val, c->database, sizeof (c->database),
                         errp)
            < 0)
            return -1;
        /* a password belongs in password_file or a pgpass file, never in
         * a file that is not 0600 and ends up in messages */
        if (strstr (val, "password=") || strstr (val, "password ="))
            return perr (p, errp,
                         "database: the connection string holds a password; "
                         "put it in password_file (0600) or a pgpass file");
        c->database_line = p->at.line;
        return 0;
    }
    if (!strcmp (key, "password_file")) {
        c->password_file_line = p->at.line;
        return confval_path (&p->at, key, val, c->password_file,
                             sizeof (c->password_file), errp);
    }
    if (!strcmp (key, "socket")) {
        if (!strcmp (val, "none")) {
            c->socket[0] = '\0';
            return 0;
        }
        if (strlen (val) >= 108)
            return perr (p, errp,
                         "socket: a unix socket path has at most "
                         "107 bytes");
        return confval_path (&p->at, key, val, c->socket, sizeof (c->socket),
                             errp);
    }
    if (!strcmp (key, "listen"))
        return parse_listen (p, val, errp);
    if (!strcmp (key, "munge_socket"))
        return confval_path (&p->at, key, val, c->munge_socket,
                             sizeof (c->munge_socket), errp);
    if (!strcmp (key, "admins"))
        return parse_admins (p, val, errp);
    if (!strcmp (key, "allow_partition"))
        return confval_bool (&p->at, key, val, &c->allow_partition, errp);
    if ((rc = requests_key (p, key, val, errp)) != 1)
        return rc;
    if (!strcmp (key, "metrics_public"))
        return confval_bool (&p->at, key, val, &c->metrics_public, errp);
    if (!strcmp (key, "collect_wrapper")) {
        c->collect_wrapper_line = p->at.line;
        return confval_path (&p->at, key, val, c->collect_wrapper,
                             sizeof (c->collect_wrapper), errp);
    }
    if (!strcmp (key, "gpu_profiles")) {
        c->gpu_profiles_line = p->at.line;
        return confval_path (&p->at, key, val, c->gpu_profiles,
                             sizeof (c->gpu_profiles), errp);
    }
    if (!strcmp (key, "tag_key_file")) {
        c->tag_key_file_line = p->at.line;
        return confval_path (&p->at, key, val, c->tag_key_file,
                             sizeof (c->tag_key_file), errp);
    }
    if (!strcmp (key, "collect_config"))
        return confval_path (&p->at, key, val, c->collect_config,
                             sizeof (c->collect_config), errp);
    if (!strcmp (key, "api_server_for_jobs")) {
        if (strncmp (val, "unix:/", 6) && strncmp (val, "http://", 7))
            return perr (p, errp,
                         "api_server_for_jobs: '%s' is not unix:/PATH or "
                         "http://HOST:PORT",
                         val);
        if (strlen (val) >= sizeof (c->api_server_for_jobs))
            return perr (p, errp, "api_server_for_jobs: too long");
        ms_strlcpy (c->api_server_for_jobs, val,
                    sizeof (c->api_server_for_jobs));
        return 0;
    }
    if (!strcmp (key, "log")) {
        if (!strcmp (val, "stderr"))
            c->log = DCONF_LOG_STDERR;
        else if (!strcmp (val, "syslog"))
            c->log = DCONF_LOG_SYSLOG;
        else
            return perr (p, errp, "log: '%s' is not one of stderr, syslog",
                         val);
        return 0;
    }
    return perr (p, errp, "unknown key '%s' in [daemon]", key);
}

static void
defaults (ms_dconf_t *c, const char *name)
{
    ms_strlcpy (c->path, name, sizeof (c->path));
    ms_strlcpy (c->socket, DCONF_DEFAULT_SOCKET, sizeof (c->socket));
    for (size_t i = 0; i < sizeof (numbers) / sizeof (numbers[0]); i++)
        put_number (c, i,
                    settings_table_key (numbers[i].key, MS_SETT_CONF)->def);
    snprintf (c->collect_wrapper, sizeof (c->collect_wrapper), "%s",
              MS_BINDIR "/metasched-collect");
    c->log = DCONF_LOG_STDERR;
    c->cluster_requests = DCONF_PART_HONOR;
    c->cpu_freq_requests = DCONF_FREQ_HONOR;
    ms_strlcpy (c->tag_key_file, DCONF_DEFAULT_TAG_KEY,
                sizeof (c->tag_key_file));
}

/* ms_ini_walk's callbacks: a section header, a key = value */
static int
on_section (void *arg, char *key, char *val, ms_error_t *errp)
{
    struct parser *p = arg;

    (void)val;
    if (strcmp (key, "daemon"))
        return perr (p, errp, "unknown section [%s] (expected [daemon])", key);
    p->in_daemon = true;
    return 0;
}

static int
on_key (void *arg, char *key, char *val, ms_error_t *errp)
{
    struct parser *p = arg;

    if (!p->in_daemon)
        return perr (p, errp, "key '%s' outside of the [daemon] section", key);
    return set_key (p, key, val, errp);
}

int
dconf_parse (const char *text, size_t len, const char *name, ms_dconf_t **confp,
             ms_error_t *errp)
{
    struct parser p = { .at.name = name };
    int rc;

    p.c = ms_xcalloc (1, sizeof (*p.c));
    defaults (p.c, name);
    rc = ms_ini_walk (text, len, name, &p.at.line, on_section, on_key, &p,
                      errp);
    if (rc == 0 && !p.c->clusters_conf[0])
        rc = ms_err (errp, MS_ERR_INPUT, "%s: [daemon] needs clusters_conf",
                     name);
    if (rc == 0 && !p.c->database[0])
        rc = ms_err (errp, MS_ERR_INPUT, "%s: [daemon] needs database", name);
    if (rc == 0 && !p.c->socket[0] && !p.c->listen[0])
        rc = ms_err (errp, MS_ERR_INPUT,
                     "%s: socket = none needs a listen address", name);
    if (rc == 0 && !p.c->api_server_for_jobs[0]) {
        if (p.c->socket[0])
            snprintf (p.c->api_server_for_jobs,
                      sizeof (p.c->api_server_for_jobs), "unix:%s",
                      p.c->socket);
        else
            snprintf (p.c->api_server_for_jobs,
                      sizeof (p.c->api_server_for_jobs), "http://%s",
                      p.c->listen);
    }
    if (rc < 0) {
        dconf_free (p.c);
        return -1;
    }
    *confp = p.c;
    return 0;
}

/* dconf_load's reader for ms_parse_file */
static int
parse_text (const char *text, size_t len, const char *name, void *confp,
            ms_error_t *errp)
{
    return dconf_parse (text, len, name, confp, errp);
}

int
dconf_load (const char *path, ms_dconf_t **confp, ms_error_t *errp)
{
    return ms_parse_file (path, DCONF_MAX_BYTES, parse_text, confp, errp);
}

/* A secret file passes ms_check_secret_file's checks (a regular file, not
 * a link, owned by root or by the daemon's user, mode 0600 or 0400).
 * line 0: the key was not given (its default). */
static int
check_secret (const char *file, int line, const char *key, const char *path,
              ms_error_t *errp)
{
    ms_error_t e;

    if (ms_check_secret_file (path, &e) < 0) {
        if (line > 0)
            return ms_err (errp,
                           e.kind == MS_ERR_SYSTEM ? MS_ERR_INPUT : e.kind,
                           "%s:%d: %s: %s", file, line, key, e.text);
        return ms_err (errp, e.kind == MS_ERR_SYSTEM ? MS_ERR_INPUT : e.kind,
                       "%s: %s (default): %s", file, key, e.text);
    }
    return 0;
}

/* Every cluster's zone has a signal, and every file source reads (its
 * errors name the file and line, or the JSON field). */
static int
carbon_check (const ms_dconf_t *c, ms_error_t *errp)
{
    for (size_t i = 0; i < c->site->nclusters; i++) {
        const ms_clusterconf_t *cl = &c->site->clusters[i];
        bool found = false;
        for (size_t k = 0; k < c->ncsig && !found; k++)
            found = !strcmp (c->csig[k].zone, cl->zone);
        if (cl->zone[0] && !found)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: [cluster %s]: zone '%s' has no "
                           "carbon_signal in %s",
                           c->site->path, cl->zone_line, cl->name, cl->zone,
                           c->path);
    }
    for (size_t k = 0; k < c->ncsig; k++) {
        ms_carbon_t cb;
        ms_error_t e;
        int rc;
        if (c->csig[k].url)
            continue;
        carbon_init (&cb);
        rc = carbon_read_file (&cb, c->csig[k].zone, c->csig[k].source, &e);
        carbon_free (&cb);
        if (rc < 0)
            return ms_err (errp, e.kind, "%s:%d: carbon_signal: %s: %s",
                           c->path, c->carbon_signal_line, c->csig[k].zone,
                           e.text);
    }
    return 0;
}

int
dconf_check (ms_dconf_t *c, ms_error_t *errp)
{
    ms_error_t e;

    if (c->password_file[0]
        && check_secret (c->path, c->password_file_line, "password_file",
                         c->password_file, errp)
               < 0)
        return -1;
    /* the tag key: a secret where it exists (the daemon makes it) */
    if (access (c->tag_key_file, F_OK) == 0
        && check_secret (c->path, c->tag_key_file_line, "tag_key_file",
                         c->tag_key_file, errp)
               < 0)
        return -1;
    /* a passfile named in the conninfo: the same rule */
    if (db_check_passfile (c->database, &e) < 0)
        return ms_err (errp, e.kind, "%s:%d: database: %s", c->path,
                       c->database_line, e.text);
    clusterconf_free (c->site);
    c->site = NULL;
    if (clusterconf_load (c->clusters_conf, &c->site, &e) < 0)
        return ms_err (errp, e.kind, "%s:%d: clusters_conf: %s", c->path,
                       c->clusters_conf_line, e.text);
    for (size_t i = 0; i < c->site->nclusters; i++) {
        const ms_clusterconf_t *cl = &c->site->clusters[i];
        if (cl->backend != MS_BACKEND_SLURMREST)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s:%d: [cluster %s]: metaschedd drives real "
                           "clusters only (backend = slurmrest)",
                           c->site->path, cl->line, cl->name);
        if (check_secret (c->site->path, cl->line, "token_file", cl->token_file,
                          errp)
            < 0)
            return -1;
    }
    /* the power budgets name this site's clusters */
    if (c->power_budget[0]) {
        ms_budgets_t bs = { NULL, 0 };
        char origin[MS_PATH_MAX + 32];
        snprintf (origin, sizeof (origin), "%s:%d: power_budget", c->path,
                  c->power_budget_line);
        if (power_budgets_parse (c->power_budget, origin, c->site, 0, &bs,
                                 errp)
            < 0)
            return -1;
        power_budgets_free (&bs);
    }
    if (carbon_check (c, errp) < 0)
        return -1;
    /* every partition a class names is configured */
    for (size_t i = 0; i < c->npartition_map; i++) {
        char t[sizeof (c->partition_map[0].targets)], *save = NULL, *w;
        ms_strlcpy (t, c->partition_map[i].targets, sizeof (t));
        for (w = strtok_r (t, " ", &save); w; w = strtok_r (NULL, " ", &save)) {
            char *slash = strchr (w, '/');
            *slash = '\0';
            if (!clusterconf_partition (c->site, w, slash + 1))
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: partition_map %s: %s/%s is no partition "
                               "of %s",
                               c->path, c->partition_map[i].line,
                               c->partition_map[i].name, w, slash + 1,
                               c->site->path);
        }
    }
    if (c->npartition_map && c->partition_requests != DCONF_PART_MAP)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%d: partition_map %s: needs partition_requests = "
                       "map",
                       c->path, c->partition_map[0].line,
                       c->partition_map[0].name);
    /* every cluster a class names is configured */
    for (size_t i = 0; i < c->ncluster_map; i++) {
        char t[sizeof (c->cluster_map[0].targets)], *save = NULL, *w;
        ms_strlcpy (t, c->cluster_map[i].targets, sizeof (t));
        for (w = strtok_r (t, " ", &save); w; w = strtok_r (NULL, " ", &save)) {
            bool found = false;
            for (size_t k = 0; k < c->site->nclusters && !found; k++)
                found = !strcmp (c->site->clusters[k].name, w);
            if (!found)
                return ms_err (errp, MS_ERR_INPUT,
                               "%s:%d: cluster_map %s: %s is no cluster of "
                               "%s",
                               c->path, c->cluster_map[i].line,
                               c->cluster_map[i].name, w, c->site->path);
        }
    }
    if (c->ncluster_map && c->cluster_requests != DCONF_PART_MAP)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s:%d: cluster_map %s: needs cluster_requests = map",
                       c->path, c->cluster_map[0].line,
                       c->cluster_map[0].name);
    if (access (c->collect_wrapper, X_OK) < 0)
        return ms_err (errp, MS_ERR_INPUT, "%s:%d: collect_wrapper: %s: %s",
                       c->path, c->collect_wrapper_line, c->collect_wrapper,
                       strerror (errno));
    free (c->gpuprof);
    c->gpuprof = NULL;
    c->ngpuprof = 0;
    if (c->gpu_profiles[0]
        && gpuprof_load (c->gpu_profiles, &c->gpuprof, &c->ngpuprof, &e) < 0)
        return ms_err (errp, e.kind, "%s:%d: gpu_profiles: %s", c->path,
                       c->gpu_profiles_line, e.text);
    return 0;
}

void
dconf_free (ms_dconf_t *c)
{
    if (!c)
        return;
    free_admins (c);
    clusterconf_free (c->site);
    free (c->partition_map);
    free (c->cluster_map);
    free (c->csig);
    free (c->gpuprof);
    free (c);
}
