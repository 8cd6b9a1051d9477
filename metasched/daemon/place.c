/* place.c - where a job may run (doc/daemon.md): its key in the
 * prediction table, the site's and the clusters' placement rules, GPUs,
 * --partition and --clusters under the site's requests, a heterogeneous
 * job's other components, and job_constraints that puts them together
 * for the decision (decide.c) and the dispatch (dispatch.c).
 */
#define _GNU_SOURCE /* asprintf */
#include "config.h"

#include <grp.h>
#include <pwd.h>

#include "metasched/common/jobspec_json.h"
#include "metasched/daemon/daemon_int.h"

/* The job's app in the table, its home partition (the fastest at nominal
 * frequency: the user's limit is taken as the runtime there, so every
 * slower choice gets a longer limit) and its length. Caller holds d->ds.mu. */
int
job_key (const ms_daemon_t *d, const char *app, int nodes, uint32_t limit_min,
         const char *pinned, jobkey_t *k)
{
    const ms_predtab_t *tab = d->ds.tab;
    double best = INFINITY;

    k->app = app && *app ? predtab_app_index (tab, app) : -1;
    if (k->app < 0)
        k->app = predtab_app_index (tab, UNKNOWN_APP);
    if (k->app < 0)
        return -1;
    k->nodes = nodes > 0 ? nodes : 1;
    k->home = SIZE_MAX;
    for (size_t p = 0; p < tab->nparts; p++) {
        const ms_predent_t *e
            = predtab_get (tab, (size_t)k->app, p, tab->nominal[p]);
        if (e->ok && e->t < best && d->site->parts[p].nodes >= k->nodes) {
            best = e->t;
            k->home = p;
        }
    }
    if (k->home == SIZE_MAX)
        return -1;
    k->base_s = limit_min > 0 ? limit_min * 60.0 : best;
    k->limit_min = limit_min;
    k->pinned = -1;
    k->ntasks = 0;
    k->max_running = 0;
    k->allowed = NULL;
    k->gpus = 0;
    k->nodes_max = 0;
    k->nodes_list[0] = '\0';
    memset (&k->cpufreq, 0, sizeof (k->cpufreq));
    k->deadline = 0;
    /* one cluster/partition pins (allow_partition); names are the site's
     * partition_requests' (partition_request) */
    if (pinned && *pinned && strchr (pinned, '/') && !strchr (pinned, ',')) {
        char c[130], *slash;
        ms_strlcpy (c, pinned, sizeof (c));
        if ((slash = strchr (c, '/'))) {
            *slash = '\0';
            k->pinned = part_index (d, c, slash + 1);
        }
        if (k->pinned < 0)
            return -1;
    }
    return 0;
}

/* ---- where a job may run (placement.h) ---- */

#define MAX_GROUPS 64

/* The names of user's groups (this host's account database, as Slurm's
 * AllowGroups reads it on the controller). */
static size_t
user_groups (const char *user, char names[][64], const char **ptrs)
{
    struct passwd pw, *pp = NULL;
    char buf[4096];
    gid_t gids[MAX_GROUPS];
    int ng = MAX_GROUPS;
    size_t n = 0;

    if (!user || getpwnam_r (user, &pw, buf, sizeof (buf), &pp) != 0 || !pp)
        return 0;
    if (getgrouplist (user, pp->pw_gid, gids, &ng) < 0)
        ng = MAX_GROUPS;
    for (int i = 0; i < ng && n < MAX_GROUPS; i++) {
        struct group gr, *gp = NULL;
        char gbuf[8192];
        if (getgrgid_r (gids[i], &gr, gbuf, sizeof (gbuf), &gp) == 0 && gp) {
            ms_strlcpy (names[n], gp->gr_name, 64);
            ptrs[n] = names[n];
            n++;
        }
    }
    return n;
}

static void
exclude (json_t *ex, const char *cluster, const char *part, const char *why)
{
    if (ex)
        json_array_append_new (ex, json_pack ("{s:s, s:s?, s:s}", "cluster",
                                              cluster, "partition", part,
                                              "reason", why));
}

/* Does partition pc offer `gpus` GPUs per node of type `type` ("": any)?
 * why (may be NULL) says why not. */
