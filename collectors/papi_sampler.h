/* papi_sampler.h - hardware and software counters of a job's process tree.
 *
 * The sampler counts a configured list of events for one process and
 * every process it starts (counters inherited to children), from its exec
 * to the end of the tree. Events go through PAPI; a perf software event
 * (perf::TASK-CLOCK, ...) that PAPI cannot provide (its perf_event
 * component is disabled where libpfm knows no PMU, as in many VMs) is read
 * straight from the kernel's perf_event interface. An event neither can
 * count is recorded as unavailable with the reason. Nothing here fails the
 * job: the worst case is a run with every event unavailable.
 */
#ifndef MS_PAPI_SAMPLER_H
#define MS_PAPI_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* cycles and instructions give CPI; last-level cache misses approximate
 * memory transactions for TPI (doc/architecture.md "Frequency model"); the perf
 * software events work on any Linux. */
#define PAPI_SAMPLER_DEFAULT_EVENTS                                          \
    "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,perf::TASK-CLOCK,"                \
    "perf::CONTEXT-SWITCHES,perf::PAGE-FAULTS"
#define PAPI_SAMPLER_MAX_EVENTS 16

typedef struct {
    char name[64];
    bool available;
    char backend[16];     /* "papi" or "perf_event" when available */
    long long value;      /* after papi_sampler_stop */
    char why[192];        /* when unavailable */
} papi_event_t;

typedef struct papi_sampler papi_sampler_t;

/* Parse a comma-separated event list (NULL: the default). Never fails;
 * names that are not plausible event names are recorded unavailable. */
papi_sampler_t *papi_sampler_new (const char *events);
void papi_sampler_free (papi_sampler_t *s);

/* Set up counting of pid and its future children. Call while pid is
 * stopped before its exec (the wrapper's child waits on a pipe): counting
 * starts at its exec. Returns the number of events that will be counted. */
int papi_sampler_attach (papi_sampler_t *s, pid_t pid);
/* After the process tree has ended (pid reaped): read the totals. */
void papi_sampler_stop (papi_sampler_t *s);

size_t papi_sampler_nevents (const papi_sampler_t *s);
const papi_event_t *papi_sampler_event (const papi_sampler_t *s, size_t i);
/* Value of a counted event by name; false when unavailable. */
bool papi_sampler_value (const papi_sampler_t *s, const char *name,
                         long long *v);
/* Why PAPI as a whole could not count (empty when it could). */
const char *papi_sampler_note (const papi_sampler_t *s);

#endif /* MS_PAPI_SAMPLER_H */
