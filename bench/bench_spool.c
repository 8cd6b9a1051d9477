/* bench_spool.c - what the spool's cap costs a job end: rows written with
 * collect_spool_row into a spool already at its cap (default 20,000
 * files), so that each write scans the spool, drops the oldest file,
 * counts it in SPOOL/dropped and writes the row (synced). Prints the
 * median and the largest time per row, beside the same writes into an
 * empty spool with no drop.
 *
 * Usage: bench_spool [FILES_AT_CAP [ROWS]] */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/collect.h"
#include "collectors/log.h"

static double
now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void
quiet (int prio, const char *line, void *arg)
{
    (void)prio;
    (void)line;
    (void)arg;
}

/* Write rows ids first.. into c's spool; t[i] the seconds of each. */
static int
write_rows (const collect_conf_t *c, uint64_t first, int rows, double *t)
{
    db_job_run_t r;
    ms_error_t e;

    db_job_run_init (&r);
    strcpy (r.cluster, "bench");
    strcpy (r.partition, "p");
    strcpy (r.node, "n1");
    strcpy (r.app, "app");
    strcpy (r.user_name, "u");
    strcpy (r.source, "root-measured");
    strcpy (r.collector_version, "bench");
    r.nodes = 1;
    r.start_time = 1;
    r.end_time = 2;
    r.runtime_s = 1;
    for (int i = 0; i < rows; i++) {
        double t0 = now ();
        r.slurm_job_id = first + (uint64_t)i;
        if (collect_spool_row (c, &r, &e) < 0) {
            fprintf (stderr, "bench_spool: %s\n", e.text);
            return -1;
        }
        t[i] = now () - t0;
    }
    qsort (t, (size_t)rows, sizeof (*t), cmp);
    return 0;
}

int
main (int argc, char **argv)
{
    int files = argc > 1 ? atoi (argv[1]) : 20000;
    int rows = argc > 2 ? atoi (argv[2]) : 200;
    char dir[] = "/tmp/ms-bench-spool-XXXXXX", cmd[128], n[32];
    collect_conf_t c;
    collect_drops_t d;
    ms_error_t e;
    double *t, t0;
    int rc = 1;

    if (files < 1 || rows < 1) {
        fprintf (stderr, "usage: bench_spool [FILES_AT_CAP [ROWS]]\n");
        return 2;
    }
    if (!mkdtemp (dir)) {
        perror ("mkdtemp");
        return 1;
    }
    t = calloc ((size_t)rows, sizeof (*t));
    collect_log_capture (quiet, NULL);
    collect_conf_defaults (&c);
    snprintf (n, sizeof (n), "%d", files);
    if (collect_conf_set (&c, "spool_dir", dir, &e) < 0
        || collect_conf_set (&c, "spool_max_files", n, &e) < 0) {
        fprintf (stderr, "bench_spool: %s\n", e.text);
        goto out;
    }
    /* below the cap: no drop */
    if (write_rows (&c, 1, rows, t) < 0)
        goto out;
    printf ("spool rows written (%d), each synced:\n", rows);
    printf ("  spool of %-6d files, no drop:  median %7.3f ms, max %7.3f ms\n",
            rows, t[rows / 2] * 1e3, t[rows - 1] * 1e3);
    /* fill to the cap */
    t0 = now ();
    for (int i = rows; i < files; i++) {
        char path[128];
        FILE *f;
        snprintf (path, sizeof (path), "%s/bench.%d.n1.root.run", dir,
                  1000000 + i);
        if (!(f = fopen (path, "w")))
            goto out;
        fputs ("metasched-spool 1 job_run\ncluster=bench\nend\n", f);
        fclose (f);
    }
    printf ("  (filled to %d files in %.1f s)\n", files, now () - t0);
    if (write_rows (&c, 2000000, rows, t) < 0)
        goto out;
    printf ("  spool at its cap of %-6d files, one drop each: median %7.3f "
            "ms, max %7.3f ms\n",
            files, t[rows / 2] * 1e3, t[rows - 1] * 1e3);
    if (collect_drops_read (&c, &d, &e) == 0)
        printf ("  dropped and counted: %llu rows (SPOOL/dropped)\n",
                (unsigned long long)d.rows);
    rc = 0;
out:
    collect_log_capture (NULL, NULL);
    free (t);
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        rc = 1;
    return rc;
}