static bool
gpus_fit (const ms_partconf_t *pc, int gpus, const char *type, char *why,
          size_t size)
{
    if (gpus <= 0)
        return true;
    if (pc->gpus_per_node < gpus) {
        if (why && pc->gpus_per_node == 0)
            snprintf (why, size, "asks for %d GPU%s per node; it has none",
                      gpus, gpus == 1 ? "" : "s");
        else if (why)
            snprintf (why, size, "asks for %d GPUs per node; it has %d", gpus,
                      pc->gpus_per_node);
        return false;
    }
    if (type[0] && strcmp (type, pc->gpu_model)) {
        if (why)
            snprintf (why, size, "asks for GPUs of type %s; its GPUs are %s%s",
                      type, pc->gpu_model[0] ? "" : "of no declared model",
                      pc->gpu_model);
        return false;
    }
    return true;
}

/* GPU jobs only on partitions with enough GPUs (clusters.conf). */
static void
gpus_place (const ms_daemon_t *d, const ms_jobspec_t *spec, int nodes,
            int tasks, int tasks_per_node, unsigned char *allowed, json_t *ex)
{
    const char *type;
    int gpus = jobspec_gpus_per_node_tasks (spec, nodes, tasks, tasks_per_node,
                                            &type);
    char why[160];

    if (gpus <= 0)
        return;
    for (size_t p = 0; p < d->site->nparts; p++) {
        const ms_partconf_t *pc = &d->site->parts[p];
        if (gpus_fit (pc, gpus, type, why, sizeof (why)))
            continue;
        allowed[p] = 0;
        exclude (ex, d->cl[pc->cluster].conf->name, pc->name, why);
    }
}

int
job_gpus_check (const ms_daemon_t *d, int gpus, const char *type,
                ms_error_t *errp)
{
    int best = 0;
    char where[512] = "";
    size_t len = 0;

    if (gpus <= 0)
        return 0;
    for (size_t p = 0; p < d->site->nparts; p++) {
        const ms_partconf_t *pc = &d->site->parts[p];
        if (gpus_fit (pc, gpus, type, NULL, 0))
            return 0;
        if (type[0] && strcmp (type, pc->gpu_model))
            continue;
        if (pc->gpus_per_node > best) {
            best = pc->gpus_per_node;
            len = 0;
            where[0] = '\0';
        }
        if (pc->gpus_per_node == best && best > 0 && len < sizeof (where)) {
            int w = snprintf (where + len, sizeof (where) - len, "%s%s/%s",
                              len ? ", " : "", d->cl[pc->cluster].conf->name,
                              pc->name);
            len += w > 0 ? (size_t)w : 0;
        }
    }
    if (best == 0)
        ms_err (errp, MS_ERR_INPUT,
                "the job asks for %d GPU%s per node%s%s; no partition offers "
                "%sGPUs",
                gpus, gpus == 1 ? "" : "s", type[0] ? " of type " : "", type,
                type[0] ? "such " : "");
    else
        ms_err (errp, MS_ERR_INPUT,
                "the job asks for %d GPUs per node%s%s; the most a partition "
                "offers is %d (%s)",
                gpus, type[0] ? " of type " : "", type, best, where);
    errp->http_status = 400;
    return -1;
}

static int
opt_int (json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    return json_is_integer (v) ? (int)json_integer_value (v) : 0;
}

int
job_gpus_opts (json_t *opts, int nodes)
{
    ms_jobspec_t spec;
    ms_error_t e;
    int g;

    jobspec_init (&spec);
    (void)jobspec_json_read (&spec, opts, &e);
    g = jobspec_gpus_per_node_tasks (&spec, nodes, opt_int (opts, "tasks"),
                                     opt_int (opts, "tasks_per_node"), NULL);
    jobspec_free (&spec);
    return g;
}

/* The options of later Slurm releases in s or its components that
 * cluster c cannot carry (jobspec_since.c), one a call from *ip, *kp on
 * (0, 0 first): hints where hint, else the others. */
static const jobspec_since_t *
since_missing (const cluster_t *c, const ms_jobspec_t *s, bool hint, size_t *kp,
               size_t *ip)
{
    const jobspec_since_t *o;

    for (; *kp <= s->nhet; (*kp)++, *ip = 0) {
        const ms_jobspec_t *x = *kp ? s->het[*kp - 1] : s;
        while ((o = jobspec_since_missing (x, c->api_version, ip)))
            if (o->hint == hint)
                return o;
    }
    return NULL;
}

/* Why cluster c goes without option o: a hint is dropped there, another
 * makes it no candidate. */
