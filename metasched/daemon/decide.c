/* decide.c - deciding: a job's key in the prediction table, its
 * candidates and the policy's decision (the policy code the simulator
 * runs), every candidate with its score as JSON, and the time limit scaled
 * to the chosen partition.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/daemon/daemon_int.h"

/* ---- deciding ---- */

/* The job's app in the table, its home partition (the fastest at nominal
 * frequency: the user's limit is taken as the runtime there, so every
 * slower choice gets a longer limit) and its length. Caller holds d->mu. */
int
job_key (const ms_daemon_t *d, const char *app, int nodes, uint32_t limit_min,
         const char *pinned, jobkey_t *k)
{
    const ms_predtab_t *tab = d->tab;
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
    k->pinned = -1;
    if (pinned && *pinned) {
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

/* Candidates of the job on partitions of reachable clusters (all of them
 * with every_cluster) and the policy's decision. Caller holds d->mu. */
void
daemon_decide (ms_daemon_t *d, const jobkey_t *k, bool every_cluster,
               ms_decision_t *dec)
{
    ms_cands_t *cs = &d->cs;
    size_t n = 0;

    candidates_build (d->tab, (size_t)k->app, k->home, k->nodes, k->base_s,
                      d->view, wall (), cs);
    for (size_t i = 0; i < cs->n; i++) {
        const ms_partconf_t *pc = &d->site->parts[cs->c[i].part];
        if (!every_cluster && !d->cl[pc->cluster].up)
            continue;
        if (k->pinned >= 0 && (long)cs->c[i].part != k->pinned)
            continue;
        cs->c[n++] = cs->c[i];
    }
    cs->n = n;
    policy_decide (&d->pol, d->site, cs, d->view, dec);
}

/* Every candidate with its score, for the decisions row and what-if. */
/* Make room for need more bytes and the NUL in the growing buffer *buf
 * of *cap bytes, len of them used. */
void
daemon_reserve (char **buf, size_t len, size_t *cap, size_t need)
{
    if (len + need + 1 > *cap) {
        *cap = (len + need + 1) * 2;
        *buf = ms_xrealloc (*buf, *cap);
    }
}

/* Append printf-style text to the growing buffer *buf. */
static void
cat_printf (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n <= 0)
        return;
    daemon_reserve (buf, *len, cap, (size_t)n);
    va_start (ap, fmt);
    vsnprintf (*buf + *len, *cap - *len, fmt, ap);
    va_end (ap);
    *len += (size_t)n;
}

/* A number for JSON: nine significant digits (plenty for an audit row,
 * and half the text of seventeen), null where it is not finite. */
static void
cat_num (char **buf, size_t *len, size_t *cap, const char *key, double v)
{
    if (isfinite (v))
        cat_printf (buf, len, cap, ",\"%s\":%.9g", key, v);
    else
        cat_printf (buf, len, cap, ",\"%s\":null", key);
}

/* Every candidate of a decision with its prediction, score and rank, as
 * the JSON text of decisions.candidates (written directly: a jansson
 * object per candidate cost more than the decision itself). Cluster and
 * partition names are configuration names (clusterconf.c admits letters,
 * digits, '-', '_' and '.'), which need no escaping. */
char *
candidates_json (const ms_daemon_t *d, const ms_cands_t *cs,
                 const ms_decision_t *dec, double *chosen_score)
{
    double emin = INFINITY, wtmin = INFINITY;
    size_t len = 0, cap = 256 + cs->n * 256;
    char *buf = ms_xmalloc (cap);

    for (size_t i = 0; i < cs->n; i++) {
        if (cs->c[i].e < emin)
            emin = cs->c[i].e;
        if (cs->c[i].w + cs->c[i].t < wtmin)
            wtmin = cs->c[i].w + cs->c[i].t;
    }
    cat_printf (&buf, &len, &cap, "[");
    for (size_t i = 0; i < cs->n; i++) {
        const ms_cand_t *c = &cs->c[i];
        const ms_partconf_t *pc = &d->site->parts[c->part];
        double s
            = score_metasched (c->e, emin, c->w + c->t, wtmin, d->pol.w_energy);
        int rank = -1;
        for (size_t k = 0; k < dec->n; k++)
            if (dec->c[k].cand == i)
                rank = (int)k;
        if (rank == 0 && chosen_score)
            *chosen_score = s;
        cat_printf (&buf, &len, &cap,
                    "%s{\"cluster\":\"%s\",\"partition\":\"%s\","
                    "\"freq_khz\":%u",
                    i ? "," : "", d->site->clusters[pc->cluster].name,
                    pc->name, (unsigned)c->f_khz);
        cat_num (&buf, &len, &cap, "time_s", c->t);
        cat_num (&buf, &len, &cap, "time_hi_s", c->t_hi);
        cat_num (&buf, &len, &cap, "power_w", c->p);
        cat_num (&buf, &len, &cap, "energy_j", c->e);
        cat_num (&buf, &len, &cap, "wait_s", isfinite (c->w) ? c->w : -1.0);
        cat_num (&buf, &len, &cap, "score", isfinite (s) ? s : -1.0);
        cat_printf (&buf, &len, &cap, ",\"chosen\":%s",
                    rank == 0 ? "true" : "false");
        if (rank >= 0)
            cat_printf (&buf, &len, &cap, ",\"rank\":%d", rank);
        cat_printf (&buf, &len, &cap, "}");
    }
    cat_printf (&buf, &len, &cap, "]");
    return buf;
}

/* The user's limit scaled by the predicted slowdown there (DESIGN.md 5),
 * never below the user's own. */
uint32_t
scaled_limit (uint32_t user_min, const ms_cand_t *c, double base_s)
{
    double lim = user_min * 60.0;
    if (user_min == 0)
        return 0;
    if (base_s > 0 && c->t_hi > base_s)
        lim *= c->t_hi / base_s;
    if (!isfinite (lim) || lim > 365 * 86400.0)
        return user_min;
    uint32_t m = (uint32_t)ceil (lim / 60.0 - 1e-9);
    return m < user_min ? user_min : m;
}
