/* reportout.c - times and JSON as `metasched report` prints them
 * (reportout.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "metasched/admin/reportout.h"

const char *
report_time_text (time_t t, char *buf, size_t len)
{
    struct tm tm;
    gmtime_r (&t, &tm);
    strftime (buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

int
report_print_json (json_t *o)
{
    char *s = json_dumps (o, JSON_INDENT (2) | JSON_REAL_PRECISION (12));

    json_decref (o);
    if (!s)
        return -1;
    printf ("%s\n", s);
    free (s);
    return 0;
}