static void
since_text (char *buf, size_t len, const cluster_t *c,
            const jobspec_since_t *o)
{
    char head[128];

    if (o->hint)
        snprintf (head, sizeof (head), "--%s: dropped on cluster %s", o->name,
                  c->conf->name);
    else
        snprintf (head, sizeof (head),
                  "--%s: this cluster's Slurm does not know it", o->name);
    if (!o->api)
        snprintf (buf, len,
                  "%s (slurmrestd carries it in no OpenAPI version; this "
                  "one speaks %s)",
                  head, c->api_version);
    else
        snprintf (buf, len,
                  "%s (its slurmrestd speaks OpenAPI %s; the option needs %s, "
                  "Slurm %s, or later)",
                  head, c->api_version, o->api, o->release);
}

/* A cluster whose Slurm cannot carry an option of spec that is not a
 * hint is no candidate. */
static void
since_restrict (const ms_daemon_t *d, const ms_jobspec_t *spec,
                unsigned char *allowed, json_t *ex)
{
    for (size_t i = 0; i < d->ncl; i++) {
        const cluster_t *c = &d->cl[i];
        const jobspec_since_t *o;
        size_t k = 0, j = 0;
        char why[256];

        if (!(o = since_missing (c, spec, false, &k, &j)))
            continue;
        since_text (why, sizeof (why), c, o);
        exclude (ex, c->conf->name, NULL, why);
        for (size_t p = 0; p < d->site->nparts; p++)
            if (d->site->parts[p].cluster == i)
                allowed[p] = 0;
    }
}

void
job_since_notes (const ms_daemon_t *d, const ms_jobspec_t *spec,
                 const unsigned char *allowed, json_t *notes)
{
    for (size_t i = 0; i < d->ncl; i++) {
        const cluster_t *c = &d->cl[i];
        const jobspec_since_t *o;
        size_t k = 0, j = 0;
        bool any = false;
        char msg[256];

        for (size_t p = 0; p < d->site->nparts; p++)
            any |= d->site->parts[p].cluster == i && allowed[p];
        while (any && (o = since_missing (c, spec, true, &k, &j))) {
            since_text (msg, sizeof (msg), c, o);
            json_array_append_new (notes, json_string (msg));
        }
    }
}

void
job_since_cluster_notes (const ms_daemon_t *d, const ms_jobspec_t *spec,
                         size_t cl, char *buf, size_t len)
{
    const jobspec_since_t *o;
    size_t k = 0, j = 0, n = 0;
    char msg[256];

    buf[0] = '\0';
    if (cl >= d->ncl)
        return;
    while ((o = since_missing (&d->cl[cl], spec, true, &k, &j))) {
        since_text (msg, sizeof (msg), &d->cl[cl], o);
        /* the text is the daemon's own (configuration names and fixed
         * words): no character that JSON escapes */
        if (n + strlen (msg) + 4 >= len)
            break;
        n += (size_t)snprintf (buf + n, len - n, "%s\"%s\"", n ? "," : "",
                               msg);
    }
}

