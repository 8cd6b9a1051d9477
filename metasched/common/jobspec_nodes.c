/* jobspec_nodes.c - --nodes as sbatch reads it (verify_node_count in
 * Slurm's src/common/proc_args.c): a count, a range MIN-MAX, or (Slurm
 * 23.02 on) a list of the sizes the job may run at. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_int.h"
#include "metasched/common/util.h"

#define NODES_MAX (1 << 20)
/* MAX_JOB_SIZE_BITMAP (slurm.h): a size is below it */
#define SIZE_LIST_MAX 16384

/* A count with an optional k or m (times 1024, 1024^2), blanks after
 * (_str_to_nodes); -1 with *okp true where v holds no number. */
static long
node_count (const char *v, bool *okp)
{
    char *end;
    long n;

    errno = 0;
    n = strtol (v, &end, 10);
    if (end == v) {
        while (isspace ((unsigned char)*v))
            v++;
        *okp = !*v;
        return -1;
    }
    if (*end == 'k' || *end == 'K')
        n = n > (1L << 21) ? (1L << 30) : n * 1024, end++;
    if (*end == 'm' || *end == 'M')
        n = n > 1 ? (1L << 30) : n * 1024 * 1024, end++;
    while (isspace ((unsigned char)*end))
        end++;
    *okp = !errno && !*end;
    return n;
}

/* A list of sizes (a ',' or ':' in it): numbers and ranges N-M[:STEP]
 * joined by ',', as Slurm's bit_unfmt reads them; *lo and *hi the least
 * and the most. */
static bool
size_list (const char *val, long *lo, long *hi)
{
    const char *p = val;

    *lo = SIZE_LIST_MAX;
    *hi = 0;
    for (;;) {
        char *end;
        long a, b, step = 1;

        errno = 0;
        a = strtol (p, &end, 10);
        if (end == p || !isdigit ((unsigned char)*p) || errno)
            return false;
        b = a;
        p = end;
        if (*p == '-') {
            p++;
            b = strtol (p, &end, 10);
            if (end == p || !isdigit ((unsigned char)*p) || errno || b < a)
                return false;
            p = end;
            if (*p == ':') {
                p++;
                step = strtol (p, &end, 10);
                if (end == p || step < 1)
                    return false;
                p = end;
            }
        }
        if (b >= SIZE_LIST_MAX)
            return false;
        if (a < *lo)
            *lo = a;
        b = a + (b - a) / step * step; /* the last size the step reaches */
        if (b > *hi)
            *hi = b;
        if (!*p)
            return true;
        if (*p != ',')
            return false;
        p++;
    }
}

int
jobspec_parse_nodes (ms_jobspec_t *s, const char *where, const char *val,
                     ms_error_t *errp)
{
    const char *dash = strchr (val, '-');
    long lo = 0, hi = 0;
    bool ok;

    if (strchr (val, ',') || strchr (val, ':')) {
        /* sizes: a moldable job that may run at these only; metasched
         * chooses one and sends it (every Slurm release takes one count) */
        if (!size_list (val, &lo, &hi) || lo < 1)
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--nodes=%.64s: \"%.64s\" is not a valid node "
                           "count (a list of sizes: N, N-M or N-M:STEP "
                           "joined by ',', each from 1 to %d)",
                           where, val, val, SIZE_LIST_MAX - 1);
        if (strlen (val) >= sizeof (s->nodes_list))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s--nodes=%.64s: a list of sizes longer than %zu "
                           "bytes",
                           where, val, sizeof (s->nodes_list) - 1);
        s->nodes = (int)lo;
        s->nodes_max = hi > lo ? (int)hi : 0;
        ms_strlcpy (s->nodes_list, s->nodes_max ? val : "",
                    sizeof (s->nodes_list));
        return 0;
    }
    s->nodes_list[0] = '\0';
    if (dash) {
        char minbuf[32];
        size_t n = (size_t)(dash - val);
        ok = n < sizeof (minbuf);
        if (ok) {
            memcpy (minbuf, val, n);
            minbuf[n] = '\0';
            lo = node_count (minbuf, &ok);
            if (lo < 0 && ok)
                lo = 1; /* no number before the '-' */
            hi = ok ? node_count (dash + 1, &ok) : 0;
        }
    } else {
        lo = hi = node_count (val, &ok);
    }
    if (!ok || lo < 1 || hi < lo || hi > NODES_MAX)
        return ms_err (errp, MS_ERR_INPUT,
                       "%s--nodes=%s: expected N or MIN-MAX, from 1 to %d, "
                       "or a list of sizes (N,N-M[:STEP],...)",
                       where, val, NODES_MAX);
    s->nodes = (int)lo;
    s->nodes_max = hi > lo ? (int)hi : 0;
    return 0;
}

/* The sizes as size_list reads them, n among them? */
bool
jobspec_nodes_in (const char *list, int n)
{
    const char *p = list;

    if (!list || !*list)
        return true;
    while (*p) {
        char *end;
        long a = strtol (p, &end, 10), b, step = 1;

        if (end == p)
            return false;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol (p + 1, &end, 10);
            p = end;
            if (*p == ':') {
                step = strtol (p + 1, &end, 10);
                p = end;
            }
        }
        if (step >= 1 && n >= a && n <= b && (n - a) % step == 0)
            return true;
        if (*p == ',')
            p++;
        else if (*p)
            return false;
    }
    return false;
}
