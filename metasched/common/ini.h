/* ini.h - the lines of metasched's INI-like configuration files, shared by
 * the cluster configuration (partitions/clusterconf.c), the daemon's
 * (metasched/daemon/dconf.c) and whatever reads a key of them.
 *
 *   # comment ('#' or ';' at the start of a line or after whitespace)
 *   [section name]
 *   key = value
 *
 * The reader yields section headers and key = value pairs with their line
 * numbers; what the sections and keys mean is the caller's. Errors name the
 * place: "name:line: ...".
 */
#ifndef MS_INI_H
#define MS_INI_H

#include <stddef.h>

#include "metasched/common/error.h"

#define MS_INI_LINE_MAX 2048

typedef enum {
    MS_INI_ERROR = -1,
    MS_INI_END = 0,
    MS_INI_SECTION, /* *keyp: the name inside [ ], trimmed */
    MS_INI_KEY,     /* *keyp, *valp: both trimmed and not empty */
} ms_ini_event_t;

typedef struct {
    const char *text;
    size_t len, pos;
    const char *name; /* the file's name in messages */
    int line;         /* of the last event */
    char buf[MS_INI_LINE_MAX];
} ms_ini_t;

void ms_ini_init (ms_ini_t *it, const char *text, size_t len, const char *name);

/* The next section header or key = value. The strings point into it->buf
 * and live until the next call. */
ms_ini_event_t ms_ini_next (ms_ini_t *it, char **keyp, char **valp,
                            ms_error_t *errp);

/* Given an event's strings (val: NULL for a section header); an answer
 * other than 0 stops the walk. */
typedef int ms_ini_fn (void *arg, char *key, char *val, ms_error_t *errp);

/* The events of text (name: the file's name in messages) from the first:
 * each section header to on_section, each key = value to on_key, *linep set
 * first to the line of each event, the end included. 0 at the end, -1 on a
 * line the reader refuses (errp says which), or a callback's answer other
 * than 0, which stops the walk. */
int ms_ini_walk (const char *text, size_t len, const char *name, int *linep,
                 ms_ini_fn *on_section, ms_ini_fn *on_key, void *arg,
                 ms_error_t *errp);

#endif /* MS_INI_H */
