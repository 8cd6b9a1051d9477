/* clifmt.c - output formats and options shared by the user commands. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "metasched/cli/clifmt.h"
#include "metasched/common/util.h"

void
clifmt_duration (const json_t *secs, char *out, size_t outlen)
{
    double d;
    long long s, days;

    if (!json_is_number (secs) || (d = json_number_value (secs)) < 0
        || !isfinite (d) || d > 1e12) {
        ms_strlcpy (out, "-", outlen);
        return;
    }
    s = (long long)(d + 0.5);
    days = s / 86400;
    s %= 86400;
    if (days > 0)
        snprintf (out, outlen, "%lld-%02lld:%02lld:%02lld", days, s / 3600,
                  (s / 60) % 60, s % 60);
    else
        snprintf (out, outlen, "%02lld:%02lld:%02lld", s / 3600, (s / 60) % 60,
                  s % 60);
}

void
clifmt_energy (const json_t *joules, char *out, size_t outlen)
{
    static const char *units[] = { "J", "kJ", "MJ", "GJ", "TJ" };
    double e;
    int u = 0;

    if (!json_is_number (joules) || !isfinite (e = json_number_value (joules))
        || e < 0) {
        ms_strlcpy (out, "-", outlen);
        return;
    }
    while (e >= 1000.0 && u < 4) {
        e /= 1000.0;
        u++;
    }
    snprintf (out, outlen,
              e >= 100  ? "%.0f%s"
              : e >= 10 ? "%.1f%s"
                        : "%.2f%s",
              e, units[u]);
}

void
clifmt_freq (const json_t *khz, char *out, size_t outlen)
{
    double f;

    if (!json_is_number (khz) || !isfinite (f = json_number_value (khz))
        || f <= 0) {
        ms_strlcpy (out, "-", outlen);
        return;
    }
    snprintf (out, outlen, "%.2f", f / 1e6);
}

void
clifmt_text (const json_t *v, char *out, size_t outlen)
{
    if (json_is_string (v) && json_string_length (v) > 0) {
        ms_strlcpy (out, json_string_value (v), outlen);
        /* a name may hold anything printable; keep the table a table */
        for (char *c = out; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == ' ')
                *c = '_';
    } else if (json_is_integer (v))
        snprintf (out, outlen, "%" JSON_INTEGER_FORMAT, json_integer_value (v));
    else
        ms_strlcpy (out, "-", outlen);
}

int
clifmt_server_opt (const char *prog, int argc, char **argv, int *ip,
                   const char **serverp)
{
    const char *w = argv[*ip];

    if (!strncmp (w, "--server=", 9)) {
        *serverp = w + 9;
        (*ip)++;
        return 1;
    }
    if (strcmp (w, "--server"))
        return 0;
    if (*ip + 1 >= argc) {
        fprintf (stderr,
                 "%s: --server: needs a value (unix:/path or "
                 "http://host:port)\n",
                 prog);
        return -1;
    }
    *serverp = argv[*ip + 1];
    *ip += 2;
    return 1;
}
