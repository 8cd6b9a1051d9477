/* simpar.h - private to `metasched simulate`: a table's runs shared out
 * among worker processes (simpar.c). */
#ifndef MS_SIMPAR_H
#define MS_SIMPAR_H

#include <stddef.h>

#include "metasched/common/error.h"

/* One run: run i of the table, its results written to out (size bytes,
 * zeroed before the call). It reads what the caller set up before
 * simpar_run and writes nothing else that the caller reads afterwards:
 * in a worker it runs in a process of its own. 0, or -1 with errp. */
typedef int (*simpar_fn) (void *arg, size_t i, void *out, ms_error_t *errp);

/* The workers to use by default: the processors this process may run on
 * (1 where that cannot be read). */
size_t simpar_default_workers (void);

/* Runs fn for i in [0, n), run i's results in outs + i * size. With
 * workers <= 1 (or n <= 1) in order in this process; otherwise this
 * process and workers - 1 forked ones take the runs in turn, each the
 * next not yet taken, and the results are copied back into outs. The
 * results do not depend on which process ran which run, since a run
 * reads only what was set up before. The first run (by index) that
 * failed gives the error; a worker that died gives its signal. */
int simpar_run (size_t n, size_t workers, size_t size, simpar_fn fn, void *arg,
                void *outs, ms_error_t *errp);

#endif
