/* jobspec_parse.c - the words of a batch job as sbatch reads them: the
 * #SBATCH lines of a script (jobspec_parse_script) and the command line
 * (jobspec_parse_args), each option word handed to jobspec.c's table
 * (jobspec_one_option), a new component at each hetjob line or ':'
 * (jobspec_het.c). The rules of the lines: jobspec.c's opening comment. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metasched/common/jobspec.h"
#include "metasched/common/jobspec_int.h"
#include "metasched/common/util.h"

/* The words of one #SBATCH line by sbatch's rules: whitespace separates,
 * quotes group, a backslash escapes, an unquoted '#' ends the line. The
 * words are written NUL-separated into out (as large as the line plus one
 * byte a word); returns the number of words, -1 for an open quote. */
static int
split_words (const char *l, char *out, char **words, int maxw)
{
    int nw = 0;
    char *o = out;

    for (;;) {
        char q = 0;
        bool any = false;

        while (*l == ' ' || *l == '\t' || *l == '\r' || *l == '\v'
               || *l == '\f')
            l++;
        if (!*l || *l == '#')
            break;
        if (nw == maxw)
            return -2;
        words[nw] = o;
        while (*l && (q || !isspace ((unsigned char)*l))) {
            if (*l == '\\' && l[1] && q != '\'') {
                *o++ = l[1];
                l += 2;
            } else if (q) {
                if (*l == q)
                    q = 0;
                else
                    *o++ = *l;
                l++;
            } else if (*l == '"' || *l == '\'') {
                q = *l++;
            } else if (*l == '#')
                break;
            else
                *o++ = *l++;
            any = true;
        }
        if (q)
            return -1;
        *o++ = '\0';
        if (any && !*words[nw])
            break; /* an empty word ("") ends the line, as in sbatch's
                    * get_argument */
        if (any)
            nw++;
        if (*l == '#')
            break;
    }
    return nw;
}

#define LINE_MAX_BYTES 4096
#define WORDS_MAX 4096

