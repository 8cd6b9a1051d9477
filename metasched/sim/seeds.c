/* seeds.c - one simulation over several seeds (see seeds.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/util.h"
#include "metasched/sim/seeds.h"

typedef struct {
    uint64_t seed;
    size_t key; /* index of its (group, label) */
    double job_energy_j, system_energy_j, response_s, wait_s;
    size_t killed;
} srun_t;

typedef struct {
    char group[16];
    char label[48];
} skey_t;

struct ms_seedruns {
    srun_t *runs;
    size_t nruns, caprun;
    skey_t *keys;
    size_t nkeys, capkey;
};

/* One number of a --seeds list; the whole token must be digits. */
static int
seed_number (const char *s, size_t len, uint64_t *v)
{
    char buf[32], *end;
    unsigned long long x;

    if (len == 0 || len >= sizeof (buf))
        return -1;
    for (size_t i = 0; i < len; i++)
        if (!isdigit ((unsigned char)s[i]))
            return -1;
    memcpy (buf, s, len);
    buf[len] = '\0';
    errno = 0;
    x = strtoull (buf, &end, 10);
    if (errno || *end)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

int
seeds_parse (const char *s, uint64_t **out, size_t *n, ms_error_t *errp)
{
    uint64_t *v = NULL;
    size_t nv = 0;
    const char *p = s;

    *out = NULL;
    *n = 0;
    if (!s || !*s)
        return ms_err (errp, MS_ERR_INPUT, "--seeds: an empty list");
    for (;;) {
        const char *comma = strchr (p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen (p);
        const char *dash = memchr (p, '-', len);
        uint64_t a, b;

        if (dash) {
            if (seed_number (p, (size_t)(dash - p), &a) < 0
                || seed_number (dash + 1, len - (size_t)(dash - p) - 1, &b)
                       < 0
                || b < a)
                goto bad;
        } else if (seed_number (p, len, &a) < 0)
            goto bad;
        else
            b = a;
        if (b - a >= MS_SEEDS_MAX || nv + (size_t)(b - a) + 1 > MS_SEEDS_MAX) {
            free (v);
            return ms_err (errp, MS_ERR_INPUT, "--seeds: more than %d seeds",
                           MS_SEEDS_MAX);
        }
        for (uint64_t x = a;; x++) {
            for (size_t i = 0; i < nv; i++)
                if (v[i] == x) {
                    free (v);
                    return ms_err (errp, MS_ERR_INPUT,
                                   "--seeds: seed %llu given twice",
                                   (unsigned long long)x);
                }
            v = ms_xrealloc (v, (nv + 1) * sizeof (*v));
            v[nv++] = x;
            if (x == b)
                break;
        }
        if (!comma)
            break;
        p = comma + 1;
        continue;
    bad:
        free (v);
        return ms_err (errp, MS_ERR_INPUT,
                       "--seeds: '%.*s' is not a seed or a range A-B of seeds "
                       "(A <= B)",
                       (int)(len > 64 ? 64 : len), p);
    }
    *out = v;
    *n = nv;
    return 0;
}

ms_seedruns_t *
seedruns_new (void)
{
    return ms_xcalloc (1, sizeof (ms_seedruns_t));
}

void
seedruns_free (ms_seedruns_t *r)
{
    if (!r)
        return;
    free (r->runs);
    free (r->keys);
    free (r);
}

static size_t
key_of (ms_seedruns_t *r, const char *group, const char *label)
{
    for (size_t k = 0; k < r->nkeys; k++)
        if (!strcmp (r->keys[k].group, group)
            && !strcmp (r->keys[k].label, label))
            return k;
    if (r->nkeys == r->capkey) {
        r->capkey = r->capkey ? 2 * r->capkey : 32;
        r->keys = ms_xrealloc (r->keys, r->capkey * sizeof (*r->keys));
    }
    ms_strlcpy (r->keys[r->nkeys].group, group, sizeof (r->keys[0].group));
    ms_strlcpy (r->keys[r->nkeys].label, label, sizeof (r->keys[0].label));
    return r->nkeys++;
}

void
seedruns_add (ms_seedruns_t *r, uint64_t seed, const char *group,
              const ms_summary_t *s)
{
    srun_t *x;
    if (r->nruns == r->caprun) {
        r->caprun = r->caprun ? 2 * r->caprun : 64;
        r->runs = ms_xrealloc (r->runs, r->caprun * sizeof (*r->runs));
    }
    x = &r->runs[r->nruns++];
    x->seed = seed;
    x->key = key_of (r, group, s->label);
    x->job_energy_j = s->job_energy_j;
    x->system_energy_j = s->system_energy_j;
    x->response_s = s->mean_response;
    x->wait_s = s->mean_wait;
    x->killed = s->killed;
}

/* Mean and sample standard deviation of v[0..n-1] (sd NAN for n < 2). */
static void
mean_sd (const double *v, size_t n, double *mean, double *sd)
{
    double m = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        m += v[i];
    m = n ? m / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        q += (v[i] - m) * (v[i] - m);
    *mean = m;
    *sd = n > 1 ? sqrt (q / (double)(n - 1)) : NAN;
}

size_t
seedruns_stats (const ms_seedruns_t *r, ms_seedstat_t **out)
{
    ms_seedstat_t *st = ms_xcalloc (r->nkeys + 1, sizeof (*st));
    double *v[4];

    for (int m = 0; m < 4; m++)
        v[m] = ms_xcalloc (r->nruns + 1, sizeof (double));
    for (size_t k = 0; k < r->nkeys; k++) {
        ms_seedstat_t *s = &st[k];
        size_t n = 0;
        double killed = 0;
        ms_strlcpy (s->group, r->keys[k].group, sizeof (s->group));
        ms_strlcpy (s->label, r->keys[k].label, sizeof (s->label));
        for (size_t i = 0; i < r->nruns; i++)
            if (r->runs[i].key == k) {
                v[0][n] = r->runs[i].job_energy_j;
                v[1][n] = r->runs[i].system_energy_j;
                v[2][n] = r->runs[i].response_s;
                v[3][n] = r->runs[i].wait_s;
                killed += (double)r->runs[i].killed;
                n++;
            }
        s->n = n;
        mean_sd (v[0], n, &s->job_energy_j, &s->job_energy_sd);
        mean_sd (v[1], n, &s->system_energy_j, &s->system_energy_sd);
        mean_sd (v[2], n, &s->response_s, &s->response_sd);
        mean_sd (v[3], n, &s->wait_s, &s->wait_sd);
        s->killed = n ? killed / (double)n : 0;
    }
    for (int m = 0; m < 4; m++)
        free (v[m]);
    *out = st;
    return r->nkeys;
}

/* The run of key k on seed, or NULL. */
static const srun_t *
run_of (const ms_seedruns_t *r, size_t k, uint64_t seed)
{
    for (size_t i = 0; i < r->nruns; i++)
        if (r->runs[i].key == k && r->runs[i].seed == seed)
            return &r->runs[i];
    return NULL;
}

int
seedruns_versus (const ms_seedruns_t *r, const char *ref, ms_seedpair_t **out,
                 size_t *n, ms_error_t *errp)
{
    size_t kref = SIZE_MAX, np = 0;
    ms_seedpair_t *pr;
    double *de, *dr;

    for (size_t k = 0; k < r->nkeys && kref == SIZE_MAX; k++)
        if (!strcmp (r->keys[k].label, ref))
            kref = k;
    if (kref == SIZE_MAX) {
        char names[1024] = "";
        for (size_t k = 0; k < r->nkeys; k++) {
            bool seen = false;
            for (size_t j = 0; j < k; j++)
                seen |= !strcmp (r->keys[j].label, r->keys[k].label);
            if (seen)
                continue;
            size_t used = strlen (names);
            snprintf (names + used, sizeof (names) - used, "%s%s",
                      used ? ", " : "", r->keys[k].label);
        }
        return ms_err (errp, MS_ERR_INPUT,
                       "--versus: no row '%s' (the rows: %s)", ref, names);
    }
    pr = ms_xcalloc (r->nkeys + 1, sizeof (*pr));
    de = ms_xcalloc (r->nruns + 1, sizeof (double));
    dr = ms_xcalloc (r->nruns + 1, sizeof (double));
    for (size_t k = 0; k < r->nkeys; k++) {
        ms_seedpair_t *p;
        size_t m = 0, both = 0;
        if (k == kref)
            continue;
        for (size_t i = 0; i < r->nruns; i++) {
            const srun_t *x = &r->runs[i], *y;
            if (x->key != k || !(y = run_of (r, kref, x->seed)))
                continue;
            if (!(y->job_energy_j > 0) || !(y->response_s > 0))
                continue;
            de[m] = 100 * (x->job_energy_j / y->job_energy_j - 1);
            dr[m] = 100 * (x->response_s / y->response_s - 1);
            both += de[m] < 0 && dr[m] < 0;
            m++;
        }
        p = &pr[np++];
        ms_strlcpy (p->group, r->keys[k].group, sizeof (p->group));
        ms_strlcpy (p->label, r->keys[k].label, sizeof (p->label));
        p->n = m;
        mean_sd (de, m, &p->d_energy, &p->d_energy_sd);
        mean_sd (dr, m, &p->d_response, &p->d_response_sd);
        p->both_lower = both;
    }
    free (de);
    free (dr);
    *out = pr;
    *n = np;
    return 0;
}

/* "mean ± sd" in a field of 16 columns, prec decimals, the mean signed
 * where sign; sd "-" where there is none. */
static void
print_msd (FILE *f, double mean, double sd, int prec, bool sign)
{
    char a[32], b[32], c[72];
    snprintf (a, sizeof (a), sign ? "%+.*f" : "%.*f", prec, mean);
    if (isfinite (sd))
        snprintf (b, sizeof (b), "%.*f", prec, sd);
    else
        snprintf (b, sizeof (b), "-");
    snprintf (c, sizeof (c), "%s \xc2\xb1 %s", a, b);
    /* the "±" is two bytes and one column */
    fprintf (f, " %*s", 17, c);
}

/* Row i's heading where its table starts: the sweep's rows get a table
 * of their own, as in one run's output. */
static const char *
heading (size_t i, const char *prev, const char *group, const char *sweep)
{
    if (i == 0)
        return "";
    if (strcmp (prev, group) && !strcmp (group, "sweep"))
        return sweep;
    return NULL;
}

void
seedruns_print_stats (FILE *f, const ms_seedstat_t *st, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const ms_seedstat_t *s = &st[i];
        const char *h = heading (i, i ? st[i - 1].group : "", s->group,
                                 "\nmetasched energy-weight sweep:\n");
        if (h)
            fprintf (f, "%s%-24s %5s %16s %16s %16s %16s %7s\n", h, "policy",
                     "runs", "jobE_GJ", "sysE_GJ", "resp_h", "wait_h",
                     "killed");
        fprintf (f, "%-24s %5zu", s->label, s->n);
        print_msd (f, s->job_energy_j / 1e9, s->job_energy_sd / 1e9, 2, false);
        print_msd (f, s->system_energy_j / 1e9, s->system_energy_sd / 1e9, 2,
                   false);
        print_msd (f, s->response_s / 3600, s->response_sd / 3600, 3, false);
        print_msd (f, s->wait_s / 3600, s->wait_sd / 3600, 3, false);
        fprintf (f, " %7.1f\n", s->killed);
    }
}

void
seedruns_print_versus (FILE *f, const char *ref, const ms_seedpair_t *pr,
                       size_t n)
{
    fprintf (f, "against %s, paired seed by seed (mean \xc2\xb1 sd of the "
                "differences, %%):\n",
             ref);
    for (size_t i = 0; i < n; i++) {
        const ms_seedpair_t *p = &pr[i];
        const char *h = heading (i, i ? pr[i - 1].group : "", p->group,
                                 "metasched energy-weight sweep:\n");
        if (h)
            fprintf (f, "%s%-24s %5s %16s %16s %11s\n", h, "policy", "seeds",
                     "dJobE%", "dResp%", "both_lower");
        fprintf (f, "%-24s %5zu", p->label, p->n);
        print_msd (f, p->d_energy, p->d_energy_sd, 2, true);
        print_msd (f, p->d_response, p->d_response_sd, 2, true);
        fprintf (f, " %7zu/%zu\n", p->both_lower, p->n);
    }
}

void
seedruns_csv_runs (FILE *f, const ms_seedruns_t *r)
{
    fprintf (f, "seed,group,policy,job_energy_j,system_energy_j,"
                "mean_response_s,mean_wait_s,killed\n");
    for (size_t i = 0; i < r->nruns; i++) {
        const srun_t *x = &r->runs[i];
        fprintf (f, "%llu,%s,%s,%.6e,%.6e,%.3f,%.3f,%zu\n",
                 (unsigned long long)x->seed, r->keys[x->key].group,
                 r->keys[x->key].label, x->job_energy_j, x->system_energy_j,
                 x->response_s, x->wait_s, x->killed);
    }
}

/* A number for CSV, prec decimals (as an exponent where expo); empty
 * where there is none. */
static void
csv_num (FILE *f, int prec, bool expo, double v)
{
    fputc (',', f);
    if (isfinite (v))
        fprintf (f, expo ? "%.*e" : "%.*f", prec, v);
}

void
seedruns_csv_stats (FILE *f, const ms_seedstat_t *st, size_t n)
{
    fprintf (f, "group,policy,runs,job_energy_j,job_energy_sd,"
                "system_energy_j,system_energy_sd,mean_response_s,"
                "mean_response_sd,mean_wait_s,mean_wait_sd,killed\n");
    for (size_t i = 0; i < n; i++) {
        const ms_seedstat_t *s = &st[i];
        fprintf (f, "%s,%s,%zu", s->group, s->label, s->n);
        csv_num (f, 6, true, s->job_energy_j);
        csv_num (f, 6, true, s->job_energy_sd);
        csv_num (f, 6, true, s->system_energy_j);
        csv_num (f, 6, true, s->system_energy_sd);
        csv_num (f, 3, false, s->response_s);
        csv_num (f, 3, false, s->response_sd);
        csv_num (f, 3, false, s->wait_s);
        csv_num (f, 3, false, s->wait_sd);
        csv_num (f, 2, false, s->killed);
        fputc ('\n', f);
    }
}

void
seedruns_csv_versus_header (FILE *f)
{
    fprintf (f, "versus,group,policy,seeds,d_job_energy_pct,"
                "d_job_energy_sd,d_response_pct,d_response_sd,both_lower\n");
}

void
seedruns_csv_versus (FILE *f, const char *ref, const ms_seedpair_t *pr,
                     size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const ms_seedpair_t *p = &pr[i];
        fprintf (f, "%s,%s,%s,%zu", ref, p->group, p->label, p->n);
        csv_num (f, 4, false, p->d_energy);
        csv_num (f, 4, false, p->d_energy_sd);
        csv_num (f, 4, false, p->d_response);
        csv_num (f, 4, false, p->d_response_sd);
        fprintf (f, ",%zu\n", p->both_lower);
    }
}
