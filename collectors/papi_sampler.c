/* papi_sampler.c - counters of a process tree through PAPI, with the
 * kernel's perf software events where PAPI cannot provide them. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/papi_sampler.h"
#include "metasched/common/util.h"

struct papi_sampler {
    papi_event_t ev[PAPI_SAMPLER_MAX_EVENTS];
    size_t n;
    int papi_slot[PAPI_SAMPLER_MAX_EVENTS]; /* index in the event set, -1 */
    int perf_fd[PAPI_SAMPLER_MAX_EVENTS];   /* perf_event fd, -1 */
    int eventset;
    int npapi;
    bool papi_running;
    char note[256];
};

/* perf software events by their libpfm names (perf::NAME). */
static const struct {
    const char *name;
    uint64_t config;
} perf_sw[] = {
    { "perf::TASK-CLOCK", PERF_COUNT_SW_TASK_CLOCK },
    { "perf::CPU-CLOCK", PERF_COUNT_SW_CPU_CLOCK },
    { "perf::CONTEXT-SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES },
    { "perf::CPU-MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS },
    { "perf::PAGE-FAULTS", PERF_COUNT_SW_PAGE_FAULTS },
    { "perf::MINOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MIN },
    { "perf::MAJOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

static bool
plausible_name (const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!(isalnum ((unsigned char)*s) || strchr ("_:.-=", *s)))
            return false;
    return true;
}

papi_sampler_t *
papi_sampler_new (const char *events)
{
    papi_sampler_t *s = ms_xcalloc (1, sizeof (*s));
    char *list = ms_xstrdup (events ? events : PAPI_SAMPLER_DEFAULT_EVENTS);
    char *save = NULL;

    s->eventset = PAPI_NULL;
    for (char *t = strtok_r (list, ", ", &save); t && s->n < PAPI_SAMPLER_MAX_EVENTS;
         t = strtok_r (NULL, ", ", &save)) {
        papi_event_t *e = &s->ev[s->n];
        ms_strlcpy (e->name, t, sizeof (e->name));
        if (!plausible_name (e->name))
            snprintf (e->why, sizeof (e->why), "not an event name");
        s->papi_slot[s->n] = -1;
        s->perf_fd[s->n] = -1;
        s->n++;
    }
    free (list);
    return s;
}

void
papi_sampler_free (papi_sampler_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (s->perf_fd[i] >= 0)
            close (s->perf_fd[i]);
    if (s->eventset != PAPI_NULL) {
        long long junk[PAPI_SAMPLER_MAX_EVENTS];
        if (s->papi_running)
            PAPI_stop (s->eventset, junk);
        PAPI_cleanup_eventset (s->eventset);
        PAPI_destroy_eventset (&s->eventset);
    }
    if (PAPI_is_initialized () != PAPI_NOT_INITED)
        PAPI_shutdown ();
    free (s);
}

static int
perf_open (uint64_t config, pid_t pid)
{
    struct perf_event_attr attr;
    int fd;

    memset (&attr, 0, sizeof (attr));
    attr.size = sizeof (attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = config;
    attr.disabled = 1;
    attr.enable_on_exec = 1; /* the command only, not the wrapper's fork */
    attr.inherit = 1;        /* and every process it starts */
    attr.exclude_hv = 1;
    fd = (int)syscall (SYS_perf_event_open, &attr, pid, -1, -1,
                       PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        /* perf_event_paranoid >= 2: users may count user space only */
        attr.exclude_kernel = 1;
        fd = (int)syscall (SYS_perf_event_open, &attr, pid, -1, -1,
                           PERF_FLAG_FD_CLOEXEC);
    }
    return fd;
}

/* Set up the PAPI event set on pid; false (with s->note) if PAPI as a
 * whole cannot count here. */
static bool
papi_setup (papi_sampler_t *s, pid_t pid)
{
    int rc, cidx;
    const PAPI_component_info_t *ci;
    PAPI_option_t opt;

    if (PAPI_is_initialized () == PAPI_NOT_INITED
        && (rc = PAPI_library_init (PAPI_VER_CURRENT)) != PAPI_VER_CURRENT) {
        snprintf (s->note, sizeof (s->note), "PAPI_library_init: %s",
                  rc > 0 ? "version mismatch" : PAPI_strerror (rc));
        return false;
    }
    cidx = PAPI_get_component_index ("perf_event");
    ci = cidx >= 0 ? PAPI_get_component_info (cidx) : NULL;
    if (!ci) {
        snprintf (s->note, sizeof (s->note),
                  "PAPI has no perf_event component");
        return false;
    }
    if (ci->disabled) {
        snprintf (s->note, sizeof (s->note),
                  "PAPI perf_event component disabled: %.180s",
                  ci->disabled_reason);
        return false;
    }
    if ((rc = PAPI_create_eventset (&s->eventset)) != PAPI_OK
        || (rc = PAPI_assign_eventset_component (s->eventset, cidx)) != PAPI_OK
        || (rc = PAPI_attach (s->eventset, (unsigned long)pid)) != PAPI_OK) {
        snprintf (s->note, sizeof (s->note), "PAPI event set on pid %ld: %s",
                  (long)pid, PAPI_strerror (rc));
        return false;
    }
    memset (&opt, 0, sizeof (opt));
    opt.inherit.eventset = s->eventset;
    opt.inherit.inherit = PAPI_INHERIT_ALL;
    if ((rc = PAPI_set_opt (PAPI_INHERIT, &opt)) != PAPI_OK) {
        snprintf (s->note, sizeof (s->note),
                  "PAPI cannot inherit counters to children: %s",
                  PAPI_strerror (rc));
        return false;
    }
    return true;
}

int
papi_sampler_attach (papi_sampler_t *s, pid_t pid)
{
    bool papi_ok = papi_setup (s, pid);
    int counted = 0;

    for (size_t i = 0; i < s->n; i++) {
        papi_event_t *e = &s->ev[i];
        int code, rc = PAPI_ENOEVNT;

        if (e->why[0])
            continue; /* not an event name */
        if (papi_ok && (rc = PAPI_event_name_to_code (e->name, &code)) == PAPI_OK
            && (rc = PAPI_add_event (s->eventset, code)) == PAPI_OK) {
            s->papi_slot[i] = s->npapi++;
            e->available = true;
            ms_strlcpy (e->backend, "papi", sizeof (e->backend));
            counted++;
            continue;
        }
        for (size_t k = 0; k < sizeof (perf_sw) / sizeof (perf_sw[0]); k++) {
            if (strcmp (perf_sw[k].name, e->name))
                continue;
            if ((s->perf_fd[i] = perf_open (perf_sw[k].config, pid)) >= 0) {
                e->available = true;
                ms_strlcpy (e->backend, "perf_event", sizeof (e->backend));
                counted++;
            } else
                snprintf (e->why, sizeof (e->why), "perf_event_open: %s",
                          strerror (errno));
            break;
        }
        if (e->available || e->why[0])
            continue;
        if (!papi_ok)
            snprintf (e->why, sizeof (e->why), "%.180s", s->note);
        else
            snprintf (e->why, sizeof (e->why), "PAPI: %s", PAPI_strerror (rc));
    }
    if (s->npapi > 0) {
        int rc = PAPI_start (s->eventset);
        if (rc == PAPI_OK)
            s->papi_running = true;
        else {
            for (size_t i = 0; i < s->n; i++)
                if (s->papi_slot[i] >= 0) {
                    s->ev[i].available = false;
                    s->ev[i].backend[0] = '\0';
                    snprintf (s->ev[i].why, sizeof (s->ev[i].why),
                              "PAPI_start: %s", PAPI_strerror (rc));
                    counted--;
                }
        }
    }
    return counted;
}

void
papi_sampler_stop (papi_sampler_t *s)
{
    long long vals[PAPI_SAMPLER_MAX_EVENTS] = { 0 };
    bool papi_read = false;

    if (s->papi_running) {
        papi_read = PAPI_stop (s->eventset, vals) == PAPI_OK;
        s->papi_running = false;
    }
    for (size_t i = 0; i < s->n; i++) {
        papi_event_t *e = &s->ev[i];
        if (!e->available)
            continue;
        if (s->papi_slot[i] >= 0) {
            if (papi_read)
                e->value = vals[s->papi_slot[i]];
            else {
                e->available = false;
                snprintf (e->why, sizeof (e->why), "PAPI_stop failed");
            }
        } else if (s->perf_fd[i] >= 0) {
            uint64_t v;
            if (read (s->perf_fd[i], &v, sizeof (v)) == (ssize_t)sizeof (v))
                e->value = (long long)v;
            else {
                e->available = false;
                snprintf (e->why, sizeof (e->why), "perf_event read: %s",
                          strerror (errno));
            }
            close (s->perf_fd[i]);
            s->perf_fd[i] = -1;
        }
    }
}

size_t
papi_sampler_nevents (const papi_sampler_t *s)
{
    return s->n;
}

const papi_event_t *
papi_sampler_event (const papi_sampler_t *s, size_t i)
{
    return i < s->n ? &s->ev[i] : NULL;
}

bool
papi_sampler_value (const papi_sampler_t *s, const char *name, long long *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp (s->ev[i].name, name) && s->ev[i].available) {
            *v = s->ev[i].value;
            return true;
        }
    return false;
}

const char *
papi_sampler_note (const papi_sampler_t *s)
{
    return s->note;
}
