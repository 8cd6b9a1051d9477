/* placement.c - where a job may run (see placement.h). */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/core/placement.h"

static bool
given (const char *s)
{
    return s && *s;
}

bool
placement_in_list (const char *list, const char *name)
{
    size_t n = strlen (name);

    for (const char *p = list; p && *p;) {
        size_t m = strcspn (p, ",");
        if ((m == n && !strncmp (p, name, n)) || (m == 3 && !strncmp (p, "ALL", 3)))
            return true;
        p += m;
        if (*p == ',')
            p++;
    }
    return false;
}

/* A list that limits: not empty, not ALL. */
static bool
limiting (const char *list)
{
    return list && *list && strcmp (list, "ALL");
}

/* ---- feature expressions ---- */

struct fexpr {
    const char *s, *p;
    const char *features; /* NULL: syntax only */
    ms_error_t *errp;
    int failed;
};

static bool fx_or (struct fexpr *x);

static int
fx_fail (struct fexpr *x, const char *what)
{
    if (!x->failed)
        ms_err (x->errp, MS_ERR_INPUT,
                "constraint '%s': %s at character %d", x->s, what,
                (int)(x->p - x->s) + 1);
    x->failed = 1;
    return 0;
}

static bool
name_char (char c)
{
    return isalnum ((unsigned char)c) || c == '_' || c == '-' || c == '.'
           || c == ':' || c == '=' || c == '/';
}

static void
skip_ws (struct fexpr *x)
{
    while (*x->p == ' ')
        x->p++;
}

static bool
fx_factor (struct fexpr *x)
{
    bool v = false;

    skip_ws (x);
    if (*x->p == '(' || *x->p == '[') {
        char close = *x->p == '(' ? ')' : ']';
        x->p++;
        v = fx_or (x);
        skip_ws (x);
        if (*x->p != close)
            return fx_fail (x, close == ')' ? "')' expected" : "']' expected");
        x->p++;
    } else if (name_char (*x->p)) {
        const char *b = x->p;
        while (name_char (*x->p))
            x->p++;
        if (x->features) {
            char name[128];
            snprintf (name, sizeof (name), "%.*s", (int)(x->p - b), b);
            v = placement_in_list (x->features, name)
                && strcmp (name, "ALL");
        }
    } else
        return fx_fail (x, *x->p ? "a feature name expected"
                                 : "a feature name expected, not the end");
    skip_ws (x);
    if (*x->p == '*') {
        /* a count of nodes with the feature: each node still needs it */
        x->p++;
        if (!isdigit ((unsigned char)*x->p))
            return fx_fail (x, "a count expected after '*'");
        while (isdigit ((unsigned char)*x->p))
            x->p++;
    }
    return v;
}

static bool
fx_and (struct fexpr *x)
{
    bool v = fx_factor (x);
    for (;;) {
        skip_ws (x);
        if (x->failed || (*x->p != '&' && *x->p != ','))
            return v;
        x->p++;
        v = fx_factor (x) && v;
    }
}

static bool
fx_or (struct fexpr *x)
{
    bool v = fx_and (x);
    for (;;) {
        skip_ws (x);
        if (x->failed || *x->p != '|')
            return v;
        x->p++;
        v = fx_and (x) || v;
    }
}

static bool
fx_eval (const char *expr, const char *features, ms_error_t *errp, int *failed)
{
    struct fexpr x = { expr, expr, features, errp, 0 };
    bool v = fx_or (&x);
    skip_ws (&x);
    if (!x.failed && *x.p)
        fx_fail (&x, "'&', '|' or the end expected");
    *failed = x.failed;
    return !x.failed && v;
}

int
placement_features_parse (const char *expr, ms_error_t *errp)
{
    int failed;
    (void)fx_eval (expr, NULL, errp, &failed);
    return failed ? -1 : 0;
}

bool
placement_features_match (const char *expr, const char *features)
{
    int failed;
    ms_error_t e = { 0 };
    return fx_eval (expr, features ? features : "", &e, &failed);
}

int
placement_feature_nodes (const ms_partition_state_t *p, const char *expr)
{
    int n = 0;
    if (!p->features_known)
        return -1;
    for (size_t i = 0; i < p->nfeatsets; i++)
        if (placement_features_match (expr, p->featsets[i].features))
            n += p->featsets[i].nodes;
    return n;
}

/* ---- hostlists ---- */

#define HOSTNAME_MAX 256

struct hl {
    size_t max, count;
    int (*fn) (const char *name, void *arg);
    void *arg;
};

/* Expand one item (no top-level comma): prefix[ranges]rest, rest expanded
 * in turn. */
