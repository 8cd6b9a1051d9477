/* dstate.h - the shared part of metaschedd's state, at the bottom of
 * metasched/daemon/ (calls flow one way: metaschedd.c -> daemon.c ->
 * the steps -> this; see metasched/daemon/README for the call tree).
 *
 * The state itself is struct ms_daemon (daemon_int.h): a small struct
 * per topic, each owned by the file that implements it (the refresher:
 * refresh.c; the submit workers' turns: submit.c; leadership: leader.c;
 * the snapshot: snapshot.c; ...), the decision state under ds.mu, and the
 * shared part (configuration, site, database, clusters, this wake-up) at
 * the bottom.
 *
 * Locks: mu guards the decision state and the clusters' state (what the
 * hooks read); sn.mu the snapshot and its readers; rf.mu the refresher's
 * readings; sub.mu the submit workers' turns. Order: mu before sn.mu
 * (snapshot_publish runs under ds.mu); rf.mu and sub.mu are taken alone
 * (nothing is locked while either is held). The cycle holds ds.mu only while
 * it changes its in-memory picture, never during a call to a cluster or
 * the database.
 */
#ifndef MS_DSTATE_H
#define MS_DSTATE_H

#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "metasched/common/util.h"

typedef struct ms_daemon ms_daemon_t;

static inline double
mono (void)
{
    return ms_mono_s ();
}

static inline double
wall (void)
{
    return (double)time (NULL);
}

/* The cycle's wake-up: a byte written to fd[1] ends its wait between
 * cycles (daemon.c polls fd[0]); from any thread. daemon_kick (daemon.h)
 * is the same for the API's hooks. */
typedef struct {
    int fd[2];
} dwake_t;
void dwake_kick (dwake_t *w);

/* A string member of a job's stored options, or NULL. */
const char *daemon_jstr (json_t *o, const char *key);
/* Make room for need more bytes and the NUL in the growing buffer *buf
 * of *cap bytes, len of them used. */
void daemon_reserve (char **buf, size_t len, size_t *cap, size_t need);
/* qsort's order of ms_job_info_t by cluster job id. */
int cmp_jobinfo (const void *a, const void *b);

#endif /* MS_DSTATE_H */