int
jobspec_parse_script (ms_jobspec_t *s, const char *script, size_t len,
                      const char *name, ms_error_t *errp)
{
    size_t pos = 0;
    int line = 0, nw = 0, rc = -1;
    ms_jobspec_t *cur = s; /* the component read */
    char **words = ms_xcalloc (WORDS_MAX, sizeof (char *));
    int *lines = ms_xcalloc (WORDS_MAX, sizeof (int));
    char *store = NULL;
    size_t used = 0, cap = 0;

    if (len > JOBSPEC_SCRIPT_MAX) {
        ms_err (errp, MS_ERR_INPUT, "%s: script is larger than %d bytes",
                name, JOBSPEC_SCRIPT_MAX);
        goto out;
    }
    if (memchr (script, '\0', len)) {
        ms_err (errp, MS_ERR_INPUT,
                "%s: script contains a NUL byte (binary file?)", name);
        goto out;
    }
    /* the words of all lines first (their text in one store, found again
     * by offsets), then read like a command line */
    while (pos < len) {
        size_t end = pos, n;
        const char *l;
        char buf[LINE_MAX_BYTES], *w[LINE_MAX_BYTES / 2];
        int k;

        while (end < len && script[end] != '\n')
            end++;
        n = end - pos;
        l = script + pos;
        line++;
        pos = end + 1;
        if (!(n >= 7 && !strncmp (l, "#SBATCH", 7))
            && !(n >= 6 && !strncmp (l, "#SLURM", 6))) {
            /* a command ends the directives; comments and blanks do not */
            size_t i = 0;
            while (i < n && isspace ((unsigned char)l[i]))
                i++;
            if (i < n && l[i] != '#')
                break;
            continue;
        }
        if (n >= LINE_MAX_BYTES) {
            ms_err (errp, MS_ERR_INPUT,
                    "%s:%d: #SBATCH line longer than %d bytes", name, line,
                    LINE_MAX_BYTES - 1);
            goto out;
        }
        k = l[1] == 'S' && l[2] == 'B' ? 7 : 6;
        memcpy (buf, l + k, n - (size_t)k);
        buf[n - (size_t)k] = '\0';
        {
            char *t = buf;
            size_t hl;
            while (*t == ' ' || *t == '\t')
                t++;
            if (jobspec_het_separator (t, &hl)) {
                /* the next component, whose options may follow on the
                 * line (sbatch blanks the word out) */
                memset (t, ' ', hl);
                if (nw + 1 > WORDS_MAX) {
                    ms_err (errp, MS_ERR_INPUT,
                            "%s:%d: more than %d words of options", name,
                            line, WORDS_MAX);
                    goto out;
                }
                if (used + 2 > cap) {
                    cap = used + 2 + 4096;
                    store = ms_xrealloc (store, cap);
                }
                memcpy (store + used, ":", 2);
                words[nw] = (char *)(uintptr_t)used;
                lines[nw++] = line;
                used += 2;
            } else if (buf[0] && !isspace ((unsigned char)buf[0])
                       && buf[0] != '-')
                continue; /* "#SBATCHED ...": a comment, not a directive */
        }
        char wbuf[LINE_MAX_BYTES * 2];
        int got = split_words (buf, wbuf, w, LINE_MAX_BYTES / 2);
        if (got == -1) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: a quote is not closed", name,
                    line);
            goto out;
        }
        if (got < 0 || nw + got > WORDS_MAX) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: more than %d words of options",
                    name, line, WORDS_MAX);
            goto out;
        }
        for (int i = 0; i < got; i++) {
            size_t wl = strlen (w[i]) + 1;
            if (used + wl > cap) {
                cap = (used + wl) * 2 + 4096;
                store = ms_xrealloc (store, cap);
            }
            memcpy (store + used, w[i], wl);
            words[nw] = (char *)(uintptr_t)used;
            lines[nw++] = line;
            used += wl;
        }
    }
    for (int i = 0; i < nw; i++)
        words[i] = store + (uintptr_t)words[i];
    for (int i = 0; i < nw;) {
        char where[512];
        int u;

        snprintf (where, sizeof (where), "%s:%d: ", name, lines[i]);
        if (!strcmp (words[i], ":")) {
            if (!(cur = jobspec_het_add (s, where, errp)))
                goto out;
            i++;
            continue;
        }
        if (words[i][0] != '-' || !words[i][1]) {
            ms_err (errp, MS_ERR_INPUT,
                    "%s'%.64s' is not an option (the script's arguments go "
                    "after it on msbatch's command line)",
                    where, words[i]);
            goto out;
        }
        u = jobspec_one_option (cur, where, words[i],
                        i + 1 < nw && strcmp (words[i + 1], ":") ? words[i + 1]
                                                                 : NULL,
                        errp);
        if (u < 0)
            goto out;
        i += u;
    }
    jobspec_het_merge (s);
    rc = 0;
out:
    free (store);
    free (words);
    free (lines);
    return rc;
}

int
jobspec_parse_args (ms_jobspec_t *s, int argc, char **argv, int *argip,
                    ms_error_t *errp)
{
    ms_jobspec_t *cur = s; /* ':' separates components, as in sbatch */
    size_t comp = 0;
    int i = 1;

    while (i < argc) {
        const char *w = argv[i];
        if (!strcmp (w, "--")) {
            i++;
            break;
        }
        if (!strcmp (w, ":") && i + 1 < argc) {
            char where[64];
            snprintf (where, sizeof (where), "component %zu: ", comp + 1);
            cur = jobspec_het_at (s, ++comp);
            if (!cur && !(cur = jobspec_het_add (s, where, errp)))
                return -1;
            i++;
            continue;
        }
        if (w[0] != '-' || !w[1])
            break;
        int used = jobspec_one_option (cur, "", w,
                               i + 1 < argc && strcmp (argv[i + 1], ":")
                                   ? argv[i + 1]
                                   : NULL,
                               errp);
        if (used < 0)
            return -1;
        i += used;
    }
    jobspec_het_merge (s);
    *argip = i;
    return 0;
}