static int
hl_item (struct hl *h, const char *item, size_t len)
{
    const char *open = memchr (item, '[', len), *close, *r;
    char name[HOSTNAME_MAX];

    if (!open) {
        if (len == 0 || len >= sizeof (name) || memchr (item, ']', len))
            return -1;
        if (++h->count > h->max)
            return -1;
        memcpy (name, item, len);
        name[len] = '\0';
        return h->fn ? h->fn (name, h->arg) : 0;
    }
    close = memchr (open, ']', len - (size_t)(open - item));
    if (!close || close == open + 1)
        return -1;
    for (r = open + 1; r < close;) {
        const char *comma = memchr (r, ',', (size_t)(close - r));
        const char *end = comma ? comma : close, *dash;
        unsigned long lo, hi;
        int width = 0;
        char *e;
        dash = memchr (r, '-', (size_t)(end - r));
        if (!isdigit ((unsigned char)*r))
            return -1;
        lo = strtoul (r, &e, 10);
        if (e != (dash ? dash : end))
            return -1;
        if (*r == '0' && e - r > 1)
            width = (int)(e - r);
        hi = lo;
        if (dash) {
            if (!isdigit ((unsigned char)dash[1]))
                return -1;
            hi = strtoul (dash + 1, &e, 10);
            if (e != end || hi < lo)
                return -1;
        }
        if (hi - lo > h->max)
            return -1;
        for (unsigned long i = lo; i <= hi; i++) {
            char buf[2 * HOSTNAME_MAX];
            int n = snprintf (buf, sizeof (buf), "%.*s%0*lu%.*s",
                              (int)(open - item), item, width, i,
                              (int)(len - (size_t)(close + 1 - item)),
                              close + 1);
            int rc;
            if (n < 0 || (size_t)n >= sizeof (buf))
                return -1;
            if ((rc = hl_item (h, buf, (size_t)n)) != 0)
                return rc;
        }
        r = comma ? comma + 1 : close;
    }
    return 0;
}

int
placement_hostlist_each (const char *list, size_t max,
                         int (*fn) (const char *name, void *arg), void *arg)
{
    struct hl h = { max, 0, fn, arg };
    const char *p = list, *start = list;
    int depth = 0, rc;

    if (!list || !*list)
        return -1;
    for (;; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']' && --depth < 0)
            return -1;
        if ((*p == ',' && depth == 0) || !*p) {
            if (depth != 0)
                return -1;
            if ((rc = hl_item (&h, start, (size_t)(p - start))) != 0)
                return rc;
            if (!*p)
                break;
            start = p + 1;
        }
    }
    return 0;
}

static int
hl_match (const char *name, void *arg)
{
    return !strcmp (name, (const char *)arg) ? 1 : 0;
}

bool
placement_hostlist_has (const char *list, const char *name)
{
    return placement_hostlist_each (list, 1 << 20, hl_match, (void *)name) == 1;
}

/* A partition's nodes expanded once, sorted and without repeats, so that
 * the job's --nodelist and --exclude are checked name by name in log time:
 * testing each name against the other list expanded again cost the product
 * of their sizes (a partition of thousands of nodes and an --exclude of as
 * many took seconds per check, found by the fuzz target). */
struct hl_set {
    char **names;
    size_t n, cap;
    unsigned char *hit; /* per name: already counted */
};

static int
hl_set_add (const char *name, void *arg)
{
    struct hl_set *s = arg;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->names = ms_xrealloc (s->names, s->cap * sizeof (*s->names));
    }
    s->names[s->n++] = ms_xstrdup (name);
    return 0;
}

