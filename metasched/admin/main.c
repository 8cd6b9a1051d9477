/* main.c - the metasched program: one entry point for the admin commands.
 * The same file is the main() of metasched-full, which has every command;
 * `metasched` has simulate and runs the others in metasched-full
 * (fullexec.c). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "metasched/admin/commands.h"
#include "metasched/common/util.h"

char **ms_cmdline;

static const struct {
    const char *name;
    int (*fn) (int argc, char **argv);
    const char *summary;
} commands[] = {
    { "simulate", cmd_simulate,
      "replay a workload through every policy on modelled clusters" },
    { "model", cmd_model, "fit, show and evaluate time/power/energy models" },
    { "clusters", cmd_clusters,
      "show the configured clusters and ask each for its state" },
    { "db", cmd_db,
      "migrate the database, sync clusters, fit models from job_runs" },
    { "collect", cmd_collect,
      "send spooled measurements, ingest Slurm accounting" },
    { "config", cmd_config,
      "show and change metaschedd's scheduling settings (admins)" },
    { "report", cmd_report,
      "energy used and saved, prediction error over time" },
    { "job", cmd_job, "resolve an unknown job: how it ended (admins)" },
};

static void
usage (FILE *f)
{
    fprintf (f, "Usage: metasched COMMAND [OPTIONS]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof (commands) / sizeof (commands[0]); i++)
        fprintf (f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf (f, "\n'metasched COMMAND --help' describes one command.\n"
                "With no command, metasched runs 'simulate' on its embedded "
                "default workload.\n");
}

/* A simulation runs every policy in turn, each allocating and freeing
 * the same large arrays (its jobs, entries, the clusters' queues): kept
 * in the heap instead of mapped and unmapped by each run, they are not
 * faulted in again by the next (the full KTH table took 97,000 page
 * faults, now 12,000; doc/evaluation.md, "Speed"). Arrays over 32 MiB
 * (a million-job trace's) are still mapped and returned at once, and
 * the heap gives back what is free over 64 MiB, so the peak memory does
 * not grow. The other commands keep glibc's defaults.
 *
 * The heap then grows by 64 MiB at a time, and the first 64 MiB are
 * given to transparent huge pages where the kernel offers them
 * (MADV_HUGEPAGE; nothing changes where it does not): a run touches its
 * arrays in 2 MiB pages instead of 4 KiB ones, a fault each instead of
 * 512 (KTH-SP2 with -p base: 4,200 page faults, 700 with them). The
 * memory used is what is touched, in 2 MiB steps.
 *
 * A 2 MiB page is only given where none of its 4 KiB ones was touched
 * before the advice. So the heap is grown by an allocation one byte
 * larger than its top, which malloc writes at the old top only, and the
 * allocations after the advice start at the first 2 MiB boundary: that
 * allocation is grown to it, and neither touched nor freed after.
 * (Growing it by 1 MiB wrote the new top's header 1 MiB on, often in
 * the first 2 MiB page, and the heap's first 2 to 4 MiB went to 4 KiB
 * pages: 300 to 700 page faults of KTH-SP2 with -p base, now 180 in all.) */
#ifdef __GLIBC__
/* kept, and read by no one: volatile, or the compiler drops the
 * allocation; reachable, so a leak check does not count it */
static void *volatile heap_spacer;
#endif

static void
simulate_memory (void)
{
#ifdef __GLIBC__
    const uintptr_t huge = 2 << 20;
    uintptr_t lo, hi;
    void *first;

    mallopt (M_MMAP_THRESHOLD, 32 << 20);
    mallopt (M_TRIM_THRESHOLD, 64 << 20);
    mallopt (M_TOP_PAD, 64 << 20);
    lo = (uintptr_t)sbrk (0);
    /* larger than the top: the heap grows by the pad, written at lo's
     * page alone */
    if (!(first = malloc (mallinfo2 ().keepcost + 1)))
        return;
    hi = (uintptr_t)sbrk (0);
    lo = (lo + 4096 + huge - 1) & ~(huge - 1);
    hi &= ~(huge - 1);
    if (hi <= lo || (uintptr_t)first > lo) {
        free (first);
        return;
    }
    (void)madvise ((void *)lo, hi - lo, MADV_HUGEPAGE);
    /* first, grown in place to the first 2 MiB boundary (the top that
     * follows it): the next allocation starts there */
    heap_spacer = realloc (first, lo - (uintptr_t)first);
#endif
}

int
main (int argc, char **argv)
{
    if (argc < 2 || !strcmp (argv[1], "simulate"))
        simulate_memory ();
    /* as given: the commands' option parsers reorder argv */
    ms_cmdline = ms_xmalloc (((size_t)argc + 1) * sizeof (*ms_cmdline));
    memcpy (ms_cmdline, argv, ((size_t)argc + 1) * sizeof (*ms_cmdline));
    if (argc < 2)
        return cmd_simulate (1, (char *[]){ "simulate", NULL });
    if (!strcmp (argv[1], "-h") || !strcmp (argv[1], "--help")
        || !strcmp (argv[1], "help")) {
        usage (stdout);
        return 0;
    }
    if (!strcmp (argv[1], "-V") || !strcmp (argv[1], "--version")) {
        printf ("metasched %s\n", PACKAGE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof (commands) / sizeof (commands[0]); i++)
        if (!strcmp (argv[1], commands[i].name))
            return commands[i].fn (argc - 1, argv + 1);
    fprintf (stderr, "metasched: unknown command '%s'\n", argv[1]);
    usage (stderr);
    return 2;
}
