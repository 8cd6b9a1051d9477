/* mixids.h - the ids of the jobs metaschedd has counted in its job mix
 * that are still in the queue (doc/daemon.md, "The job mix counts a job
 * once"): a job enters the mix at its first decision, not at each one,
 * and its id is forgotten once the job has left the queue. */
#ifndef MS_MIXIDS_H
#define MS_MIXIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An open-addressed set of job ids, each stamped with the latest pass
 * that saw the job in the queue. */
typedef struct {
    struct mixid *slot; /* cap slots (a power of two); NULL: empty */
    size_t cap, n;
    uint32_t pass; /* the current pass (mixids_pass) */
} ms_mixids_t;

void mixids_init (ms_mixids_t *s);
void mixids_free (ms_mixids_t *s);
/* Job id decided now: true when it was not counted yet (the caller counts
 * it), false when it was; either way it is seen in this pass. */
bool mixids_add (ms_mixids_t *s, int64_t id);
/* Whether job id is counted (for tests and logs). */
bool mixids_has (const ms_mixids_t *s, int64_t id);
/* Job id is still in the queue in this pass (a job in flight); nothing
 * when it is not counted. */
void mixids_seen (ms_mixids_t *s, int64_t id);
/* A new pass over the queue begins. */
void mixids_pass (ms_mixids_t *s);
/* The pass has seen every job in the queue: forget the ids it did not
 * see (their jobs have left it); returns how many were forgotten. */
size_t mixids_prune (ms_mixids_t *s);
/* The ids counted. */
size_t mixids_count (const ms_mixids_t *s);

#endif /* MS_MIXIDS_H */