static int
hl_cmp (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

static void
hl_set_free (struct hl_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free (s->names[i]);
    free (s->names);
    free (s->hit);
    memset (s, 0, sizeof (*s));
}

/* 0, or -1 (s empty) if list is not a hostlist of at most max names */
static int
hl_set_build (struct hl_set *s, const char *list, size_t max)
{
    size_t k = 0;

    memset (s, 0, sizeof (*s));
    if (placement_hostlist_each (list, max, hl_set_add, s) != 0) {
        hl_set_free (s);
        return -1;
    }
    qsort (s->names, s->n, sizeof (*s->names), hl_cmp);
    for (size_t i = 0; i < s->n; i++) {
        if (k && !strcmp (s->names[k - 1], s->names[i]))
            free (s->names[i]);
        else
            s->names[k++] = s->names[i];
    }
    s->n = k;
    s->hit = ms_xcalloc (s->n ? s->n : 1, 1);
    return 0;
}

/* the index of name in s, or -1 */
static long
hl_set_find (const struct hl_set *s, const char *name)
{
    char *const *at;

    if (!s->n)
        return -1;
    at = bsearch (&name, s->names, s->n, sizeof (*s->names), hl_cmp);
    return at ? (long)(at - s->names) : -1;
}

/* the partition's nodes the job's exclude list names, each once */
struct hl_excluded {
    struct hl_set *nodes;
    size_t excluded;
};

static int
hl_count_excluded (const char *name, void *arg)
{
    struct hl_excluded *x = arg;
    long i = hl_set_find (x->nodes, name);
    if (i >= 0 && !x->nodes->hit[i]) {
        x->nodes->hit[i] = 1;
        x->excluded++;
    }
    return 0;
}

/* the first node of the job's list the partition lacks */
struct hl_missing {
    const struct hl_set *partition_nodes;
    char missing[HOSTNAME_MAX];
};

static int
hl_find_missing (const char *name, void *arg)
{
    struct hl_missing *m = arg;
    if (hl_set_find (m->partition_nodes, name) >= 0)
        return 0;
    ms_strlcpy (m->missing, name, sizeof (m->missing));
    return 1;
}

/* ---- filesystems ---- */

/* path (relative: under cwd) with '.', '..' and repeated '/' resolved in
 * the text; "" if it does not fit or is relative without a cwd. */
static void
path_norm (const char *path, const char *cwd, char *out, size_t size)
{
    char buf[2 * MS_PATH_MAX];
    size_t len = 0;
    const char *p;

    out[0] = '\0';
    if (path[0] == '/')
        snprintf (buf, sizeof (buf), "%s", path);
    else if (given (cwd) && cwd[0] == '/')
        snprintf (buf, sizeof (buf), "%s/%s", cwd, path);
    else
        return;
    for (p = buf; *p;) {
        size_t m;
        while (*p == '/')
            p++;
        m = strcspn (p, "/");
        if (m == 0)
            break;
        if (m == 1 && p[0] == '.') {
            /* nothing */
        } else if (m == 2 && p[0] == '.' && p[1] == '.') {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--;
        } else {
            if (len + 1 + m + 1 > size) {
                out[0] = '\0';
                return;
            }
            out[len++] = '/';
            memcpy (out + len, p, m);
            len += m;
        }
        out[len] = '\0';
        p += m;
    }
    if (len == 0 && size > 1) {
        out[0] = '/';
        len = 1;
    }
    out[len] = '\0';
}

bool
placement_path_mounted (const ms_clusterconf_t *c, const char *path,
                        const char *cwd)
{
    char norm[2 * MS_PATH_MAX];

    if (!c || c->nfilesystems == 0)
        return true;
    if (!given (path))
        return true;
    path_norm (path, cwd, norm, sizeof (norm));
    if (!norm[0])
        return false;
    if (!strcmp (norm, "/dev/null"))
        return true; /* on every node (--output=none) */
    for (size_t i = 0; i < c->nfilesystems; i++) {
        const char *fs = c->filesystems[i];
        size_t n = strlen (fs);
        if (!strcmp (fs, "/"))
            return true;
        if (!strncmp (norm, fs, n) && (norm[n] == '\0' || norm[n] == '/'))
            return true;
    }
    return false;
}

/* ---- the checks ---- */

static const ms_qos_t *
find_qos (const ms_accounting_t *a, const char *name)
{
    for (size_t i = 0; i < a->nqos; i++)
        if (!strcmp (a->qos[i].name, name))
            return &a->qos[i];
    return NULL;
}

bool
placement_check_cluster (const ms_clusterconf_t *c,
                         const ms_accounting_t *acct, const ms_place_req_t *r,
                         ms_place_acct_t *out, char *why, size_t len)
{
    const ms_assoc_t *as = NULL;
    const char *user = given (r->user) ? r->user : "";
    const ms_qos_t *q;
    bool any = false;

    memset (out, 0, sizeof (*out));
    out->max_wall_min = -1;
    if (given (r->account))
        ms_strlcpy (out->account, r->account, sizeof (out->account));
    if (given (r->qos))
        ms_strlcpy (out->qos, r->qos, sizeof (out->qos));
    /* filesystems: the working directory, then the paths under it */
    if (given (r->cwd) && !placement_path_mounted (c, r->cwd, NULL)) {
        snprintf (why, len, "%s not mounted (working directory)", r->cwd);
        return false;
    }
    for (size_t i = 0; i < 3; i++)
        if (given (r->paths[i])
            && !placement_path_mounted (c, r->paths[i], r->cwd)) {
            snprintf (why, len, "%s not mounted (%s)", r->paths[i],
                      i == 0 ? "output" : i == 1 ? "error" : "input");
            return false;
        }
    if (!acct || !acct->enabled || (c && !c->accounting))
        return true;
    /* the association: the job's account, else the user's default */
    for (size_t i = 0; i < acct->nassocs; i++) {
        const ms_assoc_t *a = &acct->assocs[i];
        if (strcmp (a->user, user))
            continue;
        any = true;
        if (given (r->account) ? !strcmp (a->account, r->account)
                               : a->is_default) {
            if (!as || (as->partition[0] && !a->partition[0]))
                as = a;
        }
    }
    /* associations of a partition: the job may run on those only, unless
     * one holds every partition */
    if (as && as->partition[0]) {
        size_t used = 0;
        for (size_t i = 0; i < acct->nassocs; i++) {
            const ms_assoc_t *a = &acct->assocs[i];
            int w;
            if (strcmp (a->user, user) || strcmp (a->account, as->account)
                || !a->partition[0])
                continue;
            w = snprintf (out->partitions + used, sizeof (out->partitions) - used,
                          "%s%s", used ? "," : "", a->partition);
            if (w < 0 || (size_t)w >= sizeof (out->partitions) - used)
                break;
            used += (size_t)w;
        }
    }
    if (!as) {
        if (!any)
            snprintf (why, len, "no association for user %s", user);
        else if (given (r->account))
            snprintf (why, len, "no association for user %s account %s",
                      user, r->account);
        else
            snprintf (why, len, "user %s has no default account", user);
        return false;
    }
    ms_strlcpy (out->account, as->account, sizeof (out->account));
    if (!given (r->qos))
        ms_strlcpy (out->qos, as->default_qos[0] ? as->default_qos : "normal",
                    sizeof (out->qos));
    if (as->qos[0] && !placement_in_list (as->qos, out->qos)) {
        snprintf (why, len, "QOS %s not allowed for user %s account %s "
                  "(allowed: %s)", out->qos, user, as->account, as->qos);
        return false;
    }
    if (as->max_wall_min >= 0 && r->time_limit_min > 0
        && (int64_t)r->time_limit_min > as->max_wall_min) {
        snprintf (why, len, "association %s/%s MaxWall %" PRId64 " min < %"
                  PRIu32 " min asked", user, as->account, as->max_wall_min,
                  r->time_limit_min);
        return false;
    }
    out->max_wall_min = as->max_wall_min;
    if ((q = find_qos (acct, out->qos)) && q->max_wall_min >= 0
        && (out->max_wall_min < 0 || q->max_wall_min < out->max_wall_min))
        out->max_wall_min = q->max_wall_min;
    if (!q) {
        if (given (r->qos)) {
            snprintf (why, len, "no QOS %s", out->qos);
            return false;
        }
        return true;
    }
    if (q->max_wall_min >= 0 && r->time_limit_min > 0
        && (int64_t)r->time_limit_min > q->max_wall_min) {
        snprintf (why, len, "QOS %s MaxWall %" PRId64 " min < %" PRIu32
                  " min asked", q->name, q->max_wall_min, r->time_limit_min);
        return false;
    }
    if (q->max_cpus_per_user >= 0 && r->cpus > q->max_cpus_per_user) {
        snprintf (why, len, "QOS %s MaxTRESPerUser cpu=%" PRId64 " < %d CPUs "
                  "asked", q->name, q->max_cpus_per_user, r->cpus);
        return false;
    }
    if (q->max_cpus_per_job >= 0 && r->cpus > q->max_cpus_per_job) {
        snprintf (why, len, "QOS %s MaxTRESPerJob cpu=%" PRId64 " < %d CPUs "
                  "asked", q->name, q->max_cpus_per_job, r->cpus);
        return false;
    }
    if (q->max_nodes_per_job >= 0
        && (r->nodes > 0 ? r->nodes : 1) > q->max_nodes_per_job) {
        snprintf (why, len, "QOS %s MaxTRESPerJob node=%" PRId64 " < %d nodes "
                  "asked", q->name, q->max_nodes_per_job,
                  r->nodes > 0 ? r->nodes : 1);
        return false;
    }
    return true;
}

bool
placement_check_partition (const ms_partition_state_t *p,
                           const ms_place_req_t *r, const ms_place_acct_t *a,
                           char *why, size_t len)
{
    int nodes = r->nodes > 0 ? r->nodes : 1;
    uint64_t mem = r->mem_per_node_mb;

    if (p->max_time_min >= 0 && r->time_limit_min > 0
        && (int64_t)r->time_limit_min > p->max_time_min) {
        snprintf (why, len, "MaxTime %" PRId64 " min < %" PRIu32 " min asked",
                  p->max_time_min, r->time_limit_min);
        return false;
    }
    if (p->max_nodes >= 0 && nodes > p->max_nodes) {
        snprintf (why, len, "MaxNodes %d < %d asked", p->max_nodes, nodes);
        return false;
    }
    if (p->min_nodes > 0 && nodes < p->min_nodes) {
        snprintf (why, len, "MinNodes %d > %d asked", p->min_nodes, nodes);
        return false;
    }
    if (!mem && r->mem_per_cpu_mb)
        mem = r->mem_per_cpu_mb
              * (uint64_t)(r->cpus_per_node > 0 ? r->cpus_per_node : 1);
    if (mem && p->mem_per_node_mb > 0 && mem > (uint64_t)p->mem_per_node_mb) {
        snprintf (why, len, "RealMemory %" PRId64 " MB < %" PRIu64
                  " MB asked per node", p->mem_per_node_mb, mem);
        return false;
    }
    if (given (r->constraint)) {
        int n = placement_feature_nodes (p, r->constraint);
        if (n >= 0 && n < nodes) {
            snprintf (why, len, "%d node%s with features '%s' < %d asked", n,
                      n == 1 ? "" : "s", r->constraint, nodes);
            return false;
        }
    }
    /* named nodes: a list naming a file (a '/') is the user's to read */
    if (given (r->nodelist) && !strchr (r->nodelist, '/') && p->node_list[0]) {
        struct hl_set pn;
        struct hl_missing m = { &pn, "" };
        int rc;
        (void)hl_set_build (&pn, p->node_list, 1 << 20);
        rc = placement_hostlist_each (r->nodelist, 1 << 16, hl_find_missing,
                                      &m);
        hl_set_free (&pn);
        if (rc == -1) {
            snprintf (why, len, "--nodelist=%s is not a list of nodes",
                      r->nodelist);
            return false;
        }
        if (rc == 1) {
            snprintf (why, len, "node %s (--nodelist) is not one of %s",
                      m.missing, p->node_list);
            return false;
        }
    }
    if (given (r->exclude) && !strchr (r->exclude, '/') && p->node_list[0]) {
        struct hl_set pn;
        if (hl_set_build (&pn, p->node_list, 1 << 16) == 0) {
            struct hl_excluded x = { &pn, 0 };
            int left;
            /* an exclude list that is not a hostlist excludes nothing */
            if (placement_hostlist_each (r->exclude, 1 << 20,
                                         hl_count_excluded, &x)
                != 0)
                x.excluded = 0;
            left = (int)(pn.n - x.excluded);
            hl_set_free (&pn);
            if (left < nodes) {
                snprintf (why, len,
                          "%d node%s left of %s after --exclude=%s < %d "
                          "asked",
                          left, left == 1 ? "" : "s", p->node_list,
                          r->exclude, nodes);
                return false;
            }
        }
    }
    if (a && a->partitions[0] && !placement_in_list (a->partitions, p->name)) {
        snprintf (why, len, "the association of account %s holds partition%s "
                  "%s only", a->account, strchr (a->partitions, ',') ? "s" : "",
                  a->partitions);
        return false;
    }
    if (a && a->account[0]) {
        if (limiting (p->allow_accounts)
            && !placement_in_list (p->allow_accounts, a->account)) {
            snprintf (why, len, "AllowAccounts %s excludes account %s",
                      p->allow_accounts, a->account);
            return false;
        }
        if (p->deny_accounts[0]
            && placement_in_list (p->deny_accounts, a->account)) {
            snprintf (why, len, "DenyAccounts %s names account %s",
                      p->deny_accounts, a->account);
            return false;
        }
    }
    if (limiting (p->allow_groups)) {
        bool ok = false;
        for (size_t i = 0; i < r->ngroups && !ok; i++)
            ok = placement_in_list (p->allow_groups, r->groups[i]);
        if (!ok) {
            snprintf (why, len, "AllowGroups %s excludes user %s",
                      p->allow_groups, given (r->user) ? r->user : "?");
            return false;
        }
    }
    if (a && a->qos[0]) {
        if (limiting (p->allow_qos) && !placement_in_list (p->allow_qos, a->qos)) {
            snprintf (why, len, "AllowQos %s excludes QOS %s", p->allow_qos,
                      a->qos);
            return false;
        }
        if (p->deny_qos[0] && placement_in_list (p->deny_qos, a->qos)) {
            snprintf (why, len, "DenyQos %s names QOS %s", p->deny_qos,
                      a->qos);
            return false;
        }
    }
    return true;
}
