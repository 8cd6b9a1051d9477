/* reportout.h - what `metasched report` and `metasched report --ab`
 * print the same way: times and JSON documents. */
#ifndef MS_REPORTOUT_H
#define MS_REPORTOUT_H

#include <stddef.h>
#include <time.h>

#include <jansson.h>

/* t as YYYY-MM-DDTHH:MM:SSZ (UTC) in buf; returns buf. */
const char *report_time_text (time_t t, char *buf, size_t len);
/* Print o on standard output, indented, numbers to 12 digits, and drop
 * it; -1 when it cannot be encoded. */
int report_print_json (json_t *o);

#endif
