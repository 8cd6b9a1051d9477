/* depend.h - does a job's --dependency hold (doc/daemon.md
 * "Dependencies")? The conditions name meta jobs (metasched's own ids,
 * wherever those ran); the caller reads what metasched knows of each and
 * asks here, so that the rules live in one place and are tested alone
 * (tests/unit/test_depend.c).
 *
 * As sbatch reads them: after (the job started, or was cancelled;
 * +MINUTES after that), afterany (it ended), afterok (it completed: exit 0
 * and, for an array, every task), afternotok (it ended otherwise: failed
 * or cancelled), singleton (no other job of the same user and name is
 * live in metasched). ',' joins conditions that must all hold, '?' those of
 * which one suffices. aftercorr is taken as afterok of the whole array
 * (metasched routes an array as one) and afterburstbuffer as afterany.
 */
#ifndef MS_DEPEND_H
#define MS_DEPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metasched/common/jobspec.h"

/* A meta job's state as a dependency sees it. */
typedef enum {
    DEPJ_WAITING = 0, /* queued, deciding, dispatching, submitted, lost */
    DEPJ_RUNNING,
    DEPJ_COMPLETED,
    DEPJ_FAILED,
    DEPJ_CANCELLED,
} ms_depj_state_t;

/* What metasched knows of the job a condition names. */
typedef struct {
    bool exists;       /* false: no such meta job */
    bool other_user;   /* it belongs to another user */
    ms_depj_state_t state;
    bool started;      /* it ran or runs */
    double since_s;    /* since it started, or ended where it never did */
} ms_dep_target_t;

typedef enum {
    DEP_WAIT = 0, /* not yet */
    DEP_READY,    /* holds: the job may be routed */
    DEP_NEVER,    /* can never hold */
} ms_dep_result_t;

/* The job state's word ("queued", "completed" ...) as DEPJ_*. */
ms_depj_state_t depend_state (const char *job_state);

/* Evaluate deps for job self_id: targets[i] is what is known of the job
 * deps->d[i] names (ignored for singleton); singleton_clear says that no
 * other live job of the same user and name comes before this one;
 * other_users false refuses conditions on other users' jobs. why (whylen
 * bytes, may be NULL) gets the condition that decided: what it waits for,
 * or why it can never hold. */
ms_dep_result_t depend_eval (const ms_deps_t *deps, int64_t self_id,
                             const ms_dep_target_t *targets,
                             bool singleton_clear, bool other_users,
                             char *why, size_t whylen);

#endif /* MS_DEPEND_H */
