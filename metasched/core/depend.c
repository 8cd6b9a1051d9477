/* depend.c - does a job's --dependency hold (see depend.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "metasched/core/depend.h"

static const char *const depj_names[] = { "waiting", "running", "completed",
                                          "failed", "cancelled" };

ms_depj_state_t
depend_state (const char *s)
{
    if (!s)
        return DEPJ_WAITING;
    if (!strcmp (s, "running"))
        return DEPJ_RUNNING;
    if (!strcmp (s, "completed"))
        return DEPJ_COMPLETED;
    if (!strcmp (s, "failed"))
        return DEPJ_FAILED;
    if (!strcmp (s, "cancelled"))
        return DEPJ_CANCELLED;
    return DEPJ_WAITING; /* queued ... submitted, and lost (queued again) */
}

/* One condition on one job. */
static ms_dep_result_t
one (const ms_dep_t *c, int64_t self_id, const ms_dep_target_t *t,
     bool other_users, char *why, size_t whylen)
{
    const char *type = jobspec_dep_name (c->type);
    uint64_t id = c->job_id;
    bool ended = t->state >= DEPJ_COMPLETED;

    if ((int64_t)id == self_id) {
        snprintf (why, whylen, "%s:%" PRIu64 ": a job cannot wait for itself",
                  type, id);
        return DEP_NEVER;
    }
    /* A job that does not exist, did not when this one was submitted (ids
     * grow), or is another user's where the site allows only one's own:
     * one answer, byte for byte, so that an id says nothing about other
     * users' jobs (doc/api.md "Errors"). */
    if ((int64_t)id > self_id || !t->exists
        || (t->other_user && !other_users)) {
        snprintf (why, whylen, "%s:%" PRIu64 ": no such job", type, id);
        return DEP_NEVER;
    }
    switch (c->type) {
    case JOBSPEC_DEP_AFTER:
        if (!t->started && t->state != DEPJ_CANCELLED && !ended)
            break;
        if (c->delay_min && t->since_s < c->delay_min * 60.0) {
            snprintf (why, whylen,
                      "%s:%" PRIu64 "+%u: %.1f of %u minutes passed", type, id,
                      c->delay_min, t->since_s / 60.0, c->delay_min);
            return DEP_WAIT;
        }
        return DEP_READY;
    case JOBSPEC_DEP_AFTERANY:
    case JOBSPEC_DEP_AFTERBURSTBUFFER:
        if (ended)
            return DEP_READY;
        break;
    case JOBSPEC_DEP_AFTEROK:
    case JOBSPEC_DEP_AFTERCORR:
        if (t->state == DEPJ_COMPLETED)
            return DEP_READY;
        if (ended) {
            snprintf (why, whylen, "%s:%" PRIu64 ": job %" PRIu64 " %s", type,
                      id, id, depj_names[t->state]);
            return DEP_NEVER;
        }
        break;
    case JOBSPEC_DEP_AFTERNOTOK:
        if (t->state == DEPJ_FAILED || t->state == DEPJ_CANCELLED)
            return DEP_READY;
        if (ended) {
            snprintf (why, whylen,
                      "%s:%" PRIu64 ": job %" PRIu64 " completed successfully",
                      type, id, id);
            return DEP_NEVER;
        }
        break;
    default:
        snprintf (why, whylen, "%s: not a condition on a job", type);
        return DEP_NEVER;
    }
    snprintf (why, whylen, "%s:%" PRIu64 ": job %" PRIu64 " is %s", type, id,
              id, t->state == DEPJ_RUNNING ? "running" : "not started");
    return DEP_WAIT;
}

ms_dep_result_t
depend_eval (const ms_deps_t *deps, int64_t self_id,
             const ms_dep_target_t *targets, bool singleton_clear,
             bool other_users, char *why, size_t whylen)
{
    char buf[256], first_wait[256] = "", first_never[256] = "";
    size_t nready = 0, nnever = 0;
    static const ms_dep_target_t none = { 0 };

    if (!why || whylen == 0) {
        why = buf;
        whylen = sizeof (buf);
    }
    why[0] = '\0';
    if (!deps || deps->n == 0)
        return DEP_READY;
    for (size_t i = 0; i < deps->n; i++) {
        const ms_dep_t *c = &deps->d[i];
        ms_dep_result_t r;
        char w[256] = "";

        if (c->type == JOBSPEC_DEP_SINGLETON) {
            r = singleton_clear ? DEP_READY : DEP_WAIT;
            if (r == DEP_WAIT)
                snprintf (w, sizeof (w),
                          "singleton: another job of yours with this name "
                          "is queued or running");
        } else
            r = one (c, self_id, targets ? &targets[i] : &none, other_users,
                     w, sizeof (w));
        if (r == DEP_READY)
            nready++;
        else if (r == DEP_NEVER) {
            nnever++;
            if (!first_never[0])
                snprintf (first_never, sizeof (first_never), "%s", w);
        } else if (!first_wait[0])
            snprintf (first_wait, sizeof (first_wait), "%s", w);
    }
    if (deps->any) {
        /* '?': one that holds suffices; never only when none can */
        if (nready > 0)
            return DEP_READY;
        if (nnever == deps->n) {
            snprintf (why, whylen, "%s%s", first_never,
                      deps->n > 1 ? " (and every other condition)" : "");
            return DEP_NEVER;
        }
        snprintf (why, whylen, "%s", first_wait);
        return DEP_WAIT;
    }
    /* ',': every one must hold */
    if (nnever > 0) {
        snprintf (why, whylen, "%s", first_never);
        return DEP_NEVER;
    }
    if (nready == deps->n)
        return DEP_READY;
    snprintf (why, whylen, "%s", first_wait);
    return DEP_WAIT;
}
