/* counters.c - the wrapper's counter file, written by the job's user and
 * read by the root epilog: everything in it is checked, and the JSON of the
 * counters is built here from validated names and numbers, never copied. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collect.h"
#include "metasched/common/util.h"

/* Which events stand for cycles, instructions and memory transactions
 * (TPI, doc/architecture.md "Frequency model"), first match wins. */
static const char *const cycles_events[] = { "PAPI_TOT_CYC", "perf::CYCLES",
                                             "perf::CPU-CYCLES", NULL };
static const char *const instr_events[] = { "PAPI_TOT_INS",
                                            "perf::INSTRUCTIONS", NULL };
static const char *const mem_events[] = { "PAPI_L3_TCM", "PAPI_L3_LDM",
                                          "perf::LLC-LOAD-MISSES",
                                          "perf::CACHE-MISSES", NULL };

void
collect_counters_init (collect_counters_t *k)
{
    memset (k, 0, sizeof (*k));
    k->exit_code = -1;
    k->cycles = k->instructions = k->mem_transactions = -1;
    k->user_pkg_j = k->user_dram_j = -1;
    k->maxrss_kb = -1;
    strcpy (k->counters_json, "{}");
}

/* counters_json "{"A": 1, "B": 2}" -> event.A=1 ... (it was built by
 * collect_wrap from names the sampler accepted, so a simple scan does). */
spool_rec_t *
collect_counters_to_rec (const collect_counters_t *k)
{
    spool_rec_t *r = spool_rec_new ("counters");
    const char *p = k->counters_json;

    if (k->app[0])
        spool_rec_set (r, "app", k->app);
    spool_rec_setf (r, "start", "%.6f", k->start_time);
    spool_rec_setf (r, "end", "%.6f", k->end_time);
    if (k->has_exit) {
        spool_rec_setf (r, "exit", "%d", k->exit_code);
        spool_rec_setf (r, "signal", "%d", k->term_signal);
    }
    spool_rec_setf (r, "utime_s", "%.6f", k->utime_s);
    spool_rec_setf (r, "stime_s", "%.6f", k->stime_s);
    if (k->maxrss_kb >= 0)
        spool_rec_setf (r, "maxrss_kb", "%ld", k->maxrss_kb);
    if (k->user_pkg_j >= 0)
        spool_rec_setf (r, "user_pkg_j", "%.6f", k->user_pkg_j);
    if (k->user_dram_j >= 0)
        spool_rec_setf (r, "user_dram_j", "%.6f", k->user_dram_j);
    if (k->freq_req_khz)
        spool_rec_setf (r, "freq_req_khz", "%u", k->freq_req_khz);
    if (k->gate[0]) {
        spool_rec_set (r, "gate", k->gate);
        if (k->gate_job_id)
            spool_rec_setf (r, "gate_job", "%llu",
                            (unsigned long long)k->gate_job_id);
    }
    if (k->note[0])
        spool_rec_set (r, "note", k->note);
    while ((p = strchr (p, '"'))) {
        const char *q = strchr (p + 1, '"');
        char key[80];
        long long v;
        if (!q || (size_t)(q - p - 1) > 60)
            break;
        snprintf (key, sizeof (key), "event.%.*s", (int)(q - p - 1), p + 1);
        if (sscanf (q + 1, ": %lld", &v) == 1)
            spool_rec_setf (r, key, "%lld", v);
        p = q + 1;
    }
    if (k->events_unavailable[0]) {
        char *list = ms_xstrdup (k->events_unavailable), *save = NULL;
        for (char *t = strtok_r (list, ",", &save); t;
             t = strtok_r (NULL, ",", &save)) {
            char key[80];
            snprintf (key, sizeof (key), "unavailable.%.60s", t);
            spool_rec_set (r, key, "unavailable");
        }
        free (list);
    }
    return r;
}

static bool
event_name_ok (const char *s)
{
    size_t n = strlen (s);
    return n > 0 && n <= 60; /* spool keys already restrict the alphabet */
}

static void
list_add (char *list, size_t size, const char *name)
{
    size_t l = strlen (list);
    if (l + strlen (name) + 2 > size)
        return;
    snprintf (list + l, size - l, "%s%s", l ? "," : "", name);
}

bool
collect_app_name_ok (const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen (s);

    if (n == 0 || n > 128 || s[0] == ' ' || s[n - 1] == ' ')
        return false;
    while (*p) {
        int more = 0;
        if (*p < 0x20 || *p == 0x7f)
            return false;
        if (*p >= 0x80) {
            if (*p >= 0xc2 && *p <= 0xdf)
                more = 1;
            else if (*p >= 0xe0 && *p <= 0xef)
                more = 2;
            else if (*p >= 0xf0 && *p <= 0xf4)
                more = 3;
            else
                return false;
        }
        p++;
        for (; more > 0; more--, p++)
            if ((*p & 0xc0) != 0x80)
                return false;
    }
    return true;
}