size_t
job_placement (const ms_daemon_t *d, const ms_jobspec_t *spec, const char *user,
               int nodes, uint32_t limit_min, const char *cwd, const char *out,
               const char *err, const char *in, int tasks, int tasks_per_node,
               int cpus_per_task, unsigned char *allowed, json_t **excluded)
{
    char gnames[MAX_GROUPS][64]; /* the hooks run this beside the cycle */
    const char *groups[MAX_GROUPS];
    ms_place_req_t r;
    json_t *ex = excluded ? json_array () : NULL;
    size_t nok = 0;
    int per_node;

    memset (&r, 0, sizeof (r));
    r.user = user;
    /* the user's groups, where a partition lets some groups only (a
     * lookup in the account database per decision costs, with LDAP) */
    for (size_t i = 0; i < d->ncl && !r.ngroups; i++)
        for (size_t k = 0; k < d->cl[i].nparts; k++)
            if (d->cl[i].parts[k].allow_groups[0]
                && strcmp (d->cl[i].parts[k].allow_groups, "ALL")) {
                r.ngroups = user_groups (user, gnames, groups);
                break;
            }
    r.groups = groups;
    r.nodes = nodes > 0 ? nodes : 1;
    r.time_limit_min = limit_min;
    cpus_per_task = cpus_per_task > 0 ? cpus_per_task : 1;
    if (tasks > 0)
        r.cpus = tasks * cpus_per_task;
    else
        r.cpus = r.nodes * (tasks_per_node > 0 ? tasks_per_node : 1)
                 * cpus_per_task;
    per_node = tasks_per_node > 0 ? tasks_per_node
               : tasks > 0        ? (tasks + r.nodes - 1) / r.nodes
                                  : 1;
    r.cpus_per_node = per_node * cpus_per_task;
    r.cwd = cwd;
    r.paths[0] = out;
    r.paths[1] = err;
    r.paths[2] = in;
    if (spec) {
        r.account = spec->account;
        r.qos = spec->qos;
        r.mem_per_node_mb = spec->mem_per_node_mb;
        r.mem_per_cpu_mb = spec->mem_per_cpu_mb;
        r.constraint = spec->constraint;
        r.nodelist = spec->nodelist;
        r.exclude = spec->exclude;
    }
    for (size_t p = 0; p < d->site->nparts; p++)
        allowed[p] = 1;
    if (spec)
        gpus_place (d, spec, r.nodes, tasks, tasks_per_node, allowed, ex);
    for (size_t i = 0; i < d->ncl; i++) {
        const cluster_t *c = &d->cl[i];
        const char *cname = c->conf->name;
        ms_place_acct_t pa;
        char why[512];
        bool cl_ok
            = placement_check_cluster (c->conf, c->acct_read ? &c->acct : NULL,
                                       &r, &pa, why, sizeof (why));
        if (!cl_ok)
            exclude (ex, cname, NULL, why);
        for (size_t p = 0; p < d->site->nparts; p++) {
            const ms_partconf_t *pc = &d->site->parts[p];
            const ms_partition_state_t *st = NULL;
            if (pc->cluster != i)
                continue;
            if (!cl_ok) {
                allowed[p] = 0;
                continue;
            }
            for (size_t k = 0; k < c->nparts; k++)
                if (!strcmp (c->parts[k].name, pc->name))
                    st = &c->parts[k];
            if (!st)
                continue; /* not read yet: what the cluster says is unknown */
            if (!placement_check_partition (
                    st, &r, c->acct_read && c->acct.enabled ? &pa : NULL, why,
                    sizeof (why))) {
                allowed[p] = 0;
                exclude (ex, cname, pc->name, why);
            }
        }
    }
    if (spec)
        since_restrict (d, spec, allowed, ex);
    if (spec && spec->nhet)
        hetjob_restrict (d, spec, user, limit_min, cwd, allowed, ex);
    for (size_t p = 0; p < d->site->nparts; p++)
        nok += allowed[p] != 0;
    if (excluded)
        *excluded = ex;
    return nok;
}

size_t
job_placement_opts (const ms_daemon_t *d, json_t *opts, const char *user,
                    int nodes, uint32_t limit_min, unsigned char *allowed,
                    json_t **excluded)
{
    ms_jobspec_t spec;
    ms_error_t e;
    size_t n;

    jobspec_init (&spec);
    /* stored options were checked when they came in: a field that does not
     * read now is left at its default */
    (void)jobspec_json_read (&spec, opts, &e);
    n = job_placement (
        d, &spec, user, hetjob_first_nodes (opts, nodes), limit_min,
        daemon_jstr (opts, "cwd"), daemon_jstr (opts, "stdout"),
        daemon_jstr (opts, "stderr"), daemon_jstr (opts, "stdin"),
        opt_int (opts, "tasks"), opt_int (opts, "tasks_per_node"),
        opt_int (opts, "cpus_per_task"), allowed, excluded);
    jobspec_free (&spec);
    return n;
}

/* Does the partition request item (NAME or CLUSTER/NAME) name p? */
static bool
request_names (const ms_daemon_t *d, const char *item, size_t p)
{
    const ms_partconf_t *pc = &d->site->parts[p];
    const char *slash = strchr (item, '/');
    const char *cname = d->site->clusters[pc->cluster].name;

    if (!slash)
        return !strcmp (item, pc->name);
    return strlen (cname) == (size_t)(slash - item)
           && !strncmp (item, cname, (size_t)(slash - item))
           && !strcmp (slash + 1, pc->name);
}

/* Does the cluster request item (a cluster's name) name partition p's? */
static bool
cluster_names (const ms_daemon_t *d, const char *item, size_t p)
{
    return !strcmp (item, d->site->clusters[d->site->parts[p].cluster].name);
}

