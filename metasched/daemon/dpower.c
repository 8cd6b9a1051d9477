/* dpower.c - power budgets in the daemon (doc/daemon.md, "Power
 * budgets"): the budgets in force (metaschedd.conf's power_budget, or the
 * live setting that replaces it), the engine's tracker of the predicted
 * draw (core/power.h) rebuilt from the clusters' jobs at each refresh,
 * the engine's rule on a job's candidates before the policy decides, and
 * the figures of /metrics.
 *
 * A cluster job's draw above idle is the upper bound the decision
 * predicted for it where metasched dispatched it (kept by
 * daemon_power_record until the clusters no longer list it), else every
 * node of it at twice its idle power, the figure the view gives the
 * partitions' power caps (refresh.c). Running jobs are never touched.
 */
#define _GNU_SOURCE
#include "config.h"

#include "metasched/core/power.h"
#include "metasched/core/powerplace.h"
#include "metasched/daemon/daemon_int.h"

/* A cluster job in the tracker (core/power.h groups a job's entries by
 * this key; metasched's own ids, of jobs just dispatched, stay below). */
#define JOBKEY(cl, id) ((((uint64_t)(cl) + 1) << 48) ^ (uint64_t)(id))

/* A dispatched cluster job's predicted draw. */
typedef struct {
    size_t cl, part;
    uint64_t bid;
    double watts, t_hi;
    char app[129]; /* "": none given */
    bool seen; /* listed at the latest rebuild */
} pwknown_t;

/* The correction of an (app, partition)'s predicted power
 * (power_correction over its recent finished runs). */
typedef struct {
    char app[129];
    size_t part;
    double factor;
    int runs;
} pwcorr_t;

struct dpower {
    char text[SETTINGS_TEXT_MAX]; /* the budgets in force, as given */
    ms_budgets_t bs;
    ms_power_t *pw; /* NULL: no budget */
    ms_power_t *draw; /* without budgets, the tracker of the predicted draw
                         alone (power over time, /metrics); NULL with */
    pwknown_t *known;
    size_t nknown, capknown;
    size_t held;  /* jobs held in this dispatch pass */
    double until; /* the reservation of its first (held > 0) */
    double hist_last, prune_last; /* mono () of the latest write, prune */
    /* measured power per cluster (index of d->cl, the site's last; NAN:
     * no running job with a sample), from job_power (migration 0023) */
    double *measured;
    double measured_prune; /* mono () of the latest prune of job_power */
    pwcorr_t *corr;
    size_t ncorr;
    double corr_last; /* mono () of the latest reading of the runs */
};

/* Power over time (power_history, migration 0022): a row per cluster and
 * the site at most every POWER_HISTORY_EVERY_S, with budgets or without
 * (budget NULL); rows older than POWER_HISTORY_DAYS removed at most every
 * POWER_PRUNE_EVERY_S. */
#define POWER_HISTORY_EVERY_S 60.0
#define POWER_HISTORY_DAYS 30
#define POWER_PRUNE_EVERY_S 3600.0
/* job_power rows not reported for this long are removed; a sample older
 * than JOB_POWER_FRESH_S is not counted. */
#define JOB_POWER_KEEP "1 day"
#define JOB_POWER_FRESH_S 3600
/* The corrections are read anew every POWER_CORR_EVERY_S from the runs
 * of the latest POWER_CORR_JOBS jobs decided (a bounded query). */
#define POWER_CORR_EVERY_S 60.0
#define POWER_CORR_JOBS 5000

static struct dpower *
dp (ms_daemon_t *d)
{
    if (!d->power)
        d->power = ms_xcalloc (1, sizeof (*d->power));
    return d->power;
}

/* The tracker of the predicted draw: the budgets', else the draw's alone
 * (made here, without budgets). */
static ms_power_t *
tracker (ms_daemon_t *d, struct dpower *p)
{
    ms_budgets_t none = { NULL, 0 };

    if (p->pw)
        return p->pw;
    if (!p->draw) {
        p->draw = power_new (d->site, &none);
        power_set_spread (p->draw, d->ds.pol.job_sd, d->ds.pol.limit_z);
    }
    return p->draw;
}