int
collect_counters_from_rec (const spool_rec_t *rec, collect_counters_t *k,
                           ms_error_t *errp)
{
    const char *name = spool_rec_name (rec), *s;
    int64_t i64;
    uint64_t u64;
    size_t jl;

    collect_counters_init (k);
    if (strcmp (spool_rec_kind (rec), "counters"))
        return ms_err (errp, MS_ERR_INPUT, "%s: not a counter file", name);
    if ((s = spool_rec_get (rec, "app"))) {
        if (!collect_app_name_ok (s))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s: app: expected 1 to 128 bytes of UTF-8 without "
                           "control characters or spaces at either end",
                           name);
        ms_strlcpy (k->app, s, sizeof (k->app));
    }
    if (spool_rec_get_double (rec, "start", &k->start_time, errp) < 0
        || spool_rec_get_double (rec, "end", &k->end_time, errp) < 0
        || spool_rec_get_double (rec, "utime_s", &k->utime_s, errp) < 0
        || spool_rec_get_double (rec, "stime_s", &k->stime_s, errp) < 0
        || spool_rec_get_double (rec, "user_pkg_j", &k->user_pkg_j, errp) < 0
        || spool_rec_get_double (rec, "user_dram_j", &k->user_dram_j, errp) < 0)
        return -1;
    if (k->start_time < 0 || k->end_time < k->start_time
        || k->end_time > 1e11 || k->end_time - k->start_time >= 1e9)
        return ms_err (errp, MS_ERR_INPUT, "%s: start/end out of order", name);
    if (k->utime_s < 0 || k->stime_s < 0 || k->utime_s > 1e10
        || k->stime_s > 1e10)
        return ms_err (errp, MS_ERR_INPUT, "%s: negative CPU time", name);
    if (k->user_pkg_j > 1e15 || k->user_dram_j > 1e15)
        return ms_err (errp, MS_ERR_INPUT, "%s: energy out of range", name);
    switch (spool_rec_get_i64 (rec, "exit", &i64, errp)) {
    case -1:
        return -1;
    case 1:
        if (i64 < -1 || i64 > 255)
            return ms_err (errp, MS_ERR_INPUT, "%s: exit: not a status", name);
        k->has_exit = true;
        k->exit_code = (int)i64;
        break;
    }
    if (spool_rec_get_i64 (rec, "signal", &i64, errp) < 0)
        return -1;
    else if (spool_rec_get (rec, "signal")) {
        if (i64 < 0 || i64 > 128)
            return ms_err (errp, MS_ERR_INPUT, "%s: signal: out of range",
                           name);
        k->term_signal = (int)i64;
    }
    if (spool_rec_get_i64 (rec, "maxrss_kb", &i64, errp) < 0)
        return -1;
    else if (spool_rec_get (rec, "maxrss_kb"))
        k->maxrss_kb = i64 < 0 ? -1 : (long)i64;
    switch (spool_rec_get_u64 (rec, "freq_req_khz", &u64, errp)) {
    case -1:
        return -1;
    case 1:
        if (u64 == 0 || u64 > 100000000)
            return ms_err (errp, MS_ERR_INPUT, "%s: freq_req_khz: out of range",
                           name);
        k->freq_req_khz = (uint32_t)u64;
        break;
    }
    /* the start gate's word: the command did not run (an unknown value
     * rejects the file, and the epilog then records a normal run) */
    if ((s = spool_rec_get (rec, "gate"))) {
        if (strcmp (s, "lost") && strcmp (s, "refused"))
            return ms_err (errp, MS_ERR_INPUT,
                           "%s: gate: '%.20s': expected lost or refused", name,
                           s);
        ms_strlcpy (k->gate, s, sizeof (k->gate));
    }
    if (spool_rec_get_u64 (rec, "gate_job", &k->gate_job_id, errp) < 0)
        return -1;
    /* the wrapper's note: free text (printable, one line, as every spool
     * value), cut to the field; it is only ever logged as the user's word */
    if ((s = spool_rec_get (rec, "note")))
        ms_strlcpy (k->note, s, sizeof (k->note));
    /* events: build the JSON from validated names and numbers */
    jl = (size_t)snprintf (k->counters_json, sizeof (k->counters_json), "{");
    for (size_t i = 0; i < spool_rec_count (rec); i++) {
        const char *key = spool_rec_key (rec, i);
        if (!strncmp (key, "event.", 6)) {
            const char *ev = key + 6;
            if (!event_name_ok (ev))
                return ms_err (errp, MS_ERR_INPUT, "%s: %s: bad event name",
                               name, key);
            if (spool_rec_get_i64 (rec, key, &i64, errp) < 0)
                return -1;
            if (i64 < 0)
                return ms_err (errp, MS_ERR_INPUT, "%s: %s: negative count",
                               name, key);
            if (jl + strlen (ev) + 32 < sizeof (k->counters_json))
                jl += (size_t)snprintf (k->counters_json + jl,
                                        sizeof (k->counters_json) - jl,
                                        "%s\"%s\": %lld", jl > 1 ? ", " : "",
                                        ev, (long long)i64);
            list_add (k->events_used, sizeof (k->events_used), ev);
            for (int c = 0; cycles_events[c]; c++)
                if (!strcmp (ev, cycles_events[c]) && k->cycles < 0)
                    k->cycles = i64;
            for (int c = 0; instr_events[c]; c++)
                if (!strcmp (ev, instr_events[c]) && k->instructions < 0)
                    k->instructions = i64;
            for (int c = 0; mem_events[c]; c++)
                if (!strcmp (ev, mem_events[c]) && k->mem_transactions < 0)
                    k->mem_transactions = i64;
        } else if (!strncmp (key, "unavailable.", 12)) {
            if (!event_name_ok (key + 12))
                return ms_err (errp, MS_ERR_INPUT, "%s: %s: bad event name",
                               name, key);
            list_add (k->events_unavailable, sizeof (k->events_unavailable),
                      key + 12);
        }
    }
    snprintf (k->counters_json + jl, sizeof (k->counters_json) - jl, "}");
    return 0;
}