/* What a request of partitions (--partition) or of clusters (--clusters)
 * names, for request_mask. */
typedef struct {
    const char *option;   /* "--partition" */
    const char *none;     /* the error's words for a name found nowhere */
    const char *map_key;  /* the configuration's classes: "partition_map" */
    dconf_partreq_t mode; /* honor or map */
    const dconf_partmap_t *map;
    size_t nmap;
    bool all; /* "all" names every partition (sbatch -M all) */
    /* does one item of the request (or of a class's targets) name p? */
    bool (*names) (const ms_daemon_t *d, const char *item, size_t p);
    const char *list_key; /* what it named, as shown: "partitions" */
    json_t *(*list) (const ms_daemon_t *d, const unsigned char *mask);
    bool by_partition; /* the reasons kept by partition, else by cluster */
} request_kind_t;

/* ... and what the site's configuration says of it. */
typedef struct {
    dconf_partreq_t mode; /* refuse, honor or map */
    const dconf_partmap_t *map;
    size_t nmap;
} request_rule_t;

/* The partitions that request req of kind k names (a mask of
 * d->site->nparts), each of its comma-separated words a name or, mapped,
 * a class of the configuration; NULL and *errp (HTTP 400) for a word that
 * names nothing. */
static unsigned char *
request_mask (const ms_daemon_t *d, const request_kind_t *k,
              const request_rule_t *r, const char *req, ms_error_t *errp)
{
    unsigned char *mask = ms_xcalloc (d->site->nparts + 1, 1);
    char buf[256], *save = NULL, *w;

    ms_strlcpy (buf, req, sizeof (buf));
    for (w = strtok_r (buf, ",", &save); w; w = strtok_r (NULL, ",", &save)) {
        const dconf_partmap_t *m = NULL;
        size_t found = 0;
        bool all = k->all && !strcasecmp (w, "all");
        if (r->mode == DCONF_PART_MAP)
            for (size_t i = 0; i < r->nmap; i++)
                if (!strcmp (r->map[i].name, w))
                    m = &r->map[i];
        for (size_t p = 0; p < d->site->nparts; p++) {
            bool hit = all;
            if (m) {
                char t[sizeof (m->targets)], *s2 = NULL, *x;
                ms_strlcpy (t, m->targets, sizeof (t));
                for (x = strtok_r (t, " ", &s2); x && !hit;
                     x = strtok_r (NULL, " ", &s2))
                    hit = k->names (d, x, p);
            } else if (!hit)
                hit = k->names (d, w, p);
            if (hit) {
                mask[p] = 1;
                found++;
            }
        }
        if (!found) {
            char cls[64] = "";
            if (r->mode == DCONF_PART_MAP)
                snprintf (cls, sizeof (cls), " (and %s names no such class)",
                          k->map_key);
            ms_err (errp, MS_ERR_INPUT, "%s=%s: %s %s%s", k->option, req,
                    k->none, w, cls);
            free (mask);
            errp->http_status = 400;
            return NULL;
        }
    }
    return mask;
}

/* allowed &= mask; the partitions left. */
static long
request_apply (const ms_daemon_t *d, const unsigned char *mask,
               unsigned char *allowed)
{
    size_t n = 0;

    for (size_t p = 0; p < d->site->nparts; p++) {
        allowed[p] = allowed[p] && mask[p];
        n += allowed[p] != 0;
    }
    return (long)n;
}

/* The reasons that matter: those of the partitions (by_partition) or the
 * clusters the mask holds; the others leave excluded. */
static void
request_reasons (const ms_daemon_t *d, const unsigned char *mask,
                 json_t *excluded, bool by_partition)
{
    if (!excluded)
        return;
    for (size_t i = json_array_size (excluded); i-- > 0;) {
        json_t *e = json_array_get (excluded, i);
        const char *c = json_string_value (json_object_get (e, "cluster"));
        const char *pn
            = by_partition
                  ? json_string_value (json_object_get (e, "partition"))
                  : NULL;
        bool keep = false;
        for (size_t p = 0; p < d->site->nparts && !keep; p++)
            keep = mask[p] && c && cluster_names (d, c, p)
                   && (!pn || !strcmp (pn, d->site->parts[p].name));
        if (!keep)
            json_array_remove (excluded, i);
    }
}