void
daemon_power_release (struct dpower *p)
{
    if (!p)
        return;
    power_free (p->pw);
    power_free (p->draw);
    power_budgets_free (&p->bs);
    free (p->known);
    free (p->measured);
    free (p->corr);
    free (p);
}

void
daemon_power_free (ms_daemon_t *d)
{
    daemon_power_release (d->power);
    d->power = NULL;
}

int
daemon_power_check (void *ctx, const char *text, ms_error_t *errp)
{
    ms_daemon_t *d = ctx;
    ms_budgets_t bs = { NULL, 0 };
    int rc;

    pthread_mutex_lock (&d->ds.mu);
    rc = power_budgets_parse (text, "power_budget", d->site, 0, &bs, errp);
    pthread_mutex_unlock (&d->ds.mu);
    power_budgets_free (&bs);
    return rc;
}

void
daemon_power_settings (ms_daemon_t *d, const ms_settings_t *s)
{
    const char *text
        = s->power_budget_set ? s->power_budget : d->dc->power_budget;
    struct dpower *p = dp (d);
    ms_budgets_t bs = { NULL, 0 };
    ms_error_t e;

    if (!strcmp (text, p->text) && (p->pw || !p->bs.n))
        return;
    if (text[0]
        && power_budgets_parse (text, "power_budget", d->site, 0, &bs, &e)
               < 0) {
        daemon_log (LOG_WARNING, "%s (keeping the budgets in force)", e.text);
        ms_strlcpy (p->text, text, sizeof (p->text));
        return;
    }
    power_budgets_free (&p->bs);
    p->bs = bs;
    ms_strlcpy (p->text, text, sizeof (p->text));
    if (!bs.n) {
        power_free (p->pw);
        p->pw = NULL;
        daemon_log (LOG_NOTICE, "power budgets: none");
        return;
    }
    if (p->pw)
        power_set_budgets (p->pw, &bs);
    else
        p->pw = power_new (d->site, &bs);
    power_free (p->draw);
    p->draw = NULL;
    power_set_spread (p->pw, d->ds.pol.job_sd, d->ds.pol.limit_z);
    daemon_log (LOG_NOTICE, "power budgets: %s", text);
}

void
daemon_power_record (ms_daemon_t *d, size_t part, uint64_t bid,
                     const ms_cand_t *c, const char *app)
{
    struct dpower *p;
    pwknown_t *k;

    pthread_mutex_lock (&d->ds.mu);
    p = dp (d);
    /* kept with budgets or without: the predicted draw over time */
    if (p->nknown == p->capknown) {
        p->capknown = p->capknown ? 2 * p->capknown : 64;
        p->known = ms_xrealloc (p->known, p->capknown * sizeof (*p->known));
    }
    k = &p->known[p->nknown++];
    k->cl = d->site->parts[part].cluster;
    k->part = part;
    ms_strlcpy (k->app, app ? app : "", sizeof (k->app));
    k->bid = bid;
    k->watts = power_cand_watts (tracker (d, p), c);
    k->t_hi = c->t_hi;
    k->seen = true;
    pthread_mutex_unlock (&d->ds.mu);
}

static pwknown_t *
known_find (struct dpower *p, size_t cl, uint64_t bid)
{
    for (size_t i = 0; i < p->nknown; i++)
        if (p->known[i].cl == cl && p->known[i].bid == bid)
            return &p->known[i];
    return NULL;
}

/* The factor on the predicted power of app on partition part (1: no
 * runs measured). */
static double
correction (const struct dpower *p, const char *app, size_t part)
{
    if (!app[0])
        return 1;
    for (size_t i = 0; i < p->ncorr; i++)
        if (p->corr[i].part == part && !strcmp (p->corr[i].app, app))
            return p->corr[i].factor;
    return 1;
}

/* One cluster job into the tracker: running, its draw until its
 * predicted end (the earlier of its time limit and the prediction's upper
 * bound from its start); queued on the cluster, from now. */
