/* ini.c - the lines of metasched's configuration files (ini.h). */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "metasched/common/ini.h"
#include "metasched/common/util.h"

void
ms_ini_init (ms_ini_t *it, const char *text, size_t len, const char *name)
{
    memset (it, 0, sizeof (*it));
    it->text = text;
    it->len = len;
    it->name = name;
}

ms_ini_event_t
ms_ini_next (ms_ini_t *it, char **keyp, char **valp, ms_error_t *errp)
{
    while (it->pos < it->len) {
        size_t end = it->pos, n;
        char *line, *eq;

        while (end < it->len && it->text[end] != '\n')
            end++;
        n = end - it->pos;
        it->line++;
        if (n >= sizeof (it->buf)) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: line is longer than %zu bytes",
                    it->name, it->line, sizeof (it->buf) - 1);
            return MS_INI_ERROR;
        }
        memcpy (it->buf, it->text + it->pos, n);
        it->buf[n] = '\0';
        it->pos = end + 1;
        if (memchr (it->buf, '\0', n)) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: line contains a NUL byte",
                    it->name, it->line);
            return MS_INI_ERROR;
        }
        /* comments: '#' or ';' at the start or after whitespace */
        for (char *h = it->buf; *h; h++)
            if ((*h == '#' || *h == ';')
                && (h == it->buf || isspace ((unsigned char)h[-1]))) {
                *h = '\0';
                break;
            }
        line = ms_strtrim (it->buf);
        if (!*line)
            continue;
        if (*line == '[') {
            char *close = strchr (line, ']');
            if (!close || ms_strtrim (close + 1)[0]) {
                ms_err (errp, MS_ERR_INPUT,
                        "%s:%d: malformed section header '%s'", it->name,
                        it->line, line);
                return MS_INI_ERROR;
            }
            *close = '\0';
            *keyp = ms_strtrim (line + 1);
            *valp = NULL;
            return MS_INI_SECTION;
        }
        if (!(eq = strchr (line, '='))) {
            ms_err (errp, MS_ERR_INPUT,
                    "%s:%d: expected 'key = value', got '%s'", it->name,
                    it->line, line);
            return MS_INI_ERROR;
        }
        *eq = '\0';
        *keyp = ms_strtrim (line);
        *valp = ms_strtrim (eq + 1);
        if (!**keyp) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: missing key before '='",
                    it->name, it->line);
            return MS_INI_ERROR;
        }
        if (!**valp) {
            ms_err (errp, MS_ERR_INPUT, "%s:%d: %s: missing value", it->name,
                    it->line, *keyp);
            return MS_INI_ERROR;
        }
        return MS_INI_KEY;
    }
    return MS_INI_END;
}

int
ms_ini_walk (const char *text, size_t len, const char *name, int *linep,
             ms_ini_fn *on_section, ms_ini_fn *on_key, void *arg,
             ms_error_t *errp)
{
    ms_ini_t ini;
    int rc = 0;

    ms_ini_init (&ini, text, len, name);
    while (rc == 0) {
        char *key, *val;
        ms_ini_event_t ev = ms_ini_next (&ini, &key, &val, errp);

        *linep = ini.line;
        if (ev == MS_INI_END)
            break;
        if (ev == MS_INI_ERROR)
            rc = -1;
        else if (ev == MS_INI_SECTION)
            rc = on_section (arg, key, val, errp);
        else
            rc = on_key (arg, key, val, errp);
    }
    return rc;
}