/* The partitions of mask as shown: "cluster/partition" each. */
static json_t *
mask_partitions (const ms_daemon_t *d, const unsigned char *mask)
{
    json_t *parts = json_array ();

    for (size_t p = 0; p < d->site->nparts; p++) {
        const ms_partconf_t *pc = &d->site->parts[p];
        if (mask[p])
            json_array_append_new (
                parts,
                json_sprintf ("%s/%s", d->site->clusters[pc->cluster].name,
                              pc->name));
    }
    return parts;
}

/* The clusters of mask as shown: those with a partition in it. */
static json_t *
mask_clusters (const ms_daemon_t *d, const unsigned char *mask)
{
    json_t *names = json_array ();

    for (size_t c = 0; c < d->site->nclusters; c++) {
        bool any = false;
        for (size_t p = 0; p < d->site->nparts && !any; p++)
            any = mask[p] && d->site->parts[p].cluster == c;
        if (any)
            json_array_append_new (names,
                                   json_string (d->site->clusters[c].name));
    }
    return names;
}

/* A request of kind k: allowed narrowed to what req names, *shown what it
 * named (asked, mode and the list under list_key), excluded's reasons
 * narrowed likewise. The partitions left, -1 with *errp for a name found
 * nowhere, -2 when nothing is asked or the site refuses such requests. */
static long
request_allow (const ms_daemon_t *d, const request_kind_t *k,
               const request_rule_t *r, const char *req, unsigned char *allowed,
               json_t *excluded, json_t **shown, ms_error_t *errp)
{
    unsigned char *mask;
    long n;

    if (shown)
        *shown = NULL;
    if (!req || !*req || r->mode == DCONF_PART_REFUSE)
        return -2; /* nothing asked, or the pin of job_key */
    if (!(mask = request_mask (d, k, r, req, errp)))
        return -1;
    if (shown)
        *shown = json_pack ("{s:s, s:s, s:o}", "asked", req, "mode",
                            r->mode == DCONF_PART_MAP ? "map" : "honor",
                            k->list_key, k->list (d, mask));
    n = request_apply (d, mask, allowed);
    request_reasons (d, mask, excluded, k->by_partition);
    free (mask);
    return n;
}

/* --partition and -M/--clusters (doc/metaschedd.conf.5,
 * partition_requests and cluster_requests). */
static const request_kind_t partition_kind
    = { .option = "--partition", .none = "no cluster has a partition",
        .map_key = "partition_map", .all = false, .names = request_names,
        .list_key = "partitions", .list = mask_partitions,
        .by_partition = true };
static const request_kind_t cluster_kind
    = { .option = "--clusters", .none = "this site has no cluster",
        .map_key = "cluster_map", .all = true, .names = cluster_names,
        .list_key = "clusters", .list = mask_clusters, .by_partition = false };

long
partition_request (const ms_daemon_t *d, const char *req,
                   unsigned char *allowed, json_t *excluded, json_t **shown,
                   ms_error_t *errp)
{
    const ms_dconf_t *dc = d->dc;
    const request_rule_t r = { dc->partition_requests, dc->partition_map,
                               dc->npartition_map };

    return request_allow (d, &partition_kind, &r, req, allowed, excluded,
                          shown, errp);
}

long
cluster_request (const ms_daemon_t *d, const char *req, unsigned char *allowed,
                 json_t *excluded, json_t **shown, ms_error_t *errp)
{
    const ms_dconf_t *dc = d->dc;
    const request_rule_t r = { dc->cluster_requests, dc->cluster_map,
                               dc->ncluster_map };

    return request_allow (d, &cluster_kind, &r, req, allowed, excluded, shown,
                          errp);
}

char *
placement_reasons_text (json_t *excluded)
{
    size_t len = 0, cap = 256, i;
    char *buf = ms_xmalloc (cap);
    json_t *e;

    buf[0] = '\0';
    json_array_foreach (excluded, i, e)
    {
        const char *c = json_string_value (json_object_get (e, "cluster"));
        const char *p = json_string_value (json_object_get (e, "partition"));
        const char *w = json_string_value (json_object_get (e, "reason"));
        size_t need = strlen (c ? c : "") + strlen (p ? p : "")
                      + strlen (w ? w : "") + 8;
        daemon_reserve (&buf, len, &cap, need);
        len += (size_t)snprintf (buf + len, cap - len, "%s%s%s%s: %s",
                                 i ? "; " : "", c ? c : "", p ? "/" : "",
                                 p ? p : "", w ? w : "");
    }
    return buf;
}