static void
track_job (ms_daemon_t *d, struct dpower *p, ms_power_t *pw, size_t cl,
           long part, const ms_job_info_t *j, double now)
{
    const ms_partconf_t *pc = &d->site->parts[part];
    int nodes = j->nodes > 0 ? j->nodes : 1;
    double lim = j->time_limit_min > 0 ? j->time_limit_min * 60.0 : 3600.0;
    double watts = nodes * d->site->archs[pc->arch].idle_power_w, t_hi = lim;
    bool running = j->state == MS_JOB_RUNNING || j->state == MS_JOB_COMPLETING
                   || j->state == MS_JOB_SUSPENDED;
    pwknown_t *k = known_find (p, cl, j->id);

    if (!running && j->state != MS_JOB_PENDING)
        return;
    if (k) {
        double idle = nodes * d->site->archs[pc->arch].idle_power_w;
        double f = correction (p, k->app, k->part);
        k->seen = true;
        /* measured over predicted scales the job's whole power */
        watts = (k->watts + idle) * f - idle;
        if (watts < 0)
            watts = 0;
        if (k->t_hi > 0 && k->t_hi < lim)
            t_hi = k->t_hi;
    }
    if (running && j->start_time > 0) {
        t_hi -= now - (double)j->start_time;
        if (t_hi < 60)
            t_hi = 60; /* past its prediction: it still runs */
    }
    /* the tracker's job: cluster and id (ids repeat across clusters) */
    power_add (pw, JOBKEY (cl, j->id), j->id, cl, watts, t_hi, 0, now);
    if (running)
        power_start (pw, JOBKEY (cl, j->id), cl, j->id, now);
}

/* p's tracker anew from the clusters' jobs (p->known marked seen): the
 * budgets' where they are in force, else the draw's alone. */
static void
fill (ms_daemon_t *d, struct dpower *p)
{
    double now = wall ();
    ms_power_t *pw;

    for (size_t i = 0; i < p->nknown; i++)
        p->known[i].seen = false;
    if (p->pw) {
        power_free (p->pw);
        p->pw = power_new (d->site, &p->bs);
        power_set_spread (p->pw, d->ds.pol.job_sd, d->ds.pol.limit_z);
    } else {
        power_free (p->draw);
        p->draw = NULL;
    }
    pw = tracker (d, p);
    for (size_t i = 0; i < d->ncl; i++) {
        cluster_t *c = &d->cl[i];
        for (size_t n = 0; n < c->njobs; n++) {
            long part = part_index (d, c->conf->name, c->jobs[n].partition);
            if (part >= 0)
                track_job (d, p, pw, i, part, &c->jobs[n], now);
        }
    }
}

void
daemon_power_rebuild (ms_daemon_t *d)
{
    struct dpower *p = d->power;
    size_t k = 0;

    if (!p)
        return;
    fill (d, p);
    /* forget the jobs no cluster lists any more (a cluster that did not
     * answer keeps its own) */
    for (size_t i = 0; i < p->nknown; i++)
        if (p->known[i].seen || !d->cl[p->known[i].cl].up)
            p->known[k++] = p->known[i];
    p->nknown = k;
}

struct dpower *
daemon_power_copy (ms_daemon_t *d)
{
    struct dpower *p = d->power, *c;

    if (!p || !p->pw)
        return NULL;
    c = ms_xcalloc (1, sizeof (*c));
    ms_strlcpy (c->text, p->text, sizeof (c->text));
    c->bs.n = p->bs.n;
    c->bs.b = ms_xcalloc (p->bs.n + 1, sizeof (*c->bs.b));
    memcpy (c->bs.b, p->bs.b, p->bs.n * sizeof (*c->bs.b));
    c->nknown = c->capknown = p->nknown;
    c->known = ms_xcalloc (p->nknown + 1, sizeof (*c->known));
    if (p->nknown)
        memcpy (c->known, p->known, p->nknown * sizeof (*c->known));
    c->ncorr = p->ncorr;
    c->corr = ms_xcalloc (p->ncorr + 1, sizeof (*c->corr));
    if (p->ncorr)
        memcpy (c->corr, p->corr, p->ncorr * sizeof (*c->corr));
    c->pw = power_new (d->site, &c->bs);
    fill (d, c);
    return c;
}

