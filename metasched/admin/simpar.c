/* simpar.c - a table's runs on several processes (simpar.h). Each run of
 * `metasched simulate` is a whole simulation that reads the workload,
 * the clusters and the predictions and writes only its own records and
 * row, so runs are independent: forked workers share the set-up pages
 * copy-on-write and write their rows into one shared mapping. Processes
 * rather than threads, so that nothing a run keeps in static storage or
 * in the allocator is shared, and a run is the same computation as in a
 * single process.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metasched/admin/simpar.h"

#define SIMPAR_MAX_WORKERS 256

/* What the processes share: the next run to take and each run's state. */
typedef struct {
    size_t next;
    size_t n, size;
} simpar_head_t;

typedef struct {
    int state; /* 0 not run, 1 done, -1 failed */
    ms_error_t err;
} simpar_slot_t;

size_t
simpar_default_workers (void)
{
    cpu_set_t set;

    CPU_ZERO (&set);
    if (sched_getaffinity (0, sizeof (set), &set) == 0 && CPU_COUNT (&set) > 0)
        return (size_t)CPU_COUNT (&set);
    return 1;
}

static simpar_slot_t *
slot_at (simpar_head_t *h, size_t i)
{
    return (simpar_slot_t *)((char *)(h + 1) + i * sizeof (simpar_slot_t));
}

static void *
out_at (simpar_head_t *h, size_t i)
{
    return (char *)slot_at (h, h->n) + i * h->size;
}

/* Take runs until none is left or one fails; 0 or -1. */
static int
work (simpar_head_t *h, simpar_fn fn, void *arg)
{
    size_t i;

    while ((i = __atomic_fetch_add (&h->next, 1, __ATOMIC_SEQ_CST)) < h->n) {
        simpar_slot_t *s = slot_at (h, i);
        if (fn (arg, i, out_at (h, i), &s->err) < 0) {
            __atomic_store_n (&s->state, -1, __ATOMIC_SEQ_CST);
            /* the others take nothing more */
            __atomic_store_n (&h->next, h->n, __ATOMIC_SEQ_CST);
            return -1;
        }
        __atomic_store_n (&s->state, 1, __ATOMIC_SEQ_CST);
    }
    return 0;
}

static int
serial (size_t n, size_t size, simpar_fn fn, void *arg, void *outs,
        ms_error_t *errp)
{
    for (size_t i = 0; i < n; i++) {
        void *out = (char *)outs + i * size;
        memset (out, 0, size);
        if (fn (arg, i, out, errp) < 0)
            return -1;
    }
    return 0;
}

/* The heap's free top moved to the next 2 MiB boundary before the fork;
 * what holds the space below it (to free once the workers are done), or
 * NULL. A page the parent touched is shared after the fork, and the
 * first write to it in either process copies it, 4 KiB at a time (its
 * 2 MiB page split): each run's arrays, taken from the top after the
 * fork, then start in a 2 MiB page that no process touched (KTH-SP2 -p
 * eamc_reorder: 650 page faults, 445 so). malloc writes the new top's
 * header in the 16 bytes below the boundary, in the last page the parent
 * touched. Where it takes the space from its free lists instead, nothing
 * moves. */
static void *
fork_top (void)
{
#ifdef __GLIBC__
    const uintptr_t huge = 2 << 20;
    uintptr_t end = (uintptr_t)sbrk (0), top, b;
    size_t keep = mallinfo2 ().keepcost;

    if (end == (uintptr_t)-1 || keep > end)
        return NULL;
    top = end - keep;
    b = ((top + 4096 + huge - 1) & ~(huge - 1)) - 16;
    if (b + 4096 > end)
        return NULL;
    return malloc (b - top - 16);
#else
    return NULL;
#endif
}

/* Wait for the workers; the first one that did not exit cleanly. */
static int
reap (const pid_t *pids, size_t n, ms_error_t *errp)
{
    int rc = 0;

    for (size_t k = 0; k < n; k++) {
        int st;
        pid_t p;
        while ((p = waitpid (pids[k], &st, 0)) < 0 && errno == EINTR)
            ;
        if (p < 0 && rc == 0)
            rc = ms_err (errp, MS_ERR_SYSTEM, "worker %zu: waitpid: %s", k + 1,
                         strerror (errno));
        else if (p >= 0 && WIFSIGNALED (st) && rc == 0)
            rc = ms_err (errp, MS_ERR_SYSTEM,
                         "worker %zu (pid %ld) ended by signal %d (%s)", k + 1,
                         (long)pids[k], WTERMSIG (st),
                         strsignal (WTERMSIG (st)));
    }
    return rc;
}

int
simpar_run (size_t n, size_t workers, size_t size, simpar_fn fn, void *arg,
            void *outs, ms_error_t *errp)
{
    pid_t pids[SIMPAR_MAX_WORKERS];
    size_t nkids = 0, len;
    simpar_head_t *h;
    void *spacer;
    int rc = 0;

    if (workers > n)
        workers = n;
    if (workers > SIMPAR_MAX_WORKERS)
        workers = SIMPAR_MAX_WORKERS;
    if (workers <= 1)
        return serial (n, size, fn, arg, outs, errp);
    len = sizeof (*h) + n * (sizeof (simpar_slot_t) + size);
    h = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
              0);
    if (h == MAP_FAILED)
        return ms_err (errp, MS_ERR_SYSTEM, "mmap of %zu bytes: %s", len,
                       strerror (errno));
    h->n = n;
    h->size = size;
    /* what stdio holds is written once, not once per process */
    fflush (NULL);
    spacer = fork_top ();
    for (size_t k = 1; k < workers; k++) {
        pid_t p = fork ();
        if (p == 0)
            _exit (work (h, fn, arg) < 0 ? 1 : 0);
        if (p < 0) {
            /* fewer workers: the runs are still all taken */
            ms_err (errp, MS_ERR_SYSTEM, "fork: %s", strerror (errno));
            break;
        }
        pids[nkids++] = p;
    }
    work (h, fn, arg);
    if (reap (pids, nkids, errp) < 0)
        rc = -1;
    free (spacer);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        simpar_slot_t *s = slot_at (h, i);
        if (s->state < 0) {
            *errp = s->err;
            rc = -1;
        } else if (s->state == 0)
            rc = ms_err (errp, MS_ERR_SYSTEM, "run %zu of %zu was not run",
                         i + 1, n);
    }
    if (rc == 0)
        memcpy (outs, out_at (h, 0), n * size);
    munmap (h, len);
    return rc;
}