/* ---- heterogeneous jobs ---- */

/* The first component's own nodes where the job's column holds all
 * components' (apireq_options_json), else nodes. */
int
hetjob_first_nodes (json_t *opts, int nodes)
{
    json_t *v = json_object_get (opts, "nodes");

    if (json_is_array (json_object_get (opts, "components"))
        && json_is_integer (v) && json_integer_value (v) > 0)
        return (int)json_integer_value (v);
    return nodes;
}

/* Where component c may run (its own allowed[], nparts bytes). */
size_t
component_places (const ms_daemon_t *d, const ms_jobspec_t *c, const char *user,
                  uint32_t limit_min, const char *cwd, unsigned char *allowed)
{
    return job_placement (d, c, user, c->nodes > 0 ? c->nodes : 1,
                          c->time_limit_min && c->time_limit_min != UINT32_MAX
                              ? c->time_limit_min
                              : limit_min,
                          cwd, NULL, NULL, NULL, c->ntasks, c->ntasks_per_node,
                          c->cpus_per_task, allowed, NULL);
}

typedef struct {
    const cluster_t *c;
    size_t k; /* the partition whose names are walked */
    int n;
} count_t;

static int
count_new (const char *name, void *arg)
{
    count_t *ct = arg;

    for (size_t j = 0; j < ct->k; j++)
        if (placement_hostlist_has (ct->c->parts[j].node_list, name))
            return 0; /* counted with an earlier partition */
    ct->n++;
    return 0;
}

/* The nodes of cluster c, each once (its partitions may share nodes);
 * -1 where a partition's nodes are unknown. */
static int
cluster_nodes (const cluster_t *c)
{
    count_t ct = { c, 0, 0 };

    if (!c->nparts)
        return -1;
    for (ct.k = 0; ct.k < c->nparts; ct.k++)
        if (!c->parts[ct.k].node_list[0]
            || placement_hostlist_each (c->parts[ct.k].node_list, 1 << 20,
                                        count_new, &ct)
                   < 0)
            return -1;
    return ct.n;
}

/* Slurm allocates a heterogeneous job's components at once, each its own
 * nodes: a cluster with fewer nodes than all components ask for together
 * cannot start it, though each component fits alone (core/hetplace.c,
 * hetplace_sum, from each cluster's live nodes). sbatch's answer there is
 * slurmctld's ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE. */
static void
sum_restrict (const ms_daemon_t *d, const ms_jobspec_t *spec,
              unsigned char *allowed, json_t *excluded)
{
    int *nodes = ms_xcalloc (spec->nhet + 1, sizeof (*nodes));
    int *have = ms_xcalloc (d->ncl + 1, sizeof (*have));
    unsigned char *dropped = ms_xcalloc (d->ncl + 1, 1);
    long want;

    nodes[0] = spec->nodes;
    for (size_t k = 0; k < spec->nhet; k++)
        nodes[k + 1] = spec->het[k]->nodes;
    want = hetplace_nodes (nodes, spec->nhet + 1);
    for (size_t i = 0; i < d->ncl; i++)
        have[i] = cluster_nodes (&d->cl[i]);
    hetplace_sum (d->site, want, have, allowed, dropped);
    for (size_t i = 0; i < d->ncl && excluded; i++) {
        char why[200];
        if (!dropped[i])
            continue;
        snprintf (why, sizeof (why),
                  "heterogeneous job: its components ask for %ld nodes "
                  "together, this cluster has %d (Requested node "
                  "configuration is not available)",
                  want, have[i]);
        json_array_append_new (excluded,
                               json_pack ("{s:s, s:n, s:s}", "cluster",
                                          d->cl[i].conf->name, "partition",
                                          "reason", why));
    }
    free (dropped);
    free (have);
    free (nodes);
}