const ms_power_t *
daemon_power_budgets (const ms_daemon_t *d)
{
    return d->power ? d->power->pw : NULL;
}

bool
daemon_power_on (const ms_daemon_t *d)
{
    return d->power && d->power->pw;
}

/* "HH:MM" (UTC) of t, with the date when it is not today. */
static void
clock_text (double t, double now, char *buf, size_t len)
{
    time_t tt = (time_t)ceil (t), tn = (time_t)now;
    struct tm a, b;

    gmtime_r (&tt, &a);
    gmtime_r (&tn, &b);
    if (a.tm_yday == b.tm_yday && a.tm_year == b.tm_year)
        strftime (buf, len, "%H:%M UTC", &a);
    else
        strftime (buf, len, "%Y-%m-%d %H:%M UTC", &a);
}

void
daemon_power_pass (ms_daemon_t *d)
{
    if (d->power)
        d->power->held = 0;
}

/* Why a held job waits, and until when: the budget its least-drawing
 * candidate of all would pass (engine_hold_power), else no place that
 * starts it now, by its reservation resv. */
static char *
held_why (ms_daemon_t *d, ms_cands_t *all, double now, double resv)
{
    struct dpower *p = d->power;
    ms_hold_t h;
    char at[64] = "", *why = NULL;
    int rc;

    engine_hold_power (p->pw, d->site, all, now, &h);
    if (h.why == MS_HOLD_POWER) {
        if (isfinite (h.until))
            clock_text (h.until, now, at, sizeof (at));
        rc = asprintf (
            &why,
            "power budget: %s %.0f W, predicted %.0f W with this "
            "job; %s%s",
            power_scope_name (d->site, h.scope), h.budget_w, h.draw_w,
            isfinite (h.until) ? "expected under it at "
                               : "not under it while the budget holds",
            isfinite (h.until) ? at : "");
    } else {
        if (isfinite (resv))
            clock_text (resv, now, at, sizeof (at));
        rc = asprintf (&why,
                       "power budget: no place starts it now within the "
                       "budgets%s%s",
                       isfinite (resv) ? "; expected to start at " : "", at);
    }
    return rc < 0 ? NULL : why;
}

int
daemon_power_place (ms_daemon_t *d, ms_decision_t *dec, char **whyp)
{
    struct dpower *p = d->power;
    double now = wall (), resv = INFINITY;
    ms_cands_t all = d->ds.cs;
    int rc;

    *whyp = NULL;
    dec->n = 0;
    if (!p || !p->pw)
        return -1;
    if (!d->ds.cs.n)
        return -1;
    all.cap = d->ds.cs.n;
    all.c = ms_xcalloc (d->ds.cs.n + 1, sizeof (*all.c));
    memcpy (all.c, d->ds.cs.c, d->ds.cs.n * sizeof (*all.c));
    /* the engine's place, the simulator's rule; the pass's oldest held
     * job's reservation bounds the others (EASY's rule) */
    rc = engine_power_place (&d->ds.pol, p->pw, d->site, d->ds.view, &d->ds.cs,
                             now, p->held ? p->until : INFINITY,
                             p->held ? NULL : &resv, dec);
    if (rc == 1) {
        if (!p->held++)
            p->until = resv;
        *whyp = held_why (d, &all, now, resv);
    }
    free (all.c);
    return rc;
}

void
daemon_power_dispatched (ms_daemon_t *d, uint64_t job, const ms_cand_t *c)
{
    struct dpower *p = d->power;

    if (!p || !p->pw)
        return;
    power_add (p->pw, job, 0, d->site->parts[c->part].cluster,
               power_cand_watts (p->pw, c), c->t_hi, c->w, wall ());
}

