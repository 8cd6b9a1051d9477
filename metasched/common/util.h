/* util.h - small helpers shared by every part of metasched. */
#ifndef MS_UTIL_H
#define MS_UTIL_H

#include <stddef.h>

#include "metasched/common/error.h"

/* Read a whole file (at most maxlen bytes) into a NUL-terminated buffer.
 * The caller frees *bufp. */
int ms_read_file (const char *path, size_t maxlen, char **bufp, size_t *lenp,
                  ms_error_t *errp);

/* A reader of a file's text: text[0..len) (NUL-terminated), name the file
 * in its messages, arg its own (where it puts what it read). */
typedef int ms_text_fn (const char *text, size_t len, const char *name,
                        void *arg, ms_error_t *errp);

/* The file path (at most maxlen bytes) read by parse, with path as its
 * name: parse's answer, or -1 where the file cannot be read. */
int ms_parse_file (const char *path, size_t maxlen, ms_text_fn *parse,
                   void *arg, ms_error_t *errp);

/* Open a secret file (token, password) and check it on the descriptor,
 * so that what is checked is what is read: opened with O_NOFOLLOW (a
 * symbolic link as the last component is refused), a regular file, owned
 * by root or by the effective user, no access for group or others (mode
 * 0600 or 0400). The error names the file and what is wrong. *fdp is
 * open (O_CLOEXEC) on success; the caller closes it. */
int ms_open_secret_file (const char *path, int *fdp, ms_error_t *errp);

/* ms_open_secret_file, closed again: the file passes the checks. */
int ms_check_secret_file (const char *path, ms_error_t *errp);

/* Read a secret from a file that passes ms_open_secret_file's checks.
 * Trailing whitespace is removed. The caller frees *secretp (and should
 * clear it first). */
int ms_read_secret_file (const char *path, char **secretp, ms_error_t *errp);

/* Copy at most size-1 bytes and terminate; return strlen (src). */
size_t ms_strlcpy (char *dst, const char *src, size_t size);

/* prefix then v in decimal into dst, what snprintf (dst, size, "%s%lld",
 * prefix, v) writes, without its format parsing (the simulator names
 * each job so); return the length written. */
size_t ms_prefix_ll (char *dst, size_t size, const char *prefix, long long v);

/* Remove leading and trailing whitespace in place; return s. */
char *ms_strtrim (char *s);

/* Allocation that cannot fail: on out-of-memory the program aborts with a
 * message, as there is nothing sensible to fall back to. */
void *ms_xmalloc (size_t n);
void *ms_xcalloc (size_t n, size_t size);
void *ms_xrealloc (void *p, size_t n);
char *ms_xstrdup (const char *s);

/* Seconds on the monotonic clock (CLOCK_MONOTONIC): for durations and
 * deadlines, never for times of day. */
double ms_mono_s (void);

/* The seconds of a time unit letter: s 1, m 60, h 3600, d 86400; 0 for
 * any other character. */
long ms_unit_seconds (char c);

/* A growing, NUL-terminated buffer with a size limit, as a libcurl write
 * callback fills it. Start it zeroed with max set; free data. */
typedef struct {
    char *data;
    size_t len;
    size_t max;   /* the most it may hold */
    int overflow; /* set when an append would pass max */
} ms_buf_t;

/* Append size*nmemb bytes to the ms_buf_t at arg and return their count;
 * past max append nothing, set overflow and return 0 (which makes libcurl
 * stop the transfer). The signature is libcurl's CURLOPT_WRITEFUNCTION's. */
size_t ms_buf_write (char *ptr, size_t size, size_t nmemb, void *arg);

#endif /* MS_UTIL_H */