void
hetjob_restrict (const ms_daemon_t *d, const ms_jobspec_t *spec,
                 const char *user, uint32_t limit_min, const char *cwd,
                 unsigned char *allowed, json_t *excluded)
{
    size_t np = d->site->nparts;
    unsigned char *fits = ms_xcalloc (spec->nhet * np + 1, 1);
    size_t *nofit = ms_xcalloc (d->site->nclusters + 1, sizeof (*nofit));

    for (size_t k = 0; k < spec->nhet; k++)
        component_places (d, spec->het[k], user, limit_min, cwd,
                          fits + k * np);
    /* the rule the replay applies too (core/hetplace.c) */
    hetplace_clusters (d->site, fits, spec->nhet, allowed, nofit);
    for (size_t i = 0; i < d->ncl && excluded; i++) {
        char why[160];
        if (!nofit[i])
            continue;
        snprintf (why, sizeof (why),
                  "heterogeneous job: component %zu fits no "
                  "partition of this cluster",
                  nofit[i]);
        json_array_append_new (excluded,
                               json_pack ("{s:s, s:n, s:s}", "cluster",
                                          d->cl[i].conf->name, "partition",
                                          "reason", why));
    }
    free (nofit);
    free (fits);
    sum_restrict (d, spec, allowed, excluded);
}

/* ---- everything that bounds a job's place ---- */

/* Why a job has no place: the request's error (rc -1), else, where the
 * request named something (named), "OPTION=ASKED: " and the reasons of
 * the places excluded, else those reasons alone. */
static char *
request_why (long rc, bool named, const char *option, const char *asked,
             const ms_error_t *pe, json_t *ex)
{
    char *r = placement_reasons_text (ex), *why = NULL;

    if (rc == -1)
        why = ms_xstrdup (pe->text);
    else if (named && asprintf (&why, "%s=%s: %s", option, asked, r) < 0)
        why = NULL;
    if (!why)
        return r;
    free (r);
    return why;
}

int
job_constraints (const ms_daemon_t *d, const queue_job_t *j, json_t *opts,
                 unsigned char *allowed, jobkey_t *k, char **whyp)
{
    json_t *ex = NULL, *nm;
    ms_error_t pe;
    size_t nok;
    long np;

    *whyp = NULL;
    if (job_key (d, j->app, j->nodes, j->time_limit_min,
                 daemon_jstr (opts, "partition"), k)
        < 0)
        return -1;
    /* the rules of the site and the clusters (placement.h), within the
     * partitions the user's --partition names (honor, map) */
    nok = job_placement_opts (d, opts, j->owner, j->nodes, j->time_limit_min,
                              allowed, &ex);
    np = partition_request (d, daemon_jstr (opts, "partition"), allowed, ex,
                            NULL, &pe);
    /* ... and on the clusters its --clusters names (honor, map) */
    if (np != -1 && nok > 0 && np != 0) {
        long nc = cluster_request (d, daemon_jstr (opts, "clusters"), allowed,
                                   ex, NULL, &pe);
        if (nc == -1 || nc == 0) {
            *whyp = request_why (nc, true, "--clusters",
                                 daemon_jstr (opts, "clusters"), &pe, ex);
            json_decref (ex);
            return -1;
        }
    }
    if (nok == 0 || np == 0 || np == -1) {
        *whyp = request_why (np, np >= 0, "--partition",
                             daemon_jstr (opts, "partition"), &pe, ex);
        json_decref (ex);
        return -1;
    }
    json_decref (ex);
    k->allowed = allowed;
    k->gpus = job_gpus_opts (opts, k->nodes);
    /* the user's --cpu-freq (cpu_freq_requests honor; the API dropped it
     * for ignore and refused it for refuse) */
    if (d->dc->cpu_freq_requests == DCONF_FREQ_HONOR
        && daemon_jstr (opts, "cpu_freq")
        && jobspec_parse_cpu_freq (daemon_jstr (opts, "cpu_freq"), &k->cpufreq,
                                   &pe)
               < 0)
        memset (&k->cpufreq, 0, sizeof (k->cpufreq));
    /* --deadline: a later, cleaner start may be chosen before it */
    if (json_is_integer (json_object_get (opts, "deadline"))
        && json_integer_value (json_object_get (opts, "deadline")) > 0)
        k->deadline
            = (double)json_integer_value (json_object_get (opts, "deadline"));
    nm = json_object_get (opts, "nodes_max");
    if (json_is_integer (nm) && json_integer_value (nm) > k->nodes
        && json_integer_value (nm) <= 100000)
        k->nodes_max = (int)json_integer_value (nm);
    if (k->nodes_max && daemon_jstr (opts, "nodes_list"))
        ms_strlcpy (k->nodes_list, daemon_jstr (opts, "nodes_list"),
                    sizeof (k->nodes_list));
    return 0;
}