void
daemon_power_metrics (ms_daemon_t *d, char **buf, size_t *len, size_t *cap)
{
    struct dpower *p = d->power;
    double now = wall ();
    char line[512];

    if (!p || (!p->pw && !p->draw))
        return;
    for (int m = 0; m < 2; m++) {
        int n = snprintf (line, sizeof (line), "# TYPE %s gauge\n",
                          m ? "metaschedd_power_predicted_watts"
                            : "metaschedd_power_budget_watts");
        daemon_reserve (buf, *len, cap, (size_t)n + 1);
        memcpy (*buf + *len, line, (size_t)n + 1);
        *len += (size_t)n;
        for (size_t c = 0; c <= d->site->nclusters; c++) {
            size_t scope = power_scope_at (d->site, c);
            double v = m ? power_draw (p->pw ? p->pw : p->draw, scope)
                         : power_budget_at (&p->bs, scope, now);
            if (!m && !isfinite (v))
                continue;
            n = snprintf (line, sizeof (line), "%s{cluster=\"%s\"} %.1f\n",
                          m ? "metaschedd_power_predicted_watts"
                            : "metaschedd_power_budget_watts",
                          power_scope_name (d->site, scope), v);
            daemon_reserve (buf, *len, cap, (size_t)n + 1);
            memcpy (*buf + *len, line, (size_t)n + 1);
            *len += (size_t)n;
        }
    }
}

/* One scope's row of power_history. */
typedef struct {
    char scope[65];
    double budget, predicted, measured;
} histrow_t;

static double measured_of (const ms_daemon_t *d, size_t scope);

void
daemon_power_history (ms_daemon_t *d)
{
    struct dpower *p = d->power;
    histrow_t *rows;
    size_t n = 0;
    double now = wall ();
    ms_error_t e;

    pthread_mutex_lock (&d->ds.mu);
    if (!p || (!p->pw && !p->draw)
        || (p->hist_last > 0
            && mono () - p->hist_last < POWER_HISTORY_EVERY_S)) {
        pthread_mutex_unlock (&d->ds.mu);
        return;
    }
    p->hist_last = mono ();
    rows = ms_xcalloc (d->site->nclusters + 1, sizeof (*rows));
    for (size_t c = 0; c <= d->site->nclusters; c++) {
        size_t scope = power_scope_at (d->site, c);
        ms_strlcpy (rows[n].scope, power_scope_name (d->site, scope),
                    sizeof (rows[n].scope));
        rows[n].budget = power_budget_at (&p->bs, scope, now);
        rows[n].predicted = power_draw (p->pw ? p->pw : p->draw, scope);
        rows[n].measured = measured_of (d, scope);
        n++;
    }
    pthread_mutex_unlock (&d->ds.mu);
    for (size_t i = 0; i < n; i++) {
        char at[32], b[32], pr[32], me[32];
        const char *prm[5] = { at, rows[i].scope, b, pr, me };
        snprintf (at, sizeof (at), "%.3f", now);
        snprintf (b, sizeof (b), "%.3f", rows[i].budget);
        snprintf (pr, sizeof (pr), "%.3f", rows[i].predicted);
        snprintf (me, sizeof (me), "%.3f", rows[i].measured);
        if (!isfinite (rows[i].budget))
            prm[2] = NULL;
        if (!isfinite (rows[i].measured))
            prm[4] = NULL;
        if (db_command (d->db, "power_history_add",
                        "INSERT INTO power_history (at, scope, budget_w,"
                        " predicted_w, measured_w)"
                        " VALUES (to_timestamp ($1::float8),"
                        " $2, $3::float8, $4::float8, $5::float8)"
                        " ON CONFLICT (scope, at) DO NOTHING",
                        5, prm, NULL, &e)
            < 0) {
            daemon_log (LOG_ERR, "power history: %s", e.text);
            break;
        }
    }
    free (rows);
    if (p->prune_last > 0 && mono () - p->prune_last < POWER_PRUNE_EVERY_S)
        return;
    p->prune_last = mono ();
    {
        char days[16];
        const char *prm[1] = { days };
        snprintf (days, sizeof (days), "%d", POWER_HISTORY_DAYS);
        if (db_command (d->db, "power_history_prune",
                        "DELETE FROM power_history WHERE at < now ()"
                        " - $1::integer * interval '1 day'",
                        1, prm, NULL, &e)
            < 0)
            daemon_log (LOG_ERR, "power history: %s", e.text);
    }
}

/* Is cluster job id running in the view of cluster c? (jobs sorted by
 * id) */
static bool
running_on (const cluster_t *c, uint64_t id)
{
    size_t lo = 0, hi = c->njobs;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->jobs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->njobs && c->jobs[lo].id == id
           && (c->jobs[lo].state == MS_JOB_RUNNING
               || c->jobs[lo].state == MS_JOB_COMPLETING);
}

void
daemon_power_measure (ms_daemon_t *d)
{
    struct dpower *p;
    PGresult *r;
    ms_error_t e;
    char fresh[16];
    const char *prm[1] = { fresh };
    double *m, site = 0;
    bool any = false;

    snprintf (fresh, sizeof (fresh), "%d", JOB_POWER_FRESH_S);
    r = db_exec (d->db, "job_power_read",
                 "SELECT cluster, slurm_job_id, sum (watts) FROM job_power"
                 " WHERE reported_at > now () - $1::integer * interval"
                 " '1 second' GROUP BY 1, 2",
                 1, prm, &e);
    if (!r) {
        daemon_log (LOG_ERR, "measured power: %s", e.text);
        return;
    }
    m = ms_xcalloc (d->ncl + 1, sizeof (*m));
    for (size_t i = 0; i <= d->ncl; i++)
        m[i] = NAN;
    pthread_mutex_lock (&d->ds.mu);
    for (int row = 0; row < PQntuples (r); row++) {
        const char *cl = PQgetvalue (r, row, 0);
        uint64_t id = strtoull (PQgetvalue (r, row, 1), NULL, 10);
        double w = atof (PQgetvalue (r, row, 2));
        for (size_t i = 0; i < d->ncl; i++) {
            if (strcmp (d->cl[i].conf->name, cl) || !running_on (&d->cl[i], id))
                continue;
            m[i] = (isnan (m[i]) ? 0 : m[i]) + w;
            site += w;
            any = true;
        }
    }
    m[d->ncl] = any ? site : NAN;
    p = dp (d);
    free (p->measured);
    p->measured = m;
    pthread_mutex_unlock (&d->ds.mu);
    PQclear (r);
    if (p->measured_prune > 0
        && mono () - p->measured_prune < POWER_PRUNE_EVERY_S)
        return;
    p->measured_prune = mono ();
    if (db_command (d->db, "job_power_prune",
                    "DELETE FROM job_power WHERE reported_at < now ()"
                    " - interval '" JOB_POWER_KEEP "'",
                    0, NULL, NULL, &e)
        < 0)
        daemon_log (LOG_ERR, "measured power: %s", e.text);
}

/* The measured power of scope (MS_POWER_SITE: the site); NAN: none.
 * Under d->ds.mu. */
static double
measured_of (const ms_daemon_t *d, size_t scope)
{
    const struct dpower *p = d->power;

    if (!p || !p->measured)
        return NAN;
    return p->measured[power_scope_slot (d->site, scope)];
}

void
daemon_power_measured_metrics (ms_daemon_t *d, char **buf, size_t *len,
                               size_t *cap)
{
    char line[512];
    int n;

    if (!d->power || !d->power->measured)
        return;
    n = snprintf (line, sizeof (line),
                  "# TYPE metaschedd_power_measured_watts gauge\n");
    daemon_reserve (buf, *len, cap, (size_t)n + 1);
    memcpy (*buf + *len, line, (size_t)n + 1);
    *len += (size_t)n;
    for (size_t c = 0; c <= d->ncl; c++) {
        size_t scope = power_scope_at (d->site, c);
        double v = measured_of (d, scope);
        if (isnan (v))
            continue;
        n = snprintf (line, sizeof (line),
                      "metaschedd_power_measured_watts{cluster=\"%s\"} %.1f\n",
                      power_scope_name (d->site, scope), v);
        daemon_reserve (buf, *len, cap, (size_t)n + 1);
        memcpy (*buf + *len, line, (size_t)n + 1);
        *len += (size_t)n;
    }
}

/* The corrections anew from the finished runs of the latest jobs
 * metaschedd decided (POWER_CORR_JOBS of them): per (app, cluster,
 * partition), each run's measured mean power (job_runs: package and
 * DRAM energy of its nodes over its runtime) over its predicted power
 * (jobs.predicted_power_w, per node, times its nodes), newest first. */
void
daemon_power_corrections (ms_daemon_t *d)
{
    struct dpower *p = d->power;
    PGresult *r;
    ms_error_t e;
    pwcorr_t *v;
    size_t n = 0;
    char lim[16], runs[16];
    const char *prm[2] = { lim, runs };

    if (!p || (p->corr_last > 0 && mono () - p->corr_last < POWER_CORR_EVERY_S))
        return;
    p->corr_last = mono ();
    snprintf (lim, sizeof (lim), "%d", POWER_CORR_JOBS);
    snprintf (runs, sizeof (runs), "%d", MS_POWER_CORR_RUNS);
    r = db_exec (
        d->db, "power_corrections",
        "SELECT app, cluster, partition,"
        "  string_agg (ratio::text, ' ' ORDER BY ended DESC)"
        " FROM (SELECT j.app, j.cluster, j.partition, m.ended,"
        "   m.w / (greatest (m.nodes, 1) * j.predicted_power_w) AS ratio,"
        "   row_number () OVER (PARTITION BY j.app, j.cluster, j.partition"
        "     ORDER BY m.ended DESC) AS rn"
        "  FROM (SELECT * FROM jobs WHERE state = 'completed'"
        "        AND app IS NOT NULL AND predicted_power_w > 0"
        "        AND cluster_job_id IS NOT NULL"
        "        ORDER BY id DESC LIMIT $1::integer) j"
        "  JOIN LATERAL (SELECT sum (coalesce (r.pkg_energy_j, 0)"
        "      + coalesce (r.dram_energy_j, 0))"
        "      / nullif (max (r.runtime_s), 0) AS w,"
        "      max (r.nodes) AS nodes, max (r.end_time) AS ended"
        "    FROM job_runs r WHERE r.cluster = j.cluster"
        "     AND r.slurm_job_id = j.cluster_job_id"
        "     AND (r.pkg_energy_j IS NOT NULL"
        "          OR r.dram_energy_j IS NOT NULL)) m ON m.w > 0) x"
        " WHERE rn <= $2::integer GROUP BY 1, 2, 3",
        2, prm, &e);
    if (!r) {
        daemon_log (LOG_ERR, "power correction: %s", e.text);
        return;
    }
    v = ms_xcalloc ((size_t)PQntuples (r) + 1, sizeof (*v));
    for (int row = 0; row < PQntuples (r); row++) {
        double ratios[MS_POWER_CORR_RUNS];
        char *t = PQgetvalue (r, row, 3), *end;
        size_t k = 0;
        long part = part_index (d, PQgetvalue (r, row, 1),
                                PQgetvalue (r, row, 2));
        if (part < 0)
            continue;
        while (k < MS_POWER_CORR_RUNS && *t) {
            ratios[k] = strtod (t, &end);
            if (end == t)
                break;
            k++;
            t = end;
        }
        ms_strlcpy (v[n].app, PQgetvalue (r, row, 0), sizeof (v[n].app));
        v[n].part = (size_t)part;
        v[n].factor = power_correction (ratios, k);
        v[n].runs = (int)k;
        n++;
    }
    PQclear (r);
    pthread_mutex_lock (&d->ds.mu);
    for (size_t i = 0; i < n; i++) {
        if (fabs (correction (p, v[i].app, v[i].part) - v[i].factor) > 1e-3)
            daemon_log (LOG_NOTICE,
                        "power correction: %s on %s/%s: predicted power "
                        "times %.3f (%d measured runs)",
                        v[i].app,
                        d->site->clusters[d->site->parts[v[i].part].cluster]
                            .name,
                        d->site->parts[v[i].part].name, v[i].factor,
                        v[i].runs);
    }
    free (p->corr);
    p->corr = v;
    p->ncorr = n;
    pthread_mutex_unlock (&d->ds.mu);
}
